#pragma once
// The counting passes' building blocks: a grid-strided loop that reads an array with 16-byte loads,
// several of them in flight per thread, and counts each element's bucket in shared counters (the single
// pass's histogram and both histogram kernels); the buckets of several keys at once (identify_all); the
// per-block sum of per-warp replicated shared counters; and a warp's read of a round of keys (the count
// passes over warp tiles and the partition).

#include <warpdex/core/warp.cuh>

#include <cstdint>
#include <type_traits>

namespace warpdex::detail {

/// Bytes per load of the vectorized loop (4 elements of 32 bits or 2 of 64).
inline constexpr int vector_load_bytes = 16;

/// Identifiers that find the buckets of several keys at once (splitter_tree: one descent for all of them).
template <class Identifier, class Key, int N>
inline constexpr bool identifies_all = requires(const Identifier& identifier, const Key (&keys)[N],
                                                std::uint32_t (&buckets)[N])
{
  identifier.identify_all(keys, buckets);
};

/// buckets[k] = identifier(keys[k]) for k < N, all at once where the identifier can.
template <class Identifier, class Key, int N>
__device__ __forceinline__ void identify_all(const Identifier& identifier, const Key (&keys)[N],
                                             std::uint32_t (&buckets)[N])
{
  if constexpr (identifies_all<Identifier, Key, N>) {
    identifier.identify_all(keys, buckets);
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) { buckets[k] = identifier(keys[k]); }
  }
}

/// Calls visit(element) for every element of data[0, n) that this thread owns: the grid strides over
/// 16-byte groups, each thread issuing `Unroll` independent group loads before visiting any element
/// (Unroll x 16 bytes in flight per thread), then the groups left over and the elements past the last
/// whole group one at a time. A misaligned `data` (not on a 16-byte boundary) is read one element at a
/// time. Every element is visited exactly once over the grid; the order is not the input order. The
/// elements of each round of unrolled loads go to visit_batch(T (&)[Unroll * 16 / sizeof(T)]) together,
/// the others to visit(element) one at a time.
template <int Unroll, class T, class VisitBatch, class Visit>
__device__ __forceinline__ void for_each_vectorized_batch(const T* data, std::uint64_t n, VisitBatch&& visit_batch,
                                                          Visit&& visit)
{
  static_assert(vector_load_bytes % sizeof(T) == 0, "elements of 4 or 8 bytes");
  constexpr int per_group = vector_load_bytes / sizeof(T);
  struct alignas(vector_load_bytes) group {
    T elements[per_group];
  };
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint64_t scalar_begin = 0;
  if (reinterpret_cast<std::uintptr_t>(data) % vector_load_bytes == 0) {
    const auto* groups = reinterpret_cast<const group*>(data);
    const std::uint64_t group_count = n / per_group;
    std::uint64_t g = first;
    for (; g + (Unroll - 1) * stride < group_count; g += Unroll * stride) {
      group loaded[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) { loaded[u] = groups[g + u * stride]; }
      T batch[Unroll * per_group];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
#pragma unroll
        for (int k = 0; k < per_group; ++k) { batch[u * per_group + k] = loaded[u].elements[k]; }
      }
      visit_batch(batch);
    }
    for (; g < group_count; g += stride) {
      const group one = groups[g];
#pragma unroll
      for (int k = 0; k < per_group; ++k) { visit(one.elements[k]); }
    }
    scalar_begin = group_count * per_group;
  }
  for (std::uint64_t i = scalar_begin + first; i < n; i += stride) { visit(data[i]); }
}

/// Counts the elements of data[0, n) that this thread owns (for_each_vectorized_batch): an element of
/// bucket b < m adds 1 to mine[b * replicas] (this lane's replica in shared memory); returns how many
/// had an id outside [0, m). The elements of the unrolled loads are identified together (identify_all).
template <int Unroll, class T, class Identifier>
__device__ __forceinline__ std::uint32_t count_vectorized(const T* data, std::uint64_t n, const Identifier& identifier,
                                                          std::uint32_t m, std::uint32_t* mine, std::uint32_t replicas)
{
  std::uint32_t outside = 0;
  const auto count = [&](std::uint32_t bucket) {
    if (bucket < m) {
      atomicAdd(mine + bucket * replicas, 1U);
    } else {
      ++outside;
    }
  };
  for_each_vectorized_batch<Unroll>(
      data, n,
      [&](const auto& batch) {
        constexpr int batch_size = static_cast<int>(std::extent_v<std::remove_cvref_t<decltype(batch)>>);
        std::uint32_t buckets[batch_size];
        identify_all(identifier, batch, buckets);
#pragma unroll
        for (const std::uint32_t bucket : buckets) { count(bucket); }
      },
      [&](T element) { count(identifier(element)); });
  return outside;
}

/// Calls visit(key) for the keys of keys[begin, begin + RoundKeys) below n that lane `lane` of a warp
/// reads (together the warp's lanes visit each of them once, in no particular order): with 16-byte loads,
/// all of a lane's loads issued before any key is visited, when the round is whole and `vectorized`
/// (keys on a 16-byte boundary); else one key a lane at a time, warp-striped. Call with the whole warp.
template <std::uint32_t RoundKeys, class Key, class Visit>
__device__ __forceinline__ void visit_warp_round(const Key* keys, std::uint64_t n, std::uint64_t begin, unsigned lane,
                                                 bool vectorized, Visit&& visit)
{
  constexpr int lanes = warp::size;
  static_assert(RoundKeys * sizeof(Key) % (vector_load_bytes * lanes) == 0,
                "a round is whole 16-byte loads of every lane");
  constexpr int per_load = vector_load_bytes / sizeof(Key);
  constexpr int loads = RoundKeys / (per_load * lanes);  // per lane
  struct alignas(vector_load_bytes) group {
    Key elements[per_load];
  };
  if (vectorized && begin + RoundKeys <= n) {
    const auto* groups = reinterpret_cast<const group*>(keys + begin);
    group loaded[loads];
#pragma unroll
    for (int u = 0; u < loads; ++u) { loaded[u] = groups[u * lanes + lane]; }
#pragma unroll
    for (int u = 0; u < loads; ++u) {
#pragma unroll
      for (int k = 0; k < per_load; ++k) { visit(loaded[u].elements[k]); }
    }
  } else {  // the last round, or keys off the 16-byte boundary
#pragma unroll
    for (std::uint32_t item = 0; item < RoundKeys / lanes; ++item) {
      const std::uint64_t index = begin + item * lanes + lane;
      if (index < n) { visit(keys[index]); }
    }
  }
}

/// Blocks of a grid that counts n elements with 32-bit per-thread (or per-warp) counters: at least
/// `wave` (one full wave of the device), and enough that no block counts more than 2^31 elements, so
/// no counter of a block can overflow.
inline unsigned counting_blocks(unsigned wave, std::uint64_t n)
{
  constexpr std::uint64_t block_limit = std::uint64_t{1} << 31;
  const std::uint64_t needed = (n + block_limit - 1) / block_limit;
  return needed > wave ? static_cast<unsigned>(needed) : wave;
}

/// Block-collective, once the block's threads have written what the grid's last block will read: counts
/// the block done in *blocks_done (zeroed before the launch) and says, in every thread, whether it was the
/// last of the grid to finish. Each thread fences its writes before the block counts itself, and the last
/// block fences before it reads, so it sees every block's writes in L2.
__device__ inline bool finished_last_block(unsigned int* blocks_done)
{
  __threadfence();
  __syncthreads();
  bool last = false;
  if (threadIdx.x == 0) { last = atomicAdd(blocks_done, 1U) == gridDim.x - 1; }
  if (__syncthreads_or(last) == 0) { return false; }
  __threadfence();
  return true;
}

/// Adds a block's counts to `totals` once per bin: counters[w][b * replicas + r] is replica r of bin b
/// of warp w (b < m, r < replicas). Call with the whole block once every warp has counted (after a
/// barrier); the counters are summed in place. Each thread first sums one word over the warps into warp
/// 0's row (consecutive threads, consecutive words), then thread t sums the replicas of bins t, t +
/// blockDim.x, ..., starting at replica t mod replicas so that a warp's threads read different banks, and
/// adds a sum that is not zero with one global atomic. One thread summing a bin's warps and replicas
/// read all 32 replicas of the bins of a warp from one bank (m = 32: 256 reads, each 32-way
/// conflicted), which cost a block more than counting a few thousand keys.
template <int Warps, std::uint32_t WarpCounters>
__device__ void add_replicated_counts(std::uint32_t (&counters)[Warps][WarpCounters], std::uint32_t m,
                                      std::uint32_t replicas, unsigned long long* totals)
{
  const std::uint32_t words = m * replicas;  // at most WarpCounters
  for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) {
    std::uint32_t sum = 0;  // a block counts fewer than 2^32 elements (counting_blocks)
#pragma unroll
    for (int w = 0; w < Warps; ++w) { sum += counters[w][i]; }
    counters[0][i] = sum;
  }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
    std::uint64_t total = 0;
    std::uint32_t r = b % replicas;
    for (std::uint32_t k = 0; k < replicas; ++k) {
      total += counters[0][b * replicas + r];
      r = r + 1 == replicas ? 0 : r + 1;
    }
    if (total != 0) { atomicAdd(&totals[b], static_cast<unsigned long long>(total)); }
  }
}

}  // namespace warpdex::detail
