// The host backend's LSM: the Thrust implementation on Thrust's OpenMP system (THRUST_DEVICE_SYSTEM is
// set to OMP for this file by src/lsm/CMakeLists.txt, so no CUDA header is needed).
#include "lsm_impl.hpp"

namespace warpdex {
WARPDEX_INSTANTIATE_LSM(host)
}  // namespace warpdex
