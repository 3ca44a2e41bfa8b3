// The cuda backend of the slab tables with 128-byte slabs, and the entry points shared by every layout.
#include <warpdex/hash/detail/slab_table_cuda_impl.cuh>
#include <warpdex/hash/detail/slab_table_instances.hpp>

namespace warpdex::hash::detail {

WARPDEX_INSTANTIATE_SLAB_TABLE_SHARED(cuda)
WARPDEX_INSTANTIATE_SLAB_TABLE_SIZE(128, cuda)

}  // namespace warpdex::hash::detail
