#pragma once
// What both backends' median_ms share: the checks of the options and the median itself.

#include <warpdex/core/error.hpp>
#include <warpdex/core/timing.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace warpdex::detail {

inline void check_timing_options(const timing_options& options)
{
  WARPDEX_EXPECTS(options.repetitions >= 1,
                  "median_ms: at least one timed run is needed, got " + std::to_string(options.repetitions));
  WARPDEX_EXPECTS(options.warmup >= 0,
                  "median_ms: warm-up runs cannot be negative, got " + std::to_string(options.warmup));
}

/// The median; of an even count, the mean of the middle two.
inline double median(std::vector<double> values)
{
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

}  // namespace warpdex::detail
