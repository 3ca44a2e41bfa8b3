#pragma once
// The level operations lsm_map composes (lsm_impl.hpp): allocating a level, sorting an update batch into
// one, merging levels (all entries, or only the live ones for a cleanup), counting ranges, the dead-entry
// counters. Thrust on both backends; on the GPU the kernels of lsm_batch_sort_cuda.cuh, lsm_merge_cuda.cuh
// and lsm_range_cuda.cuh replace a Thrust call where a benchmark row showed the win.

#include "../core/radix_sort_backend.hpp"
#include "lsm_async.hpp"
#include "lsm_level_build.hpp"
#include "lsm_queries.hpp"
#include <warpdex/core/detail/thrust_backend.hpp>

#include <warpdex/core/error.hpp>
#include <warpdex/lsm/lsm_map.hpp>

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/merge.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/tuple.h>

#if defined(__CUDACC__)
#include "lsm_async_cuda.cuh"
#include "lsm_batch_sort_cuda.cuh"
#include "lsm_merge_cuda.cuh"
#include "lsm_range_cuda.cuh"
#endif

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <type_traits>

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

/// Whether insert_async sorts and reduces a batch of `size` pairs by rank (rank_async_batch): on the GPU,
/// where one launch of size^2 comparisons in shared memory beats a sort's launches. The host sorts: the
/// same comparisons there took 2.5 ms for 2048 pairs on two cores.
template <class Backend>
constexpr bool lsm_async_ranked(std::uint64_t size)
{
  return !std::is_same_v<Backend, host> && size <= lsm_async_rank_max;
}

/// A batch that lsm_async_ranked takes, sorted and reduced by rank into the arena's slot, its stale
/// entries counted in `counters` (lsm_async_rank_entry): one launch. Compiled for the GPU only; the host
/// never calls it.
template <class Key, class Value, class Backend>
void rank_async_batch(const Backend& backend, const Key* keys, const Value* values, std::uint64_t size,
                      const lsm_async_arena<Key, Value>& arena, std::uint64_t* counters)
{
  (void)backend, (void)keys, (void)values, (void)size, (void)arena, (void)counters;
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<Backend, host>) {
    launch_async_rank(backend, keys,
                      lsm_async_rank_entry<Key, Value>{values, size, arena.keys, arena.values, arena.status}, counters);
  }
#endif
}

/// Merges the sorted batch in its slot with the levels batch t fills (t read from the control words),
/// or drops it when the levels are full or the mode is closed; then t + 1. On the GPU one launch of
/// `blocks` blocks (lsm_async_cuda.cuh); on the host the same steps.
template <class Key, class Value, class Backend>
void merge_async_batch(const Backend& backend, const lsm_async_arena<Key, Value>& arena, std::uint32_t blocks)
{
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<Backend, host>) {
    launch_async_merge(backend, arena, blocks);
    return;
  }
#endif
  (void)blocks;
  std::uint64_t* control = arena.control;
  const std::uint64_t applied = control[lsm_async_batches];
  if (applied >= arena.capacity) {
    control[lsm_async_batch_stale] = 0;
    control[lsm_async_dropped] += 1;
    return;
  }
  const std::uint32_t level = lsm_async_level(applied);
  thrust::for_each(policy(backend), thrust::counting_iterator<std::uint64_t>(0),
                   thrust::counting_iterator<std::uint64_t>(arena.batch_size << level),
                   lsm_async_merge_counted<Key, Value>{{arena, level}});
  control[lsm_stale_count] += control[lsm_async_batch_stale];
  control[lsm_async_batch_stale] = 0;
  control[lsm_async_batches] = applied + 1;
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
