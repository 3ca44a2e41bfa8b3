// The host backend's line matching: the Thrust implementation on Thrust's OpenMP system
// (THRUST_DEVICE_SYSTEM is set to OMP for this file by src/search/CMakeLists.txt).
#include "line_match_impl.hpp"

WARPDEX_INSTANTIATE_LINE_MATCH(warpdex::host)
