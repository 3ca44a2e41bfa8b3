// Sorted-array search on the host backend: every algorithm runs the same per-query code as on the GPU
// (binary search, the B+-tree descent, sorting the queries first), one query per loop iteration.
#include "sorted_search_impl.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace warpdex::detail {

template <>
struct search_backend<host> {
  template <class Key>
  static bool is_sorted(const host&, std::span<const Key> keys)
  {
    const auto pairs = static_cast<std::int64_t>(keys.size()) - 1;
    bool sorted = true;
#pragma omp parallel for reduction(&& : sorted) schedule(static)
    for (std::int64_t i = 0; i < pairs; ++i) { sorted = sorted && !(keys[i + 1] < keys[i]); }
    return sorted;
  }

  template <class Key>
  static void build_levels(const host&, const static_btree_ref<Key>& tree)
  {
    for (int level = 1; level < tree.level_count; ++level) {
      const Key* below = tree.levels[level - 1];
      const std::uint64_t below_size = tree.sizes[level - 1];
      Key* entries = const_cast<Key*>(tree.levels[level]);  // the index owns these levels
      const auto count = static_cast<std::int64_t>(tree.sizes[level]);
#pragma omp parallel for schedule(static)
      for (std::int64_t node = 0; node < count; ++node) {
        const std::uint64_t last = std::min<std::uint64_t>((node + 1) * btree_node_keys, below_size) - 1;
        entries[node] = below[last];
      }
    }
  }

  template <class Key>
  static search_algorithm choose(const host&, const static_btree_ref<Key>&, std::span<const Key>)
  {
    return search_algorithm::binary;
  }

  template <class Key>
  static void run(const host&, const static_btree_ref<Key>& tree, query_kind kind, std::span<const Key> queries,
                  const search_outputs& out, search_algorithm algorithm)
  {
    const auto count = static_cast<std::int64_t>(queries.size());
    if (algorithm == search_algorithm::btree) {
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < count; ++i) {
        answer_query(kind, tree, queries[i], i, out, true,
                     [&](auto bound) { return btree_search_bound<decltype(bound)::value>(tree, queries[i]); });
      }
      return;
    }
    // binary, and sorted_queries after putting the queries in key order
    std::vector<std::uint64_t> order;
    if (algorithm == search_algorithm::sorted_queries) {
      order.resize(queries.size());
      std::iota(order.begin(), order.end(), std::uint64_t{0});
      std::sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return queries[a] < queries[b]; });
    }
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      const std::uint64_t index = order.empty() ? static_cast<std::uint64_t>(i) : order[i];
      const Key query = queries[index];
      answer_query(kind, tree, query, index, out, true, [&](auto bound) {
        return binary_search_bound<decltype(bound)::value>(tree.keys(), tree.size(), query);
      });
    }
  }
};

}  // namespace warpdex::detail

namespace warpdex {
WARPDEX_INSTANTIATE_SORTED_SEARCH(host, std::uint32_t)
WARPDEX_INSTANTIATE_SORTED_SEARCH(host, std::uint64_t)
}  // namespace warpdex
