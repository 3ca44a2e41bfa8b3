// The host backend's duplicate search of 32- and 64-bit integers (split from the tuples to keep each
// translation unit's compile time short).
// Thrust's OpenMP system (THRUST_DEVICE_SYSTEM is set to OMP for this file by src/dpp/CMakeLists.txt).
#include "duplicates_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_DUPLICATES(std::uint32_t, host)
WARPDEX_INSTANTIATE_DUPLICATES(std::uint64_t, host)
}  // namespace warpdex::dpp
