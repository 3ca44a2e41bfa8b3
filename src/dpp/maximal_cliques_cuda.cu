// The cuda backend's maximal clique enumeration. Thrust's CUDA system.
#include "maximal_cliques_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_MAXIMAL_CLIQUES(cuda)
}  // namespace warpdex::dpp
