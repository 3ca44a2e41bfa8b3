// The host backend's group_by (Thrust's OpenMP system, set for this file by src/dpp/CMakeLists.txt).
#include "group_by_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_GROUP_BY(std::uint32_t, host)
WARPDEX_INSTANTIATE_GROUP_BY(std::uint64_t, host)
}  // namespace warpdex::dpp
