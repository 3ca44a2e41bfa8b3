#include <warpdex/split/detail/histogram_bins.hpp>
#include <warpdex/split/histogram.hpp>

#include <omp.h>

#include <cstdint>
#include <span>
#include <vector>

namespace warpdex {
namespace {

/// Each thread counts its share of the samples, then the threads' counts are added.
template <class Sample, class Bins>
histogram_result count_bins(std::span<const Sample> samples, const Bins& bins)
{
  const std::uint32_t m = bins.bucket_count();
  histogram_result result{std::vector<std::uint64_t>(m, 0), 0};
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
      for (std::uint32_t b = 0; b < m; ++b) { result.counts[b] += counts[b]; }
      result.not_counted += not_counted;
    }
  }
  return result;
}

}  // namespace

template <class Sample>
histogram_result histogram_even(const host&, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                                Sample upper, histogram_algorithm /*one algorithm on the host*/)
{
  return count_bins(samples, detail::make_even_bins(bins, lower, upper));
}

template <class Sample>
histogram_result histogram_range(const host&, std::span<const Sample> samples, std::span<const Sample> boundaries)
{
  WARPDEX_EXPECTS(boundaries.size() >= 2, "histogram_range: m bins need m + 1 >= 2 boundaries");
  detail::validate_splitters("histogram_range", boundaries);
  const detail::range_bins<Sample> bins{
      splitter_buckets<Sample>{boundaries.data(), static_cast<std::uint32_t>(boundaries.size())}};
  return count_bins(samples, bins);
}

template histogram_result histogram_even<float>(const host&, std::span<const float>, std::uint32_t, float, float,
                                                histogram_algorithm);
template histogram_result histogram_even<std::uint32_t>(const host&, std::span<const std::uint32_t>, std::uint32_t,
                                                        std::uint32_t, std::uint32_t, histogram_algorithm);
template histogram_result histogram_range<float>(const host&, std::span<const float>, std::span<const float>);
template histogram_result histogram_range<std::uint32_t>(const host&, std::span<const std::uint32_t>,
                                                         std::span<const std::uint32_t>);

}  // namespace warpdex
