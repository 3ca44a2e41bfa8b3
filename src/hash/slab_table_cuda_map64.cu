// The cuda backend of the 64 / 64 map and multimap, and the entry points of 64-bit keys.
#include <warpdex/hash/detail/slab_table_cuda_impl.cuh>
#include <warpdex/hash/detail/slab_table_instances.hpp>

namespace warpdex::hash::detail {

WARPDEX_INSTANTIATE_SLAB_TABLE_MAP64(cuda)

}  // namespace warpdex::hash::detail
