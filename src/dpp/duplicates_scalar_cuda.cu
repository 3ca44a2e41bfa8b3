// The cuda backend's duplicate search of 32- and 64-bit integers (split from the tuples to keep each
// translation unit's compile time short).
// Thrust's CUDA system.
#include "duplicates_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_DUPLICATES(std::uint32_t, cuda)
WARPDEX_INSTANTIATE_DUPLICATES(std::uint64_t, cuda)
}  // namespace warpdex::dpp
