#pragma once
// The sort of a small update batch (2^14 to 2^18 pairs) in four launches and no host round trip: the
// pairs are split stably by the top 8 bits in which the batch's keys differ, then each of the 256 buckets
// is sorted by the bits below in shared memory, one block a bucket. CUB's radix sort of 2^16 pairs runs a
// histogram, a scan and four one-sweep passes whose look-back chains, not their bytes, set their time.
//
// 1. bounds: each tile of 2048 pairs its smallest and largest key;
// 2. count: every block reduces the bounds to the split's digit (the 8 bits below the highest bit in which
//    the smallest and largest key differ: keys that share their top bits, such as small integers, still
//    spread over the buckets) and counts its tile's digits;
// 3. scatter: every block sums the tiles' counts itself (at most 128 x 256 words, from L2: no scan launch,
//    no look-back), ranks its tile stably (cub::BlockRadixRankMatch) and writes each pair to its place;
// 4. buckets: a block sorts its bucket in shared memory (cub::BlockRadixSort, stable) by the bits below
//    the digit in which the bucket's keys differ. Buckets too large for that (skewed keys: one hot key,
//    clusters) are then sorted by all the blocks together, in passes of at most 8 bits with grid barriers
//    (a cooperative launch), still without the host.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>

#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

#include <cooperative_groups.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace warpdex::detail {

inline constexpr unsigned batch_sort_threads = 256;
inline constexpr unsigned batch_sort_items = 8;  // pairs per thread in the split's tiles
inline constexpr unsigned batch_sort_tile = batch_sort_threads * batch_sort_items;
inline constexpr unsigned batch_sort_digit_bits = 8;
inline constexpr unsigned batch_sort_buckets = 1u << batch_sort_digit_bits;  // = batch_sort_threads
inline constexpr std::uint64_t batch_sort_min = std::uint64_t{1} << 14;  // 8 tiles; smaller: not measured
inline constexpr std::uint64_t batch_sort_max = std::uint64_t{1} << 18;  // 128 tiles: the counts stay small
inline constexpr int batch_sort_bucket_radix_bits = 5;                   // BlockRadixSort's digit in a bucket

static_assert(batch_sort_max / batch_sort_buckets <= batch_sort_tile, "stage 4 gives each block one tile of a bucket");

/// A key's digit: `bits` bits from `shift` (the digit extractor that cub's rankings take).
template <class Key>
struct batch_digit {
  int shift;
  Key mask;
  __device__ std::uint32_t Digit(Key key) const { return static_cast<std::uint32_t>((key >> shift) & mask); }
};

/// The number of low bits in which some of the keys differ, given the OR of their xors with one of them.
template <class Key>
__device__ int differing_bits(Key differ)
{
  if (differ == 0) { return 0; }
  if constexpr (sizeof(Key) == 8) { return 64 - __clzll(static_cast<long long>(differ)); }
  return 32 - __clz(static_cast<int>(differ));
}

/// Where the split's digit starts: the 8 bits ending with the highest bit in which `low` and `high` differ
/// (bits above it are the same in every key between them, so the digit orders the keys).
template <class Key>
__device__ int batch_split_shift(Key low, Key high)
{
  const int bits = differing_bits(static_cast<Key>(low ^ high));
  return bits > static_cast<int>(batch_sort_digit_bits) ? bits - static_cast<int>(batch_sort_digit_bits) : 0;
}

/// Stage 1: each tile's smallest and largest key.
template <class Key>
__global__ void __launch_bounds__(batch_sort_threads)
    batch_bounds_kernel(const Key* keys, std::uint32_t n, Key* tile_low, Key* tile_high)
{
  using reduce = cub::BlockReduce<Key, batch_sort_threads>;
  __shared__ typename reduce::TempStorage storage[2];
  const std::uint32_t first = blockIdx.x * batch_sort_tile + threadIdx.x;
  Key low = ~Key{0};
  Key high = 0;
#pragma unroll
  for (unsigned i = 0; i < batch_sort_items; ++i) {
    const std::uint32_t at = first + i * batch_sort_threads;
    if (at < n) {
      const Key key = keys[at];
      low = key < low ? key : low;
      high = key > high ? key : high;
    }
  }
  low = reduce(storage[0]).Reduce(low, ::cuda::minimum<>{});
  high = reduce(storage[1]).Reduce(high, ::cuda::maximum<>{});
  if (threadIdx.x == 0) {
    tile_low[blockIdx.x] = low;
    tile_high[blockIdx.x] = high;
  }
}

/// Adds each valid key's digit to `histogram`: the lanes of a warp with the same digit add once.
template <class Key>
__device__ void count_digit(std::uint32_t* histogram, Key key, bool valid, const batch_digit<Key>& digit)
{
  const std::uint32_t d = valid ? digit.Digit(key) : ~0u;
  const unsigned peers = __match_any_sync(~0u, d);
  if (valid && (threadIdx.x % 32) == static_cast<unsigned>(__ffs(peers) - 1)) {
    atomicAdd(histogram + d, static_cast<std::uint32_t>(__popc(peers)));
  }
}

/// Stage 2: the split's digit (every block finds the same; block 0 writes it to `shift`) and each tile's
/// count of every digit, into counts[tile][digit].
template <class Key>
__global__ void __launch_bounds__(batch_sort_threads)
    batch_count_kernel(const Key* keys, std::uint32_t n, std::uint32_t tiles, const Key* tile_low,
                       const Key* tile_high, std::uint32_t* counts, int* shift)
{
  using reduce = cub::BlockReduce<Key, batch_sort_threads>;
  __shared__ typename reduce::TempStorage storage[2];
  __shared__ std::uint32_t histogram[batch_sort_buckets];
  __shared__ int split_shift;
  const std::uint32_t first = blockIdx.x * batch_sort_tile + threadIdx.x;
  Key tile_keys[batch_sort_items];
#pragma unroll
  for (unsigned i = 0; i < batch_sort_items; ++i) {  // all loads in flight before the bounds are read
    const std::uint32_t at = first + i * batch_sort_threads;
    tile_keys[i] = at < n ? keys[at] : Key{0};
  }
  histogram[threadIdx.x] = 0;
  Key low = threadIdx.x < tiles ? tile_low[threadIdx.x] : ~Key{0};
  Key high = threadIdx.x < tiles ? tile_high[threadIdx.x] : Key{0};
  low = reduce(storage[0]).Reduce(low, ::cuda::minimum<>{});
  high = reduce(storage[1]).Reduce(high, ::cuda::maximum<>{});
  if (threadIdx.x == 0) {
    split_shift = batch_split_shift(low, high);
    if (blockIdx.x == 0) { *shift = split_shift; }
  }
  __syncthreads();
  const batch_digit<Key> digit{split_shift, Key{batch_sort_buckets - 1}};
#pragma unroll
  for (unsigned i = 0; i < batch_sort_items; ++i) {
    count_digit(histogram, tile_keys[i], first + i * batch_sort_threads < n, digit);
  }
  __syncthreads();
  counts[blockIdx.x * batch_sort_buckets + threadIdx.x] = histogram[threadIdx.x];
}

/// Loads a tile warp-striped (the order cub::BlockRadixRankMatch ranks in: warp, item, lane), places past
/// `size` as all-ones keys, whose digit is the largest, so they rank after every pair of the tile.
/// Without `values`, a pair's value is its position in the input.
template <class Key, class Value>
__device__ void load_warp_striped(const Key* keys, const Value* values, std::uint32_t first, std::uint32_t size,
                                  Key (&tile_keys)[batch_sort_items], Value (&tile_values)[batch_sort_items])
{
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint32_t warp = threadIdx.x / 32;
  const std::uint32_t offset = warp * batch_sort_items * 32 + lane;
#pragma unroll
  for (unsigned i = 0; i < batch_sort_items; ++i) {
    const std::uint32_t at = offset + i * 32;
    const bool valid = at < size;
    tile_keys[i] = valid ? keys[first + at] : ~Key{0};
    tile_values[i] = valid ? (values != nullptr ? values[first + at] : static_cast<Value>(first + at)) : Value{0};
  }
}

using batch_rank = cub::BlockRadixRankMatch<batch_sort_threads, batch_sort_digit_bits, false>;

/// Ranks a warp-striped tile by `digit`: each pair's rank among the tile's pairs (those of smaller digits
/// first, then in input order), and in `exclusive` (shared, batch_sort_buckets words) the pairs of the
/// tile whose digit is below d, for every d.
template <class Key>
__device__ void rank_tile(typename batch_rank::TempStorage& storage, std::uint32_t* exclusive,
                          const batch_digit<Key>& digit, const Key (&tile_keys)[batch_sort_items],
                          int (&ranks)[batch_sort_items])
{
  Key ranked[batch_sort_items];
#pragma unroll
  for (unsigned i = 0; i < batch_sort_items; ++i) { ranked[i] = tile_keys[i]; }
  int prefix[batch_rank::BINS_TRACKED_PER_THREAD];
  batch_rank(storage).RankKeys(ranked, ranks, digit, prefix);
  exclusive[threadIdx.x] = static_cast<std::uint32_t>(prefix[0]);
  __syncthreads();
}

/// Writes each of a ranked tile's first `size` pairs to out[base[d] - exclusive[d] + its rank] (d its
/// digit): base[d] is where the tile's pairs of digit d go.
template <class Key, class Value>
__device__ void write_ranked_tile(const std::uint32_t* base, const std::uint32_t* exclusive,
                                  const batch_digit<Key>& digit, std::uint32_t size,
                                  const Key (&tile_keys)[batch_sort_items], const Value (&tile_values)[batch_sort_items],
                                  const int (&ranks)[batch_sort_items], Key* keys_out, Value* values_out)
{
  const std::uint32_t offset = (threadIdx.x / 32) * batch_sort_items * 32 + threadIdx.x % 32;
#pragma unroll
  for (unsigned i = 0; i < batch_sort_items; ++i) {
    if (offset + i * 32 < size) {
      const std::uint32_t d = digit.Digit(tile_keys[i]);
      const std::uint32_t place = base[d] - exclusive[d] + static_cast<std::uint32_t>(ranks[i]);
      keys_out[place] = tile_keys[i];
      values_out[place] = tile_values[i];
    }
  }
}

/// Stage 3: each tile's pairs to their places in the split (keys_out / values_out), bucket by bucket in
/// input order; block 0 writes the buckets' starts (buckets + 1 entries) for stage 4.
template <class Key, class Value>
__global__ void __launch_bounds__(batch_sort_threads)
    batch_scatter_kernel(const Key* keys, const Value* values, std::uint32_t n, std::uint32_t tiles,
                         const std::uint32_t* counts, const int* shift, std::uint32_t* bucket_start, Key* keys_out,
                         Value* values_out)
{
  using scan = cub::BlockScan<std::uint32_t, batch_sort_threads>;
  __shared__ union {
    typename scan::TempStorage scan;
    typename batch_rank::TempStorage rank;
  } storage;
  __shared__ std::uint32_t base[batch_sort_buckets];
  __shared__ std::uint32_t exclusive[batch_sort_buckets];
  const std::uint32_t first = blockIdx.x * batch_sort_tile;
  Key tile_keys[batch_sort_items];
  Value tile_values[batch_sort_items];
  load_warp_striped(keys, values, first, n - first, tile_keys, tile_values);
  // Thread b: bucket b's total and its count in the tiles before this one.
  std::uint32_t total = 0;
  std::uint32_t before = 0;
  for (std::uint32_t t = 0; t < tiles; ++t) {
    const std::uint32_t count = counts[t * batch_sort_buckets + threadIdx.x];
    total += count;
    before += t < blockIdx.x ? count : 0;
  }
  std::uint32_t start = 0;
  scan(storage.scan).ExclusiveSum(total, start);
  if (blockIdx.x == 0) {
    bucket_start[threadIdx.x] = start;
    if (threadIdx.x + 1 == batch_sort_buckets) { bucket_start[batch_sort_buckets] = start + total; }
  }
  base[threadIdx.x] = start + before;
  __syncthreads();  // the scan's storage is the ranking's
  const batch_digit<Key> digit{*shift, Key{batch_sort_buckets - 1}};
  int ranks[batch_sort_items];
  rank_tile(storage.rank, exclusive, digit, tile_keys, ranks);
  write_ranked_tile(base, exclusive, digit, n - first, tile_keys, tile_values, ranks, keys_out, values_out);
}

/// Where stage 4 keeps what its blocks exchange while they sort a bucket together.
template <class Key>
struct batch_grid_scratch {
  std::uint32_t* counts;        // [block][digit]: a slice's count of each digit, then its place in the digit
  std::uint32_t* digit_totals;  // [digit]
  Key* slice_differ;            // [block]: the OR of the slice's keys xor the bucket's first key
};

/// A bucket that one block holds, sorted in shared memory by the bits in which its keys differ, from
/// keys / values into keys_out / values_out (all at the bucket's start).
template <class Key, class Value, unsigned Items, class Storage>
__device__ void sort_bucket_in_block(Storage& storage, int& shared_bits, std::uint32_t size, const Key* keys,
                                     const Value* values, Key* keys_out, Value* values_out)
{
  using reduce = cub::BlockReduce<Key, batch_sort_threads>;
  using sort = cub::BlockRadixSort<Key, batch_sort_threads, Items, Value, batch_sort_bucket_radix_bits>;
  Key bucket_keys[Items];
  Value bucket_values[Items];
#pragma unroll
  for (unsigned i = 0; i < Items; ++i) {  // blocked: the order BlockRadixSort keeps stable
    const std::uint32_t at = threadIdx.x * Items + i;
    bucket_keys[i] = at < size ? keys[at] : ~Key{0};
    bucket_values[i] = at < size ? values[at] : Value{0};
  }
  const Key pivot = keys[0];
  Key differ = 0;
#pragma unroll
  for (unsigned i = 0; i < Items; ++i) {
    differ |= threadIdx.x * Items + i < size ? static_cast<Key>(bucket_keys[i] ^ pivot) : Key{0};
  }
  differ = reduce(storage.reduce).Reduce(differ, ::cuda::std::bit_or<>{});
  if (threadIdx.x == 0) { shared_bits = differing_bits(differ); }
  __syncthreads();
  const int bits = shared_bits;
  if (bits == 0) {  // one key: the split's order is the answer
#pragma unroll
    for (unsigned i = 0; i < Items; ++i) {
      const std::uint32_t at = threadIdx.x * Items + i;
      if (at < size) {
        keys_out[at] = bucket_keys[i];
        values_out[at] = bucket_values[i];
      }
    }
    return;
  }
  sort(storage.sort).SortBlockedToStriped(bucket_keys, bucket_values, 0, bits);
#pragma unroll
  for (unsigned i = 0; i < Items; ++i) {
    const std::uint32_t at = i * batch_sort_threads + threadIdx.x;
    if (at < size) {
      keys_out[at] = bucket_keys[i];
      values_out[at] = bucket_values[i];
    }
  }
}

/// A bucket larger than a block holds (skewed keys), sorted by every block of the grid together: least
/// significant digit first, by the bits in which its keys differ, in an odd number of passes of at most
/// 8 bits, so that they end in keys_out; each block takes a contiguous slice of the bucket, and three grid
/// barriers a pass give the slices their places (count, each digit's places over the slices, scatter).
template <class Key, class Value, class Storage>
__device__ void sort_bucket_in_grid(Storage& storage, std::uint32_t* base, std::uint32_t* exclusive, int& shared_bits,
                                    const batch_grid_scratch<Key>& scratch, std::uint32_t size, Key* keys,
                                    Value* values, Key* keys_out, Value* values_out)
{
  using reduce = cub::BlockReduce<Key, batch_sort_threads>;
  using scan = cub::BlockScan<std::uint32_t, batch_sort_threads>;
  auto grid = cooperative_groups::this_grid();
  const std::uint32_t block = blockIdx.x;  // gridDim.x == batch_sort_threads == batch_sort_buckets
  const auto first = static_cast<std::uint32_t>(std::uint64_t{size} * block / gridDim.x);
  const std::uint32_t slice = static_cast<std::uint32_t>(std::uint64_t{size} * (block + 1) / gridDim.x) - first;
  const Key pivot = keys[0];
  Key differ = 0;
  for (std::uint32_t at = first + threadIdx.x; at < first + slice; at += batch_sort_threads) {
    differ |= static_cast<Key>(keys[at] ^ pivot);
  }
  differ = reduce(storage.reduce).Reduce(differ, ::cuda::std::bit_or<>{});
  if (threadIdx.x == 0) { scratch.slice_differ[block] = differ; }
  grid.sync();
  differ = reduce(storage.reduce).Reduce(scratch.slice_differ[threadIdx.x], ::cuda::std::bit_or<>{});
  if (threadIdx.x == 0) { shared_bits = differing_bits(differ); }
  __syncthreads();
  const int bits = shared_bits;
  int passes = (bits + static_cast<int>(batch_sort_digit_bits) - 1) / static_cast<int>(batch_sort_digit_bits);
  passes += passes % 2 == 0 ? 1 : 0;  // odd: the last pass writes keys_out (a pass of 0 bits copies)
  Key* from_keys = keys;
  Value* from_values = values;
  Key* to_keys = keys_out;
  Value* to_values = values_out;
  int low_bit = 0;
  for (int pass = 0; pass < passes; ++pass) {
    const int width = bits / passes + (pass < bits % passes ? 1 : 0);
    const batch_digit<Key> digit{low_bit, static_cast<Key>((Key{1} << width) - 1)};
    Key tile_keys[batch_sort_items];
    Value tile_values[batch_sort_items];
    load_warp_striped(from_keys, from_values, first, slice, tile_keys, tile_values);
    int ranks[batch_sort_items];
    rank_tile(storage.rank, exclusive, digit, tile_keys, ranks);
    // The slice's count of each digit (its padding ranks last: beyond `slice`).
    const std::uint32_t next = threadIdx.x + 1 < batch_sort_buckets ? exclusive[threadIdx.x + 1] : batch_sort_tile;
    scratch.counts[block * batch_sort_buckets + threadIdx.x] = min(next, slice) - min(exclusive[threadIdx.x], slice);
    grid.sync();
    // Block d: digit d's place in each slice, and its total.
    std::uint32_t count = scratch.counts[threadIdx.x * batch_sort_buckets + block];
    std::uint32_t total = 0;
    scan(storage.scan).ExclusiveSum(count, count, total);
    scratch.counts[threadIdx.x * batch_sort_buckets + block] = count;
    if (threadIdx.x == 0) { scratch.digit_totals[block] = total; }
    grid.sync();
    std::uint32_t digit_start = scratch.digit_totals[threadIdx.x];
    scan(storage.scan).ExclusiveSum(digit_start, digit_start);
    base[threadIdx.x] = digit_start + scratch.counts[block * batch_sort_buckets + threadIdx.x];
    __syncthreads();
    write_ranked_tile(base, exclusive, digit, slice, tile_keys, tile_values, ranks, to_keys, to_values);
    Key* const swap_keys = from_keys;
    from_keys = to_keys;
    to_keys = swap_keys;
    Value* const swap_values = from_values;
    from_values = to_values;
    to_values = swap_values;
    low_bit += width;
    grid.sync();
  }
}

/// Stage 4, one block a bucket of the split (in keys / values), sorted into keys_out / values_out. A bucket
/// that one block holds (Items pairs a thread) is sorted in shared memory; buckets beyond that, which
/// every block finds alike, are then sorted by the whole grid, one after another (a cooperative launch).
template <class Key, class Value, unsigned Items>
__global__ void __launch_bounds__(batch_sort_threads)
    batch_bucket_sort_kernel(const std::uint32_t* bucket_start, Key* keys, Value* values, Key* keys_out,
                             Value* values_out, batch_grid_scratch<Key> scratch)
{
  using reduce = cub::BlockReduce<Key, batch_sort_threads>;
  using sort = cub::BlockRadixSort<Key, batch_sort_threads, Items, Value, batch_sort_bucket_radix_bits>;
  using scan = cub::BlockScan<std::uint32_t, batch_sort_threads>;
  __shared__ union {
    typename reduce::TempStorage reduce;
    typename sort::TempStorage sort;
    typename scan::TempStorage scan;
    typename batch_rank::TempStorage rank;
  } storage;
  __shared__ int shared_bits;
  __shared__ std::uint32_t base[batch_sort_buckets];
  __shared__ std::uint32_t exclusive[batch_sort_buckets];
  __shared__ std::uint32_t large[batch_sort_buckets];  // the buckets too large for a block, in order
  constexpr std::uint32_t capacity = batch_sort_threads * Items;
  const std::uint32_t own_start = bucket_start[threadIdx.x];
  const bool too_large = bucket_start[threadIdx.x + 1] - own_start > capacity;
  std::uint32_t slot = 0;
  std::uint32_t large_count = 0;
  scan(storage.scan).ExclusiveSum(too_large ? 1u : 0u, slot, large_count);
  if (too_large) { large[slot] = threadIdx.x; }
  __syncthreads();
  const std::uint32_t start = bucket_start[blockIdx.x];
  const std::uint32_t size = bucket_start[blockIdx.x + 1] - start;
  if (size > 0 && size <= capacity) {
    sort_bucket_in_block<Key, Value, Items>(storage, shared_bits, size, keys + start, values + start,
                                            keys_out + start, values_out + start);
  }
  for (std::uint32_t k = 0; k < large_count; ++k) {  // the same count in every block: no barrier is skipped
    __syncthreads();
    const std::uint32_t bucket = large[k];
    const std::uint32_t large_start = bucket_start[bucket];
    sort_bucket_in_grid(storage, base, exclusive, shared_bits, scratch, bucket_start[bucket + 1] - large_start,
                        keys + large_start, values + large_start, keys_out + large_start,
                        values_out + large_start);
  }
}

/// Pairs a thread of stage 4's blocks: room for about 4x a bucket of random keys up to 2^16 pairs, 2x above.
inline unsigned batch_bucket_items(std::uint64_t n) { return n <= (std::uint64_t{1} << 16) ? 4 : 8; }

/// Whether the current GPU runs stage 4 for this batch size: a cooperative launch of batch_sort_buckets
/// blocks, all resident at once (answered once per device and instantiation).
template <class Key, class Value, unsigned Items>
bool batch_bucket_sort_fits()
{
  int device = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  constexpr int devices = 64;
  static std::atomic<int> known[devices] = {};  // 0 unknown, 1 fits, 2 does not
  if (device < devices && known[device].load(std::memory_order_relaxed) != 0) {
    return known[device].load(std::memory_order_relaxed) == 1;
  }
  int cooperative = 0;
  int processors = 0;
  int per_processor = 0;
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device));
  WARPDEX_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_processor, batch_bucket_sort_kernel<Key, Value, Items>, static_cast<int>(batch_sort_threads), 0));
  const bool fits = cooperative != 0 && per_processor * processors >= static_cast<int>(batch_sort_buckets);
  if (device < devices) { known[device].store(fits ? 1 : 2, std::memory_order_relaxed); }
  return fits;
}

/// Whether a batch of n pairs takes this sort rather than CUB's DeviceRadixSort.
template <class Key, class Value>
bool uses_batch_sort(std::uint64_t n)
{
  if (n < batch_sort_min || n > batch_sort_max) { return false; }
  return batch_bucket_items(n) == 4 ? batch_bucket_sort_fits<Key, Value, 4>() : batch_bucket_sort_fits<Key, Value, 8>();
}

template <class Key, class Value, unsigned Items>
void launch_batch_bucket_sort(const cuda& backend, const std::uint32_t* bucket_start, Key* keys, Value* values,
                              Key* keys_out, Value* values_out, batch_grid_scratch<Key> scratch)
{
  void* arguments[] = {&bucket_start, &keys, &values, &keys_out, &values_out, &scratch};
  WARPDEX_CUDA_TRY(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(batch_bucket_sort_kernel<Key, Value, Items>),
                                               dim3(batch_sort_buckets), dim3(batch_sort_threads), arguments, 0,
                                               backend.stream));
}

/// Sorts n pairs (uses_batch_sort(n)) stably by key from keys_in / values_in into keys_out / values_out;
/// with values_in null, each value is the pair's position in the input. Queued on the stream; `scratch`
/// (grown as needed) holds the split and what the stages exchange.
template <class Key, class Value>
void batch_sort_pairs(const cuda& backend, const Key* keys_in, const Value* values_in, Key* keys_out,
                      Value* values_out, std::uint64_t n, buffer<std::uint8_t>* scratch)
{
  const auto count = static_cast<std::uint32_t>(n);
  const std::uint32_t tiles = (count + batch_sort_tile - 1) / batch_sort_tile;
  const auto aligned = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
  const std::size_t bounds_bytes = aligned(tiles * sizeof(Key));
  const std::size_t counts_bytes = aligned(std::size_t{tiles} * batch_sort_buckets * sizeof(std::uint32_t));
  const std::size_t starts_bytes = aligned((batch_sort_buckets + 1) * sizeof(std::uint32_t) + sizeof(int));
  const std::size_t grid_counts_bytes = std::size_t{batch_sort_buckets} * batch_sort_buckets * sizeof(std::uint32_t);
  const std::size_t totals_bytes = aligned(batch_sort_buckets * sizeof(std::uint32_t));
  const std::size_t differ_bytes = aligned(batch_sort_buckets * sizeof(Key));
  const std::size_t keys_bytes = aligned(n * sizeof(Key));
  const std::size_t bytes = 2 * bounds_bytes + counts_bytes + starts_bytes + grid_counts_bytes + totals_bytes +
                            differ_bytes + keys_bytes + aligned(n * sizeof(Value));
  buffer<std::uint8_t> own;
  if (scratch == nullptr) { scratch = &own; }
  if (scratch->size() < bytes) { *scratch = make_buffer<std::uint8_t>(backend, bytes); }
  std::uint8_t* at = scratch->data();
  auto* tile_low = reinterpret_cast<Key*>(at);
  auto* tile_high = reinterpret_cast<Key*>(at += bounds_bytes);
  auto* counts = reinterpret_cast<std::uint32_t*>(at += bounds_bytes);
  auto* bucket_start = reinterpret_cast<std::uint32_t*>(at += counts_bytes);
  auto* shift = reinterpret_cast<int*>(bucket_start + batch_sort_buckets + 1);
  batch_grid_scratch<Key> grid{reinterpret_cast<std::uint32_t*>(at += starts_bytes), nullptr, nullptr};
  grid.digit_totals = reinterpret_cast<std::uint32_t*>(at += grid_counts_bytes);
  grid.slice_differ = reinterpret_cast<Key*>(at += totals_bytes);
  auto* split_keys = reinterpret_cast<Key*>(at += differ_bytes);
  auto* split_values = reinterpret_cast<Value*>(at += keys_bytes);

  batch_bounds_kernel<<<tiles, batch_sort_threads, 0, backend.stream>>>(keys_in, count, tile_low, tile_high);
  WARPDEX_CUDA_TRY(cudaGetLastError());
  batch_count_kernel<<<tiles, batch_sort_threads, 0, backend.stream>>>(keys_in, count, tiles, tile_low, tile_high,
                                                                       counts, shift);
  WARPDEX_CUDA_TRY(cudaGetLastError());
  batch_scatter_kernel<<<tiles, batch_sort_threads, 0, backend.stream>>>(keys_in, values_in, count, tiles, counts,
                                                                         shift, bucket_start, split_keys, split_values);
  WARPDEX_CUDA_TRY(cudaGetLastError());
  if (batch_bucket_items(n) == 4) {
    launch_batch_bucket_sort<Key, Value, 4>(backend, bucket_start, split_keys, split_values, keys_out, values_out, grid);
  } else {
    launch_batch_bucket_sort<Key, Value, 8>(backend, bucket_start, split_keys, split_values, keys_out, values_out, grid);
  }
}

}  // namespace warpdex::detail
