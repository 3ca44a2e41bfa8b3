// The host backend's graph construction: the Thrust implementation on Thrust's OpenMP system.
#include "csr_graph_impl.hpp"

namespace warpdex::graph {
WARPDEX_INSTANTIATE_CSR_GRAPH(host, std::int32_t)
WARPDEX_INSTANTIATE_CSR_GRAPH(host, float)
}  // namespace warpdex::graph
