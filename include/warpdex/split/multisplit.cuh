#pragma once
/// @file The cuda backend's multisplit for any identifier: include it from CUDA code to use
/// custom_buckets (a functor with a __host__ __device__ call operator) on the GPU.

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/launch.cuh>
#include <warpdex/split/detail/multisplit_kernels.cuh>
#include <warpdex/split/detail/multisplit_partition.cuh>
#include <warpdex/split/detail/multisplit_warp_tiles.cuh>
#include <warpdex/split/detail/multisplit_single_pass.cuh>
#include <warpdex/split/detail/multisplit_validate.hpp>
#include <warpdex/split/detail/sync_scratch.hpp>
#include <warpdex/split/multisplit.hpp>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex {
namespace detail {

/// The bucket id widths the single-pass ranking is compiled for: CUB's early-count ranking needs at
/// least one warp's width of digits (2^5), and m <= 2^8 = multisplit_direct_max_buckets.
inline constexpr int multisplit_min_radix_bits = 5;
inline constexpr int multisplit_max_radix_bits = 8;

/// The algorithm `automatic` stands for with m <= 256 buckets, from the H200 measurements in
/// docs/split.md (H200, n = 2^16 to 2^28): the single pass is ahead of the three passes for keys and
/// pairs from m = 4 (at m = 16 pairs 106 against 86 Gpairs/s at 2^28; before the partition and the warp
/// tiles took the smallest m, the three passes had led below m = 8 for keys and m = 32 for pairs).
inline constexpr std::uint32_t single_pass_min_buckets_keys = 4;
inline constexpr std::uint32_t single_pass_min_buckets_pairs = 4;
inline multisplit_algorithm automatic_multisplit_algorithm(std::uint32_t bucket_count, bool pairs)
{
  const std::uint32_t threshold = pairs ? single_pass_min_buckets_pairs : single_pass_min_buckets_keys;
  return bucket_count >= threshold ? multisplit_algorithm::single_pass : multisplit_algorithm::three_pass;
}

/// The warp tiles ran ahead of the single pass for 32-bit keys up to 16 buckets and pairs up to 32 from
/// n = 2^20 (H100, docs/split.md), with bit-field and delta identifiers; below that size the scan of
/// their table is two launches too many. They hold fewer warps per multiprocessor (their tiles live in
/// shared memory), which identifiers that cost little per key afford: with splitters (a search per key)
/// pairs at m = 32 ran 0.81x the single pass, and custom identifiers are not measured. 64-bit keys hold
/// about half as many warp tiles per multiprocessor (a quarter with 64-bit values) and keep the single
/// pass (not measured against it). Since the single pass looks back after placing its tile and ranks
/// pairs by their keys (31b929c), the choice depends on n (H200, bit fields, Gkeys/s or Gpairs/s, single
/// pass against warp tiles): at 2^20 and 2^22 the warp tiles lead for keys with 32 buckets too (13.9
/// against 17.0, 45.5 against 54.7) and for pairs with 32 (12.6 / 15.1, 37.5 / 42.5); at 2^28 the single
/// pass leads for keys with 16 (191 against 178) and pairs with 32 (125 against 114; delta buckets 132
/// against 93), the warp tiles for keys with 8 (232 against 195), and pairs with 16 are even (130 / 128).
inline constexpr std::uint32_t warp_tiles_automatic_buckets_keys = 32;
inline constexpr std::uint32_t warp_tiles_automatic_buckets_pairs = 32;
inline constexpr std::uint64_t warp_tiles_automatic_min_keys = std::uint64_t{1} << 20;
/// From this many keys the warp tiles take keys up to 8 buckets and pairs up to 16 only: at 2^24 the single
/// pass already leads for keys with 16 and 32 buckets (110.7 against 105.9, 100.3 against 86.4), pairs with
/// 32 (80.3 / 76.9) and delta buckets (96.5 / 81.6 keys, 81.1 / 63.7 pairs), and at 2^26 likewise; the warp
/// tiles still lead for keys and pairs with 8, and pairs with 16 are even or slightly ahead (H200, 3fed129).
inline constexpr std::uint64_t single_pass_over_warp_tiles_min_keys = std::uint64_t{1} << 24;
inline constexpr std::uint32_t warp_tiles_automatic_buckets_keys_large = 8;
inline constexpr std::uint32_t warp_tiles_automatic_buckets_pairs_large = 16;

/// Pairs split by one bit: the warp tiles write each bucket's run of a 2048-pair tile at once and ran
/// 1.13-1.14x CUB SortPairs against the partition's 0.97x at n = 2^28 (H100, 19cc486), ahead from 2^23
/// (1-5%) and clearly from 2^25 (9%); the partition led at 2^22 (10%) and below, where it needs no scan
/// of its table up to 2^20 keys. A delta identifier's division, redone in the warp tiles' write-out,
/// kept them behind the partition at 2^28.
inline constexpr std::uint64_t warp_tiles_one_bit_pairs_min_keys = std::uint64_t{1} << 24;

/// The algorithm `automatic` stands for with one pass (m <= 256): the partition for m <= 3 (lighter
/// kernels over the same 12 bytes per key), the warp tiles for few buckets, 32-bit keys, arithmetic
/// identifiers and large n, else as measured above. The super-bucket digits never have fewer than 8
/// buckets and keep automatic_multisplit_algorithm.
inline multisplit_algorithm automatic_one_pass_algorithm(std::uint32_t bucket_count, bool pairs, std::uint64_t n,
                                                         std::size_t key_bytes, bool arithmetic, bool bit_field)
{
  if (bucket_count <= partition_max_buckets) {
    const bool one_bit_pairs = pairs && bit_field && bucket_count == 2 && key_bytes == sizeof(std::uint32_t);
    return one_bit_pairs && n >= warp_tiles_one_bit_pairs_min_keys ? multisplit_algorithm::warp_tiles
                                                                   : multisplit_algorithm::partition;
  }
  const bool large = n >= single_pass_over_warp_tiles_min_keys;
  const std::uint32_t warp_tiles_limit =
      pairs ? (large ? warp_tiles_automatic_buckets_pairs_large : warp_tiles_automatic_buckets_pairs)
            : (large ? warp_tiles_automatic_buckets_keys_large : warp_tiles_automatic_buckets_keys);
  if (arithmetic && key_bytes == sizeof(std::uint32_t) && bucket_count <= warp_tiles_limit &&
      n >= warp_tiles_automatic_min_keys) {
    return multisplit_algorithm::warp_tiles;
  }
  return automatic_multisplit_algorithm(bucket_count, pairs);
}

/// Threads per block of the one-key-per-thread kernels of the large-m path.
inline constexpr int multisplit_simple_block_threads = 256;

/// Tiles of n keys; throws when they exceed what the kernels' 32-bit tile indices hold.
inline std::uint64_t checked_tile_count(const char* caller, std::uint64_t n,
                                        std::uint64_t tile_keys = multisplit_tile_keys)
{
  const std::uint64_t tile_count = (n + tile_keys - 1) / tile_keys;
  WARPDEX_EXPECTS(tile_count <= std::numeric_limits<std::uint32_t>::max(),
                  std::string(caller) + ": " + std::to_string(n) + " keys are too many tiles");
  return tile_count;
}

/// Where an asynchronous split leaves its results, in device memory: the m + 1 offsets (offsets[m] = n)
/// and the number of keys whose bucket id lies outside [0, m).
struct split_target {
  std::uint64_t* offsets = nullptr;
  std::uint64_t* bad_id_count = nullptr;
};

/// Lays out the pieces of a call's scratch memory: run the same takes once with no base to learn the
/// bytes, reserve them in the workspace, then again with its memory. Pieces are 256-byte aligned.
class scratch_layout {
 public:
  explicit scratch_layout(std::uint8_t* base = nullptr) : base_(base) {}
  template <class T>
  T* take(std::uint64_t count)
  {
    constexpr std::size_t alignment = 256;
    used_ = (used_ + alignment - 1) / alignment * alignment;
    T* piece = reinterpret_cast<T*>(base_ + used_);  // only dereferenced with a base
    used_ += count * sizeof(T);
    return piece;
  }
  [[nodiscard]] std::size_t bytes() const { return used_; }

 private:
  std::uint8_t* base_;
  std::size_t used_ = 0;
};

/// Runs `carve(layout)` to size the scratch, reserves it in `workspace`, and runs it again on the memory.
template <class Carve>
void carve_scratch(const cuda& backend, multisplit_workspace& workspace, Carve&& carve)
{
  scratch_layout sizing;
  carve(sizing);
  scratch_layout layout(workspace.reserve(backend, sizing.bytes()));
  carve(layout);
}

/// The scratch of the passes over a bucket-major (bucket, tile) table of counts, carved from the
/// workspace: the bad-id count (zeroed on the stream), the table, and when it is scanned the table of
/// first slots and CUB's scan storage.
struct count_table {
  unsigned long long* bad_ids = nullptr;
  std::uint32_t* counts = nullptr;
  std::uint64_t* first_slots = nullptr;  // null when the table is not scanned
  std::uint8_t* scan_temp = nullptr;
  std::size_t scan_bytes = 0;
  std::uint64_t size = 0;

  count_table(const cuda& backend, multisplit_workspace& workspace, std::uint64_t table_size, bool scanned = true)
      : size(table_size)
  {
    if (scanned) {
      WARPDEX_CUDA_TRY(cub::DeviceScan::ExclusiveScan(nullptr, scan_bytes, static_cast<std::uint32_t*>(nullptr),
                                                      static_cast<std::uint64_t*>(nullptr), ::cuda::std::plus<>{},
                                                      std::uint64_t{0}, size, backend.stream));
    }
    carve_scratch(backend, workspace, [&](scratch_layout& layout) {
      bad_ids = layout.take<unsigned long long>(1);
      counts = layout.take<std::uint32_t>(size);
      if (scanned) {
        first_slots = layout.take<std::uint64_t>(size);
        scan_temp = layout.take<std::uint8_t>(scan_bytes);
      }
    });
    WARPDEX_CUDA_TRY(cudaMemsetAsync(bad_ids, 0, sizeof(unsigned long long), backend.stream));
  }
  /// first_slots = the exclusive scan of counts, on the stream.
  void scan(const cuda& backend) const
  {
    std::size_t bytes = scan_bytes;  // CUB takes the size by reference
    WARPDEX_CUDA_TRY(cub::DeviceScan::ExclusiveScan(scan_temp, bytes, counts, first_slots, ::cuda::std::plus<>{},
                                                    std::uint64_t{0}, size, backend.stream));
  }
};

/// An async call's results from device counters, in one block (m <= BlockThreads): offsets[b] (b < m) is
/// values[b * stride] when `scanned` (the exclusive scan is done), else the exclusive scan of values[0 ..
/// m) (the bucket totals); offsets[m] = n; *bad_out = *bad_in. A template so that every translation unit
/// that includes it has its own copy.
template <int BlockThreads = multisplit_block_threads>
__global__ void __launch_bounds__(BlockThreads)
    multisplit_results_kernel(const unsigned long long* values, std::uint64_t stride, bool scanned, std::uint32_t m,
                              std::uint64_t n, const unsigned long long* bad_in, std::uint64_t* offsets,
                              std::uint64_t* bad_out)
{
  using scan = cub::BlockScan<std::uint64_t, BlockThreads>;
  __shared__ typename scan::TempStorage storage;
  const std::uint64_t value = threadIdx.x < m ? static_cast<std::uint64_t>(values[threadIdx.x * stride]) : 0;
  std::uint64_t start = value;
  if (!scanned) { scan(storage).ExclusiveSum(value, start); }  // the same branch for the whole block
  if (threadIdx.x < m) { offsets[threadIdx.x] = start; }
  if (threadIdx.x == 0) {
    offsets[m] = n;
    *bad_out = static_cast<std::uint64_t>(*bad_in);
  }
}

/// Launches multisplit_results_kernel on the backend's stream.
inline void write_split_results(const cuda& backend, const unsigned long long* values, std::uint64_t stride,
                                bool scanned, std::uint32_t m, std::uint64_t n, const unsigned long long* bad_in,
                                const split_target& target)
{
  multisplit_results_kernel<><<<1, multisplit_block_threads, 0, backend.stream>>>(values, stride, scanned, m, n, bad_in,
                                                                                  target.offsets, target.bad_id_count);
  WARPDEX_CHECK_LAUNCH("multisplit_results_kernel");
}

/// The three-pass scatter's identifier: the wrapped one while the count pass found no bad ids, else
/// bucket 0 for every key. With bad ids the scatter then writes every tile's keys from the first slot of
/// bucket 0 in that tile, which is at most the tile's first index: every write stays inside the output
/// (the order is unspecified; the asynchronous call reports the bad ids, the synchronous call throws
/// before the scatter runs). `bad_ids` is read once per block (block_identifier below).
template <class Identifier>
struct guarded_buckets {
  Identifier identifier;
  const unsigned long long* bad_ids = nullptr;
  bool any_bad = false;

  [[nodiscard]] __host__ __device__ std::uint32_t bucket_count() const { return identifier.bucket_count(); }
  template <class Key>
  [[nodiscard]] __device__ std::uint32_t operator()(const Key& key) const
  {
    return any_bad ? 0U : identifier(key);
  }
};

template <class Identifier>
struct block_identifier<guarded_buckets<Identifier>> {
  using inner = block_identifier<Identifier>;
  using type = guarded_buckets<typename inner::type>;
  using storage = typename inner::storage;
  /// As the wrapped identifier's (splitters to a shared tree); reads the bad-id count once.
  __device__ static type load(const guarded_buckets<Identifier>& guarded, storage& shared)
  {
    return type{inner::load(guarded.identifier, shared), guarded.bad_ids, *guarded.bad_ids != 0};
  }
};

template <class Key, class Identifier>
void validate_identifier_on_device(const char* caller, const Identifier& identifier, stream_t stream)
{
  validate_identifier<Key>(caller, identifier, [&](const auto& splitter_identifier) {
    using splitter_type = std::remove_cvref_t<decltype(*splitter_identifier.splitters)>;
    std::vector<splitter_type> copy(splitter_identifier.splitter_count);
    copy_device_bytes(copy.data(), splitter_identifier.splitters, copy.size() * sizeof(splitter_type), stream);
    synchronize(stream);
    return copy;
  });
}

/// The three passes (m <= 256): count per tile, CUB's scan of the (bucket, tile) table, the scatter
/// (guarded_buckets), the results from column 0 of the scanned table. With `check_before_scatter` (the
/// synchronous call) the host reads the bad-id count after the count pass (one synchronization) and
/// throws before anything is written; else nothing waits.
template <class Key, class Value, class Identifier>
void cuda_three_pass_async(const char* caller, const cuda& backend, const Key* keys_in, Key* keys_out,
                           const Value* values_in, Value* values_out, std::uint64_t n, const Identifier& identifier,
                           multisplit_workspace& workspace, const split_target& target, bool check_before_scatter)
{
  const std::uint32_t m = identifier.bucket_count();
  const std::uint64_t tile_count = checked_tile_count(caller, n);
  const std::uint64_t table_size = tile_count * m;
  const count_table table(backend, workspace, table_size);
  unsigned long long* const bad_ids = table.bad_ids;

  const auto tiles = static_cast<std::uint32_t>(tile_count);
  multisplit_count_kernel<Key, Identifier>
      <<<tiles, multisplit_block_threads, 0, backend.stream>>>(keys_in, n, identifier, tiles, table.counts, bad_ids);
  WARPDEX_CHECK_LAUNCH("multisplit_count_kernel");
  if (check_before_scatter) {
    unsigned long long bad = 0;
    copy_device_bytes(&bad, bad_ids, sizeof bad, backend.stream);
    synchronize(backend.stream);
    expect_no_bad_buckets(caller, bad, n, m);
  }
  table.scan(backend);
  const guarded_buckets<Identifier> guarded{identifier, bad_ids};
  multisplit_scatter_kernel<Key, Value, guarded_buckets<Identifier>>
      <<<tiles, multisplit_block_threads, 0, backend.stream>>>(keys_in, values_in, keys_out, values_out, n, guarded,
                                                               tiles, table.first_slots);
  WARPDEX_CHECK_LAUNCH("multisplit_scatter_kernel");
  // The first tile's slot of each bucket is the bucket's offset: column 0 of the table.
  write_split_results(backend, reinterpret_cast<const unsigned long long*>(table.first_slots), tile_count, true, m, n,
                      bad_ids, target);
}

/// The keys of one tile of the single-pass split for ids of `bits` bits: the tile of the ranking
/// launch_single_pass picks (RadixBits from `bits` up to multisplit_max_radix_bits) with 64-bit offsets, the
/// smaller where the two differ (the tile count it gives sizes the look-back words for either).
template <class Key, class Value, class Identifier, int RadixBits = multisplit_min_radix_bits>
constexpr std::uint32_t single_pass_tile_keys(int bits)
{
  if constexpr (RadixBits < multisplit_max_radix_bits) {
    if (bits > RadixBits) { return single_pass_tile_keys<Key, Value, Identifier, RadixBits + 1>(bits); }
  }
  return single_pass_tile<Key, Value, Identifier, RadixBits>::tile_keys;
}

/// Launches the single-pass split with the narrowest ranking that holds ids below m (RadixBits from
/// `bits` up to multisplit_max_radix_bits), one block a tile;
/// `lookback` holds at least that many tiles' m zeroed 64-bit words. Below narrow_offsets_max_keys keys the
/// kernels that choose it (single_pass_tile::narrow_offsets: the radix sort's passes among them) take 32-bit
/// look-back words and offsets, in the first half of the same memory, and their tile of 32-bit offsets.
template <class Key, class Value, class Identifier, int RadixBits = multisplit_min_radix_bits>
void launch_single_pass(int bits, const cuda& backend, const Key* keys_in, const Value* values_in, Key* keys_out,
                        Value* values_out, std::uint64_t n, const Identifier& identifier,
                        const std::uint64_t* bucket_starts, std::uint64_t* lookback, std::uint32_t* next_tile,
                        const unsigned long long* bad_ids)
{
  if constexpr (RadixBits < multisplit_max_radix_bits) {
    if (bits > RadixBits) {
      launch_single_pass<Key, Value, Identifier, RadixBits + 1>(bits, backend, keys_in, values_in, keys_out, values_out,
                                                                n, identifier, bucket_starts, lookback, next_tile,
                                                                bad_ids);
      return;
    }
  }
  using tile = single_pass_tile<Key, Value, Identifier, RadixBits>;
  const auto blocks = static_cast<unsigned>((n + tile::tile_keys - 1) / tile::tile_keys);
  if constexpr (tile::narrow_offsets) {
    if (n < narrow_offsets_max_keys) {
      using narrow_tile = single_pass_tile<Key, Value, Identifier, RadixBits, std::uint32_t>;
      const auto narrow_blocks = static_cast<unsigned>((n + narrow_tile::tile_keys - 1) / narrow_tile::tile_keys);
      multisplit_single_pass_kernel<Key, Value, Identifier, RadixBits, std::uint32_t>
          <<<narrow_blocks, narrow_tile::block_threads, 0, backend.stream>>>(
              keys_in, values_in, keys_out, values_out, n, identifier, bucket_starts,
              reinterpret_cast<std::uint32_t*>(lookback), next_tile, bad_ids);
      WARPDEX_CHECK_LAUNCH("multisplit_single_pass_kernel");
      return;
    }
  }
  multisplit_single_pass_kernel<Key, Value, Identifier, RadixBits, std::uint64_t>
      <<<blocks, tile::block_threads, 0, backend.stream>>>(keys_in, values_in, keys_out, values_out, n, identifier,
                                                           bucket_starts, lookback, next_tile, bad_ids);
  WARPDEX_CHECK_LAUNCH("multisplit_single_pass_kernel");
}

/// The split pass of the single-pass algorithm alone, for callers that know the bucket starts (the m
/// exclusive-scanned totals, on the device): the radix sort counts every pass's digits in one read.
/// Asynchronous on the backend's stream. At most 2^32 - 1 tiles.
template <class Key, class Value, class Identifier>
void single_pass_split(const cuda& backend, const Key* keys_in, Key* keys_out, const Value* values_in,
                       Value* values_out, std::uint64_t n, const Identifier& identifier,
                       const std::uint64_t* bucket_starts)
{
  const std::uint32_t m = identifier.bucket_count();
  const std::uint64_t tile_keys = single_pass_tile_keys<Key, Value, Identifier>(bucket_id_bits(m));
  const std::uint64_t tile_count = (n + tile_keys - 1) / tile_keys;
  auto lookback = make_buffer<std::uint64_t>(backend, tile_count * m);
  auto next_tile = make_buffer<std::uint32_t>(backend, 1);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(lookback.data(), 0, lookback.size_bytes(), backend.stream));
  WARPDEX_CUDA_TRY(cudaMemsetAsync(next_tile.data(), 0, next_tile.size_bytes(), backend.stream));
  launch_single_pass<Key, Value>(bucket_id_bits(m), backend, keys_in, values_in, keys_out, values_out, n, identifier,
                                 bucket_starts, lookback.data(), next_tile.data(), nullptr);
}

/// A bad-id count that a synchronizing path (m > 256, the reduced-bit sort) read on the host before
/// writing anything: the synchronous call throws; the asynchronous one keeps the count for the device
/// result. Returns whether the path stops here.
inline bool stops_on_bad_ids(const char* caller, std::uint64_t bad, std::uint64_t n, std::uint32_t m, bool synchronous,
                             std::uint64_t& bad_out)
{
  if (synchronous) { expect_no_bad_buckets(caller, bad, n, m); }
  bad_out = bad;
  return bad != 0;
}

/// Launches multisplit_histogram_kernel (m <= multisplit_direct_max_buckets): one thread per 16-byte load
/// of keys, at most one wave, so that at small n each block counts a few loads a thread rather than one
/// key (a block's zeroing and adding of its 8,192 counters is the same work at any n).
template <class Key, class Identifier>
void launch_multisplit_histogram(const cuda& backend, const Key* keys_in, std::uint64_t n, const Identifier& identifier,
                                 unsigned long long* totals, unsigned long long* bad_ids,
                                 const split_results_tail& tail = {})
{
  const auto kernel = multisplit_histogram_kernel<Key, Identifier>;
  const std::uint64_t loads = (n * sizeof(Key) + vector_load_bytes - 1) / vector_load_bytes;
  const unsigned blocks = counting_blocks(one_wave_blocks(kernel, multisplit_block_threads, loads), n);
  kernel<<<blocks, multisplit_block_threads, 0, backend.stream>>>(keys_in, n, identifier, totals, bad_ids, tail);
  WARPDEX_CHECK_LAUNCH("multisplit_histogram_kernel");
}

/// The m bucket offsets from the full ids: histogram (checking every id against m), then a scan on
/// the host (one synchronization). Empty, with `bad_out` set, when ids lie outside [0, m) (see
/// stops_on_bad_ids).
template <class Key, class Identifier>
std::vector<std::uint64_t> cuda_full_id_offsets(const char* caller, const cuda& backend, const Key* keys_in,
                                                std::uint64_t n, const Identifier& identifier, bool synchronous,
                                                std::uint64_t& bad_out)
{
  const std::uint32_t m = identifier.bucket_count();
  auto totals = make_buffer<unsigned long long>(backend, std::uint64_t{m} + 1);  // the totals, then the bad ids
  WARPDEX_CUDA_TRY(cudaMemsetAsync(totals.data(), 0, totals.size_bytes(), backend.stream));
  // Up to 256 buckets: per-warp replicated shared counters; more: warp-aggregated counts in shared
  // memory or, past its size, in global memory.
  if (m <= multisplit_direct_max_buckets) {
    launch_multisplit_histogram(backend, keys_in, n, identifier, totals.data(), totals.data() + m);
  } else {
    const auto kernel = multisplit_id_histogram_kernel<Key, Identifier>;
    kernel<<<one_wave_blocks(kernel, multisplit_block_threads, n), multisplit_block_threads, 0, backend.stream>>>(
        keys_in, n, identifier, totals.data(), totals.data() + m);
    WARPDEX_CHECK_LAUNCH("multisplit_id_histogram_kernel");
  }
  const auto host_totals = totals.to_vector();  // synchronizes the stream
  if (stops_on_bad_ids(caller, host_totals.back(), n, m, synchronous, bad_out)) { return {}; }
  std::vector<std::uint64_t> offsets(m);
  std::uint64_t running = 0;
  for (std::uint32_t b = 0; b < m; ++b) {
    offsets[b] = running;
    running += host_totals[b];
  }
  return offsets;
}

/// The single pass (m <= 256), nothing waiting on the host: one memset of the scratch words (totals and
/// bad ids, tile counter, look-back words, the histogram's finished blocks), the histogram (whose last block
/// scans the totals into target.offsets, where the split reads its bucket starts, and with `home`, m + 2
/// words of pinned host memory, writes the results there too), the split (which writes nothing when the
/// histogram counted bad ids). Returns whether the results went home.
template <class Key, class Value, class Identifier>
bool cuda_single_pass_async(const char* caller, const cuda& backend, const Key* keys_in, Key* keys_out,
                            const Value* values_in, Value* values_out, std::uint64_t n, const Identifier& identifier,
                            multisplit_workspace& workspace, const split_target& target,
                            std::uint64_t* home = nullptr)
{
  const std::uint32_t m = identifier.bucket_count();
  static_assert(multisplit_direct_max_buckets <= multisplit_block_threads, "the tail scans a bucket a thread");
  // Before anything runs: the split kernel indexes tiles in 32 bits.
  const std::uint64_t tile_count =
      checked_tile_count(caller, n, single_pass_tile_keys<Key, Value, Identifier>(bucket_id_bits(m)));
  // Words: m totals and the bad ids, the tile counter, the finished histogram blocks, tile_count x m
  // look-back words.
  const std::uint64_t tile_counter_word = std::uint64_t{m} + 1;
  const std::uint64_t blocks_done_word = tile_counter_word + 1;
  const std::uint64_t lookback_first_word = blocks_done_word + 1;
  const std::uint64_t words = lookback_first_word + tile_count * m;
  std::uint64_t* scratch = nullptr;
  carve_scratch(backend, workspace, [&](scratch_layout& layout) { scratch = layout.take<std::uint64_t>(words); });
  WARPDEX_CUDA_TRY(cudaMemsetAsync(scratch, 0, words * sizeof(std::uint64_t), backend.stream));
  auto* totals = reinterpret_cast<unsigned long long*>(scratch);  // only ever used as such on the device
  const split_results_tail tail{reinterpret_cast<unsigned int*>(scratch + blocks_done_word), target.offsets,
                                target.bad_id_count, home, n};
  launch_multisplit_histogram(backend, keys_in, n, identifier, totals, totals + m, tail);
  launch_single_pass<Key, Value>(bucket_id_bits(m), backend, keys_in, values_in, keys_out, values_out, n, identifier,
                                 target.offsets, scratch + lookback_first_word,
                                 reinterpret_cast<std::uint32_t*>(scratch + tile_counter_word), totals + m);
  return home != nullptr;
}

/// The partition (m <= 3, multisplit_partition.cuh), nothing waiting on the host: one memset of the
/// bad-id count, the counting pass (a bucket-major table of warp tiles), the table's scan (past
/// partition_block_prefix_tiles tiles; below, the scatter's blocks sum the table themselves), the
/// scatter (which also writes the results, and skips every key when the count found ids outside [0, m)).
template <class Key, class Value, class Identifier>
void cuda_partition_async(const char* caller, const cuda& backend, const Key* keys_in, Key* keys_out,
                          const Value* values_in, Value* values_out, std::uint64_t n, const Identifier& identifier,
                          multisplit_workspace& workspace, const split_target& target)
{
  const std::uint32_t m = identifier.bucket_count();
  WARPDEX_EXPECTS(m <= partition_max_buckets, std::string(caller) + ": the partition takes at most 3 buckets");
  const std::uint64_t tile_count = checked_tile_count(caller, n, partition_tile_keys);
  const std::uint64_t table_size = tile_count * m;
  const bool scanned = tile_count > partition_block_prefix_tiles;
  const count_table table(backend, workspace, table_size, scanned);
  unsigned long long* const bad_ids = table.bad_ids;

  const auto count = multisplit_partition_count_kernel<Key, Identifier>;
  const unsigned count_blocks = one_wave_blocks(count, multisplit_block_threads, tile_count * warp::size);
  count<<<count_blocks, multisplit_block_threads, 0, backend.stream>>>(keys_in, n, identifier, tile_count, table.counts,
                                                                       bad_ids);
  WARPDEX_CHECK_LAUNCH("multisplit_partition_count_kernel");
  if (scanned) { table.scan(backend); }
  const auto scatter_blocks = static_cast<unsigned>((tile_count + multisplit_warps - 1) / multisplit_warps);
  multisplit_partition_kernel<Key, Value, Identifier><<<scatter_blocks, multisplit_block_threads, 0, backend.stream>>>(
      keys_in, values_in, keys_out, values_out, n, identifier, tile_count, table.counts, table.first_slots, bad_ids,
      target.offsets, target.bad_id_count);
  WARPDEX_CHECK_LAUNCH("multisplit_partition_kernel");
}

/// The warp tiles (m <= 32, multisplit_warp_tiles.cuh), nothing waiting on the host: one memset of the
/// bad-id count, the counting pass (a bucket-major table of warp tiles), the table's scan, the scatter
/// (which also writes the results, and skips every key when the count found ids outside [0, m)).
template <class Key, class Value, class Identifier>
void cuda_warp_tiles_async(const char* caller, const cuda& backend, const Key* keys_in, Key* keys_out,
                           const Value* values_in, Value* values_out, std::uint64_t n, const Identifier& identifier,
                           multisplit_workspace& workspace, const split_target& target)
{
  const std::uint32_t m = identifier.bucket_count();
  WARPDEX_EXPECTS(m <= warp_tiles_max_buckets, std::string(caller) + ": the warp tiles take at most 32 buckets");
  const std::uint64_t tile_count = checked_tile_count(caller, n, warp_tiles_tile_keys);
  const std::uint64_t table_size = tile_count * m;
  const count_table table(backend, workspace, table_size);
  unsigned long long* const bad_ids = table.bad_ids;

  const auto count = multisplit_warp_tiles_count_kernel<Key, Identifier>;
  const unsigned count_blocks = one_wave_blocks(count, multisplit_block_threads, tile_count * warp::size);
  count<<<count_blocks, multisplit_block_threads, 0, backend.stream>>>(keys_in, n, identifier, tile_count, table.counts,
                                                                       bad_ids);
  WARPDEX_CHECK_LAUNCH("multisplit_warp_tiles_count_kernel");
  table.scan(backend);
  using shape = warp_tiles_scatter_shape<Key, Value, Identifier>;
  const auto scatter_blocks = static_cast<unsigned>((tile_count + shape::block_warps - 1) / shape::block_warps);
  multisplit_warp_tiles_kernel<Key, Value, Identifier><<<scatter_blocks, shape::block_threads, 0, backend.stream>>>(
      keys_in, values_in, keys_out, values_out, n, identifier, tile_count, table.counts, table.first_slots, bad_ids,
      target.offsets, target.bad_id_count);
  WARPDEX_CHECK_LAUNCH("multisplit_warp_tiles_kernel");
}

/// The reduced-bit sort (any m; n < 2^32): label, CUB's stable sort of the keys (or of key-value pairs
/// packed together) by their labels, unpack the pairs, offsets from the sorted labels. Nothing is
/// gathered: the keys travel with their labels. Reads the bad-id count on the host after labelling
/// (stops_on_bad_ids) and the offsets at the end.
template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> cuda_sorting_multisplit(const char* caller, const cuda& backend, const Key* keys_in,
                                                   Key* keys_out, const Value* values_in, Value* values_out,
                                                   std::uint64_t n, const Identifier& identifier, bool synchronous,
                                                   std::uint64_t& bad_out)
{
  constexpr bool with_values = !std::is_void_v<Value>;
  using pair = labelled_pair<Key, Value>;
  const std::uint32_t m = identifier.bucket_count();
  WARPDEX_EXPECTS(
      n <= std::numeric_limits<std::uint32_t>::max(),
      std::string(caller) + ": more than 256 buckets supports up to 2^32 - 1 keys, got " + std::to_string(n));
  auto labels = make_buffer<std::uint32_t>(backend, n);
  auto sorted_labels = make_buffer<std::uint32_t>(backend, n);
  auto pairs = make_buffer<pair>(backend, with_values ? n : 0);
  auto sorted_pairs = make_buffer<pair>(backend, with_values ? n : 0);
  auto bad_ids = make_buffer<unsigned long long>(backend, 1);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(bad_ids.data(), 0, sizeof(unsigned long long), backend.stream));
  const unsigned blocks = blocks_for(n, multisplit_simple_block_threads);
  multisplit_label_kernel<Key, Value><<<blocks, multisplit_simple_block_threads, 0, backend.stream>>>(
      keys_in, values_in, n, identifier, labels.data(), pairs.data(), bad_ids.data());
  WARPDEX_CHECK_LAUNCH("multisplit_label_kernel");
  if (stops_on_bad_ids(caller, bad_ids.to_vector().front(), n, m, synchronous, bad_out)) { return {}; }

  const int label_bits = bucket_id_bits(m);
  std::size_t sort_bytes = 0;
  const auto sort = [&](void* temp) {
    if constexpr (with_values) {
      WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp, sort_bytes, labels.data(), sorted_labels.data(),
                                                       pairs.data(), sorted_pairs.data(), n, 0, label_bits,
                                                       backend.stream));
    } else {
      WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp, sort_bytes, labels.data(), sorted_labels.data(), keys_in,
                                                       keys_out, n, 0, label_bits, backend.stream));
    }
  };
  sort(nullptr);
  auto sort_temp = make_buffer<std::uint8_t>(backend, sort_bytes);
  sort(sort_temp.data());

  if constexpr (with_values) {
    multisplit_unpack_kernel<<<blocks, multisplit_simple_block_threads, 0, backend.stream>>>(sorted_pairs.data(), n,
                                                                                             keys_out, values_out);
    WARPDEX_CHECK_LAUNCH("multisplit_unpack_kernel");
  }
  auto offsets = make_buffer<std::uint64_t>(backend, m);
  multisplit_offsets_kernel<<<blocks_for(n + 1, multisplit_simple_block_threads), multisplit_simple_block_threads, 0,
                              backend.stream>>>(sorted_labels.data(), n, m, offsets.data());
  WARPDEX_CHECK_LAUNCH("multisplit_offsets_kernel");
  return offsets.to_vector();
}

/// Super buckets (m > 256): stable passes over the digits of the bucket id, least significant first,
/// so the last pass leaves the keys ordered by the full id and stable. ceil(B / 8) passes for B =
/// ceil(log2 m) id bits, the bits spread evenly over them (10 bits: two 5-bit digits, not 8 + 2): a
/// pass over 2^5 buckets is cheaper than one over 2^8 (docs/split.md). `pass_algorithm` runs each pass.
/// The full ids are counted and checked first (one synchronization, stops_on_bad_ids); the passes are
/// enqueued without waiting.
template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> cuda_super_bucket_multisplit(const char* caller, const cuda& backend, const Key* keys_in,
                                                        Key* keys_out, const Value* values_in, Value* values_out,
                                                        std::uint64_t n, const Identifier& identifier,
                                                        multisplit_algorithm pass_algorithm,
                                                        multisplit_workspace& workspace, bool synchronous,
                                                        std::uint64_t& bad_out)
{
  constexpr bool with_values = !std::is_void_v<Value>;
  using value_storage = std::conditional_t<with_values, Value, std::uint32_t>;
  auto offsets = cuda_full_id_offsets(caller, backend, keys_in, n, identifier, synchronous, bad_out);
  if (offsets.empty()) { return offsets; }
  const std::uint32_t m = identifier.bucket_count();
  const auto id_bits = static_cast<std::uint32_t>(bucket_id_bits(m));
  const std::uint32_t passes = (id_bits + multisplit_max_radix_bits - 1) / multisplit_max_radix_bits;
  const std::uint32_t digit_bits = (id_bits + passes - 1) / passes;

  // Passes alternate between the output and a scratch copy so that the last one writes the output.
  auto keys_scratch = make_buffer<Key>(backend, n);
  auto values_scratch = make_buffer<value_storage>(backend, with_values ? n : 0);
  // Each pass's own results (its digit's offsets, which the single pass reads as bucket starts).
  auto digit_results = make_buffer<std::uint64_t>(backend, std::uint64_t{multisplit_direct_max_buckets} + 2);
  const split_target digit_target{digit_results.data(), digit_results.data() + multisplit_direct_max_buckets + 1};
  const Key* keys_from = keys_in;
  const Value* values_from = values_in;
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    const bool to_output = (passes - 1 - pass) % 2 == 0;
    Key* keys_to = to_output ? keys_out : keys_scratch.data();
    Value* values_to = nullptr;
    if constexpr (with_values) { values_to = to_output ? values_out : values_scratch.data(); }
    const std::uint32_t shift = pass * digit_bits;
    const std::uint32_t bits = std::min(digit_bits, id_bits - shift);
    const std::uint32_t digit_count = std::min(((m - 1) >> shift) + 1, 1U << bits);
    const super_bucket_digit<Identifier> digit{identifier, shift, bits, digit_count};
    const multisplit_algorithm algorithm = pass_algorithm == multisplit_algorithm::automatic
                                               ? automatic_multisplit_algorithm(digit.bucket_count(), with_values)
                                               : pass_algorithm;
    if (algorithm == multisplit_algorithm::single_pass) {
      cuda_single_pass_async(caller, backend, keys_from, keys_to, values_from, values_to, n, digit, workspace,
                             digit_target);
    } else {
      cuda_three_pass_async(caller, backend, keys_from, keys_to, values_from, values_to, n, digit, workspace,
                            digit_target, false);
    }
    keys_from = keys_to;
    values_from = values_to;
  }
  return offsets;
}

/// The results of a path that computed them on the host (m > 256, the reduced-bit sort) written to the
/// device: the offsets and n (unless bad ids stopped the path) and the bad-id count; then waits for the
/// stream (those paths synchronize anyway), so the host memory copied from may go.
inline void upload_split_results(const cuda& backend, const split_target& target, std::vector<std::uint64_t> offsets,
                                 std::uint64_t n, std::uint64_t bad)
{
  if (bad == 0) {
    offsets.push_back(n);
    copy_device_bytes(target.offsets, offsets.data(), offsets.size() * sizeof(std::uint64_t), backend.stream);
  }
  copy_device_bytes(target.bad_id_count, &bad, sizeof bad, backend.stream);
  synchronize(backend.stream);
}

/// The one code path of every cuda multisplit: picks the algorithm and enqueues it with its results
/// going to `offsets` (m + 1 words) and `*bad_id_count`. `synchronous` (the synchronous calls) makes the
/// paths that read counts on the host throw on bad ids before they write anything; the asynchronous
/// call leaves the count on the device instead. With `home` (m + 2 words of pinned host memory), a path
/// that can writes the offsets and the bad-id count there too, and the call returns whether it did. The
/// identifier is checked by the caller.
template <class Key, class Value, class Identifier>
bool cuda_multisplit_async(const char* caller, const cuda& backend, std::span<const Key> keys_in,
                           std::span<Key> keys_out, const Value* values_in, Value* values_out,
                           const Identifier& identifier, std::span<std::uint64_t> offsets, std::uint64_t* bad_id_count,
                           multisplit_workspace& workspace, multisplit_algorithm algorithm, bool synchronous,
                           std::uint64_t* home = nullptr)
{
  const std::uint64_t n = keys_in.size();
  const std::uint32_t m = identifier.bucket_count();
  validate_async_results(caller, offsets.size(), m, bad_id_count);
  const split_target target{offsets.data(), bad_id_count};
  if (n == 0) {
    WARPDEX_CUDA_TRY(cudaMemsetAsync(offsets.data(), 0, offsets.size_bytes(), backend.stream));
    WARPDEX_CUDA_TRY(cudaMemsetAsync(bad_id_count, 0, sizeof(std::uint64_t), backend.stream));
    return false;
  }
  std::uint64_t bad = 0;
  // Above 256 buckets automatic takes the reduced-bit sort (n < 2^32) for splitters, which it searches
  // once where the super buckets search them in global memory once per digit pass, and for 32-bit keys
  // alone, which CUB's sort moves with their labels (H100, docs/split.md: 1.06-1.30x the super buckets
  // for bit fields and delta buckets; pairs and 64-bit keys keep the super buckets).
  const bool sorts_labels =
      m > multisplit_direct_max_buckets && n <= std::numeric_limits<std::uint32_t>::max() &&
      (is_splitter_buckets<Identifier>::value || (std::is_void_v<Value> && sizeof(Key) == sizeof(std::uint32_t)));
  if (algorithm == multisplit_algorithm::reduced_bit_sort ||
      (algorithm == multisplit_algorithm::automatic && sorts_labels)) {
    auto host_offsets = cuda_sorting_multisplit(caller, backend, keys_in.data(), keys_out.data(), values_in, values_out,
                                                n, identifier, synchronous, bad);
    upload_split_results(backend, target, std::move(host_offsets), n, bad);
    return false;
  }
  if (m > multisplit_direct_max_buckets) {
    const bool one_pass_kind =
        algorithm == multisplit_algorithm::three_pass || algorithm == multisplit_algorithm::single_pass;
    auto host_offsets = cuda_super_bucket_multisplit(
        caller, backend, keys_in.data(), keys_out.data(), values_in, values_out, n, identifier,
        one_pass_kind ? algorithm : multisplit_algorithm::automatic, workspace, synchronous, bad);
    upload_split_results(backend, target, std::move(host_offsets), n, bad);
    return false;
  }
  const bool partition = algorithm == multisplit_algorithm::partition && m <= partition_max_buckets;
  const bool warp_tiles = algorithm == multisplit_algorithm::warp_tiles && m <= warp_tiles_max_buckets;
  if (algorithm != multisplit_algorithm::three_pass && algorithm != multisplit_algorithm::single_pass && !partition &&
      !warp_tiles) {
    algorithm = automatic_one_pass_algorithm(m, values_in != nullptr, n, sizeof(Key), arithmetic_identifier<Identifier>,
                                             std::is_same_v<Identifier, bit_field_buckets>);
  }
  if (algorithm == multisplit_algorithm::partition) {
    cuda_partition_async(caller, backend, keys_in.data(), keys_out.data(), values_in, values_out, n, identifier,
                         workspace, target);
  } else if (algorithm == multisplit_algorithm::warp_tiles) {
    cuda_warp_tiles_async(caller, backend, keys_in.data(), keys_out.data(), values_in, values_out, n, identifier,
                          workspace, target);
  } else if (algorithm == multisplit_algorithm::single_pass) {
    return cuda_single_pass_async(caller, backend, keys_in.data(), keys_out.data(), values_in, values_out, n,
                                  identifier, workspace, target, home);
  } else {
    cuda_three_pass_async(caller, backend, keys_in.data(), keys_out.data(), values_in, values_out, n, identifier,
                          workspace, target, synchronous);
  }
  return false;
}

/// The synchronous calls: every check (the splitters read from the device), the asynchronous path into
/// a slot of the library's pool (sync_scratch.hpp: no allocation once it has grown), the m + 1 offsets
/// and the bad-id count in the slot's pinned host memory (written there by the single pass's histogram,
/// else copied), one synchronization, and the throw on bad ids (nothing was written then).
template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> cuda_multisplit(const char* caller, const cuda& backend, std::span<const Key> keys_in,
                                           std::span<Key> keys_out, const Value* values_in, Value* values_out,
                                           const Identifier& identifier, multisplit_algorithm algorithm)
{
  validate_identifier_on_device<Key>(caller, identifier, backend.stream);
  const std::uint32_t m = identifier.bucket_count();
  const std::uint64_t words = std::uint64_t{m} + 2;  // m + 1 offsets, the bad ids
  sync_scratch scratch(backend);
  std::uint64_t* results = scratch.device_words(words);
  std::uint64_t* home = scratch.host_words(words);
  const bool at_home = cuda_multisplit_async(caller, backend, keys_in, keys_out, values_in, values_out, identifier,
                                             std::span<std::uint64_t>(results, std::uint64_t{m} + 1), results + m + 1,
                                             scratch.workspace(), algorithm, true, home);
  if (!at_home) { copy_device_bytes(home, results, words * sizeof(std::uint64_t), backend.stream); }
  synchronize(backend.stream);
  expect_no_bad_buckets(caller, home[m + 1], keys_in.size(), m);
  return std::vector<std::uint64_t>(home, home + m);
}

/// The asynchronous calls' checks: as the synchronous calls' but without reading the splitters (which
/// would wait for the stream).
template <class Key, class Identifier>
void validate_identifier_without_splitters(const char* caller, const Identifier& identifier)
{
  validate_identifier<Key>(caller, identifier, [](const auto& splitter_identifier) {
    using splitter_type = std::remove_cvref_t<decltype(*splitter_identifier.splitters)>;
    return std::vector<splitter_type>();
  });
}

}  // namespace detail

template <class Key, class Identifier>
std::vector<std::uint64_t> multisplit(const cuda& backend, std::span<const std::type_identity_t<Key>> keys_in,
                                      std::span<Key> keys_out, const Identifier& identifier,
                                      multisplit_algorithm algorithm)
{
  constexpr const char* caller = "multisplit";
  detail::validate_multisplit_spans<Key, int>(caller, keys_in, keys_out, {}, {}, false);
  return detail::cuda_multisplit<Key, void>(caller, backend, keys_in, keys_out, nullptr, nullptr, identifier,
                                            algorithm);
}

template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> multisplit_pairs(const cuda& backend, std::span<const std::type_identity_t<Key>> keys_in,
                                            std::span<const std::type_identity_t<Value>> values_in,
                                            std::span<Key> keys_out, std::span<Value> values_out,
                                            const Identifier& identifier, multisplit_algorithm algorithm)
{
  constexpr const char* caller = "multisplit_pairs";
  detail::validate_multisplit_spans<Key, Value>(caller, keys_in, keys_out, values_in, values_out, true);
  return detail::cuda_multisplit<Key, Value>(caller, backend, keys_in, keys_out, values_in.data(), values_out.data(),
                                             identifier, algorithm);
}

template <class Key, class Identifier>
void multisplit_async(const cuda& backend, std::span<const std::type_identity_t<Key>> keys_in, std::span<Key> keys_out,
                      const Identifier& identifier, std::span<std::uint64_t> offsets, std::uint64_t* bad_id_count,
                      multisplit_workspace& workspace, multisplit_algorithm algorithm)
{
  constexpr const char* caller = "multisplit_async";
  detail::validate_multisplit_spans<Key, int>(caller, keys_in, keys_out, {}, {}, false);
  detail::validate_identifier_without_splitters<Key>(caller, identifier);
  detail::cuda_multisplit_async<Key, void>(caller, backend, keys_in, keys_out, nullptr, nullptr, identifier, offsets,
                                           bad_id_count, workspace, algorithm, false);
}

template <class Key, class Value, class Identifier>
void multisplit_pairs_async(const cuda& backend, std::span<const std::type_identity_t<Key>> keys_in,
                            std::span<const std::type_identity_t<Value>> values_in, std::span<Key> keys_out,
                            std::span<Value> values_out, const Identifier& identifier, std::span<std::uint64_t> offsets,
                            std::uint64_t* bad_id_count, multisplit_workspace& workspace,
                            multisplit_algorithm algorithm)
{
  constexpr const char* caller = "multisplit_pairs_async";
  detail::validate_multisplit_spans<Key, Value>(caller, keys_in, keys_out, values_in, values_out, true);
  detail::validate_identifier_without_splitters<Key>(caller, identifier);
  detail::cuda_multisplit_async<Key, Value>(caller, backend, keys_in, keys_out, values_in.data(), values_out.data(),
                                            identifier, offsets, bad_id_count, workspace, algorithm, false);
}

}  // namespace warpdex
