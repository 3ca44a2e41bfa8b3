#include "multisplit_instances.hpp"

#include <warpdex/split/multisplit_host.hpp>

namespace warpdex {
WARPDEX_INSTANTIATE_MULTISPLITS_32(host)
WARPDEX_INSTANTIATE_MULTISPLITS_64(host)
}  // namespace warpdex
