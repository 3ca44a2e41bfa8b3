#pragma once
// The dpp family's workloads on generated data, shared by `warpdex dedup`, `warpdex hashfight` and the
// demo tour: each runs on the selected backend, times the library call (synchronized), and checks the
// answer against a std oracle on the host.

#include <warpdex/core/backend.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpdex::cli {

/// One timed, checked step of a dpp workload.
struct dpp_step {
  std::string what;    ///< e.g. "dedup once (hash)"
  double seconds = 0;  ///< the library call alone
  std::uint64_t elements = 0;
  std::string check;  ///< what the check compared, in words
  bool passed = false;
};

/// Duplicate search of n generated uint32 keys with `duplicate_fraction` repeats: the once-indicator by
/// hash fighting and by sorting, and the counts, each checked against std::unordered_map.
[[nodiscard]] std::vector<dpp_step> run_dedup_workload(backend_choice resolved, std::uint64_t n,
                                                       double duplicate_fraction, std::uint64_t seed);

/// hashfight_map of n generated distinct keys (`key_bytes` 4 or 8) at `load_factor`: build, find of
/// present keys, find of absent keys, each checked against std::unordered_map. `memory_bytes` receives
/// the map's size.
[[nodiscard]] std::vector<dpp_step> run_hashfight_workload(backend_choice resolved, std::uint64_t n, unsigned key_bytes,
                                                           double load_factor, std::uint64_t seed,
                                                           std::uint64_t* memory_bytes = nullptr);

}  // namespace warpdex::cli
