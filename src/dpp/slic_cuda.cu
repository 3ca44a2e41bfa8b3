// The cuda backend's SLIC superpixels. Thrust's CUDA system.
#include "slic_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_SLIC(cuda)
}  // namespace warpdex::dpp
