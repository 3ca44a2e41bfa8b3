#pragma once
// What the LSM's queries run per query or per level entry (lsm_impl.hpp): the searches of a level (its
// samples, then a line of keys), lookups, counts, ranges, neighbours, liveness flags and the export, and
// the sort of a large query batch. Each functor is one call per element or query, on either backend.

#include "../core/radix_sort_backend.hpp"
#include <warpdex/core/detail/thrust_backend.hpp>

#include <warpdex/core/config.hpp>
#include <warpdex/lsm/lsm_map.hpp>
#include <warpdex/search/search_device.hpp>

#include <thrust/gather.h>
#include <thrust/sequence.h>

#include <climits>
#include <cstdint>
#include <type_traits>

namespace warpdex::detail {

// ---- searches shared by the query functors ----

/// The bound in keys[0, size) from the bound `preceding` among the samples keys[0], keys[stride], ...:
/// with j samples before the key, it lies in ((j - 1) * stride, min(j * stride, size)].
template <bound_kind Bound, class Key>
WARPDEX_HOST_DEVICE std::uint64_t refine_bound(const Key* keys, std::uint64_t size, std::uint64_t preceding, Key key)
{
  if (preceding == 0) { return 0; }
  constexpr std::uint64_t stride = lsm_sample_stride<Key>;
  const std::uint64_t first = (preceding - 1) * stride + 1;
  const std::uint64_t last = preceding * stride < size ? preceding * stride : size;
  return first + binary_search_bound<Bound>(keys + first, last - first, key);
}

/// The first index of a level whose key is not before `key` (Bound lower: >= key; upper: > key), size when
/// none. The search family's binary search runs over the coarse samples (every 1024th key), then one line
/// of the samples, then one line of the keys: the cache holds the first two.
template <bound_kind Bound, class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t level_bound(const lsm_level_view<Key, Value>& level, Key key)
{
  if (level.samples == nullptr) { return binary_search_bound<Bound>(level.keys, level.size, key); }
  const std::uint64_t sampled =
      level.coarse == nullptr
          ? binary_search_bound<Bound>(level.samples, level.sample_count, key)
          : refine_bound<Bound>(level.samples, level.sample_count,
                                binary_search_bound<Bound>(level.coarse, level.coarse_count, key), key);
  return refine_bound<Bound>(level.keys, level.size, sampled, key);
}

template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t lower_index(const lsm_level_view<Key, Value>& level, Key key)
{
  return level_bound<bound_kind::lower>(level, key);
}

template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t upper_index(const lsm_level_view<Key, Value>& level, Key key)
{
  return level_bound<bound_kind::upper>(level, key);
}

/// upper_index(level, key) for a key not below the level's keys before `begin` (begin is the lower bound of
/// a key <= `key`): the next few keys are read first, so that a short range's end costs no second search.
template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t upper_index_from(const lsm_level_view<Key, Value>& level, std::uint64_t begin,
                                                   Key key)
{
  constexpr std::uint64_t scanned = 16;  // 64 bytes of 32-bit keys, 128 of 64-bit ones
  const std::uint64_t limit = begin + scanned < level.size ? begin + scanned : level.size;
  // One probe decides: a long range's end lies past the window, a short one's in it.
  if (limit < level.size && !(key < level.keys[limit - 1])) {
    if (level.samples == nullptr) { return upper_index(level, key); }
    // Past the window, the end is galloped to among the samples from the window's last key, whose line the
    // lower bound's search has just read, instead of searched from the top of the level: 2 log2 of the
    // range's samples, mostly cached, against the coarse samples' ~16 dependent steps.
    std::uint64_t below = (limit - 1) / lsm_sample_stride<Key>;  // samples[below] <= key
    std::uint64_t step = 1;
    while (below + step < level.sample_count && !(key < level.samples[below + step])) {
      below += step;
      step *= 2;
    }
    const std::uint64_t end = below + step < level.sample_count ? below + step : level.sample_count;
    const std::uint64_t preceding =
        below + 1 + binary_search_bound<bound_kind::upper>(level.samples + below + 1, end - below - 1, key);
    return refine_bound<bound_kind::upper>(level.keys, level.size, preceding, key);
  }
  return begin + binary_search_bound<bound_kind::upper>(level.keys + begin, limit - begin, key);
}

/// samples[j] = keys[j * stride].
template <class Key>
struct sample_keys {
  const Key* keys;
  Key* samples;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t j) const { samples[j] = keys[j * lsm_sample_stride<Key>]; }
};

/// The smallest t in [low, high] with prefix[t] >= target, for an ascending prefix (high when none).
WARPDEX_HOST_DEVICE inline std::uint64_t first_reaching(const std::uint64_t* prefix, std::uint64_t low,
                                                        std::uint64_t high, std::uint64_t target)
{
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (prefix[middle] < target) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/// Live entries of a level whose key is < key.
template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t live_below(const lsm_level_view<Key, Value>& level, Key key)
{
  return level.live_before[lower_index(level, key)];
}

/// Live entries of a level whose key is <= key.
template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t live_up_to(const lsm_level_view<Key, Value>& level, Key key)
{
  return level.live_before[upper_index(level, key)];
}

/// Live entries of all levels whose key is < key: the place of a live key in the sorted live contents.
template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t live_below_all(const lsm_level_view<Key, Value>* levels, std::uint32_t level_count,
                                                 Key key)
{
  std::uint64_t below = 0;
  for (std::uint32_t l = 0; l < level_count; ++l) { below += live_below(levels[l], key); }
  return below;
}

// ---- query functors (one call per query or per entry) ----

/// Walks the levels newest first; the first level that holds the key decides.
template <class Key, class Value>
struct lookup_element {
  const lsm_level_view<Key, Value>* levels;
  std::uint32_t level_count;
  const Key* queries;
  Value* values;
  std::uint8_t* found;
  const std::uint32_t* order = nullptr;  // with sorted queries: query i's place in the caller's order

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const Key query = queries[i];
    const std::uint64_t out = order != nullptr ? order[i] : i;
    for (std::uint32_t l = 0; l < level_count; ++l) {
      const lsm_level_view<Key, Value>& level = levels[l];
      const std::uint64_t at = lower_index(level, query);
      if (at < level.size && level.keys[at] == query) {
        const bool live = level.status[at] == lsm_regular;
        found[out] = live ? 1 : 0;
        values[out] = live ? level.values[at] : Value{0};
        return;
      }
    }
    found[out] = 0;
    values[out] = Value{0};
  }
};

/// Lookups, counts and ranges of at least this many queries on the GPU sort them first (by key, by lower
/// bound): neighbouring threads then search neighbouring keys, and share the cache lines of every level's
/// samples and keys.
inline constexpr std::uint64_t lsm_sorted_queries_min = std::uint64_t{1} << 20;

/// Queries in key order, and where each came from: order[i] is sorted query i's position in the caller's;
/// for ranges, `upper` holds each sorted query's upper bound.
template <class Key>
struct sorted_queries {
  buffer<Key> keys;
  buffer<std::uint32_t> order;
  buffer<Key> upper;
};

/// Whether queries of this many are sorted first (GPU only; positions must fit in 32 bits).
template <class Backend>
bool sorts_queries(std::uint64_t n)
{
  return !std::is_same_v<Backend, host> && n >= lsm_sorted_queries_min && n <= UINT32_MAX;
}

/// The n queries sorted; with `upper` (ranges: queries are their lower bounds), the upper bounds follow.
template <class Key, class Backend>
sorted_queries<Key> sort_queries(const Backend& backend, const Key* queries, std::uint64_t n,
                                 const Key* upper = nullptr)
{
  sorted_queries<Key> sorted{make_buffer<Key>(backend, n), make_buffer<std::uint32_t>(backend, n), {}};
  auto positions = make_buffer<std::uint32_t>(backend, n);
  const auto run = policy_nosync(backend);
  thrust::sequence(run, positions.data(), positions.data() + n);
  stable_sort_pairs(backend, queries, positions.data(), sorted.keys.data(), sorted.order.data(), n);
  if (upper != nullptr) {
    sorted.upper = make_buffer<Key>(backend, n);
    thrust::gather(run, sorted.order.data(), sorted.order.data() + n, upper, sorted.upper.data());
  }
  return sorted;
}

/// live_flags[i] = 1 when entry i of `level` is regular and no newer level holds its key.
template <class Key, class Value>
struct live_flag_element {
  const lsm_level_view<Key, Value>* newer_levels;
  std::uint32_t newer_count;
  lsm_level_view<Key, Value> level;
  std::uint64_t* live_flags;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    bool live = level.status[i] == lsm_regular;
    const Key key = level.keys[i];
    for (std::uint32_t l = 0; live && l < newer_count; ++l) {
      const lsm_level_view<Key, Value>& newer = newer_levels[l];
      const std::uint64_t at = lower_index(newer, key);
      live = !(at < newer.size && newer.keys[at] == key);
    }
    live_flags[i] = live ? 1 : 0;
  }
};

/// Where a range query's keys lie in one level: entries [begin, end), with `live` live entries before begin.
struct range_bounds {
  std::uint64_t begin;
  std::uint64_t end;
  std::uint64_t live;
};

/// Where the keys of [first, last] (first <= last) lie in `level`.
template <class Key, class Value>
WARPDEX_HOST_DEVICE range_bounds bounds_in(const lsm_level_view<Key, Value>& level, Key first, Key last)
{
  const std::uint64_t begin = lower_index(level, first);
  return range_bounds{begin, upper_index_from(level, begin, last), level.live_before[begin]};
}

/// counts[i] = the live keys in [lower[i], upper[i]]; when `bounds` is given, also the range's bounds in
/// each level (bounds[i * level_count + l]) for the range fill that follows (not written for reversed
/// ranges).
template <class Key, class Value>
struct count_element {
  const lsm_level_view<Key, Value>* levels;
  std::uint32_t level_count;
  const Key* lower;
  const Key* upper;
  std::uint64_t* counts;
  range_bounds* bounds = nullptr;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const Key first = lower[i];
    const Key last = upper[i];
    std::uint64_t total = 0;
    if (first <= last) {
      for (std::uint32_t l = 0; l < level_count; ++l) {
        const range_bounds found = bounds_in(levels[l], first, last);
        total += levels[l].live_before[found.end] - found.live;
        if (bounds != nullptr) { bounds[i * level_count + l] = found; }
      }
    }
    counts[i] = total;
  }
};

/// One (query, level) pair of a range query: writes the level's live pairs in [lower, upper] straight to
/// their sorted places, the place of a key being the live keys below it in all levels (live keys are
/// distinct across levels, so the places do not collide).
template <class Key, class Value>
struct range_fill_element {
  const lsm_level_view<Key, Value>* levels;
  std::uint32_t level_count;
  const Key* lower;
  const Key* upper;
  const std::uint64_t* offsets;
  Key* keys_out;
  Value* values_out;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t pair) const
  {
    const std::uint64_t query = pair / level_count;
    const lsm_level_view<Key, Value>& level = levels[pair % level_count];
    const Key first = lower[query];
    const Key last = upper[query];
    if (first > last) { return; }
    const std::uint64_t end = upper_index(level, last);
    const std::uint64_t start_rank = live_below_all(levels, level_count, first);
    for (std::uint64_t i = lower_index(level, first); i < end; ++i) {
      if (level.live_before[i + 1] == level.live_before[i]) { continue; }
      const Key key = level.keys[i];
      const std::uint64_t at = offsets[query] + live_below_all(levels, level_count, key) - start_rank;
      keys_out[at] = key;
      values_out[at] = level.values[i];
    }
  }
};

/// Entry i of one level, when live, to its place in the sorted live contents.
template <class Key, class Value>
struct export_element {
  const lsm_level_view<Key, Value>* levels;
  std::uint32_t level_count;
  lsm_level_view<Key, Value> level;
  Key* keys_out;
  Value* values_out;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    if (level.live_before[i + 1] == level.live_before[i]) { return; }
    const Key key = level.keys[i];
    const std::uint64_t at = live_below_all(levels, level_count, key);
    keys_out[at] = key;
    values_out[at] = level.values[i];
  }
};

/// The nearest live key above (successor) or below (predecessor) each query: per level, the liveness
/// prefix finds the first live entry past the query's position; the best over all levels wins.
template <class Key, class Value, bool Successor>
struct neighbor_element {
  const lsm_level_view<Key, Value>* levels;
  std::uint32_t level_count;
  const Key* queries;
  Key* keys_out;
  Value* values_out;
  std::uint8_t* found;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const Key query = queries[i];
    bool any = false;
    Key best_key{0};
    Value best_value{0};
    for (std::uint32_t l = 0; l < level_count; ++l) {
      const lsm_level_view<Key, Value>& level = levels[l];
      std::uint64_t at = 0;
      if constexpr (Successor) {
        const std::uint64_t position = upper_index(level, query);
        const std::uint64_t live = level.live_before[position];
        if (live == level.live_before[level.size]) { continue; }
        at = first_reaching(level.live_before, position + 1, level.size, live + 1) - 1;
      } else {
        const std::uint64_t position = lower_index(level, query);
        const std::uint64_t live = level.live_before[position];
        if (live == 0) { continue; }
        at = first_reaching(level.live_before, 0, position, live) - 1;
      }
      const Key key = level.keys[at];
      if (!any || (Successor ? key < best_key : key > best_key)) {
        any = true;
        best_key = key;
        best_value = level.values[at];
      }
    }
    keys_out[i] = best_key;
    values_out[i] = best_value;
    found[i] = any ? 1 : 0;
  }
};

}  // namespace warpdex::detail
