#include "multisplit_instances.hpp"

#include <warpdex/split/multisplit_host.hpp>

namespace warpdex {
WARPDEX_INSTANTIATE_ALL_MULTISPLITS(host)
}  // namespace warpdex
