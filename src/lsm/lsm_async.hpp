#pragma once
// insert_async's reserved levels (lsm_map::reserve_async), written once for both backends.
//
// The arena holds the batch's slot at entry 0 (batch_size b entries) and level i's home at entry b * 2^i
// (b * 2^i entries): with every batch exactly b pairs, level i is full or empty, and after t batches it
// is full where bit i of t is set. Batch t fills level k, k the trailing ones of t, from the batch and
// levels 0 .. k-1: entries [0, b * 2^k) of the arena, contiguous, newest first, written into level k's
// home [b * 2^k, b * 2^(k+1)), which is empty. So one pass merges them all: each entry's place in
// level k is its index in its own run plus, in every other run, the count of keys before it (a newer
// run's equal keys come first, as a merge of newer before older keeps them), and the entry becomes
// stale when a newer run holds its key. The plan depends only on t, which the device keeps: a captured
// graph replays correctly at any t, and the host reads t back when it next needs the levels.

#include "lsm_level_build.hpp"
#include <warpdex/core/config.hpp>
#include <warpdex/search/search_device.hpp>

#include <bit>
#include <cstdint>

namespace warpdex::detail {

/// The control words of insert_async, in the backend's memory. The first two are a dead-entry counter
/// array (lsm_counter): the stale entries the applied batches made.
enum lsm_async_word : std::uint32_t {
  lsm_async_batches = 2,          ///< batches applied (t); lsm_async_closed stops further ones
  lsm_async_dropped = 3,          ///< batches dropped: past the reservation, or after the mode closed
  lsm_async_finished_blocks = 4,  ///< blocks of the merge launch done (the last one resets it)
  lsm_async_batch_stale = 5,      ///< stale entries inside the batch being applied (a counter array's
                                  ///< lsm_stale_count from lsm_async_finished_blocks), added once applied
  lsm_async_word_count = 6,
};

/// insert_async's batch size is a multiple of this, so that every level's keys, values and statuses
/// start on a 256-byte line (the batch reduction loads its keys as vectors).
inline constexpr std::uint64_t lsm_async_batch_multiple = 64;

/// A batch count no reservation reaches: batches applied when the reserved mode is closed.
inline constexpr std::uint64_t lsm_async_closed = ~std::uint64_t{0};

/// The arena as the merge reads it (passed by value into the kernel).
template <class Key, class Value>
struct lsm_async_arena {
  Key* keys;
  Value* values;
  std::uint8_t* status;
  std::uint64_t* control;
  std::uint64_t batch_size;
  std::uint64_t capacity;  // batches the levels hold: 2^levels - 1
};

/// The bit width of x (std::bit_width, on either side).
WARPDEX_HOST_DEVICE inline std::uint32_t lsm_bit_width(std::uint64_t x)
{
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(64 - __clzll(static_cast<long long>(x)));
#else
  return static_cast<std::uint32_t>(std::bit_width(x));
#endif
}

/// The level batch t fills: the trailing ones of t (t below 2^64 - 1).
WARPDEX_HOST_DEVICE inline std::uint32_t lsm_async_level(std::uint64_t batches)
{
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__ffsll(static_cast<long long>(~batches)) - 1);
#else
  return static_cast<std::uint32_t>(std::countr_one(batches));
#endif
}

/// Batches of at most this many pairs are sorted and reduced by rank (lsm_async_rank_entry): O(b^2)
/// comparisons, which on the GPU run from shared memory in one launch, where CUB's single-tile sort of
/// 1024 pairs took 10.5 us and the reduction another launch (H200, docs/lsm.md).
inline constexpr std::uint64_t lsm_async_rank_max = 2048;

/// What places pair i of a batch: among the keys looked at, those below its key, and those equal to it
/// before and after it in batch order.
struct lsm_rank_counts {
  std::uint64_t below = 0;
  std::uint64_t equal_before = 0;
  std::uint64_t equal_after = 0;
};

/// Pair i of an unsorted batch written to its place in the sorted, reduced batch: its place is the
/// number of keys below it plus its equal keys before it (a stable sort), and of a key's run the first
/// entry is regular and takes the last pair's value (the batch's last insert wins), the others stale,
/// as sorted_batch leaves them. `keys` is the batch's keys wherever the caller staged them (shared
/// memory on the GPU, where several lanes count a pair's keys, each a share).
template <class Key, class Value>
struct lsm_async_rank_entry {
  const Value* values;  // the batch's values, in batch order
  std::uint64_t size;
  Key* keys_out;
  Value* values_out;
  std::uint8_t* status_out;

  /// The counts of pair i over keys[first, last).
  WARPDEX_HOST_DEVICE static lsm_rank_counts count(const Key* keys, std::uint64_t i, std::uint64_t first,
                                                   std::uint64_t last)
  {
    const Key key = keys[i];
    lsm_rank_counts counts;
    for (std::uint64_t j = first; j < last; ++j) {
      const Key other = keys[j];
      counts.below += other < key ? 1 : 0;
      counts.equal_before += other == key && j < i ? 1 : 0;
      counts.equal_after += other == key && j > i ? 1 : 0;
    }
    return counts;
  }

  /// Writes pair i (key `key`) with its counts over the whole batch; returns 1 for a stale entry.
  WARPDEX_HOST_DEVICE int place(Key key, std::uint64_t i, const lsm_rank_counts& counts) const
  {
    const std::uint64_t place = counts.below + counts.equal_before;
    const Value value = values[i];
    keys_out[place] = key;
    status_out[place] = counts.equal_before == 0 ? lsm_regular : lsm_stale;
    // The run's first place holds the last pair's value; every other place its own pair's.
    if (counts.equal_before > 0 || counts.equal_after == 0) { values_out[place] = value; }
    if (counts.equal_after == 0 && counts.equal_before > 0) { values_out[counts.below] = value; }
    return counts.equal_before > 0 ? 1 : 0;
  }
};

/// Entries of run r of a merge: the batch (r = 0) or level r - 1; run r starts at entry run_size(r) too
/// (b, then b, 2b, 4b ...), except the batch at 0.
WARPDEX_HOST_DEVICE inline std::uint64_t lsm_run_size(std::uint64_t batch_size, std::uint32_t run)
{
  return run == 0 ? batch_size : batch_size << (run - 1);
}

/// Entry e of the merge of batch t (k = the trailing ones of t) moved to its place in level k; returns
/// 1 when the entry became stale (a newer run holds its key).
template <class Key, class Value>
struct lsm_async_merge_entry {
  lsm_async_arena<Key, Value> arena;
  std::uint32_t level;  // k

  WARPDEX_HOST_DEVICE int operator()(std::uint64_t entry) const
  {
    const std::uint64_t b = arena.batch_size;
    const std::uint32_t own = lsm_bit_width(entry / b);  // its run: 0 the batch
    const std::uint64_t own_start = own == 0 ? 0 : lsm_run_size(b, own);
    const Key key = arena.keys[entry];
    std::uint64_t place = entry - own_start;
    bool hidden = false;
    for (std::uint32_t run = 0; run <= level; ++run) {
      if (run == own) { continue; }
      const std::uint64_t size = lsm_run_size(b, run);
      const Key* keys = arena.keys + (run == 0 ? 0 : size);
      if (run < own) {  // newer: its entries of the key come first, and hide this one
        const std::uint64_t before = binary_search_bound<bound_kind::upper>(keys, size, key);
        place += before;
        hidden = hidden || (before > 0 && keys[before - 1] == key);
      } else {
        place += binary_search_bound<bound_kind::lower>(keys, size, key);
      }
    }
    const std::uint8_t state = arena.status[entry];
    const bool newly_stale = hidden && state != lsm_stale;
    const std::uint64_t target = (b << level) + place;
    arena.keys[target] = key;
    arena.values[target] = arena.values[entry];
    arena.status[target] = newly_stale ? lsm_stale : state;
    return newly_stale ? 1 : 0;
  }
};

/// lsm_async_merge_entry, its stale entries counted.
template <class Key, class Value>
struct lsm_async_merge_counted {
  lsm_async_merge_entry<Key, Value> merge;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t entry) const
  {
    if (merge(entry) != 0) { add_to_counter(merge.arena.control + lsm_stale_count, 1); }
  }
};

}  // namespace warpdex::detail
