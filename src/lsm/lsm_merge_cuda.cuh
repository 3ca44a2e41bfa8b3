#pragma once
// The merge of two LSM levels in one kernel launch, for the small merges that most update batches make:
// Thrust's merge costs a partition kernel, a merge kernel, a temporary allocation and a marking pass,
// whose host-side cost dominates a batch of 2^16 entries. Each thread finds its start on the merge path
// by a binary search and writes a fixed number of outputs, marking stale, as it goes, an older entry that
// follows an entry of its key. Its reads are not staged through shared memory, so large merges stay
// with Thrust (lsm_impl.hpp chooses).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/lsm/detail/lsm_level.hpp>

#include <cstdint>

namespace warpdex::detail {

inline constexpr unsigned lsm_merge_threads = 256;
inline constexpr std::uint64_t lsm_merge_items = 8;  // outputs per thread

template <class Key, class Value>
__global__ void merge_levels_kernel(const Key* newer_keys, const Value* newer_values, const std::uint8_t* newer_status,
                                    std::uint64_t newer_size, const Key* older_keys, const Value* older_values,
                                    const std::uint8_t* older_status, std::uint64_t older_size, Key* keys,
                                    Value* values, std::uint8_t* status, std::uint64_t* counters)
{
  const std::uint64_t total = newer_size + older_size;
  const std::uint64_t diagonal = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * lsm_merge_items;
  if (diagonal >= total) { return; }
  // i newer entries among the first `diagonal` outputs; on equal keys the newer go first.
  std::uint64_t low = diagonal > older_size ? diagonal - older_size : 0;
  std::uint64_t high = diagonal < newer_size ? diagonal : newer_size;
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (!(older_keys[diagonal - middle - 1] < newer_keys[middle])) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  std::uint64_t i = low;
  std::uint64_t j = diagonal - low;
  // The key written just before this thread's first output, if any: the larger of the last ones taken.
  bool has_previous = i > 0 || j > 0;
  Key previous{};
  if (i > 0) { previous = newer_keys[i - 1]; }
  if (j > 0 && (i == 0 || previous < older_keys[j - 1])) { previous = older_keys[j - 1]; }
  int tombstones = 0;
  int stale = 0;
  const std::uint64_t end = diagonal + lsm_merge_items < total ? diagonal + lsm_merge_items : total;
  for (std::uint64_t out = diagonal; out < end; ++out) {
    const bool take_newer = j >= older_size || (i < newer_size && !(older_keys[j] < newer_keys[i]));
    Key key;
    std::uint8_t state;
    if (take_newer) {
      key = newer_keys[i];
      values[out] = newer_values[i];
      state = newer_status[i];
      ++i;
    } else {
      key = older_keys[j];
      values[out] = older_values[j];
      state = older_status[j];
      ++j;
      if (has_previous && previous == key && state != lsm_stale) {
        tombstones -= state == lsm_tombstone ? 1 : 0;
        stale += 1;
        state = lsm_stale;
      }
    }
    keys[out] = key;
    status[out] = state;
    previous = key;
    has_previous = true;
  }
  if (tombstones != 0) { add_to_counter(counters + lsm_tombstone_count, tombstones); }
  if (stale != 0) { add_to_counter(counters + lsm_stale_count, stale); }
}

template <class Key, class Value>
void launch_merge_levels(const cuda& backend, const lsm_level<Key, Value>& newer, const lsm_level<Key, Value>& older,
                         lsm_level<Key, Value>& merged, std::uint64_t* counters)
{
  const std::uint64_t threads = (merged.size + lsm_merge_items - 1) / lsm_merge_items;
  const auto blocks = static_cast<unsigned>((threads + lsm_merge_threads - 1) / lsm_merge_threads);
  merge_levels_kernel<<<blocks, lsm_merge_threads, 0, backend.stream>>>(
      newer.keys, newer.values, newer.status, newer.size, older.keys, older.values, older.status, older.size,
      merged.keys, merged.values, merged.status, counters);
  WARPDEX_CUDA_TRY(cudaGetLastError());
}

}  // namespace warpdex::detail
