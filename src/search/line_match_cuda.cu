// The cuda backend's line matching: the Thrust implementation on Thrust's CUDA system.
#include "line_match_impl.hpp"

WARPDEX_INSTANTIATE_LINE_MATCH(warpdex::cuda)
