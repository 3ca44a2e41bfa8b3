// The cuda backend's external faces. Thrust's CUDA system.
#include "external_faces_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_EXTERNAL_FACES(cuda)
}  // namespace warpdex::dpp
