#include "radix_sort_impl.hpp"

namespace warpdex {
WARPDEX_DEFINE_RADIX_SORT(host)
#if WARPDEX_HAS_CUDA
WARPDEX_DEFINE_RADIX_SORT(cuda)
#endif
}  // namespace warpdex
