#pragma once
// insert_async's merge on the GPU (lsm_async.hpp): one launch whose grid reserve_async fixed and whose
// work the batch count on the device sets, so that a captured launch stays right at every replay.

#include "lsm_async.hpp"
#include <warpdex/core/backend.hpp>
#include <warpdex/core/cuda_check.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

namespace warpdex::detail {

inline constexpr unsigned lsm_async_threads = 256;
/// Blocks of the merge launch per multiprocessor, at most: a grid of a few waves strides over the
/// largest merges, and the small ones (most batches fill level 0 or 1) leave most blocks idle, each
/// costing one atomic.
inline constexpr unsigned lsm_async_blocks_per_processor = 4;

template <class Key, class Value>
__global__ void __launch_bounds__(lsm_async_threads) lsm_async_merge_kernel(lsm_async_arena<Key, Value> arena)
{
  auto* words = reinterpret_cast<unsigned long long*>(arena.control);
  const std::uint64_t applied = arena.control[lsm_async_batches];  // the last block of the previous launch wrote it
  if (applied >= arena.capacity) {  // the levels are full, or the mode closed: the batch is dropped whole
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      atomicExch(words + lsm_async_batch_stale, 0ull);
      atomicAdd(words + lsm_async_dropped, 1ull);
    }
    return;
  }
  const std::uint32_t level = lsm_async_level(applied);
  const lsm_async_merge_entry<Key, Value> merge{arena, level};
  const std::uint64_t entries = arena.batch_size << level;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t entry = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; entry < entries; entry += stride) {
    if (merge(entry) != 0) { add_to_counter(arena.control + lsm_stale_count, 1); }
  }
  // The last block to finish applies the batch: no block reads the count after that.
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) { last = atomicAdd(words + lsm_async_finished_blocks, 1ull) == gridDim.x - 1; }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    atomicExch(words + lsm_async_finished_blocks, 0ull);
    atomicAdd(words + lsm_stale_count, atomicExch(words + lsm_async_batch_stale, 0ull));
    atomicExch(words + lsm_async_batches, static_cast<unsigned long long>(applied + 1));
  }
}

/// The rank launch: each block stages the whole batch's keys in shared memory; lsm_async_rank_lanes
/// lanes count each pair's keys, each a share, so that a block's warps finish their b comparisons a pair
/// in b / 4 steps.
inline constexpr unsigned lsm_async_rank_threads = 128;
inline constexpr unsigned lsm_async_rank_lanes = 4;

template <class Key, class Value>
__global__ void __launch_bounds__(lsm_async_rank_threads)
    lsm_async_rank_kernel(const Key* keys, lsm_async_rank_entry<Key, Value> rank, std::uint64_t* counters)
{
  __shared__ Key staged[lsm_async_rank_max];
  for (std::uint64_t j = threadIdx.x; j < rank.size; j += blockDim.x) { staged[j] = keys[j]; }
  __syncthreads();
  const std::uint64_t i = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / lsm_async_rank_lanes;
  const unsigned share = threadIdx.x % lsm_async_rank_lanes;
  const std::uint64_t pair = i < rank.size ? i : rank.size - 1;  // every lane takes part in the sums
  const std::uint64_t share_size = (rank.size + lsm_async_rank_lanes - 1) / lsm_async_rank_lanes;
  const std::uint64_t first = share * share_size;
  const std::uint64_t last = first + share_size < rank.size ? first + share_size : rank.size;
  lsm_rank_counts counts = lsm_async_rank_entry<Key, Value>::count(staged, pair, first < last ? first : last, last);
  for (unsigned offset = 1; offset < lsm_async_rank_lanes; offset *= 2) {
    counts.below += __shfl_xor_sync(0xffffffffU, counts.below, offset);
    counts.equal_before += __shfl_xor_sync(0xffffffffU, counts.equal_before, offset);
    counts.equal_after += __shfl_xor_sync(0xffffffffU, counts.equal_after, offset);
  }
  if (i < rank.size && share == 0 && rank.place(staged[i], i, counts) != 0) {
    add_to_counter(counters + lsm_stale_count, 1);
  }
}

template <class Key, class Value>
void launch_async_rank(const cuda& backend, const Key* keys, const lsm_async_rank_entry<Key, Value>& rank,
                       std::uint64_t* counters)
{
  const std::uint64_t threads = rank.size * lsm_async_rank_lanes;
  const auto blocks = static_cast<unsigned>((threads + lsm_async_rank_threads - 1) / lsm_async_rank_threads);
  lsm_async_rank_kernel<<<blocks, lsm_async_rank_threads, 0, backend.stream>>>(keys, rank, counters);
  WARPDEX_CUDA_TRY(cudaGetLastError());
}

/// The grid of the merge launch for levels of up to `largest` entries, on the current device.
inline std::uint32_t lsm_async_grid(std::uint64_t largest)
{
  int device = 0;
  int processors = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device));
  const std::uint64_t needed = (largest + lsm_async_threads - 1) / lsm_async_threads;
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(
             needed, std::uint64_t{lsm_async_blocks_per_processor} * static_cast<std::uint64_t>(processors))));
}

template <class Key, class Value>
void launch_async_merge(const cuda& backend, const lsm_async_arena<Key, Value>& arena, std::uint32_t blocks)
{
  lsm_async_merge_kernel<<<blocks, lsm_async_threads, 0, backend.stream>>>(arena);
  WARPDEX_CUDA_TRY(cudaGetLastError());
}

}  // namespace warpdex::detail
