// The host backend's hashfight_map (k32/v32 and k64/v64).
// Thrust's OpenMP system (THRUST_DEVICE_SYSTEM is set to OMP for this file by src/dpp/CMakeLists.txt).
#include "hashfight_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_HASHFIGHT(host)
}  // namespace warpdex::dpp
