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
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/merge.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>
#if defined(__CUDACC__)
#include <warpdex/core/cuda_check.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/system/cuda/execution_policy.h>
#else
#include <thrust/system/omp/execution_policy.h>
#endif

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::detail {

// ---- searches shared by the query functors ----

/// The first index whose key is >= key (size when none): the search family's binary search.
template <class Key>
WARPDEX_HOST_DEVICE std::uint64_t lower_index(const Key* keys, std::uint64_t size, Key key)
{
  return binary_search_bound<bound_kind::lower>(keys, size, key);
}

/// The first index whose key is > key (size when none).
template <class Key>
WARPDEX_HOST_DEVICE std::uint64_t upper_index(const Key* keys, std::uint64_t size, Key key)
{
  return binary_search_bound<bound_kind::upper>(keys, size, key);
}

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
  return level.live_before[lower_index(level.keys, level.size, key)];
}

/// Live entries of a level whose key is <= key.
template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t live_up_to(const lsm_level_view<Key, Value>& level, Key key)
{
  return level.live_before[upper_index(level.keys, level.size, key)];
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

template <class Value>
using value_status = thrust::tuple<Value, std::uint8_t>;

/// Combines two entries of one key inside a batch, the older first: the newer value wins, and the key
/// ends a tombstone when either was one (any erase in the batch erases).
template <class Value>
struct combine_batch_entries {
  WARPDEX_HOST_DEVICE value_status<Value> operator()(const value_status<Value>& older,
                                                     const value_status<Value>& newer) const
  {
    return value_status<Value>(thrust::get<0>(newer),
                               static_cast<std::uint8_t>(thrust::get<1>(older) & thrust::get<1>(newer)));
  }
};

/// Of two pairs with one key, the later one (bulk build: the last pair wins).
template <class Value>
struct later_value {
  WARPDEX_HOST_DEVICE Value operator()(Value /*earlier*/, Value later) const { return later; }
};

struct status_of_operation {
  WARPDEX_HOST_DEVICE std::uint8_t operator()(lsm_operation operation) const
  {
    return operation == lsm_operation::insert ? lsm_regular : lsm_tombstone;
  }
};

struct is_unknown_operation {
  WARPDEX_HOST_DEVICE bool operator()(lsm_operation operation) const
  {
    return operation != lsm_operation::insert && operation != lsm_operation::erase;
  }
};

struct is_regular {
  WARPDEX_HOST_DEVICE bool operator()(std::uint8_t status) const { return status == lsm_regular; }
};

/// 1 where sorted keys[i] == keys[i + 1].
template <class Key>
struct repeats_next {
  const Key* keys;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t i) const { return keys[i] == keys[i + 1] ? 1 : 0; }
};

/// Walks the levels newest first; the first level that holds the key decides.
template <class Key, class Value>
struct lookup_element {
  const lsm_level_view<Key, Value>* levels;
  std::uint32_t level_count;
  const Key* queries;
  Value* values;
  std::uint8_t* found;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const Key query = queries[i];
    for (std::uint32_t l = 0; l < level_count; ++l) {
      const lsm_level_view<Key, Value>& level = levels[l];
      const std::uint64_t at = lower_index(level.keys, level.size, query);
      if (at < level.size && level.keys[at] == query) {
        const bool live = level.status[at] == lsm_regular;
        found[i] = live ? 1 : 0;
        values[i] = live ? level.values[at] : Value{0};
        return;
      }
    }
    found[i] = 0;
    values[i] = Value{0};
  }
};

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
      const std::uint64_t at = lower_index(newer.keys, newer.size, key);
      live = !(at < newer.size && newer.keys[at] == key);
    }
    live_flags[i] = live ? 1 : 0;
  }
};

template <class Key, class Value>
struct count_element {
  const lsm_level_view<Key, Value>* levels;
  std::uint32_t level_count;
  const Key* lower;
  const Key* upper;
  std::uint64_t* counts;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const Key first = lower[i];
    const Key last = upper[i];
    std::uint64_t total = 0;
    if (first <= last) {
      for (std::uint32_t l = 0; l < level_count; ++l) {
        total += live_up_to(levels[l], last) - live_below(levels[l], first);
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
    const std::uint64_t end = upper_index(level.keys, level.size, last);
    const std::uint64_t start_rank = live_below_all(levels, level_count, first);
    for (std::uint64_t i = lower_index(level.keys, level.size, first); i < end; ++i) {
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
        const std::uint64_t position = upper_index(level.keys, level.size, query);
        const std::uint64_t live = level.live_before[position];
        if (live == level.live_before[level.size]) { continue; }
        at = first_reaching(level.live_before, position + 1, level.size, live + 1) - 1;
      } else {
        const std::uint64_t position = lower_index(level.keys, level.size, query);
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

template <class Key, class Value, class Backend>
std::shared_ptr<lsm_level<Key, Value>> allocate_level(const Backend& backend, std::uint64_t size)
{
  auto level = std::make_shared<lsm_level<Key, Value>>();
  level->keys = make_buffer<Key>(backend, size);
  level->values = make_buffer<Value>(backend, size);
  level->status = make_buffer<std::uint8_t>(backend, size);
  level->size = size;
  return level;
}

template <class Key, class Value, class Backend>
void count_tombstones(const Backend& backend, lsm_level<Key, Value>& level)
{
  level.tombstones = static_cast<std::uint64_t>(
      thrust::count(policy(backend), level.status.data(), level.status.data() + level.size, lsm_tombstone));
}

template <class Key, class Value>
auto entries_of(const lsm_level<Key, Value>& level)
{
  return thrust::make_zip_iterator(thrust::make_tuple(level.values.data(), level.status.data()));
}

template <class Key, class Value>
auto entries_of(lsm_level<Key, Value>& level)
{
  return thrust::make_zip_iterator(thrust::make_tuple(level.values.data(), level.status.data()));
}

/// One chunk of an update batch, sorted by key and reduced to one entry per key (combine_batch_entries).
template <class Key, class Value, class Backend>
std::shared_ptr<lsm_level<Key, Value>> reduce_batch(const Backend& backend, std::span<const Key> keys,
                                                    std::span<const Value> values,
                                                    std::span<const lsm_operation> operations, bool may_erase)
{
  const std::uint64_t n = keys.size();
  auto sorted_keys = make_buffer<Key>(backend, n);
  auto positions = make_buffer<std::uint32_t>(backend, n);  // batch positions; a chunk is < 2^32 elements
  auto order = make_buffer<std::uint32_t>(backend, n);
  thrust::sequence(policy(backend), positions.data(), positions.data() + n);
  // Stable, so the entries of one key stay in batch order for the reduction.
  stable_sort_pairs(backend, keys.data(), positions.data(), sorted_keys.data(), order.data(), n);
  const auto batch_entries = thrust::make_zip_iterator(thrust::make_tuple(
      thrust::make_permutation_iterator(values.data(), order.data()),
      thrust::make_transform_iterator(thrust::make_permutation_iterator(operations.data(), order.data()),
                                      status_of_operation{})));
  auto reduced = allocate_level<Key, Value>(backend, n);
  const auto ends = thrust::reduce_by_key(policy(backend), sorted_keys.data(), sorted_keys.data() + n, batch_entries,
                                          reduced->keys.data(), entries_of(*reduced), thrust::equal_to<Key>(),
                                          combine_batch_entries<Value>());
  reduced->size = static_cast<std::uint64_t>(ends.first - reduced->keys.data());
  if (may_erase) { count_tombstones(backend, *reduced); }
  return reduced;
}

/// Merges a newer and an older level into a new one, keeping only the newer entry of a key.
template <class Key, class Value, class Backend>
std::shared_ptr<lsm_level<Key, Value>> merge_levels(const Backend& backend, const lsm_level<Key, Value>& newer,
                                                    const lsm_level<Key, Value>& older)
{
  auto merged = allocate_level<Key, Value>(backend, newer.size + older.size);
  // merge_by_key is stable: of equal keys, those of the first range (the newer) come first.
  thrust::merge_by_key(policy(backend), newer.keys.data(), newer.keys.data() + newer.size, older.keys.data(),
                       older.keys.data() + older.size, entries_of(newer), entries_of(older), merged->keys.data(),
                       entries_of(*merged));
  const auto ends = thrust::unique_by_key(policy(backend), merged->keys.data(), merged->keys.data() + merged->size,
                                          entries_of(*merged));
  merged->size = static_cast<std::uint64_t>(ends.first - merged->keys.data());
  // Counting reads the level back to the host: skip it when neither input holds a tombstone.
  if (newer.tombstones + older.tombstones > 0) { count_tombstones(backend, *merged); }
  return merged;
}

/// A copy of a level without its tombstones (for a level below which nothing older lies).
template <class Key, class Value, class Backend>
std::shared_ptr<lsm_level<Key, Value>> without_tombstones(const Backend& backend, const lsm_level<Key, Value>& level)
{
  auto live = allocate_level<Key, Value>(backend, level.size - level.tombstones);
  const auto pairs = thrust::make_zip_iterator(thrust::make_tuple(level.keys.data(), level.values.data()));
  thrust::copy_if(policy(backend), pairs, pairs + level.size, level.status.data(),
                  thrust::make_zip_iterator(thrust::make_tuple(live->keys.data(), live->values.data())), is_regular{});
  thrust::fill(policy(backend), live->status.data(), live->status.data() + live->size, lsm_regular);
  return live;
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
  detail::reporting_allocation_failure("update", [&] {
    level_list staged = levels_;
    for (std::uint64_t offset = 0; offset < keys.size(); offset += options_.batch_size) {
      const std::uint64_t chunk = std::min<std::uint64_t>(options_.batch_size, keys.size() - offset);
      std::shared_ptr<const level> carry =
          detail::reduce_batch(backend_, keys.subspan(offset, chunk), values.subspan(offset, chunk),
                               operations.subspan(offset, chunk), may_erase);
      // Binary addition: merge into the carry every occupied level up to the first empty one.
      std::size_t index = 0;
      for (; index < staged.size() && staged[index]; ++index) {
        carry = detail::merge_levels(backend_, *carry, *staged[index]);
        staged[index] = nullptr;
      }
      if (index == staged.size()) { staged.emplace_back(); }
      const bool oldest = std::none_of(staged.begin() + static_cast<std::ptrdiff_t>(index) + 1, staged.end(),
                                       [](const auto& occupied) { return occupied != nullptr; });
      if (oldest && carry->tombstones > 0) { carry = detail::without_tombstones(backend_, *carry); }
      staged[index] = carry->size > 0 ? carry : nullptr;
    }
    commit(std::move(staged));
  });
  maybe_cleanup();
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::insert(std::span<const Key> keys, std::span<const Value> values)
{
  WARPDEX_EXPECTS(keys.size() == values.size(), "lsm_map::insert: " + std::to_string(keys.size()) + " keys but " +
                                                    std::to_string(values.size()) + " values");
  auto operations = make_buffer<lsm_operation>(backend_, keys.size());
  thrust::fill(detail::policy(backend_), operations.data(), operations.data() + keys.size(), lsm_operation::insert);
  apply_batch(keys, values, std::span<const lsm_operation>(operations.data(), keys.size()), false);
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::erase(std::span<const Key> keys)
{
  auto operations = make_buffer<lsm_operation>(backend_, keys.size());
  auto values = make_buffer<Value>(backend_, keys.size());
  thrust::fill(detail::policy(backend_), operations.data(), operations.data() + keys.size(), lsm_operation::erase);
  thrust::fill(detail::policy(backend_), values.data(), values.data() + keys.size(), Value{0});
  apply_batch(keys, std::span<const Value>(values.data(), keys.size()),
              std::span<const lsm_operation>(operations.data(), keys.size()), true);
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::bulk_build(std::span<const Key> keys, std::span<const Value> values)
{
  WARPDEX_EXPECTS(keys.size() == values.size(), "lsm_map::bulk_build: " + std::to_string(keys.size()) + " keys but " +
                                                    std::to_string(values.size()) + " values");
  detail::reporting_allocation_failure("bulk_build", [&] {
    const std::uint64_t n = keys.size();
    const auto policy = detail::policy(backend_);
    auto sorted = detail::allocate_level<Key, Value>(backend_, n);
    detail::stable_sort_pairs(backend_, keys.data(), values.data(), sorted->keys.data(), sorted->values.data(), n);
    const auto positions = thrust::counting_iterator<std::uint64_t>(0);
    const std::uint64_t repeats = n < 2 ? 0
                                        : thrust::transform_reduce(policy, positions, positions + (n - 1),
                                                                   detail::repeats_next<Key>{sorted->keys.data()},
                                                                   std::uint64_t{0}, thrust::plus<std::uint64_t>());
    std::shared_ptr<level> built = sorted;
    if (repeats > 0) {  // keep the last pair of each key; the sort was stable
      built = detail::allocate_level<Key, Value>(backend_, n - repeats);
      thrust::reduce_by_key(policy, sorted->keys.data(), sorted->keys.data() + n, sorted->values.data(),
                            built->keys.data(), built->values.data(), thrust::equal_to<Key>(),
                            detail::later_value<Value>());
    }
    thrust::fill(policy, built->status.data(), built->status.data() + built->size, detail::lsm_regular);
    level_list staged;
    if (built->size > 0) {
      staged.resize(detail::level_for(built->size, options_.batch_size) + 1);
      staged.back() = built;
    }
    commit(std::move(staged));
  });
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::commit(level_list levels)
{
  while (!levels.empty() && !levels.back()) { levels.pop_back(); }
  levels_ = std::move(levels);
  index_current_ = false;
  live_before_.clear();
  std::vector<detail::lsm_level_view<Key, Value>> views;
  for (const auto& occupied : levels_) {
    if (occupied) {
      views.push_back(
          {occupied->keys.data(), occupied->values.data(), occupied->status.data(), nullptr, occupied->size});
    }
  }
  views_ = make_buffer<detail::lsm_level_view<Key, Value>>(backend_, views.size());
  views_.copy_from(views);
  backend_.synchronize();  // the views' staging copy is done before `views` goes away
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::ensure_liveness_index() const
{
  if (index_current_) { return; }
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
  if (static_cast<double>(resident_tombstones()) <= threshold * static_cast<double>(resident_entries())) { return; }
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
  thrust::for_each(detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
                   thrust::counting_iterator<std::uint64_t>(queries.size()),
                   detail::lookup_element<Key, Value>{views_.data(), static_cast<std::uint32_t>(views_.size()),
                                                      queries.data(), values.data(), found.data()});
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
  thrust::for_each(detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
                   thrust::counting_iterator<std::uint64_t>(lower.size()),
                   detail::count_element<Key, Value>{views_.data(), static_cast<std::uint32_t>(views_.size()),
                                                     lower.data(), upper.data(), counts.data()});
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
  count(lower, upper, std::span<std::uint64_t>(offsets, queries));
  thrust::exclusive_scan(policy, offsets, offsets + queries + 1, offsets);
  const std::uint64_t total = detail::read_back(backend_, offsets + queries);
  result.keys = make_buffer<Key>(backend_, total);
  result.values = make_buffer<Value>(backend_, total);
  const auto level_count = static_cast<std::uint32_t>(views_.size());
  if (total > 0) {
    thrust::for_each(policy, thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(queries * level_count),
                     detail::range_fill_element<Key, Value>{views_.data(), level_count, lower.data(), upper.data(),
                                                            offsets, result.keys.data(), result.values.data()});
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
    std::shared_ptr<const level> merged;
    for (const auto& occupied : levels_) {
      if (occupied) { merged = merged ? detail::merge_levels(backend_, *merged, *occupied) : occupied; }
    }
    level_list staged;
    if (merged && merged->tombstones > 0) { merged = detail::without_tombstones(backend_, *merged); }
    if (merged && merged->size > 0) {
      staged.resize(detail::level_for(merged->size, options_.batch_size) + 1);
      staged.back() = merged;
    }
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
  std::uint64_t tombstones = 0;
  for (const auto& occupied : levels_) { tombstones += occupied ? occupied->tombstones : 0; }
  return tombstones;
}

template <class Key, class Value, class Backend>
std::size_t lsm_map<Key, Value, Backend>::occupied_levels() const
{
  return views_.size();
}

}  // namespace warpdex

#define WARPDEX_INSTANTIATE_LSM(Backend)                         \
  template class lsm_map<std::uint32_t, std::uint32_t, Backend>; \
  template class lsm_map<std::uint64_t, std::uint32_t, Backend>;
