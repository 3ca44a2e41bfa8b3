#pragma once
// The cuda backend of the slab tables, part 1: launch sizes, the batch check, the per-element batch kernels
// (one tile per operation, optionally in bucket order) and the whole-table kernels (list walks, summaries,
// export, flush). Included by slab_table_cuda_impl.cuh, which defines the tables' operations with them.
#include <warpdex/core/detail/thrust_backend.hpp>

#include <warpdex/hash/detail/slab_combine.hpp>
#include <warpdex/hash/detail/slab_table.hpp>
#include <warpdex/hash/slab_ref.cuh>

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/launch.cuh>
#include <warpdex/core/warp.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/transform_scan.h>

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace warpdex::hash::detail {
namespace cuda_backend {

/// Threads per block of every kernel here (a multiple of the warp).
constexpr unsigned block_threads = 256;
constexpr unsigned warps_per_block = block_threads / warp::size;
/// Resident blocks per SM the batch kernels ask the compiler for: 8 blocks of 256 threads fill an SM
/// (2048 threads), which caps them at 32 registers. Their loops wait on one dependent slab read after
/// another, so the throughput follows the number of operations in flight, i.e. the occupancy.
constexpr unsigned batch_blocks_per_sm = 8;

inline unsigned blocks_for(std::uint64_t threads)
{
  return static_cast<unsigned>((threads + block_threads - 1) / block_threads);
}

/// The current device's SM count, queried once per device: a batch's launch path makes no attribute
/// query (a small batch's call is a few host calls in all).
inline int cached_sm_count()
{
  constexpr int cached_devices = 64;
  static std::array<std::atomic<int>, cached_devices> counts{};
  int device = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  if (device < 0 || device >= cached_devices) {
    int sm_count = 0;
    WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    return sm_count;
  }
  int sm_count = counts[device].load(std::memory_order_relaxed);
  if (sm_count == 0) {
    WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    counts[device].store(sm_count, std::memory_order_relaxed);
  }
  return sm_count;
}

/// Threads in one wave of the batch kernels on the current device: batch_blocks_per_sm blocks an SM;
/// `known` when it is not 0 (a table's, basic_batch_arguments::wave_threads: no device query at all).
inline std::uint64_t batch_wave_threads(std::uint64_t known = 0)
{
  if (known != 0) { return known; }
  return static_cast<std::uint64_t>(cached_sm_count()) * batch_blocks_per_sm * block_threads;
}

/// Lanes per element of a batch of `count` (basic_batch_arguments::element_lanes_log2): the most, up to
/// a warp, with which the batch still fits in one wave of the batch kernels. A warp runs its elements'
/// list walks one after another in each tile, and its slab appends one after another on the whole
/// warp, so a small batch packed 32 to a warp waits on those chains while most SMs idle: 1024
/// insertions took 16 us in 4 blocks.
inline std::uint32_t spread_lanes_log2(std::uint64_t count, std::uint64_t known_wave_threads = 0)
{
  const std::uint64_t wave_threads = batch_wave_threads(known_wave_threads);
  std::uint32_t lanes_log2 = 0;
  while (lanes_log2 < 5 && (count << (lanes_log2 + 1)) <= wave_threads) { ++lanes_log2; }
  return lanes_log2;
}

/// Distinguishes launches, so warps of successive batches start in different pool blocks.
inline std::uint64_t next_launch_salt()
{
  static std::atomic<std::uint64_t> launches{0};
  return launches.fetch_add(1, std::memory_order_relaxed);
}

/// Forgets that a sweep found the pool full (slab_pool_view::swept_full): its slabs were returned.
template <class Slots, class Backend>
void reset_swept_full(const Backend& backend, const slab_table_view<Slots>& table)
{
  if (table.pool.swept_full == nullptr) { return; }
  WARPDEX_CUDA_TRY(cudaMemsetAsync(table.pool.swept_full, 0, sizeof(std::uint32_t), backend.stream));
}

static __global__ void initialize_bitmap_kernel(std::uint32_t* bitmap, std::uint64_t words, std::uint64_t slabs)
{
  const std::uint64_t word = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (word < words) { bitmap[word] = initial_bitmap_word(word, slabs); }
}

/// Batches of at most this many elements are checked by one block (enqueue_checked_batch), and uniform
/// ones by every block of their batch kernel (self_checked_rejects): 8 keys per thread of one block
/// still take about one launch's time.
constexpr std::uint64_t check_single_block_elements = 8 * block_threads;

/// Elements each thread of check_batch_kernel reads at a time.
constexpr unsigned check_unroll = 4;

/// Writes the final violations (and, with `exhausted`, the exhausted count) of a batch's report into
/// `home` too, when the batch has one (basic_batch_arguments::report_home: the table's pinned host
/// memory, which a synchronous call then reads after its wait, with no copy). One thread calls it.
inline __device__ void write_report_home(batch_report* home, const batch_violations& violations,
                                         const unsigned long long* exhausted)
{
  if (home == nullptr) { return; }
  home->violations = violations;
  if (exhausted != nullptr) { home->exhausted = *exhausted; }
  __threadfence_system();
}

/// Whether the calling block is the last of its grid to get here: it counts itself in `blocks_done`
/// (after a fence, so its writes before are seen by the last block), and atomicInc wraps the count back
/// to 0 for the last one, ready for the next kernel. Call from one thread of each block.
inline __device__ bool last_block_done(std::uint32_t* blocks_done)
{
  __threadfence();
  const bool last = atomicInc(blocks_done, gridDim.x - 1) == gridDim.x - 1;
  if (last) { __threadfence(); }
  return last;
}

/// The input check of a batch into `report`, over a grid stride: each block finds its first violations
/// in shared memory; one block writes them as they are, several take atomic minima into the report's
/// violations_so_far and the last block to finish moves them to its violations (so the report needs no
/// fill before). Block 0 zeroes the exhausted count.
template <class Key>
__global__ void check_batch_kernel(const Key* keys, const operation* operations, std::uint64_t count,
                                   std::uint32_t unsupported, batch_report* report, batch_report* home)
{
  constexpr unsigned rules = 3;  // the members of batch_violations, in order
  constexpr auto none = std::numeric_limits<unsigned long long>::max();
  __shared__ unsigned long long first[rules];
  if (threadIdx.x < rules) { first[threadIdx.x] = none; }
  __syncthreads();
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  // A grid of one wave, each thread reading check_unroll elements at a time, so enough loads are in
  // flight: one element per thread ran a 2^26-element batch's check at a quarter of copy speed.
  std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i < count; i += check_unroll * stride) {
    Key seen_keys[check_unroll];
    operation seen_operations[check_unroll];
#pragma unroll
    for (unsigned u = 0; u < check_unroll; ++u) {
      const std::uint64_t at = i + u * stride;
      seen_keys[u] = at < count ? keys[at] : Key{0};
      seen_operations[u] = at < count && operations != nullptr ? operations[at] : operation::find;
    }
#pragma unroll
    for (unsigned u = 0; u < check_unroll; ++u) {
      const auto index = static_cast<unsigned long long>(i + u * stride);
      if (index >= count) { break; }
      if (is_reserved_key(seen_keys[u])) { atomicMin(&first[0], index); }
      if (static_cast<std::uint32_t>(seen_operations[u]) >= operation_count) { atomicMin(&first[1], index); }
      if (is_unsupported(seen_operations[u], unsupported)) { atomicMin(&first[2], index); }
    }
  }
  __syncthreads();
  static_assert(sizeof(batch_violations) == rules * sizeof(unsigned long long));
  auto* violations = reinterpret_cast<unsigned long long*>(&report->violations);
  if (blockIdx.x == 0 && threadIdx.x == 0) { report->exhausted = 0; }
  constexpr unsigned long long zero = 0;
  if (gridDim.x == 1) {
    if (threadIdx.x < rules) { violations[threadIdx.x] = first[threadIdx.x]; }
    if (threadIdx.x == 0) { write_report_home(home, batch_violations{first[0], first[1], first[2]}, &zero); }
    return;
  }
  auto* so_far = reinterpret_cast<unsigned long long*>(&report->violations_so_far);
  if (threadIdx.x < rules && first[threadIdx.x] != none) { atomicMin(&so_far[threadIdx.x], first[threadIdx.x]); }
  __syncthreads();  // the block's minima before its count
  if (threadIdx.x == 0 && last_block_done(&report->blocks_done)) {
    for (unsigned rule = 0; rule < rules; ++rule) { violations[rule] = atomicExch(&so_far[rule], none); }
    write_report_home(home, batch_violations{violations[0], violations[1], violations[2]}, &zero);
  }
}

/// Blocks of check_batch_kernel for `count` elements: one up to check_single_block_elements, else one
/// per block_threads elements up to a wave (batch_blocks_per_sm blocks an SM: the kernel needs few
/// registers), without an occupancy query per batch (`known_wave_threads`: batch_wave_threads's).
inline unsigned check_blocks(std::uint64_t count, std::uint64_t known_wave_threads = 0)
{
  if (count <= check_single_block_elements) { return 1; }
  return static_cast<unsigned>(
      std::min<std::uint64_t>(blocks_for(count), batch_wave_threads(known_wave_threads) / block_threads));
}

/// Enqueues the input check of a batch into `report` (see check_batch_kernel): one launch.
template <class Key, class Backend>
void enqueue_check(const Backend& backend, const Key* keys, const operation* operations, std::uint64_t count,
                   std::uint32_t unsupported, batch_report* report, std::uint64_t known_wave_threads = 0,
                   batch_report* home = nullptr)
{
  check_batch_kernel<<<check_blocks(count, known_wave_threads), block_threads, 0, backend.stream>>>(
      keys, operations, count, unsupported, report, home);
  WARPDEX_CHECK_LAUNCH("check_batch_kernel");
}

/// The position in its batch this thread runs, if it runs one: the first of each
/// 2^batch.element_lanes_log2 threads takes position thread >> element_lanes_log2.
template <class Key, class Value>
__device__ bool position_in(const basic_batch_arguments<Key, Value>& batch, std::uint64_t& position)
{
  const std::uint64_t thread = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  position = thread >> batch.element_lanes_log2;
  const std::uint64_t other_lanes = (std::uint64_t{1} << batch.element_lanes_log2) - 1;
  return (thread & other_lanes) == 0 && position < batch.count;
}

/// The element thread `position` runs: its own index, or the one at its position in bucket order.
inline __device__ std::uint64_t element_at(const std::uint32_t* order, std::uint64_t position)
{
  return order != nullptr ? order[position] : position;
}

/// A batch's outputs: where each element's status and found value go.
template <class Value>
struct element_outputs {
  Value* values_out;
  operation_status* statuses;
  std::uint8_t* found;
  bool write_misses;
  Value miss_value;
  /// Whether an element with `status` writes a found value (sets and finds without outputs do not:
  /// their found values are not there to read).
  __device__ bool takes_found_value(operation_status status) const
  {
    return values_out != nullptr && status == operation_status::found;
  }
  __device__ void write(std::uint64_t element, operation_status status, Value found_value) const
  {
    if (values_out != nullptr) {
      if (status == operation_status::found) {
        values_out[element] = found_value;
      } else if (write_misses) {
        values_out[element] = miss_value;
      }
    }
    if (statuses != nullptr) { statuses[element] = status; }
    if (found != nullptr) { found[element] = status == operation_status::found ? 1 : 0; }
  }
};

/// Writes element i's outputs.
template <class Key, class Value>
__device__ void write_result(const basic_batch_arguments<Key, Value>& batch, std::uint64_t i, operation_status status,
                             Value found_value)
{
  element_outputs<Value>{batch.values_out, batch.statuses, batch.found, batch.write_misses, batch.miss_value}.write(
      i, status, found_value);
}

/// Writes `rejected` (and found 0, and the miss value of a find that writes misses) for element i of a
/// rejected batch, when `active` and the batch marks its elements.
template <class Key, class Value>
__device__ void mark_rejected(const basic_batch_arguments<Key, Value>& batch, bool active, std::uint64_t i)
{
  if (!active || !batch.mark_rejected) { return; }
  if (batch.statuses != nullptr) { batch.statuses[i] = operation_status::rejected; }
  if (batch.found != nullptr) { batch.found[i] = 0; }
  if (batch.write_misses && batch.values_out != nullptr) { batch.values_out[i] = batch.miss_value; }
}

/// Whether a gated batch was rejected by its input check (every thread reads the same report, so the
/// whole grid agrees and returns together); element i, when `active`, then gets `rejected` with
/// mark_rejected.
template <class Key, class Value>
__device__ bool stopped_by_gate(const basic_batch_arguments<Key, Value>& batch, bool active, std::uint64_t i)
{
  if (batch.gate == nullptr || !batch.gate->violations.any(batch.count)) { return false; }
  mark_rejected(batch, active, i);
  return true;
}

/// Whether element i of a check_each batch (batch_check::each_element) has a reserved key, which then
/// gets `rejected` alone (mark_rejected) and does not run. Always false for other batches.
template <class Key, class Value>
__device__ bool rejected_alone(const basic_batch_arguments<Key, Value>& batch, bool active, std::uint64_t i, Key key)
{
  if (!batch.check_each || !active || !is_reserved_key(key)) { return false; }
  mark_rejected(batch, true, i);
  return true;
}

/// Reserved keys a block of a many-batch call notes by position (many_batch_rejects); with more in its
/// range, each of its elements reads its own batch again (keys that break the rules are the caller's rare
/// error, so that path need not be fast).
constexpr unsigned many_noted_reserved = 32;

/// The batch of a many-batch call holding position p, searched in [low, high]: the first b there with
/// offsets[b + 1] > p (high when none is).
inline __device__ std::uint64_t batch_holding(const std::uint64_t* offsets, std::uint64_t low, std::uint64_t high,
                                              std::uint64_t p)
{
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (offsets[middle + 1] <= p) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/// Whether element i of a many-batch call (basic_batch_arguments::batch_offsets, input order) is rejected
/// with its batch, which it then gets (mark_rejected, when `active`). Block-collective, and false for
/// every other batch. The block finds the batches of its first and last positions (b0, b1) and reads the
/// keys of every batch from b0 to b1 that is checked as a whole (at most many_whole_check_elements
/// elements: the batches strictly between hold only the block's own elements), noting the positions of
/// reserved keys; an element is rejected when one lies in its batch, or, in a longer batch, when its own
/// key is reserved. Offsets that do not rise from 0 to the count are the caller's error: an element
/// that they do not place in a batch the block read is rejected, and nothing outside the spans is read.
template <class Key, class Value>
__device__ bool many_batch_rejects(const basic_batch_arguments<Key, Value>& batch, bool active, std::uint64_t i)
{
  if (batch.batch_offsets == nullptr) { return false; }
  const std::uint64_t* offsets = batch.batch_offsets;
  const std::uint64_t batches = batch.batch_count;
  const std::uint64_t count = batch.count;
  auto clamped = [count](std::uint64_t at) { return at < count ? at : count; };
  auto checked_whole = [&](std::uint64_t b) { return offsets[b + 1] - offsets[b] <= many_whole_check_elements; };
  __shared__ std::uint64_t first_batch, last_batch, read_begin, read_end;
  __shared__ unsigned reserved_seen;
  __shared__ std::uint64_t reserved_at[many_noted_reserved];
  if (threadIdx.x == 0) {
    const std::uint64_t first_thread = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x;
    const std::uint64_t first = first_thread >> batch.element_lanes_log2;
    const std::uint64_t last = clamped((first_thread + blockDim.x - 1) >> batch.element_lanes_log2);
    first_batch = batch_holding(offsets, 0, batches, first);
    last_batch = batch_holding(offsets, first_batch, batches, last < count ? last : count - 1);
    // The whole batches from first_batch to last_batch, less a first or last one too long to check whole.
    std::uint64_t begin = count, end = count;
    if (first_batch < batches) {
      begin = clamped(checked_whole(first_batch) ? offsets[first_batch] : offsets[first_batch + 1]);
      end = last_batch < batches ? clamped(checked_whole(last_batch) ? offsets[last_batch + 1] : offsets[last_batch])
                                 : count;
    }
    // Rising offsets keep the read under twice the whole check's length and the block's own positions.
    const std::uint64_t most_read = 2 * many_whole_check_elements + blockDim.x;
    if (end < begin || end - begin > most_read) { end = begin; }
    read_begin = begin;
    read_end = end;
    reserved_seen = 0;
  }
  __syncthreads();
  for (std::uint64_t base = read_begin; base < read_end; base += std::uint64_t{check_unroll} * blockDim.x) {
    Key seen[check_unroll];
#pragma unroll
    for (unsigned u = 0; u < check_unroll; ++u) {  // every load before any test: one round trip to L2
      const std::uint64_t at = base + threadIdx.x + std::uint64_t{u} * blockDim.x;
      seen[u] = at < read_end ? batch.keys[at] : Key{0};
    }
#pragma unroll
    for (unsigned u = 0; u < check_unroll; ++u) {
      const std::uint64_t at = base + threadIdx.x + std::uint64_t{u} * blockDim.x;
      if (at < read_end && is_reserved_key(seen[u])) {
        const unsigned slot = atomicAdd(&reserved_seen, 1U);
        if (slot < many_noted_reserved) { reserved_at[slot] = at; }
      }
    }
  }
  __syncthreads();
  if (!active) { return false; }
  const std::uint64_t b = batch_holding(offsets, first_batch, last_batch, i);
  const bool placed = b < batches && offsets[b] <= i && i < offsets[b + 1];
  bool rejects = !placed;
  if (placed && !checked_whole(b)) {
    rejects = is_reserved_key(batch.keys[i]);
  } else if (placed) {
    const std::uint64_t begin = offsets[b], end = offsets[b + 1];
    if (begin < read_begin || end > read_end) {
      rejects = true;  // offsets that do not rise: the block did not read this batch
    } else if (reserved_seen <= many_noted_reserved) {
      for (unsigned k = 0; k < reserved_seen; ++k) {
        rejects = rejects || (reserved_at[k] >= begin && reserved_at[k] < end);
      }
    } else {
      for (std::uint64_t at = begin; at < end && !rejects; ++at) { rejects = is_reserved_key(batch.keys[at]); }
    }
  }
  if (rejects) { mark_rejected(batch, true, i); }
  return rejects;
}

/// Whether a small batch (at most check_single_block_elements elements, uniform operation) holds a
/// reserved key, as every block of its kernel finds by reading the whole batch (from L2 after the
/// first); block 0 writes the report check_batch_kernel would have (and its copy in `home`, when
/// there is one), but for the exhausted count of a batch that runs and `counts_exhausted`
/// (sum_exhausted_in_report writes it). Saves a launch before small batches. Each thread issues all its
/// loads before testing any (they are independent, so they wait on one round trip to L2, not one each),
/// and a block looks for the first reserved key only when one of its threads saw one.
template <class Key>
__device__ bool self_checked_rejects(const Key* keys, std::uint64_t count, batch_report* report, bool counts_exhausted,
                                     batch_report* home)
{
  constexpr auto none = std::numeric_limits<unsigned long long>::max();
  constexpr unsigned per_thread = check_single_block_elements / block_threads;
  bool seen_reserved = false;
  for (std::uint64_t base = 0; base < count; base += std::uint64_t{per_thread} * blockDim.x) {
    Key seen[per_thread];
#pragma unroll
    for (unsigned u = 0; u < per_thread; ++u) {
      const std::uint64_t i = base + threadIdx.x + std::uint64_t{u} * blockDim.x;
      seen[u] = i < count ? keys[i] : Key{0};
    }
#pragma unroll
    for (unsigned u = 0; u < per_thread; ++u) {
      const std::uint64_t i = base + threadIdx.x + std::uint64_t{u} * blockDim.x;
      seen_reserved = seen_reserved || (i < count && is_reserved_key(seen[u]));
    }
  }
  unsigned long long first = none;
  if (__syncthreads_or(seen_reserved) != 0) {  // rare: the first reserved key's index, for the report
    __shared__ unsigned long long first_reserved;
    if (threadIdx.x == 0) { first_reserved = none; }
    __syncthreads();
    for (std::uint64_t i = threadIdx.x; i < count; i += blockDim.x) {
      if (is_reserved_key(keys[i])) { atomicMin(&first_reserved, static_cast<unsigned long long>(i)); }
    }
    __syncthreads();
    first = first_reserved;
  }
  const bool rejects = first != none;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    report->violations = batch_violations{first};
    constexpr unsigned long long zero = 0;
    const bool final_count = rejects || !counts_exhausted;
    if (final_count) { report->exhausted = 0; }
    write_report_home(home, batch_violations{first}, final_count ? &zero : nullptr);
  }
  return rejects;
}

/// The check of a find_check batch, at the end of its kernel (block-collective): each block takes the first
/// reserved key among its own elements into the report's running minimum, and the last block to finish
/// (last_block_done) moves it to the report and, when there is one, marks every element rejected over
/// what the other blocks wrote (a find changes no slab, so running it first is harmless; every output it
/// wrote is one mark_rejected rewrites).
template <class Key, class Value>
__device__ void finish_find_check(const basic_batch_arguments<Key, Value>& batch, bool active, std::uint64_t i)
{
  constexpr auto none = std::numeric_limits<unsigned long long>::max();
  __shared__ unsigned long long block_first;
  __shared__ unsigned long long batch_first;
  __shared__ bool last;
  if (threadIdx.x == 0) { block_first = none; }
  __syncthreads();
  if (active && is_reserved_key(batch.keys[i])) { atomicMin(&block_first, static_cast<unsigned long long>(i)); }
  __syncthreads();
  batch_report* report = batch.find_check;
  auto* so_far = reinterpret_cast<unsigned long long*>(&report->violations_so_far);
  if (threadIdx.x == 0) {
    if (block_first != none) { atomicMin(&so_far[0], block_first); }
    last = last_block_done(&report->blocks_done);
    if (last) {
      batch_first = atomicExch(&so_far[0], none);
      report->violations = batch_violations{batch_first};
      report->exhausted = 0;
      constexpr unsigned long long zero = 0;
      write_report_home(batch.report_home, batch_violations{batch_first}, &zero);
    }
  }
  __syncthreads();
  if (!last || batch_first == none) { return; }
  for (std::uint64_t j = threadIdx.x; j < batch.count; j += blockDim.x) { mark_rejected(batch, true, j); }
}

/// Sums a self-checked batch's exhausted elements (`warp_exhausted` from each warp's first lane; the
/// others pass 0 or the same) into report->exhausted without a zeroing before the kernel, which would
/// be one more enqueue: each block adds its count to exhausted_so_far once, and the last block to
/// finish (last_block_done) moves the sum, leaving it zero. Block-collective.
inline __device__ void sum_exhausted_in_report(unsigned warp_exhausted, batch_report* report, batch_report* home)
{
  __shared__ unsigned block_exhausted;
  if (threadIdx.x == 0) { block_exhausted = 0; }
  __syncthreads();
  if (warp_exhausted != 0 && warp::lane_id() == 0) { atomicAdd(&block_exhausted, warp_exhausted); }
  __syncthreads();
  if (threadIdx.x != 0) { return; }
  static_assert(sizeof(report->exhausted_so_far) == sizeof(unsigned long long));
  auto* so_far = reinterpret_cast<unsigned long long*>(&report->exhausted_so_far);
  if (block_exhausted != 0) { atomicAdd(so_far, static_cast<unsigned long long>(block_exhausted)); }
  if (last_block_done(&report->blocks_done)) {
    report->exhausted = atomicExch(so_far, 0ULL);
    if (home != nullptr) {
      static_assert(sizeof(home->exhausted) == sizeof(unsigned long long));
      home->exhausted = report->exhausted;
      __threadfence_system();
    }
  }
}

/// Whether this lane runs and is the lowest running lane of its warp holding `key` (every lane calls it).
template <class Key>
__device__ bool leads_its_key(bool runs, Key key)
{
  const unsigned same_key = warp::match_any(key) & warp::ballot(runs);
  return runs && (same_key & warp::lanemask_lt()) == 0;
}

/// A batch that may insert: tiles of `TileLanes` lanes run the operations, each warp appending slabs
/// with its own allocator. `Ops`: uniform for insert and insert_or_assign batches, mixed otherwise.
/// `ManyBatches`: the kernel of a many-batch call (many_batch_rejects), a separate instantiation, so the
/// other batches' kernels keep their registers and stack (inlined into them, the check grew their stack
/// frames by 8-16 bytes at the 32 registers they are held to).
template <class Slots, unsigned TileLanes, lane_ops Ops, bool ManyBatches = false>
__global__ void __launch_bounds__(block_threads, batch_blocks_per_sm)
    execute_batch_kernel(slab_table_view<Slots> table, batch_arguments<Slots> batch, const std::uint32_t* order,
                         std::uint64_t salt, unsigned long long* exhausted)
{
  const slab_table_ref<Slots> ref(table);
  std::uint64_t position = 0;
  const bool in_batch = position_in(batch, position);
  const std::uint64_t i = in_batch ? element_at(order, position) : 0;
  const bool active = in_batch && (batch.retry == nullptr || batch.retry[i] == operation_status::out_of_memory);
  if (batch.self_check != nullptr &&
      self_checked_rejects(batch.keys, batch.count, batch.self_check, true, batch.report_home)) {
    mark_rejected(batch, active, i);
    return;
  }
  if (stopped_by_gate(batch, active, i)) { return; }
  bool rejected_with_batch = false;
  if constexpr (ManyBatches) { rejected_with_batch = many_batch_rejects(batch, active, i); }
  const operation op = active && batch.operations != nullptr ? batch.operations[i] : batch.uniform;
  using key_type = typename Slots::key_type;
  using value_type = typename Slots::value_type;
  const key_type key = active ? batch.keys[i] : key_type{0};
  bool runs = active && !rejected_with_batch && !rejected_alone(batch, active, i, key);
  if (batch.drop_warp_duplicates) { runs = leads_its_key(runs, key); }
  const value_type value = runs && batch.values_in != nullptr ? batch.values_in[i] : value_type{0};
  value_type found_value = 0;
  const operation_status status = ref.template apply_with<TileLanes, Ops>(
      [&] { return ref.make_allocator(salt); }, runs, op, runs ? key : key_type{0}, value, found_value);
  const unsigned exhausted_lanes = warp::ballot(runs && status == operation_status::out_of_memory);
  if (batch.self_check != nullptr) {
    sum_exhausted_in_report(warp::popc(exhausted_lanes), batch.self_check, batch.report_home);
  } else if (exhausted != nullptr && exhausted_lanes != 0 && warp::lane_id() == 0) {
    atomicAdd(exhausted, warp::popc(exhausted_lanes));
  }
  if (runs) { write_result(batch, i, status, found_value); }
}

/// A batch of finds only: nothing writes the table meanwhile, so slabs are read through the
/// non-coherent cache. `ManyBatches` as execute_batch_kernel's.
template <class Slots, unsigned TileLanes, bool ManyBatches = false>
__global__ void __launch_bounds__(block_threads, batch_blocks_per_sm)
    find_batch_kernel(slab_table_view<Slots> table, batch_arguments<Slots> batch, const std::uint32_t* order)
{
  const slab_table_ref<Slots> ref(table);
  std::uint64_t position = 0;
  const bool active = position_in(batch, position);
  const std::uint64_t i = active ? element_at(order, position) : 0;
  if (batch.self_check != nullptr &&
      self_checked_rejects(batch.keys, batch.count, batch.self_check, false, batch.report_home)) {
    mark_rejected(batch, active, i);
    return;
  }
  if (stopped_by_gate(batch, active, i)) { return; }
  bool rejected_with_batch = false;
  if constexpr (ManyBatches) { rejected_with_batch = many_batch_rejects(batch, active, i); }
  const typename Slots::key_type key = active ? batch.keys[i] : typename Slots::key_type{0};
  const bool runs = active && !rejected_with_batch && !rejected_alone(batch, active, i, key);
  typename Slots::value_type found_value = 0;
  const operation_status status =
      ref.template find<slab_reads::read_only, TileLanes>(runs, runs ? key : typename Slots::key_type{0}, found_value);
  if (runs) { write_result(batch, i, status, found_value); }
  if (batch.find_check != nullptr) { finish_find_check(batch, active, i); }
}

/// A batch of erasures only.
template <class Slots, unsigned TileLanes>
__global__ void __launch_bounds__(block_threads, batch_blocks_per_sm)
    erase_batch_kernel(slab_table_view<Slots> table, batch_arguments<Slots> batch, const std::uint32_t* order)
{
  const slab_table_ref<Slots> ref(table);
  std::uint64_t position = 0;
  const bool active = position_in(batch, position);
  const std::uint64_t i = active ? element_at(order, position) : 0;
  if (batch.self_check != nullptr &&
      self_checked_rejects(batch.keys, batch.count, batch.self_check, false, batch.report_home)) {
    mark_rejected(batch, active, i);
    return;
  }
  if (stopped_by_gate(batch, active, i)) { return; }
  const typename Slots::key_type key = active ? batch.keys[i] : typename Slots::key_type{0};
  const bool runs = active && !rejected_alone(batch, active, i, key);
  const operation_status status = ref.template erase<TileLanes>(runs, runs ? key : typename Slots::key_type{0});
  if (runs) { write_result(batch, i, status, typename Slots::value_type{0}); }
}

/// bucket_of(keys[i]) and i, the pairs the bucket order sorts.
template <class Slots>
__global__ void bucket_pairs_kernel(slab_table_view<Slots> table, const typename Slots::key_type* keys,
                                    std::uint64_t count, std::uint32_t* buckets, std::uint32_t* indices)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) { return; }
  buckets[i] = table.bucket_of(keys[i]);
  indices[i] = static_cast<std::uint32_t>(i);
}

/// The byte offsets of a scratch buffer's parts: 256 bytes, the alignment cudaMallocAsync gives.
constexpr std::size_t scratch_alignment = 256;
inline std::size_t aligned_bytes(std::size_t bytes)
{
  return (bytes + scratch_alignment - 1) / scratch_alignment * scratch_alignment;
}

/// The batch's indices stably sorted by bucket (a radix sort over the bucket bits only), in `scratch`
/// (grown when too small: the order's four arrays and the sort's temporary storage), or null when the
/// batch runs in input order (as asked, because it has more than 2^31 - 1 elements, or because the
/// scratch would grow while the stream is captured into a CUDA graph).
template <class Slots, class Backend>
const std::uint32_t* bucket_order(const Backend& backend, const slab_table_view<Slots>& table,
                                  const batch_arguments<Slots>& batch, buffer<std::byte>& scratch)
{
  if (!batch.by_bucket || batch.count > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) { return nullptr; }
  const std::uint64_t count = batch.count;
  const int bucket_bits = std::max(1, static_cast<int>(std::bit_width(table.bucket_count - 1)));
  const auto items = static_cast<int>(count);
  std::size_t temporary_bytes = 0;
  WARPDEX_CUDA_TRY(
      cub::DeviceRadixSort::SortPairs(nullptr, temporary_bytes, static_cast<const std::uint32_t*>(nullptr),
                                      static_cast<std::uint32_t*>(nullptr), static_cast<const std::uint32_t*>(nullptr),
                                      static_cast<std::uint32_t*>(nullptr), items, 0, bucket_bits, backend.stream));
  constexpr std::size_t arrays = 4;  // buckets, indices, sorted buckets, order
  const std::size_t array_bytes = aligned_bytes(count * sizeof(std::uint32_t));
  const std::size_t needed = arrays * array_bytes + temporary_bytes;
  if (scratch.size() < needed) {
    // Growing is a stream-ordered allocation and the old scratch's free. Captured, they would become the
    // graph's memory nodes: a graph whose allocation outlives it cannot be replayed again, and it cannot
    // free memory allocated outside it. So a captured batch larger than any before runs in input order
    // (the same results); one uncaptured batch of its size in bucket order grows the scratch first.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    WARPDEX_CUDA_TRY(cudaStreamIsCapturing(backend.stream, &capture));
    if (capture != cudaStreamCaptureStatusNone) { return nullptr; }
    scratch = make_buffer<std::byte>(backend, needed);  // the old one freed on the stream, after its readers
  }
  std::byte* base = scratch.data();
  auto* buckets = reinterpret_cast<std::uint32_t*>(base);
  auto* indices = reinterpret_cast<std::uint32_t*>(base + array_bytes);
  auto* sorted_buckets = reinterpret_cast<std::uint32_t*>(base + 2 * array_bytes);
  auto* order = reinterpret_cast<std::uint32_t*>(base + 3 * array_bytes);
  bucket_pairs_kernel<Slots>
      <<<blocks_for(count), block_threads, 0, backend.stream>>>(table, batch.keys, count, buckets, indices);
  WARPDEX_CHECK_LAUNCH("bucket_pairs_kernel");
  WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(base + arrays * array_bytes, temporary_bytes, buckets,
                                                   sorted_buckets, indices, order, items, 0, bucket_bits,
                                                   backend.stream));
  return order;
}

/// Launches the batch's kernel with `TileLanes` lanes per operation: uniform finds and erasures have
/// their own (they never allocate, and finds read through the non-coherent cache); any other batch
/// counts its exhausted elements into `exhausted`. `ManyBatches`: a many-batch call's uniform finds or
/// insertions, with their own kernels.
template <class Slots, unsigned TileLanes, bool ManyBatches = false, class Backend>
void launch_batch(const Backend& backend, const slab_table_view<Slots>& table, const batch_arguments<Slots>& given,
                  const std::uint32_t* order, unsigned long long* exhausted)
{
  batch_arguments<Slots> batch = given;
  batch.element_lanes_log2 = spread_lanes_log2(batch.count, batch.wave_threads);
  const unsigned blocks = blocks_for(batch.count << batch.element_lanes_log2);
  if constexpr (ManyBatches) {
    if (batch.operations == nullptr && batch.uniform == operation::find) {
      find_batch_kernel<Slots, TileLanes, true><<<blocks, block_threads, 0, backend.stream>>>(table, batch, order);
      WARPDEX_CHECK_LAUNCH("find_batch_kernel (many batches)");
    } else {
      WARPDEX_EXPECTS(batch.operations == nullptr && batch.uniform != operation::erase,
                      "slab table: a many-batch call runs uniform finds or insertions only");
      execute_batch_kernel<Slots, TileLanes, lane_ops::uniform, true>
          <<<blocks, block_threads, 0, backend.stream>>>(table, batch, order, next_launch_salt(), exhausted);
      WARPDEX_CHECK_LAUNCH("execute_batch_kernel (many batches)");
    }
  } else if (batch.operations == nullptr && batch.uniform == operation::erase) {
    erase_batch_kernel<Slots, TileLanes><<<blocks, block_threads, 0, backend.stream>>>(table, batch, order);
    WARPDEX_CHECK_LAUNCH("erase_batch_kernel");
  } else if (batch.operations == nullptr && batch.uniform == operation::find) {
    find_batch_kernel<Slots, TileLanes><<<blocks, block_threads, 0, backend.stream>>>(table, batch, order);
    WARPDEX_CHECK_LAUNCH("find_batch_kernel");
  } else if (batch.operations == nullptr) {
    execute_batch_kernel<Slots, TileLanes, lane_ops::uniform>
        <<<blocks, block_threads, 0, backend.stream>>>(table, batch, order, next_launch_salt(), exhausted);
    WARPDEX_CHECK_LAUNCH("execute_batch_kernel (uniform)");
  } else {
    execute_batch_kernel<Slots, TileLanes, lane_ops::mixed>
        <<<blocks, block_threads, 0, backend.stream>>>(table, batch, order, next_launch_salt(), exhausted);
    WARPDEX_CHECK_LAUNCH("execute_batch_kernel (mixed)");
  }
}

/// launch_batch with the batch's tile_lanes (read_tile_lanes for any value but 1, 8, 16 and 32); a
/// many-batch call with read_tile_lanes always (one instantiation of its kernels a layout).
template <class Slots, class Backend>
void launch_planned(const Backend& backend, const slab_table_view<Slots>& table, const batch_arguments<Slots>& batch,
                    const std::uint32_t* order, unsigned long long* exhausted)
{
  if (batch.batch_offsets != nullptr) {
    launch_batch<Slots, read_tile_lanes, true>(backend, table, batch, order, exhausted);
    return;
  }
  switch (batch.tile_lanes) {
    case 1:
      launch_batch<Slots, 1>(backend, table, batch, order, exhausted);
      break;
    case 8:
      launch_batch<Slots, 8>(backend, table, batch, order, exhausted);
      break;
    case 16:
      launch_batch<Slots, 16>(backend, table, batch, order, exhausted);
      break;
    case 32:
      launch_batch<Slots, 32>(backend, table, batch, order, exhausted);
      break;
    default:
      launch_batch<Slots, read_tile_lanes>(backend, table, batch, order, exhausted);
      break;
  }
}

/// One warp per bucket walks its list: on each slab, `visit(slot, live_lanes)` with the lane's slot and
/// the ballot of lanes holding live keys (and of erased ones); `slab` is the slab read.
template <class Slots, class Visit>
__device__ void walk_list(const slab_table_view<Slots>& table, std::uint32_t bucket, Visit&& visit)
{
  const unsigned lane = warp::lane_id();
  typename Slots::slot_type* slab = table.head(bucket);
  for (;;) {
    const auto slot = lane < Slots::slots_per_slab ? load_slot(slab + lane) : Slots::empty_slot;
    const bool data_lane = lane < Slots::data_slots;
    visit(slab, slot, warp::ballot(data_lane && !Slots::is_reserved(Slots::key_of(slot))),
          warp::ballot(data_lane && Slots::key_of(slot) == Slots::erased_key));
    const std::uint32_t next = warp::shfl(Slots::link_of(slot), Slots::link_slot);
    if (next == null_slab) { return; }
    slab = table.pool.slab(next);
  }
}

/// The lists a grid of whole waves walks: warp w of the grid takes buckets w, w + warps, ...
template <class Slots, class Walk>
__device__ void for_each_bucket_of_warp(const slab_table_view<Slots>& table, Walk&& walk)
{
  const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * warps_per_block;
  for (std::uint64_t bucket = static_cast<std::uint64_t>(blockIdx.x) * warps_per_block + warp::warp_in_block();
       bucket < table.bucket_count; bucket += warps) {
    walk(static_cast<std::uint32_t>(bucket));
  }
}

/// Sums the lists into `totals` (zeroed before). A grid of one wave, each warp walking many lists, and
/// one set of atomics per block: one set per list, on the same four words, took 0.35 ms for 2^17
/// lists, and size() and statistics() run it.
template <class Slots>
__global__ void summarize_kernel(slab_table_view<Slots> table, chain_totals* totals)
{
  constexpr unsigned fields = 4;  // chain_totals' members, in order
  __shared__ unsigned long long block_sums[fields];
  if (threadIdx.x < fields) { block_sums[threadIdx.x] = 0; }
  __syncthreads();
  unsigned long long live = 0, erased = 0, slabs = 0, longest = 0;
  for_each_bucket_of_warp(table, [&](std::uint32_t bucket) {
    unsigned long long chain = 0;
    walk_list(table, bucket, [&](auto, auto, unsigned live_lanes, unsigned erased_lanes) {
      live += warp::popc(live_lanes);
      erased += warp::popc(erased_lanes);
      ++chain;
    });
    slabs += chain;
    longest = longest > chain ? longest : chain;
  });
  if (warp::lane_id() == 0) {
    atomicAdd(&block_sums[0], live);
    atomicAdd(&block_sums[1], erased);
    atomicAdd(&block_sums[2], slabs);
    atomicMax(&block_sums[3], longest);
  }
  __syncthreads();
  static_assert(sizeof(chain_totals) == fields * sizeof(unsigned long long));
  auto* sums = reinterpret_cast<unsigned long long*>(totals);
  if (threadIdx.x < fields - 1) { atomicAdd(&sums[threadIdx.x], block_sums[threadIdx.x]); }
  if (threadIdx.x == fields - 1) { atomicMax(&sums[fields - 1], block_sums[fields - 1]); }
}

/// Writes the live pairs into keys_out / values_out (up to `capacity`) and their count into `written`
/// (zeroed before). Each warp walks its lists twice, counting, then writing after the pairs of the
/// warps before it: one atomic per block, where one per slab on the same word took about 0.6 ms for
/// 2^20 slabs.
template <class Slots>
__global__ void export_kernel(slab_table_view<Slots> table, typename Slots::key_type* keys_out,
                              typename Slots::value_type* values_out, std::uint64_t capacity,
                              unsigned long long* written)
{
  __shared__ unsigned long long warp_first[warps_per_block];
  const unsigned lane = warp::lane_id();
  unsigned long long live = 0;
  for_each_bucket_of_warp(table, [&](std::uint32_t bucket) {
    walk_list(table, bucket, [&](auto, auto, unsigned live_lanes, unsigned) { live += warp::popc(live_lanes); });
  });
  if (lane == 0) { warp_first[warp::warp_in_block()] = live; }
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long total = 0;
    for (unsigned w = 0; w < warps_per_block; ++w) { total += warp_first[w]; }
    unsigned long long first = atomicAdd(written, total);
    for (unsigned w = 0; w < warps_per_block; ++w) {
      const unsigned long long count = warp_first[w];
      warp_first[w] = first;
      first += count;
    }
  }
  __syncthreads();
  unsigned long long at = warp_first[warp::warp_in_block()];
  for_each_bucket_of_warp(table, [&](std::uint32_t bucket) {
    walk_list(table, bucket, [&](auto, auto slot, unsigned live_lanes, unsigned) {
      if ((live_lanes >> lane & 1U) != 0) {
        const std::uint64_t index = at + warp::rank_in(live_lanes);
        if (index < capacity) {
          keys_out[index] = Slots::key_of(slot);
          if (values_out != nullptr) { values_out[index] = Slots::value_of(slot); }
        }
      }
      at += warp::popc(live_lanes);
    });
  });
}

/// One warp per query walks its key's whole list (the multimap's count, fill and erase_all).
template <class Slots>
__global__ void walk_kernel(slab_table_view<Slots> table, walk_arguments<Slots> walk)
{
  const std::uint64_t query = static_cast<std::uint64_t>(blockIdx.x) * warps_per_block + warp::warp_in_block();
  if (query >= walk.count) { return; }
  const unsigned lane = warp::lane_id();
  const typename Slots::key_type key = walk.keys[query];
  const std::uint64_t begin = walk.kind == list_walk::fill ? walk.offsets[query] : 0;
  const std::uint64_t room = walk.kind == list_walk::fill ? walk.offsets[query + 1] - begin : 0;
  std::uint64_t instances = 0;
  walk_list(table, table.bucket_of(key), [&](auto* slab, auto slot, unsigned, unsigned) {
    const bool match = lane < Slots::data_slots && table.holds(Slots::key_of(slot), key);
    const unsigned matches = warp::ballot(match);
    if (walk.kind == list_walk::fill && match) {
      const std::uint64_t at = instances + warp::rank_in(matches);
      if (at < room && begin + at < walk.values_capacity) { walk.values_out[begin + at] = Slots::value_of(slot); }
    }
    // A slot holding the key changes only by being erased: a failed swap means another erasure won.
    const bool counts =
        walk.kind != list_walk::erase_all ||
        (match && try_swap_slot<Slots>(slab + lane, slot, Slots::make_slot(Slots::erased_key, Slots::value_of(slot))));
    instances += warp::popc(warp::ballot(match && counts));
  });
  if (lane != 0) { return; }
  if (walk.kind == list_walk::count) { walk.counts[query] = instances; }
  if (walk.kind == list_walk::erase_all && walk.statuses != nullptr) {
    walk.statuses[query] = instances > 0 ? operation_status::erased : operation_status::not_found;
  }
}

template <class Slots>
__global__ void flush_kernel(slab_table_view<Slots> table)
{
  const std::uint64_t bucket = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (bucket >= table.bucket_count) { return; }
  compact_list(table, static_cast<std::uint32_t>(bucket),
               [&](std::uint32_t slab) { atomicAnd(table.pool.bitmap_word(slab), ~table.pool.bit_of(slab)); });
}

}  // namespace cuda_backend
}  // namespace warpdex::hash::detail
