#pragma once
// The backend-independent half of sorted-array search: the B+-tree level sizes, validation, and the
// dispatch to the backend's `build_btree_levels`, `choose_algorithm` and `run_search`, which each
// backend's translation unit defines before including this header's instantiation macro.

#include <warpdex/core/error.hpp>
#include <warpdex/search/sorted_search.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

namespace warpdex::detail {

/// What one search call computes per query.
enum class query_kind { lower_bound, upper_bound, equal_range, contains };

/// Where the results of one batch go (unused members are null).
struct search_outputs {
  std::uint64_t* first = nullptr;  ///< lower_bound, upper_bound, or equal_range's first
  std::uint64_t* last = nullptr;   ///< equal_range's last
  std::uint8_t* found = nullptr;   ///< contains
};

/// Writes the result of query `query` (number `index` in query order) through `search(bound_constant)`,
/// which returns the requested bound. `writer` selects the thread that stores it (all threads of a warp
/// run a warp-cooperative search; one of them writes).
template <class Key, class Search>
WARPDEX_HOST_DEVICE void answer_query(query_kind kind, const static_btree_ref<Key>& tree, Key query,
                                      std::uint64_t index, const search_outputs& out, bool writer, Search&& search)
{
  using lower = std::integral_constant<bound_kind, bound_kind::lower>;
  using upper = std::integral_constant<bound_kind, bound_kind::upper>;
  switch (kind) {
    case query_kind::lower_bound: {
      const std::uint64_t position = search(lower{});
      if (writer) { out.first[index] = position; }
      break;
    }
    case query_kind::upper_bound: {
      const std::uint64_t position = search(upper{});
      if (writer) { out.first[index] = position; }
      break;
    }
    case query_kind::equal_range: {
      const std::uint64_t first = search(lower{});
      const std::uint64_t last = search(upper{});
      if (writer) {
        out.first[index] = first;
        out.last[index] = last;
      }
      break;
    }
    case query_kind::contains: {
      const std::uint64_t position = search(lower{});
      if (writer) { out.found[index] = position < tree.size() && !(query < tree.keys()[position]); }
      break;
    }
  }
}

/// Fills in the level sizes of a B+-tree over `key_count` keys (levels[] stay unset) and returns how many
/// index entries the levels above the keys need in all.
template <class Key>
std::uint64_t plan_btree_levels(std::uint64_t key_count, static_btree_ref<Key>& tree)
{
  tree.sizes[0] = key_count;
  tree.level_count = 1;
  std::uint64_t index_entries = 0;
  while (tree.sizes[tree.level_count - 1] > btree_node_keys) {
    const std::uint64_t below = tree.sizes[tree.level_count - 1];
    tree.sizes[tree.level_count] = (below + btree_node_keys - 1) / btree_node_keys;
    index_entries += tree.sizes[tree.level_count];
    ++tree.level_count;
  }
  return index_entries;
}

inline void validate_outputs(std::size_t query_count, std::size_t output_count, const char* caller, const char* output)
{
  WARPDEX_EXPECTS(output_count == query_count, std::string(caller) + ": " + output + " holds " +
                                                   std::to_string(output_count) + " elements but there are " +
                                                   std::to_string(query_count) + " queries");
}

/// Each backend's translation unit specializes this before instantiating, with static members
///   template <class Key> void build_levels(const Backend&, const static_btree_ref<Key>&);
///   template <class Key> search_algorithm choose(const Backend&, const static_btree_ref<Key>&,
///                                                std::span<const Key> queries);
///   template <class Key> void run(const Backend&, const static_btree_ref<Key>&, query_kind,
///                                 std::span<const Key> queries, const search_outputs&, search_algorithm);
///   template <class Key> bool is_sorted(const Backend&, std::span<const Key>);
template <class Backend>
struct search_backend;

}  // namespace warpdex::detail

namespace warpdex {

template <class Backend, class Key>
bool check_sorted(const Backend& backend, std::span<const Key> keys)
{
  return keys.size() < 2 || detail::search_backend<Backend>::is_sorted(backend, keys);
}

template <class Key, class Backend>
sorted_index<Key, Backend>::sorted_index(const Backend& backend, std::span<const Key> sorted_keys) : backend_(backend)
{
#ifndef NDEBUG
  WARPDEX_EXPECTS(check_sorted(backend, sorted_keys),
                  "sorted_index: the keys are not in ascending order (sort them first; searching unsorted keys "
                  "gives meaningless positions)");
#endif
  const std::uint64_t index_entries = detail::plan_btree_levels(sorted_keys.size(), ref_);
  index_levels_ = make_buffer<Key>(backend, index_entries);
  ref_.levels[0] = sorted_keys.data();
  Key* next = index_levels_.data();
  for (int level = 1; level < ref_.level_count; ++level) {
    ref_.levels[level] = next;
    next += ref_.sizes[level];
  }
  detail::search_backend<Backend>::build_levels(backend_, ref_);
}

template <class Key, class Backend>
search_algorithm sorted_index<Key, Backend>::choose(std::span<const Key> queries) const
{
  return detail::search_backend<Backend>::choose(backend_, ref_, queries);
}

template <class Key, class Backend>
void sorted_index<Key, Backend>::lower_bound(std::span<const Key> queries, std::span<std::uint64_t> positions,
                                             search_algorithm algorithm) const
{
  detail::validate_outputs(queries.size(), positions.size(), "lower_bound", "positions");
  if (algorithm == search_algorithm::automatic) { algorithm = choose(queries); }
  detail::search_backend<Backend>::run(backend_, ref_, detail::query_kind::lower_bound, queries, {positions.data()},
                                       algorithm);
}

template <class Key, class Backend>
void sorted_index<Key, Backend>::upper_bound(std::span<const Key> queries, std::span<std::uint64_t> positions,
                                             search_algorithm algorithm) const
{
  detail::validate_outputs(queries.size(), positions.size(), "upper_bound", "positions");
  if (algorithm == search_algorithm::automatic) { algorithm = choose(queries); }
  detail::search_backend<Backend>::run(backend_, ref_, detail::query_kind::upper_bound, queries, {positions.data()},
                                       algorithm);
}

template <class Key, class Backend>
void sorted_index<Key, Backend>::equal_range(std::span<const Key> queries, std::span<std::uint64_t> first,
                                             std::span<std::uint64_t> last, search_algorithm algorithm) const
{
  detail::validate_outputs(queries.size(), first.size(), "equal_range", "first");
  detail::validate_outputs(queries.size(), last.size(), "equal_range", "last");
  if (algorithm == search_algorithm::automatic) { algorithm = choose(queries); }
  detail::search_backend<Backend>::run(backend_, ref_, detail::query_kind::equal_range, queries,
                                       {first.data(), last.data()}, algorithm);
}

template <class Key, class Backend>
void sorted_index<Key, Backend>::contains(std::span<const Key> queries, std::span<std::uint8_t> found,
                                          search_algorithm algorithm) const
{
  detail::validate_outputs(queries.size(), found.size(), "contains", "found");
  if (algorithm == search_algorithm::automatic) { algorithm = choose(queries); }
  detail::search_backend<Backend>::run(backend_, ref_, detail::query_kind::contains, queries,
                                       {nullptr, nullptr, found.data()}, algorithm);
}

}  // namespace warpdex

#define WARPDEX_INSTANTIATE_SORTED_SEARCH(Backend, Key) \
  template class sorted_index<Key, Backend>;            \
  template bool check_sorted<Backend, Key>(const Backend&, std::span<const Key>);
