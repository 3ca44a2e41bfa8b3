#pragma once
/// @file The cuda backend's multisplit for any identifier: include it from CUDA code to use
/// custom_buckets (a functor with a __host__ __device__ call operator) on the GPU.

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/launch.cuh>
#include <warpdex/split/detail/multisplit_kernels.cuh>
#include <warpdex/split/detail/multisplit_partition.cuh>
#include <warpdex/split/detail/multisplit_single_pass.cuh>
#include <warpdex/split/detail/multisplit_validate.hpp>
#include <warpdex/split/multisplit.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

namespace warpdex {
namespace detail {

/// The bucket id widths the single-pass ranking is compiled for: CUB's early-count ranking needs at
/// least one warp's width of digits (2^5), and m <= 2^8 = multisplit_direct_max_buckets.
inline constexpr int multisplit_min_radix_bits = 5;
inline constexpr int multisplit_max_radix_bits = 8;

/// The algorithm `automatic` stands for with m <= 256 buckets, from the H200 measurements in
/// docs/split.md (n = 2^28): the single pass wins for keys from m = 8 and for pairs from m = 32; below
/// that the three-pass kernels are as fast or faster.
inline constexpr std::uint32_t single_pass_min_buckets_keys = 8;
inline constexpr std::uint32_t single_pass_min_buckets_pairs = 32;
inline multisplit_algorithm automatic_multisplit_algorithm(std::uint32_t bucket_count, bool pairs)
{
  const std::uint32_t threshold = pairs ? single_pass_min_buckets_pairs : single_pass_min_buckets_keys;
  return bucket_count >= threshold ? multisplit_algorithm::single_pass : multisplit_algorithm::three_pass;
}

/// The algorithm `automatic` stands for with one pass (m <= 256): the partition for m <= 3 (predicted,
/// docs/split.md: lighter kernels over the same 12 bytes per key), else as measured above. The
/// super-bucket digits never have fewer than 8 buckets and keep automatic_multisplit_algorithm.
inline multisplit_algorithm automatic_one_pass_algorithm(std::uint32_t bucket_count, bool pairs)
{
  return bucket_count <= partition_max_buckets ? multisplit_algorithm::partition
                                               : automatic_multisplit_algorithm(bucket_count, pairs);
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

inline std::uint64_t read_bad_ids(const buffer<unsigned long long>& bad_ids)
{
  return bad_ids.to_vector().front();  // synchronizes the stream
}

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

template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> cuda_direct_multisplit(const char* caller, const cuda& backend, const Key* keys_in,
                                                  Key* keys_out, const Value* values_in, Value* values_out,
                                                  std::uint64_t n, const Identifier& identifier)
{
  const std::uint32_t m = identifier.bucket_count();
  const std::uint64_t tile_count = checked_tile_count(caller, n);
  const std::uint64_t table_size = tile_count * m;
  auto counts = make_buffer<std::uint32_t>(backend, table_size);
  auto first_slots = make_buffer<std::uint64_t>(backend, table_size);
  auto bad_ids = make_buffer<unsigned long long>(backend, 1);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(bad_ids.data(), 0, sizeof(unsigned long long), backend.stream));

  const auto tiles = static_cast<std::uint32_t>(tile_count);
  multisplit_count_kernel<Key, Identifier><<<tiles, multisplit_block_threads, 0, backend.stream>>>(
      keys_in, n, identifier, tiles, counts.data(), bad_ids.data());
  WARPDEX_CHECK_LAUNCH("multisplit_count_kernel");
  expect_no_bad_buckets(caller, read_bad_ids(bad_ids), n, m);

  std::size_t scan_bytes = 0;
  const auto scan = [&](void* temp) {
    WARPDEX_CUDA_TRY(cub::DeviceScan::ExclusiveScan(temp, scan_bytes, counts.data(), first_slots.data(),
                                                    ::cuda::std::plus<>{}, std::uint64_t{0}, table_size,
                                                    backend.stream));
  };
  scan(nullptr);
  auto scan_temp = make_buffer<std::uint8_t>(backend, scan_bytes);
  scan(scan_temp.data());

  multisplit_scatter_kernel<Key, Value, Identifier><<<tiles, multisplit_block_threads, 0, backend.stream>>>(
      keys_in, values_in, keys_out, values_out, n, identifier, tiles, first_slots.data());
  WARPDEX_CHECK_LAUNCH("multisplit_scatter_kernel");

  // The first tile's slot of each bucket is the bucket's offset: column 0 of the table.
  std::vector<std::uint64_t> offsets(m);
  WARPDEX_CUDA_TRY(cudaMemcpy2DAsync(offsets.data(), sizeof(std::uint64_t), first_slots.data(),
                                     tile_count * sizeof(std::uint64_t), sizeof(std::uint64_t), m,
                                     cudaMemcpyDeviceToHost, backend.stream));
  synchronize(backend.stream);
  return offsets;
}

/// Launches the single-pass split with the narrowest ranking that holds ids below m (RadixBits from
/// `bits` up to multisplit_max_radix_bits).
template <class Key, class Value, class Identifier, int RadixBits = multisplit_min_radix_bits>
void launch_single_pass(int bits, unsigned blocks, const cuda& backend, const Key* keys_in, const Value* values_in,
                        Key* keys_out, Value* values_out, std::uint64_t n, const Identifier& identifier,
                        const std::uint64_t* bucket_starts, std::uint64_t* lookback, std::uint32_t* next_tile,
                        const unsigned long long* bad_ids)
{
  if constexpr (RadixBits < multisplit_max_radix_bits) {
    if (bits > RadixBits) {
      launch_single_pass<Key, Value, Identifier, RadixBits + 1>(bits, blocks, backend, keys_in, values_in, keys_out,
                                                                values_out, n, identifier, bucket_starts, lookback,
                                                                next_tile, bad_ids);
      return;
    }
  }
  multisplit_single_pass_kernel<Key, Value, Identifier, RadixBits>
      <<<blocks, single_pass_shape<sizeof(Key)>::block_threads, 0, backend.stream>>>(
          keys_in, values_in, keys_out, values_out, n, identifier, bucket_starts, lookback, next_tile, bad_ids);
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
  constexpr std::uint64_t tile_keys = single_pass_shape<sizeof(Key)>::tile_keys;
  const std::uint64_t tile_count = (n + tile_keys - 1) / tile_keys;
  auto lookback = make_buffer<std::uint64_t>(backend, tile_count * m);
  auto next_tile = make_buffer<std::uint32_t>(backend, 1);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(lookback.data(), 0, lookback.size_bytes(), backend.stream));
  WARPDEX_CUDA_TRY(cudaMemsetAsync(next_tile.data(), 0, next_tile.size_bytes(), backend.stream));
  launch_single_pass<Key, Value>(bucket_id_bits(m), static_cast<unsigned>(tile_count), backend, keys_in, values_in,
                                 keys_out, values_out, n, identifier, bucket_starts, lookback.data(), next_tile.data(),
                                 nullptr);
}

/// The m bucket offsets from the full ids: histogram (checking every id against m), then a scan on
/// the host. Throws before anything is written when an id lies outside [0, m).
template <class Key, class Identifier>
std::vector<std::uint64_t> cuda_full_id_offsets(const char* caller, const cuda& backend, const Key* keys_in,
                                                std::uint64_t n, const Identifier& identifier)
{
  const std::uint32_t m = identifier.bucket_count();
  auto totals = make_buffer<unsigned long long>(backend, std::uint64_t{m} + 1);  // the totals, then the bad ids
  WARPDEX_CUDA_TRY(cudaMemsetAsync(totals.data(), 0, totals.size_bytes(), backend.stream));
  // Up to 256 buckets: per-warp replicated shared counters; more: warp-aggregated counts in shared
  // memory or, past its size, in global memory.
  const auto count = [&](auto kernel, const char* kernel_name) {
    kernel<<<one_wave_blocks(kernel, multisplit_block_threads, n), multisplit_block_threads, 0, backend.stream>>>(
        keys_in, n, identifier, totals.data(), totals.data() + m);
    WARPDEX_CHECK_LAUNCH(kernel_name);
  };
  if (m <= multisplit_direct_max_buckets) {
    count(multisplit_histogram_kernel<Key, Identifier>, "multisplit_histogram_kernel");
  } else {
    count(multisplit_id_histogram_kernel<Key, Identifier>, "multisplit_id_histogram_kernel");
  }
  const auto host_totals = totals.to_vector();  // synchronizes the stream
  expect_no_bad_buckets(caller, host_totals.back(), n, m);
  std::vector<std::uint64_t> offsets(m);
  std::uint64_t running = 0;
  for (std::uint32_t b = 0; b < m; ++b) {
    offsets[b] = running;
    running += host_totals[b];
  }
  return offsets;
}

/// Zeroed 64-bit scratch words on the backend's stream: one allocation, one memset.
inline buffer<std::uint64_t> zeroed_words(const cuda& backend, std::uint64_t words)
{
  auto scratch = make_buffer<std::uint64_t>(backend, words);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(scratch.data(), 0, scratch.size_bytes(), backend.stream));
  return scratch;
}

/// The end of a call whose split kernel writes nothing when bad ids were counted: reads the `words`
/// device counters (the m bucket totals from word 0, the bad ids at `bad_word`), synchronizes the
/// stream, throws on bad ids, and returns the m offsets (the exclusive scan of the totals).
inline std::vector<std::uint64_t> offsets_after_split(const char* caller, const cuda& backend,
                                                      const std::uint64_t* counters, std::uint64_t words,
                                                      std::uint64_t bad_word, std::uint64_t n, std::uint32_t m)
{
  std::vector<std::uint64_t> totals(words);
  copy_device_bytes(totals.data(), counters, words * sizeof(std::uint64_t), backend.stream);
  synchronize(backend.stream);  // the outputs are complete on return, as with the other paths
  expect_no_bad_buckets(caller, totals[bad_word], n, m);
  std::vector<std::uint64_t> offsets(m);
  for (std::uint32_t b = 1; b < m; ++b) { offsets[b] = offsets[b - 1] + totals[b - 1]; }
  return offsets;
}

/// The single pass (m <= 256) with no host synchronization between its kernels: one memset of one
/// scratch allocation (totals and bad ids, bucket starts, tile counter, look-back words), the histogram,
/// a one-block scan of the totals into the bucket starts on the device, the split (which writes nothing
/// when the histogram counted bad ids), then one read-back of the totals and one synchronization.
template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> cuda_single_pass_multisplit(const char* caller, const cuda& backend, const Key* keys_in,
                                                       Key* keys_out, const Value* values_in, Value* values_out,
                                                       std::uint64_t n, const Identifier& identifier)
{
  const std::uint32_t m = identifier.bucket_count();
  // Before anything runs: the split kernel indexes tiles in 32 bits.
  const std::uint64_t tile_count = checked_tile_count(caller, n, single_pass_shape<sizeof(Key)>::tile_keys);
  // Words: m totals and the bad ids, m bucket starts, the tile counter, tile_count x m look-back words.
  const std::uint64_t starts_word = std::uint64_t{m} + 1;
  const std::uint64_t tile_counter_word = starts_word + m;
  const std::uint64_t lookback_first_word = tile_counter_word + 1;
  auto scratch = zeroed_words(backend, lookback_first_word + tile_count * m);
  auto* totals = reinterpret_cast<unsigned long long*>(scratch.data());  // only ever used as such on the device
  multisplit_histogram_kernel<Key, Identifier>
      <<<one_wave_blocks(multisplit_histogram_kernel<Key, Identifier>, multisplit_block_threads, n),
         multisplit_block_threads, 0, backend.stream>>>(keys_in, n, identifier, totals, totals + m);
  WARPDEX_CHECK_LAUNCH("multisplit_histogram_kernel");
  multisplit_bucket_starts_kernel<>
      <<<1, multisplit_block_threads, 0, backend.stream>>>(totals, m, scratch.data() + starts_word);
  WARPDEX_CHECK_LAUNCH("multisplit_bucket_starts_kernel");
  launch_single_pass<Key, Value>(bucket_id_bits(m), static_cast<unsigned>(tile_count), backend, keys_in, values_in,
                                 keys_out, values_out, n, identifier, scratch.data() + starts_word,
                                 scratch.data() + lookback_first_word,
                                 reinterpret_cast<std::uint32_t*>(scratch.data() + tile_counter_word), totals + m);

  return offsets_after_split(caller, backend, scratch.data(), std::uint64_t{m} + 1, m, n, m);
}

/// The partition (m <= 3, multisplit_partition.cuh): the counting pass and the scatter pass back to
/// back, the scatter skipping every write when the count found ids outside [0, m); one host
/// synchronization at the end reads the counts, throws on bad ids and gives the offsets. Scratch: one
/// allocation and one memset (the counters, the tile counter and the look-back words).
template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> cuda_partition_multisplit(const char* caller, const cuda& backend, const Key* keys_in,
                                                     Key* keys_out, const Value* values_in, Value* values_out,
                                                     std::uint64_t n, const Identifier& identifier)
{
  const std::uint32_t m = identifier.bucket_count();
  WARPDEX_EXPECTS(m <= partition_max_buckets, std::string(caller) + ": the partition takes at most 3 buckets");
  const std::uint64_t tile_count = checked_tile_count(caller, n);
  // Words: partition_counters counters, the next-tile counter, then (m - 1) look-back words per tile.
  constexpr std::uint64_t tile_counter_word = partition_counters;
  constexpr std::uint64_t lookback_first_word = tile_counter_word + 1;
  auto scratch = zeroed_words(backend, lookback_first_word + tile_count * (m - 1));
  auto* counters = reinterpret_cast<unsigned long long*>(scratch.data());  // only ever used as such on the device
  auto* next_tile = reinterpret_cast<std::uint32_t*>(scratch.data() + tile_counter_word);

  const auto count = multisplit_partition_count_kernel<Key, Identifier>;
  const std::uint64_t groups = (n * sizeof(Key) + vector_load_bytes - 1) / vector_load_bytes;
  const unsigned count_blocks = counting_blocks(one_wave_blocks(count, multisplit_block_threads, groups), n);
  count<<<count_blocks, multisplit_block_threads, 0, backend.stream>>>(keys_in, n, identifier, counters);
  WARPDEX_CHECK_LAUNCH("multisplit_partition_count_kernel");
  multisplit_partition_kernel<Key, Value, Identifier>
      <<<static_cast<unsigned>(tile_count), multisplit_block_threads, 0, backend.stream>>>(
          keys_in, values_in, keys_out, values_out, n, identifier, counters, scratch.data() + lookback_first_word,
          next_tile);
  WARPDEX_CHECK_LAUNCH("multisplit_partition_kernel");

  return offsets_after_split(caller, backend, scratch.data(), partition_counters, partition_bad_ids, n, m);
}

template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> cuda_sorting_multisplit(const char* caller, const cuda& backend, const Key* keys_in,
                                                   Key* keys_out, const Value* values_in, Value* values_out,
                                                   std::uint64_t n, const Identifier& identifier)
{
  const std::uint32_t m = identifier.bucket_count();
  WARPDEX_EXPECTS(
      n <= std::numeric_limits<std::uint32_t>::max(),
      std::string(caller) + ": more than 256 buckets supports up to 2^32 - 1 keys, got " + std::to_string(n));
  auto labels = make_buffer<std::uint32_t>(backend, n);
  auto sorted_labels = make_buffer<std::uint32_t>(backend, n);
  auto indices = make_buffer<std::uint32_t>(backend, n);
  auto sorted_indices = make_buffer<std::uint32_t>(backend, n);
  auto bad_ids = make_buffer<unsigned long long>(backend, 1);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(bad_ids.data(), 0, sizeof(unsigned long long), backend.stream));
  const unsigned blocks = blocks_for(n, multisplit_simple_block_threads);
  multisplit_label_kernel<<<blocks, multisplit_simple_block_threads, 0, backend.stream>>>(
      keys_in, n, identifier, labels.data(), indices.data(), bad_ids.data());
  WARPDEX_CHECK_LAUNCH("multisplit_label_kernel");
  expect_no_bad_buckets(caller, read_bad_ids(bad_ids), n, m);

  const int label_bits = bucket_id_bits(m);
  std::size_t sort_bytes = 0;
  const auto sort = [&](void* temp) {
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp, sort_bytes, labels.data(), sorted_labels.data(),
                                                     indices.data(), sorted_indices.data(), n, 0, label_bits,
                                                     backend.stream));
  };
  sort(nullptr);
  auto sort_temp = make_buffer<std::uint8_t>(backend, sort_bytes);
  sort(sort_temp.data());

  multisplit_gather_kernel<<<blocks, multisplit_simple_block_threads, 0, backend.stream>>>(
      keys_in, values_in, keys_out, values_out, sorted_indices.data(), n);
  WARPDEX_CHECK_LAUNCH("multisplit_gather_kernel");
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
template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> cuda_super_bucket_multisplit(const char* caller, const cuda& backend, const Key* keys_in,
                                                        Key* keys_out, const Value* values_in, Value* values_out,
                                                        std::uint64_t n, const Identifier& identifier,
                                                        multisplit_algorithm pass_algorithm)
{
  constexpr bool with_values = !std::is_void_v<Value>;
  using value_storage = std::conditional_t<with_values, Value, std::uint32_t>;
  auto offsets = cuda_full_id_offsets(caller, backend, keys_in, n, identifier);
  const std::uint32_t m = identifier.bucket_count();
  const auto id_bits = static_cast<std::uint32_t>(bucket_id_bits(m));
  const std::uint32_t passes = (id_bits + multisplit_max_radix_bits - 1) / multisplit_max_radix_bits;
  const std::uint32_t digit_bits = (id_bits + passes - 1) / passes;

  // Passes alternate between the output and a scratch copy so that the last one writes the output.
  auto keys_scratch = make_buffer<Key>(backend, n);
  auto values_scratch = make_buffer<value_storage>(backend, with_values ? n : 0);
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
      (void)cuda_single_pass_multisplit(caller, backend, keys_from, keys_to, values_from, values_to, n, digit);
    } else {
      (void)cuda_direct_multisplit(caller, backend, keys_from, keys_to, values_from, values_to, n, digit);
    }
    keys_from = keys_to;
    values_from = values_to;
  }
  return offsets;
}

template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> cuda_multisplit(const char* caller, const cuda& backend, std::span<const Key> keys_in,
                                           std::span<Key> keys_out, const Value* values_in, Value* values_out,
                                           const Identifier& identifier, multisplit_algorithm algorithm)
{
  validate_identifier_on_device<Key>(caller, identifier, backend.stream);
  const std::uint64_t n = keys_in.size();
  const std::uint32_t m = identifier.bucket_count();
  if (n == 0) { return std::vector<std::uint64_t>(m, 0); }
  // Above 256 buckets the splitters are searched in global memory once per digit pass: the H200 rows
  // (docs/split.md) had the reduced-bit sort, which searches them once, ahead at m = 1000 and 4096.
  const bool splitters_beyond_direct = is_splitter_buckets<Identifier>::value && m > multisplit_direct_max_buckets;
  if (algorithm == multisplit_algorithm::reduced_bit_sort ||
      (algorithm == multisplit_algorithm::automatic && splitters_beyond_direct)) {
    return cuda_sorting_multisplit(caller, backend, keys_in.data(), keys_out.data(), values_in, values_out, n,
                                   identifier);
  }
  if (m > multisplit_direct_max_buckets) {
    const bool one_pass_kind =
        algorithm == multisplit_algorithm::three_pass || algorithm == multisplit_algorithm::single_pass;
    return cuda_super_bucket_multisplit(caller, backend, keys_in.data(), keys_out.data(), values_in, values_out, n,
                                        identifier, one_pass_kind ? algorithm : multisplit_algorithm::automatic);
  }
  const bool partition = algorithm == multisplit_algorithm::partition && m <= partition_max_buckets;
  if (algorithm != multisplit_algorithm::three_pass && algorithm != multisplit_algorithm::single_pass && !partition) {
    algorithm = automatic_one_pass_algorithm(m, values_in != nullptr);
  }
  if (algorithm == multisplit_algorithm::partition) {
    return cuda_partition_multisplit(caller, backend, keys_in.data(), keys_out.data(), values_in, values_out, n,
                                     identifier);
  }
  if (algorithm == multisplit_algorithm::single_pass) {
    return cuda_single_pass_multisplit(caller, backend, keys_in.data(), keys_out.data(), values_in, values_out, n,
                                       identifier);
  }
  return cuda_direct_multisplit(caller, backend, keys_in.data(), keys_out.data(), values_in, values_out, n, identifier);
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

}  // namespace warpdex
