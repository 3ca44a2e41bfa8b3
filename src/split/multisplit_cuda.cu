#include "multisplit_instances.hpp"

#include <warpdex/split/multisplit.cuh>

namespace warpdex {
WARPDEX_INSTANTIATE_ALL_MULTISPLITS(cuda)
}  // namespace warpdex
