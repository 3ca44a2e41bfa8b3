#pragma once
// The cuda backend of the slab tables: batches run through the device ref (one tile of 1, 4, 8, 16 or
// 32 lanes per operation; finds through the non-coherent cache; an insertion that appends a slab on
// the whole warp), optionally in bucket order (a stable radix sort of (bucket, index) pairs first);
// list walks run one warp per bucket, flush one thread per bucket. Each slab size's layouts are
// instantiated in a translation unit of their own (src/hash/slab_table_cuda.cu, slab_table_cuda_64.cu),
// so the two compile in parallel; a table with a hasher of its own is instantiated by the user
// (hash/instantiate.hpp). It defines the same templates as slab_table_host_impl.hpp, so a translation
// unit includes one of the two.
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

/// Threads in one wave of the batch kernels on the current device: batch_blocks_per_sm blocks an SM.
inline std::uint64_t batch_wave_threads()
{
  return static_cast<std::uint64_t>(cached_sm_count()) * batch_blocks_per_sm * block_threads;
}

/// Lanes per element of a batch of `count` (basic_batch_arguments::element_lanes_log2): the most, up to
/// a warp, with which the batch still fits in one wave of the batch kernels. A warp runs its elements'
/// list walks one after another in each tile, and its slab appends one after another on the whole
/// warp, so a small batch packed 32 to a warp waits on those chains while most SMs idle: 1024
/// insertions took 16 us in 4 blocks.
inline std::uint32_t spread_lanes_log2(std::uint64_t count)
{
  const std::uint64_t wave_threads = batch_wave_threads();
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
                                   std::uint32_t unsupported, batch_report* report)
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
  if (gridDim.x == 1) {
    if (threadIdx.x < rules) { violations[threadIdx.x] = first[threadIdx.x]; }
    return;
  }
  auto* so_far = reinterpret_cast<unsigned long long*>(&report->violations_so_far);
  if (threadIdx.x < rules && first[threadIdx.x] != none) { atomicMin(&so_far[threadIdx.x], first[threadIdx.x]); }
  __syncthreads();  // the block's minima before its count
  if (threadIdx.x == 0 && last_block_done(&report->blocks_done)) {
    for (unsigned rule = 0; rule < rules; ++rule) { violations[rule] = atomicExch(&so_far[rule], none); }
  }
}

/// Blocks of check_batch_kernel for `count` elements: one up to check_single_block_elements, else one
/// per block_threads elements up to a wave (batch_blocks_per_sm blocks an SM: the kernel needs few
/// registers), without an occupancy query per batch.
inline unsigned check_blocks(std::uint64_t count)
{
  if (count <= check_single_block_elements) { return 1; }
  return static_cast<unsigned>(std::min<std::uint64_t>(blocks_for(count), batch_wave_threads() / block_threads));
}

/// Enqueues the input check of a batch into `report` (see check_batch_kernel): one launch.
template <class Key, class Backend>
void enqueue_check(const Backend& backend, const Key* keys, const operation* operations, std::uint64_t count,
                   std::uint32_t unsupported, batch_report* report)
{
  check_batch_kernel<<<check_blocks(count), block_threads, 0, backend.stream>>>(keys, operations, count, unsupported,
                                                                                report);
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

/// Whether a small batch (at most check_single_block_elements elements, uniform operation) holds a
/// reserved key, as every block of its kernel finds by reading the whole batch (from L2 after the
/// first); block 0 writes the report check_batch_kernel would have, but for the exhausted count of a
/// batch that runs and `counts_exhausted` (sum_exhausted_in_report writes it). Saves a launch before
/// small batches.
template <class Key>
__device__ bool self_checked_rejects(const Key* keys, std::uint64_t count, batch_report* report, bool counts_exhausted)
{
  __shared__ unsigned long long first_reserved;
  if (threadIdx.x == 0) { first_reserved = std::numeric_limits<unsigned long long>::max(); }
  __syncthreads();
  for (std::uint64_t i = threadIdx.x; i < count; i += blockDim.x) {
    if (is_reserved_key(keys[i])) { atomicMin(&first_reserved, static_cast<unsigned long long>(i)); }
  }
  __syncthreads();
  const unsigned long long first = first_reserved;
  const bool rejects = first != std::numeric_limits<unsigned long long>::max();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    report->violations = batch_violations{first};
    if (rejects || !counts_exhausted) { report->exhausted = 0; }
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
inline __device__ void sum_exhausted_in_report(unsigned warp_exhausted, batch_report* report)
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
  if (last_block_done(&report->blocks_done)) { report->exhausted = atomicExch(so_far, 0ULL); }
}

/// A batch that may insert: tiles of `TileLanes` lanes run the operations, each warp appending slabs
/// with its own allocator. `Ops`: uniform for insert and insert_or_assign batches, mixed otherwise.
template <class Slots, unsigned TileLanes, lane_ops Ops>
__global__ void __launch_bounds__(block_threads, batch_blocks_per_sm)
    execute_batch_kernel(slab_table_view<Slots> table, batch_arguments<Slots> batch, const std::uint32_t* order,
                         std::uint64_t salt, unsigned long long* exhausted)
{
  const slab_table_ref<Slots> ref(table);
  std::uint64_t position = 0;
  const bool in_batch = position_in(batch, position);
  const std::uint64_t i = in_batch ? element_at(order, position) : 0;
  const bool active = in_batch && (batch.retry == nullptr || batch.retry[i] == operation_status::out_of_memory);
  if (batch.self_check != nullptr && self_checked_rejects(batch.keys, batch.count, batch.self_check, true)) {
    mark_rejected(batch, active, i);
    return;
  }
  if (stopped_by_gate(batch, active, i)) { return; }
  const operation op = active && batch.operations != nullptr ? batch.operations[i] : batch.uniform;
  using key_type = typename Slots::key_type;
  using value_type = typename Slots::value_type;
  const key_type key = active ? batch.keys[i] : key_type{0};
  const value_type value = active && batch.values_in != nullptr ? batch.values_in[i] : value_type{0};
  value_type found_value = 0;
  const operation_status status = ref.template apply_with<TileLanes, Ops>([&] { return ref.make_allocator(salt); },
                                                                          active, op, key, value, found_value);
  const unsigned exhausted_lanes = warp::ballot(active && status == operation_status::out_of_memory);
  if (batch.self_check != nullptr) {
    sum_exhausted_in_report(warp::popc(exhausted_lanes), batch.self_check);
  } else if (exhausted_lanes != 0 && warp::lane_id() == 0) {
    atomicAdd(exhausted, warp::popc(exhausted_lanes));
  }
  if (active) { write_result(batch, i, status, found_value); }
}

/// A batch of finds only: nothing writes the table meanwhile, so slabs are read through the
/// non-coherent cache.
template <class Slots, unsigned TileLanes>
__global__ void __launch_bounds__(block_threads, batch_blocks_per_sm)
    find_batch_kernel(slab_table_view<Slots> table, batch_arguments<Slots> batch, const std::uint32_t* order)
{
  const slab_table_ref<Slots> ref(table);
  std::uint64_t position = 0;
  const bool active = position_in(batch, position);
  const std::uint64_t i = active ? element_at(order, position) : 0;
  if (batch.self_check != nullptr && self_checked_rejects(batch.keys, batch.count, batch.self_check, false)) {
    mark_rejected(batch, active, i);
    return;
  }
  if (stopped_by_gate(batch, active, i)) { return; }
  typename Slots::value_type found_value = 0;
  const operation_status status = ref.template find<slab_reads::read_only, TileLanes>(
      active, active ? batch.keys[i] : typename Slots::key_type{0}, found_value);
  if (active) { write_result(batch, i, status, found_value); }
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
  if (batch.self_check != nullptr && self_checked_rejects(batch.keys, batch.count, batch.self_check, false)) {
    mark_rejected(batch, active, i);
    return;
  }
  if (stopped_by_gate(batch, active, i)) { return; }
  const operation_status status =
      ref.template erase<TileLanes>(active, active ? batch.keys[i] : typename Slots::key_type{0});
  if (active) { write_result(batch, i, status, typename Slots::value_type{0}); }
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
/// batch runs in input order (as asked, or because it has more than 2^31 - 1 elements).
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
  // The old scratch is freed on the stream, after the work that still reads it.
  if (scratch.size() < needed) { scratch = make_buffer<std::byte>(backend, needed); }
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
/// counts its exhausted elements into `exhausted`.
template <class Slots, unsigned TileLanes, class Backend>
void launch_batch(const Backend& backend, const slab_table_view<Slots>& table, const batch_arguments<Slots>& given,
                  const std::uint32_t* order, unsigned long long* exhausted)
{
  batch_arguments<Slots> batch = given;
  batch.element_lanes_log2 = spread_lanes_log2(batch.count);
  const unsigned blocks = blocks_for(batch.count << batch.element_lanes_log2);
  if (batch.operations == nullptr && batch.uniform == operation::erase) {
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

/// launch_batch with the batch's tile_lanes (read_tile_lanes for any value but 1, 8, 16 and 32).
template <class Slots, class Backend>
void launch_planned(const Backend& backend, const slab_table_view<Slots>& table, const batch_arguments<Slots>& batch,
                    const std::uint32_t* order, unsigned long long* exhausted)
{
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

// ---- Combined batches (slab_combine.hpp): the elements sorted by key, a segmented scan of their
// transitions, one find and at most one write per distinct key, and the outcomes fanned back out. ----

template <class Key>
__global__ void sample_keys_kernel(const Key* keys, std::uint64_t count, std::uint64_t samples, Key* sample,
                                   std::uint64_t taken)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < taken) { sample[i] = keys[sample_position(i, count, samples)]; }
}

/// Whether element i runs in this attempt (all do, or those whose retry status is out_of_memory).
struct runs_this_attempt {
  const operation_status* retry;
  __device__ bool operator()(std::uint32_t element) const { return retry[element] == operation_status::out_of_memory; }
};

/// 1 where position i starts a run of equal sorted keys, else 0.
template <class Key>
struct starts_group {
  const Key* sorted_keys;
  __device__ std::uint32_t operator()(std::uint64_t i) const
  {
    return i == 0 || sorted_keys[i] != sorted_keys[i - 1] ? 1U : 0U;
  }
};

template <class Key>
struct is_group_start {
  const Key* sorted_keys;
  __device__ bool operator()(std::uint64_t i) const { return starts_group<Key>{sorted_keys}(i) != 0; }
};

/// A sorted order's entry may carry its element's operation in its top bits (`packed`): entry = element
/// | op << packed_operation_shift. Read through the order in sorted position, the operations would
/// otherwise be a random read per element (1.5 ms of a combined 2^26-element batch).
constexpr unsigned packed_operation_shift = 30;
static_assert(operation_count <= 1U << (32 - packed_operation_shift));
/// Batches of more elements keep plain element indices in their order.
constexpr std::uint64_t max_packed_elements = std::uint64_t{1} << packed_operation_shift;

/// The operation and input value of batch element `element`, and the element and operation of a sorted
/// order's entry.
template <class Value>
struct batch_element {
  const operation* operations;
  operation uniform;
  const Value* values_in;
  bool packed = false;  ///< order entries carry their operations
  __device__ operation op(std::uint32_t element) const { return operations != nullptr ? operations[element] : uniform; }
  __device__ Value value(std::uint32_t element) const { return values_in != nullptr ? values_in[element] : Value{0}; }
  __device__ std::uint32_t element_of(std::uint32_t entry) const
  {
    return packed ? entry & static_cast<std::uint32_t>(max_packed_elements - 1) : entry;
  }
  __device__ operation op_of(std::uint32_t entry) const
  {
    return packed ? static_cast<operation>(entry >> packed_operation_shift) : op(entry);
  }
  __device__ key_transition transition_of_entry(std::uint32_t entry) const
  {
    return transition_of(op_of(entry), element_of(entry));
  }
};

/// The order entry of element `element` with its operation packed in.
struct pack_operation {
  const operation* operations;
  __device__ std::uint32_t operator()(std::uint32_t element) const
  {
    return element | static_cast<std::uint32_t>(operations[element]) << packed_operation_shift;
  }
};

template <class Value>
struct transition_of_entry {
  batch_element<Value> elements;
  __device__ key_transition operator()(std::uint32_t entry) const { return elements.transition_of_entry(entry); }
};

struct compose_transitions {
  __device__ key_transition operator()(const key_transition& first, const key_transition& second) const
  {
    return then(first, second);
  }
};

/// A group's final state and the write that leads there; groups without one are skipped by `retry`.
template <class Slots>
struct plan_group_write {
  const std::uint64_t* group_first;
  const key_transition* prefix;
  const std::uint32_t* order;
  const operation_status* initial;
  batch_element<typename Slots::value_type> elements;
  operation* write_operations;
  typename Slots::value_type* write_values;
  operation_status* write_statuses;
  __device__ void operator()(std::uint64_t group) const
  {
    const std::uint64_t last = group_first[group + 1] - 1;
    const bool present = initial[group] == operation_status::found;
    const std::uint32_t final_target =
        after(then(prefix[last], elements.transition_of_entry(order[last])), initial_target(present));
    const combined_write write = write_for(present, final_target, Slots::has_values);
    write_operations[group] = write.op;
    write_values[group] = write.needed ? elements.value(write.element) : typename Slots::value_type{0};
    write_statuses[group] = pending_status(write);
  }
};

/// The outcome of the element at sorted position i: its group's sequential run, or, where the group's
/// write found no slab, a run in which the key stays absent.
template <class Value>
struct combined_outcome {
  const std::uint32_t* order;
  const std::uint32_t* groups;  ///< 1-based group of each sorted position
  const key_transition* prefix;
  const operation_status* initial;
  const operation_status* write_statuses;  ///< null when no group's write ran out of slabs
  batch_element<Value> elements;
  struct result {
    std::uint32_t element;
    std::uint32_t target;  ///< the key's state before the element
    std::uint32_t group;
    operation_status status;
  };
  __device__ result operator()(std::uint64_t i) const
  {
    const std::uint32_t element = elements.element_of(order[i]);
    const std::uint32_t group = groups[i] - 1;
    const operation op = elements.op_of(order[i]);
    const std::uint32_t target = after(prefix[i], initial_target(initial[group] == operation_status::found));
    const bool exhausted = write_statuses != nullptr && write_statuses[group] == operation_status::out_of_memory;
    return {element, target, group, exhausted ? status_when_exhausted(op) : status_in(op, target)};
  }
  /// The value a found element reports: the key's value before the batch, or the one its last writer
  /// wrote.
  __device__ Value found_value(const result& r, const Value* initial_values) const
  {
    return r.target == target_initial ? initial_values[r.group] : elements.value(r.target);
  }
};

template <class Value>
struct fan_out_outcome {
  combined_outcome<Value> outcome;
  const Value* initial_values;
  element_outputs<Value> outputs;
  __device__ void operator()(std::uint64_t i) const
  {
    const typename combined_outcome<Value>::result r = outcome(i);
    outputs.write(r.element, r.status,
                  outputs.takes_found_value(r.status) ? outcome.found_value(r, initial_values) : Value{0});
  }
};

template <class Value>
struct is_exhausted_outcome {
  combined_outcome<Value> outcome;
  __device__ std::uint64_t operator()(std::uint64_t i) const
  {
    return outcome(i).status == operation_status::out_of_memory ? 1U : 0U;
  }
};

/// Combined batches of at least this many elements write their outcomes in element order: the outcomes
/// are written in sorted order with their elements, sorted back by element (a radix sort of the element
/// indices' bits), and written out in a coalesced pass. Written from sorted order directly, each element
/// is a random 4-byte write to its status and another to its value: 5 of the 9 ms of a combined 2^26-
/// element batch (H200). Below about the L2's size of outputs the random writes stay in the cache.
constexpr std::uint64_t sorted_outcomes_min_elements = std::uint64_t{1} << 23;

/// Writes the element and the packed outcome (status over found value) of sorted position i.
template <class Value>
struct pack_outcome {
  combined_outcome<Value> outcome;
  const Value* initial_values;
  element_outputs<Value> outputs;
  std::uint32_t* elements;
  std::uint64_t* packed;
  __device__ void operator()(std::uint64_t i) const
  {
    static_assert(sizeof(Value) <= sizeof(std::uint32_t));
    const typename combined_outcome<Value>::result r = outcome(i);
    const Value value = outputs.takes_found_value(r.status) ? outcome.found_value(r, initial_values) : Value{0};
    elements[i] = r.element;
    packed[i] = static_cast<std::uint64_t>(r.status) << 32 | static_cast<std::uint32_t>(value);
  }
};

/// Writes the outputs of the element at position i of the outcomes sorted back by element.
template <class Value>
struct unpack_outcome {
  const std::uint32_t* elements;
  const std::uint64_t* packed;
  element_outputs<Value> outputs;
  __device__ void operator()(std::uint64_t i) const
  {
    outputs.write(elements[i], static_cast<operation_status>(packed[i] >> 32),
                  static_cast<Value>(packed[i] & 0xffffffffU));
  }
};

/// A multimap group's erasures and insertions, counted together by one segmented scan: an erasure
/// adds erase_unit, an insertion 1 (counts stay below 2^32).
constexpr std::uint64_t erase_unit = std::uint64_t{1} << 32;
constexpr std::uint64_t insert_count_mask = erase_unit - 1;

template <class Value>
struct erase_insert_count {
  batch_element<Value> elements;
  __device__ std::uint64_t operator()(std::uint32_t element) const
  {
    const operation op = elements.op(element);
    return op == operation::erase ? erase_unit : op == operation::insert ? 1U : 0U;
  }
};

struct counts_an_insertion {
  __device__ bool operator()(std::uint64_t count) const { return (count & insert_count_mask) != 0; }
};

struct insertions_of {
  __device__ std::uint64_t operator()(std::uint64_t counts) const { return counts & insert_count_mask; }
};

/// Each group's erasures and insertions (erase_unit and 1 each): its last position's running count plus
/// its own.
struct group_totals {
  const std::uint64_t* group_first;
  const std::uint64_t* ranks;
  const std::uint64_t* counts;
  std::uint64_t* totals;
  __device__ void operator()(std::uint64_t group) const
  {
    const std::uint64_t last = group_first[group + 1] - 1;
    totals[group] = ranks[last] + counts[last];
  }
};

/// One warp per multimap group erases up to its erasures' count of its key's instances, the first in
/// list order; erased[group] = how many it erased.
template <class Slots>
__global__ void erase_instances_kernel(slab_table_view<Slots> table, const typename Slots::key_type* group_keys,
                                       const std::uint64_t* totals, std::uint64_t groups, std::uint64_t* erased_out)
{
  const std::uint64_t group = static_cast<std::uint64_t>(blockIdx.x) * warps_per_block + warp::warp_in_block();
  if (group >= groups) { return; }
  const unsigned lane = warp::lane_id();
  const std::uint64_t limit = totals[group] / erase_unit;
  std::uint64_t erased = 0;
  if (limit > 0) {
    const typename Slots::key_type key = group_keys[group];
    typename Slots::slot_type* slab = table.head_of(key);
    for (;;) {
      const auto seen = lane < Slots::slots_per_slab ? load_slot(slab + lane) : Slots::empty_slot;
      const bool match = lane < Slots::data_slots && table.holds(Slots::key_of(seen), key);
      const unsigned matches = warp::ballot(match);
      const bool tries = match && static_cast<std::uint64_t>(warp::rank_in(matches)) < limit - erased;
      const bool won =
          tries && try_swap_slot<Slots>(slab + lane, seen, Slots::make_slot(Slots::erased_key, Slots::value_of(seen)));
      const unsigned tried = warp::ballot(tries);
      const unsigned wins = warp::ballot(won);
      erased += static_cast<std::uint64_t>(warp::popc(wins));
      if (erased == limit) { break; }
      if (tried != wins) { continue; }  // a slot changed under us: read the slab again
      const std::uint32_t next = warp::shfl(Slots::link_of(seen), Slots::link_slot);
      if (next == null_slab) { break; }
      slab = table.pool.slab(next);
    }
  }
  if (lane == 0) { erased_out[group] = erased; }
}

/// One warp per multimap group adds its insertions' pairs, in input order, into the next empty slots of
/// its key's list, appending slabs with the warp's allocator; added[group] = how many it added (fewer
/// only when no slab was free). The pairs added are always a prefix of the insertions: when a swap
/// loses its slot to another insertion, the pairs the warp placed after it in the same round are
/// erased again (left as tombstones) and tried anew.
template <class Slots>
__global__ void append_instances_kernel(slab_table_view<Slots> table, const typename Slots::key_type* group_keys,
                                        const std::uint64_t* totals, const std::uint64_t* insert_first,
                                        const std::uint32_t* insert_elements,
                                        const typename Slots::value_type* values_in, std::uint64_t groups,
                                        std::uint64_t salt, std::uint64_t* added_out)
{
  using slot_type = typename Slots::slot_type;
  const std::uint64_t group = static_cast<std::uint64_t>(blockIdx.x) * warps_per_block + warp::warp_in_block();
  if (group >= groups) { return; }
  const unsigned lane = warp::lane_id();
  const std::uint64_t total = totals[group] & insert_count_mask;
  std::uint64_t added = 0;
  if (total > 0) {
    const slab_table_ref<Slots> ref(table);
    auto allocator = ref.make_allocator(salt);
    const typename Slots::key_type key = group_keys[group];
    const std::uint32_t* elements = insert_elements + insert_first[group];
    slot_type* slab = table.head_of(key);
    for (;;) {
      const slot_type seen = lane < Slots::slots_per_slab ? load_slot(slab + lane) : Slots::empty_slot;
      const unsigned empties = warp::ballot(lane < Slots::data_slots && Slots::key_of(seen) == Slots::empty_key);
      const auto rank = static_cast<std::uint64_t>(warp::rank_in(empties));
      const bool tries = (empties >> lane & 1U) != 0 && rank < total - added;
      const slot_type pair = tries ? Slots::make_slot(key, values_in != nullptr ? values_in[elements[added + rank]]
                                                                                : typename Slots::value_type{0})
                                   : seen;
      const bool won = tries && try_swap_slot<Slots>(slab + lane, seen, pair);
      const unsigned tried = warp::ballot(tries);
      const unsigned lost = tried & ~warp::ballot(won);
      if (lost != 0) {
        const auto kept = static_cast<std::uint64_t>(warp::popc(empties & ((1U << (warp::ffs(lost) - 1)) - 1U)));
        if (won && rank > kept) {
          try_swap_slot<Slots>(slab + lane, pair, Slots::make_slot(Slots::erased_key, Slots::value_of(pair)));
        }
        added += kept;
        continue;  // read the slab again
      }
      added += static_cast<std::uint64_t>(warp::popc(tried));
      if (added == total) { break; }
      const std::uint32_t next = warp::shfl(Slots::link_of(seen), Slots::link_slot);
      if (next != null_slab) {
        slab = table.pool.slab(next);
        continue;
      }
      slab = append_slab(table, allocator, slab);
      if (slab == nullptr) { break; }
    }
  }
  if (lane == 0) { added_out[group] = added; }
}

/// The outcome of the multimap element at sorted position i (multiset_outcome).
template <class Value>
struct multiset_element_outcome {
  const std::uint32_t* order;
  const std::uint32_t* groups;  ///< 1-based group of each sorted position
  const std::uint64_t* ranks;   ///< erasures (in erase_unit) and insertions before it in its group
  const operation_status* initial;
  const std::uint64_t* erased;
  const std::uint64_t* added;
  batch_element<Value> elements;
  __device__ operation_status operator()(std::uint64_t i) const
  {
    const std::uint32_t group = groups[i] - 1;
    const operation op = elements.op(order[i]);
    const std::uint64_t rank = op == operation::erase ? ranks[i] / erase_unit : ranks[i] & insert_count_mask;
    const multiset_outcome outcome{initial[group] == operation_status::found, erased[group], added[group]};
    return outcome.status(op, rank);
  }
};

template <class Value>
struct fan_out_multiset_outcome {
  multiset_element_outcome<Value> outcome;
  const Value* initial_values;
  element_outputs<Value> outputs;
  __device__ void operator()(std::uint64_t i) const
  {
    const operation_status status = outcome(i);
    const std::uint32_t group = outcome.groups[i] - 1;
    outputs.write(outcome.order[i], status, outputs.takes_found_value(status) ? initial_values[group] : Value{0});
  }
};

template <class Value>
struct is_exhausted_multiset_outcome {
  multiset_element_outcome<Value> outcome;
  __device__ std::uint64_t operator()(std::uint64_t i) const
  {
    return outcome(i) == operation_status::out_of_memory ? 1U : 0U;
  }
};

template <class T>
T copy_to_host(const buffer<T>& value)
{
  return value.to_vector()[0];
}

}  // namespace cuda_backend

using namespace cuda_backend;

template <class Slots, class Backend>
void initialize_table(const Backend& backend, const slab_table_view<Slots>& table)
{
  WARPDEX_CUDA_TRY(cudaMemsetAsync(table.heads, fresh_slab_byte, std::uint64_t{table.bucket_count} * Slots::slab_bytes,
                                   backend.stream));
  reset_swept_full(backend, table);
}

template <class Backend>
void initialize_bitmap(const Backend& backend, std::uint32_t* bitmap, std::uint64_t words, std::uint64_t slabs)
{
  if (words == 0) { return; }
  initialize_bitmap_kernel<<<blocks_for(words), block_threads, 0, backend.stream>>>(bitmap, words, slabs);
  WARPDEX_CHECK_LAUNCH("initialize_bitmap_kernel");
}

template <class Backend, class Key>
batch_violations find_violations(const Backend& backend, const Key* keys, const operation* operations,
                                 std::uint64_t count, std::uint32_t unsupported)
{
  auto report = make_buffer<batch_report>(backend, 1);
  const batch_report initial{};  // the running minima and block count the check kernel starts from
  report.copy_from(std::span<const batch_report>(&initial, 1));
  enqueue_check(backend, keys, operations, count, unsupported, report.data());
  return copy_to_host(report).violations;
}

template <class Slots, class Backend>
std::uint64_t execute_batch(const Backend& backend, const slab_table_view<Slots>& table,
                            const batch_arguments<Slots>& batch)
{
  buffer<std::byte> scratch;  // freed on the stream, after the kernel that reads the order
  const std::uint32_t* order = bucket_order(backend, table, batch, scratch);
  // Uniform finds and erasures never allocate: no exhaustion count to read back.
  const bool never_allocates =
      batch.operations == nullptr && (batch.uniform == operation::find || batch.uniform == operation::erase);
  buffer<unsigned long long> exhausted;
  if (!never_allocates) {
    exhausted = make_buffer<unsigned long long>(backend, 1);
    WARPDEX_CUDA_TRY(cudaMemsetAsync(exhausted.data(), 0, exhausted.size_bytes(), backend.stream));
  }
  launch_planned(backend, table, batch, order, exhausted.data());
  return never_allocates ? 0 : copy_to_host(exhausted);
}

template <class Slots, class Backend>
void enqueue_checked_batch(const Backend& backend, const slab_table_view<Slots>& table,
                           const batch_arguments<Slots>& batch, std::uint32_t unsupported, batch_report* report,
                           buffer<std::byte>& scratch)
{
  batch_arguments<Slots> gated = batch;
  // A small uniform batch checks itself in its kernel (self_checked_rejects): one launch fewer.
  // An `_async` find whose outputs a rejection can all rewrite checks itself at any size, each block its
  // own elements (finish_find_check): one launch, as a small batch.
  const bool rewritable_find = batch.operations == nullptr && batch.uniform == operation::find &&
                               batch.mark_rejected && (batch.values_out == nullptr || batch.write_misses);
  if (batch.operations == nullptr && batch.count <= check_single_block_elements) {
    gated.self_check = report;
  } else if (rewritable_find) {
    gated.find_check = report;
  } else {
    enqueue_check(backend, batch.keys, batch.operations, batch.count, unsupported, report);
    gated.gate = report;
  }
  const std::uint32_t* order = bucket_order(backend, table, batch, scratch);
  static_assert(sizeof(report->exhausted) == sizeof(unsigned long long));
  launch_planned(backend, table, gated, order, reinterpret_cast<unsigned long long*>(&report->exhausted));
}

template <class Backend, class Key>
std::vector<Key> sample_keys(const Backend& backend, const Key* keys, std::uint64_t count, std::uint64_t samples)
{
  const std::uint64_t taken = std::min(count, samples);
  if (taken == 0) { return {}; }
  auto sample = make_buffer<Key>(backend, taken);
  sample_keys_kernel<<<blocks_for(taken), block_threads, 0, backend.stream>>>(keys, count, samples, sample.data(),
                                                                              taken);
  WARPDEX_CHECK_LAUNCH("sample_keys_kernel");
  return sample.to_vector();
}

template <class Slots, class Backend>
std::uint64_t execute_combined(const Backend& backend, const slab_table_view<Slots>& table,
                               const batch_arguments<Slots>& batch)
{
  using key_type = typename Slots::key_type;
  using value_type = typename Slots::value_type;
  constexpr int key_bits = 8 * sizeof(key_type);
  // CUB's radix sort counts its items in an int: a larger batch runs uncombined (still correct).
  if (batch.count > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    return execute_batch<Slots>(backend, table, batch);
  }
  const auto on = warpdex::detail::policy_nosync(backend);
  using counter = thrust::counting_iterator<std::uint64_t>;
  const counter first_position(0);

  // The elements that run, as order entries (a unique-key table's mixed batch packs their operations
  // in: batch_element), and their keys.
  const bool packs =
      table.mode == key_mode::unique && batch.operations != nullptr && batch.count <= max_packed_elements;
  auto elements = make_buffer<std::uint32_t>(backend, batch.count);
  std::uint64_t count = batch.count;
  buffer<key_type> element_keys;
  const key_type* keys_to_sort = batch.keys;
  if (batch.retry != nullptr) {
    const thrust::counting_iterator<std::uint32_t> first_element(0);
    count = static_cast<std::uint64_t>(thrust::copy_if(on, first_element, first_element + batch.count, elements.data(),
                                                       runs_this_attempt{batch.retry}) -
                                       elements.data());
    element_keys = make_buffer<key_type>(backend, count);
    thrust::gather(on, elements.data(), elements.data() + count, batch.keys, element_keys.data());
    keys_to_sort = element_keys.data();
    if (packs) {
      thrust::transform(on, elements.data(), elements.data() + count, elements.data(),
                        pack_operation{batch.operations});
    }
  } else if (packs) {
    const thrust::counting_iterator<std::uint32_t> first_element(0);
    thrust::transform(on, first_element, first_element + count, elements.data(), pack_operation{batch.operations});
  } else {
    thrust::sequence(on, elements.data(), elements.data() + count);
  }
  if (count == 0) { return 0; }

  // Sorted by key, each key's elements in input order (a stable radix sort).
  auto sorted_keys = make_buffer<key_type>(backend, count);
  auto order = make_buffer<std::uint32_t>(backend, count);
  const auto items = static_cast<int>(count);
  std::size_t temporary_bytes = 0;
  WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temporary_bytes, keys_to_sort, sorted_keys.data(),
                                                   elements.data(), order.data(), items, 0, key_bits, backend.stream));
  auto temporary = make_buffer<std::byte>(backend, temporary_bytes);
  WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temporary.data(), temporary_bytes, keys_to_sort, sorted_keys.data(),
                                                   elements.data(), order.data(), items, 0, key_bits, backend.stream));

  // Groups of equal keys: the 1-based group of each position, the first position of each group.
  auto groups = make_buffer<std::uint32_t>(backend, count);
  thrust::inclusive_scan(
      on, thrust::make_transform_iterator(first_position, starts_group<key_type>{sorted_keys.data()}),
      thrust::make_transform_iterator(first_position + count, starts_group<key_type>{sorted_keys.data()}),
      groups.data());
  const std::uint64_t group_count = warpdex::detail::read_back(backend, groups.data() + count - 1);
  auto group_first = make_buffer<std::uint64_t>(backend, group_count + 1);
  thrust::copy_if(on, first_position, first_position + count, group_first.data(),
                  is_group_start<key_type>{sorted_keys.data()});
  thrust::fill_n(on, group_first.data() + group_count, 1, count);
  auto group_keys = make_buffer<key_type>(backend, group_count);
  thrust::gather(on, group_first.data(), group_first.data() + group_count, sorted_keys.data(), group_keys.data());

  // One find per distinct key: its state before the batch.
  auto initial = make_buffer<operation_status>(backend, group_count);
  auto initial_values = make_buffer<value_type>(backend, Slots::has_values ? group_count : 0);
  execute_batch<Slots>(backend, table,
                       group_finds(group_keys.data(), Slots::has_values ? initial_values.data() : nullptr,
                                   initial.data(), group_count, batch.tile_lanes));

  const batch_element<value_type> elements_in{batch.operations, batch.uniform, batch.values_in, packs};
  const element_outputs<value_type> outputs{batch.values_out, batch.statuses, batch.found, batch.write_misses,
                                            batch.miss_value};
  if (table.mode == key_mode::duplicates) {
    // A multimap (multiset_outcome): each group's erasures and insertions counted and ranked, one
    // erasing walk and one appending walk per group, then every element's outcome.
    auto counts = make_buffer<std::uint64_t>(backend, count);
    auto ranks = make_buffer<std::uint64_t>(backend, count);
    thrust::transform(on, order.data(), order.data() + count, counts.data(),
                      erase_insert_count<value_type>{elements_in});
    thrust::exclusive_scan_by_key(on, groups.data(), groups.data() + count, counts.data(), ranks.data(),
                                  std::uint64_t{0});
    auto totals = make_buffer<std::uint64_t>(backend, group_count);
    thrust::for_each(on, first_position, first_position + group_count,
                     group_totals{group_first.data(), ranks.data(), counts.data(), totals.data()});
    auto insert_elements = make_buffer<std::uint32_t>(backend, count);
    thrust::copy_if(on, order.data(), order.data() + count, counts.data(), insert_elements.data(),
                    counts_an_insertion{});
    auto insert_first = make_buffer<std::uint64_t>(backend, group_count);
    thrust::transform_exclusive_scan(on, totals.data(), totals.data() + group_count, insert_first.data(),
                                     insertions_of{}, std::uint64_t{0}, thrust::plus<std::uint64_t>());
    auto erased = make_buffer<std::uint64_t>(backend, group_count);
    auto added = make_buffer<std::uint64_t>(backend, group_count);
    const unsigned group_blocks = blocks_for(group_count * warp::size);
    erase_instances_kernel<Slots><<<group_blocks, block_threads, 0, backend.stream>>>(
        table, group_keys.data(), totals.data(), group_count, erased.data());
    WARPDEX_CHECK_LAUNCH("erase_instances_kernel");
    append_instances_kernel<Slots><<<group_blocks, block_threads, 0, backend.stream>>>(
        table, group_keys.data(), totals.data(), insert_first.data(), insert_elements.data(), batch.values_in,
        group_count, next_launch_salt(), added.data());
    WARPDEX_CHECK_LAUNCH("append_instances_kernel");
    const multiset_element_outcome<value_type> outcome{order.data(),  groups.data(), ranks.data(), initial.data(),
                                                       erased.data(), added.data(),  elements_in};
    thrust::for_each(on, first_position, first_position + count,
                     fan_out_multiset_outcome<value_type>{outcome, initial_values.data(), outputs});
    return thrust::transform_reduce(on, first_position, first_position + count,
                                    is_exhausted_multiset_outcome<value_type>{outcome}, std::uint64_t{0},
                                    thrust::plus<std::uint64_t>());
  }

  // The run of the transitions before each element in its group (each computed from its order entry).
  auto prefix = make_buffer<key_transition>(backend, count);
  const auto transitions = thrust::make_transform_iterator(order.data(), transition_of_entry<value_type>{elements_in});
  thrust::exclusive_scan_by_key(on, groups.data(), groups.data() + count, transitions, prefix.data(),
                                unchanged_transition(), thrust::equal_to<std::uint32_t>(), compose_transitions{});

  // One write per group that changes its key.
  auto write_operations = make_buffer<operation>(backend, group_count);
  auto write_values = make_buffer<value_type>(backend, group_count);
  auto write_statuses = make_buffer<operation_status>(backend, group_count);
  thrust::for_each(on, first_position, first_position + group_count,
                   plan_group_write<Slots>{group_first.data(), prefix.data(), order.data(), initial.data(), elements_in,
                                           write_operations.data(), write_values.data(), write_statuses.data()});
  execute_batch<Slots>(backend, table,
                       group_writes(write_operations.data(), group_keys.data(), write_values.data(),
                                    write_statuses.data(), group_count, batch.tile_lanes));

  // Every element's outcome at its own index. Elements end out_of_memory only in groups whose write did:
  // those are counted first (a pass over the groups; usually none, and then the outcomes need not look).
  const bool any_exhausted = thrust::count(on, write_statuses.data(), write_statuses.data() + group_count,
                                           operation_status::out_of_memory) != 0;
  const combined_outcome<value_type> outcome{
      order.data(), groups.data(), prefix.data(), initial.data(), any_exhausted ? write_statuses.data() : nullptr,
      elements_in};
  const auto exhausted_elements = [&] {
    if (!any_exhausted) { return std::uint64_t{0}; }
    return thrust::transform_reduce(on, first_position, first_position + count,
                                    is_exhausted_outcome<value_type>{outcome}, std::uint64_t{0},
                                    thrust::plus<std::uint64_t>());
  };
  if constexpr (sizeof(value_type) <= sizeof(std::uint32_t)) {
    if (count >= sorted_outcomes_min_elements) {
      // Outcomes in sorted order with their elements, sorted back by element into the buffers of the
      // order's entries and of the prefixes (neither read after the exhausted count), written out.
      auto packed = make_buffer<std::uint64_t>(backend, count);
      thrust::for_each(
          on, first_position, first_position + count,
          pack_outcome<value_type>{outcome, initial_values.data(), outputs, elements.data(), packed.data()});
      const std::uint64_t exhausted = exhausted_elements();
      static_assert(sizeof(key_transition) == sizeof(std::uint64_t));
      cub::DoubleBuffer<std::uint32_t> element_keys(elements.data(), groups.data());
      cub::DoubleBuffer<std::uint64_t> packed_values(packed.data(), reinterpret_cast<std::uint64_t*>(prefix.data()));
      const int element_bits = std::bit_width(batch.count - 1);
      std::size_t back_bytes = 0;
      WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, back_bytes, element_keys, packed_values, items, 0,
                                                       element_bits, backend.stream));
      if (back_bytes > temporary.size_bytes()) { temporary = make_buffer<std::byte>(backend, back_bytes); }
      WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temporary.data(), back_bytes, element_keys, packed_values, items,
                                                       0, element_bits, backend.stream));
      thrust::for_each(on, first_position, first_position + count,
                       unpack_outcome<value_type>{element_keys.Current(), packed_values.Current(), outputs});
      return exhausted;
    }
  }
  thrust::for_each(on, first_position, first_position + count,
                   fan_out_outcome<value_type>{outcome, initial_values.data(), outputs});
  return exhausted_elements();
}

template <class Slots, class Backend>
chain_totals summarize_chains(const Backend& backend, const slab_table_view<Slots>& table)
{
  auto totals = make_buffer<chain_totals>(backend, 1);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(totals.data(), 0, totals.size_bytes(), backend.stream));
  const unsigned blocks = warpdex::detail::one_wave_blocks(summarize_kernel<Slots>, block_threads,
                                                           std::uint64_t{table.bucket_count} * warp::size);
  summarize_kernel<Slots><<<blocks, block_threads, 0, backend.stream>>>(table, totals.data());
  WARPDEX_CHECK_LAUNCH("summarize_kernel");
  return copy_to_host(totals);
}

template <class Slots, class Backend>
std::uint64_t export_live(const Backend& backend, const slab_table_view<Slots>& table,
                          typename Slots::key_type* keys_out, typename Slots::value_type* values_out,
                          std::uint64_t capacity)
{
  auto written = make_buffer<unsigned long long>(backend, 1);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(written.data(), 0, written.size_bytes(), backend.stream));
  const unsigned blocks = warpdex::detail::one_wave_blocks(export_kernel<Slots>, block_threads,
                                                           std::uint64_t{table.bucket_count} * warp::size);
  export_kernel<Slots>
      <<<blocks, block_threads, 0, backend.stream>>>(table, keys_out, values_out, capacity, written.data());
  WARPDEX_CHECK_LAUNCH("export_kernel");
  return copy_to_host(written);
}

template <class Slots, class Backend>
void walk_lists(const Backend& backend, const slab_table_view<Slots>& table, const walk_arguments<Slots>& walk)
{
  walk_kernel<Slots><<<blocks_for(walk.count * warp::size), block_threads, 0, backend.stream>>>(table, walk);
  WARPDEX_CHECK_LAUNCH("walk_kernel");
}

template <class Backend>
std::uint64_t counts_to_offsets(const Backend& backend, std::uint64_t* counts, std::uint64_t queries)
{
  WARPDEX_CUDA_TRY(cudaMemsetAsync(counts + queries, 0, sizeof(std::uint64_t), backend.stream));
  thrust::exclusive_scan(thrust::cuda::par.on(backend.stream), counts, counts + queries + 1, counts);
  std::uint64_t total = 0;
  WARPDEX_CUDA_TRY(cudaMemcpyAsync(&total, counts + queries, sizeof(total), cudaMemcpyDeviceToHost, backend.stream));
  WARPDEX_CUDA_TRY(cudaStreamSynchronize(backend.stream));
  return total;
}

template <class Slots, class Backend>
void flush_table(const Backend& backend, const slab_table_view<Slots>& table)
{
  flush_kernel<Slots><<<blocks_for(table.bucket_count), block_threads, 0, backend.stream>>>(table);
  WARPDEX_CHECK_LAUNCH("flush_kernel");
  reset_swept_full(backend, table);  // the flush freed slabs without the allocator
}

}  // namespace warpdex::hash::detail
