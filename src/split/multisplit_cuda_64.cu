#include "multisplit_instances.hpp"

#include <warpdex/split/multisplit.cuh>

namespace warpdex {
WARPDEX_INSTANTIATE_MULTISPLITS_64(cuda)
}  // namespace warpdex
