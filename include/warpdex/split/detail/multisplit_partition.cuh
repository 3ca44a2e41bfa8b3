#pragma once
// The partition kernels of the cuda multisplit for m <= 3 buckets (`multisplit_algorithm::partition`),
// over warp tiles of partition_tile_keys keys: no block-wide ranking, no barrier after the first, no
// look-back.
// 1. count: a grid of one wave strides over the warp tiles; each warp reads a tile with 16-byte loads
//    (several in flight per lane), sums its buckets' counts with one warp reduction of a packed word,
//    and writes a column of the bucket-major (bucket, tile) table; ids outside [0, m) are counted
//    instead, one global add per block;
// 2. an exclusive scan of that table (CUB) gives every (bucket, tile) its first output slot, column 0
//    the bucket offsets;
// 3. scatter: one warp per tile loads its keys warp-striped, ranks them with m ballots per 32 keys and
//    writes every key straight from its register to its slot. Every bucket is written forward, so the
//    split is stable; a store instruction writes at most m runs of consecutive addresses.
// When pass 1 found an id outside [0, m), pass 3 writes nothing (it reads the count on the device), so
// the host waits for nothing between the passes.
// Why no decoupled look-back: a block waiting at its barrier for the look-back over earlier tiles held
// the scatter at a third of the copy speed (docs/split.md); the table's scan costs two small launches.
// Traffic: 4 bytes per key read by pass 1, 8 by pass 3 (12 per key, 20 per pair with 32-bit values),
// plus 12 bytes per (bucket, tile) entry of the table (a count written and read, a slot written and read).

#include <warpdex/core/warp.cuh>
#include <warpdex/split/detail/counting.cuh>
#include <warpdex/split/detail/multisplit_kernels.cuh>

#include <cstdint>
#include <type_traits>

namespace warpdex::detail {

/// The most buckets of the partition kernels (a bucket id fits in 2 bits, with 3 for "no key").
inline constexpr std::uint32_t partition_max_buckets = 3;
/// One warp's tile: multisplit_items_per_thread keys a lane, 512 keys.
inline constexpr std::uint32_t partition_tile_keys = multisplit_items_per_thread * warp::size;
/// A tile's count of one bucket fits in this many bits of the packed word pass 1 reduces.
inline constexpr int partition_count_bits = 10;
static_assert(partition_tile_keys < (1U << partition_count_bits), "a tile's count fits its field");
static_assert(partition_max_buckets * partition_count_bits <= 32, "the counts of a tile fit one word");

/// The packed word of a key's bucket in pass 1: 1 in the field of its bucket, 0 for an id outside [0, m).
__device__ __forceinline__ std::uint32_t partition_count_word(std::uint32_t bucket, std::uint32_t m)
{
  return bucket < m ? 1U << (partition_count_bits * bucket) : 0U;
}

/// Pass 1: counts[b * tile_count + t] = keys of bucket b (b < m) in warp tile t; *bad_ids += ids
/// outside [0, m). Grid-stride over the tiles; launch with one wave of blocks.
template <class Key, class Identifier>
__global__ void __launch_bounds__(multisplit_block_threads)
    multisplit_partition_count_kernel(const Key* keys, std::uint64_t n, Identifier identifier, std::uint64_t tile_count,
                                      std::uint32_t* counts, unsigned long long* bad_ids)
{
  using block_id = block_identifier<Identifier>;
  __shared__ typename block_id::storage identifier_storage;
  __shared__ unsigned long long block_bad;
  if (threadIdx.x == 0) { block_bad = 0; }
  const typename block_id::type local = block_id::load(identifier, identifier_storage);
  __syncthreads();

  const std::uint32_t m = identifier.bucket_count();
  const unsigned lane = warp::lane_id();
  const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * multisplit_warps;
  const bool vectorized = reinterpret_cast<std::uintptr_t>(keys) % vector_load_bytes == 0;
  std::uint32_t bad = 0;
  for (std::uint64_t tile = static_cast<std::uint64_t>(blockIdx.x) * multisplit_warps + warp::warp_in_block();
       tile < tile_count; tile += warps) {
    const std::uint64_t begin = tile * partition_tile_keys;
    std::uint32_t packed = 0;
    const auto visit = [&](Key key) {
      const std::uint32_t bucket = local(key);
      packed += partition_count_word(bucket, m);
      bad += bucket < m ? 0U : 1U;
    };
    visit_warp_round<partition_tile_keys>(keys, n, begin, lane, vectorized, visit);
    for (int offset = warp::size / 2; offset > 0; offset /= 2) { packed += warp::shfl_xor(packed, offset); }
    if (lane < m) {
      counts[lane * tile_count + tile] = (packed >> (partition_count_bits * lane)) & ((1U << partition_count_bits) - 1);
    }
  }
  for (int offset = warp::size / 2; offset > 0; offset /= 2) { bad += warp::shfl_xor(bad, offset); }
  if (lane == 0 && bad != 0) { atomicAdd(&block_bad, static_cast<unsigned long long>(bad)); }
  __syncthreads();
  if (threadIdx.x == 0 && block_bad != 0) { atomicAdd(bad_ids, block_bad); }
}

/// One of three 64-bit values by a bucket id below 3, without indexing a local array.
__device__ __forceinline__ std::uint64_t of_bucket(std::uint32_t bucket, std::uint64_t b0, std::uint64_t b1,
                                                   std::uint64_t b2)
{
  return bucket == 0 ? b0 : (bucket == 1 ? b1 : b2);
}

/// Up to this many tiles (n <= 2^20) the scatter needs no scan: each of its blocks sums the table itself
/// (at most m x 2048 counts, read from L2), which costs less than the scan's two launches.
inline constexpr std::uint64_t partition_block_prefix_tiles = 2048;

/// The scatter's first slots of buckets 0 .. 2 for a warp's tile, summed by its block from pass 1's table
/// (tile_count <= partition_block_prefix_tiles): the buckets before b, plus bucket b's keys in the tiles
/// before the block's first, plus those in the tiles of the block before the warp's. `bucket_starts`
/// gets the start of every bucket. Call with the whole block.
__device__ inline void partition_block_prefix(const std::uint32_t* counts, std::uint64_t tile_count, std::uint32_t m,
                                              std::uint64_t tile, std::uint64_t (&first)[partition_max_buckets],
                                              std::uint64_t (&bucket_starts)[partition_max_buckets])
{
  constexpr int sums = 2 * partition_max_buckets;  // per bucket: every tile, then the tiles before the block
  __shared__ std::uint32_t warp_sums[multisplit_warps][sums];
  const std::uint64_t block_first = static_cast<std::uint64_t>(blockIdx.x) * multisplit_warps;
  std::uint32_t sum[sums] = {};
  for (std::uint64_t t = threadIdx.x; t < tile_count; t += blockDim.x) {
#pragma unroll
    for (std::uint32_t b = 0; b < partition_max_buckets; ++b) {
      const std::uint32_t count = b < m ? counts[b * tile_count + t] : 0U;
      sum[b] += count;
      sum[partition_max_buckets + b] += t < block_first ? count : 0U;
    }
  }
  const unsigned lane = warp::lane_id();
#pragma unroll
  for (int k = 0; k < sums; ++k) {
    for (int offset = warp::size / 2; offset > 0; offset /= 2) { sum[k] += warp::shfl_xor(sum[k], offset); }
  }
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < sums; ++k) { warp_sums[warp::warp_in_block()][k] = sum[k]; }
  }
  __syncthreads();
  std::uint64_t start = 0;
#pragma unroll
  for (std::uint32_t b = 0; b < partition_max_buckets; ++b) {
    std::uint64_t total = 0;
    std::uint64_t before_block = 0;
    for (int w = 0; w < multisplit_warps; ++w) {
      total += warp_sums[w][b];
      before_block += warp_sums[w][partition_max_buckets + b];
    }
    // The block's tiles before the warp's: at most multisplit_warps - 1 counts, one a lane.
    std::uint32_t in_block = 0;
    if (b < m && block_first + lane < tile && block_first + lane < tile_count) {
      in_block = counts[b * tile_count + block_first + lane];
    }
    for (int offset = warp::size / 2; offset > 0; offset /= 2) { in_block += warp::shfl_xor(in_block, offset); }
    bucket_starts[b] = start;
    first[b] = start + before_block + in_block;
    start += total;
  }
}

/// Pass 3: one warp tile per warp. first_slots[b * tile_count + t] is the output slot of the first key
/// of bucket b in tile t (the scanned table of pass 1), or null when tile_count <=
/// partition_block_prefix_tiles: each block then sums `counts` itself. Block 0 writes the results
/// (offsets[0 .. m], *bad_out). Writes no key when pass 1 counted ids outside [0, m).
/// m <= partition_max_buckets. Value = void for keys only.
template <class Key, class Value, class Identifier>
__global__ void __launch_bounds__(multisplit_block_threads)
    multisplit_partition_kernel(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out,
                                std::uint64_t n, Identifier identifier, std::uint64_t tile_count,
                                const std::uint32_t* counts, const std::uint64_t* first_slots,
                                const unsigned long long* bad_ids, std::uint64_t* offsets, std::uint64_t* bad_out)
{
  constexpr bool with_values = !std::is_void_v<Value>;
  using value_word = std::conditional_t<with_values, Value, std::uint32_t>;
  using block_id = block_identifier<Identifier>;
  constexpr std::uint32_t no_key = partition_max_buckets;  // the 2-bit id of lanes past the end
  static_assert(multisplit_items_per_thread * 2 <= 32, "a thread's 2-bit bucket ids fit in one word");
  __shared__ typename block_id::storage identifier_storage;
  const typename block_id::type local = block_id::load(identifier, identifier_storage);
  __syncthreads();
  const std::uint32_t m = identifier.bucket_count();
  const std::uint64_t tile = static_cast<std::uint64_t>(blockIdx.x) * multisplit_warps + warp::warp_in_block();

  std::uint64_t next[partition_max_buckets] = {};
  std::uint64_t bucket_starts[partition_max_buckets] = {};
  if (first_slots == nullptr) {
    partition_block_prefix(counts, tile_count, m, tile, next, bucket_starts);
  } else if (tile < tile_count) {
#pragma unroll
    for (std::uint32_t b = 0; b < partition_max_buckets; ++b) {
      next[b] = b < m ? first_slots[b * tile_count + tile] : 0;
    }
  }
  if (blockIdx.x == 0 && threadIdx.x <= m) {
    // The first tile's slot of each bucket is the bucket's start.
    offsets[threadIdx.x] = threadIdx.x == m ? n
                           : first_slots == nullptr
                               ? of_bucket(threadIdx.x, bucket_starts[0], bucket_starts[1], bucket_starts[2])
                               : first_slots[threadIdx.x * tile_count];
    if (threadIdx.x == 0) { *bad_out = static_cast<std::uint64_t>(*bad_ids); }
  }
  if (*bad_ids != 0 || tile >= tile_count) { return; }  // with bad ids the outputs stay untouched

  // Warp-striped: item i of lane l is key tile_begin + 32 i + l, so (item, lane) is input order.
  const unsigned lane = warp::lane_id();
  Key keys[multisplit_items_per_thread];
  value_word values[multisplit_items_per_thread];
  std::uint32_t buckets[multisplit_items_per_thread];
  load_warp_striped_tile<with_values>(keys_in, values_in, n, tile * partition_tile_keys, lane, local, no_key, keys,
                                      values, buckets);
  std::uint32_t bucket_bits = 0;  // the ids, 2 bits an item: fewer registers than the array
#pragma unroll
  for (int item = 0; item < multisplit_items_per_thread; ++item) { bucket_bits |= buckets[item] << (2 * item); }
  std::uint64_t next0 = next[0];
  std::uint64_t next1 = next[1];
  std::uint64_t next2 = next[2];

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
