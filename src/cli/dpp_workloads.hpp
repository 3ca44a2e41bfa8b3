#pragma once
// The dpp family's workloads on generated data, shared by `warpdex dedup`, `warpdex hashfight` and the
// demo tour: each runs on the selected backend, times the library call warm (warpdex::median_ms, as the
// benchmark does) next to a baseline where one exists, and checks the answer against a std oracle on the
// host.

#include "measurement.hpp"

#include <warpdex/core/backend.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpdex::cli {

/// One timed, checked step of a dpp workload.
struct dpp_step {
  std::string what;    ///< e.g. "dedup once (hash)"
  double seconds = 0;  ///< the library call alone: the median of warm runs
  std::uint64_t elements = 0;
  std::string check;  ///< what the check compared, in words
  bool passed = false;
  std::string baseline;         ///< what a user would call instead; empty when none is measured
  double baseline_seconds = 0;  ///< its median time, in the same run on the same data
};

/// The steps as rows of the demo tour's table (family "dpp").
[[nodiscard]] std::vector<measurement> as_measurements(const std::vector<dpp_step>& steps, const std::string& prefix,
                                                       backend_choice resolved);

/// Duplicate search of n generated uint32 keys with `duplicate_fraction` repeats: the once-indicator by
/// hash fighting and by sorting, and the counts, each checked against std::unordered_map.
[[nodiscard]] std::vector<dpp_step> run_dedup_workload(backend_choice resolved, std::uint64_t n,
                                                       double duplicate_fraction, std::uint64_t seed,
                                                       const timing_options& timing = cli_timing);

/// hashfight_map of n generated distinct keys (`key_bytes` 4 or 8) at `load_factor`: build, find of
/// present keys, find of absent keys, each checked against std::unordered_map. `memory_bytes` receives
/// the map's size.
[[nodiscard]] std::vector<dpp_step> run_hashfight_workload(backend_choice resolved, std::uint64_t n, unsigned key_bytes,
                                                           double load_factor, std::uint64_t seed,
                                                           std::uint64_t* memory_bytes = nullptr,
                                                           const timing_options& timing = cli_timing);

}  // namespace warpdex::cli
