#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/launch.cuh>
#include <warpdex/split/detail/histogram_bins.hpp>
#include <warpdex/split/histogram.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace warpdex {
namespace {

using detail::one_wave_blocks;

/// Threads per block; the grid strides over the samples (one wave), so every block adds its shared
/// counts to the global ones once.
constexpr int histogram_block_threads = 256;
/// Up to this many bins, counts (and range boundaries) live in shared memory: 16 KiB each at most.
constexpr std::uint32_t histogram_shared_max_bins = 4096;

template <class Bins>
struct shared_bins {
  __device__ static Bins load(const Bins& bins, void* /*shared*/) { return bins; }
  static constexpr std::size_t bytes(const Bins& /*bins*/) { return 0; }
};

/// Range boundaries are binary-searched by every sample: copy them to shared memory first.
template <class Sample>
struct shared_bins<detail::range_bins<Sample>> {
  using bins_type = detail::range_bins<Sample>;
  __device__ static bins_type load(const bins_type& bins, void* shared)
  {
    auto* boundaries = static_cast<Sample*>(shared);
    for (std::uint32_t i = threadIdx.x; i < bins.boundaries.splitter_count; i += blockDim.x) {
      boundaries[i] = bins.boundaries.splitters[i];
    }
    return bins_type{splitter_buckets<Sample>{boundaries, bins.boundaries.splitter_count}};
  }
  static std::size_t bytes(const bins_type& bins) { return bins.boundaries.splitter_count * sizeof(Sample); }
};

/// Counts in shared memory when `in_shared` (bins <= histogram_shared_max_bins), else global atomics.
template <bool in_shared, class Sample, class Bins>
__global__ void __launch_bounds__(histogram_block_threads)
    histogram_kernel(const Sample* samples, std::uint64_t n, Bins bins, unsigned long long* counts,
                     unsigned long long* not_counted)
{
  extern __shared__ std::uint32_t shared[];  // [bins] counts, then whatever shared_bins keeps
  const std::uint32_t m = bins.bucket_count();
  const Bins local = in_shared ? shared_bins<Bins>::load(bins, shared + m) : bins;
  if constexpr (in_shared) {
    for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) { shared[b] = 0; }
    __syncthreads();
  }
  std::uint32_t outside = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint32_t bin = local(samples[i]);
    if (bin >= m) {
      ++outside;
    } else if constexpr (in_shared) {
      atomicAdd(&shared[bin], 1U);
    } else {
      atomicAdd(&counts[bin], 1ULL);
    }
  }
  if (outside != 0) { atomicAdd(not_counted, static_cast<unsigned long long>(outside)); }
  if constexpr (in_shared) {
    __syncthreads();
    for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
      if (shared[b] != 0) { atomicAdd(&counts[b], static_cast<unsigned long long>(shared[b])); }
    }
  }
}

template <class Sample, class Bins>
histogram_result count_bins(const cuda& backend, std::span<const Sample> samples, const Bins& bins)
{
  const std::uint32_t m = bins.bucket_count();
  auto totals = make_buffer<unsigned long long>(backend, m + 1);  // the bins' counts, then not counted
  WARPDEX_CUDA_TRY(cudaMemsetAsync(totals.data(), 0, totals.size_bytes(), backend.stream));
  const std::uint64_t n = samples.size();
  if (n > 0) {
    if (m <= histogram_shared_max_bins) {
      const std::size_t shared_bytes = m * sizeof(std::uint32_t) + shared_bins<Bins>::bytes(bins);
      const auto kernel = histogram_kernel<true, Sample, Bins>;
      kernel<<<one_wave_blocks(kernel, histogram_block_threads, n, shared_bytes), histogram_block_threads, shared_bytes,
               backend.stream>>>(samples.data(), n, bins, totals.data(), totals.data() + m);
    } else {
      const auto kernel = histogram_kernel<false, Sample, Bins>;
      kernel<<<one_wave_blocks(kernel, histogram_block_threads, n), histogram_block_threads, 0, backend.stream>>>(
          samples.data(), n, bins, totals.data(), totals.data() + m);
    }
    WARPDEX_CHECK_LAUNCH("histogram_kernel");
  }
  const auto host_totals = totals.to_vector();
  return histogram_result{std::vector<std::uint64_t>(host_totals.begin(), host_totals.end() - 1), host_totals.back()};
}

}  // namespace

template <class Sample>
histogram_result histogram_even(const cuda& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                                Sample upper)
{
  return count_bins(backend, samples, detail::make_even_bins(bins, lower, upper));
}

template <class Sample>
histogram_result histogram_range(const cuda& backend, std::span<const Sample> samples,
                                 std::span<const Sample> boundaries)
{
  WARPDEX_EXPECTS(boundaries.size() >= 2, "histogram_range: m bins need m + 1 >= 2 boundaries");
  std::vector<Sample> host_boundaries(boundaries.size());
  detail::copy_device_bytes(host_boundaries.data(), boundaries.data(), boundaries.size_bytes(), backend.stream);
  detail::synchronize(backend.stream);
  detail::validate_splitters("histogram_range", std::span<const Sample>(host_boundaries));
  const detail::range_bins<Sample> bins{
      splitter_buckets<Sample>{boundaries.data(), static_cast<std::uint32_t>(boundaries.size())}};
  return count_bins(backend, samples, bins);
}

template histogram_result histogram_even<float>(const cuda&, std::span<const float>, std::uint32_t, float, float);
template histogram_result histogram_even<std::uint32_t>(const cuda&, std::span<const std::uint32_t>, std::uint32_t,
                                                        std::uint32_t, std::uint32_t);
template histogram_result histogram_range<float>(const cuda&, std::span<const float>, std::span<const float>);
template histogram_result histogram_range<std::uint32_t>(const cuda&, std::span<const std::uint32_t>,
                                                         std::span<const std::uint32_t>);

}  // namespace warpdex
