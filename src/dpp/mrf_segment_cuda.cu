// The cuda backend's MRF segmentation. Thrust's CUDA system.
#include "mrf_segment_impl.hpp"

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_MRF_SEGMENT(cuda)
}  // namespace warpdex::dpp
