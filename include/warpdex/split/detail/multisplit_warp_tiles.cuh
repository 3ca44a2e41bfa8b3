#pragma once
// The warp-tile kernels of the cuda multisplit for m <= 32 buckets (`multisplit_algorithm::warp_tiles`),
// after the paper's warp-level multisplit: every warp owns a tile of warp_tiles_tile_keys keys, and
// nothing waits on another warp.
// 1. count: a grid of one wave strides over the tiles; a warp reads a tile in rounds of 512 keys with
//    16-byte loads, and each lane counts its keys' buckets in its own column of a (bucket, lane) table
//    in shared memory (no two lanes share a counter or a bank: no atomics, no conflicts). Lane b sums row b and writes
//    the tile's count of bucket b to the bucket-major (bucket, tile) table in global memory; ids outside [0, m) are
//    counted instead, one global add per block;
// 2. an exclusive scan of that table (CUB) gives every (bucket, tile) its first output slot;
// 3. scatter: one warp per tile, in rounds of 512 keys loaded warp-striped (so (item, lane) is input
//    order). Per 32 keys one __match_any_sync groups the lanes by bucket; each group's lowest lane adds
//    the group to its bucket's count in shared memory and hands the count before it to the group, so
//    every key gets its rank within its bucket. Lane b scans the counts into the buckets' starts, the
//    warp places its keys in shared memory in bucket order, then each bucket's run goes out to
//    consecutive addresses. Only __syncwarp between the steps.
// When pass 1 found an id outside [0, m), pass 3 writes nothing (it reads the count on the device).
// Traffic: 4 bytes per key read by pass 1, 8 by pass 3, plus 24 bytes per (bucket, tile) entry of the
// table (m / 2048 entries per key: 0.375 bytes per key at m = 32).
// Measured first (docs/split.md): ballots over the 5 id bits (the paper's ranking) ran both kernels at
// the SM's issue limit; per-lane columns of counters made the scatter walk a 32 x 32 table every round.

#include <warpdex/core/warp.cuh>
#include <warpdex/split/detail/counting.cuh>
#include <warpdex/split/detail/multisplit_kernels.cuh>

#include <cstdint>
#include <type_traits>

namespace warpdex::detail {

/// The most buckets of the warp tiles: one a lane.
inline constexpr std::uint32_t warp_tiles_max_buckets = warp::size;
/// Keys a lane holds in a round, and a round's keys.
inline constexpr int warp_tiles_items = multisplit_items_per_thread;
inline constexpr std::uint32_t warp_tiles_round_keys = warp_tiles_items * warp::size;
/// Rounds a tile: the table holds m entries per 2048 keys.
inline constexpr int warp_tiles_rounds = 4;
inline constexpr std::uint32_t warp_tiles_tile_keys = warp_tiles_round_keys * warp_tiles_rounds;
/// Threads of the scatter's blocks: four warps, so that the shared slices of 64-bit pairs stay under 48 KiB.
inline constexpr int warp_tiles_block_threads = 128;
inline constexpr int warp_tiles_block_warps = warp_tiles_block_threads / warp::size;

/// A warp's (bucket, lane) counters in shared memory: row b holds bucket b, column l lane l's count, in
/// bank l, so that the lanes' counting never conflicts. A lane that walks a row (lane b, row b) starts
/// at column b and wraps around: all lanes at once touch 32 different banks.
struct lane_counters {
  std::uint32_t words[warp_tiles_max_buckets * warp::size];

  __device__ __forceinline__ std::uint32_t& at(std::uint32_t bucket, unsigned lane)
  {
    return words[bucket * warp::size + lane];
  }
  /// The column lane b reads at step k of its walk over row b.
  __device__ static __forceinline__ unsigned walk(unsigned lane, unsigned step) { return (lane + step) % warp::size; }
};

/// Pass 1: counts[b * tile_count + t] = keys of bucket b (b < m) in tile t; *bad_ids += ids outside
/// [0, m). Grid-stride over the tiles; launch with one wave of blocks.
template <class Key, class Identifier>
__global__ void __launch_bounds__(multisplit_block_threads)
    multisplit_warp_tiles_count_kernel(const Key* keys, std::uint64_t n, Identifier identifier,
                                       std::uint64_t tile_count, std::uint32_t* counts, unsigned long long* bad_ids)
{
  using block_id = block_identifier<Identifier>;
  __shared__ typename block_id::storage identifier_storage;
  __shared__ lane_counters warp_counters[multisplit_warps];
  __shared__ unsigned long long block_bad;
  if (threadIdx.x == 0) { block_bad = 0; }
  const std::uint32_t m = identifier.bucket_count();
  const unsigned lane = warp::lane_id();
  lane_counters& counters = warp_counters[warp::warp_in_block()];
  for (std::uint32_t b = 0; b < m; ++b) { counters.at(b, lane) = 0; }  // each lane its column
  const Identifier local = block_id::load(identifier, identifier_storage);
  __syncthreads();

  static_assert(warp_tiles_round_keys * sizeof(Key) % (vector_load_bytes * warp::size) == 0,
                "a round is whole 16-byte loads of every lane");
  constexpr int per_load = vector_load_bytes / sizeof(Key);
  constexpr int loads = warp_tiles_round_keys / (per_load * warp::size);  // per lane and round
  struct alignas(vector_load_bytes) group {
    Key elements[per_load];
  };
  const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * multisplit_warps;
  const bool vectorized = reinterpret_cast<std::uintptr_t>(keys) % vector_load_bytes == 0;
  std::uint32_t bad = 0;
  const auto visit = [&](Key key) {
    const std::uint32_t bucket = local(key);
    if (bucket < m) {
      ++counters.at(bucket, lane);
    } else {
      ++bad;
    }
  };
  for (std::uint64_t tile = static_cast<std::uint64_t>(blockIdx.x) * multisplit_warps + warp::warp_in_block();
       tile < tile_count; tile += warps) {
    for (int round = 0; round < warp_tiles_rounds; ++round) {
      const std::uint64_t begin = tile * warp_tiles_tile_keys + round * warp_tiles_round_keys;
      if (begin >= n) { break; }  // the same for the whole warp
      if (vectorized && begin + warp_tiles_round_keys <= n) {
        // All of a lane's loads issued before any key is visited: loads x 16 bytes in flight a lane.
        const auto* groups = reinterpret_cast<const group*>(keys + begin);
        group loaded[loads];
#pragma unroll
        for (int u = 0; u < loads; ++u) { loaded[u] = groups[u * warp::size + lane]; }
#pragma unroll
        for (int u = 0; u < loads; ++u) {
#pragma unroll
          for (int k = 0; k < per_load; ++k) { visit(loaded[u].elements[k]); }
        }
      } else {  // the last round, or keys off the 16-byte boundary
#pragma unroll
        for (int item = 0; item < warp_tiles_items; ++item) {
          const std::uint64_t index = begin + item * warp::size + lane;
          if (index < n) { visit(keys[index]); }
        }
      }
    }
    __syncwarp();
    if (lane < m) {  // lane b: the tile's keys of bucket b, then row b zeroed for the next tile
      std::uint32_t count = 0;
#pragma unroll 4
      for (unsigned step = 0; step < warp::size; ++step) {
        std::uint32_t& counter = counters.at(lane, lane_counters::walk(lane, step));
        count += counter;
        counter = 0;
      }
      counts[lane * tile_count + tile] = count;
    }
    __syncwarp();
  }
  for (int offset = warp::size / 2; offset > 0; offset /= 2) { bad += warp::shfl_xor(bad, offset); }
  if (lane == 0 && bad != 0) { atomicAdd(&block_bad, static_cast<unsigned long long>(bad)); }
  __syncthreads();
  if (threadIdx.x == 0 && block_bad != 0) { atomicAdd(bad_ids, block_bad); }
}

/// Pass 3: one tile per warp. first_slots[b * tile_count + t] is the output slot of the first key of
/// bucket b in tile t (the scanned table of pass 1). Block 0 writes the results (offsets[0 .. m],
/// *bad_out). Writes no key when pass 1 counted ids outside [0, m). m <= warp_tiles_max_buckets.
/// Value = void for keys only.
template <class Key, class Value, class Identifier>
__global__ void __launch_bounds__(warp_tiles_block_threads)
    multisplit_warp_tiles_kernel(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out,
                                 std::uint64_t n, Identifier identifier, std::uint64_t tile_count,
                                 const std::uint64_t* first_slots, const unsigned long long* bad_ids,
                                 std::uint64_t* offsets, std::uint64_t* bad_out)
{
  constexpr bool with_values = !std::is_void_v<Value>;
  using value_word = std::conditional_t<with_values, Value, std::uint32_t>;
  using block_id = block_identifier<Identifier>;
  constexpr int items = warp_tiles_items;
  constexpr std::uint32_t no_key = warp_tiles_max_buckets;  // the id of lanes past the end
  struct warp_storage {
    Key keys[warp_tiles_round_keys];  // the round in bucket order
    value_word values[with_values ? warp_tiles_round_keys : 1];
    std::uint8_t buckets[warp_tiles_round_keys];
    std::uint32_t counts[warp_tiles_max_buckets];  // bucket b's keys so far in the round, then its start
    std::uint64_t base[warp_tiles_max_buckets];    // output slot of place p of bucket b: base[b] + p
  };
  __shared__ typename block_id::storage identifier_storage;
  __shared__ warp_storage warps[warp_tiles_block_warps];
  const Identifier local = block_id::load(identifier, identifier_storage);
  __syncthreads();
  const std::uint32_t m = identifier.bucket_count();
  if (blockIdx.x == 0 && threadIdx.x <= m) {
    offsets[threadIdx.x] = threadIdx.x == m ? n : first_slots[threadIdx.x * tile_count];
    if (threadIdx.x == 0) { *bad_out = static_cast<std::uint64_t>(*bad_ids); }
  }
  const unsigned warp_index = threadIdx.x / warp::size;
  const std::uint64_t tile = static_cast<std::uint64_t>(blockIdx.x) * warp_tiles_block_warps + warp_index;
  if (*bad_ids != 0 || tile >= tile_count) { return; }  // with bad ids the outputs stay untouched

  const unsigned lane = warp::lane_id();
  warp_storage& shared = warps[warp_index];
  std::uint64_t slot = lane < m ? first_slots[lane * tile_count + tile] : 0;  // lane b: bucket b's next slot
  for (int round = 0; round < warp_tiles_rounds; ++round) {
    const std::uint64_t begin = tile * warp_tiles_tile_keys + round * warp_tiles_round_keys;
    if (begin >= n) { break; }  // the same for the whole warp
    const auto round_keys =
        static_cast<std::uint32_t>(n - begin < warp_tiles_round_keys ? n - begin : warp_tiles_round_keys);
    shared.counts[lane] = 0;
    // Warp-striped: item i of lane l is key begin + 32 i + l, so (item, lane) is input order.
    Key keys[items];
    value_word values[items];
    std::uint32_t buckets[items];
    load_warp_striped_tile<with_values>(keys_in, values_in, n, begin, lane, local, no_key, keys, values, buckets);
    __syncwarp();

    // Each key's rank in its bucket within the round: the lanes with its bucket (one match) elect their
    // lowest lane, which adds their number to the bucket's count (a shared atomic: no two leaders share
    // a bucket) and hands the count before it to the others.
    // Each id becomes bucket << 16 | rank (the round's ranks are below 512): one register an item.
#pragma unroll
    for (int item = 0; item < items; ++item) {
      const std::uint32_t bucket = buckets[item];
      const unsigned peers = warp::match_any(bucket);
      const int leader = warp::ffs(peers) - 1;
      std::uint32_t before = 0;
      if (bucket != no_key && static_cast<int>(lane) == leader) {
        before = atomicAdd(&shared.counts[bucket], static_cast<std::uint32_t>(warp::popc(peers)));
      }
      buckets[item] = bucket << 16 | (warp::shfl(before, leader) + static_cast<std::uint32_t>(warp::rank_in(peers)));
    }
    __syncwarp();
    // Lane b: the round's keys of bucket b, scanned into the buckets' starts.
    const std::uint32_t total = lane < m ? shared.counts[lane] : 0U;
    std::uint32_t start = total;
    for (int offset = 1; offset < warp::size; offset *= 2) {
      const std::uint32_t before = warp::shfl_up(start, static_cast<unsigned>(offset));
      if (lane >= static_cast<unsigned>(offset)) { start += before; }
    }
    start -= total;  // exclusive
    __syncwarp();
    if (lane < m) {
      shared.counts[lane] = start;
      shared.base[lane] = slot - start;  // modulo 2^64: base + place is the slot
    }
    __syncwarp();
#pragma unroll
    for (int item = 0; item < items; ++item) {
      const std::uint32_t bucket = buckets[item] >> 16;
      if (bucket != no_key) {
        const std::uint32_t place = shared.counts[bucket] + (buckets[item] & 0xffffU);
        shared.keys[place] = keys[item];
        if constexpr (with_values) { shared.values[place] = values[item]; }
        shared.buckets[place] = static_cast<std::uint8_t>(bucket);
      }
    }
    __syncwarp();
    // Place p of bucket b goes to base[b] + p: a bucket's run to consecutive addresses.
#pragma unroll
    for (int item = 0; item < items; ++item) {
      const std::uint32_t place = item * warp::size + lane;
      if (place < round_keys) {
        const std::uint64_t to = shared.base[shared.buckets[place]] + place;
        keys_out[to] = shared.keys[place];
        if constexpr (with_values) { values_out[to] = shared.values[place]; }
      }
    }
    slot += total;
    __syncwarp();  // the shared round is read before the next round writes it
  }
}

}  // namespace warpdex::detail
