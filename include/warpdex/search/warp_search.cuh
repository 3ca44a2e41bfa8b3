#pragma once
/// @file Warp-cooperative search of the static B+-tree layout (search_device.hpp) for user kernels.
/// CUDA-only: include from .cu files.

#include <warpdex/core/warp.cuh>
#include <warpdex/search/search_device.hpp>

#include <cstdint>

namespace warpdex {

/// The `Bound` of `query` in `tree.keys()`, found by the whole warp: at each level every lane reads one
/// entry of the current node (one coalesced load per level) and a ballot counts the entries preceding
/// the query, which names the child to enter. All 32 lanes must call it with the same query, and all get
/// the result. Lanes past the end of a short node read nothing, so no sentinel key is needed.
template <bound_kind Bound, class Key>
__device__ std::uint64_t warp_btree_search_bound(const static_btree_ref<Key>& tree, Key query)
{
  const unsigned lane = warp::lane_id();
  std::uint64_t node = 0;
  for (int level = tree.level_count - 1; level >= 0; --level) {
    const std::uint64_t first = node * btree_node_keys;
    const std::uint64_t entry = first + lane;
    const bool before = entry < tree.sizes[level] && precedes<Bound>(tree.levels[level][entry], query);
    const unsigned preceding = static_cast<unsigned>(__popc(warp::ballot(before)));
    const std::uint64_t remaining = tree.sizes[level] - first;
    const std::uint64_t node_size = remaining < btree_node_keys ? remaining : btree_node_keys;
    // As in btree_search_bound: only the top node can have every entry precede the query.
    if (preceding == node_size) { return tree.size(); }
    node = first + preceding;
  }
  return node;
}

}  // namespace warpdex
