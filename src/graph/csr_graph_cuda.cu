// The cuda backend's graph construction: the Thrust implementation on thrust::cuda::par.
#include "csr_graph_impl.hpp"

namespace warpdex::graph {
WARPDEX_INSTANTIATE_CSR_GRAPH(cuda, std::int32_t)
WARPDEX_INSTANTIATE_CSR_GRAPH(cuda, float)
}  // namespace warpdex::graph
