#pragma once
// The LSM, written once against Thrust execution policies: `policy(backend)` is thrust::cuda::par on the
// backend's stream for warpdex::cuda and thrust::omp::par for warpdex::host. lsm_cuda.cu and
// lsm_host.cpp include this and instantiate lsm_map for their backend; the host translation unit selects
// Thrust's OpenMP and C++ systems, so it needs no CUDA header.

#include "../core/radix_sort_backend.hpp"
#include <warpdex/core/detail/thrust_backend.hpp>

#include <warpdex/core/config.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/lsm/lsm_map.hpp>
#include <warpdex/search/search_device.hpp>

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/merge.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>
#if defined(__CUDACC__)
#include <warpdex/core/cuda_check.hpp>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/system/cuda/execution_policy.h>
#else
#include <thrust/system/omp/execution_policy.h>
#endif

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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

// ---- element functors (one call per element or query) ----

struct is_unknown_operation {
  WARPDEX_HOST_DEVICE bool operator()(lsm_operation operation) const
  {
    return operation != lsm_operation::insert && operation != lsm_operation::erase;
  }
};

struct is_regular {
  WARPDEX_HOST_DEVICE bool operator()(std::uint8_t status) const { return status == lsm_regular; }
};

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

// ---- building levels ----

/// Adds `amount` to a dead-entry counter from many elements at once: on the GPU the threads that add
/// sum their amounts first, one atomic per group of a warp.
WARPDEX_HOST_DEVICE inline void add_to_counter(std::uint64_t* counter, int amount)
{
#if defined(__CUDA_ARCH__)
  const auto adding = cooperative_groups::coalesced_threads();
  const int total = cooperative_groups::reduce(adding, amount, cooperative_groups::plus<int>());
  if (adding.thread_rank() == 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(counter),
              static_cast<unsigned long long>(static_cast<long long>(total)));
  }
#else
  std::atomic_ref<std::uint64_t>(*counter).fetch_add(static_cast<std::uint64_t>(static_cast<std::int64_t>(amount)),
                                                     std::memory_order_relaxed);
#endif
}

/// Where the run of repeats of keys[i] that starts at i ends (keys sorted): galloping, then a binary search,
/// so that a key repeated r times costs O(log r) reads, not r (half a batch can be one hot key).
template <class Key>
WARPDEX_HOST_DEVICE std::uint64_t run_end(const Key* keys, std::uint64_t i, std::uint64_t size)
{
  const Key key = keys[i];
  std::uint64_t low = i + 1;  // every entry before `low` repeats the key
  std::uint64_t high = size;  // the run ends at or before `high`
  for (std::uint64_t step = 1;; step *= 2) {
    const std::uint64_t probe = low + step - 1;
    if (probe >= size || keys[probe] != key) {
      high = probe < size ? probe : size;
      break;
    }
    low = probe + 1;
  }
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (keys[middle] == key) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/// Where the run of repeats that holds keys[i] starts (keys sorted): galloping back, then a binary search.
template <class Key>
WARPDEX_HOST_DEVICE std::uint64_t run_start(const Key* keys, std::uint64_t i)
{
  const Key key = keys[i];
  std::uint64_t high = i;  // every entry from `high` to i repeats the key
  std::uint64_t low = 0;   // the run starts at or after `low`
  for (std::uint64_t step = 1; step <= high; step *= 2) {
    if (keys[high - step] != key) {
      low = high - step + 1;
      break;
    }
    high -= step;
  }
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (keys[middle] == key) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  return low;
}

/// The bit of a sorted batch's `order` entry (a position, < 2^31) that says that some operation of the
/// run of repeats starting there is an erase.
inline constexpr std::uint32_t lsm_erased_run = 0x80000000u;

/// The pass before reduce_sorted_batch: every erase marks the first entry of its key's run, so that the
/// reduction learns whether a run holds an erase without reading the run (half a batch can be one key).
template <class Key>
struct mark_erased_runs {
  const Key* keys;
  std::uint32_t* order;
  const lsm_operation* operations;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
#if defined(__CUDA_ARCH__)
    if (operations[order[i] & ~lsm_erased_run] != lsm_operation::erase) { return; }
    atomicOr(order + run_start(keys, i), lsm_erased_run);
#else  // another thread may be marking order[i]
    const std::uint32_t position = std::atomic_ref<std::uint32_t>(order[i]).load(std::memory_order_relaxed);
    if (operations[position & ~lsm_erased_run] != lsm_operation::erase) { return; }
    std::atomic_ref<std::uint32_t>(order[run_start(keys, i)]).fetch_or(lsm_erased_run, std::memory_order_relaxed);
#endif
  }
};

/// Reduces a stably sorted batch with operations, in place, to its first entry per key: that entry gets
/// the batch's result for the key, the others become stale. `order` gives each sorted entry's place in
/// the batch; any erase makes a tombstone and otherwise the last insert wins. (A batch of insertions
/// only has its values sorted beside the keys: reduce_sorted_inserts.)
template <class Key, class Value>
struct reduce_sorted_batch {
  const Key* keys;
  Value* values;
  std::uint8_t* status;
  std::uint64_t size;
  const std::uint32_t* order;
  const Value* batch_values;  // the batch's values, in batch order
  const lsm_operation* operations;
  std::uint64_t* counters;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const Key key = keys[i];
    if (i > 0 && keys[i - 1] == key) {
      status[i] = lsm_stale;
      values[i] = Value{0};
      add_to_counter(counters + lsm_stale_count, 1);
      return;
    }
    const bool erased = (order[i] & lsm_erased_run) != 0;  // mark_erased_runs ran before
    status[i] = erased ? lsm_tombstone : lsm_regular;
    values[i] = erased ? Value{0} : batch_values[order[run_end(keys, i, size) - 1] & ~lsm_erased_run];
    if (erased) { add_to_counter(counters + lsm_tombstone_count, 1); }
  }
};

/// reduce_sorted_batch for a batch of insertions only (no operations), on four entries a call: group g
/// holds entries 4g .. 4g + 3, so a thread reads their keys with one vector load and writes their
/// statuses as one word (little-endian, as the host and the GPU are). One entry a thread ran a bulk
/// build's pass over 2^27 entries at about a third of copy speed (438 us on an H200).
template <class Key, class Value>
struct reduce_sorted_inserts {
  static constexpr std::uint64_t group_entries = 4;
  struct alignas(group_entries * sizeof(Key)) key_group {
    Key keys[group_entries];
  };

  const Key* keys;  // the level's keys: aligned to 256 bytes (allocate_level)
  Value* values;
  std::uint8_t* status;
  std::uint64_t size;
  std::uint64_t* counters;

  [[nodiscard]] static std::uint64_t groups(std::uint64_t entries)
  {
    return (entries + group_entries - 1) / group_entries;
  }

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t group) const
  {
    const std::uint64_t first = group * group_entries;
    Key seen[group_entries + 1];  // the group's keys and the next one (any value past the end)
    if (first + group_entries <= size) {
#if defined(__CUDA_ARCH__)
      const key_group loaded = reinterpret_cast<const key_group*>(keys)[group];  // one vector load
#else
      key_group loaded;  // the host: a copy, not an access through another type
      std::memcpy(loaded.keys, keys + first, sizeof(loaded.keys));
#endif
      for (std::uint64_t j = 0; j < group_entries; ++j) { seen[j] = loaded.keys[j]; }
    } else {
      for (std::uint64_t j = 0; j < group_entries; ++j) { seen[j] = first + j < size ? keys[first + j] : Key{0}; }
    }
    const bool next_exists = first + group_entries < size;
    seen[group_entries] = next_exists ? keys[first + group_entries] : Key{0};
    Key previous = first > 0 ? keys[first - 1] : Key{0};
    std::uint32_t word = 0;
    int stale = 0;
    for (std::uint64_t j = 0; j < group_entries && first + j < size; ++j) {
      const std::uint64_t i = first + j;
      const Key key = seen[j];
      std::uint8_t state = lsm_regular;
      if (i > 0 && previous == key) {
        state = lsm_stale;
        ++stale;
      } else if (i + 1 < size && seen[j + 1] == key) {
        // The first of a run of repeats: it takes the run's last value (the batch's last insert).
        values[i] = values[run_end(keys, i, size) - 1];
      }
      word |= static_cast<std::uint32_t>(state) << (8 * j);
      previous = key;
    }
    if (first + group_entries <= size) {
#if defined(__CUDA_ARCH__)
      reinterpret_cast<std::uint32_t*>(status)[group] = word;
#else
      std::memcpy(status + first, &word, sizeof(word));
#endif
    } else {
      for (std::uint64_t j = 0; first + j < size; ++j) {
        status[first + j] = static_cast<std::uint8_t>(word >> (8 * j));
      }
    }
    if (stale > 0) { add_to_counter(counters + lsm_stale_count, stale); }
  }
};

/// After a stable merge of a newer level before an older one, the older level's first entry of a key
/// that the newer level also holds follows that key's entries: it becomes stale.
template <class Key>
struct mark_shadowed {
  const Key* keys;
  std::uint8_t* status;
  std::uint64_t* counters;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    if (keys[i] != keys[i - 1] || status[i] == lsm_stale) { return; }
    if (status[i] == lsm_tombstone) { add_to_counter(counters + lsm_tombstone_count, -1); }
    status[i] = lsm_stale;
    add_to_counter(counters + lsm_stale_count, 1);
  }
};

}  // namespace warpdex::detail

#if defined(__CUDACC__)
#include "lsm_batch_sort_cuda.cuh"
#include "lsm_merge_cuda.cuh"
#include "lsm_range_cuda.cuh"
#endif

namespace warpdex::detail {

/// counts[i] = the live keys in [lower[i], upper[i]] (and the bounds, as count_element says): on the GPU
/// by groups of lanes where queries are too few to fill it, else a thread per query.
template <class Key, class Value, class Backend>
void count_ranges(const Backend& backend, const lsm_level_view<Key, Value>* levels, std::uint32_t level_count,
                  const Key* lower, const Key* upper, std::uint64_t queries, std::uint64_t* counts,
                  range_bounds* bounds)
{
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<Backend, host>) {
    if (launch_range_count(backend, levels, level_count, lower, upper, queries, counts, bounds)) { return; }
  }
#endif
  thrust::for_each(policy(backend), thrust::counting_iterator<std::uint64_t>(0),
                   thrust::counting_iterator<std::uint64_t>(queries),
                   count_element<Key, Value>{levels, level_count, lower, upper, counts, bounds});
}

/// The largest buffer of range bounds a range query allocates (see range()).
inline constexpr std::uint64_t lsm_range_bounds_budget = std::uint64_t{512} << 20;

template <class Key, class Value, class Backend>
std::shared_ptr<lsm_level<Key, Value>> allocate_level(const Backend& backend, std::uint64_t size)
{
  // Each array starts on a 256-byte boundary, so that every access stays aligned and coalesced.
  const auto aligned = [](std::uint64_t bytes) { return (bytes + 255) / 256 * 256; };
  const std::uint64_t values_at = aligned(size * sizeof(Key));
  const std::uint64_t status_at = values_at + aligned(size * sizeof(Value));
  auto level = std::make_shared<lsm_level<Key, Value>>();
  level->storage = make_buffer<std::uint8_t>(backend, status_at + size);
  level->keys = reinterpret_cast<Key*>(level->storage.data());
  level->values = reinterpret_cast<Value*>(level->storage.data() + values_at);
  level->status = level->storage.data() + status_at;
  level->size = size;
  return level;
}

template <class Key, class Value>
auto entries_of(const lsm_level<Key, Value>& level)
{
  return thrust::make_zip_iterator(thrust::make_tuple(level.values, level.status));
}

template <class Key, class Value>
auto entries_of(lsm_level<Key, Value>& level)
{
  return thrust::make_zip_iterator(thrust::make_tuple(level.values, level.status));
}

/// A batch's pairs sorted stably by key into keys_out / values_out; on the GPU a batch of batch_sort_min to
/// batch_sort_max pairs takes the batch sort (lsm_batch_sort_cuda.cuh), a larger one CUB's.
template <class Key, class Value, class Backend>
void sort_batch(const Backend& backend, const Key* keys, const Value* values, Key* keys_out, Value* values_out,
                std::uint64_t n, buffer<std::uint8_t>* scratch)
{
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<Backend, host>) {
    if (uses_batch_sort<Key, Value>(n)) {
      batch_sort_pairs(backend, keys, values, keys_out, values_out, n, scratch);
      return;
    }
  }
#endif
  stable_sort_pairs(backend, keys, values, keys_out, values_out, n, scratch);
}

/// A batch's keys sorted stably into keys_out, and in `order` each sorted key's position in the batch (a
/// chunk with operations is < 2^31 elements: lsm_erased_run).
template <class Key, class Backend>
void sort_batch_positions(const Backend& backend, const Key* keys, Key* keys_out, std::uint32_t* order, std::uint64_t n,
                          buffer<std::uint8_t>* scratch)
{
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<Backend, host>) {
    if (uses_batch_sort<Key, std::uint32_t>(n)) {  // the batch sort writes the positions itself
      batch_sort_pairs(backend, keys, static_cast<const std::uint32_t*>(nullptr), keys_out, order, n, scratch);
      return;
    }
  }
#endif
  auto positions = make_buffer<std::uint32_t>(backend, n);
  thrust::sequence(policy_nosync(backend), positions.data(), positions.data() + n);
  stable_sort_pairs(backend, keys, positions.data(), keys_out, order, n, scratch);
}

/// One chunk of an update batch as a level: sorted by key (stable, so a key's entries keep their batch
/// order) and reduced in place to one current entry per key. Queued on the stream; nothing read back.
/// `operations` is empty when every operation is an insert.
template <class Key, class Value, class Backend>
std::shared_ptr<lsm_level<Key, Value>> sorted_batch(const Backend& backend, std::span<const Key> keys,
                                                    std::span<const Value> values,
                                                    std::span<const lsm_operation> operations, std::uint64_t* counters,
                                                    buffer<std::uint8_t>* scratch)
{
  const std::uint64_t n = keys.size();
  auto level = allocate_level<Key, Value>(backend, n);
  const auto run = policy_nosync(backend);
  const auto elements = thrust::counting_iterator<std::uint64_t>(0);
  if (operations.empty()) {
    sort_batch(backend, keys.data(), values.data(), level->keys, level->values, n, scratch);
    using reduce = reduce_sorted_inserts<Key, Value>;
    thrust::for_each(run, elements, elements + reduce::groups(n),
                     reduce{level->keys, level->values, level->status, n, counters});
    return level;
  }
  auto order = make_buffer<std::uint32_t>(backend, n);
  sort_batch_positions(backend, keys.data(), level->keys, order.data(), n, scratch);
  thrust::for_each(run, elements, elements + n, mark_erased_runs<Key>{level->keys, order.data(), operations.data()});
  thrust::for_each(run, elements, elements + n,
                   reduce_sorted_batch<Key, Value>{level->keys, level->values, level->status, n, order.data(),
                                                   values.data(), operations.data(), counters});
  return level;
}

/// Merges a newer and an older level into a new one; the older entries that the newer level hides
/// become stale. Queued on the stream; nothing read back.
template <class Key, class Value, class Backend>
std::shared_ptr<lsm_level<Key, Value>> merge_levels(const Backend& backend, const lsm_level<Key, Value>& newer,
                                                    const lsm_level<Key, Value>& older, std::uint64_t* counters)
{
  auto merged = allocate_level<Key, Value>(backend, newer.size + older.size);
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<Backend, host>) {
    launch_merge_levels(backend, newer, older, *merged, counters);
    return merged;
  }
#endif
  const auto run = policy_nosync(backend);
  // merge_by_key is stable: of equal keys, those of the first range (the newer) come first.
  thrust::merge_by_key(run, newer.keys, newer.keys + newer.size, older.keys, older.keys + older.size, entries_of(newer),
                       entries_of(older), merged->keys, entries_of(*merged));
  if (newer.size > 0 && older.size > 0) {
    thrust::for_each(run, thrust::counting_iterator<std::uint64_t>(1),
                     thrust::counting_iterator<std::uint64_t>(merged->size),
                     mark_shadowed<Key>{merged->keys, merged->status, counters});
  }
  return merged;
}

/// A copy of a level with only its regular entries (cleanup: nothing older lies below it).
template <class Key, class Value, class Backend>
std::shared_ptr<lsm_level<Key, Value>> regular_entries(const Backend& backend, const lsm_level<Key, Value>& level)
{
  const auto live_count =
      static_cast<std::uint64_t>(thrust::count(policy(backend), level.status, level.status + level.size, lsm_regular));
  auto live = allocate_level<Key, Value>(backend, live_count);
  const auto run = policy_nosync(backend);
  const auto pairs = thrust::make_zip_iterator(thrust::make_tuple(level.keys, level.values));
  thrust::copy_if(run, pairs, pairs + level.size, level.status,
                  thrust::make_zip_iterator(thrust::make_tuple(live->keys, live->values)), is_regular{});
  thrust::fill(run, live->status, live->status + live_count, lsm_regular);
  return live;
}

/// The live entries of the merge of a newer and an older level: a cleanup's last merge, with nothing
/// older below. On the GPU the merged level with its dead entries is never written: one launch counts
/// each tile's live entries, one writes them (one read back of the total, to size the level).
template <class Key, class Value, class Backend>
std::shared_ptr<lsm_level<Key, Value>> merge_live_levels(const Backend& backend, const lsm_level<Key, Value>& newer,
                                                         const lsm_level<Key, Value>& older, std::uint64_t* counters)
{
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<Backend, host>) {
    const std::uint64_t tiles = merge_tiles(newer.size + older.size);
    auto offsets = make_buffer<std::uint64_t>(backend, tiles + 1);
    const auto run = policy_nosync(backend);
    thrust::fill(run, offsets.data() + tiles, offsets.data() + tiles + 1, std::uint64_t{0});
    const auto path = merge_path(backend, newer, older);
    launch_count_live_merge(backend, newer, older, offsets.data(), path);
    thrust::exclusive_scan(run, offsets.data(), offsets.data() + tiles + 1, offsets.data());
    auto live = allocate_level<Key, Value>(backend, read_back(backend, offsets.data() + tiles));
    if (live->size > 0) { launch_write_live_merge(backend, newer, older, offsets.data(), path, *live); }
    return live;
  }
#endif
  return regular_entries(backend, *merge_levels(backend, newer, older, counters));
}

/// The smallest level index whose capacity batch_size * 2^i holds `entries`.
inline std::size_t level_for(std::uint64_t entries, std::uint64_t batch_size)
{
  std::size_t index = 0;
  while (entries > batch_size) {
    batch_size *= 2;
    ++index;
  }
  return index;
}

/// Dead-entry counts (lsm_counter), all zero, in the backend's memory.
template <class Backend>
buffer<std::uint64_t> zero_counters(const Backend& backend)
{
  auto counters = make_buffer<std::uint64_t>(backend, lsm_counter_count);
  thrust::fill(policy_nosync(backend), counters.data(), counters.data() + lsm_counter_count, std::uint64_t{0});
  return counters;
}

/// Copies the counts into `staging` (allocated once), on the stream.
template <class Backend>
void copy_counters(const Backend& backend, const buffer<std::uint64_t>& counters, buffer<std::uint64_t>& staging)
{
  if (staging.size() != lsm_counter_count) { staging = make_buffer<std::uint64_t>(backend, lsm_counter_count); }
  if constexpr (std::is_same_v<Backend, host>) {
    std::copy(counters.data(), counters.data() + lsm_counter_count, staging.data());
  } else {
    copy_device_bytes(staging.data(), counters.data(), lsm_counter_count * sizeof(std::uint64_t), backend.stream);
  }
}

/// A batch with operations (update, erase) is applied in chunks whose sorted positions keep bit 31 free
/// (lsm_erased_run): throws, before anything changes, when a chunk would reach 2^31 elements.
inline void expect_positioned_chunks(const char* operation, std::uint64_t batch_size, std::uint64_t elements)
{
  WARPDEX_EXPECTS(std::min(batch_size, elements) < (std::uint64_t{1} << 31),
                  std::string("lsm_map::") + operation +
                      ": batches with erases are applied in chunks of fewer than 2^31 elements; the batch size is " +
                      std::to_string(batch_size));
}

/// Runs `action`, reporting exhausted memory (ours, or Thrust's own) as warpdex::out_of_memory.
template <class Action>
void reporting_allocation_failure(const char* operation, Action&& action)
{
  try {
    action();
  } catch (const std::bad_alloc& failure) {
    throw out_of_memory(
        std::string("lsm_map::") + operation +
        ": out of memory; the map is unchanged (smaller batches or a cleanup need less): " + failure.what());
  }
}

}  // namespace warpdex::detail

namespace warpdex {

template <class Key, class Value, class Backend>
lsm_map<Key, Value, Backend>::lsm_map(const Backend& backend, lsm_options options)
    : backend_(backend), options_(options)
{
  WARPDEX_EXPECTS(options.batch_size > 0, "lsm_map: the batch size must be > 0");
  set_cleanup_threshold(options.cleanup_threshold);
  counters_ = detail::zero_counters(backend_);
}

template <class Key, class Value, class Backend>
lsm_map<Key, Value, Backend>::~lsm_map() = default;
template <class Key, class Value, class Backend>
lsm_map<Key, Value, Backend>::lsm_map(lsm_map&&) noexcept = default;
template <class Key, class Value, class Backend>
lsm_map<Key, Value, Backend>& lsm_map<Key, Value, Backend>::operator=(lsm_map&&) noexcept = default;

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::set_cleanup_threshold(double threshold)
{
  WARPDEX_EXPECTS(std::isfinite(threshold) && threshold >= 0.0 && threshold <= 1.0,
                  "lsm_map: the cleanup threshold must be 0 (off) or in (0, 1], got " + std::to_string(threshold));
  options_.cleanup_threshold = threshold;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::update(std::span<const Key> keys, std::span<const Value> values,
                                          std::span<const lsm_operation> operations)
{
  WARPDEX_EXPECTS(keys.size() == values.size() && keys.size() == operations.size(),
                  "lsm_map::update: " + std::to_string(keys.size()) + " keys, " + std::to_string(values.size()) +
                      " values and " + std::to_string(operations.size()) + " operations; the sizes must agree");
  if (keys.empty()) { return; }
  detail::expect_positioned_chunks("update", options_.batch_size, keys.size());
  const auto unknown = thrust::count_if(detail::policy(backend_), operations.data(),
                                        operations.data() + operations.size(), detail::is_unknown_operation{});
  WARPDEX_EXPECTS(unknown == 0, "lsm_map::update: " + std::to_string(unknown) +
                                    " operations are neither lsm_operation::insert nor lsm_operation::erase");
  apply_batch(keys, values, operations, true);
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::apply_batch(std::span<const Key> keys, std::span<const Value> values,
                                               std::span<const lsm_operation> operations, bool may_erase)
{
  if (keys.empty()) { return; }
  std::uint64_t chunks = 0;
  detail::reporting_allocation_failure("update", [&] {
    // The counts change on a copy, installed with the levels, so that a failure leaves both as they were.
    detail::copy_counters(backend_, counters_, staged_counters_);
    std::uint64_t* counters = staged_counters_.data();
    level_list staged = levels_;
    for (std::uint64_t offset = 0; offset < keys.size(); offset += options_.batch_size) {
      const std::uint64_t chunk = std::min<std::uint64_t>(options_.batch_size, keys.size() - offset);
      std::shared_ptr<const level> carry = detail::sorted_batch(
          backend_, keys.subspan(offset, chunk), values.subspan(offset, chunk),
          may_erase ? operations.subspan(offset, chunk) : std::span<const lsm_operation>{}, counters, &sort_scratch_);
      // Binary addition: merge into the carry every occupied level up to the first empty one.
      std::size_t index = 0;
      for (; index < staged.size() && staged[index]; ++index) {
        carry = detail::merge_levels(backend_, *carry, *staged[index], counters);
        staged[index] = nullptr;
      }
      if (index == staged.size()) { staged.emplace_back(); }
      staged[index] = carry;
      ++chunks;
    }
    std::swap(counters_, staged_counters_);
    commit(std::move(staged));
  });
  // An insert makes no tombstones, only stale entries when it overwrites: it reads the counts back (the
  // only wait it would have) every 8th chunk.
  unchecked_chunks_ += static_cast<std::uint32_t>(std::min<std::uint64_t>(chunks, 8));
  if (may_erase || unchecked_chunks_ >= 8) {
    unchecked_chunks_ = 0;
    maybe_cleanup();
  }
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::insert(std::span<const Key> keys, std::span<const Value> values)
{
  WARPDEX_EXPECTS(keys.size() == values.size(), "lsm_map::insert: " + std::to_string(keys.size()) + " keys but " +
                                                    std::to_string(values.size()) + " values");
  apply_batch(keys, values, {}, false);
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::erase(std::span<const Key> keys)
{
  detail::expect_positioned_chunks("erase", options_.batch_size, keys.size());
  auto operations = make_buffer<lsm_operation>(backend_, keys.size());
  auto values = make_buffer<Value>(backend_, keys.size());
  const auto run = detail::policy_nosync(backend_);
  thrust::fill(run, operations.data(), operations.data() + keys.size(), lsm_operation::erase);
  thrust::fill(run, values.data(), values.data() + keys.size(), Value{0});
  apply_batch(keys, std::span<const Value>(values.data(), keys.size()),
              std::span<const lsm_operation>(operations.data(), keys.size()), true);
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::bulk_build(std::span<const Key> keys, std::span<const Value> values)
{
  WARPDEX_EXPECTS(keys.size() == values.size(), "lsm_map::bulk_build: " + std::to_string(keys.size()) + " keys but " +
                                                    std::to_string(values.size()) + " values");
  detail::reporting_allocation_failure("bulk_build", [&] {
    // One sort and one pass: repeated keys stay as stale entries (the last pair of a key wins).
    auto counters = detail::zero_counters(backend_);
    level_list staged;
    if (!keys.empty()) {
      auto built = detail::sorted_batch(backend_, keys, values, std::span<const lsm_operation>{}, counters.data(),
                                        static_cast<buffer<std::uint8_t>*>(nullptr));
      staged.resize(detail::level_for(built->size, options_.batch_size) + 1);
      staged.back() = std::move(built);
    }
    counters_ = std::move(counters);
    commit(std::move(staged));
  });
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::commit(level_list levels)
{
  while (!levels.empty() && !levels.back()) { levels.pop_back(); }
  levels_ = std::move(levels);
  views_current_ = false;
  index_current_ = false;
  live_before_.clear();
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::ensure_views() const
{
  if (views_current_) { return; }
  std::vector<detail::lsm_level_view<Key, Value>> views;
  for (const auto& occupied : levels_) {
    if (!occupied) { continue; }
    constexpr std::uint64_t stride = detail::lsm_sample_stride<Key>;
    const std::uint64_t sample_count = (occupied->size + stride - 1) / stride;
    const std::uint64_t coarse_count = sample_count > stride ? (sample_count + stride - 1) / stride : 0;
    if (occupied->samples.size() != sample_count) {
      occupied->samples = make_buffer<Key>(backend_, sample_count);
      thrust::for_each(detail::policy_nosync(backend_), thrust::counting_iterator<std::uint64_t>(0),
                       thrust::counting_iterator<std::uint64_t>(sample_count),
                       detail::sample_keys<Key>{occupied->keys, occupied->samples.data()});
      occupied->coarse = make_buffer<Key>(backend_, coarse_count);
      thrust::for_each(detail::policy_nosync(backend_), thrust::counting_iterator<std::uint64_t>(0),
                       thrust::counting_iterator<std::uint64_t>(coarse_count),
                       detail::sample_keys<Key>{occupied->samples.data(), occupied->coarse.data()});
    }
    views.push_back({occupied->keys, occupied->values, occupied->status, nullptr, occupied->size,
                     occupied->samples.data(), sample_count, coarse_count > 0 ? occupied->coarse.data() : nullptr,
                     coarse_count});
  }
  views_ = make_buffer<detail::lsm_level_view<Key, Value>>(backend_, views.size());
  views_.copy_from(views);
  backend_.synchronize();  // the views' staging copy is done before `views` goes away
  views_current_ = true;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::ensure_liveness_index() const
{
  if (index_current_) { return; }
  ensure_views();
  std::vector<detail::lsm_level_view<Key, Value>> views = views_.to_vector();
  std::vector<buffer<std::uint64_t>> index;
  const auto policy = detail::policy(backend_);
  for (std::uint32_t l = 0; l < views.size(); ++l) {
    auto live_before = make_buffer<std::uint64_t>(backend_, views[l].size + 1);
    thrust::fill(policy, live_before.data(), live_before.data() + 1, std::uint64_t{0});
    thrust::for_each(policy, thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(views[l].size),
                     detail::live_flag_element<Key, Value>{views_.data(), l, views[l], live_before.data() + 1});
    thrust::inclusive_scan(policy, live_before.data() + 1, live_before.data() + 1 + views[l].size,
                           live_before.data() + 1);
    views[l].live_before = live_before.data();
    index.push_back(std::move(live_before));
  }
  views_.copy_from(views);
  backend_.synchronize();
  live_before_ = std::move(index);
  index_current_ = true;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::maybe_cleanup()
{
  const double threshold = options_.cleanup_threshold;
  if (threshold <= 0.0) { return; }
  const auto counts = counters_.to_vector();
  const auto dead = counts[detail::lsm_tombstone_count] + counts[detail::lsm_stale_count];
  if (static_cast<double>(dead) <= threshold * static_cast<double>(resident_entries())) { return; }
  try {
    cleanup();
  } catch (const out_of_memory&) {
    // The update itself is complete and the map valid; the next update tries again.
  }
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::lookup(std::span<const Key> queries, std::span<Value> values,
                                          std::span<std::uint8_t> found) const
{
  WARPDEX_EXPECTS(values.size() == queries.size() && found.size() == queries.size(),
                  "lsm_map::lookup: " + std::to_string(queries.size()) + " queries need as many values (got " +
                      std::to_string(values.size()) + ") and found flags (got " + std::to_string(found.size()) + ")");
  if (queries.empty()) { return; }
  ensure_views();
  const auto level_count = static_cast<std::uint32_t>(views_.size());
  if (detail::sorts_queries<Backend>(queries.size())) {
    detail::reporting_allocation_failure("lookup", [&] {
      const auto sorted = detail::sort_queries(backend_, queries.data(), queries.size());
      thrust::for_each(detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
                       thrust::counting_iterator<std::uint64_t>(queries.size()),
                       detail::lookup_element<Key, Value>{views_.data(), level_count, sorted.keys.data(), values.data(),
                                                          found.data(), sorted.order.data()});
    });
    return;
  }
  thrust::for_each(
      detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
      thrust::counting_iterator<std::uint64_t>(queries.size()),
      detail::lookup_element<Key, Value>{views_.data(), level_count, queries.data(), values.data(), found.data()});
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::count(std::span<const Key> lower, std::span<const Key> upper,
                                         std::span<std::uint64_t> counts) const
{
  WARPDEX_EXPECTS(lower.size() == upper.size() && counts.size() == lower.size(),
                  "lsm_map::count: " + std::to_string(lower.size()) + " lower bounds, " + std::to_string(upper.size()) +
                      " upper bounds and " + std::to_string(counts.size()) + " counts; the sizes must agree");
  if (lower.empty()) { return; }
  ensure_liveness_index();
  const auto level_count = static_cast<std::uint32_t>(views_.size());
  // As lookups: many queries are counted in the order of their lower bounds, then put back in place.
  if (detail::sorts_queries<Backend>(lower.size())) {
    detail::reporting_allocation_failure("count", [&] {
      const std::uint64_t n = lower.size();
      const auto sorted = detail::sort_queries(backend_, lower.data(), n, upper.data());
      auto sorted_counts = make_buffer<std::uint64_t>(backend_, n);
      detail::count_ranges(backend_, views_.data(), level_count, sorted.keys.data(), sorted.upper.data(), n,
                           sorted_counts.data(), static_cast<detail::range_bounds*>(nullptr));
      thrust::scatter(detail::policy(backend_), sorted_counts.data(), sorted_counts.data() + n, sorted.order.data(),
                      counts.data());
    });
    return;
  }
  detail::count_ranges(backend_, views_.data(), level_count, lower.data(), upper.data(), lower.size(), counts.data(),
                       static_cast<detail::range_bounds*>(nullptr));
}

template <class Key, class Value, class Backend>
lsm_range_result<Key, Value> lsm_map<Key, Value, Backend>::range(std::span<const Key> lower,
                                                                 std::span<const Key> upper) const
{
  WARPDEX_EXPECTS(lower.size() == upper.size(), "lsm_map::range: " + std::to_string(lower.size()) +
                                                    " lower bounds but " + std::to_string(upper.size()) +
                                                    " upper bounds");
  const std::uint64_t queries = lower.size();
  lsm_range_result<Key, Value> result;
  result.offsets = make_buffer<std::uint64_t>(backend_, queries + 1);
  std::uint64_t* offsets = result.offsets.data();
  const auto policy = detail::policy(backend_);
  thrust::fill(policy, offsets + queries, offsets + queries + 1, std::uint64_t{0});
  if (queries == 0) { return result; }
  ensure_liveness_index();
  const auto level_count = static_cast<std::uint32_t>(views_.size());
  // On the GPU the count keeps each range's bounds in every level for the fill, which then searches no
  // level again, where they fit in a modest buffer (24 bytes per query and level).
  buffer<detail::range_bounds> bounds;
  if constexpr (!std::is_same_v<Backend, host>) {
    if (queries * level_count * sizeof(detail::range_bounds) <= detail::lsm_range_bounds_budget) {
      bounds = make_buffer<detail::range_bounds>(backend_, queries * level_count);
    }
  }
  // As lookups: many queries are counted and filled in the order of their lower bounds. Each range's
  // pairs still go to its place in the caller's order (the fill reads a range's offset, not its index).
  const Key* first = lower.data();
  const Key* last = upper.data();
  detail::sorted_queries<Key> sorted;
  buffer<std::uint64_t> sorted_counts;
  const bool sorting = detail::sorts_queries<Backend>(queries);
  if (sorting) {
    sorted = detail::sort_queries(backend_, lower.data(), queries, upper.data());
    sorted_counts = make_buffer<std::uint64_t>(backend_, queries);
    first = sorted.keys.data();
    last = sorted.upper.data();
  }
  detail::count_ranges(backend_, views_.data(), level_count, first, last, queries,
                       sorting ? sorted_counts.data() : offsets, bounds.size() > 0 ? bounds.data() : nullptr);
  if (sorting) {
    thrust::scatter(detail::policy_nosync(backend_), sorted_counts.data(), sorted_counts.data() + queries,
                    sorted.order.data(), offsets);
  }
  thrust::exclusive_scan(policy, offsets, offsets + queries + 1, offsets);
  const std::uint64_t total = detail::read_back(backend_, offsets + queries);
  result.keys = make_buffer<Key>(backend_, total);
  result.values = make_buffer<Value>(backend_, total);
  if (total == 0) { return result; }
  const std::uint64_t* fill_offsets = offsets;
  if (sorting) {  // the sorted ranges' offsets, in the counts' buffer
    thrust::gather(detail::policy_nosync(backend_), sorted.order.data(), sorted.order.data() + queries, offsets,
                   sorted_counts.data());
    fill_offsets = sorted_counts.data();
  }
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<Backend, host>) {
    if (detail::launch_range_fill(backend_, views_.data(), level_count, first, last, queries, fill_offsets,
                                  result.keys.data(), result.values.data(), total / queries + 1,
                                  bounds.size() > 0 ? bounds.data() : nullptr)) {
      return result;
    }
  }
#endif
  {
    thrust::for_each(policy, thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(queries * level_count),
                     detail::range_fill_element<Key, Value>{views_.data(), level_count, first, last, fill_offsets,
                                                            result.keys.data(), result.values.data()});
  }
  return result;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::successor(std::span<const Key> queries, std::span<Key> keys, std::span<Value> values,
                                             std::span<std::uint8_t> found) const
{
  WARPDEX_EXPECTS(
      keys.size() == queries.size() && values.size() == queries.size() && found.size() == queries.size(),
      "lsm_map::successor: " + std::to_string(queries.size()) + " queries need as many keys, values and found flags");
  if (queries.empty()) { return; }
  ensure_liveness_index();
  thrust::for_each(
      detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
      thrust::counting_iterator<std::uint64_t>(queries.size()),
      detail::neighbor_element<Key, Value, true>{views_.data(), static_cast<std::uint32_t>(views_.size()),
                                                 queries.data(), keys.data(), values.data(), found.data()});
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::predecessor(std::span<const Key> queries, std::span<Key> keys,
                                               std::span<Value> values, std::span<std::uint8_t> found) const
{
  WARPDEX_EXPECTS(
      keys.size() == queries.size() && values.size() == queries.size() && found.size() == queries.size(),
      "lsm_map::predecessor: " + std::to_string(queries.size()) + " queries need as many keys, values and found flags");
  if (queries.empty()) { return; }
  ensure_liveness_index();
  thrust::for_each(
      detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
      thrust::counting_iterator<std::uint64_t>(queries.size()),
      detail::neighbor_element<Key, Value, false>{views_.data(), static_cast<std::uint32_t>(views_.size()),
                                                  queries.data(), keys.data(), values.data(), found.data()});
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::cleanup()
{
  detail::reporting_allocation_failure("cleanup", [&] {
    auto scratch = detail::zero_counters(backend_);  // the merges' counts: every dead entry goes
    std::vector<std::shared_ptr<const level>> occupied;
    for (const auto& candidate : levels_) {
      if (candidate) { occupied.push_back(candidate); }
    }
    // Newest first, pairwise; the last merge (into the oldest level) keeps only the live entries.
    std::shared_ptr<const level> merged;
    if (occupied.size() == 1) { merged = detail::regular_entries(backend_, *occupied.front()); }
    if (occupied.size() > 1) {
      merged = occupied.front();
      for (std::size_t l = 1; l + 1 < occupied.size(); ++l) {
        merged = detail::merge_levels(backend_, *merged, *occupied[l], scratch.data());
      }
      merged = detail::merge_live_levels(backend_, *merged, *occupied.back(), scratch.data());
    }
    level_list staged;
    if (merged && merged->size > 0) {
      staged.resize(detail::level_for(merged->size, options_.batch_size) + 1);
      staged.back() = merged;
    }
    auto counters = detail::zero_counters(backend_);
    counters_ = std::move(counters);
    commit(std::move(staged));
  });
}

template <class Key, class Value, class Backend>
lsm_contents<Key, Value> lsm_map<Key, Value, Backend>::retrieve_all() const
{
  const std::uint64_t live = size();
  lsm_contents<Key, Value> contents{make_buffer<Key>(backend_, live), make_buffer<Value>(backend_, live)};
  const std::vector<detail::lsm_level_view<Key, Value>> views = views_.to_vector();
  const auto level_count = static_cast<std::uint32_t>(views.size());
  for (const auto& level : views) {
    thrust::for_each(detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(level.size),
                     detail::export_element<Key, Value>{views_.data(), level_count, level, contents.keys.data(),
                                                        contents.values.data()});
  }
  backend_.synchronize();
  return contents;
}

template <class Key, class Value, class Backend>
std::uint64_t lsm_map<Key, Value, Backend>::size() const
{
  ensure_liveness_index();
  std::uint64_t live = 0;
  for (std::size_t l = 0; l < live_before_.size(); ++l) {
    live += detail::read_back(backend_, live_before_[l].data() + live_before_[l].size() - 1);
  }
  return live;
}

template <class Key, class Value, class Backend>
std::uint64_t lsm_map<Key, Value, Backend>::resident_entries() const
{
  std::uint64_t entries = 0;
  for (const auto& occupied : levels_) { entries += occupied ? occupied->size : 0; }
  return entries;
}

template <class Key, class Value, class Backend>
std::uint64_t lsm_map<Key, Value, Backend>::resident_tombstones() const
{
  return detail::read_back(backend_, counters_.data() + detail::lsm_tombstone_count);
}

template <class Key, class Value, class Backend>
std::uint64_t lsm_map<Key, Value, Backend>::resident_stale() const
{
  return detail::read_back(backend_, counters_.data() + detail::lsm_stale_count);
}

template <class Key, class Value, class Backend>
std::size_t lsm_map<Key, Value, Backend>::occupied_levels() const
{
  return static_cast<std::size_t>(
      std::count_if(levels_.begin(), levels_.end(), [](const auto& occupied) { return occupied != nullptr; }));
}

}  // namespace warpdex

#define WARPDEX_INSTANTIATE_LSM(Backend)                         \
  template class lsm_map<std::uint32_t, std::uint32_t, Backend>; \
  template class lsm_map<std::uint64_t, std::uint32_t, Backend>;
