#pragma once
// The partition kernels of the cuda multisplit for m <= 3 buckets (`multisplit_algorithm::partition`):
// 1. count: a grid-strided read of the keys with 16-byte loads (several in flight per thread) counts
//    each bucket and the ids outside [0, m) in registers; one shared add per warp, one global add
//    per counter and block;
// 2. scatter: tiles in input order from an atomic counter. Each warp ranks its keys with m ballots per
//    32 keys (no shared memory, no block-wide ranking), the block sums its warps' counts, warps 0 .. m-2
//    look back over the predecessors' counts of buckets 0 .. m-2 (decoupled look-back, 32 predecessors
//    per step), and every key is written straight from registers to its final slot: bucket b starts at
//    the total of the buckets before it (from pass 1, read on the device), so all buckets are written
//    forward and the split is stable. The keys of the last bucket in earlier tiles are the earlier keys
//    minus those of the other buckets: it needs no look-back.
// When pass 1 found an id outside [0, m), pass 2 writes nothing (it reads the count on the device), so
// the host needs no synchronization between the passes: it reads the totals once, after both.
// Traffic: 4 bytes per key read by pass 1, 8 by pass 2 (12 per key, 20 per pair with 32-bit values),
// plus m - 1 look-back words per 4096-key tile.

#include <warpdex/core/warp.cuh>
#include <warpdex/split/detail/multisplit_kernels.cuh>
#include <warpdex/split/detail/multisplit_single_pass.cuh>
#include <warpdex/split/detail/counting.cuh>

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

namespace warpdex::detail {

/// The most buckets of the partition kernels (a bucket id fits in 2 bits, with 3 for "no key").
inline constexpr std::uint32_t partition_max_buckets = 3;
/// Layout of the counters pass 1 writes: the counts of buckets 0, 1, 2, then the ids outside [0, m).
inline constexpr int partition_bad_ids = partition_max_buckets;
inline constexpr int partition_counters = partition_max_buckets + 1;
/// The 16-byte loads each thread of pass 1 keeps in flight.
inline constexpr int partition_count_unroll = 4;

/// Pass 1: counters[b] += keys of bucket b (b < m), counters[partition_bad_ids] += ids outside [0, m).
/// `counters` holds partition_counters zeroed words. Grid-stride; launch with counting_blocks().
template <class Key, class Identifier>
__global__ void __launch_bounds__(multisplit_block_threads)
    multisplit_partition_count_kernel(const Key* keys, std::uint64_t n, Identifier identifier,
                                      unsigned long long* counters)
{
  using block_id = block_identifier<Identifier>;
  __shared__ typename block_id::storage identifier_storage;
  __shared__ std::uint32_t block_counts[partition_counters];
  if (threadIdx.x < partition_counters) { block_counts[threadIdx.x] = 0; }
  const Identifier local = block_id::load(identifier, identifier_storage);
  __syncthreads();

  const std::uint32_t m = identifier.bucket_count();
  std::uint32_t counts[partition_counters] = {};
  for_each_vectorized<partition_count_unroll>(keys, n, [&](Key key) {
    const std::uint32_t bucket = local(key);
    const std::uint32_t counter = bucket < m ? bucket : partition_bad_ids;
#pragma unroll
    for (int c = 0; c < partition_counters; ++c) { counts[c] += counter == static_cast<std::uint32_t>(c) ? 1U : 0U; }
  });
#pragma unroll
  for (int c = 0; c < partition_counters; ++c) {
    for (int offset = warp::size / 2; offset > 0; offset /= 2) { counts[c] += warp::shfl_xor(counts[c], offset); }
  }
  if (warp::lane_id() == 0) {
#pragma unroll
    for (int c = 0; c < partition_counters; ++c) {
      if (counts[c] != 0) { atomicAdd(&block_counts[c], counts[c]); }
    }
  }
  __syncthreads();
  if (threadIdx.x < partition_counters && block_counts[threadIdx.x] != 0) {
    atomicAdd(&counters[threadIdx.x], static_cast<unsigned long long>(block_counts[threadIdx.x]));
  }
}

/// Decoupled look-back by one warp: the keys of one bucket in tiles [0, tile), from the look-back words
/// lookback[t * stride + column] (lookback_tile_count or lookback_inclusive flag + count, 0 while the
/// tile has published nothing). Lane l reads predecessor tile - 1 - l - 32 k in step k; the step stops
/// at the nearest predecessor that published its inclusive count. Every lane returns the sum.
__device__ inline std::uint64_t look_back_warp(std::uint64_t* lookback, std::uint32_t stride, std::uint32_t column,
                                               std::uint32_t tile)
{
  const unsigned lane = warp::lane_id();
  std::uint64_t earlier = 0;
  for (std::int64_t window_end = tile;; window_end -= warp::size) {
    const std::int64_t predecessor = window_end - 1 - static_cast<std::int64_t>(lane);
    std::uint64_t status = lookback_inclusive;  // before tile 0: an inclusive count of 0
    if (predecessor >= 0) {
      ::cuda::atomic_ref<std::uint64_t, ::cuda::thread_scope_device> word(
          lookback[static_cast<std::uint64_t>(predecessor) * stride + column]);
      do {
        status = word.load(::cuda::memory_order_relaxed);
      } while (status < lookback_tile_count);
    }
    const unsigned inclusive = warp::ballot(status >= lookback_inclusive);
    // Lanes up to the nearest inclusive predecessor (the lowest such lane) count; all of them when none.
    const unsigned last = inclusive != 0 ? static_cast<unsigned>(warp::ffs(inclusive) - 1) : warp::size - 1;
    std::uint64_t contribution = lane <= last ? (status & lookback_value_mask) : 0;
    for (int offset = warp::size / 2; offset > 0; offset /= 2) { contribution += warp::shfl_xor(contribution, offset); }
    earlier += contribution;
    if (inclusive != 0) { return earlier; }
  }
}

/// One of three 64-bit values by a bucket id below 3, without indexing a local array.
__device__ __forceinline__ std::uint64_t of_bucket(std::uint32_t bucket, std::uint64_t b0, std::uint64_t b1,
                                                   std::uint64_t b2)
{
  return bucket == 0 ? b0 : (bucket == 1 ? b1 : b2);
}

/// Pass 2: one tile of multisplit_tile_keys keys per block, tiles in input order from `next_tile`.
/// `counters` are pass 1's (buckets 0 .. 2, then ids outside [0, m)); `lookback` holds tile_count x
/// (m - 1) zeroed words; `next_tile` is a zeroed counter. Writes nothing when pass 1 counted ids
/// outside [0, m). m <= partition_max_buckets. Value = void for keys only.
template <class Key, class Value, class Identifier>
__global__ void __launch_bounds__(multisplit_block_threads)
    multisplit_partition_kernel(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out,
                                std::uint64_t n, Identifier identifier, const unsigned long long* counters,
                                std::uint64_t* lookback, std::uint32_t* next_tile)
{
  constexpr bool with_values = !std::is_void_v<Value>;
  using value_word = std::conditional_t<with_values, Value, std::uint32_t>;
  using block_id = block_identifier<Identifier>;
  constexpr std::uint32_t no_key = partition_max_buckets;  // the 2-bit id of lanes past the end
  static_assert(multisplit_items_per_thread * 2 <= 32, "a thread's 2-bit bucket ids fit in one word");
  struct shared_storage {
    typename block_id::storage identifier;
    std::uint32_t warp_counts[multisplit_warps][partition_max_buckets];
    std::uint64_t earlier[partition_max_buckets - 1];  // keys of buckets 0 .. m-2 in earlier tiles
    std::uint32_t tile;
  };
  __shared__ shared_storage shared;

  if (counters[partition_bad_ids] != 0) { return; }  // the host throws; the outputs stay untouched
  if (threadIdx.x == 0) { shared.tile = atomicAdd(next_tile, 1U); }
  const Identifier local = block_id::load(identifier, shared.identifier);
  __syncthreads();
  const std::uint32_t tile = shared.tile;
  const std::uint32_t m = identifier.bucket_count();
  const std::uint32_t tracked = m - 1;  // buckets that need the look-back

  // Warp-striped: item i of lane l is key warp_begin + 32 i + l, so (warp, item, lane) is input order.
  const std::uint64_t tile_begin = static_cast<std::uint64_t>(tile) * multisplit_tile_keys;
  const unsigned warp_index = warp::warp_in_block();
  const unsigned lane = warp::lane_id();
  const std::uint64_t warp_begin = tile_begin + warp_index * (multisplit_items_per_thread * warp::size);
  Key keys[multisplit_items_per_thread];
  value_word values[multisplit_items_per_thread];
  std::uint32_t buckets[multisplit_items_per_thread];
  load_warp_striped_tile<with_values>(keys_in, values_in, n, warp_begin, lane, local, no_key, keys, values, buckets);

  // The warp's count of each bucket; the ids, 2 bits per item, kept for the second walk.
  std::uint32_t bucket_bits = 0;
  std::uint32_t warp_count[partition_max_buckets] = {};
#pragma unroll
  for (int item = 0; item < multisplit_items_per_thread; ++item) {
    bucket_bits |= buckets[item] << (2 * item);
#pragma unroll
    for (std::uint32_t b = 0; b < partition_max_buckets; ++b) {
      warp_count[b] += warp::popc(warp::ballot(buckets[item] == b));
    }
  }
  if (lane == 0) {
#pragma unroll
    for (std::uint32_t b = 0; b < partition_max_buckets; ++b) { shared.warp_counts[warp_index][b] = warp_count[b]; }
  }
  __syncthreads();

  // Keys of each bucket in the warps before this one, and in the whole tile.
  std::uint32_t warp_first[partition_max_buckets] = {};
  std::uint32_t tile_count[partition_max_buckets] = {};
  for (unsigned w = 0; w < multisplit_warps; ++w) {
#pragma unroll
    for (std::uint32_t b = 0; b < partition_max_buckets; ++b) {
      const std::uint32_t count = shared.warp_counts[w][b];
      tile_count[b] += count;
      warp_first[b] += w < warp_index ? count : 0U;
    }
  }

  // Warp b (b < m - 1) publishes the tile's count of bucket b, looks back, publishes the inclusive count.
  if (warp_index < tracked) {
    const std::uint32_t own = warp_index == 0 ? tile_count[0] : tile_count[1];
    ::cuda::atomic_ref<std::uint64_t, ::cuda::thread_scope_device> word(
        lookback[static_cast<std::uint64_t>(tile) * tracked + warp_index]);
    std::uint64_t earlier = 0;
    if (tile == 0) {
      if (lane == 0) { word.store(lookback_inclusive | own, ::cuda::memory_order_relaxed); }
    } else {
      if (lane == 0) { word.store(lookback_tile_count | own, ::cuda::memory_order_relaxed); }
      earlier = look_back_warp(lookback, tracked, warp_index, tile);
      if (lane == 0) { word.store(lookback_inclusive | (earlier + own), ::cuda::memory_order_relaxed); }
    }
    if (lane == 0) { shared.earlier[warp_index] = earlier; }
  }
  __syncthreads();

  // First output slot of this warp's keys of each bucket: the bucket's start (the totals of the buckets
  // before it) + its keys in earlier tiles + its keys in earlier warps of this tile.
  const std::uint64_t earlier0 = tracked >= 1 ? shared.earlier[0] : 0;
  const std::uint64_t earlier1 = tracked >= 2 ? shared.earlier[1] : 0;
  const std::uint64_t earlier_last = tile_begin - earlier0 - earlier1;  // the last bucket's, without look-back
  const std::uint64_t total0 = counters[0];
  std::uint64_t next0 = (m == 1 ? earlier_last : earlier0) + warp_first[0];
  std::uint64_t next1 = total0 + (m == 2 ? earlier_last : earlier1) + warp_first[1];
  std::uint64_t next2 = total0 + counters[1] + earlier_last + warp_first[2];

#pragma unroll
  for (int item = 0; item < multisplit_items_per_thread; ++item) {
    const std::uint32_t bucket = (bucket_bits >> (2 * item)) & 3U;
    const unsigned in0 = warp::ballot(bucket == 0);
    const unsigned in1 = warp::ballot(bucket == 1);
    const unsigned in2 = warp::ballot(bucket == 2);
    if (bucket != no_key) {
      const unsigned peers = bucket == 0 ? in0 : (bucket == 1 ? in1 : in2);
      const std::uint64_t slot =
          of_bucket(bucket, next0, next1, next2) + static_cast<std::uint64_t>(warp::rank_in(peers));
      keys_out[slot] = keys[item];
      if constexpr (with_values) { values_out[slot] = values[item]; }
    }
    next0 += static_cast<std::uint64_t>(warp::popc(in0));
    next1 += static_cast<std::uint64_t>(warp::popc(in1));
    next2 += static_cast<std::uint64_t>(warp::popc(in2));
  }
}

}  // namespace warpdex::detail
