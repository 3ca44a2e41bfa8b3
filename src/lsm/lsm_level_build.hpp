#pragma once
// What building a level runs per entry (lsm_impl.hpp, lsm_levels.hpp): reducing a sorted update batch to
// one current entry per key, marking erased runs and shadowed entries, and the dead-entry counters they
// add to; and the predicates an update and a cleanup filter with.

#include <warpdex/core/config.hpp>
#include <warpdex/lsm/lsm_map.hpp>

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#endif

#include <atomic>
#include <cstdint>
#include <cstring>

namespace warpdex::detail {

struct is_unknown_operation {
  WARPDEX_HOST_DEVICE bool operator()(lsm_operation operation) const
  {
    return operation != lsm_operation::insert && operation != lsm_operation::erase;
  }
};

struct is_regular {
  WARPDEX_HOST_DEVICE bool operator()(std::uint8_t status) const { return status == lsm_regular; }
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
