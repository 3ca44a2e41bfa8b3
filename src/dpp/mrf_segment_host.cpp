// The host backend's MRF segmentation. Thrust's OpenMP system (THRUST_DEVICE_SYSTEM is set to OMP for
// this file by src/dpp/CMakeLists.txt).
#include "mrf_segment_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_MRF_SEGMENT(host)
}  // namespace warpdex::dpp
