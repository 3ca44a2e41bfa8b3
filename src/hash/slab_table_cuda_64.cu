// The cuda backend of the slab tables with 64-byte slabs.
#include <warpdex/hash/detail/slab_table_cuda_impl.cuh>
#include <warpdex/hash/detail/slab_table_instances.hpp>

namespace warpdex::hash::detail {

WARPDEX_INSTANTIATE_SLAB_TABLE_SIZE(64, cuda)

}  // namespace warpdex::hash::detail
