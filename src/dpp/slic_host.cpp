// The host backend's SLIC superpixels. Thrust's OpenMP system (THRUST_DEVICE_SYSTEM is set to OMP for
// this file by src/dpp/CMakeLists.txt).
#include "slic_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_SLIC(host)
}  // namespace warpdex::dpp
