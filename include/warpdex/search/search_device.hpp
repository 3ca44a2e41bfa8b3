#pragma once
/// @file Per-thread searches of a sorted array and the static B+-tree (CSS) layout over it, usable from
/// host code and from user kernels alike (no CUDA headers needed). The warp-cooperative search of the
/// same layout is in warp_search.cuh.
///
/// Layout: level 0 is the sorted key array itself (not copied). Level l + 1 holds one entry per node of
/// level l, where a node is `btree_node_keys` consecutive entries and its entry is the node's last (largest)
/// key. Levels are added until one node holds the whole level. A search starts in the single top node and
/// descends: the number of entries of a node that precede the query is the child to enter. A node is one
/// coalesced warp load (32 lanes x one key), and the upper levels, about 1/32 of the keys, stay in cache.
///
/// No sentinel key is stored: the last node of a level is shorter instead, so every key value, the
/// largest one included, is a valid key and a valid query.

#include <warpdex/core/config.hpp>

#include <cstdint>

namespace warpdex {

/// Which end of the run of keys equal to the query a search reports.
enum class bound_kind {
  lower,  ///< the first position whose key is not less than the query (std::lower_bound)
  upper,  ///< the first position whose key is greater than the query (std::upper_bound)
};

/// Keys per B+-tree node: one key per lane of a warp, so a node is one coalesced load.
inline constexpr std::uint64_t btree_node_keys = 32;
/// Levels enough for any 64-bit array size: each level divides the size by 32 (2^5), so
/// ceil(64 / 5) = 13 index levels above the keys suffice.
inline constexpr int btree_max_levels = 14;

/// A non-owning view of a static B+-tree over a sorted array, cheap to pass to kernels by value.
template <class Key>
struct static_btree_ref {
  const Key* levels[btree_max_levels] = {};  ///< levels[0] is the sorted key array
  std::uint64_t sizes[btree_max_levels] = {};
  int level_count = 1;  ///< levels[0, level_count) are valid; the last one fits in one node

  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint64_t size() const { return sizes[0]; }
  [[nodiscard]] WARPDEX_HOST_DEVICE const Key* keys() const { return levels[0]; }
};

/// Whether `entry` lies before the position a `Bound` search for `query` reports.
template <bound_kind Bound, class Key>
[[nodiscard]] WARPDEX_HOST_DEVICE bool precedes(Key entry, Key query)
{
  if constexpr (Bound == bound_kind::lower) {
    return entry < query;
  } else {
    return !(query < entry);
  }
}

/// Binary search of `keys[0, count)` (ascending) on one thread: lower or upper bound of `query`.
/// O(log count) dependent loads.
template <bound_kind Bound, class Key>
[[nodiscard]] WARPDEX_HOST_DEVICE std::uint64_t binary_search_bound(const Key* keys, std::uint64_t count, Key query)
{
  std::uint64_t first = 0;
  while (count > 0) {
    const std::uint64_t half = count / 2;
    if (precedes<Bound>(keys[first + half], query)) {
      first += half + 1;
      count -= half + 1;
    } else {
      count = half;
    }
  }
  return first;
}

/// The same bound as `binary_search_bound` over `tree.keys()`, found by descending the B+-tree on one
/// thread: O(levels * log 32) comparisons, one node (128 or 256 bytes) read per level. If the keys are
/// not sorted (a broken precondition) the result is meaningless but stays within [0, size].
template <bound_kind Bound, class Key>
[[nodiscard]] WARPDEX_HOST_DEVICE std::uint64_t btree_search_bound(const static_btree_ref<Key>& tree, Key query)
{
  std::uint64_t node = 0;
  for (int level = tree.level_count - 1; level >= 0; --level) {
    const std::uint64_t first = node * btree_node_keys;
    const std::uint64_t remaining = tree.sizes[level] - first;
    const std::uint64_t node_size = remaining < btree_node_keys ? remaining : btree_node_keys;
    const std::uint64_t preceding = binary_search_bound<Bound>(tree.levels[level] + first, node_size, query);
    // Every entry precedes the query only in the top node (each lower node's last entry was the parent's
    // entry that did not precede it): the query lies beyond all keys.
    if (preceding == node_size) { return tree.size(); }
    node = first + preceding;
  }
  return node;
}

}  // namespace warpdex
