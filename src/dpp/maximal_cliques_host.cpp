// The host backend's maximal clique enumeration. Thrust's OpenMP system (THRUST_DEVICE_SYSTEM is set to
// OMP for this file by src/dpp/CMakeLists.txt).
#include "maximal_cliques_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_MAXIMAL_CLIQUES(host)
}  // namespace warpdex::dpp
