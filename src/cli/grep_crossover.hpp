#pragma once
// grep's --backend auto: which backend a run goes to, from a crossover measured as processes; grep.cpp decides
// with it and `warpdex info` prints it.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

namespace warpdex::cli {

/// --backend auto's choice for grep, from a crossover measured on an H200 machine with 16 cores at ccb98b0
/// (bench/results/2026-11-28-nvidia-h200-grep-pattern-sets.json, `grep -c -f` as processes on 1.2 GB):
/// the cuda backend's process took about 0.56 s whatever the pattern count (CUDA's start and the
/// pipeline), the host backend's (Hyperscan on 16 threads) 0.18, 0.37, 0.57, 1.19 and 5.19 s per GB for
/// 10, 100, 10^3, 10^4 and 10^5 patterns. The host's seconds per GB are interpolated in log10 of the count
/// (extrapolated past 10^5, flat below 10) and scaled by 16 over this machine's cores (at most 16).
struct grep_crossover {
  static constexpr double cuda_seconds = 0.56;
  static constexpr double cuda_seconds_per_gb = 0.05;
  static constexpr std::array<double, 5> host_seconds_per_gb = {0.18, 0.37, 0.57, 1.19, 5.19};  // 10^1 .. 10^5

  [[nodiscard]] static double host_seconds(std::uint64_t patterns, std::uint64_t bytes)
  {
    const double decade = std::max(1.0, std::log10(static_cast<double>(std::max<std::uint64_t>(patterns, 1))));
    const auto low = std::min<std::size_t>(static_cast<std::size_t>(decade), 4) - 1;
    const double per_gb = host_seconds_per_gb[low] * std::pow(host_seconds_per_gb[low + 1] / host_seconds_per_gb[low],
                                                              decade - 1.0 - static_cast<double>(low));
    const double cores = std::clamp(static_cast<double>(std::thread::hardware_concurrency()), 1.0, 16.0);
    return per_gb * (16.0 / cores) * static_cast<double>(bytes) * 1e-9;
  }

  [[nodiscard]] static double cuda_seconds_for(std::uint64_t bytes)
  {
    return cuda_seconds + cuda_seconds_per_gb * static_cast<double>(bytes) * 1e-9;
  }
};

/// The smallest pattern count from which --backend auto sends a `bytes`-byte file to the GPU on this
/// machine (1 when it always does).
[[nodiscard]] inline std::uint64_t grep_crossover_patterns(std::uint64_t bytes)
{
  std::uint64_t patterns = 1;
  while (patterns < 100'000'000 &&
         grep_crossover::host_seconds(patterns, bytes) < grep_crossover::cuda_seconds_for(bytes)) {
    patterns += std::max<std::uint64_t>(1, patterns / 100);
  }
  return patterns;
}

/// What `warpdex info` says of grep's --backend auto on a machine with a GPU.
[[nodiscard]] inline std::string grep_crossover_text()
{
  const auto from = [](std::uint64_t bytes) {
    const std::uint64_t patterns = grep_crossover_patterns(bytes);
    return patterns <= 1 ? std::string("at every pattern count") : "from " + std::to_string(patterns) + " patterns";
  };
  const unsigned cores = std::clamp(std::thread::hardware_concurrency(), 1U, 16U);
  char text[512];
  std::snprintf(text, sizeof text,
                "grep --backend auto: the GPU for a 1 GB file %s, for 4 GB %s, else the host (a GPU process ~%.2f s "
                "+ %.2f s/GB; the host's seconds per GB by pattern count, measured on 16 cores, scaled to %u); "
                "several patterns with -o/-n/-b/--color: the host",
                from(1'000'000'000ULL).c_str(), from(4'000'000'000ULL).c_str(), grep_crossover::cuda_seconds,
                grep_crossover::cuda_seconds_per_gb, cores);
  return text;
}

}  // namespace warpdex::cli
