// The cuda backend's duplicate search of tuples of 2 to 4 32-bit words.
// Thrust's CUDA system.
#include "duplicates_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_DUPLICATES(uint32x2, cuda)
WARPDEX_INSTANTIATE_DUPLICATES(uint32x3, cuda)
WARPDEX_INSTANTIATE_DUPLICATES(uint32x4, cuda)
}  // namespace warpdex::dpp
