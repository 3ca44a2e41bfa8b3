// The cuda backend's LSM: the Thrust implementation on thrust::cuda::par.
#include "lsm_impl.hpp"

namespace warpdex {
WARPDEX_INSTANTIATE_LSM(cuda)
}  // namespace warpdex
