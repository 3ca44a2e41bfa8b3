#pragma once
// A throughput row of the result record next to its baseline (the hash-table and dpp benchmarks).

#include "harness.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace warpdex::bench {

/// n elements in `ms` (value in `unit`, i.e. 10^9 elements per second), next to `baseline` that took
/// `baseline_ms` on the same data in the same run.
inline row throughput_row(std::string name, std::uint64_t n, double ms, std::string unit, std::string baseline,
                          double baseline_ms, double sol_bytes_per_element, bool verified)
{
  row r;
  r.name = std::move(name);
  r.n = n;
  r.median_ms = ms;
  r.value = static_cast<double>(n) / (ms * 1e6);
  r.unit = std::move(unit);
  r.baseline = std::move(baseline);
  r.baseline_value = static_cast<double>(n) / (baseline_ms * 1e6);
  r.sol_bytes_per_element = sol_bytes_per_element;
  r.verified = verified;
  return r;
}

}  // namespace warpdex::bench
