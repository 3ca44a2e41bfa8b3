#pragma once
/// @file Warp-cooperative searches for user kernels: of the static B+-tree layout (search_device.hpp)
/// and of a plain sorted array (33-ary).
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

/// The `Bound` of `query` in keys[0, count) (ascending), found by the whole warp without an index: a
/// 33-ary search. Each step the 32 lanes read 32 evenly spaced pivots of the remaining range and a ballot
/// counts those preceding the query, which leaves the slice between two neighbouring pivots (about
/// 1/33 of the range); the last 32 or fewer keys are read at once. About log_33(count) + 1 steps of one
/// scattered load per lane. All 32 lanes must call it with the same query, and all get the result.
/// No sentinel: pivots always lie inside the range, so the largest key value is an ordinary query.
template <bound_kind Bound, class Key>
__device__ std::uint64_t warp_kary_search_bound(const Key* keys, std::uint64_t count, Key query)
{
  constexpr std::uint64_t slices = warp::size + 1;
  const std::uint64_t lane = warp::lane_id();
  // The answer lies in [first, last]: keys before `first` precede the query, keys from `last` on do not.
  std::uint64_t first = 0;
  std::uint64_t last = count;
  while (last - first > warp::size) {
    const std::uint64_t range = last - first;
    const bool before = precedes<Bound>(keys[first + (lane + 1) * range / slices], query);
    const std::uint64_t preceding = static_cast<unsigned>(__popc(warp::ballot(before)));
    // Pivots are strictly increasing (range > 32), and the sorted keys make the preceding ones a prefix.
    const std::uint64_t next_first = preceding == 0 ? first : first + preceding * range / slices + 1;
    last = preceding == warp::size ? last : first + (preceding + 1) * range / slices;
    first = next_first;
  }
  const std::uint64_t entry = first + lane;
  const bool before = entry < last && precedes<Bound>(keys[entry], query);
  return first + static_cast<unsigned>(__popc(warp::ballot(before)));
}

}  // namespace warpdex
