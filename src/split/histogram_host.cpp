#include <warpdex/split/detail/histogram_bins.hpp>
#include <warpdex/split/histogram.hpp>

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace warpdex {
namespace {

/// Each thread counts its share of the samples, then the threads' counts are added into `totals` (m + 1
/// words: the bins' counts, then the samples not counted).
template <class Sample, class Bins>
void count_bins(std::span<const Sample> samples, const Bins& bins, std::span<std::uint64_t> totals)
{
  const std::uint32_t m = bins.bucket_count();
  detail::expect_histogram_counts(totals.size(), m);
  std::fill(totals.begin(), totals.end(), 0);
  const auto n = static_cast<std::int64_t>(samples.size());
#pragma omp parallel
  {
    std::vector<std::uint64_t> counts(m, 0);
    std::uint64_t not_counted = 0;
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint32_t bin = bins(samples[i]);
      if (bin < m) {
        ++counts[bin];
      } else {
        ++not_counted;
      }
    }
#pragma omp critical
    {
      for (std::uint32_t b = 0; b < m; ++b) { totals[b] += counts[b]; }
      totals[m] += not_counted;
    }
  }
}

}  // namespace

template <class Sample>
void histogram_even_async(const host&, std::span<const Sample> samples, std::uint32_t bins, Sample lower, Sample upper,
                          std::span<std::uint64_t> counts, histogram_algorithm /*one algorithm*/)
{
  count_bins(samples, detail::make_even_bins(bins, lower, upper), counts);
}

template <class Sample>
void histogram_range_async(const host&, std::span<const Sample> samples, std::span<const Sample> boundaries,
                           std::span<std::uint64_t> counts, histogram_algorithm /*algorithm: one on the host*/)
{
  detail::validate_splitters("histogram_range", boundaries);
  count_bins(samples, detail::make_range_bins(boundaries), counts);
}

template <class Sample>
histogram_result histogram_even(const host& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                                Sample upper, histogram_algorithm algorithm)
{
  std::vector<std::uint64_t> totals(std::uint64_t{bins} + 1);
  histogram_even_async(backend, samples, bins, lower, upper, std::span<std::uint64_t>(totals), algorithm);
  return detail::histogram_result_from(std::move(totals));
}

template <class Sample>
histogram_result histogram_range(const host& backend, std::span<const Sample> samples,
                                 std::span<const Sample> boundaries, histogram_algorithm algorithm)
{
  std::vector<std::uint64_t> totals(boundaries.size() < 2 ? 0 : boundaries.size());
  histogram_range_async(backend, samples, boundaries, std::span<std::uint64_t>(totals), algorithm);
  return detail::histogram_result_from(std::move(totals));
}

template histogram_result histogram_even<float>(const host&, std::span<const float>, std::uint32_t, float, float,
                                                histogram_algorithm);
template histogram_result histogram_even<std::uint32_t>(const host&, std::span<const std::uint32_t>, std::uint32_t,
                                                        std::uint32_t, std::uint32_t, histogram_algorithm);
template histogram_result histogram_range<float>(const host&, std::span<const float>, std::span<const float>,
                                                 histogram_algorithm);
template histogram_result histogram_range<std::uint32_t>(const host&, std::span<const std::uint32_t>,
                                                         std::span<const std::uint32_t>, histogram_algorithm);
template void histogram_even_async<float>(const host&, std::span<const float>, std::uint32_t, float, float,
                                          std::span<std::uint64_t>, histogram_algorithm);
template void histogram_even_async<std::uint32_t>(const host&, std::span<const std::uint32_t>, std::uint32_t,
                                                  std::uint32_t, std::uint32_t, std::span<std::uint64_t>,
                                                  histogram_algorithm);
template void histogram_range_async<float>(const host&, std::span<const float>, std::span<const float>,
                                           std::span<std::uint64_t>, histogram_algorithm);
template void histogram_range_async<std::uint32_t>(const host&, std::span<const std::uint32_t>,
                                                   std::span<const std::uint32_t>, std::span<std::uint64_t>,
                                                   histogram_algorithm);

}  // namespace warpdex
