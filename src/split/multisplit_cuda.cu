#include "multisplit_instances.hpp"

#include <warpdex/split/multisplit.cuh>

namespace warpdex {
WARPDEX_INSTANTIATE_MULTISPLITS_32(cuda)
}  // namespace warpdex
