// The cuda backend's hashfight_map (k32/v32 and k64/v64).
// Thrust's CUDA system.
#include "hashfight_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_HASHFIGHT(cuda)
}  // namespace warpdex::dpp
