// The cuda backend of the set of 64-bit keys.
#include <warpdex/hash/detail/slab_table_cuda_impl.cuh>
#include <warpdex/hash/detail/slab_table_instances.hpp>

namespace warpdex::hash::detail {

WARPDEX_INSTANTIATE_SLAB_TABLE_SET64(cuda)

}  // namespace warpdex::hash::detail
