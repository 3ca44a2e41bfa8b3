#pragma once
// The single-pass kernels of the cuda multisplit (m <= 256):
// 1. histogram: the m bucket totals (and the number of ids outside [0, m)), read with 16-byte loads
//    (four in flight per thread) and counted in per-warp replicated shared counters; its last block to
//    finish scans the totals into the bucket starts (the call's offsets), and for a synchronous call
//    writes them into pinned host memory too;
// 2. split: tiles are taken in input order from an atomic counter. Each block ranks its tile's bucket
//    ids with cub::BlockRadixRankMatchEarlyCounts (the bucket id is the digit), publishes the tile's m
//    counts as soon as the ranking knows them, reorders the tile by bucket in shared memory, looks back
//    over the predecessors' counts per bucket (decoupled look-back) for the keys of each bucket in
//    earlier tiles, and, after one barrier, writes each bucket's run to consecutive addresses.
// Keys are read twice and written once (12 bytes per key), like the three-pass path, but the
// (bucket, tile) table is neither written to memory nor scanned: the look-back words are the only
// per-tile traffic, and the ranking is CUB's.

#include <warpdex/core/warp.cuh>
#include <warpdex/split/detail/counting.cuh>
#include <warpdex/split/detail/multisplit_kernels.cuh>

#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda/atomic>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace warpdex::detail {

/// Shared counters of one warp in the histogram kernel: each bucket has min(32, this / m) replicas,
/// lane l adding to replica l mod replicas, so lanes of a warp rarely add to the same counter.
inline constexpr std::uint32_t histogram_warp_counters = 1024;
/// The 16-byte loads each thread of the histogram kernel keeps in flight (one left it latency-bound:
/// 56% of DRAM bandwidth at 57% occupancy).
inline constexpr int histogram_load_unroll = 4;

/// Look-back word of one (tile, bucket), of the split's offset type: a flag in the top two bits, a key count
/// below. 64-bit words for any n; 32-bit words (and 32-bit offsets in the kernel) below
/// narrow_offsets_max_keys keys, where every count fits in 30 bits (CUB's one-sweep pass, too, looks back
/// over 32-bit words, in portions of under 2^28 keys).
template <class Offset>
struct lookback_word {
  static constexpr Offset tile_count = Offset{1} << (8 * sizeof(Offset) - 2);  ///< the tile's own count
  static constexpr Offset inclusive = Offset{2} << (8 * sizeof(Offset) - 2);   ///< count of tiles 0..tile
  static constexpr Offset value_mask = tile_count - 1;
};
inline constexpr std::uint64_t narrow_offsets_max_keys = std::uint64_t{1} << 30;

/// Where the histogram's last block leaves the split's results once every block's counts are added:
/// `offsets` gets the m + 1 offsets (the exclusive scan of the totals, then n), `bad_ids_out` the count of
/// ids outside [0, m), and `home` (pinned host memory, the synchronous call; may be null) the same m + 2
/// words, so that the call copies nothing and waits once. `blocks_done` counts the finished blocks
/// (zeroed with the totals); null: no tail (m may then exceed the block's threads).
struct split_results_tail {
  unsigned int* blocks_done = nullptr;
  std::uint64_t* offsets = nullptr;
  std::uint64_t* bad_ids_out = nullptr;
  std::uint64_t* home = nullptr;
  std::uint64_t n = 0;
};

/// Pass 1: totals[b] += keys of bucket b; ids >= m go to *bad_ids. Grid-stride over the keys. With a
/// tail (m <= multisplit_block_threads), the last block writes the results (split_results_tail): one
/// kernel where the scan of the totals was a launch of its own.
template <class Key, class Identifier>
__global__ void __launch_bounds__(multisplit_block_threads)
    multisplit_histogram_kernel(const Key* keys, std::uint64_t n, Identifier identifier, unsigned long long* totals,
                                unsigned long long* bad_ids, split_results_tail tail)
{
  using block_id = block_identifier<Identifier>;
  using scan = cub::BlockScan<std::uint64_t, multisplit_block_threads>;
  __shared__ typename block_id::storage identifier_storage;
  __shared__ union {
    std::uint32_t counters[multisplit_warps][histogram_warp_counters];
    typename scan::TempStorage scan;  // the tail's, once the counters are added
  } shared;
  auto& counters = shared.counters;
  const std::uint32_t m = identifier.bucket_count();
  const std::uint32_t replicas =
      m >= histogram_warp_counters ? 1U : min(static_cast<std::uint32_t>(warp::size), histogram_warp_counters / m);
  for (std::uint32_t i = threadIdx.x; i < multisplit_warps * histogram_warp_counters; i += multisplit_block_threads) {
    counters[i / histogram_warp_counters][i % histogram_warp_counters] = 0;
  }
  const typename block_id::type local = block_id::load(identifier, identifier_storage);
  __syncthreads();

  std::uint32_t* mine = counters[warp::warp_in_block()] + warp::lane_id() % replicas;
  const std::uint32_t bad = count_vectorized<histogram_load_unroll>(keys, n, local, m, mine, replicas);
  if (bad != 0) { atomicAdd(bad_ids, static_cast<unsigned long long>(bad)); }
  __syncthreads();
  add_replicated_counts(counters, m, replicas, totals);
  if (tail.blocks_done == nullptr || !finished_last_block(tail.blocks_done)) { return; }
  const volatile unsigned long long* counted = totals;
  const std::uint64_t total = threadIdx.x < m ? static_cast<std::uint64_t>(counted[threadIdx.x]) : 0;
  std::uint64_t start = 0;
  scan(shared.scan).ExclusiveSum(total, start);  // the counters are dead: add_replicated_counts ended on a read
  if (threadIdx.x < m) {
    tail.offsets[threadIdx.x] = start;
    if (tail.home != nullptr) { tail.home[threadIdx.x] = start; }
  }
  if (threadIdx.x == 0) {
    const auto bad_total = static_cast<std::uint64_t>(*static_cast<const volatile unsigned long long*>(bad_ids));
    tail.offsets[m] = tail.n;
    *tail.bad_ids_out = bad_total;
    if (tail.home != nullptr) {
      tail.home[m] = tail.n;
      tail.home[m + 1] = bad_total;
    }
  }
  if (tail.home != nullptr) { __threadfence_system(); }
}

/// The split kernel's tile for keys of `KeyBytes` bytes. 32-bit keys: 384 threads x 20 keys (7680 keys,
/// 30 KiB), compiled for two blocks a multiprocessor (80 registers). Measured on an H200 at n = 2^28,
/// m = 32 (docs/split.md): the kernel took 1.52 ms, against 1.90 ms with 256 x 16 (80 registers, three
/// blocks) and 1.62 ms with 256 x 16 at four blocks (64 registers, which spill pairs at m = 256). Fewer,
/// larger tiles halve the look-back and barrier rounds per key and keep more bytes of each block in
/// flight. 64-bit keys hold twice the registers per key: 20 of them a thread made the 64-bit radix sort
/// 9% slower, so they keep 256 x 16 (except where they are ranked themselves: single_pass_tile).
template <std::size_t KeyBytes>
struct single_pass_shape {
  static constexpr int block_threads = 384;
  static constexpr int items_per_thread = 20;
  static constexpr int min_blocks = 2;
  static constexpr std::uint32_t tile_keys = block_threads * items_per_thread;
};
template <>
struct single_pass_shape<8> {
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = 16;
  static constexpr int min_blocks = 2;
  static constexpr std::uint32_t tile_keys = block_threads * items_per_thread;
};

/// The digit CUB's ranking reads: the bucket id itself (the keys ranked are the bucket ids).
struct bucket_id_digit {
  __device__ std::uint32_t Digit(std::uint32_t bucket) const { return bucket; }
};

/// ... or the bucket of a key, computed from the key each time the ranking reads it (as CUB's one-sweep
/// pass extracts its digit), where the keys themselves are ranked.
template <class Identifier>
struct key_bucket_digit {
  Identifier identifier;
  template <class Key>
  __device__ std::uint32_t Digit(Key key) const
  {
    return identifier(key);
  }
};

/// Whether the split kernel ranks the keys themselves in full tiles: 32-bit keys (with or without 32-bit
/// values), split by an arithmetic identifier. No array of bucket ids is then held beside the keys and their ranks, and
/// the kernel is compiled for three blocks a multiprocessor (56 registers) with 19 keys a thread (at
/// 20, 15 words a thread spill; at 19, 8), CUB's one-sweep shape on this GPU. Nsight Compute on an H200
/// (m = 32, 2^26 keys, docs/split.md): with the ids held, 80 registers and two blocks of 384 x 20 left
/// the kernel at 37% occupancy and 39% of issue slots, 35% of its warps' time at block barriers, 1.20x
/// the time of CUB's one-sweep pass, which executes 12% more instructions at 55% occupancy. The last
/// tile, with padding past the end of the input, still ranks the ids.
///
/// Pairs of 32-bit keys and values take the same path: the values are loaded only once the keys are placed
/// in shared memory (as CUB's one-sweep pass loads them after its keys' scatter), so they are not held
/// through the ranking, and each key's bucket byte for the values' write-out is computed from the key.
///
/// 64-bit keys alone split by bit fields (the radix sort's keys64 passes) rank the keys themselves too,
/// their bucket a shift and a mask of the key, in CUB's one-sweep tile for 8-byte keys on this GPU:
/// 384 x 15 at two blocks (see single_pass_tile), 80 registers. Holding the 16 bucket ids of 256 x 16 beside
/// the keys and ranks took 84 registers, two blocks of 8 warps. Measured on an H200 (docs/split.md): the
/// radix sort's 64-bit pass at 2^26 577 -> 473 us, radix sort keys64 at 2^28 0.835x -> 1.01x CUB; ranked in
/// 256 x 16 at three blocks (80 registers too) the sort ran 2.5% slower than in 384 x 15.
template <class Key, class Value, class Identifier>
inline constexpr bool single_pass_ranks_keys = (sizeof(Key) == sizeof(std::uint32_t) &&
                                                arithmetic_identifier<Identifier>) ||
                                               (sizeof(Key) == sizeof(std::uint64_t) && std::is_void_v<Value> &&
                                                std::is_same_v<Identifier, bit_field_buckets>);

/// Whether pairs ranked by their keys take 384 x 22 at two blocks (80 registers): bit fields ranked over 8
/// bits, i.e. 129-256 buckets and the radix sort's 8-bit digits. At 384 x 19 and three blocks (56 registers)
/// that kernel spilled 164 bytes a thread, the ranking's digits among them (8.3 bytes a pair each way at m =
/// 256); at two blocks 32. Measured on an H200 at 2^28 (docs/split.md): radix sort pairs32 0.71x -> 0.81x
/// CUB, bit-field pairs at m = 256 0.87x -> 0.95x; at m = 32-64 no gain and delta buckets at m = 32 9%
/// slower (the occupancy lost costs there what the spills cost), so the others keep three blocks.
template <class Key, class Value, class Identifier, int RadixBits>
inline constexpr bool single_pass_pairs_two_blocks =
    single_pass_ranks_keys<Key, Value, Identifier> && !std::is_void_v<Value> &&
    std::is_same_v<Identifier, bit_field_buckets> && RadixBits == 8;

/// The split kernel's tile for one instantiation (RadixBits: the ranking's width; Offset: the kernel's look-back
/// words and offsets, lookback_word): single_pass_shape, or, where the keys are ranked themselves, 384 x 19 at
/// three blocks, 384 x 15 at two for 64-bit keys (the tile's 45 KB of whole keys fit the 48 KB of static shared
/// memory), and for the two-block pairs above 384 x 23 with 32-bit offsets, CUB's one-sweep tile for pairs
/// (`ptxas`, nvcc 13.0: 80 registers, an 8-byte stack frame), 384 x 22 with 64-bit ones (at 23, 48 bytes of stack
/// a thread; 21 before their values were loaded after the keys' write-out). The host sizes its look-back words
/// by the 64-bit tile, the smaller.
template <class Key, class Value, class Identifier, int RadixBits, class Offset = std::uint64_t>
struct single_pass_tile {
  static constexpr bool ranks_keys = single_pass_ranks_keys<Key, Value, Identifier>;
  static constexpr bool two_blocks = single_pass_pairs_two_blocks<Key, Value, Identifier, RadixBits>;
  /// Whether the instantiation takes 32-bit offsets below narrow_offsets_max_keys keys: keys ranked themselves
  /// and the two-block pairs (`ptxas`: the radix sort's pairs pass 16 -> 0 bytes of stack at 384 x 22, keys32's
  /// 48 -> 40). Not the three-block pairs, which spilled more with them (128 -> 316 bytes a thread at 56
  /// registers), nor the kernels that hold ids (their instantiations would double).
  static constexpr bool narrow_offsets = ranks_keys && (std::is_void_v<Value> || two_blocks);
  static constexpr bool narrow = std::is_same_v<Offset, std::uint32_t>;
  static_assert(!narrow || narrow_offsets, "32-bit offsets where they are chosen");
  static constexpr bool wide_keys = ranks_keys && sizeof(Key) == sizeof(std::uint64_t);
  /// The two-block pairs write out by digit (write_pairs_by_digit). The three-block pairs keep the bucket byte:
  /// at 56 registers the 19 held digits would spill.
  static constexpr bool pairs_by_digit = two_blocks;
  static constexpr int block_threads = wide_keys ? 384 : single_pass_shape<sizeof(Key)>::block_threads;
  static constexpr int items_per_thread =
      wide_keys
          ? 15
          : (two_blocks ? (narrow ? 23 : 22) : (ranks_keys ? 19 : single_pass_shape<sizeof(Key)>::items_per_thread));
  static constexpr int min_blocks =
      wide_keys || two_blocks ? 2 : (ranks_keys ? 3 : single_pass_shape<sizeof(Key)>::min_blocks);
  static constexpr std::uint32_t tile_keys = block_threads * items_per_thread;
};

/// Between the passes, one block of BlockThreads threads: bucket_starts[b] = totals[0] + .. +
/// totals[b - 1] for b < m <= BlockThreads (the starts stay on the device). A template so that every
/// translation unit that includes it has its own copy.
template <int BlockThreads = multisplit_block_threads>
__global__ void __launch_bounds__(BlockThreads)
    multisplit_bucket_starts_kernel(const unsigned long long* totals, std::uint32_t m, std::uint64_t* bucket_starts)
{
  using scan = cub::BlockScan<std::uint64_t, BlockThreads>;
  __shared__ typename scan::TempStorage storage;
  const std::uint64_t total = threadIdx.x < m ? static_cast<std::uint64_t>(totals[threadIdx.x]) : 0;
  std::uint64_t start = 0;
  scan(storage).ExclusiveSum(total, start);
  if (threadIdx.x < m) { bucket_starts[threadIdx.x] = start; }
}

/// A plain global store (STG) of a 32-bit word at a byte address: through a pointer made from an address
/// read in shared memory the compiler stores through the generic space.
__device__ __forceinline__ void store_global(std::uint64_t address, std::uint32_t word)
{
  asm("st.global.u32 [%0], %1;" : : "l"(address), "r"(word));
}

/// The write-out of pairs ranked by their keys over 8-bit digits (single_pass_tile::pairs_by_digit), as CUB's
/// one-sweep pass writes its pairs: the keys' round takes each key's bucket from the key and holds it, packed four
/// to a register, for the values' round (no bucket byte a key stored and loaded twice in shared memory), and tile
/// position p of bucket b goes to runs[0][b] + 4 p (keys) and runs[1][b] + 4 p (values), the byte addresses of
/// the bucket's runs at tile position 0 (one multiply-add an element, where output_minus_tile took five 64-bit
/// instructions). The values are loaded after the keys' round (`load_values`), as CUB loads them, so that they
/// are not held through the look-back. Full tiles (FullTile) check no position against the tile's size: in the earlier
/// write-out those checks and their predicates were a third of the instructions after the look-back. Call with the
/// whole block once the keys are placed in `words` and the run addresses are complete.
template <bool FullTile, int BlockThreads, class Key, class Value, class Identifier, int Items, class LoadValues,
          int Digits>
__device__ __forceinline__ void write_pairs_by_digit(std::uint32_t tile_size, std::uint32_t* words,
                                                     const Identifier& identifier,
                                                     const std::uint32_t (&positions)[Items],
                                                     const LoadValues& load_values,
                                                     const std::uint64_t (&runs)[2][Digits])
{
  static_assert(sizeof(Key) == sizeof(std::uint32_t) && sizeof(Value) == sizeof(std::uint32_t), "32-bit pairs");
  static_assert(Digits <= 256, "a digit is a byte");
  // Packed: held one to a register, the 21 digits of 384 x 21 took 64 bytes of stack a thread (16 packed).
  std::uint32_t packed_digits[(Items + 3) / 4] = {};
  const auto digit_of = [&](int item) { return (packed_digits[item / 4] >> (8 * (item % 4))) & 0xffU; };
#pragma unroll
  for (int item = 0; item < Items; ++item) {
    const std::uint32_t position = item * BlockThreads + threadIdx.x;
    if (FullTile || position < tile_size) {
      const std::uint32_t key = words[position];
      const std::uint32_t digit = identifier(std::bit_cast<Key>(key));
      packed_digits[item / 4] |= digit << (8 * (item % 4));
      store_global(runs[0][digit] + position * sizeof(Key), key);
    }
  }
  Value values[Items];
  load_values(values);
  __syncthreads();  // the keys have left the buffer
#pragma unroll
  for (int item = 0; item < Items; ++item) {
    if (FullTile || positions[item] < tile_size) {
      words[positions[item]] = std::bit_cast<std::uint32_t>(values[item]);
    }
  }
  __syncthreads();
  // The thread's index read again: the compiler would otherwise keep the keys' round's positions through the
  // barriers, and spill them.
  std::uint32_t thread = 0;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(thread));
#pragma unroll
  for (int item = 0; item < Items; ++item) {
    const std::uint32_t position = item * BlockThreads + thread;
    if (FullTile || position < tile_size) {
      store_global(runs[1][digit_of(item)] + position * sizeof(Value), words[position]);
    }
  }
}

/// Pass 2: one tile per block, tiles in input order. `bucket_starts` holds the m exclusive-scanned
/// totals; `lookback` holds tile_count x m zeroed words; `next_tile` is a zeroed counter. RadixBits is
/// at least ceil(log2 m). Every id is in [0, m) unless pass 1 counted some in *bad_ids: then the kernel
/// writes nothing (bad_ids may be null: the caller knows the ids are good). Value = void for keys only.
/// Offset: the type of the look-back words, counts and output offsets, std::uint64_t, or std::uint32_t where
/// n < narrow_offsets_max_keys (lookback_word).
template <class Key, class Value, class Identifier, int RadixBits, class Offset>
__global__ void __launch_bounds__(single_pass_tile<Key, Value, Identifier, RadixBits, Offset>::block_threads,
                                  single_pass_tile<Key, Value, Identifier, RadixBits, Offset>::min_blocks)
    multisplit_single_pass_kernel(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out,
                                  std::uint64_t n, Identifier identifier, const std::uint64_t* bucket_starts,
                                  Offset* lookback, std::uint32_t* next_tile, const unsigned long long* bad_ids)
{
  static_assert(std::is_same_v<Offset, std::uint32_t> || std::is_same_v<Offset, std::uint64_t>, "32 or 64 bits");
  using flags = lookback_word<Offset>;
  constexpr bool with_values = !std::is_void_v<Value>;
  using value_word = std::conditional_t<with_values, Value, std::uint32_t>;
  static_assert(!with_values || sizeof(value_word) == sizeof(std::uint32_t), "values are 32-bit words");
  constexpr std::uint32_t radix_digits = 1U << RadixBits;
  using shape = single_pass_tile<Key, Value, Identifier, RadixBits, Offset>;
  constexpr int block_threads = shape::block_threads;
  constexpr int items = shape::items_per_thread;
  constexpr std::uint32_t tile_keys = shape::tile_keys;
  static_assert(radix_digits <= block_threads, "thread b owns bucket b");
  using block_id = block_identifier<Identifier>;
  // 32-bit keys alone with an arithmetic identifier: the write-out takes each key's bucket from the key
  // instead of a byte per key stored and loaded in shared memory (values would need it a second time).
  constexpr bool recomputes_buckets =
      !with_values && sizeof(Key) == sizeof(std::uint32_t) && arithmetic_identifier<Identifier>;
  // 64-bit keys alone split by bit fields: the tile is reordered as whole keys in one round (one
  // 8-byte store a key), each key's bucket taken from the key again for the write-out, instead of two
  // rounds of 32-bit words with a bucket byte a key (H200, docs/split.md: the radix sort's 64-bit pass
  // 705 -> 577 us at 2^26, half the L2 write sectors, 84 registers instead of 109).
  constexpr bool reorders_whole_keys =
      !with_values && sizeof(Key) == sizeof(std::uint64_t) && std::is_same_v<Identifier, bit_field_buckets>;
  constexpr bool pairs_by_digit = shape::pairs_by_digit;
  using block_rank = cub::BlockRadixRankMatchEarlyCounts<block_threads, RadixBits, false>;
  static_assert(block_rank::BINS_TRACKED_PER_THREAD == 1, "one bucket per thread");
  struct shared_storage {
    typename block_id::storage identifier;
    union {
      typename block_rank::TempStorage rank;
      struct {
        std::uint32_t words[reorders_whole_keys ? 1 : tile_keys];
        std::uint8_t buckets[recomputes_buckets || reorders_whole_keys || pairs_by_digit ? 1 : tile_keys];
      } reorder;
      Key whole_keys[reorders_whole_keys ? tile_keys : 1];
    };
    Offset output_minus_tile[pairs_by_digit ? 1 : radix_digits];  // output slot - tile position, per bucket
    std::uint64_t runs[2][pairs_by_digit ? radix_digits : 1];     // pairs by digit: write_pairs_by_digit
    std::uint32_t tile;
  };
  __shared__ shared_storage shared;

  // One thread reads the bad-id count and takes the tile in one round trip (both in flight together).
  constexpr std::uint32_t no_tile = 0xffffffffU;  // tile indices are below 2^32 - 1 (n < 2^44)
  if (threadIdx.x == 0) {
    const bool bad = bad_ids != nullptr && *bad_ids != 0;
    const std::uint32_t taken = atomicAdd(next_tile, 1U);
    shared.tile = bad ? no_tile : taken;
  }
  const typename block_id::type local = block_id::load(identifier, shared.identifier);
  __syncthreads();
  const std::uint32_t tile = shared.tile;
  if (tile == no_tile) { return; }  // the host throws; the outputs stay untouched
  const std::uint32_t m = identifier.bucket_count();

  // Warp-striped, so the ranking's order (warp, item, lane) is the input order. Keys past the end get
  // the highest digit: they rank after every key of the tile and are not written.
  const Offset tile_begin = static_cast<Offset>(tile) * tile_keys;
  const Offset remaining = static_cast<Offset>(n) - tile_begin;
  const std::uint32_t tile_size = remaining < tile_keys ? static_cast<std::uint32_t>(remaining) : tile_keys;
  const unsigned lane = warp::lane_id();
  const Offset warp_begin = tile_begin + warp::warp_in_block() * (items * warp::size);
  Key keys[items];
  value_word values[items];
  // Ranked keys: the ids exist only in the last tile (ranked_ids), elsewhere in the ranking's digits.
  constexpr bool ranks_keys = shape::ranks_keys;
  constexpr int held_ids = ranks_keys ? 1 : items;
  std::uint32_t buckets[held_ids];

  // Thread b owns bucket b: it publishes the tile's count as soon as the ranking has it.
  const std::uint32_t bucket = threadIdx.x;
  const bool owns_bucket = bucket < m;
  const Offset own_word = static_cast<Offset>(tile) * m + bucket;
  std::uint32_t tile_count = 0;
  const auto publish = [&](int(&counts)[1]) {
    if (!owns_bucket) { return; }
    tile_count = static_cast<std::uint32_t>(counts[0]);
    if (bucket == radix_digits - 1) { tile_count -= tile_keys - tile_size; }  // minus the padding
    ::cuda::atomic_ref<Offset, ::cuda::thread_scope_device> word(lookback[own_word]);
    word.store((tile == 0 ? flags::inclusive : flags::tile_count) | tile_count, ::cuda::memory_order_relaxed);
  };
  int ranks[items];
  int tile_first[1];
  if constexpr (ranks_keys) {
    if (tile_size == tile_keys) {  // a full tile: no key past the end, no padding to rank last
#pragma unroll
      for (int item = 0; item < items; ++item) { keys[item] = keys_in[warp_begin + item * warp::size + lane]; }
      block_rank(shared.rank)
          .RankKeys(keys, ranks, key_bucket_digit<typename block_id::type>{local}, tile_first, publish);
    } else {
      std::uint32_t ranked_ids[items];
      load_warp_striped_tile<false>(keys_in, values_in, n, warp_begin, lane, local, radix_digits - 1, keys, values,
                                    ranked_ids);
      block_rank(shared.rank).RankKeys(ranked_ids, ranks, bucket_id_digit{}, tile_first, publish);
    }
  } else {
    load_warp_striped_tile<with_values>(keys_in, values_in, n, warp_begin, lane, local, radix_digits - 1, keys, values,
                                        buckets);
    block_rank(shared.rank).RankKeys(buckets, ranks, bucket_id_digit{}, tile_first, publish);
  }

  // CUB's one-sweep order: the tile goes into shared memory (the reorder buffer, in place of the
  // ranking's storage) before the look-back, whose loads then overlap the placement, and one barrier
  // separates both from the write-out. (Loading the first predecessor's word before the placement
  // spilled 36 more bytes a thread at 56 registers.)
  __syncthreads();  // the ranking's storage becomes the reorder buffer

  std::uint32_t positions[items];  // the ranks; padding ranks at tile_size or more
#pragma unroll
  for (int item = 0; item < items; ++item) {
    positions[item] = static_cast<std::uint32_t>(ranks[item]);
    if constexpr (reorders_whole_keys) {
      if (positions[item] < tile_size) { shared.whole_keys[positions[item]] = keys[item]; }
    } else if constexpr (!recomputes_buckets && !pairs_by_digit) {
      if (positions[item] < tile_size) {
        std::uint32_t id = 0;
        if constexpr (ranks_keys) {
          id = local(keys[item]);
        } else {
          id = buckets[item];
        }
        shared.reorder.buckets[positions[item]] = static_cast<std::uint8_t>(id);
      }
    }
  }
  if constexpr (pairs_by_digit) {
    if (tile_size == tile_keys) {  // every position is in the tile
#pragma unroll
      for (int item = 0; item < items; ++item) { shared.reorder.words[positions[item]] = element_word(keys[item], 0); }
    } else {
      place_reordered_word(keys, positions, tile_size, shared.reorder.words, 0);
    }
  } else if constexpr (!reorders_whole_keys) {
    place_reordered_word(keys, positions, tile_size, shared.reorder.words, 0);
  }
  // Ranked keys with values: the values are loaded now, their loads in flight through the look-back (pairs by
  // digit load them after the keys' write-out, as CUB's one-sweep pass does).
  const auto load_values = [&](value_word(&loaded)[items]) {
    if constexpr (with_values) {
      if (tile_size == tile_keys) {
#pragma unroll
        for (int item = 0; item < items; ++item) { loaded[item] = values_in[warp_begin + item * warp::size + lane]; }
      } else {
#pragma unroll
        for (int item = 0; item < items; ++item) {
          const Offset index = warp_begin + item * warp::size + lane;
          loaded[item] = index < n ? values_in[index] : value_word{};
        }
      }
    }
  };
  if constexpr (ranks_keys && with_values && !pairs_by_digit) { load_values(values); }

  // Decoupled look-back: add predecessors' counts of the bucket until one publishes its inclusive count.
  if (owns_bucket) {
    Offset earlier = 0;
    for (Offset predecessor = tile; predecessor-- > 0;) {
      ::cuda::atomic_ref<Offset, ::cuda::thread_scope_device> word(lookback[predecessor * m + bucket]);
      Offset status = 0;
      do {
        status = word.load(::cuda::memory_order_relaxed);
      } while (status < flags::tile_count);
      earlier += status & flags::value_mask;
      if (status >= flags::inclusive) { break; }
    }
    if (tile != 0) {
      ::cuda::atomic_ref<Offset, ::cuda::thread_scope_device> word(lookback[own_word]);
      word.store(flags::inclusive | (earlier + tile_count), ::cuda::memory_order_relaxed);
    }
    // Unsigned arithmetic in Offset's width: slot - position wraps back to the slot once the position is added.
    const Offset output_minus_tile =
        static_cast<Offset>(bucket_starts[bucket]) + earlier - static_cast<Offset>(tile_first[0]);
    if constexpr (pairs_by_digit) {  // the run's byte address at tile position 0, as a 64-bit address
      const auto wide = static_cast<std::uint64_t>(
          static_cast<std::make_signed_t<Offset>>(output_minus_tile));  // sign-extended where 32-bit
      shared.runs[0][bucket] = reinterpret_cast<std::uint64_t>(keys_out) + wide * sizeof(Key);
      shared.runs[1][bucket] = reinterpret_cast<std::uint64_t>(values_out) + wide * sizeof(value_word);
    } else {
      shared.output_minus_tile[bucket] = output_minus_tile;
    }
  }
  __syncthreads();  // the placement and every bucket's output slot are complete

  if constexpr (pairs_by_digit) {
    if (tile_size == tile_keys) {
      write_pairs_by_digit<true, block_threads, Key, value_word>(tile_size, shared.reorder.words, local, positions,
                                                                 load_values, shared.runs);
    } else {
      write_pairs_by_digit<false, block_threads, Key, value_word>(tile_size, shared.reorder.words, local, positions,
                                                                  load_values, shared.runs);
    }
  } else if constexpr (reorders_whole_keys) {
#pragma unroll
    for (int item = 0; item < items; ++item) {
      const std::uint32_t position = item * block_threads + threadIdx.x;
      if (position < tile_size) {
        const Key key = shared.whole_keys[position];
        keys_out[shared.output_minus_tile[local(key)] + position] = key;
      }
    }
  } else if constexpr (recomputes_buckets) {
    store_reordered_word<block_threads, items>(tile_size, shared.reorder.words,
                                               recomputed_buckets<Key, typename block_id::type>{local},
                                               shared.output_minus_tile, keys_out, 0);
  } else {
    const stored_buckets stored{shared.reorder.buckets};
    store_reordered_word<block_threads, items>(tile_size, shared.reorder.words, stored, shared.output_minus_tile,
                                               keys_out, 0);
    // 64-bit keys: the high words in a second round.
    write_reordered<block_threads>(keys, positions, tile_size, shared.reorder.words, stored, shared.output_minus_tile,
                                   keys_out, 1);
    if constexpr (with_values) {
      write_reordered<block_threads>(values, positions, tile_size, shared.reorder.words, stored,
                                     shared.output_minus_tile, values_out);
    }
  }
}

}  // namespace warpdex::detail
