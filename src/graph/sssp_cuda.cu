// The cuda backend's SSSP: the Thrust implementation on thrust::cuda::par, bucketing with the cuda
// multisplit.
#include <warpdex/split/multisplit.cuh>

#include "sssp_impl.hpp"

namespace warpdex::graph {
WARPDEX_INSTANTIATE_SSSP(cuda, std::int32_t)
WARPDEX_INSTANTIATE_SSSP(cuda, float)
}  // namespace warpdex::graph
