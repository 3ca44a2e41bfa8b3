// The host backend of the slab tables with the default hasher and key equality, every layout.
#include <warpdex/hash/detail/slab_table_host_impl.hpp>
#include <warpdex/hash/detail/slab_table_instances.hpp>

namespace warpdex::hash::detail {

WARPDEX_INSTANTIATE_SLAB_TABLE_BACKEND(host)

}  // namespace warpdex::hash::detail
