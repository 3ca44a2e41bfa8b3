#pragma once
// The dpp family's workloads on generated data, shared by `warpdex dedup`, `warpdex hashfight` and the
// demo tour: each runs on the selected backend, times the library call warm (warpdex::median_ms, as the
// benchmark does) next to a baseline where one exists, and checks the answer against a std oracle on the
// host.

#include "measurement.hpp"

#include <warpdex/core/backend.hpp>
#include <warpdex/dpp/hashfight_map.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpdex::workloads {

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
/// hash fighting and by sorting, and the counts, each checked against a sorted oracle (a parallel
/// std sort of the keys on the host).
[[nodiscard]] std::vector<dpp_step> run_dedup_workload(backend_choice resolved, std::uint64_t n,
                                                       double duplicate_fraction, std::uint64_t seed,
                                                       const timing_options& timing = cli_timing);

/// A HashFight workload: its keys (a file's, or generated distinct ones) and the table's options.
struct hashfight_request {
  unsigned key_bytes = 4;        ///< 4 (k32/v32) or 8 (k64/v64)
  std::uint64_t generated = 0;   ///< distinct keys generated from options.seed, when `file_keys` is empty
  std::vector<char> file_keys;   ///< raw little-endian keys, a whole number of key_bytes (repeats: the largest value)
  dpp::hashfight_options options;
  bool check = true;  ///< every answer checked against the oracle
};

/// What the built table holds.
struct hashfight_totals {
  std::uint64_t keys = 0;  ///< keys built from, repeats counted
  std::uint64_t memory_bytes = 0;
  std::uint64_t rounds = 0;
};

/// hashfight_map of the request's keys: build, find of present keys, find of absent keys (keys outside the
/// generated set, or of another keyed permutation for a file's keys), each next to the open-addressing
/// table (32-bit keys) and checked against a sorted oracle when asked; `totals` receives the table's size.
[[nodiscard]] std::vector<dpp_step> run_hashfight_workload(backend_choice resolved, const hashfight_request& request,
                                                           const timing_options& timing = cli_timing,
                                                           hashfight_totals* totals = nullptr);

/// hashfight_map of n generated distinct keys (`key_bytes` 4 or 8) at `load_factor`: build, find of
/// present keys, find of absent keys, each checked against the sorted oracle. `memory_bytes` receives
/// the map's size.
[[nodiscard]] std::vector<dpp_step> run_hashfight_workload(backend_choice resolved, std::uint64_t n, unsigned key_bytes,
                                                           double load_factor, std::uint64_t seed,
                                                           std::uint64_t* memory_bytes = nullptr,
                                                           const timing_options& timing = cli_timing);

}  // namespace warpdex::workloads
