#pragma once
// The hash table a user would call instead of warpdex's, on each backend (bench/baselines): the
// open-addressing table on cuda, std::unordered_map on the host. Shared by the hash and dpp workloads.

#include "baselines.hpp"

#include <cstdint>
#include <type_traits>

namespace warpdex::workloads {

template <class Backend>
auto make_hash_baseline(const Backend&, std::uint64_t keys)
{
#if WARPDEX_HAS_CUDA
  if constexpr (std::is_same_v<Backend, cuda>) {
    return baselines::open_addressing_map(keys);
  } else {
    return baselines::unordered_map_baseline(keys);
  }
#else
  return baselines::unordered_map_baseline(keys);
#endif
}

}  // namespace warpdex::workloads
