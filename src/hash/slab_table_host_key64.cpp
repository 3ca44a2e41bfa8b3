// The host backend of the slab tables of 64-bit keys (the 64 / 64 map and multimap, the set of 64-bit
// keys), apart from the 32-bit ones so the two compile in parallel.
#include <warpdex/hash/detail/slab_table_host_impl.hpp>
#include <warpdex/hash/detail/slab_table_instances.hpp>

namespace warpdex::hash::detail {

WARPDEX_INSTANTIATE_SLAB_TABLE_KEY64(host)

}  // namespace warpdex::hash::detail
