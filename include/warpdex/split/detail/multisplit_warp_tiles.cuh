#pragma once
// The warp-tile kernels of the cuda multisplit for m <= 32 buckets (`multisplit_algorithm::warp_tiles`),
// the paper's warp-level multisplit: every warp owns a tile of warp_tiles_tile_keys keys, and nothing
// waits on another warp.
// 1. count: a grid of one wave strides over the tiles; a warp reads a tile in rounds of 512 keys with
//    16-byte loads and counts its buckets with ballots over the 5 id bits: lane b adds the population of
//    the lanes whose bits spell b. Lane b writes the tile's count of bucket b to the bucket-major
//    (bucket, tile) table; ids outside [0, m) are counted instead, one global add per block;
// 2. an exclusive scan of the table (CUB) gives every (bucket, tile) its first output slot;
// 3. scatter: one warp per tile, in rounds of 512 keys loaded warp-striped. The warp counts the round's
//    buckets with the same ballots, scans the counts across its lanes, and places every key in its own
//    shared-memory slice in bucket order (stable: (item, lane) is input order); then each bucket's run
//    goes out to consecutive addresses. Only __syncwarp between the steps.
// When pass 1 found an id outside [0, m), pass 3 writes nothing (it reads the count on the device).
// Traffic: 4 bytes per key read by pass 1, 8 by pass 3, plus 24 bytes per (bucket, tile) entry of the
// table (m / 2048 entries per key: 0.375 bytes per key at m = 32).

#include <warpdex/core/warp.cuh>
#include <warpdex/split/detail/counting.cuh>
#include <warpdex/split/detail/multisplit_kernels.cuh>

#include <cstdint>
#include <type_traits>

namespace warpdex::detail {

/// The most buckets of the warp tiles: one a lane.
inline constexpr std::uint32_t warp_tiles_max_buckets = warp::size;
/// Ballots per 32 keys: the id bits of 32 buckets.
inline constexpr int warp_tiles_id_bits = 5;
/// Keys a lane holds in a round, and a round's keys (one warp's share of a block tile).
inline constexpr int warp_tiles_items = multisplit_items_per_thread;
inline constexpr std::uint32_t warp_tiles_round_keys = warp_tiles_items * warp::size;
/// Rounds a tile: the table holds m entries per 2048 keys.
inline constexpr int warp_tiles_rounds = 4;
inline constexpr std::uint32_t warp_tiles_tile_keys = warp_tiles_round_keys * warp_tiles_rounds;
/// Threads of the scatter's blocks: four warps, so that the shared slices of 64-bit pairs stay under 48 KiB.
inline constexpr int warp_tiles_block_threads = 128;
inline constexpr int warp_tiles_block_warps = warp_tiles_block_threads / warp::size;

/// The ballots of a key's id bits over the warp (each lane passes its key's bucket).
struct bucket_ballots {
  unsigned valid = 0;  // lanes holding a key with an id below 32
  unsigned bits[warp_tiles_id_bits] = {};

  __device__ __forceinline__ explicit bucket_ballots(std::uint32_t bucket, bool valid_key)
  {
    valid = warp::ballot(valid_key);
#pragma unroll
    for (int k = 0; k < warp_tiles_id_bits; ++k) { bits[k] = warp::ballot(((bucket >> k) & 1U) != 0); }
  }
  /// The lanes whose key is in bucket b (b < 32).
  [[nodiscard]] __device__ __forceinline__ unsigned lanes_of(std::uint32_t b) const
  {
    unsigned lanes = valid;
#pragma unroll
    for (int k = 0; k < warp_tiles_id_bits; ++k) { lanes &= ((b >> k) & 1U) != 0 ? bits[k] : ~bits[k]; }
    return lanes;
  }
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
  __shared__ unsigned long long block_bad;
  if (threadIdx.x == 0) { block_bad = 0; }
  const Identifier local = block_id::load(identifier, identifier_storage);
  __syncthreads();

  static_assert(warp_tiles_round_keys * sizeof(Key) % (vector_load_bytes * warp::size) == 0,
                "a round is whole 16-byte loads of every lane");
  constexpr int per_load = vector_load_bytes / sizeof(Key);
  constexpr int loads = warp_tiles_round_keys / (per_load * warp::size);  // per lane and round
  struct alignas(vector_load_bytes) group {
    Key elements[per_load];
  };
  const std::uint32_t m = identifier.bucket_count();
  const unsigned lane = warp::lane_id();
  const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * multisplit_warps;
  const bool vectorized = reinterpret_cast<std::uintptr_t>(keys) % vector_load_bytes == 0;
  std::uint32_t bad = 0;
  for (std::uint64_t tile = static_cast<std::uint64_t>(blockIdx.x) * multisplit_warps + warp::warp_in_block();
       tile < tile_count; tile += warps) {
    std::uint32_t count = 0;  // lane b: keys of bucket b in the tile
    // Every lane of the warp visits together (the ballots): `present` is false past the end.
    const auto visit = [&](Key key, bool present) {
      const std::uint32_t bucket = present ? local(key) : 0U;
      const bool counted = present && bucket < m;
      bad += present && !counted ? 1U : 0U;
      count += static_cast<std::uint32_t>(warp::popc(bucket_ballots(bucket, counted).lanes_of(lane)));
    };
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
          for (int k = 0; k < per_load; ++k) { visit(loaded[u].elements[k], true); }
        }
      } else {  // the last round, or keys off the 16-byte boundary
#pragma unroll
        for (int item = 0; item < warp_tiles_items; ++item) {
          const std::uint64_t index = begin + item * warp::size + lane;
          visit(index < n ? keys[index] : Key{}, index < n);
        }
      }
    }
    if (lane < m) { counts[lane * tile_count + tile] = count; }
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
  struct warp_slice {  // one round of a warp, in bucket order
    Key keys[warp_tiles_round_keys];
    value_word values[with_values ? warp_tiles_round_keys : 1];
    std::uint8_t buckets[warp_tiles_round_keys];
  };
  __shared__ typename block_id::storage identifier_storage;
  __shared__ warp_slice slices[warp_tiles_block_warps];
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
  warp_slice& slice = slices[warp_index];
  std::uint64_t slot = lane < m ? first_slots[lane * tile_count + tile] : 0;  // lane b: bucket b's next slot
  constexpr std::uint32_t no_key = warp_tiles_max_buckets;
  for (int round = 0; round < warp_tiles_rounds; ++round) {
    const std::uint64_t begin = tile * warp_tiles_tile_keys + round * warp_tiles_round_keys;
    if (begin >= n) { break; }  // the same for the whole warp
    Key keys[warp_tiles_items];
    value_word values[warp_tiles_items];
    std::uint32_t buckets[warp_tiles_items];
    load_warp_striped_tile<with_values>(keys_in, values_in, n, begin, lane, local, no_key, keys, values, buckets);

    // Lane b: the round's keys of bucket b, then where they start in the slice.
    std::uint32_t count = 0;
#pragma unroll
    for (int item = 0; item < warp_tiles_items; ++item) {
      const bucket_ballots ballots(buckets[item], buckets[item] != no_key);
      count += static_cast<std::uint32_t>(warp::popc(ballots.lanes_of(lane)));
    }
    std::uint32_t start = count;
    for (int offset = 1; offset < warp::size; offset *= 2) {
      const std::uint32_t before = warp::shfl_up(start, offset);
      if (lane >= static_cast<unsigned>(offset)) { start += before; }
    }
    start -= count;  // exclusive
    const std::uint32_t round_keys = warp::shfl(start + count, warp::size - 1);

    // Every key to its place in the slice: its bucket's start, its peers in earlier items, its lower
    // peers in this item.
    std::uint32_t next = start;  // lane b: bucket b's next place
#pragma unroll
    for (int item = 0; item < warp_tiles_items; ++item) {
      const std::uint32_t bucket = buckets[item];
      const bool present = bucket != no_key;
      const bucket_ballots ballots(bucket, present);
      const std::uint32_t first = warp::shfl(next, static_cast<int>(present ? bucket : 0U));
      if (present) {
        const unsigned peers = ballots.lanes_of(bucket);
        const std::uint32_t place = first + static_cast<std::uint32_t>(warp::popc(peers & warp::lanemask_lt()));
        slice.keys[place] = keys[item];
        if constexpr (with_values) { slice.values[place] = values[item]; }
        slice.buckets[place] = static_cast<std::uint8_t>(bucket);
      }
      next += static_cast<std::uint32_t>(warp::popc(ballots.lanes_of(lane)));
    }
    __syncwarp();

    // Place p of bucket b goes to slot_b + (p - start_b): a bucket's run to consecutive addresses.
    const std::uint64_t base = slot - start;  // modulo 2^64: base + p is the slot
#pragma unroll
    for (int item = 0; item < warp_tiles_items; ++item) {
      const std::uint32_t place = item * warp::size + lane;
      const bool present = place < round_keys;
      const std::uint32_t bucket = present ? slice.buckets[place] : 0U;
      const std::uint64_t to = warp::shfl(base, static_cast<int>(bucket)) + place;
      if (present) {
        keys_out[to] = slice.keys[place];
        if constexpr (with_values) { values_out[to] = slice.values[place]; }
      }
    }
    slot += count;
    __syncwarp();  // the slice is read before the next round writes it
  }
}

}  // namespace warpdex::detail
