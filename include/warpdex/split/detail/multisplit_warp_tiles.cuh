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
// 3. scatter: one warp per tile. Lane b scans the tile's counts of pass 1 into the buckets' first places
//    in the tile; then, in rounds of 512 keys loaded warp-striped (so (round, item, lane) is input
//    order), one __match_any_sync per 32 keys groups the lanes by bucket, each group's lowest lane takes
//    the group's places from its bucket's next place in shared memory, and every key goes to its place
//    in the warp's shared copy of the tile. The whole tile then goes out in bucket order, each bucket's
//    run to consecutive addresses. Only __syncwarp between the steps.
// When pass 1 found an id outside [0, m), pass 3 writes nothing (it reads the count on the device).
// Traffic: 4 bytes per key read by pass 1, 8 by pass 3, plus 28 bytes per (bucket, tile) entry of the
// table (m / 2048 entries per key: 0.44 bytes per key at m = 32).
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
  const typename block_id::type local = block_id::load(identifier, identifier_storage);
  __syncthreads();

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
      visit_warp_round<warp_tiles_round_keys>(keys, n, begin, lane, vectorized, visit);
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

/// The scatter's shared memory per warp: the whole tile in bucket order (keys, values, and the bucket ids
/// where the identifier is not arithmetic), and per bucket its next place in the tile and the output slot
/// of place 0.
template <class Key, class ValueWord, bool WithValues, bool WithBuckets>
struct warp_tile_storage {
  Key keys[warp_tiles_tile_keys];
  ValueWord values[WithValues ? warp_tiles_tile_keys : 1];
  std::uint64_t base[warp_tiles_max_buckets];    // output slot of place p of bucket b: base[b] + p
  std::uint32_t places[warp_tiles_max_buckets];  // bucket b's next place in the tile
  std::uint8_t buckets[WithBuckets ? warp_tiles_tile_keys : 1];
};

/// The scatter's block: as many warps (up to four) as fit 40 KiB of static shared memory: with stored
/// bucket ids, three warp tiles of 32-bit keys (10.4 KiB each), two of 32-bit pairs or 64-bit keys, one
/// of 64-bit pairs; with arithmetic identifiers (ids recomputed), four of 32-bit keys.
template <class Key, class Value, class Identifier>
struct warp_tiles_scatter_shape {
  using value_word = std::conditional_t<std::is_void_v<Value>, std::uint32_t, Value>;
  /// The write-out takes a key's bucket from the key where that costs a few arithmetic instructions, not
  /// a store and a load of a byte in shared memory, whose pipe bounds the scatter (Nsight Compute).
  static constexpr bool recomputes_buckets = arithmetic_identifier<Identifier>;
  using storage = warp_tile_storage<Key, value_word, !std::is_void_v<Value>, !recomputes_buckets>;
  static constexpr int shared_budget = 40 * 1024;
  static constexpr int fitting = static_cast<int>(shared_budget / sizeof(storage));
  static constexpr int block_warps = fitting < 1 ? 1 : (fitting > 4 ? 4 : fitting);
  static constexpr int block_threads = block_warps * warp::size;
};

/// Pass 3: one tile per warp. counts[b * tile_count + t] is pass 1's count of bucket b in tile t and
/// first_slots[b * tile_count + t] its scan: the output slot of that tile's first key of bucket b. Block
/// 0 writes the results (offsets[0 .. m], *bad_out). Writes no key when pass 1 counted ids outside
/// [0, m). m <= warp_tiles_max_buckets. Value = void for keys only.
/// The tile's counts, known from pass 1, give each bucket its place in the tile before the first key is
/// read, so every round puts its keys straight into the tile's shared buffer in bucket order, and the
/// tile goes out once: bucket b's run is the tile's 2048 m-th part (64 keys at m = 32), where writing
/// each round of 512 keys apart gave runs a quarter as long (measured: docs/split.md).
template <class Key, class Value, class Identifier>
__global__ void __launch_bounds__(warp_tiles_scatter_shape<Key, Value, Identifier>::block_threads)
    multisplit_warp_tiles_kernel(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out,
                                 std::uint64_t n, Identifier identifier, std::uint64_t tile_count,
                                 const std::uint32_t* counts, const std::uint64_t* first_slots,
                                 const unsigned long long* bad_ids, std::uint64_t* offsets, std::uint64_t* bad_out)
{
  constexpr bool with_values = !std::is_void_v<Value>;
  using shape = warp_tiles_scatter_shape<Key, Value, Identifier>;
  using value_word = typename shape::value_word;
  using block_id = block_identifier<Identifier>;
  constexpr int items = warp_tiles_items;
  constexpr std::uint32_t no_key = warp_tiles_max_buckets;  // the id of lanes past the end
  __shared__ typename block_id::storage identifier_storage;
  __shared__ typename shape::storage warps[shape::block_warps];
  const typename block_id::type local = block_id::load(identifier, identifier_storage);
  __syncthreads();
  const std::uint32_t m = identifier.bucket_count();
  if (blockIdx.x == 0) {  // a block may have fewer threads than m + 1 offsets
    for (std::uint32_t b = threadIdx.x; b <= m; b += shape::block_threads) {
      offsets[b] = b == m ? n : first_slots[b * tile_count];
    }
    if (threadIdx.x == 0) { *bad_out = static_cast<std::uint64_t>(*bad_ids); }
  }
  const unsigned warp_index = threadIdx.x / warp::size;
  const std::uint64_t tile = static_cast<std::uint64_t>(blockIdx.x) * shape::block_warps + warp_index;
  if (*bad_ids != 0 || tile >= tile_count) { return; }  // with bad ids the outputs stay untouched

  const unsigned lane = warp::lane_id();
  auto& shared = warps[warp_index];
  const std::uint64_t tile_begin = tile * warp_tiles_tile_keys;
  const auto tile_size =
      static_cast<std::uint32_t>(n - tile_begin < warp_tiles_tile_keys ? n - tile_begin : warp_tiles_tile_keys);
  // Lane b: bucket b's first place in the tile (the scan of the tile's counts) and its output slot.
  const std::uint32_t count = lane < m ? counts[lane * tile_count + tile] : 0U;
  std::uint32_t start = count;
  for (int offset = 1; offset < warp::size; offset *= 2) {
    const std::uint32_t before = warp::shfl_up(start, static_cast<unsigned>(offset));
    if (lane >= static_cast<unsigned>(offset)) { start += before; }
  }
  start -= count;  // exclusive
  if (lane < m) {
    shared.places[lane] = start;
    shared.base[lane] = first_slots[lane * tile_count + tile] - start;  // modulo 2^64: base + place is the slot
  }
  __syncwarp();

  for (int round = 0; round < warp_tiles_rounds; ++round) {
    const std::uint64_t begin = tile_begin + round * warp_tiles_round_keys;
    if (begin >= n) { break; }  // the same for the whole warp
    // Warp-striped: item i of lane l is key begin + 32 i + l, so (round, item, lane) is input order.
    Key keys[items];
    value_word values[items];
    std::uint32_t buckets[items];
    load_warp_striped_tile<with_values>(keys_in, values_in, n, begin, lane, local, no_key, keys, values, buckets);
    // Each key's place: the lanes with its bucket (one match) elect their lowest lane, which takes their
    // number of places from the bucket's next place (a shared atomic: no two leaders share a bucket) and
    // hands the first to the others.
#pragma unroll
    for (int item = 0; item < items; ++item) {
      const std::uint32_t bucket = buckets[item];
      const unsigned peers = warp::match_any(bucket);
      const int leader = warp::ffs(peers) - 1;
      std::uint32_t first = 0;
      if (bucket != no_key && static_cast<int>(lane) == leader) {
        first = atomicAdd(&shared.places[bucket], static_cast<std::uint32_t>(warp::popc(peers)));
      }
      const std::uint32_t place = warp::shfl(first, leader) + static_cast<std::uint32_t>(warp::rank_in(peers));
      if (bucket != no_key) {
        shared.keys[place] = keys[item];
        if constexpr (with_values) { shared.values[place] = values[item]; }
        if constexpr (!shape::recomputes_buckets) { shared.buckets[place] = static_cast<std::uint8_t>(bucket); }
      }
    }
  }
  __syncwarp();
  // Place p of bucket b goes to base[b] + p: each bucket's run of the tile to consecutive addresses.
  for (std::uint32_t place = lane; place < tile_size; place += warp::size) {
    const Key key = shared.keys[place];
    std::uint32_t bucket = 0;
    if constexpr (shape::recomputes_buckets) {
      bucket = local(key);
    } else {
      bucket = shared.buckets[place];
    }
    const std::uint64_t to = shared.base[bucket] + place;
    keys_out[to] = key;
    if constexpr (with_values) { values_out[to] = shared.values[place]; }
  }
}

}  // namespace warpdex::detail
