#include <warpdex/core/error.hpp>
#include <warpdex/core/timing.hpp>

#include "timing_median.hpp"

#include <chrono>
#include <vector>

namespace warpdex {

double median_ms(const host& backend, const timing_options& options, const std::function<void()>& work,
                 const std::function<void()>& prepare)
{
  detail::check_timing_options(options);
  for (int i = 0; i < options.warmup; ++i) {
    if (prepare) { prepare(); }
    work();
  }
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(options.repetitions));
  for (int i = 0; i < options.repetitions; ++i) {
    if (prepare) { prepare(); }
    const auto started = std::chrono::steady_clock::now();
    work();
    backend.synchronize();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
  }
  return detail::median(std::move(times));
}

}  // namespace warpdex
