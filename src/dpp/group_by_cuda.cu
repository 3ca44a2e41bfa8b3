// The cuda backend's group_by (Thrust's CUDA system): the sort method.
#include "group_by_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_GROUP_BY(std::uint32_t, cuda)
WARPDEX_INSTANTIATE_GROUP_BY(std::uint64_t, cuda)
}  // namespace warpdex::dpp
