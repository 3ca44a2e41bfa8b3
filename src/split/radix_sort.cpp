#include "radix_sort_impl.hpp"

namespace warpdex {
WARPDEX_DEFINE_RADIX_SORT(host)  // the cuda backend's is in radix_sort_cuda.cu
WARPDEX_DEFINE_RADIX_SORT_HOST_ASYNC()
}  // namespace warpdex
