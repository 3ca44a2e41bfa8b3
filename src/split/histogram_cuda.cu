#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/launch.cuh>
#include <warpdex/core/warp.cuh>
#include <warpdex/split/detail/histogram_bins.hpp>
#include <warpdex/split/detail/counting.cuh>
#include <warpdex/split/detail/splitter_tree.cuh>
#include <warpdex/split/detail/sync_scratch.hpp>
#include <warpdex/split/histogram.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace warpdex {
namespace {

using detail::one_wave_blocks;

/// Threads per block; the grid strides over the samples (one wave), so every block adds its shared
/// counts to the global ones once.
constexpr int histogram_block_threads = 256;
/// Up to this many bins, counts (and range boundaries) live in shared memory: 16 KiB of counts and
/// 32 KiB of boundaries' tree (8191 nodes) at most, within the 48 KiB a launch gets without opting in.
constexpr std::uint32_t histogram_shared_max_bins = 4096;
/// The 16-byte loads each thread keeps in flight in the counting loops (count_vectorized).
constexpr int histogram_load_unroll = 4;

template <class Bins>
struct shared_bins {
  using type = Bins;
  __device__ static type load(const Bins& bins, void* /*shared*/) { return bins; }
  static constexpr std::size_t bytes(const Bins& /*bins*/) { return 0; }
};

/// Range boundaries are searched by every sample: a tree of them in shared memory first (splitter_tree.cuh).
template <class Sample>
struct shared_bins<detail::range_bins<Sample>> {
  using type = detail::range_bins<Sample, detail::splitter_tree<Sample>>;
  /// Call with the whole block; the caller synchronizes before use.
  __device__ static type load(const detail::range_bins<Sample>& bins, void* shared)
  {
    const auto& boundaries = bins.boundaries;
    return type{
        detail::build_splitter_tree(boundaries.splitters, boundaries.splitter_count, static_cast<Sample*>(shared))};
  }
  static std::size_t bytes(const detail::range_bins<Sample>& bins)
  {
    return detail::splitter_tree_nodes(bins.boundaries.splitter_count) * sizeof(Sample);
  }
};

/// The 16-byte groups of n samples: the work items of the counting loops' grids.
template <class Sample>
std::uint64_t vector_groups(std::uint64_t n)
{
  return (n * sizeof(Sample) + detail::vector_load_bytes - 1) / detail::vector_load_bytes;
}

/// Where a synchronous call wants its counts: `home`, m + 1 words of pinned host memory the kernel's last
/// block writes the counts (and the samples not counted) into, so the call waits once and copies nothing;
/// `blocks_done` counts the finished blocks (zeroed with the counts). Null `home`: the counts stay in
/// device memory (the `_async` calls).
struct counts_home {
  unsigned long long* home = nullptr;
  unsigned int* blocks_done = nullptr;
};

/// Called by every thread of every block once its block's counts are added to `counts` (m + 1 words):
/// the last block to finish copies them to `to.home` (block-collective). Each thread fences its own adds
/// before its block counts itself done, so the last block reads every block's adds from L2. No shared
/// memory of its own: the block-shared kernel's counts and range tree may take all 48 KiB a launch gets.
__device__ void move_counts_home(const unsigned long long* counts, std::uint32_t words, const counts_home& to)
{
  if (to.home == nullptr || !detail::finished_last_block(to.blocks_done)) { return; }
  for (std::uint32_t b = threadIdx.x; b < words; b += blockDim.x) {
    to.home[b] = *static_cast<const volatile unsigned long long*>(counts + b);
  }
  __threadfence_system();
}

/// Counts in shared memory when `in_shared` (bins <= histogram_shared_max_bins; samples read with 16-byte
/// loads, launched with counting_blocks()), else with global atomics, one sample per 4-byte load.
template <bool in_shared, class Sample, class Bins>
__global__ void __launch_bounds__(histogram_block_threads)
    histogram_kernel(const Sample* samples, std::uint64_t n, Bins bins, unsigned long long* counts,
                     unsigned long long* not_counted, counts_home to)
{
  extern __shared__ std::uint32_t shared[];  // [bins] counts, then whatever shared_bins keeps
  const std::uint32_t m = bins.bucket_count();
  const auto local = [&] {
    if constexpr (in_shared) {
      return shared_bins<Bins>::load(bins, shared + m);
    } else {
      return bins;
    }
  }();
  if constexpr (in_shared) {
    for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) { shared[b] = 0; }
    __syncthreads();
  }
  std::uint32_t outside = 0;
  if constexpr (in_shared) {  // one counter per bin: the block's replica
    outside = detail::count_vectorized<histogram_load_unroll>(samples, n, local, m, shared, 1);
  } else {
    const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
      const std::uint32_t bin = local(samples[i]);
      if (bin < m) {
        atomicAdd(&counts[bin], 1ULL);
      } else {
        ++outside;
      }
    }
  }
  if (outside != 0) { atomicAdd(not_counted, static_cast<unsigned long long>(outside)); }
  if constexpr (in_shared) {
    __syncthreads();
    for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
      if (shared[b] != 0) { atomicAdd(&counts[b], static_cast<unsigned long long>(shared[b])); }
    }
  }
  move_counts_home(counts, m + 1, to);
}

/// The privatized kernel: the most bins, the counters of one warp (bin b has min(32, this / m)
/// replicas, lane l adding to replica l mod replicas: up to 16 bins every lane has its own counter in
/// its own bank), and the 16-byte loads each thread keeps in flight.
constexpr std::uint32_t privatized_max_bins = 256;
constexpr std::uint32_t privatized_warp_counters = 512;
constexpr int histogram_warps = histogram_block_threads / warp::size;

/// Counts in per-warp replicated shared counters (m <= privatized_max_bins), reading the samples with
/// 16-byte loads (count_vectorized); each block adds its count of each bin to the global count once.
/// Launch with counting_blocks(): no 32-bit counter of a block can overflow.
template <class Sample, class Bins>
__global__ void __launch_bounds__(histogram_block_threads)
    histogram_privatized_kernel(const Sample* samples, std::uint64_t n, Bins bins, unsigned long long* counts,
                                unsigned long long* not_counted, counts_home to)
{
  __shared__ std::uint32_t counters[histogram_warps][privatized_warp_counters];
  extern __shared__ std::uint32_t bins_storage[];  // what shared_bins keeps (range boundaries)
  const std::uint32_t m = bins.bucket_count();
  const auto local = shared_bins<Bins>::load(bins, bins_storage);
  const std::uint32_t replicas = min(static_cast<std::uint32_t>(warp::size), privatized_warp_counters / m);
  for (std::uint32_t i = threadIdx.x; i < histogram_warps * privatized_warp_counters; i += histogram_block_threads) {
    counters[i / privatized_warp_counters][i % privatized_warp_counters] = 0;
  }
  __syncthreads();

  std::uint32_t* mine = counters[warp::warp_in_block()] + warp::lane_id() % replicas;
  std::uint32_t outside = detail::count_vectorized<histogram_load_unroll>(samples, n, local, m, mine, replicas);
  for (int offset = warp::size / 2; offset > 0; offset /= 2) { outside += warp::shfl_xor(outside, offset); }
  if (warp::lane_id() == 0 && outside != 0) { atomicAdd(not_counted, static_cast<unsigned long long>(outside)); }
  __syncthreads();
  detail::add_replicated_counts(counters, m, replicas, counts);
  move_counts_home(counts, m + 1, to);
}

/// Up to this many samples the automatic choice is the block-shared kernel at any bin count: measured on
/// an H200 (records 2026-11-29-nvidia-h200-small-calls-histogram-n2e{16,20}.json), its calls took 0.6-0.95
/// of the privatized kernel's at 2^16 and 2^20 samples for every m from 2 to 256 (the privatized blocks'
/// 16 KiB of counters to zero and sum outweigh their faster reads when each block counts a few thousand
/// samples); at 2^28 the privatized kernel reads 1.8x faster. Sizes between were not measured.
constexpr std::uint64_t block_shared_automatic_max_samples = std::uint64_t{1} << 20;

/// Launches the privatized kernel when it applies (m <= privatized_max_bins and warp_privatized, or
/// automatic past block_shared_automatic_max_samples; range bins keep their boundaries' tree beside the
/// counters) and says whether it did.
template <class Sample, class Bins>
bool launch_privatized(const cuda& backend, const Sample* samples, std::uint64_t n, const Bins& bins,
                       histogram_algorithm algorithm, unsigned long long* totals, const counts_home& to)
{
  const std::uint32_t m = bins.bucket_count();
  if (algorithm == histogram_algorithm::block_shared || m > privatized_max_bins) { return false; }
  if (algorithm == histogram_algorithm::automatic && n <= block_shared_automatic_max_samples) { return false; }
  const auto kernel = histogram_privatized_kernel<Sample, Bins>;
  const std::size_t shared_bytes = shared_bins<Bins>::bytes(bins);
  const unsigned blocks = detail::counting_blocks(
      one_wave_blocks(kernel, histogram_block_threads, vector_groups<Sample>(n), shared_bytes), n);
  kernel<<<blocks, histogram_block_threads, shared_bytes, backend.stream>>>(samples, n, bins, totals, totals + m, to);
  return true;
}

/// Counts into `counts` (m + 1 words of device memory: the bins, then the samples not counted): one
/// memset and one kernel on the backend's stream, nothing waiting. With `home` (m + 1 words of pinned
/// host memory; the synchronous calls), `counts` holds one word more, zeroed with them, where the kernel's
/// blocks count themselves done, and its last block writes the counts into `home`. Returns whether a
/// kernel did (not for no samples: the counts are zero).
template <class Sample, class Bins>
bool count_bins(const cuda& backend, std::span<const Sample> samples, const Bins& bins, std::span<std::uint64_t> counts,
                histogram_algorithm algorithm = histogram_algorithm::block_shared, std::uint64_t* home = nullptr)
{
  const std::uint32_t m = bins.bucket_count();
  detail::expect_histogram_counts(counts.size() - (home != nullptr ? 1 : 0), m);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(counts.data(), 0, counts.size_bytes(), backend.stream));
  auto* totals = reinterpret_cast<unsigned long long*>(counts.data());  // the same 64-bit words
  const std::uint64_t n = samples.size();
  if (n == 0) { return false; }
  static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
  const counts_home to = home == nullptr ? counts_home{}
                                         : counts_home{reinterpret_cast<unsigned long long*>(home),
                                                       reinterpret_cast<unsigned int*>(counts.data() + m + 1)};
  if (launch_privatized(backend, samples.data(), n, bins, algorithm, totals, to)) {
    // counted by the privatized kernel
  } else if (m <= histogram_shared_max_bins) {
    const std::size_t shared_bytes = m * sizeof(std::uint32_t) + shared_bins<Bins>::bytes(bins);
    const auto kernel = histogram_kernel<true, Sample, Bins>;
    const unsigned blocks = detail::counting_blocks(
        one_wave_blocks(kernel, histogram_block_threads, vector_groups<Sample>(n), shared_bytes), n);
    kernel<<<blocks, histogram_block_threads, shared_bytes, backend.stream>>>(samples.data(), n, bins, totals,
                                                                              totals + m, to);
  } else {
    const auto kernel = histogram_kernel<false, Sample, Bins>;
    kernel<<<one_wave_blocks(kernel, histogram_block_threads, n), histogram_block_threads, 0, backend.stream>>>(
        samples.data(), n, bins, totals, totals + m, to);
  }
  WARPDEX_CHECK_LAUNCH("histogram_kernel");
  return home != nullptr;
}

/// The synchronous calls: the asynchronous form into device words of a slot of the library's pool
/// (detail::sync_scratch: nothing allocated once it has grown), its kernel's last block writing the counts
/// into the slot's pinned host memory, one synchronization: a memset, a kernel and a wait (no samples:
/// the zeroed counts copied home instead).
template <class Count>
histogram_result counted_synchronously(const cuda& backend, std::uint32_t m, Count&& count)
{
  const std::uint64_t words = std::uint64_t{m} + 1;
  detail::sync_scratch scratch(backend);
  std::uint64_t* totals = scratch.device_words(words + 1);  // and the kernel's count of finished blocks
  std::uint64_t* home = scratch.host_words(words);
  if (!count(std::span<std::uint64_t>(totals, words + 1), home)) {
    detail::copy_device_bytes(home, totals, words * sizeof(std::uint64_t), backend.stream);
  }
  detail::synchronize(backend.stream);
  return histogram_result{std::vector<std::uint64_t>(home, home + m), home[m]};
}

}  // namespace

template <class Sample>
void histogram_even_async(const cuda& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                          Sample upper, std::span<std::uint64_t> counts, histogram_algorithm algorithm)
{
  count_bins(backend, samples, detail::make_even_bins(bins, lower, upper), counts, algorithm);
}

template <class Sample>
void histogram_range_async(const cuda& backend, std::span<const Sample> samples, std::span<const Sample> boundaries,
                           std::span<std::uint64_t> counts, histogram_algorithm algorithm)
{
  count_bins(backend, samples, detail::make_range_bins(boundaries), counts, algorithm);
}

template <class Sample>
histogram_result histogram_even(const cuda& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                                Sample upper, histogram_algorithm algorithm)
{
  const auto even = detail::make_even_bins(bins, lower, upper);  // checked before anything is allocated
  return counted_synchronously(backend, even.bucket_count(), [&](std::span<std::uint64_t> counts, std::uint64_t* home) {
    return count_bins(backend, samples, even, counts, algorithm, home);
  });
}

template <class Sample>
histogram_result histogram_range(const cuda& backend, std::span<const Sample> samples,
                                 std::span<const Sample> boundaries, histogram_algorithm algorithm)
{
  const auto range = detail::make_range_bins(boundaries);
  std::vector<Sample> host_boundaries(boundaries.size());
  detail::copy_device_bytes(host_boundaries.data(), boundaries.data(), boundaries.size_bytes(), backend.stream);
  detail::synchronize(backend.stream);
  detail::validate_splitters("histogram_range", std::span<const Sample>(host_boundaries));
  return counted_synchronously(backend, range.bucket_count(),
                               [&](std::span<std::uint64_t> counts, std::uint64_t* home) {
                                 return count_bins(backend, samples, range, counts, algorithm, home);
                               });
}

template histogram_result histogram_even<float>(const cuda&, std::span<const float>, std::uint32_t, float, float,
                                                histogram_algorithm);
template histogram_result histogram_even<std::uint32_t>(const cuda&, std::span<const std::uint32_t>, std::uint32_t,
                                                        std::uint32_t, std::uint32_t, histogram_algorithm);
template histogram_result histogram_range<float>(const cuda&, std::span<const float>, std::span<const float>,
                                                 histogram_algorithm);
template histogram_result histogram_range<std::uint32_t>(const cuda&, std::span<const std::uint32_t>,
                                                         std::span<const std::uint32_t>, histogram_algorithm);

template void histogram_even_async<float>(const cuda&, std::span<const float>, std::uint32_t, float, float,
                                          std::span<std::uint64_t>, histogram_algorithm);
template void histogram_even_async<std::uint32_t>(const cuda&, std::span<const std::uint32_t>, std::uint32_t,
                                                  std::uint32_t, std::uint32_t, std::span<std::uint64_t>,
                                                  histogram_algorithm);
template void histogram_range_async<float>(const cuda&, std::span<const float>, std::span<const float>,
                                           std::span<std::uint64_t>, histogram_algorithm);
template void histogram_range_async<std::uint32_t>(const cuda&, std::span<const std::uint32_t>,
                                                   std::span<const std::uint32_t>, std::span<std::uint64_t>,
                                                   histogram_algorithm);
}  // namespace warpdex
