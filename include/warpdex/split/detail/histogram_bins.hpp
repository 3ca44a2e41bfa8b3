#pragma once
// The bin identifiers of the histograms (host and device): a sample outside every bin, or NaN, gets an
// id >= m, which the counting pass reports instead of counting.

#include <warpdex/core/config.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/split/bucket_identifiers.hpp>
#include <warpdex/split/detail/multisplit_validate.hpp>
#include <warpdex/split/histogram.hpp>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include <type_traits>

namespace warpdex::detail {

/// An id no bin has: samples outside [lower, upper) and NaN.
inline constexpr std::uint32_t no_bin = 0xffffffffU;

template <class Sample>
struct even_bins {
  Sample lower;
  Sample upper;
  std::uint32_t count;
  /// Float samples: bins per unit, so a sample needs one subtraction and one multiplication.
  float scale;

  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t bucket_count() const { return count; }
  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t operator()(Sample x) const
  {
    if (!(x >= lower && x < upper)) { return no_bin; }  // false for NaN too
    if constexpr (std::is_floating_point_v<Sample>) {
      const auto bin = static_cast<std::uint32_t>((x - lower) * scale);
      return bin < count ? bin : count - 1;  // rounding may reach m just below `upper`
    } else {
      return static_cast<std::uint32_t>(std::uint64_t{x - lower} * count / (std::uint64_t{upper} - lower));
    }
  }
};

/// Range bins: the upper bound among the m + 1 boundaries, minus one (below the first: wraps to no_bin).
/// `Boundaries` searches them: splitter_buckets (sorted, in the backend's memory) or, in a block of the
/// cuda kernels, a splitter_tree in shared memory.
template <class Sample, class Boundaries = splitter_buckets<Sample>>
struct range_bins {
  Boundaries boundaries;

  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t bucket_count() const { return boundaries.splitter_count - 1; }
  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t operator()(Sample x) const { return boundaries(x) - 1; }
  /// The bins of N samples at once, where the boundaries' search does N at once (splitter_tree).
  template <int N>
  requires requires(const Boundaries& b, const Sample (&x)[N], std::uint32_t (&ids)[N]) { b.identify_all(x, ids); }
  WARPDEX_HOST_DEVICE void identify_all(const Sample (&samples)[N], std::uint32_t (&bins)[N]) const
  {
    boundaries.identify_all(samples, bins);
    for (std::uint32_t& bin : bins) { bin -= 1; }  // below the first boundary: wraps to no_bin
  }
};

template <class Sample>
even_bins<Sample> make_even_bins(std::uint32_t bins, Sample lower, Sample upper)
{
  WARPDEX_EXPECTS(bins >= 1, "histogram_even: at least one bin");
  if constexpr (std::is_floating_point_v<Sample>) {
    WARPDEX_EXPECTS(std::isfinite(lower) && std::isfinite(upper),
                    "histogram_even: lower and upper must be finite numbers");
  }
  WARPDEX_EXPECTS(lower < upper, "histogram_even: lower (" + std::to_string(lower) + ") must be below upper (" +
                                     std::to_string(upper) + ")");
  const float scale = static_cast<float>(static_cast<double>(bins) / (static_cast<double>(upper) - lower));
  return even_bins<Sample>{lower, upper, bins, scale};
}

/// Range bins over m + 1 boundaries (in the backend's memory); throws unless there are at least 2.
template <class Sample>
range_bins<Sample> make_range_bins(std::span<const Sample> boundaries)
{
  WARPDEX_EXPECTS(boundaries.size() >= 2, "histogram_range: m bins need m + 1 >= 2 boundaries");
  return range_bins<Sample>{splitter_buckets<Sample>{boundaries.data(), static_cast<std::uint32_t>(boundaries.size())}};
}

/// The synchronous calls' result from the m + 1 counts of the asynchronous form.
inline histogram_result histogram_result_from(std::vector<std::uint64_t> totals)
{
  const std::uint64_t not_counted = totals.back();
  totals.pop_back();
  return histogram_result{std::move(totals), not_counted};
}

/// Throws unless an asynchronous histogram's counts hold m + 1 words.
inline void expect_histogram_counts(std::uint64_t words, std::uint32_t m)
{
  WARPDEX_EXPECTS(words == std::uint64_t{m} + 1, "histogram: counts holds " + std::to_string(words) +
                                                     " words, bins + 1 = " + std::to_string(std::uint64_t{m} + 1) +
                                                     " needed (the last one receives the samples not counted)");
}

}  // namespace warpdex::detail
