#pragma once
// The cleanup on the GPU as one multiway merge that drops dead entries: each entry is read twice (a count,
// then the fill), not once per pairwise merge with a marking pass after each and a compaction last.
//
// The key space is cut at splitters, every `stride`-th key of every level, so that between two splitters
// each level holds at most `stride` entries: a partition of at most levels x stride entries, which one
// block loads into shared memory. There an entry survives when it is regular and no newer level holds its
// key (a binary search in that level's part of the partition), and a survivor's place is the survivors
// below it in every level of the partition: its own level's by a block-wide prefix count, the others' by a
// search in shared memory. A partition grows past that bound only where one level repeats a key more than
// `stride` times; lsm_impl.hpp then keeps the pairwise merges.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/lsm/detail/lsm_level.hpp>
#include <warpdex/search/search_device.hpp>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdint>

namespace warpdex::detail {

inline constexpr unsigned lsm_cleanup_threads = 256;
inline constexpr unsigned lsm_cleanup_items = 16;  // shared entries per thread
/// Entries of one partition that a block holds in shared memory.
inline constexpr std::uint32_t lsm_cleanup_capacity = lsm_cleanup_threads * lsm_cleanup_items;
/// Levels the partitioned cleanup handles (more: the pairwise merges).
inline constexpr std::uint32_t lsm_cleanup_max_levels = 32;

/// splitters[offset + j] = keys[j * stride] of one level.
template <class Key>
__global__ void cleanup_samples_kernel(const Key* keys, std::uint64_t count, std::uint64_t stride, Key* splitters)
{
  const std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < count) { splitters[j] = keys[j * stride]; }
}

/// starts[l * (partitions + 1) + p] = the first index of level l whose key is >= the partition's first
/// splitter (partition 0 starts at 0; the entry past the last partition is the level's size).
template <class Key, class Value>
__global__ void cleanup_starts_kernel(const lsm_level_view<Key, Value>* levels, std::uint32_t level_count,
                                      const Key* splitters, std::uint64_t partitions, std::uint64_t* starts)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= (partitions + 1) * level_count) { return; }
  const std::uint64_t l = i / (partitions + 1);
  const std::uint64_t p = i % (partitions + 1);
  const lsm_level_view<Key, Value>& level = levels[l];
  std::uint64_t at = 0;
  if (p == partitions) {
    at = level.size;
  } else if (p > 0) {
    at = binary_search_bound<bound_kind::lower>(level.keys, level.size, splitters[p - 1]);
  }
  starts[i] = at;
}

/// The shared state of one partition: its entries of every level in turn, newest level first.
template <class Key>
struct cleanup_partition {
  Key keys[lsm_cleanup_capacity];
  std::uint16_t survivors_before[lsm_cleanup_capacity];  // exclusive prefix count of survivors
  std::uint8_t survives[lsm_cleanup_capacity];
  std::uint32_t first[lsm_cleanup_max_levels + 1];  // where each level's entries start
  std::uint64_t start[lsm_cleanup_max_levels];      // the level index of each level's first entry
};

/// Loads partition `p` into shared memory and marks its survivors; returns the number of entries.
template <class Key, class Value>
__device__ std::uint32_t load_partition(const lsm_level_view<Key, Value>* levels, std::uint32_t level_count,
                                        const std::uint64_t* starts, std::uint64_t partitions, std::uint64_t p,
                                        cleanup_partition<Key>& part)
{
  if (threadIdx.x == 0) {
    part.first[0] = 0;
    for (std::uint32_t l = 0; l < level_count; ++l) {
      const std::uint64_t begin = starts[l * (partitions + 1) + p];
      const std::uint64_t end = starts[l * (partitions + 1) + p + 1];
      part.start[l] = begin;
      part.first[l + 1] = part.first[l] + static_cast<std::uint32_t>(end - begin);
    }
  }
  __syncthreads();
  const std::uint32_t total = part.first[level_count];
  std::uint8_t statuses[lsm_cleanup_items];
  for (std::uint32_t k = 0, t = threadIdx.x; k < lsm_cleanup_items; ++k, t += lsm_cleanup_threads) {
    if (t >= total) { break; }
    std::uint32_t l = 0;
    while (part.first[l + 1] <= t) { ++l; }
    const std::uint64_t i = part.start[l] + (t - part.first[l]);
    part.keys[t] = levels[l].keys[i];
    statuses[k] = levels[l].status[i];
  }
  __syncthreads();
  for (std::uint32_t k = 0, t = threadIdx.x; k < lsm_cleanup_items; ++k, t += lsm_cleanup_threads) {
    if (t >= total) { break; }
    std::uint32_t l = 0;
    while (part.first[l + 1] <= t) { ++l; }
    bool survives = statuses[k] == lsm_regular;
    const Key key = part.keys[t];
    for (std::uint32_t newer = 0; survives && newer < l; ++newer) {
      const std::uint32_t from = part.first[newer];
      const std::uint32_t size = part.first[newer + 1] - from;
      const std::uint64_t at = binary_search_bound<bound_kind::lower>(part.keys + from, size, key);
      survives = !(at < size && part.keys[from + at] == key);
    }
    part.survives[t] = survives ? 1 : 0;
  }
  __syncthreads();
  return total;
}

/// counts[p] = the survivors of partition p.
template <class Key, class Value>
__global__ void __launch_bounds__(lsm_cleanup_threads)
    cleanup_count_kernel(const lsm_level_view<Key, Value>* levels, std::uint32_t level_count,
                         const std::uint64_t* starts, std::uint64_t partitions, std::uint64_t* counts)
{
  __shared__ cleanup_partition<Key> part;
  using reduce = cub::BlockReduce<std::uint32_t, lsm_cleanup_threads>;
  __shared__ typename reduce::TempStorage reduce_storage;
  for (std::uint64_t p = blockIdx.x; p < partitions; p += gridDim.x) {
    const std::uint32_t total = load_partition(levels, level_count, starts, partitions, p, part);
    std::uint32_t mine = 0;
    for (std::uint32_t t = threadIdx.x; t < total; t += lsm_cleanup_threads) { mine += part.survives[t]; }
    const std::uint32_t survivors = reduce(reduce_storage).Sum(mine);
    if (threadIdx.x == 0) { counts[p] = survivors; }
    __syncthreads();  // the partition's shared state is rewritten for the next one
  }
}

/// Writes partition p's survivors, sorted, from offsets[p] on.
template <class Key, class Value>
__global__ void __launch_bounds__(lsm_cleanup_threads)
    cleanup_fill_kernel(const lsm_level_view<Key, Value>* levels, std::uint32_t level_count,
                        const std::uint64_t* starts, std::uint64_t partitions, const std::uint64_t* offsets,
                        Key* keys_out, Value* values_out)
{
  __shared__ cleanup_partition<Key> part;
  using scan = cub::BlockScan<std::uint32_t, lsm_cleanup_threads>;
  __shared__ typename scan::TempStorage scan_storage;
  for (std::uint64_t p = blockIdx.x; p < partitions; p += gridDim.x) {
    const std::uint32_t total = load_partition(levels, level_count, starts, partitions, p, part);
    // Exclusive prefix count of survivors over the partition, each thread a run of items.
    const std::uint32_t run = threadIdx.x * lsm_cleanup_items;
    std::uint32_t mine = 0;
    for (std::uint32_t k = 0; k < lsm_cleanup_items && run + k < total; ++k) { mine += part.survives[run + k]; }
    std::uint32_t before = 0;
    scan(scan_storage).ExclusiveSum(mine, before);
    for (std::uint32_t k = 0; k < lsm_cleanup_items && run + k < total; ++k) {
      part.survivors_before[run + k] = static_cast<std::uint16_t>(before);
      before += part.survives[run + k];
    }
    __syncthreads();
    const std::uint64_t base = offsets[p];
    for (std::uint32_t t = threadIdx.x; t < total; t += lsm_cleanup_threads) {
      if (part.survives[t] == 0) { continue; }
      std::uint32_t l = 0;
      while (part.first[l + 1] <= t) { ++l; }
      const Key key = part.keys[t];
      std::uint32_t rank = part.survivors_before[t] - part.survivors_before[part.first[l]];
      for (std::uint32_t other = 0; other < level_count; ++other) {
        if (other == l) { continue; }
        const std::uint32_t from = part.first[other];
        const std::uint32_t size = part.first[other + 1] - from;
        if (size == 0) { continue; }
        const auto at = static_cast<std::uint32_t>(binary_search_bound<bound_kind::lower>(part.keys + from, size, key));
        // survivors_before at the level's end is the next level's first prefix (or the partition's total).
        const std::uint32_t below = at < size ? part.survivors_before[from + at]
                                              : part.survivors_before[from + size - 1] + part.survives[from + size - 1];
        rank += below - part.survivors_before[from];
      }
      keys_out[base + rank] = key;
      values_out[base + rank] = levels[l].values[part.start[l] + (t - part.first[l])];
    }
    __syncthreads();  // the partition's shared state is rewritten for the next one
  }
}

}  // namespace warpdex::detail
