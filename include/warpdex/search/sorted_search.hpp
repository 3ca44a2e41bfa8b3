#pragma once
/// @file Batched search of a sorted array of 32- or 64-bit keys: lower_bound, upper_bound, equal_range and
/// contains for a batch of queries, on the host or the GPU, with results in query order.
///
/// Example (device memory on the cuda backend, host memory on the host backend):
/// @code
///   warpdex::sorted_index<std::uint32_t, warpdex::cuda> index(warpdex::cuda{stream}, sorted_keys);
///   index.lower_bound(queries, positions);  // positions[i] = std::lower_bound(keys, queries[i]) - keys
/// @endcode
///
/// Precondition of every search: the keys are in ascending order (duplicates allowed). Builds without
/// NDEBUG check it with `check_sorted` when an index is made; release builds trust it, and unsorted keys
/// then give meaningless positions (never out of range, never a memory error).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/search/search_device.hpp>

#include <cstdint>
#include <span>
#include <string_view>

namespace warpdex {

/// How a batch is searched. Every algorithm returns the same positions; they differ in speed only.
enum class search_algorithm {
  automatic,  ///< chosen per batch by `sorted_index::choose`
  binary,     ///< one thread per query, binary search of the key array (the classic baseline)
  btree,      ///< one warp per query descends the B+-tree, reading one coalesced node per level
  kary,       ///< one warp per query, 33-ary search of the key array: 32 pivots per step, a ballot picks the slice
  /// sort the queries (by their high key bits, with their positions), search them in that order so that
  /// neighbouring threads share cache lines, and scatter the results back to query order
  sorted_queries,
};

/// "automatic", "binary", "btree", "kary" or "sorted_queries".
[[nodiscard]] std::string_view to_string(search_algorithm algorithm);
/// Parses the names `to_string` gives; anything else throws `warpdex::error`.
[[nodiscard]] search_algorithm parse_search_algorithm(std::string_view text);

/// Whether `keys` are in ascending (non-decreasing) order. O(n) on the backend; waits for the result.
template <class Backend, class Key>
[[nodiscard]] bool check_sorted(const Backend& backend, std::span<const Key> keys);

/// A static search index over a sorted key array: the array itself (not copied: it must outlive the index
/// and stay unchanged) plus a B+-tree of about size/31 keys built from it in the backend's memory.
/// Key: std::uint32_t or std::uint64_t. Backend: `host` or `cuda`. Spans given to the searches live in
/// the backend's memory (device memory for cuda). Every search writes all of its outputs and works for
/// any key and query value, including the largest value of Key; positions lie in [0, size()].
template <class Key, class Backend>
class sorted_index {
 public:
  /// Builds the B+-tree levels over `sorted_keys` (ascending, duplicates allowed, may be empty).
  /// Builds without NDEBUG throw `warpdex::error` when the keys are not sorted. O(size / 32).
  sorted_index(const Backend& backend, std::span<const Key> sorted_keys);

  /// positions[i] = index of the first key not less than queries[i] (size() when there is none).
  /// positions.size() must equal queries.size().
  void lower_bound(std::span<const Key> queries, std::span<std::uint64_t> positions,
                   search_algorithm algorithm = search_algorithm::automatic) const;

  /// positions[i] = index of the first key greater than queries[i] (size() when there is none).
  void upper_bound(std::span<const Key> queries, std::span<std::uint64_t> positions,
                   search_algorithm algorithm = search_algorithm::automatic) const;

  /// [first[i], last[i]) is the run of keys equal to queries[i] (empty, first == last, when absent):
  /// the lower and the upper bound. Both outputs have queries.size() elements.
  void equal_range(std::span<const Key> queries, std::span<std::uint64_t> first, std::span<std::uint64_t> last,
                   search_algorithm algorithm = search_algorithm::automatic) const;

  /// found[i] = 1 when queries[i] is among the keys, else 0 (one byte per query).
  void contains(std::span<const Key> queries, std::span<std::uint8_t> found,
                search_algorithm algorithm = search_algorithm::automatic) const;

  /// The algorithm `automatic` runs for this batch on this backend. On cuda: `sorted_queries` for batches
  /// of at least 2^20 queries into at least 2^20 keys that are not in ascending order, `binary` otherwise
  /// (smaller batches or arrays, and sorted batches). The order is sampled on the device at a fixed number
  /// of positions (one small kernel and a wait for the stream, whatever the batch size), so a nearly
  /// sorted batch may count as sorted; the choice changes only the speed. On host: `binary`.
  [[nodiscard]] search_algorithm choose(std::span<const Key> queries) const;

  /// A view for user kernels: pass it by value and call `btree_search_bound` (one thread) or
  /// `warp_btree_search_bound` (one warp, warp_search.cuh).
  [[nodiscard]] const static_btree_ref<Key>& ref() const { return ref_; }
  [[nodiscard]] std::uint64_t size() const { return ref_.size(); }
  [[nodiscard]] const Backend& backend() const { return backend_; }

 private:
  Backend backend_;
  buffer<Key> index_levels_;  ///< levels 1 and up, one after another
  static_btree_ref<Key> ref_;
};

/// One-call forms: build a `sorted_index` over `sorted_keys` on `backend` and run the search.
template <class Backend, class Key>
void lower_bound(const Backend& backend, std::span<const Key> sorted_keys, std::span<const Key> queries,
                 std::span<std::uint64_t> positions, search_algorithm algorithm = search_algorithm::automatic)
{
  sorted_index<Key, Backend>(backend, sorted_keys).lower_bound(queries, positions, algorithm);
}

template <class Backend, class Key>
void upper_bound(const Backend& backend, std::span<const Key> sorted_keys, std::span<const Key> queries,
                 std::span<std::uint64_t> positions, search_algorithm algorithm = search_algorithm::automatic)
{
  sorted_index<Key, Backend>(backend, sorted_keys).upper_bound(queries, positions, algorithm);
}

template <class Backend, class Key>
void equal_range(const Backend& backend, std::span<const Key> sorted_keys, std::span<const Key> queries,
                 std::span<std::uint64_t> first, std::span<std::uint64_t> last,
                 search_algorithm algorithm = search_algorithm::automatic)
{
  sorted_index<Key, Backend>(backend, sorted_keys).equal_range(queries, first, last, algorithm);
}

template <class Backend, class Key>
void contains(const Backend& backend, std::span<const Key> sorted_keys, std::span<const Key> queries,
              std::span<std::uint8_t> found, search_algorithm algorithm = search_algorithm::automatic)
{
  sorted_index<Key, Backend>(backend, sorted_keys).contains(queries, found, algorithm);
}

}  // namespace warpdex
