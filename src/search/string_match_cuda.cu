// String matching on the cuda backend. The WOM and two-stage kernels give each thread 128 bytes of
// window starts, read as eight aligned 16-byte vector loads (plus the 16 bytes after, for the prefixes
// that begin near the end), and find candidates four starts at a time on 32-bit words; DRK
// threads read bytes one at a time, as in the original DRK. Counting reduces per block; finding counts
// per thread, scans the counts into offsets and scans the text again to write the positions in order.
#include "string_match_impl.hpp"

#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/launch.cuh>
#include <warpdex/core/warp.cuh>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

namespace warpdex::detail {
namespace {

constexpr int threads_per_block = 256;
constexpr std::uint64_t unit_bytes = 16;  // one uint4 load
/// Window ends per DRK thread at least; a thread hashes a full pattern first, so it takes at least m.
constexpr std::uint64_t drk_min_subtext_bytes = 64;

/// What a scan does with the matches it finds.
enum class scan_mode {
  count_total,       ///< add them up into one counter
  count_per_thread,  ///< store each thread's count
  write,             ///< store each thread's positions from its offset on
};

/// Where a scan's results go.
struct scan_output {
  unsigned long long* total = nullptr;
  std::uint32_t* thread_counts = nullptr;
  const std::uint64_t* thread_offsets = nullptr;
  std::uint64_t* positions = nullptr;
};

/// The text seen as aligned 16-byte units: unit u covers aligned_base[16u, 16u + 16), which may begin
/// before the text (head bytes) or end after it.
struct text_units {
  const std::uint8_t* aligned_base;
  std::uint64_t head;
  std::uint64_t count;
};

text_units make_text_units(const match_problem& problem)
{
  const auto address = reinterpret_cast<std::uintptr_t>(problem.text);
  const std::uint64_t head = address % unit_bytes;
  return {problem.text - head, head, (head + problem.text_size + unit_bytes - 1) / unit_bytes};
}

/// Unit u's bytes as four little-endian words; bytes outside the text read as 0 (and are never matched).
__device__ void load_unit(const text_units& units, std::uint64_t text_size, std::uint64_t u, std::uint32_t (&words)[4])
{
  const std::uint64_t first = u * unit_bytes;
  if (first >= units.head && first + unit_bytes <= units.head + text_size) {
    const uint4 vector = __ldg(reinterpret_cast<const uint4*>(units.aligned_base + first));
    words[0] = vector.x;
    words[1] = vector.y;
    words[2] = vector.z;
    words[3] = vector.w;
    return;
  }
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    words[w] = 0;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const std::uint64_t offset = first + 4 * w + b;
      if (offset >= units.head && offset < units.head + text_size) {
        words[w] |= std::uint32_t{units.aligned_base[offset]} << (8 * b);
      }
    }
  }
}

/// Whether text[start + from, start + m) == pattern[from, m), compared by the whole warp 32 bytes at a time.
/// All lanes call it with the same arguments.
__device__ bool warp_verify_suffix(const match_problem& problem, std::uint64_t start, std::uint64_t from)
{
  for (std::uint64_t chunk = from; chunk < problem.pattern_size; chunk += warp::size) {
    const std::uint64_t i = chunk + warp::lane_id();
    const bool differs = i < problem.pattern_size && problem.text[start + i] != problem.pattern[i];
    if (warp::any(differs)) { return false; }
  }
  return true;
}

/// Receives one thread's matches in ascending order.
template <scan_mode Mode>
struct match_sink {
  std::uint64_t* positions = nullptr;
  std::uint64_t next = 0;
  std::uint32_t count = 0;
  __device__ void operator()(std::uint64_t start)
  {
    if constexpr (Mode == scan_mode::write) { positions[next++] = start; }
    ++count;
  }
};

template <scan_mode Mode>
__device__ match_sink<Mode> make_sink(const scan_output& out, std::uint64_t thread)
{
  match_sink<Mode> sink;
  if constexpr (Mode == scan_mode::write) {
    sink.positions = out.positions;
    sink.next = out.thread_offsets[thread];
  }
  return sink;
}

/// Hands a thread's count to the output. Every thread of the block must call it (count_total meets at a
/// barrier: one shared-memory sum per block, one global atomic per block).
template <scan_mode Mode>
__device__ void finish_scan(const match_sink<Mode>& sink, const scan_output& out, std::uint64_t thread,
                            std::uint64_t thread_count)
{
  if constexpr (Mode == scan_mode::count_total) {
    __shared__ unsigned long long block_total;
    if (threadIdx.x == 0) { block_total = 0; }
    __syncthreads();
    const unsigned warp_total = __reduce_add_sync(warp::full_mask, sink.count);
    if (warp::lane_id() == 0 && warp_total != 0) { atomicAdd(&block_total, warp_total); }
    __syncthreads();
    if (threadIdx.x == 0 && block_total != 0) { atomicAdd(out.total, block_total); }
  } else if constexpr (Mode == scan_mode::count_per_thread) {
    if (thread < thread_count) { out.thread_counts[thread] = sink.count; }
  }
}

template <scan_mode Mode>
__global__ void rabin_karp_kernel(match_problem problem, rabin_karp_constants constants, std::uint64_t subtext_bytes,
                                  std::uint64_t thread_count, scan_output out)
{
  const std::uint64_t thread = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  auto sink = make_sink<Mode>(out, thread < thread_count ? thread : 0);
  if (thread < thread_count) {
    scan_rabin_karp(problem, constants, thread * subtext_bytes, (thread + 1) * subtext_bytes, sink);
  }
  finish_scan(sink, out, thread, thread_count);
}

/// How the prefix kernel confirms a candidate whose first prefix.length bytes match.
enum class verification {
  none,        ///< the prefix is the whole pattern (m <= 8): the candidate is a match
  per_thread,  ///< the thread that found it compares the rest
  warp,        ///< the warp compares the rest together, candidate by candidate
};

/// The pattern's first k = min(m, 8) bytes as two little-endian words (bytes past k are 0, masked off),
/// and its first two bytes copied into every byte of a word each: the filter that finds candidates.
struct prefix_words {
  std::uint32_t low = 0;   ///< pattern bytes 0-3
  std::uint32_t high = 0;  ///< pattern bytes 4-7
  std::uint32_t low_mask = 0;
  std::uint32_t high_mask = 0;
  std::uint32_t first = 0;        ///< byte 0, four times
  std::uint32_t second = 0;       ///< byte 1, four times (0 where m = 1)
  std::uint32_t second_mask = 0;  ///< 0xffffffff, or 0 where m = 1 (the second byte is not tested)
};

prefix_words make_prefix_words(const std::uint8_t* pattern, std::uint64_t m)
{
  prefix_words words;
  const std::uint64_t k = std::min(m, prefix_bytes_max);
  for (std::uint64_t i = 0; i < k; ++i) {
    std::uint32_t& word = i < 4 ? words.low : words.high;
    std::uint32_t& mask = i < 4 ? words.low_mask : words.high_mask;
    word |= std::uint32_t{pattern[i]} << (8 * (i % 4));
    mask |= 0xffU << (8 * (i % 4));
  }
  words.first = std::uint32_t{pattern[0]} * 0x01010101U;
  words.second = k > 1 ? std::uint32_t{pattern[1]} * 0x01010101U : 0;
  words.second_mask = k > 1 ? 0xffffffffU : 0;
  return words;
}

/// Window starts per thread of the prefix kernel: 8 units of 16 bytes, plus one more unit loaded for the
/// prefixes that begin in the last one.
constexpr int prefix_units_per_thread = 8;

/// WOM / 2S: each thread owns the candidate starts in its 8 units and loads them and the next one at once
/// (nine 16-byte loads in flight). A start is a candidate where its byte equals the pattern's first byte
/// and the byte after it the second, found four starts at a time on 32-bit words by the exact zero-byte
/// test (about 10 integer instructions per 4 bytes; on English-like text about 1 start in 700 passes);
/// only there are the 8-byte prefix (two funnel shifts of the loaded words) and the text bounds compared.
template <scan_mode Mode, verification Verify>
__global__ void prefix_kernel(match_problem problem, prefix_words prefix, text_units units, std::uint64_t thread_count,
                              scan_output out)
{
  constexpr int unit_words = static_cast<int>(unit_bytes / 4);
  constexpr int loaded_units = prefix_units_per_thread + 1;
  const std::uint64_t thread = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  auto sink = make_sink<Mode>(out, thread < thread_count ? thread : 0);
  const std::uint64_t first_unit = thread * prefix_units_per_thread;
  const std::uint64_t thread_first = first_unit * unit_bytes;  // unit byte of the thread's first start
  // A start at unit byte thread_first + r is text position thread_first + r - head; it must satisfy
  // 0 <= start and start + m <= n, i.e. low <= r <= high (clamped to the thread's bytes).
  constexpr std::int64_t thread_bytes = prefix_units_per_thread * static_cast<std::int64_t>(unit_bytes);
  const std::int64_t low_unclamped = static_cast<std::int64_t>(units.head) - static_cast<std::int64_t>(thread_first);
  const std::int64_t high_unclamped = static_cast<std::int64_t>(units.head + problem.text_size - problem.pattern_size) -
                                      static_cast<std::int64_t>(thread_first);
  const int low = static_cast<int>(std::max<std::int64_t>(low_unclamped, 0));
  const int high = static_cast<int>(std::min<std::int64_t>(high_unclamped, thread_bytes - 1));
  std::uint32_t words[loaded_units * unit_words];
  if (thread < thread_count && low <= high) {
#pragma unroll
    for (int i = 0; i < loaded_units; ++i) {
      std::uint32_t unit[unit_words] = {0, 0, 0, 0};
      if (first_unit + i < units.count) { load_unit(units, problem.text_size, first_unit + i, unit); }
#pragma unroll
      for (int w = 0; w < unit_words; ++w) { words[i * unit_words + w] = unit[w]; }
    }
  } else {
#pragma unroll
    for (int w = 0; w < loaded_units * unit_words; ++w) { words[w] = 0; }
  }
  const bool active = thread < thread_count && low <= high;
  const std::uint32_t second_low_bits = prefix.second_mask & 0x7f7f7f7fU;
#pragma unroll
  for (int i = 0; i < prefix_units_per_thread; ++i) {
    unsigned candidates = 0;  // bit j: unit byte 16 i + j starts with the prefix and lies in [low, high]
#pragma unroll
    for (int w = 0; w < unit_words; ++w) {
      const int at = i * unit_words + w;
      const std::uint32_t word = words[at];
      const std::uint32_t next = __funnelshift_r(word, words[at + 1], 8);  // byte j: the byte after byte j
      const std::uint32_t x0 = word ^ prefix.first;
      const std::uint32_t x1 = (next ^ prefix.second) & prefix.second_mask;
      const std::uint32_t t0 = ((word ^ prefix.first) & 0x7f7f7f7fU) + 0x7f7f7f7fU;
      const std::uint32_t t1 = ((next ^ prefix.second) & second_low_bits) + 0x7f7f7f7fU;
      // 0x80 in byte j where byte j of x0 and of x1 is 0: exact per byte, as (x & 0x7f) + 0x7f never
      // carries into the next byte (the usual (x - 0x01010101) & ~x borrows past a 0 byte)
      for (std::uint32_t pairs = ~(t0 | x0 | t1 | x1) & 0x80808080U; pairs != 0; pairs &= pairs - 1) {
        const int byte = (__ffs(static_cast<int>(pairs)) - 1) >> 3;
        const std::uint32_t low_word = __funnelshift_r(word, words[at + 1], 8 * byte);
        const std::uint32_t high_word = __funnelshift_r(words[at + 1], words[at + 2], 8 * byte);
        const int r = 4 * at + byte;
        if (((low_word ^ prefix.low) & prefix.low_mask) == 0 && ((high_word ^ prefix.high) & prefix.high_mask) == 0 &&
            r >= low && r <= high) {
          candidates |= 1U << (4 * w + byte);
        }
      }
    }
    if (!active) { candidates = 0; }
    const std::uint64_t start_of_bit0 = thread_first + i * unit_bytes - units.head;  // when candidates != 0
    const std::uint64_t k = problem.pattern_size < 8 ? problem.pattern_size : 8;     // min(m, prefix_bytes_max)
    if constexpr (Verify == verification::warp) {
      for (unsigned pending = warp::ballot(candidates != 0); pending != 0; pending = warp::ballot(candidates != 0)) {
        const int leader = __ffs(static_cast<int>(pending)) - 1;
        const int own_bit = candidates != 0 ? __ffs(static_cast<int>(candidates)) - 1 : 0;
        const std::uint64_t start = warp::shfl(start_of_bit0 + own_bit, leader);
        const bool match = warp_verify_suffix(problem, start, k);
        if (warp::lane_id() == static_cast<unsigned>(leader)) {
          if (match) { sink(start); }
          candidates &= candidates - 1;
        }
      }
    } else {
      for (; candidates != 0; candidates &= candidates - 1) {
        const std::uint64_t start = start_of_bit0 + (__ffs(static_cast<int>(candidates)) - 1);
        if (Verify == verification::none || verify_suffix(problem, start, k)) { sink(start); }
      }
    }
  }
  finish_scan(sink, out, thread, thread_count);
}

/// The threads one algorithm uses over this problem.
std::uint64_t thread_count_for(const match_problem& problem, match_algorithm algorithm)
{
  if (algorithm == match_algorithm::drk) {
    const std::uint64_t subtext = std::max(drk_min_subtext_bytes, problem.pattern_size);
    return (problem.text_size + subtext - 1) / subtext;
  }
  const std::uint64_t units = make_text_units(problem).count;
  return (units + prefix_units_per_thread - 1) / prefix_units_per_thread;
}

template <scan_mode Mode>
void launch_scan(const cuda& backend, const match_problem& problem, const match_problem& host_problem,
                 match_algorithm algorithm, std::uint64_t thread_count, const scan_output& out)
{
  const auto blocks = static_cast<unsigned>((thread_count + threads_per_block - 1) / threads_per_block);
  const stream_t stream = backend.stream;
  if (algorithm == match_algorithm::drk) {
    const std::uint64_t subtext = std::max(drk_min_subtext_bytes, problem.pattern_size);
    rabin_karp_kernel<Mode><<<blocks, threads_per_block, 0, stream>>>(
        problem, make_rabin_karp_constants(host_problem.pattern, host_problem.pattern_size), subtext, thread_count,
        out);
    WARPDEX_CHECK_LAUNCH("rabin_karp_kernel");
    return;
  }
  const prefix_words prefix = make_prefix_words(host_problem.pattern, host_problem.pattern_size);
  const text_units units = make_text_units(problem);
  if (problem.pattern_size <= prefix_bytes_max) {
    prefix_kernel<Mode, verification::none>
        <<<blocks, threads_per_block, 0, stream>>>(problem, prefix, units, thread_count, out);
  } else if (algorithm == match_algorithm::wom) {
    prefix_kernel<Mode, verification::per_thread>
        <<<blocks, threads_per_block, 0, stream>>>(problem, prefix, units, thread_count, out);
  } else {
    prefix_kernel<Mode, verification::warp>
        <<<blocks, threads_per_block, 0, stream>>>(problem, prefix, units, thread_count, out);
  }
  WARPDEX_CHECK_LAUNCH("prefix_kernel");
}

/// The problem with the pattern copied to device memory (kept alive by `pattern`).
match_problem device_problem(const cuda& backend, const match_problem& host_problem, buffer<std::uint8_t>& pattern)
{
  pattern = make_buffer<std::uint8_t>(backend, host_problem.pattern_size);
  pattern.copy_from({host_problem.pattern, host_problem.pattern_size});
  match_problem problem = host_problem;
  problem.pattern = pattern.data();
  return problem;
}

/// Window ends per thread of the several-patterns count.
constexpr std::uint64_t multi_match_thread_bytes = 64;

/// Counts per pattern where the fingerprint table fits in shared memory (at most max_patterns_per_pass
/// patterns): the table and the block's counts in shared memory, one global atomic per pattern and block.
__global__ void multi_match_kernel(multi_match_problem problem, std::uint32_t pattern_count, std::uint64_t thread_count,
                                   unsigned long long* counts)
{
  __shared__ multi_match_slot table[multi_match_shared_table_slots];
  __shared__ std::uint32_t block_counts[max_patterns_per_pass];
  for (std::uint32_t i = threadIdx.x; i < multi_match_shared_table_slots; i += blockDim.x) {
    table[i] = problem.table[i];
  }
  for (std::uint32_t i = threadIdx.x; i < pattern_count; i += blockDim.x) { block_counts[i] = 0; }
  __syncthreads();
  problem.table = table;
  const std::uint64_t thread = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (thread < thread_count) {
    scan_multi_match(problem, thread * multi_match_thread_bytes, (thread + 1) * multi_match_thread_bytes,
                     [shared_counts = &block_counts[0]](std::uint32_t i) { atomicAdd(shared_counts + i, 1U); });
  }
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < pattern_count; i += blockDim.x) {
    if (block_counts[i] != 0) { atomicAdd(&counts[i], block_counts[i]); }
  }
}

/// Window starts a thread takes at a time in the several-patterns filter kernel: 4 units of 16 bytes.
constexpr int multi_units_per_tile = 4;

/// Patterns whose counts a block of the filter kernel keeps in shared memory (64 KiB); with more, each
/// occurrence adds to its pattern's count in global memory.
constexpr std::uint32_t multi_match_shared_counts_max = 16384;

/// Threads a block of the filter kernel: 512, three blocks a multiprocessor (75% occupancy) with the
/// 32 KiB filter and 10^4 patterns' counts (40 KB) in shared memory each (256 threads: 37.5%).
constexpr int multi_threads_per_block = 512;

/// Counts per pattern with the table in global memory (more than max_patterns_per_pass patterns). Warps
/// stride over the text (one wave of blocks, each loads the 32 KiB filter once); a lane loads 4 aligned
/// units of window starts and the unit after, gets each start's first L bytes from two funnel shifts of
/// the loaded words, hashes them with two multiplications and tests its two filter bits in one shared
/// word, without a branch (no byte loads; about 23 instructions a start measured, most of them shifts and
/// logic: the ALU pipe bounds it, docs/search.md). The starts that pass (about
/// 0.5% with 10^4 patterns) are compacted into a queue per warp, so that up to 32 of them probe the table
/// and verify at once, one a lane (scan_multi_match over their one window end): counts stay exact.
template <bool SharedCounts>
__global__ void __launch_bounds__(multi_threads_per_block, 3)
    multi_match_filter_kernel(multi_match_problem problem, text_units units, const std::uint32_t* filter,
                              std::uint32_t pattern_count, std::uint64_t tile_count, unsigned long long* counts)
{
  constexpr std::uint32_t filter_words = multi_match_filter_bits / 32;
  constexpr int unit_words = static_cast<int>(unit_bytes / 4);
  constexpr int loaded_units = multi_units_per_tile + 1;
  constexpr std::int64_t tile_bytes = multi_units_per_tile * static_cast<std::int64_t>(unit_bytes);
  static_assert(tile_bytes == 64, "a lane's starts are one 64-bit mask");
  extern __shared__ std::uint32_t shared_words[];            // the filter, then (SharedCounts) one count a pattern
  __shared__ std::uint32_t queues[multi_threads_per_block];  // per warp: (lane << 6) | start of the passing starts
  std::uint32_t* const block_counts = shared_words + filter_words;
  for (std::uint32_t i = threadIdx.x; i < filter_words; i += blockDim.x) { shared_words[i] = __ldg(filter + i); }
  if constexpr (SharedCounts) {
    for (std::uint32_t i = threadIdx.x; i < pattern_count; i += blockDim.x) { block_counts[i] = 0; }
  }
  __syncthreads();
  const std::uint64_t k = problem.prefix_length;
  const std::uint32_t low_mask = k >= 4 ? 0xffffffffU : (1U << (8 * k)) - 1;
  const std::uint32_t high_mask = k >= 8 ? 0xffffffffU : k <= 4 ? 0U : (1U << (8 * (k - 4))) - 1;
  const auto count_one = [&](std::uint32_t i) {
    if constexpr (SharedCounts) {
      atomicAdd(block_counts + i, 1U);
    } else {
      atomicAdd(counts + i, 1ULL);
    }
  };
  const unsigned lane = warp::lane_id();
  std::uint32_t* const queue = queues + (threadIdx.x - lane);
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;  // warp-uniform: the loop is too
  for (std::uint64_t warp_tile = blockIdx.x * std::uint64_t{blockDim.x} + (threadIdx.x - lane); warp_tile < tile_count;
       warp_tile += stride) {
    const std::uint64_t tile = warp_tile + lane;
    const std::uint64_t first_unit = tile * multi_units_per_tile;
    const std::uint64_t tile_first = first_unit * unit_bytes;
    // A start at unit byte tile_first + r is text position tile_first + r - head; its L bytes must lie in
    // the text: 0 <= start <= n - L, i.e. low <= r <= high.
    const std::int64_t low =
        std::max<std::int64_t>(static_cast<std::int64_t>(units.head) - static_cast<std::int64_t>(tile_first), 0);
    const std::int64_t high = std::min<std::int64_t>(
        static_cast<std::int64_t>(units.head + problem.text_size - k) - static_cast<std::int64_t>(tile_first),
        tile_bytes - 1);
    const bool active = tile < tile_count && low <= high;
    std::uint32_t words[loaded_units * unit_words];
#pragma unroll
    for (int i = 0; i < loaded_units; ++i) {
      std::uint32_t unit[unit_words] = {0, 0, 0, 0};
      if (active && first_unit + i < units.count) { load_unit(units, problem.text_size, first_unit + i, unit); }
#pragma unroll
      for (int w = 0; w < unit_words; ++w) { words[i * unit_words + w] = unit[w]; }
    }
    std::uint32_t passing[2] = {0, 0};  // bit j of the 64: start r = j passes the filter
#pragma unroll
    for (int at = 0; at < multi_units_per_tile * unit_words; ++at) {
#pragma unroll
      for (int byte = 0; byte < 4; ++byte) {
        const std::uint32_t low_word = __funnelshift_r(words[at], words[at + 1], 8 * byte) & low_mask;
        const std::uint32_t high_word = __funnelshift_r(words[at + 1], words[at + 2], 8 * byte) & high_mask;
        const std::uint32_t hash = multi_match_filter_hash(low_word, high_word);
        const std::uint32_t word = shared_words[multi_match_filter_word(hash)];
        // bit b of the word is bit 0 of the word rotated right by b (the funnel shift takes b mod 32)
        const std::uint32_t both = __funnelshift_r(word, word, hash >> 14) & __funnelshift_r(word, word, hash >> 9);
        passing[at / 8] |= (both & 1U) << (4 * (at % 8) + byte);
      }
    }
    std::uint64_t pending = (std::uint64_t{passing[1]} << 32) | passing[0];
    if (!active) {
      pending = 0;
    } else {  // keep the starts in [low, high]
      pending &= ~std::uint64_t{0} << low;
      if (high < 63) { pending &= (std::uint64_t{2} << high) - 1; }
    }
    // Rounds of up to 32 passing starts: each lane queues its lowest ones after the lanes before it's.
    unsigned count = static_cast<unsigned>(__popcll(pending));
    for (unsigned total = __reduce_add_sync(warp::full_mask, count); total != 0;) {
      unsigned before = count;  // inclusive prefix sum of the counts, then exclusive
#pragma unroll
      for (unsigned delta = 1; delta < warp::size; delta *= 2) {
        const unsigned other = warp::shfl_up(before, delta);
        if (lane >= delta) { before += other; }
      }
      before -= count;
      while (count != 0 && before < warp::size) {
        const int r = __ffsll(static_cast<long long>(pending)) - 1;
        queue[before++] = (lane << 6) | static_cast<unsigned>(r);
        pending &= pending - 1;
        --count;
      }
      __syncwarp();
      const unsigned queued = total < warp::size ? total : warp::size;
      if (lane < queued) {
        const std::uint32_t entry = queue[lane];
        const std::uint64_t start =
            (warp_tile + (entry >> 6)) * static_cast<std::uint64_t>(tile_bytes) + (entry & 63U) - units.head;
        scan_multi_match(problem, start + k - 1, start + k, count_one);
      }
      __syncwarp();
      total -= queued;
    }
  }
  if constexpr (SharedCounts) {
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < pattern_count; i += blockDim.x) {
      if (block_counts[i] != 0) { atomicAdd(counts + i, static_cast<unsigned long long>(block_counts[i])); }
    }
  }
}

/// Launches the filter kernel over the problem's text (at least L bytes long).
template <bool SharedCounts>
void launch_multi_match_filter(const cuda& backend, const multi_match_problem& problem, const std::uint32_t* filter,
                               std::uint32_t pattern_count, unsigned long long* counts)
{
  match_problem text_only;
  text_only.text = problem.text;
  text_only.text_size = problem.text_size;
  const text_units units = make_text_units(text_only);
  const std::uint64_t tile_count = (units.count + multi_units_per_tile - 1) / multi_units_per_tile;
  const std::size_t shared_bytes =
      sizeof(std::uint32_t) * (multi_match_filter_bits / 32 + (SharedCounts ? pattern_count : 0));
  const auto kernel = multi_match_filter_kernel<SharedCounts>;
  WARPDEX_CUDA_TRY(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  const unsigned blocks = one_wave_blocks(kernel, multi_threads_per_block, tile_count, shared_bytes);
  kernel<<<blocks, multi_threads_per_block, shared_bytes, backend.stream>>>(problem, units, filter, pattern_count,
                                                                            tile_count, counts);
  WARPDEX_CHECK_LAUNCH("multi_match_filter_kernel");
}

/// A host vector copied into a new device buffer on the backend's stream.
template <class T>
buffer<T> to_device(const cuda& backend, const std::vector<T>& values)
{
  auto device = make_buffer<T>(backend, values.size());
  device.copy_from(values);
  return device;
}

}  // namespace

template <>
struct multi_match_backend<cuda> {
  static std::vector<std::uint64_t> count(const cuda& backend, std::span<const std::uint8_t> text,
                                          const multi_match_patterns& patterns)
  {
    // The prepared arrays in one device allocation and one copy (each array aligned for its type).
    std::vector<std::uint8_t> staged;
    const auto stage = [&staged](const auto& values) {
      staged.resize((staged.size() + 15) / 16 * 16);
      const std::size_t at = staged.size();
      const auto* first = reinterpret_cast<const std::uint8_t*>(values.data());
      staged.insert(staged.end(), first, first + values.size() * sizeof(values[0]));
      return at;
    };
    const std::size_t table_at = stage(patterns.table);
    const std::size_t offsets_at = stage(patterns.offsets);
    const std::size_t original_at = stage(patterns.original);
    const std::size_t filter_at = stage(patterns.filter);
    const std::size_t bytes_at = stage(patterns.bytes);
    const auto arrays = to_device(backend, staged);
    const auto at = [&arrays](std::size_t offset) { return arrays.data() + offset; };
    const auto pattern_count = static_cast<std::uint32_t>(patterns.original.size());
    auto counts = make_buffer<unsigned long long>(backend, pattern_count);
    WARPDEX_CUDA_TRY(cudaMemsetAsync(counts.data(), 0, sizeof(unsigned long long) * pattern_count, backend.stream));
    const std::uint64_t thread_count = (text.size() + multi_match_thread_bytes - 1) / multi_match_thread_bytes;
    const multi_match_problem problem =
        patterns.problem(text, at(bytes_at), reinterpret_cast<const std::uint64_t*>(at(offsets_at)),
                         reinterpret_cast<const std::uint32_t*>(at(original_at)),
                         reinterpret_cast<const multi_match_slot*>(at(table_at)));
    const auto* filter = reinterpret_cast<const std::uint32_t*>(at(filter_at));
    if (thread_count > 0 && patterns.filter.empty()) {
      const auto blocks = static_cast<unsigned>((thread_count + threads_per_block - 1) / threads_per_block);
      multi_match_kernel<<<blocks, threads_per_block, 0, backend.stream>>>(problem, pattern_count, thread_count,
                                                                           counts.data());
      WARPDEX_CHECK_LAUNCH("multi_match_kernel");
    } else if (!patterns.filter.empty() && problem.text_size >= problem.prefix_length) {
      if (pattern_count <= multi_match_shared_counts_max) {
        launch_multi_match_filter<true>(backend, problem, filter, pattern_count, counts.data());
      } else {
        launch_multi_match_filter<false>(backend, problem, filter, pattern_count, counts.data());
      }
    }
    const std::vector<unsigned long long> found = counts.to_vector();
    return {found.begin(), found.end()};
  }
};

template <>
struct match_backend<cuda> {
  static std::uint64_t count(const cuda& backend, const match_problem& host_problem, match_algorithm algorithm)
  {
    buffer<std::uint8_t> pattern;
    const match_problem problem = device_problem(backend, host_problem, pattern);
    auto total = make_buffer<unsigned long long>(backend, 1);
    WARPDEX_CUDA_TRY(cudaMemsetAsync(total.data(), 0, sizeof(unsigned long long), backend.stream));
    scan_output out;
    out.total = total.data();
    launch_scan<scan_mode::count_total>(backend, problem, host_problem, algorithm, thread_count_for(problem, algorithm),
                                        out);
    return total.to_vector()[0];
  }

  static buffer<std::uint64_t> find(const cuda& backend, const match_problem& host_problem, match_algorithm algorithm)
  {
    buffer<std::uint8_t> pattern;
    const match_problem problem = device_problem(backend, host_problem, pattern);
    const std::uint64_t thread_count = thread_count_for(problem, algorithm);
    auto counts = make_buffer<std::uint32_t>(backend, thread_count);
    auto offsets = make_buffer<std::uint64_t>(backend, thread_count + 1);
    scan_output out;
    out.thread_counts = counts.data();
    launch_scan<scan_mode::count_per_thread>(backend, problem, host_problem, algorithm, thread_count, out);
    // offsets[i] = matches of threads before i; offsets[thread_count] = all matches
    WARPDEX_CUDA_TRY(cudaMemsetAsync(offsets.data(), 0, sizeof(std::uint64_t), backend.stream));
    std::size_t temp_bytes = 0;
    WARPDEX_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, counts.data(), offsets.data() + 1, thread_count,
                                                   backend.stream));
    auto temp = make_buffer<std::uint8_t>(backend, temp_bytes);
    WARPDEX_CUDA_TRY(cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, counts.data(), offsets.data() + 1,
                                                   thread_count, backend.stream));
    std::uint64_t total = 0;
    WARPDEX_CUDA_TRY(
        cudaMemcpyAsync(&total, offsets.data() + thread_count, sizeof(total), cudaMemcpyDeviceToHost, backend.stream));
    WARPDEX_CUDA_TRY(cudaStreamSynchronize(backend.stream));
    auto positions = make_buffer<std::uint64_t>(backend, total);
    if (total > 0) {
      out.thread_offsets = offsets.data();
      out.positions = positions.data();
      launch_scan<scan_mode::write>(backend, problem, host_problem, algorithm, thread_count, out);
    }
    return positions;
  }
};

}  // namespace warpdex::detail

namespace warpdex {
WARPDEX_INSTANTIATE_STRING_MATCH(cuda)
}  // namespace warpdex
