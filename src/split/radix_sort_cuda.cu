// The cuda backend's radix sort: one read of the keys counts the digits of every pass, then each pass
// is the single-pass multisplit's split kernel alone (decoupled look-back over 256 buckets). A
// multisplit per pass would read the keys once more per pass to count them: 8 instead of 12 bytes
// per key and pass (16 instead of 20 per pair), plus 4 bytes per key once for the counting read.
#include "radix_sort_impl.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/split/detail/sync_scratch.hpp>
#include <warpdex/split/multisplit.cuh>

#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace warpdex {
namespace detail {
namespace {

/// Threads per block of the digit-counting kernel (a grid-strided one-wave grid).
inline constexpr int digit_count_block_threads = 256;
/// Shared words of the digit-counting kernel's copies of the counters (32 KB; a copy is passes x 2^digit_bits
/// words, largest for 64-bit keys and 8-bit digits, 8 x 256): a copy per warp for 32-bit keys and 8-bit
/// digits, one per two warps for 64-bit keys, so that fewer lanes add to the same counter.
inline constexpr std::uint32_t digit_count_shared_words = 8192;
static_assert(digit_count_shared_words >= 8 * (std::uint32_t{1} << radix_sort_max_digit_bits), "one copy fits");
/// The 16-byte loads each thread of the digit-counting kernel keeps in flight.
inline constexpr int digit_count_load_unroll = 4;

/// Where the digit count's last block to finish leaves every pass's digit starts: starts[pass * 2^digit_bits + d] =
/// the pass's counts of digits 0 .. d - 1. `blocks_done` counts the finished blocks (zeroed with the totals);
/// null: no tail (the synchronous sort from radix_sort_host_read_from keys scans on the host).
struct digit_starts_tail {
  unsigned int* blocks_done = nullptr;
  std::uint64_t* starts = nullptr;
};
static_assert(digit_count_block_threads == 1 << radix_sort_max_digit_bits, "the tail scans a digit a thread");
/// Passes whose counts the tail reads together: every pass of 8-bit digits, 64-bit keys included.
inline constexpr std::uint32_t digit_starts_batch = 8;

/// totals[pass * 2^digit_bits + d] += keys whose digit of `pass` is d, for every pass at once. Grid-stride
/// over the keys with 16-byte loads, digit_count_load_unroll of them in flight a thread
/// (for_each_vectorized_batch); warp w adds to copy w mod copies of the counters in shared memory. With a
/// tail, the last block scans the totals into the passes' digit starts: one kernel where the scan was a
/// launch of its own.
template <class Key>
__global__ void __launch_bounds__(digit_count_block_threads)
    radix_digit_count_kernel(const Key* keys, std::uint64_t n, std::uint32_t digit_bits, bool descending,
                             unsigned long long* totals, digit_starts_tail tail)
{
  constexpr std::uint32_t warps = digit_count_block_threads / warp::size;
  using scan = cub::BlockScan<std::uint64_t, digit_count_block_threads>;
  __shared__ union {
    std::uint32_t counters[digit_count_shared_words];
    typename scan::TempStorage scan;  // the tail's, once the counters are added
  } shared;
  auto& counters = shared.counters;
  const std::uint32_t passes = radix_sort_pass_count<Key>(digit_bits);
  const std::uint32_t used = passes << digit_bits;
  const std::uint32_t copies = min(warps, digit_count_shared_words / used);
  for (std::uint32_t i = threadIdx.x; i < copies * used; i += digit_count_block_threads) { counters[i] = 0; }
  __syncthreads();
  std::uint32_t* mine = counters + (warp::warp_in_block() % copies) * used;
  const std::uint32_t digit_mask = (std::uint32_t{1} << digit_bits) - 1;
  const std::uint32_t flip = descending ? digit_mask : 0U;
  const auto count = [&](Key key) {
    if (digit_bits == radix_sort_max_digit_bits) {  // the default: the passes unrolled
#pragma unroll
      for (std::uint32_t pass = 0; pass < sizeof(Key); ++pass) {
        const auto digit = (static_cast<std::uint32_t>(key >> (pass * 8)) & 0xffU) ^ flip;
        atomicAdd(mine + (pass << 8) + digit, 1U);
      }
    } else {
      for (std::uint32_t pass = 0; pass < passes; ++pass) {
        atomicAdd(mine + (pass << digit_bits) + radix_sort_pass_digit<Key>(pass, digit_bits, descending)(key), 1U);
      }
    }
  };
  for_each_vectorized_batch<digit_count_load_unroll>(
      keys, n,
      [&](const auto& batch) {
#pragma unroll
        for (const Key key : batch) { count(key); }
      },
      count);
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < used; i += digit_count_block_threads) {
    std::uint64_t total = 0;
    for (std::uint32_t c = 0; c < copies; ++c) { total += counters[c * used + i]; }
    if (total != 0) { atomicAdd(&totals[i], static_cast<unsigned long long>(total)); }
  }
  if (tail.blocks_done == nullptr || !finished_last_block(tail.blocks_done)) { return; }
  // The counts of digit_starts_batch passes read at once, then scanned one pass after another: read a pass
  // at a time, between the scans' barriers, each read was a round trip to L2 of its own (the tail took 3 us
  // of the count's 6.8 at 2^16 keys, H200).
  const std::uint32_t stride = std::uint32_t{1} << digit_bits;
  const volatile unsigned long long* counted = totals;
  for (std::uint32_t batch_first = 0; batch_first < passes; batch_first += digit_starts_batch) {
    std::uint64_t batch_totals[digit_starts_batch];
#pragma unroll
    for (std::uint32_t k = 0; k < digit_starts_batch; ++k) {
      const std::uint32_t pass = batch_first + k;
      batch_totals[k] =
          pass < passes && threadIdx.x < stride ? static_cast<std::uint64_t>(counted[pass * stride + threadIdx.x]) : 0;
    }
#pragma unroll
    for (std::uint32_t k = 0; k < digit_starts_batch; ++k) {
      const std::uint32_t pass = batch_first + k;
      if (pass >= passes) { break; }  // the same in every thread: the scans' barriers stay block-wide
      std::uint64_t start = 0;
      scan(shared.scan).ExclusiveSum(batch_totals[k], start);  // the counters are dead: the adding ended on a read
      if (threadIdx.x < stride) { tail.starts[pass * stride + threadIdx.x] = start; }
      __syncthreads();  // the scan's storage serves the next pass
    }
  }
}

/// Blocks of the digit count for n keys: a thread a 16-byte load up to one wave (asked of the device once,
/// device_waves), so that a small sort's blocks each count a few loads a thread instead of one key and each
/// add 2^digit_bits x passes counters once (at 2^16 32-bit keys, 64 blocks where a block a 256 keys took 256).
template <class Key>
unsigned digit_count_blocks(std::uint64_t n)
{
  const std::uint64_t loads = (n * sizeof(Key) + vector_load_bytes - 1) / vector_load_bytes;
  return one_wave_blocks(radix_digit_count_kernel<Key>, digit_count_block_threads, loads);
}

/// The asynchronous sort (Value void for keys only): one memset of the counts, tile counters and
/// look-back words of every pass, the digit count (whose last block scans every pass's counts into its
/// digit starts), then one split per pass (all of them), ping-ponging through the workspace's temporaries so that the
/// last writes the output. Nothing waits on the host; the workspace allocates only when it must grow.
template <class Key, class Value>
void cuda_radix_sort_async(const char* caller, const cuda& backend, std::span<const Key> keys_in,
                           const Value* values_in, std::span<Key> keys_out, Value* values_out, sort_order order,
                           std::uint32_t digit_bits, multisplit_workspace& workspace)
{
  constexpr bool with_values = !std::is_void_v<Value>;
  using value_word = std::conditional_t<with_values, Value, std::uint32_t>;
  validate_digit_bits(caller, digit_bits);
  const std::uint32_t passes = radix_sort_pass_count<Key>(digit_bits);
  const std::uint32_t stride = std::uint32_t{1} << digit_bits;  // counters per pass
  const std::uint64_t n = keys_in.size();
  if (n == 0) { return; }
  // Before anything runs: the split kernel indexes tiles in 32 bits. The most tiles of any pass (the
  // tile depends on the pass's digit width) size every pass's look-back words.
  std::uint64_t smallest_tile_keys = std::numeric_limits<std::uint64_t>::max();
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    const std::uint32_t m = radix_sort_pass_digit<Key>(pass, digit_bits, false).bucket_count();
    smallest_tile_keys = std::min<std::uint64_t>(
        smallest_tile_keys, single_pass_tile_keys<Key, Value, bit_field_buckets>(bucket_id_bits(m)));
  }
  const std::uint64_t tile_count = checked_tile_count(caller, n, smallest_tile_keys);
  const bool descending = order == sort_order::descending;

  // Zeroed words: passes x stride totals, one tile counter per pass, the digit count's finished blocks,
  // passes x tile_count x stride look-back words (a pass of m <= stride buckets uses the first tile_count x m
  // of its share).
  const std::uint64_t counter_first = std::uint64_t{passes} * stride;
  const std::uint64_t blocks_done_word = counter_first + passes;
  const std::uint64_t lookback_first = blocks_done_word + 1;
  const std::uint64_t lookback_words = tile_count * stride;
  const std::uint64_t zeroed_words = lookback_first + passes * lookback_words;
  std::uint64_t* zeroed = nullptr;
  std::uint64_t* starts = nullptr;
  Key* key_temp = nullptr;
  value_word* value_temp = nullptr;
  const bool ping_pong = passes > 1;
  carve_scratch(backend, workspace, [&](scratch_layout& layout) {
    zeroed = layout.take<std::uint64_t>(zeroed_words);
    starts = layout.take<std::uint64_t>(std::uint64_t{passes} * stride);
    key_temp = layout.take<Key>(ping_pong ? n : 0);
    value_temp = layout.take<value_word>(with_values && ping_pong ? n : 0);
  });
  WARPDEX_CUDA_TRY(cudaMemsetAsync(zeroed, 0, zeroed_words * sizeof(std::uint64_t), backend.stream));
  auto* totals = reinterpret_cast<unsigned long long*>(zeroed);  // only ever used as such on the device
  const digit_starts_tail tail{reinterpret_cast<unsigned int*>(zeroed + blocks_done_word), starts};
  radix_digit_count_kernel<Key><<<digit_count_blocks<Key>(n), digit_count_block_threads, 0, backend.stream>>>(
      keys_in.data(), n, digit_bits, descending, totals, tail);
  WARPDEX_CHECK_LAUNCH("radix_digit_count_kernel");

  const Key* keys_from = keys_in.data();
  const Value* values_from = values_in;
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    const bool to_output = (passes - pass) % 2 == 1;
    Key* keys_to = to_output ? keys_out.data() : key_temp;
    Value* values_to = nullptr;
    if constexpr (with_values) { values_to = to_output ? values_out : value_temp; }
    const bit_field_buckets digit = radix_sort_pass_digit<Key>(pass, digit_bits, descending);
    launch_single_pass<Key, Value>(bucket_id_bits(digit.bucket_count()), backend, keys_from, values_from, keys_to,
                                   values_to, n, digit, starts + std::uint64_t{pass} * stride,
                                   zeroed + lookback_first + pass * lookback_words,
                                   reinterpret_cast<std::uint32_t*>(zeroed + counter_first + pass), nullptr);
    keys_from = keys_to;
    values_from = values_to;
  }
}

/// Values is void for keys only. Below radix_sort_host_read_from keys: the asynchronous sort into a slot
/// of the library's pool (sync_scratch.hpp) and one wait. From there: the digits counted and read on the
/// host, so that a pass whose keys share one digit is skipped.
template <class Key, class Value>
void cuda_radix_sort(const char* caller, const cuda& backend, std::span<const Key> keys_in, const Value* values_in,
                     std::span<Key> keys_out, Value* values_out, sort_order order, std::uint32_t digit_bits)
{
  constexpr bool with_values = !std::is_void_v<Value>;
  validate_digit_bits(caller, digit_bits);
  const std::uint32_t passes = radix_sort_pass_count<Key>(digit_bits);
  const std::uint32_t stride = std::uint32_t{1} << digit_bits;  // counters per pass
  const std::uint64_t n = keys_in.size();
  if (n == 0) { return; }
  if (n < radix_sort_host_read_from) {
    sync_scratch scratch(backend);
    cuda_radix_sort_async<Key, Value>(caller, backend, keys_in, values_in, keys_out, values_out, order, digit_bits,
                                      scratch.workspace());
    synchronize(backend.stream);
    return;
  }
  (void)checked_tile_count(caller, n);  // before anything runs: the split kernel indexes tiles in 32 bits
  const bool descending = order == sort_order::descending;

  auto totals = make_buffer<unsigned long long>(backend, passes * stride);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(totals.data(), 0, totals.size_bytes(), backend.stream));
  radix_digit_count_kernel<Key><<<digit_count_blocks<Key>(n), digit_count_block_threads, 0, backend.stream>>>(
      keys_in.data(), n, digit_bits, descending, totals.data(), digit_starts_tail{});
  WARPDEX_CHECK_LAUNCH("radix_digit_count_kernel");
  const auto host_totals = totals.to_vector();  // synchronizes the stream

  // Exclusive scan per pass; a pass whose keys all share one digit leaves the order as it is: skipped.
  std::vector<std::uint64_t> starts(passes * stride);
  std::vector<std::uint32_t> active_passes;
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    std::uint64_t running = 0;
    bool one_digit = false;
    for (std::uint32_t d = 0; d < stride; ++d) {
      const std::uint64_t count = host_totals[pass * stride + d];
      starts[pass * stride + d] = running;
      running += count;
      one_digit = one_digit || count == n;
    }
    if (!one_digit) { active_passes.push_back(pass); }
  }
  auto device_starts = make_buffer<std::uint64_t>(backend, starts.size());
  device_starts.copy_from(starts);

  // Pass k reads `from` and writes `to`, ping-ponging so that the last pass writes the output.
  auto key_temp = make_buffer<Key>(backend, active_passes.size() > 1 ? n : 0);
  auto value_temp = make_buffer<std::uint32_t>(backend, with_values && active_passes.size() > 1 ? n : 0);
  const Key* keys_from = keys_in.data();
  const Value* values_from = values_in;
  for (std::size_t k = 0; k < active_passes.size(); ++k) {
    const bool to_output = (active_passes.size() - k) % 2 == 1;
    Key* keys_to = to_output ? keys_out.data() : key_temp.data();
    Value* values_to = nullptr;
    if constexpr (with_values) { values_to = to_output ? values_out : value_temp.data(); }
    const std::uint32_t pass = active_passes[k];
    single_pass_split(backend, keys_from, keys_to, values_from, values_to, n,
                      radix_sort_pass_digit<Key>(pass, digit_bits, descending), device_starts.data() + pass * stride);
    keys_from = keys_to;
    values_from = values_to;
  }
  if (active_passes.empty()) {  // every pass was trivial: the input is its own sorted order
    copy_device_bytes(keys_out.data(), keys_in.data(), n * sizeof(Key), backend.stream);
    if constexpr (with_values) { copy_device_bytes(values_out, values_in, n * sizeof(Value), backend.stream); }
  }
  synchronize(backend.stream);
}

}  // namespace

}  // namespace detail

void radix_sort(const cuda& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                sort_order order, std::uint32_t digit_bits)
{
  constexpr const char* caller = "radix_sort";
  detail::validate_multisplit_spans<std::uint32_t, std::uint32_t>(caller, keys_in, keys_out, {}, {}, false);
  detail::cuda_radix_sort<std::uint32_t, void>(caller, backend, keys_in, nullptr, keys_out, nullptr, order, digit_bits);
}

void radix_sort_pairs(const cuda& backend, std::span<const std::uint32_t> keys_in,
                      std::span<const std::uint32_t> values_in, std::span<std::uint32_t> keys_out,
                      std::span<std::uint32_t> values_out, sort_order order, std::uint32_t digit_bits)
{
  constexpr const char* caller = "radix_sort_pairs";
  detail::validate_multisplit_spans<std::uint32_t, std::uint32_t>(caller, keys_in, keys_out, values_in, values_out,
                                                                  true);
  detail::cuda_radix_sort<std::uint32_t, std::uint32_t>(caller, backend, keys_in, values_in.data(), keys_out,
                                                        values_out.data(), order, digit_bits);
}

void radix_sort(const cuda& backend, std::span<const std::uint64_t> keys_in, std::span<std::uint64_t> keys_out,
                sort_order order, std::uint32_t digit_bits)
{
  constexpr const char* caller = "radix_sort";
  detail::validate_multisplit_spans<std::uint64_t, std::uint32_t>(caller, keys_in, keys_out, {}, {}, false);
  detail::cuda_radix_sort<std::uint64_t, void>(caller, backend, keys_in, nullptr, keys_out, nullptr, order, digit_bits);
}

void radix_sort_async(const cuda& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                      multisplit_workspace& workspace, sort_order order, std::uint32_t digit_bits)
{
  constexpr const char* caller = "radix_sort_async";
  detail::validate_multisplit_spans<std::uint32_t, std::uint32_t>(caller, keys_in, keys_out, {}, {}, false);
  detail::cuda_radix_sort_async<std::uint32_t, void>(caller, backend, keys_in, nullptr, keys_out, nullptr, order,
                                                     digit_bits, workspace);
}

void radix_sort_pairs_async(const cuda& backend, std::span<const std::uint32_t> keys_in,
                            std::span<const std::uint32_t> values_in, std::span<std::uint32_t> keys_out,
                            std::span<std::uint32_t> values_out, multisplit_workspace& workspace, sort_order order,
                            std::uint32_t digit_bits)
{
  constexpr const char* caller = "radix_sort_pairs_async";
  detail::validate_multisplit_spans<std::uint32_t, std::uint32_t>(caller, keys_in, keys_out, values_in, values_out,
                                                                  true);
  detail::cuda_radix_sort_async<std::uint32_t, std::uint32_t>(caller, backend, keys_in, values_in.data(), keys_out,
                                                              values_out.data(), order, digit_bits, workspace);
}

void radix_sort_async(const cuda& backend, std::span<const std::uint64_t> keys_in, std::span<std::uint64_t> keys_out,
                      multisplit_workspace& workspace, sort_order order, std::uint32_t digit_bits)
{
  constexpr const char* caller = "radix_sort_async";
  detail::validate_multisplit_spans<std::uint64_t, std::uint32_t>(caller, keys_in, keys_out, {}, {}, false);
  detail::cuda_radix_sort_async<std::uint64_t, void>(caller, backend, keys_in, nullptr, keys_out, nullptr, order,
                                                     digit_bits, workspace);
}

}  // namespace warpdex
