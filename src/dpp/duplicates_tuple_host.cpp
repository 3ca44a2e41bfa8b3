// The host backend's duplicate search of tuples of 2 to 4 32-bit words.
// Thrust's OpenMP system (THRUST_DEVICE_SYSTEM is set to OMP for this file by src/dpp/CMakeLists.txt).
#include "duplicates_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_DUPLICATES(uint32x2, host)
WARPDEX_INSTANTIATE_DUPLICATES(uint32x3, host)
WARPDEX_INSTANTIATE_DUPLICATES(uint32x4, host)
}  // namespace warpdex::dpp
