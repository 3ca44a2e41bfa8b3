#pragma once
// One measured operation as the demo tour and the family commands report it: warpdex's warm median time
// next to the baseline a user would otherwise call, timed the same way in the same run, and the check of
// the result. Setup (generation, allocation, transfers) and checking are timed apart and never folded
// into the rates.

#include <warpdex/core/timing.hpp>

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpdex::workloads {

struct measurement {
  std::string family;     ///< split, hash, lsm, search, grep, ...
  std::string operation;  ///< what ran, e.g. "multisplit keys, bits m=32"
  std::string backend;    ///< cuda or host
  std::uint64_t n = 0;    ///< elements processed per run (the rate's numerator)
  std::string unit;       ///< e.g. "Gkeys/s" (elements per second / 1e9)
  double median_ms = 0;
  std::string baseline;  ///< what the baseline ran; empty when there is none
  double baseline_ms = 0;
  bool checked = false;  ///< a check ran (false: "not checked", never "ok")
  bool passed = false;
  std::string check;  ///< what the check found
  double setup_seconds = 0;
  double check_seconds = 0;

  /// Throughput in `unit`: n / time / 1e9.
  [[nodiscard]] double value() const { return rate(median_ms); }
  [[nodiscard]] double baseline_value() const { return rate(baseline_ms); }
  /// warpdex's throughput over the baseline's (0 without a baseline).
  [[nodiscard]] double ratio() const { return baseline_ms > 0 && median_ms > 0 ? baseline_ms / median_ms : 0; }
  [[nodiscard]] bool ok() const { return checked && passed; }

 private:
  [[nodiscard]] double rate(double ms) const { return ms > 0 ? static_cast<double>(n) / (ms * 1e6) : 0; }
};

/// A measurement with its identity filled in (the rest comes from the run).
[[nodiscard]] measurement make_measurement(std::string family, std::string operation, std::string_view backend,
                                           std::uint64_t n, std::string unit);

/// Seconds since `started` on a steady clock: setup and check times.
[[nodiscard]] double seconds_since(std::chrono::steady_clock::time_point started);

/// The choice that names a backend type, for the baselines' names.
template <class Backend>
constexpr backend_choice choice_of()
{
  return Backend::name == "host" ? backend_choice::host : backend_choice::cuda;
}

/// The warm-up and repetitions the CLI times with unless told otherwise: the benchmark's defaults.
inline constexpr timing_options cli_timing{3, 15};

/// Prints one measurement as a family command reports it: the rate, the baseline and ratio, the check,
/// and the setup and check times apart.
void print_measurement(const measurement& m);

/// Prints the tour's table: operation, size, throughput, baseline, ratio, check.
void print_table(const std::vector<measurement>& rows);

/// The rows as JSON (the fields of `measurement` plus value, baseline_value and ratio).
[[nodiscard]] nlohmann::json to_json(const std::vector<measurement>& rows);

/// "2^26" for powers of two, else the decimal number.
[[nodiscard]] std::string size_text(std::uint64_t n);

}  // namespace warpdex::workloads
