// The host backend's external faces. Thrust's OpenMP system (THRUST_DEVICE_SYSTEM is set to OMP for this
// file by src/dpp/CMakeLists.txt).
#include "external_faces_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_EXTERNAL_FACES(host)
}  // namespace warpdex::dpp
