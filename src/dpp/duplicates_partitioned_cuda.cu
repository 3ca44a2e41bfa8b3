// The partitioned engine of the duplicate search on the cuda backend (duplicates_partitioned.hpp): the
// distinct 32-bit elements in ascending order, with or without their counts, in five steps.
//  1. A histogram of the top 14 bits (16384 buckets; one shared-memory histogram a block): reads 4 bytes.
//  2. A scatter of the elements into their buckets, buckets in ascending order (so the buckets' results
//     concatenate into the ascending output), in two passes of 7 bits: the input into 128 super-buckets
//     by the top 7 bits, then each super-bucket's elements into its 128 buckets by the next 7. As a
//     onesweep radix pass does, a tile of 8192 elements is ordered by bucket in shared memory and each
//     bucket's run is written by consecutive threads (one global atomic add per tile and non-empty bucket
//     reserves its slice), so a warp's store touches a few 32-byte sectors. Each pass reads 4 and writes 4.
//     A tile is ranked warp by warp: each warp finds the lanes sharing a bucket with seven ballots and
//     counts in its own 128 shared counters, and a scan over (bucket, warp) gives every element its place
//     (block-shared counters with __match_any_sync set the pace before: 2.0 ms a pass at 2^28).
//     The order inside a bucket is not kept: the next steps do not depend on it. A single pass into the
//     2^14 buckets (each element its own 4-byte write request) took 5.4 of about 7 ms at 2^28 on an H200
//     (2.0 GB read and 2.1 GB written for 1.07 and 1.07), and two such passes without the tile's ordering
//     4.4 + 3.5 ms (docs/dpp.md).
//  3. One block a bucket sets one bit per element in a shared bitmap of the bucket's 2^18 values (32 KiB),
//     counting the bits it found clear: the bucket's distinct elements (reads 4). A bucket of more than 2^17
//     elements (skew: a hot element) is split into segments of 2^17, one block each, whose bitmaps are
//     or-ed into the bucket's bitmap in global memory (whose set bits are counted).
//  4. On the device (one block): the output offsets of the buckets (an exclusive sum of 16384 counts).
//     The host reads the output's size (and, for counts, the writing kernel's shared memory) in one copy
//     to pinned memory and one wait: the only round trip. For counts, a bucket with more distinct elements
//     than shared memory holds counters for (about 41,000 on an H200) is gathered with the others like it,
//     sorted by CUB and run-length encoded (the sort's bytes and round trips, on that part only).
//  5. One block a bucket rebuilds the bitmap (reads 4) and writes its distinct elements in ascending
//     order at the bucket's output offset (writes 4u): each thread owns 16 consecutive bitmap words, read
//     from registers after one block-wide sum of their set bits, and the elements are staged in shared
//     memory 8192 at a time and written by consecutive threads. Every bucket's block walks its whole
//     bitmap, 2^32 bits over the 2^14 blocks whatever n: the engine's fixed cost (docs/dpp.md: a scan with
//     shuffles a word made it 0.84 ms). For counts it reads the bucket again (from the L2 cache, where it
//     just read it) and counts each element in a shared counter at its rank among the set bits, then
//     writes the counts beside the elements (8u). A large bucket's segments count in shared counters
//     first and add them to the bucket's counters in global memory (a hot element: one global add a
//     segment); its block then writes from the global bitmap and counters.
// The plans between the steps (offsets, cursors, tiles, the large buckets and their segments) are
// computed on the device by one-block kernels, and the kernels are launched back to back on the caller's
// stream with grids sized for n (blocks past the plan's counts return); the engine's memory is a slot of
// the library's scratch pool (warpdex::detail::sync_scratch), so a warm call allocates only its outputs.
// (Two host round trips, about ten pageable copies and the allocations cost about 0.22 ms a call before:
// docs/dpp.md.) The once-flags make no round trip; the distinct elements one.
// Bytes per element, u distinct of n: about 28 + 4u for the elements, 28 + 12u with 64-bit counts,
// against the baselines' 40 + 4u (CUB radix sort + DeviceSelect::Unique) and 40 + 8u (+ run-length
// encode). Deterministic: the bitmaps and counts do not depend on the order of the atomic operations.
#include "duplicates_partitioned.hpp"

#include "../core/radix_sort_backend.hpp"
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/detail/thrust_backend.hpp>
#include <warpdex/split/detail/sync_scratch.hpp>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <thrust/binary_search.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace warpdex::dpp::detail {
namespace {

using std::uint32_t;
using std::uint64_t;

constexpr int bucket_bits = 14;
constexpr uint32_t bucket_count = 1U << bucket_bits;
constexpr int low_bits = 32 - bucket_bits;
constexpr uint32_t low_mask = (1U << low_bits) - 1;
constexpr uint32_t bitmap_words = 1U << (low_bits - 5);  // 8192 words, 32 KiB
/// Buckets of more elements (8 times the mean at 2^28) are split into segments of this many, one block
/// each, so that no block streams a skewed bucket alone.
constexpr uint64_t largest_block_bucket = uint64_t{1} << 17;

constexpr int histogram_threads = 512;
/// The scatter's passes: 2^7 buckets a pass, the top 7 bits and then the next 7 (2 x 7 = bucket_bits).
constexpr int pass_bits = 7;
constexpr uint32_t pass_buckets = 1U << pass_bits;
constexpr int scatter_threads = 512;
constexpr int scatter_items = 16;
constexpr uint32_t scatter_tile = scatter_threads * scatter_items;  // 8192: ranks fit 16 bits
constexpr uint32_t scatter_warps = scatter_threads / 32;
static_assert(2 * pass_bits == bucket_bits && pass_buckets == 4 * 32 && scatter_tile <= (1U << 16));
constexpr int bucket_threads = 512;
/// Loads a thread has in flight before it uses them (the element loops would otherwise wait on each).
constexpr int load_batch = 16;
/// The loads in flight in a bucket of at most small_batch * bucket_threads elements: each load of a batch
/// is tested against the end, so a batch of 16 cost a bucket of 1024 elements (the mean at 2^24) as much
/// as one of 8192.
constexpr int small_batch = 4;
constexpr int bucket_warps = bucket_threads / 32;
/// Each thread of a bucket's block owns 16 consecutive bitmap words (4 chunks of 4) when it scans the bitmap.
constexpr uint32_t words_per_thread = bitmap_words / bucket_threads;
static_assert(words_per_thread == 16 && bucket_warps <= 32);
constexpr std::size_t bins_bytes = bucket_count * sizeof(uint32_t);
/// Shared memory of the writing kernel besides its counters: bitmap, word prefixes, warp totals.
constexpr std::size_t write_fixed_bytes = 2 * bitmap_words * sizeof(uint32_t) + 32 * sizeof(uint32_t);
constexpr uint64_t no_fallback = ~uint64_t{0};

__device__ __forceinline__ uint32_t bucket_of(uint32_t key)
{
  return key >> low_bits;
}

/// Where bitmap word w lies in shared memory (and in the large buckets' global bitmaps, copied verbatim):
/// thread t owns words [16 t, 16 t + 16), four 16-byte chunks, and reads them with four 16-byte loads;
/// chunk k of thread t is stored at chunk k ^ ((t >> 1) % 4) of its four, so that the 8 lanes a 16-byte
/// load serves at once read 8 different groups of 4 banks (the plain layout put 16 lanes on one group).
__device__ __forceinline__ uint32_t word_slot(uint32_t w)
{
  return w ^ (((w >> 5) & 3U) << 2);
}

/// Calls visit(element) for the elements of data[first, end) that this thread owns: chunks of
/// Threads * Batch elements `chunk_stride` apart, element j of a chunk at j * Threads + threadIdx.x,
/// every load of a chunk issued before the first call.
template <int Threads, int Batch = load_batch, class Visit>
__device__ __forceinline__ void for_each_owned(const uint32_t* __restrict__ data, uint64_t first, uint64_t end,
                                               uint64_t chunk_stride, Visit visit)
{
  for (uint64_t chunk = first; chunk < end; chunk += chunk_stride) {
    uint32_t values[Batch];
#pragma unroll
    for (int j = 0; j < Batch; ++j) {
      const uint64_t i = chunk + static_cast<uint64_t>(j) * Threads + threadIdx.x;
      values[j] = i < end ? data[i] : 0;
    }
#pragma unroll
    for (int j = 0; j < Batch; ++j) {
      if (chunk + static_cast<uint64_t>(j) * Threads + threadIdx.x < end) { visit(values[j]); }
    }
  }
}

/// for_each_owned over a bucket's (or segment's) elements parts[begin, end) by one block of bucket_threads,
/// with small_batch loads in flight for a small bucket.
template <class Visit>
__device__ __forceinline__ void for_each_in_bucket(const uint32_t* __restrict__ parts, uint64_t begin, uint64_t end,
                                                   Visit visit)
{
  if (end - begin <= uint64_t{bucket_threads} * small_batch) {
    for_each_owned<bucket_threads, small_batch>(parts, begin, end, uint64_t{bucket_threads} * small_batch, visit);
  } else {
    for_each_owned<bucket_threads>(parts, begin, end, uint64_t{bucket_threads} * load_batch, visit);
  }
}

/// Step 1: bucket sizes (counts must be zero).
__global__ void __launch_bounds__(histogram_threads)
    partition_histogram(const uint32_t* __restrict__ in, uint64_t n, uint32_t* __restrict__ counts)
{
  extern __shared__ uint32_t bins[];
  for (uint32_t b = threadIdx.x; b < bucket_count; b += histogram_threads) { bins[b] = 0; }
  __syncthreads();
  constexpr uint64_t chunk = uint64_t{histogram_threads} * load_batch;
  for_each_owned<histogram_threads>(in, blockIdx.x * chunk, n, gridDim.x * chunk,
                                    [&](uint32_t key) { atomicAdd(&bins[bucket_of(key)], 1U); });
  __syncthreads();
  for (uint32_t b = threadIdx.x; b < bucket_count; b += histogram_threads) {
    const uint32_t c = bins[b];
    if (c != 0) { atomicAdd(&counts[b], c); }
  }
}

/// The lanes of the calling warp whose pass bucket ((key >> Shift) % pass_buckets) equals this lane's,
/// from one ballot a bit, and with `Partial` only among the lanes whose `valid` is the same. Ballots are
/// plain instructions (a bit test, the vote, a select and an and: about 4 instructions a bit) where
/// `__match_any_sync` is one long-latency instruction of the shared-memory pipe (docs/dpp.md).
template <int Shift, bool Partial>
__device__ __forceinline__ uint32_t lanes_sharing(uint32_t key, bool valid)
{
  uint32_t peers = 0xffffffffU;
  if constexpr (Partial) {
    const uint32_t votes = __ballot_sync(0xffffffffU, valid);
    peers = valid ? votes : ~votes;
  }
#pragma unroll
  for (int bit = Shift; bit < Shift + pass_bits; ++bit) {
    // peers &= the lanes whose bit is this lane's: the ballot of the set bit, inverted where it is clear
    asm volatile(
        "{\n\t.reg .pred p;\n\t.reg .b32 v;\n\tand.b32 v, %1, %2;\n\tsetp.ne.u32 p, v, 0;\n\t"
        "vote.sync.ballot.b32 v, p, 0xffffffff;\n\t@!p not.b32 v, v;\n\tand.b32 %0, %0, v;\n\t}"
        : "+r"(peers)
        : "r"(key), "r"(1U << bit));
  }
  return peers;
}

/// `*counter += add` in shared memory by the lanes where `leader` is set, returning the old value there
/// (0 elsewhere): a predicated atomic, where an `if` around atomicAdd costs a divergent branch and its
/// reconvergence a row.
__device__ __forceinline__ uint32_t shared_add_if(bool leader, uint32_t* counter, uint32_t add)
{
  uint32_t old = 0;
  const auto address = static_cast<uint32_t>(__cvta_generic_to_shared(counter));
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t@p atom.shared.add.u32 %0, [%2], %3;\n\t}"
               : "+r"(old)
               : "r"(static_cast<uint32_t>(leader)), "r"(address), "r"(add)
               : "memory");
  return old;
}

/// Step 2's ranking: each element's rank among the elements of its bucket that this warp holds (rows of
/// 32 elements in order), counted in the warp's own pass_buckets counters (`counts`, zero on entry; the
/// warp's totals on exit). The lanes sharing a bucket in a row add once, from their highest lane, with
/// no other warp touching these counters. Ranks are below 16 * 32 = 512: two a register.
template <int Shift, bool Partial>
__device__ __forceinline__ void rank_in_warp(const uint32_t (&keys)[scatter_items], uint32_t size, uint32_t* counts,
                                             uint32_t (&ranks)[scatter_items / 2])
{
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t lanes_below = (1U << lane) - 1U;
#pragma unroll
  for (int i = 0; i < scatter_items; ++i) {
    const bool valid = !Partial || static_cast<uint32_t>(i) * scatter_threads + threadIdx.x < size;
    const uint32_t peers = lanes_sharing<Shift, Partial>(keys[i], valid);
    const auto leader = static_cast<uint32_t>(31 - __clz(static_cast<int>(peers)));
    uint32_t first = shared_add_if(valid && lane == leader, &counts[(keys[i] >> Shift) % pass_buckets],
                                   static_cast<uint32_t>(__popc(peers)));
    first = __shfl_sync(0xffffffffU, first, static_cast<int>(leader));
    const uint32_t rank = first + static_cast<uint32_t>(__popc(peers & lanes_below));
    if (i % 2 == 0) {
      ranks[i / 2] = rank;
    } else {
      ranks[i / 2] |= rank << 16;
    }
  }
}

/// Step 2, one pass of the scatter on one tile of at most scatter_tile elements, in[begin, end): each
/// element into the slice of its pass bucket ((key >> Shift) % pass_buckets) reserved at cursors[bucket].
/// As a onesweep radix pass does, the tile is ordered by bucket in shared memory first, so that
/// consecutive threads write each bucket's run to consecutive addresses (a warp's store is one or two
/// runs: a few 32-byte sectors, not 32 scattered ones). Ranking (as CUB's block radix rank does, in
/// outline): each warp ranks its elements in its own counters (rank_in_warp: ballots, no shared atomic
/// shared with another warp); a scan over (bucket, warp) then turns the warps' counts into each warp's
/// first position in the ordered tile for each bucket. The order inside a bucket is not kept (the next
/// steps do not depend on it). Elements are addressed with 32-bit positions (n < 2^32).
/// The scatter's shared memory: the tile in bucket order; warp w's counters at [w * pass_buckets,
/// (w + 1) * pass_buckets) (its counts, then its first positions); each bucket's global base; the bucket
/// scan's warp totals.
/// Where the scatter's positions come from (with `Positions`): none, each element's index in the input
/// (`first` + its place in the tile), or an array beside the elements (`in`); they go to `out`.
constexpr int no_positions = 0;
constexpr int positions_from_index = 1;
constexpr int positions_beside = 2;
struct position_source {
  const uint32_t* in;
  uint32_t* out;
  uint32_t first;
};

struct scatter_shared {
  uint32_t tile[scatter_tile];
  uint32_t warp_counts[scatter_warps * pass_buckets];
  uint32_t bases[pass_buckets];
  uint32_t scan_totals[pass_buckets / 32];
};

/// scatter_tile_by_bucket on a full tile (`Partial` false: size == scatter_tile, no bounds to test) or
/// on the last tile of its input (`Partial`).
template <int Shift, bool Partial, int Positions>
__device__ __forceinline__ void scatter_tile_of(scatter_shared& shared, const uint32_t* __restrict__ tile_in,
                                                uint32_t size, uint32_t* __restrict__ cursors,
                                                uint32_t* __restrict__ out, position_source positions)
{
  const uint32_t t = threadIdx.x;
  const uint32_t lane = t % 32;
  const uint32_t warp = t / 32;
  const auto owned = [&](int i) { return !Partial || static_cast<uint32_t>(i) * scatter_threads + t < size; };
  uint32_t keys[scatter_items];
#pragma unroll
  for (int i = 0; i < scatter_items; ++i) {
    keys[i] = owned(i) ? tile_in[static_cast<uint32_t>(i) * scatter_threads + t] : 0;
  }
  uint32_t* counts = shared.warp_counts + warp * pass_buckets;
#pragma unroll
  for (uint32_t b = lane; b < pass_buckets; b += 32) { counts[b] = 0; }
  __syncwarp();
  uint32_t ranks[scatter_items / 2];  // two 16-bit ranks a register
  rank_in_warp<Shift, Partial>(keys, size, counts, ranks);
  __syncthreads();
  // Thread b < pass_buckets: bucket b's count in the tile (over the warps, whose counters become their
  // offsets inside the bucket's run), its slice (one global atomic add if not empty), and the bucket's
  // first position in the ordered tile (an exclusive sum over the buckets: a warp's sum, then the warps').
  uint32_t total = 0;
  uint32_t slice = 0;
  uint32_t inclusive = 0;
  if (t < pass_buckets) {
#pragma unroll
    for (uint32_t w = 0; w < scatter_warps; ++w) {
      const uint32_t c = shared.warp_counts[w * pass_buckets + t];
      shared.warp_counts[w * pass_buckets + t] = total;
      total += c;
    }
    if (total != 0) { slice = atomicAdd(&cursors[t], total); }
    inclusive = total;
#pragma unroll
    for (uint32_t delta = 1; delta < 32; delta *= 2) {
      const uint32_t other = __shfl_up_sync(0xffffffffU, inclusive, delta);
      if (lane >= delta) { inclusive += other; }
    }
    if (lane == 31) { shared.scan_totals[warp] = inclusive; }
  }
  __syncthreads();
  if (t < pass_buckets) {
    uint32_t start = inclusive - total;
    for (uint32_t k = 0; k < warp; ++k) { start += shared.scan_totals[k]; }
#pragma unroll
    for (uint32_t w = 0; w < scatter_warps; ++w) { shared.warp_counts[w * pass_buckets + t] += start; }
    shared.bases[t] = slice - start;  // modulo 2^32: base + tile position < n
  }
  __syncthreads();
  // Each element's place in the ordered tile (all of a thread's counter loads before its first store to
  // the tile, which the compiler would otherwise keep in order: both are shared memory), then the stores.
#pragma unroll
  for (int i = 0; i < scatter_items; ++i) {
    const uint32_t place = counts[(keys[i] >> Shift) % pass_buckets] + ((ranks[i / 2] >> (16 * (i % 2))) & 0xffffU);
    if (i % 2 == 0) {
      ranks[i / 2] = (ranks[i / 2] & 0xffff0000U) | place;
    } else {
      ranks[i / 2] = (ranks[i / 2] & 0xffffU) | (place << 16);
    }
  }
#pragma unroll
  for (int i = 0; i < scatter_items; ++i) {
    if (owned(i)) { shared.tile[(ranks[i / 2] >> (16 * (i % 2))) & 0xffffU] = keys[i]; }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < scatter_items; ++i) {
    if (owned(i)) { keys[i] = shared.tile[static_cast<uint32_t>(i) * scatter_threads + t]; }
  }
#pragma unroll
  for (int i = 0; i < scatter_items; ++i) {
    const uint32_t at = static_cast<uint32_t>(i) * scatter_threads + t;
    if (owned(i)) { out[shared.bases[(keys[i] >> Shift) % pass_buckets] + at] = keys[i]; }
  }
  if constexpr (Positions != no_positions) {
    // The positions follow their elements through the tile: stored at the same places (still in `ranks`),
    // read back in tile order and written where the elements at those places went.
    __syncthreads();
#pragma unroll
    for (int i = 0; i < scatter_items; ++i) {
      const uint32_t at = static_cast<uint32_t>(i) * scatter_threads + t;
      if (owned(i)) {
        shared.tile[(ranks[i / 2] >> (16 * (i % 2))) & 0xffffU] =
            Positions == positions_from_index ? positions.first + at : positions.in[at];
      }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < scatter_items; ++i) {
      const uint32_t at = static_cast<uint32_t>(i) * scatter_threads + t;
      if (owned(i)) { positions.out[shared.bases[(keys[i] >> Shift) % pass_buckets] + at] = shared.tile[at]; }
    }
  }
}

template <int Shift, int Positions>
__device__ __forceinline__ void scatter_tile_by_bucket(const uint32_t* __restrict__ in, uint64_t begin, uint64_t end,
                                                       uint32_t* __restrict__ cursors, uint32_t* __restrict__ out,
                                                       position_source positions)
{
  __shared__ scatter_shared shared;
  const auto size = static_cast<uint32_t>(end - begin);
  positions.first = static_cast<uint32_t>(begin);
  if (positions.in != nullptr) { positions.in += begin; }
  if (size == scatter_tile) {
    scatter_tile_of<Shift, false, Positions>(shared, in + begin, size, cursors, out, positions);
  } else {
    scatter_tile_of<Shift, true, Positions>(shared, in + begin, size, cursors, out, positions);
  }
}

/// Step 2, first pass: the input by its top pass_bits bits into pass_buckets super-buckets (cursors start
/// at the super-buckets' offsets). One tile a block.
/// With `Positions` (positions_from_index), each element's input position goes beside it to positions.out.
template <int Positions>
__global__ void __launch_bounds__(scatter_threads, 3)
    scatter_super_buckets(const uint32_t* __restrict__ in, uint64_t n, uint32_t* __restrict__ cursors,
                          uint32_t* __restrict__ out, position_source positions)
{
  const uint64_t begin = uint64_t{blockIdx.x} * scatter_tile;
  scatter_tile_by_bucket<32 - pass_bits, Positions>(in, begin, std::min<uint64_t>(begin + scatter_tile, n), cursors,
                                                    out, positions);
}

/// Step 2, second pass: each super-bucket's elements by the next pass_bits bits into its pass_buckets
/// buckets (cursors start at the buckets' offsets). Tiles lie inside one super-bucket: the super-bucket s
/// owns tiles [tile_firsts[s], tile_firsts[s + 1]) and the elements [offsets[s * pass_buckets],
/// offsets[(s + 1) * pass_buckets]).
/// With `Positions` (positions_beside), positions.in[i] goes with in[i] to positions.out.
template <int Positions>
__global__ void __launch_bounds__(scatter_threads, 3)
    scatter_buckets(const uint32_t* __restrict__ in, const uint64_t* __restrict__ offsets,
                    const uint32_t* __restrict__ tile_firsts, uint32_t* __restrict__ cursors,
                    uint32_t* __restrict__ out, position_source positions)
{
  // The grid is the most tiles the super-buckets can need (the plan's count is on the device only).
  if (blockIdx.x >= tile_firsts[pass_buckets]) { return; }
  // The last super-bucket whose first tile is at or before this one (an empty one owns no tile).
  uint32_t low = 0;
  uint32_t high = pass_buckets;
  while (high - low > 1) {
    const uint32_t middle = (low + high) / 2;
    if (tile_firsts[middle] <= blockIdx.x) {
      low = middle;
    } else {
      high = middle;
    }
  }
  const uint32_t super = low;
  const uint64_t begin = offsets[super * pass_buckets] + uint64_t{blockIdx.x - tile_firsts[super]} * scatter_tile;
  const uint64_t end = std::min<uint64_t>(begin + scatter_tile, offsets[(super + 1) * pass_buckets]);
  scatter_tile_by_bucket<32 - bucket_bits, Positions>(in, begin, end, cursors + super * pass_buckets, out, positions);
}

/// Sets the bit of every element of parts[begin, end) in the bucket's bitmap (read first: a repeated
/// element's bit is mostly set already, and a read costs less than an atomic). Returns how many bits this
/// thread set that were clear (an atomic or's old word says so): summed over the block, the bucket's
/// distinct elements, without a scan of the bitmap.
__device__ __forceinline__ uint32_t mark_elements(const uint32_t* __restrict__ parts, uint64_t begin, uint64_t end,
                                                  uint32_t* bitmap)
{
  uint32_t fresh = 0;
  for_each_in_bucket(parts, begin, end, [&](uint32_t key) {
    const uint32_t low = key & low_mask;
    const uint32_t bit = 1U << (low & 31);
    uint32_t* word = &bitmap[word_slot(low >> 5)];
    if ((*word & bit) == 0 && (atomicOr(word, bit) & bit) == 0) { ++fresh; }
  });
  return fresh;
}

__device__ __forceinline__ void zero_shared(uint32_t* words, uint64_t count)
{
  for (uint64_t w = threadIdx.x; w < count; w += bucket_threads) { words[w] = 0; }
}

/// Zeroes a bitmap (16-byte aligned) with 16-byte stores.
__device__ __forceinline__ void zero_bitmap(uint32_t* bitmap)
{
  auto* chunks = reinterpret_cast<uint4*>(bitmap);
  for (uint32_t c = threadIdx.x; c < bitmap_words / 4; c += bucket_threads) { chunks[c] = make_uint4(0, 0, 0, 0); }
}

/// This thread's 16 bitmap words (words [16 t, 16 t + 16) in order, four 16-byte loads: word_slot), and
/// the set bits of the bucket's words before them, returned (a block-wide exclusive sum: a warp's
/// shuffles, then the warps' totals in `warp_totals`). With `Prefix`, prefix[word_slot(w)] = the set bits
/// before word w, for the counters' ranks. Ends with the block synchronized.
template <bool Prefix>
__device__ __forceinline__ uint32_t owned_words(const uint32_t* bitmap, uint32_t (&words)[words_per_thread],
                                                uint32_t* prefix, uint32_t* warp_totals)
{
  const uint32_t t = threadIdx.x;
  const uint32_t lane = t % 32;
  const uint32_t swizzle = (t >> 1) & 3U;
  const auto* chunks = reinterpret_cast<const uint4*>(bitmap) + 4 * t;
  uint32_t bits = 0;
#pragma unroll
  for (uint32_t k = 0; k < 4; ++k) {
    const uint4 chunk = chunks[k ^ swizzle];
    words[4 * k] = chunk.x;
    words[4 * k + 1] = chunk.y;
    words[4 * k + 2] = chunk.z;
    words[4 * k + 3] = chunk.w;
  }
#pragma unroll
  for (uint32_t i = 0; i < words_per_thread; ++i) { bits += __popc(words[i]); }
  uint32_t inclusive = bits;
#pragma unroll
  for (uint32_t delta = 1; delta < 32; delta *= 2) {
    const uint32_t other = __shfl_up_sync(0xffffffffU, inclusive, delta);
    if (lane >= delta) { inclusive += other; }
  }
  if (lane == 31) { warp_totals[t / 32] = inclusive; }
  __syncthreads();
  uint32_t before = inclusive - bits;
  for (uint32_t k = 0; k < t / 32; ++k) { before += warp_totals[k]; }
  if constexpr (Prefix) {
    auto* prefix_chunks = reinterpret_cast<uint4*>(prefix) + 4 * t;
    uint32_t running = before;
#pragma unroll
    for (uint32_t k = 0; k < 4; ++k) {
      uint4 chunk;
      chunk.x = running;
      running += __popc(words[4 * k]);
      chunk.y = running;
      running += __popc(words[4 * k + 1]);
      chunk.z = running;
      running += __popc(words[4 * k + 2]);
      chunk.w = running;
      running += __popc(words[4 * k + 3]);
      prefix_chunks[k ^ swizzle] = chunk;
    }
    __syncthreads();
  }
  return before;
}

/// Adds one to the counter of each element of parts[begin, end) at its rank among the bitmap's set bits.
/// `Aggregate`: the lanes of a warp holding one element add once for all (a hot element's counter would
/// otherwise take every lane's add in turn).
template <bool Aggregate>
__device__ __forceinline__ void count_elements_at_ranks(const uint32_t* __restrict__ parts, uint64_t begin,
                                                        uint64_t end, const uint32_t* bitmap, const uint32_t* prefix,
                                                        uint32_t* counters)
{
  for_each_in_bucket(parts, begin, end, [&](uint32_t key) {
    const uint32_t low = key & low_mask;
    const uint32_t w = word_slot(low >> 5);
    const uint32_t below = bitmap[w] & ((1U << (low & 31)) - 1U);
    const uint32_t rank = prefix[w] + __popc(below);
    if constexpr (Aggregate) {
      const uint32_t peers = __match_any_sync(__activemask(), rank);
      if (static_cast<int>(threadIdx.x % 32) == __ffs(static_cast<int>(peers)) - 1) {
        atomicAdd(&counters[rank], static_cast<uint32_t>(__popc(peers)));
      }
    } else {
      atomicAdd(&counters[rank], 1U);
    }
  });
}

/// A large bucket's elements are split into segments of at most `segment_elements`, one block each.
/// `slot` numbers the large buckets: slot s owns bitmap words [s * bitmap_words, (s + 1) * bitmap_words)
/// of `large_bitmaps` and, for counts, counters from large_counter_offsets[s] on.
struct large_segment {
  uint32_t bucket;
  uint32_t slot;
  uint64_t begin;
  uint64_t end;
};
constexpr uint64_t segment_elements = largest_block_bucket;
constexpr uint32_t no_slot = ~uint32_t{0};

/// The plan's counts on the device (plan_partitions): the large buckets and their segments. The kernels
/// over the large buckets or segments are launched with the most blocks n allows (at most n / 2^17 large
/// buckets, each of more than 2^17 elements, so at most n / 2^16 segments); the blocks past the counts
/// return at once.
constexpr int large_count_word = 0;
constexpr int segment_count_word = 1;
constexpr int plan_count_words = 2;
constexpr int plan_threads = 1024;
constexpr uint32_t plan_warps = plan_threads / 32;
/// Warp w of a plan kernel owns buckets [w * warp_buckets, (w + 1) * warp_buckets), in plan_rounds rounds of
/// 32 consecutive ones (bucket plan_bucket(r) in round r), so that a warp's load or store of a round
/// touches 32 consecutive words, and a round's sums are scanned by shuffles within the warp. (Owning 16
/// consecutive buckets a thread made each of those accesses 32 sectors: Nsight Compute had each plan kernel
/// at about 52 us on an H200, its one multiprocessor's L1 passing one request a cycle; 16 rounds of a
/// block-wide cub::BlockScan of 1024 consecutive buckets took 80-91 us.)
constexpr uint32_t warp_buckets = bucket_count / plan_warps;
constexpr uint32_t plan_rounds = warp_buckets / 32;
static_assert(plan_rounds * 32 * plan_warps == bucket_count && pass_buckets * pass_buckets == bucket_count &&
              pass_buckets <= plan_threads && warp_buckets % pass_buckets == 0);
__device__ __forceinline__ uint32_t plan_bucket(uint32_t round)
{
  return threadIdx.x / 32 * warp_buckets + round * 32 + threadIdx.x % 32;
}

/// The plan kernels' exclusive scan in bucket order: calls visit(r, plan_bucket(r), before) for each of the
/// thread's rounds, `before` the sum (`add`) of sums_of(r') over the buckets before plan_bucket(r); returns,
/// in the block's last thread, the sum over every bucket. One warp reduction, one barrier, then each round
/// scanned by shuffles within the warp.
template <class Sums, class SumsOf, class Add, class Visit>
__device__ __forceinline__ Sums scan_plan_rounds(const SumsOf& sums_of, const Add& add, const Sums& zero,
                                                 const Visit& visit)
{
  using warp_scan = cub::WarpScan<Sums>;
  using warp_reduce = cub::WarpReduce<Sums>;
  __shared__ typename warp_scan::TempStorage scan_storage[plan_warps];
  __shared__ typename warp_reduce::TempStorage reduce_storage[plan_warps];
  __shared__ Sums warp_totals[plan_warps];
  const uint32_t warp = threadIdx.x / 32;
  Sums owned = zero;
#pragma unroll
  for (uint32_t r = 0; r < plan_rounds; ++r) { owned = add(owned, sums_of(r)); }
  const Sums warp_total = warp_reduce(reduce_storage[warp]).Reduce(owned, add);
  if (threadIdx.x % 32 == 0) { warp_totals[warp] = warp_total; }
  __syncthreads();
  Sums running = zero;  // the buckets before this warp's, then before the round's
  for (uint32_t w = 0; w < warp; ++w) { running = add(running, warp_totals[w]); }
#pragma unroll
  for (uint32_t r = 0; r < plan_rounds; ++r) {
    Sums before;
    Sums round_total;
    warp_scan(scan_storage[warp]).ExclusiveScan(sums_of(r), before, zero, add, round_total);
    visit(r, plan_bucket(r), add(running, before));
    running = add(running, round_total);
  }
  return running;
}

/// Bucket sums scanned together in bucket order by plan_partitions: elements, large buckets, their segments.
struct partition_sums {
  uint64_t elements;
  uint32_t large;
  uint32_t segments;
};
struct add_partition_sums {
  __device__ partition_sums operator()(const partition_sums& a, const partition_sums& b) const
  {
    return {a.elements + b.elements, a.large + b.large, a.segments + b.segments};
  }
};

/// Steps 1 to 2 on the device, one block: from the bucket sizes (in `cursors`), each bucket's offset
/// (`offsets`, bucket_count + 1 of them) and first place (`cursors`, for the scatter's second pass), each
/// super-bucket's first place (`super_cursors`) and first tile in the second pass (`tile_firsts`,
/// pass_buckets + 1), each large bucket's slot (`slots`, no_slot for the others) and segments, and the
/// counts of both (`plan_counts`). No host round trip: the kernels after it read these where they run.
__global__ void __launch_bounds__(plan_threads)
    plan_partitions(uint32_t* __restrict__ cursors, uint64_t* __restrict__ offsets,
                    uint32_t* __restrict__ super_cursors, uint32_t* __restrict__ tile_firsts,
                    uint32_t* __restrict__ slots, large_segment* __restrict__ segments,
                    uint32_t* __restrict__ plan_counts)
{
  using tiles_scan = cub::BlockScan<uint64_t, plan_threads>;
  __shared__ typename tiles_scan::TempStorage tiles_storage;
  __shared__ uint64_t super_firsts[pass_buckets + 1];
  uint32_t sizes[plan_rounds];
#pragma unroll
  for (uint32_t r = 0; r < plan_rounds; ++r) { sizes[r] = cursors[plan_bucket(r)]; }
  const auto sums_of = [&](uint32_t r) {
    const bool large = sizes[r] > largest_block_bucket;
    return partition_sums{sizes[r], large ? 1U : 0U,
                          large ? static_cast<uint32_t>((sizes[r] + segment_elements - 1) / segment_elements) : 0U};
  };
  const partition_sums totals = scan_plan_rounds(
      sums_of, add_partition_sums{}, partition_sums{0, 0, 0}, [&](uint32_t r, uint32_t b, const partition_sums& before) {
        const uint64_t at = before.elements;
        offsets[b] = at;
        cursors[b] = static_cast<uint32_t>(at);
        if (b % pass_buckets == 0) { super_firsts[b / pass_buckets] = at; }
        if (sizes[r] > largest_block_bucket) {
          slots[b] = before.large;
          uint32_t segment = before.segments;
          const uint64_t end = at + sizes[r];
          for (uint64_t begin = at; begin < end; begin += segment_elements) {
            segments[segment++] = large_segment{b, before.large, begin, std::min(begin + segment_elements, end)};
          }
        } else {
          slots[b] = no_slot;
        }
      });
  if (threadIdx.x == plan_threads - 1) {
    offsets[bucket_count] = totals.elements;
    super_firsts[pass_buckets] = totals.elements;
    plan_counts[large_count_word] = totals.large;
    plan_counts[segment_count_word] = totals.segments;
  }
  __syncthreads();
  uint64_t tiles = 0;
  if (threadIdx.x < pass_buckets) {
    const uint64_t begin = super_firsts[threadIdx.x];
    super_cursors[threadIdx.x] = static_cast<uint32_t>(begin);
    tiles = (super_firsts[threadIdx.x + 1] - begin + scatter_tile - 1) / scatter_tile;
  }
  uint64_t tiles_before = 0;
  tiles_scan(tiles_storage).ExclusiveSum(tiles, tiles_before);
  if (threadIdx.x < pass_buckets) { tile_firsts[threadIdx.x] = static_cast<uint32_t>(tiles_before); }
  if (threadIdx.x == pass_buckets - 1) { tile_firsts[pass_buckets] = static_cast<uint32_t>(tiles_before + tiles); }
}

/// Zeroes the bitmaps of the large buckets (one block a slot; `copies` bitmaps a slot, `stride` words
/// apart); the blocks past the large buckets return.
__global__ void __launch_bounds__(bucket_threads)
    zero_large_bitmaps(uint32_t* __restrict__ bits, uint64_t stride, int copies,
                       const uint32_t* __restrict__ plan_counts)
{
  if (blockIdx.x >= plan_counts[large_count_word]) { return; }
  for (int c = 0; c < copies; ++c) {
    auto* chunks = reinterpret_cast<uint4*>(bits + c * stride + uint64_t{blockIdx.x} * bitmap_words);
    for (uint32_t w = threadIdx.x; w < bitmap_words / 4; w += bucket_threads) { chunks[w] = make_uint4(0, 0, 0, 0); }
  }
}

/// Step 3 for the large buckets: each segment's bitmap, or-ed into its bucket's bitmap in global memory.
__global__ void __launch_bounds__(bucket_threads)
    mark_large_segments(const uint32_t* __restrict__ parts, const large_segment* __restrict__ segments,
                        const uint32_t* __restrict__ plan_counts, uint32_t* __restrict__ large_bitmaps)
{
  __shared__ __align__(16) uint32_t bitmap[bitmap_words];
  if (blockIdx.x >= plan_counts[segment_count_word]) { return; }
  const large_segment segment = segments[blockIdx.x];
  zero_bitmap(bitmap);
  __syncthreads();
  mark_elements(parts, segment.begin, segment.end, bitmap);
  __syncthreads();
  uint32_t* global = large_bitmaps + uint64_t{segment.slot} * bitmap_words;
  for (uint32_t w = threadIdx.x; w < bitmap_words; w += bucket_threads) {
    if (bitmap[w] != 0) { atomicOr(&global[w], bitmap[w]); }
  }
}

/// Step 3: the distinct elements of each bucket (a large bucket's from its global bitmap).
__global__ void __launch_bounds__(bucket_threads)
    count_bucket_distinct(const uint32_t* __restrict__ parts, const uint64_t* __restrict__ offsets,
                          const uint32_t* __restrict__ slots, const uint32_t* __restrict__ large_bitmaps,
                          uint32_t* __restrict__ distinct)
{
  __shared__ __align__(16) uint32_t bitmap[bitmap_words];
  using reduce = cub::BlockReduce<uint32_t, bucket_threads>;
  __shared__ typename reduce::TempStorage reduce_storage;
  const uint64_t begin = offsets[blockIdx.x];
  const uint64_t end = offsets[blockIdx.x + 1];
  if (end == begin) {
    if (threadIdx.x == 0) { distinct[blockIdx.x] = 0; }
    return;
  }
  const uint32_t slot = slots[blockIdx.x];
  uint32_t set = 0;
  if (slot != no_slot) {
    const uint32_t* words = large_bitmaps + uint64_t{slot} * bitmap_words;
    for (uint32_t w = threadIdx.x; w < bitmap_words; w += bucket_threads) { set += __popc(words[w]); }
  } else {
    zero_bitmap(bitmap);
    __syncthreads();
    set = mark_elements(parts, begin, end, bitmap);
  }
  const uint32_t total = reduce(reduce_storage).Sum(set);
  if (threadIdx.x == 0) { distinct[blockIdx.x] = total; }
}

/// The words of the output plan that come home (plan_outputs; one copy into pinned memory, one wait).
constexpr int summary_total = 0;           ///< distinct elements in all
constexpr int summary_most_distinct = 1;   ///< the most distinct elements of a bucket that is not sorted
constexpr int summary_overflowing = 2;     ///< buckets of more distinct elements than counter_capacity
constexpr int summary_large_counters = 3;  ///< the large buckets' counters in global memory
constexpr int summary_words = 4;

/// Step 4 on the device, one block: each bucket's output offset (out_offsets[0, bucket_count]; the fallback
/// starts after them, set to no_fallback), the large buckets' counter offsets (for counts: the large
/// buckets that are not sorted, in slot order; large_counter_offsets[large count] is their total), and
/// the summary the host needs to size the output and the writing kernel's shared memory.
__global__ void __launch_bounds__(plan_threads)
    plan_outputs(const uint32_t* __restrict__ distinct, const uint32_t* __restrict__ slots,
                 const uint32_t* __restrict__ plan_counts, uint64_t counter_capacity, bool with_counts,
                 uint64_t* __restrict__ out_offsets, uint64_t* __restrict__ large_counter_offsets,
                 uint64_t* __restrict__ summary)
{
  using reduce = cub::BlockReduce<uint64_t, plan_threads>;
  __shared__ typename reduce::TempStorage reduce_storage;
  // Scanned together: .x the distinct elements, .y the large buckets' counters (counts only).
  const auto add = [](const ulonglong2& a, const ulonglong2& b) { return make_ulonglong2(a.x + b.x, a.y + b.y); };
  uint32_t counts[plan_rounds];
  uint32_t slot_of[plan_rounds];
  uint64_t overflowing = 0;
  uint64_t most = 0;
#pragma unroll
  for (uint32_t r = 0; r < plan_rounds; ++r) {
    counts[r] = distinct[plan_bucket(r)];
    slot_of[r] = slots[plan_bucket(r)];
    if (counts[r] <= counter_capacity) {
      most = std::max<uint64_t>(most, counts[r]);
    } else {
      ++overflowing;
    }
  }
  const auto sums_of = [&](uint32_t r) {
    const bool counted = with_counts && counts[r] <= counter_capacity && slot_of[r] != no_slot;
    return make_ulonglong2(counts[r], counted ? counts[r] : 0);
  };
  const ulonglong2 totals =
      scan_plan_rounds(sums_of, add, make_ulonglong2(0, 0), [&](uint32_t r, uint32_t b, const ulonglong2& before) {
        out_offsets[b] = before.x;
        out_offsets[bucket_count + 1 + b] = no_fallback;
        if (slot_of[r] != no_slot) { large_counter_offsets[slot_of[r]] = before.y; }
      });
  const uint64_t block_most = reduce(reduce_storage).Reduce(most, [](uint64_t a, uint64_t b) { return a < b ? b : a; });
  __syncthreads();
  const uint64_t block_overflowing = reduce(reduce_storage).Sum(overflowing);
  if (threadIdx.x == plan_threads - 1) {
    out_offsets[bucket_count] = totals.x;
    large_counter_offsets[plan_counts[large_count_word]] = totals.y;
    summary[summary_total] = totals.x;
    summary[summary_large_counters] = totals.y;
  }
  if (threadIdx.x == 0) {
    summary[summary_most_distinct] = block_most;
    summary[summary_overflowing] = block_overflowing;
  }
}

/// Shared memory of the kernels with counters: bitmap, word prefixes (the writing kernel's staging area once
/// the counting is done), warp totals, then the counters.
struct counting_shared {
  uint32_t* bitmap;
  uint32_t* prefix;
  uint32_t* warp_totals;
  uint32_t* counters;
};

__device__ __forceinline__ counting_shared carve(uint32_t* shared)
{
  return {shared, shared + bitmap_words, shared + 2 * bitmap_words, shared + 2 * bitmap_words + 32};
}

/// Step 5 before it, for counts of the large buckets: each segment counts its elements in shared counters
/// at their ranks in the bucket's global bitmap and adds the non-zero ones to the bucket's global counters
/// (a hot element: one global add a segment).
__global__ void __launch_bounds__(bucket_threads)
    count_large_segments(const uint32_t* __restrict__ parts, const large_segment* __restrict__ segments,
                         const uint32_t* __restrict__ plan_counts, const uint32_t* __restrict__ large_bitmaps,
                         const uint64_t* __restrict__ large_counter_offsets,
                         const uint64_t* __restrict__ fallback_starts, const uint32_t* __restrict__ distinct,
                         uint32_t* __restrict__ large_counters)
{
  extern __shared__ __align__(16) uint32_t shared[];
  const counting_shared memory = carve(shared);
  if (blockIdx.x >= plan_counts[segment_count_word]) { return; }
  const large_segment segment = segments[blockIdx.x];
  if (fallback_starts[segment.bucket] != no_fallback) { return; }
  const uint32_t bucket_distinct = distinct[segment.bucket];
  const uint32_t* global = large_bitmaps + uint64_t{segment.slot} * bitmap_words;
  for (uint32_t w = threadIdx.x; w < bitmap_words; w += bucket_threads) { memory.bitmap[w] = global[w]; }
  zero_shared(memory.counters, bucket_distinct);
  __syncthreads();
  uint32_t words[words_per_thread];
  owned_words<true>(memory.bitmap, words, memory.prefix, memory.warp_totals);
  count_elements_at_ranks<true>(parts, segment.begin, segment.end, memory.bitmap, memory.prefix, memory.counters);
  __syncthreads();
  uint32_t* counters = large_counters + large_counter_offsets[segment.slot];
  for (uint32_t r = threadIdx.x; r < bucket_distinct; r += bucket_threads) {
    if (memory.counters[r] != 0) { atomicAdd(&counters[r], memory.counters[r]); }
  }
}

/// Step 5: each bucket's distinct elements (and counts) at its output offset; an overflowing bucket's
/// runs are copied from the fallback's, a large bucket's bitmap and counts come from global memory.
template <bool Counts>
__global__ void __launch_bounds__(bucket_threads)
    write_bucket_distinct(const uint32_t* __restrict__ parts, const uint64_t* __restrict__ offsets,
                          const uint64_t* __restrict__ out_offsets, const uint64_t* __restrict__ fallback_starts,
                          const uint32_t* __restrict__ fallback_keys, const uint32_t* __restrict__ fallback_counts,
                          const uint32_t* __restrict__ slots, const uint32_t* __restrict__ large_bitmaps,
                          const uint64_t* __restrict__ large_counter_offsets,
                          const uint32_t* __restrict__ large_counters, uint32_t* __restrict__ out_keys,
                          uint64_t* __restrict__ out_counts)
{
  extern __shared__ __align__(16) uint32_t shared[];
  const counting_shared memory = carve(shared);
  const uint32_t b = blockIdx.x;
  const uint64_t out_begin = out_offsets[b];
  const uint64_t out_size = out_offsets[b + 1] - out_begin;
  const uint64_t fallback = fallback_starts[b];
  if (fallback != no_fallback) {
    for (uint64_t j = threadIdx.x; j < out_size; j += bucket_threads) {
      out_keys[out_begin + j] = fallback_keys[fallback + j];
      if constexpr (Counts) { out_counts[out_begin + j] = fallback_counts[fallback + j]; }
    }
    return;
  }
  if (out_size == 0) { return; }
  const uint64_t begin = offsets[b];
  const uint64_t end = offsets[b + 1];
  const uint32_t slot = slots[b];
  const uint32_t* counts = memory.counters;
  if (slot != no_slot) {
    const uint32_t* global = large_bitmaps + uint64_t{slot} * bitmap_words;
    for (uint32_t w = threadIdx.x; w < bitmap_words; w += bucket_threads) { memory.bitmap[w] = global[w]; }
    if constexpr (Counts) { counts = large_counters + large_counter_offsets[slot]; }
    __syncthreads();
  } else {
    zero_bitmap(memory.bitmap);
    if constexpr (Counts) { zero_shared(memory.counters, out_size); }
    __syncthreads();
    mark_elements(parts, begin, end, memory.bitmap);
    __syncthreads();
  }
  uint32_t words[words_per_thread];
  const uint32_t before = owned_words<Counts>(memory.bitmap, words, memory.prefix, memory.warp_totals);
  if constexpr (Counts) {
    if (slot == no_slot) {
      count_elements_at_ranks<false>(parts, begin, end, memory.bitmap, memory.prefix, memory.counters);
      __syncthreads();
    }
  }
  // The distinct elements in windows of bitmap_words ranks: each thread puts those of its words' set bits
  // whose ranks fall in the window at their places in the staging area (the prefixes' memory), then
  // consecutive threads write the window to consecutive addresses.
  uint32_t* stage = memory.prefix;
  const uint32_t high = (b << low_bits) | (threadIdx.x * words_per_thread << 5);
  uint32_t owned = 0;
#pragma unroll
  for (uint32_t i = 0; i < words_per_thread; ++i) { owned += __popc(words[i]); }
  for (uint64_t window = 0; window < out_size; window += bitmap_words) {
    if (before < window + bitmap_words && before + owned > window) {
      auto rank = static_cast<uint32_t>(before - window);  // modulo 2^32: ranks below the window wrap high
#pragma unroll
      for (uint32_t i = 0; i < words_per_thread; ++i) {
        uint32_t word = words[i];
        while (word != 0) {
          const uint32_t bit = static_cast<uint32_t>(__ffs(static_cast<int>(word)) - 1);
          word &= word - 1;
          if (rank < bitmap_words) { stage[rank] = high | (i << 5) | bit; }
          ++rank;
        }
      }
    }
    __syncthreads();
    const auto size = static_cast<uint32_t>(std::min<uint64_t>(bitmap_words, out_size - window));
    for (uint32_t j = threadIdx.x; j < size; j += bucket_threads) {
      out_keys[out_begin + window + j] = stage[j];
      if constexpr (Counts) { out_counts[out_begin + window + j] = counts[window + j]; }
    }
    __syncthreads();
  }
}

/// The once-flags' shared memory: a bit for each of the bucket's 2^18 values seen, and one for those
/// seen twice or more (64 KiB, dynamic).
constexpr std::size_t once_shared_bytes = 2 * bitmap_words * sizeof(uint32_t);

/// Sets each element's bit in `seen`, and in `repeated` where it was set already (each read first: a
/// repeated element's bits are mostly set, and a read costs less than an atomic).
__device__ __forceinline__ void mark_seen_and_repeated(const uint32_t* __restrict__ parts, uint64_t begin, uint64_t end,
                                                       uint32_t* seen, uint32_t* repeated)
{
  for_each_in_bucket(parts, begin, end, [&](uint32_t key) {
    const uint32_t low = key & low_mask;
    const uint32_t w = low >> 5;
    const uint32_t bit = 1U << (low & 31);
    if ((repeated[w] & bit) != 0) { return; }
    const uint32_t before = (seen[w] & bit) != 0 ? bit : atomicOr(&seen[w], bit);
    if ((before & bit) != 0) { atomicOr(&repeated[w], bit); }
  });
}

/// Sets bit positions[i] of the once-bitmap for each element of parts[begin, end) whose `repeated` bit is
/// clear (`repeated` in shared or global memory).
template <int Batch>
__device__ __forceinline__ void flag_singletons_by(const uint32_t* __restrict__ parts,
                                                   const uint32_t* __restrict__ positions, uint64_t begin, uint64_t end,
                                                   const uint32_t* repeated, uint32_t* __restrict__ once)
{
  for (uint64_t chunk = begin; chunk < end; chunk += uint64_t{bucket_threads} * Batch) {
    uint32_t keys[Batch];
#pragma unroll
    for (int j = 0; j < Batch; ++j) {
      const uint64_t i = chunk + static_cast<uint64_t>(j) * bucket_threads + threadIdx.x;
      keys[j] = i < end ? parts[i] : 0;
    }
#pragma unroll
    for (int j = 0; j < Batch; ++j) {
      const uint64_t i = chunk + static_cast<uint64_t>(j) * bucket_threads + threadIdx.x;
      const uint32_t low = keys[j] & low_mask;
      if (i < end && (repeated[low >> 5] & (1U << (low & 31))) == 0) {
        const uint32_t position = positions[i];
        atomicOr(&once[position / 32], 1U << (position % 32));
      }
    }
  }
}

__device__ __forceinline__ void flag_singletons(const uint32_t* __restrict__ parts,
                                                const uint32_t* __restrict__ positions, uint64_t begin, uint64_t end,
                                                const uint32_t* repeated, uint32_t* __restrict__ once)
{
  if (end - begin <= uint64_t{bucket_threads} * small_batch) {
    flag_singletons_by<small_batch>(parts, positions, begin, end, repeated, once);
  } else {
    flag_singletons_by<load_batch>(parts, positions, begin, end, repeated, once);
  }
}

/// The once-flags of the buckets of at most largest_block_bucket elements, one block a bucket, in
/// shared memory (the large buckets' blocks return).
__global__ void __launch_bounds__(bucket_threads)
    flag_bucket_singletons(const uint32_t* __restrict__ parts, const uint32_t* __restrict__ positions,
                           const uint64_t* __restrict__ offsets, const uint32_t* __restrict__ slots,
                           uint32_t* __restrict__ once)
{
  extern __shared__ __align__(16) uint32_t shared[];
  uint32_t* seen = shared;
  uint32_t* repeated = shared + bitmap_words;
  const uint64_t begin = offsets[blockIdx.x];
  const uint64_t end = offsets[blockIdx.x + 1];
  if (end == begin || slots[blockIdx.x] != no_slot) { return; }
  zero_shared(shared, 2 * bitmap_words);
  __syncthreads();
  mark_seen_and_repeated(parts, begin, end, seen, repeated);
  __syncthreads();
  flag_singletons(parts, positions, begin, end, repeated, once);
}

/// A large bucket's segments, first: each segment's seen and repeated bits, or-ed into the bucket's in
/// global memory; a value seen by another segment before is repeated (whichever segment ors second
/// gets the first one's bit back from its atomic or).
__global__ void __launch_bounds__(bucket_threads)
    mark_large_repeated(const uint32_t* __restrict__ parts, const large_segment* __restrict__ segments,
                        const uint32_t* __restrict__ plan_counts, uint32_t* __restrict__ large_seen,
                        uint32_t* __restrict__ large_repeated)
{
  extern __shared__ __align__(16) uint32_t shared[];
  uint32_t* seen = shared;
  uint32_t* repeated = shared + bitmap_words;
  if (blockIdx.x >= plan_counts[segment_count_word]) { return; }
  const large_segment segment = segments[blockIdx.x];
  zero_shared(shared, 2 * bitmap_words);
  __syncthreads();
  mark_seen_and_repeated(parts, segment.begin, segment.end, seen, repeated);
  __syncthreads();
  const uint64_t first = uint64_t{segment.slot} * bitmap_words;
  for (uint32_t w = threadIdx.x; w < bitmap_words; w += bucket_threads) {
    if (seen[w] == 0) { continue; }
    const uint32_t before = atomicOr(&large_seen[first + w], seen[w]);
    const uint32_t twice = repeated[w] | (before & seen[w]);
    if (twice != 0) { atomicOr(&large_repeated[first + w], twice); }
  }
}

/// Then each segment's once-flags from its bucket's repeated bits in global memory (32 KiB a bucket,
/// read from the L2 cache).
__global__ void __launch_bounds__(bucket_threads)
    flag_large_singletons(const uint32_t* __restrict__ parts, const uint32_t* __restrict__ positions,
                          const large_segment* __restrict__ segments, const uint32_t* __restrict__ plan_counts,
                          const uint32_t* __restrict__ large_repeated, uint32_t* __restrict__ once)
{
  if (blockIdx.x >= plan_counts[segment_count_word]) { return; }
  const large_segment segment = segments[blockIdx.x];
  flag_singletons(parts, positions, segment.begin, segment.end, large_repeated + uint64_t{segment.slot} * bitmap_words,
                  once);
}

struct device_limits {
  int multiprocessors = 0;
  std::size_t shared_optin = 0;
};

device_limits current_device_limits()
{
  int device = 0;
  int multiprocessors = 0;
  int optin = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return {multiprocessors, static_cast<std::size_t>(optin)};
}

template <class T>
void copy_to_host(const cuda& backend, std::vector<T>& host, const T* device)
{
  WARPDEX_CUDA_TRY(
      cudaMemcpyAsync(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost, backend.stream));
  backend.synchronize();
}

/// The engine's memory besides its outputs, carved from one block of a scratch slot of the library's pool
/// (warpdex::detail::sync_scratch: kept per device and grown to the largest call, so a warm call
/// allocates nothing but its outputs). Every array is sized for n, not for the input's buckets, since
/// the sizes are known on the device only: `segments` and the large buckets' bitmaps for the most that n
/// elements can make.
struct engine_memory {
  uint32_t* cursors = nullptr;                ///< bucket_count: the histogram, then the second pass's cursors
  uint32_t* super_cursors = nullptr;          ///< pass_buckets
  uint32_t* tile_firsts = nullptr;            ///< pass_buckets + 1
  uint64_t* offsets = nullptr;                ///< bucket_count + 1
  uint32_t* slots = nullptr;                  ///< bucket_count
  uint32_t* plan_counts = nullptr;            ///< plan_count_words
  uint32_t* distinct = nullptr;               ///< bucket_count
  uint64_t* out_offsets = nullptr;            ///< 2 * bucket_count + 1: the output offsets, then the fallback's starts
  uint64_t* summary = nullptr;                ///< summary_words
  uint64_t* large_counter_offsets = nullptr;  ///< max_large + 1
  large_segment* segments = nullptr;          ///< max_segments
  uint32_t* large_bits = nullptr;             ///< max_large bitmaps (two sets for the once-flags: seen, then repeated)
  uint32_t* parts = nullptr;                  ///< n: the elements in their buckets
  uint32_t* grouped = nullptr;                ///< n: the first pass's output (then the large buckets' counters)
  uint32_t* positions = nullptr;              ///< n with positions, else none
  uint32_t* grouped_positions = nullptr;
  uint64_t max_large = 0;
  uint64_t max_segments = 0;
};

/// Lays the engine's arrays out from `base` (256-byte aligned each); `bytes` gets the size of the whole.
engine_memory lay_out_engine_memory(std::uintptr_t base, uint64_t n, bool with_positions, std::size_t& bytes)
{
  std::size_t at = 0;
  const auto take = [&](auto*& pointer, uint64_t count) {
    using T = std::remove_reference_t<decltype(*pointer)>;
    at = (at + 255) / 256 * 256;
    pointer = reinterpret_cast<T*>(base + at);
    at += count * sizeof(T);
  };
  engine_memory memory;
  memory.max_large = n >> 17;  // each large bucket holds more than largest_block_bucket = 2^17 elements
  memory.max_segments = n >> 16;
  static_assert(largest_block_bucket == (uint64_t{1} << 17) && segment_elements == largest_block_bucket);
  take(memory.cursors, bucket_count);
  take(memory.super_cursors, pass_buckets);
  take(memory.tile_firsts, pass_buckets + 1);
  take(memory.offsets, bucket_count + 1);
  take(memory.slots, bucket_count);
  take(memory.plan_counts, plan_count_words);
  take(memory.distinct, bucket_count);
  take(memory.out_offsets, 2 * bucket_count + 1);
  take(memory.summary, summary_words);
  take(memory.large_counter_offsets, memory.max_large + 1);
  take(memory.segments, memory.max_segments);
  take(memory.large_bits, (with_positions ? 2 : 1) * memory.max_large * bitmap_words);
  take(memory.parts, n);
  take(memory.grouped, n);
  take(memory.positions, with_positions ? n : 0);
  take(memory.grouped_positions, with_positions ? n : 0);
  bytes = at;
  return memory;
}

/// The engine's memory in the leased slot (grown if this call needs more).
engine_memory engine_memory_in(const cuda& backend, warpdex::detail::sync_scratch& scratch, uint64_t n,
                               bool with_positions)
{
  std::size_t bytes = 0;
  lay_out_engine_memory(0, n, with_positions, bytes);
  std::uint8_t* base = scratch.workspace().reserve(backend, bytes);
  return lay_out_engine_memory(reinterpret_cast<std::uintptr_t>(base), n, with_positions, bytes);
}

/// Steps 1 and 2, launched back to back with the plan between them: the elements scattered into their
/// buckets (memory.parts, bucket b at [offsets[b], offsets[b + 1]) on the device), with each element's
/// input position beside it in memory.positions when asked.
void partition_elements(const cuda& backend, std::span<const uint32_t> elements, const engine_memory& memory,
                        bool with_positions, const device_limits& limits)
{
  const uint64_t n = elements.size();
  const cudaStream_t stream = backend.stream;

  // 1. Bucket sizes, and the plan: offsets, cursors, tiles, large buckets.
  WARPDEX_CUDA_TRY(cudaMemsetAsync(memory.cursors, 0, bins_bytes, stream));
  WARPDEX_CUDA_TRY(cudaFuncSetAttribute(partition_histogram, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(bins_bytes)));
  const auto histogram_blocks = static_cast<unsigned>(
      std::min<uint64_t>((n + histogram_threads - 1) / histogram_threads, uint64_t{3} * limits.multiprocessors));
  partition_histogram<<<histogram_blocks, histogram_threads, bins_bytes, stream>>>(elements.data(), n, memory.cursors);
  WARPDEX_CHECK_LAUNCH("partition_histogram");
  plan_partitions<<<1, plan_threads, 0, stream>>>(memory.cursors, memory.offsets, memory.super_cursors,
                                                  memory.tile_firsts, memory.slots, memory.segments,
                                                  memory.plan_counts);
  WARPDEX_CHECK_LAUNCH("plan_partitions");

  // 2. The scatter, in two passes: by the top 7 bits into super-buckets, then each super-bucket's tiles
  //    by the next 7 bits into its buckets (positions beside the elements when asked). The second pass's
  //    grid is the most tiles the super-buckets can need (each one's last tile may be partial).
  const auto tiles = static_cast<unsigned>((n + scatter_tile - 1) / scatter_tile);
  const unsigned most_tiles = tiles + pass_buckets;
  if (with_positions) {
    scatter_super_buckets<positions_from_index>
        <<<tiles, scatter_threads, 0, stream>>>(elements.data(), n, memory.super_cursors, memory.grouped,
                                                position_source{nullptr, memory.grouped_positions, 0});
    WARPDEX_CHECK_LAUNCH("scatter_super_buckets");
    scatter_buckets<positions_beside><<<most_tiles, scatter_threads, 0, stream>>>(
        memory.grouped, memory.offsets, memory.tile_firsts, memory.cursors, memory.parts,
        position_source{memory.grouped_positions, memory.positions, 0});
  } else {
    scatter_super_buckets<no_positions><<<tiles, scatter_threads, 0, stream>>>(
        elements.data(), n, memory.super_cursors, memory.grouped, position_source{nullptr, nullptr, 0});
    WARPDEX_CHECK_LAUNCH("scatter_super_buckets");
    scatter_buckets<no_positions>
        <<<most_tiles, scatter_threads, 0, stream>>>(memory.grouped, memory.offsets, memory.tile_firsts, memory.cursors,
                                                     memory.parts, position_source{nullptr, nullptr, 0});
  }
  WARPDEX_CHECK_LAUNCH("scatter_buckets");
}

/// Whether any bucket of n elements can be large (more than largest_block_bucket elements).
bool may_have_large_buckets(uint64_t n)
{
  return n > largest_block_bucket;
}

/// For counts, the buckets with more distinct elements than shared counters (rare: about 41,000 distinct
/// elements in one bucket's 2^18 values), sorted together on the host's orders (their concatenation sorted
/// is each one sorted, in bucket order): their runs in `keys` and `counts`, and each one's first run in
/// the fallback starts on the device. Round trips and allocations, on this path only.
struct fallback_runs {
  buffer<uint32_t> keys;
  buffer<uint32_t> counts;
};

fallback_runs sort_overflowing_buckets(const cuda& backend, const engine_memory& memory, uint64_t counter_capacity)
{
  const cudaStream_t stream = backend.stream;
  std::vector<uint32_t> distinct(bucket_count);
  std::vector<uint64_t> offsets(bucket_count + 1);
  copy_to_host(backend, distinct, memory.distinct);
  copy_to_host(backend, offsets, memory.offsets);
  std::vector<uint32_t> overflowing;
  uint64_t overflowing_elements = 0;
  for (uint32_t b = 0; b < bucket_count; ++b) {
    if (distinct[b] > counter_capacity) {
      overflowing.push_back(b);
      overflowing_elements += offsets[b + 1] - offsets[b];
    }
  }
  auto sorted = make_buffer<uint32_t>(backend, overflowing_elements);
  {
    auto gathered = make_buffer<uint32_t>(backend, overflowing_elements);
    uint64_t at = 0;
    for (const uint32_t b : overflowing) {
      const uint64_t size = offsets[b + 1] - offsets[b];
      WARPDEX_CUDA_TRY(cudaMemcpyAsync(gathered.data() + at, memory.parts + offsets[b], size * sizeof(uint32_t),
                                       cudaMemcpyDeviceToDevice, stream));
      at += size;
    }
    warpdex::detail::sort_keys(backend, gathered.data(), sorted.data(), overflowing_elements);
  }
  fallback_runs runs{make_buffer<uint32_t>(backend, overflowing_elements),
                     make_buffer<uint32_t>(backend, overflowing_elements)};
  const auto ends =
      thrust::reduce_by_key(warpdex::detail::policy(backend), sorted.data(), sorted.data() + overflowing_elements,
                            thrust::constant_iterator<uint32_t>(1), runs.keys.data(), runs.counts.data());
  const auto run_count = static_cast<uint64_t>(ends.first - runs.keys.data());
  std::vector<uint32_t> firsts(overflowing.size());
  for (std::size_t i = 0; i < overflowing.size(); ++i) { firsts[i] = overflowing[i] << low_bits; }
  auto device_firsts = make_buffer<uint32_t>(backend, firsts.size());
  WARPDEX_CUDA_TRY(cudaMemcpyAsync(device_firsts.data(), firsts.data(), firsts.size() * sizeof(uint32_t),
                                   cudaMemcpyHostToDevice, stream));
  auto device_run_starts = make_buffer<uint64_t>(backend, overflowing.size());
  thrust::lower_bound(warpdex::detail::policy_nosync(backend), runs.keys.data(), runs.keys.data() + run_count,
                      device_firsts.data(), device_firsts.data() + firsts.size(), device_run_starts.data());
  std::vector<uint64_t> run_starts(overflowing.size());
  copy_to_host(backend, run_starts, device_run_starts.data());
  std::vector<uint64_t> fallback_starts(bucket_count, no_fallback);
  for (std::size_t i = 0; i < overflowing.size(); ++i) { fallback_starts[overflowing[i]] = run_starts[i]; }
  WARPDEX_CUDA_TRY(cudaMemcpyAsync(memory.out_offsets + bucket_count + 1, fallback_starts.data(),
                                   bucket_count * sizeof(uint64_t), cudaMemcpyHostToDevice, stream));
  backend.synchronize();  // the copies from this function's vectors are done before they go
  return runs;
}

}  // namespace

partitioned_distinct_result partitioned_distinct(const cuda& backend, std::span<const uint32_t> elements,
                                                 bool with_counts)
{
  const uint64_t n = elements.size();
  partitioned_distinct_result result{make_buffer<uint32_t>(backend, 0), make_buffer<uint64_t>(backend, 0)};
  if (n == 0) { return result; }
  const device_limits limits = current_device_limits();
  const cudaStream_t stream = backend.stream;
  warpdex::detail::sync_scratch scratch(backend);
  const engine_memory memory = engine_memory_in(backend, scratch, n, false);
  uint64_t* home = scratch.host_words(summary_words);
  partition_elements(backend, elements, memory, false, limits);

  // 3. Distinct elements per bucket; a large bucket's segments first build its bitmap in global memory.
  const bool large = may_have_large_buckets(n);
  if (large) {
    zero_large_bitmaps<<<static_cast<unsigned>(memory.max_large), bucket_threads, 0, stream>>>(memory.large_bits, 0, 1,
                                                                                               memory.plan_counts);
    WARPDEX_CHECK_LAUNCH("zero_large_bitmaps");
    mark_large_segments<<<static_cast<unsigned>(memory.max_segments), bucket_threads, 0, stream>>>(
        memory.parts, memory.segments, memory.plan_counts, memory.large_bits);
    WARPDEX_CHECK_LAUNCH("mark_large_segments");
  }
  count_bucket_distinct<<<bucket_count, bucket_threads, 0, stream>>>(memory.parts, memory.offsets, memory.slots,
                                                                     memory.large_bits, memory.distinct);
  WARPDEX_CHECK_LAUNCH("count_bucket_distinct");

  // 4. The output offsets on the device; the host reads the total (the output's size) and, for counts,
  //    the shared memory the writing kernel needs, in one copy to pinned memory and one wait. For counts,
  //    the buckets with more distinct elements than shared counters are sorted together (rare).
  const uint64_t counter_capacity =
      with_counts ? (limits.shared_optin - write_fixed_bytes) / sizeof(uint32_t) : ~uint64_t{0};
  plan_outputs<<<1, plan_threads, 0, stream>>>(memory.distinct, memory.slots, memory.plan_counts, counter_capacity,
                                               with_counts, memory.out_offsets, memory.large_counter_offsets,
                                               memory.summary);
  WARPDEX_CHECK_LAUNCH("plan_outputs");
  WARPDEX_CUDA_TRY(
      cudaMemcpyAsync(home, memory.summary, summary_words * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream));
  backend.synchronize();
  const uint64_t total = home[summary_total];
  const uint64_t most_distinct = home[summary_most_distinct];
  const uint64_t large_counters = home[summary_large_counters];
  fallback_runs fallback{make_buffer<uint32_t>(backend, 0), make_buffer<uint32_t>(backend, 0)};
  if (home[summary_overflowing] != 0) { fallback = sort_overflowing_buckets(backend, memory, counter_capacity); }

  // 5. The output (for counts, the large buckets' segments count first, into the first pass's memory).
  result.elements = make_buffer<uint32_t>(backend, total);
  if (with_counts) { result.counts = make_buffer<uint64_t>(backend, total); }
  const uint64_t* fallback_starts = memory.out_offsets + bucket_count + 1;
  uint32_t* large_counter_memory = memory.grouped;  // large_counters <= n
  if (with_counts) {
    const std::size_t shared_bytes = write_fixed_bytes + most_distinct * sizeof(uint32_t);
    if (large && large_counters != 0) {
      WARPDEX_CUDA_TRY(cudaMemsetAsync(large_counter_memory, 0, large_counters * sizeof(uint32_t), stream));
      WARPDEX_CUDA_TRY(cudaFuncSetAttribute(count_large_segments, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared_bytes)));
      count_large_segments<<<static_cast<unsigned>(memory.max_segments), bucket_threads, shared_bytes, stream>>>(
          memory.parts, memory.segments, memory.plan_counts, memory.large_bits, memory.large_counter_offsets,
          fallback_starts, memory.distinct, large_counter_memory);
      WARPDEX_CHECK_LAUNCH("count_large_segments");
    }
    WARPDEX_CUDA_TRY(cudaFuncSetAttribute(write_bucket_distinct<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(shared_bytes)));
    write_bucket_distinct<true><<<bucket_count, bucket_threads, shared_bytes, stream>>>(
        memory.parts, memory.offsets, memory.out_offsets, fallback_starts, fallback.keys.data(), fallback.counts.data(),
        memory.slots, memory.large_bits, memory.large_counter_offsets, large_counter_memory, result.elements.data(),
        result.counts.data());
  } else {
    WARPDEX_CUDA_TRY(cudaFuncSetAttribute(write_bucket_distinct<false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(write_fixed_bytes)));
    write_bucket_distinct<false><<<bucket_count, bucket_threads, write_fixed_bytes, stream>>>(
        memory.parts, memory.offsets, memory.out_offsets, fallback_starts, fallback.keys.data(), fallback.counts.data(),
        memory.slots, memory.large_bits, memory.large_counter_offsets, large_counter_memory, result.elements.data(),
        nullptr);
  }
  WARPDEX_CHECK_LAUNCH("write_bucket_distinct");
  backend.synchronize();  // before the slot goes back
  return result;
}

buffer<uint32_t> partitioned_once_bitmap(const cuda& backend, std::span<const uint32_t> elements)
{
  const uint64_t n = elements.size();
  auto once = make_buffer<uint32_t>(backend, (n + 31) / 32);
  if (n == 0) { return once; }
  const cudaStream_t stream = backend.stream;
  WARPDEX_CUDA_TRY(cudaMemsetAsync(once.data(), 0, once.size() * sizeof(uint32_t), stream));
  const device_limits limits = current_device_limits();
  warpdex::detail::sync_scratch scratch(backend);
  const engine_memory memory = engine_memory_in(backend, scratch, n, true);
  partition_elements(backend, elements, memory, true, limits);
  if (may_have_large_buckets(n)) {
    const uint64_t stride = memory.max_large * bitmap_words;
    uint32_t* large_seen = memory.large_bits;
    uint32_t* large_repeated = memory.large_bits + stride;
    zero_large_bitmaps<<<static_cast<unsigned>(memory.max_large), bucket_threads, 0, stream>>>(
        memory.large_bits, stride, 2, memory.plan_counts);
    WARPDEX_CHECK_LAUNCH("zero_large_bitmaps");
    WARPDEX_CUDA_TRY(cudaFuncSetAttribute(mark_large_repeated, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(once_shared_bytes)));
    const auto blocks = static_cast<unsigned>(memory.max_segments);
    mark_large_repeated<<<blocks, bucket_threads, once_shared_bytes, stream>>>(
        memory.parts, memory.segments, memory.plan_counts, large_seen, large_repeated);
    WARPDEX_CHECK_LAUNCH("mark_large_repeated");
    flag_large_singletons<<<blocks, bucket_threads, 0, stream>>>(memory.parts, memory.positions, memory.segments,
                                                                 memory.plan_counts, large_repeated, once.data());
    WARPDEX_CHECK_LAUNCH("flag_large_singletons");
  }
  WARPDEX_CUDA_TRY(cudaFuncSetAttribute(flag_bucket_singletons, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(once_shared_bytes)));
  flag_bucket_singletons<<<bucket_count, bucket_threads, once_shared_bytes, stream>>>(
      memory.parts, memory.positions, memory.offsets, memory.slots, once.data());
  WARPDEX_CHECK_LAUNCH("flag_bucket_singletons");
  backend.synchronize();  // before the slot goes back
  return once;
}

}  // namespace warpdex::dpp::detail
