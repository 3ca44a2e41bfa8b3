#include "measurement.hpp"

#include <nlohmann/json.hpp>

#include <bit>
#include <cstdio>
#include <utility>

namespace warpdex::workloads {

namespace {

/// A rate in `unit` ("G.../s") as printed: below 1, in M.../s, so that host rates keep their digits.
std::pair<double, std::string> readable(double value, const std::string& unit)
{
  if (value >= 1 || value == 0 || unit.empty() || unit[0] != 'G') { return {value, unit}; }
  return {value * 1e3, "M" + unit.substr(1)};
}

}  // namespace

measurement make_measurement(std::string family, std::string operation, std::string_view backend, std::uint64_t n,
                             std::string unit)
{
  measurement m;
  m.family = std::move(family);
  m.operation = std::move(operation);
  m.backend = std::string(backend);
  m.n = n;
  m.unit = std::move(unit);
  return m;
}

double seconds_since(std::chrono::steady_clock::time_point started)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

std::string size_text(std::uint64_t n)
{
  if (n > 0 && std::has_single_bit(n)) { return "2^" + std::to_string(std::countr_zero(n)); }
  return std::to_string(n);
}

void print_measurement(const measurement& m)
{
  const auto [value, unit] = readable(m.value(), m.unit);
  std::printf("  %-40s %12.3f %s  (median of %d runs after %d warm-up, %.3f ms)\n", ("warpdex " + m.operation).c_str(),
              value, unit.c_str(), cli_timing.repetitions, cli_timing.warmup, m.median_ms);
  if (!m.baseline.empty()) {
    const auto [baseline_value, baseline_unit] = readable(m.baseline_value(), m.unit);
    std::printf("  %-40s %12.3f %s  (%.3f ms)\n", ("baseline: " + m.baseline).c_str(), baseline_value,
                baseline_unit.c_str(), m.baseline_ms);
    std::printf("  ratio to the baseline: %.2fx\n", m.ratio());
  }
  std::printf("  check: %s%s%s\n", m.checked ? (m.passed ? "ok" : "FAILED") : "not checked",
              m.check.empty() ? "" : ": ", m.check.c_str());
  std::printf("  untimed: setup (generation, allocation, transfers) %.3f s, check %.3f s\n", m.setup_seconds,
              m.check_seconds);
}

void print_table(const std::vector<measurement>& rows)
{
  std::printf("\n%-8s %-48s %-6s %10s %-10s %10s %-58s %7s  %s\n", "family", "operation", "size", "rate", "unit",
              "baseline", "baseline is", "ratio", "check");
  for (const measurement& m : rows) {
    const auto [value, unit] = readable(m.value(), m.unit);
    std::string baseline_rate = "-";
    std::string ratio = "-";
    if (m.baseline_ms > 0) {
      char text[32];
      std::snprintf(text, sizeof text, "%.3f", m.baseline_value() * (unit == m.unit ? 1 : 1e3));
      baseline_rate = text;
      std::snprintf(text, sizeof text, "%.2fx", m.ratio());
      ratio = text;
    }
    std::string baseline = m.baseline.empty() ? "-" : m.baseline;
    if (baseline.size() > 58) { baseline = baseline.substr(0, 55) + "..."; }
    std::printf("%-8s %-48s %-6s %10.3f %-10s %10s %-58s %7s  %s\n", m.family.c_str(), m.operation.c_str(),
                size_text(m.n).c_str(), value, unit.c_str(), baseline_rate.c_str(), baseline.c_str(), ratio.c_str(),
                m.checked ? (m.passed ? "ok" : "FAILED") : "not checked");
  }
}

nlohmann::json to_json(const std::vector<measurement>& rows)
{
  nlohmann::json result = nlohmann::json::array();
  for (const measurement& m : rows) {
    nlohmann::json j;
    j["family"] = m.family;
    j["operation"] = m.operation;
    j["backend"] = m.backend;
    j["n"] = m.n;
    j["value"] = m.value();
    j["unit"] = m.unit;
    j["median_ms"] = m.median_ms;
    j["baseline"] = m.baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.baseline);
    j["baseline_value"] = m.baseline_ms > 0 ? nlohmann::json(m.baseline_value()) : nlohmann::json(nullptr);
    j["ratio"] = m.baseline_ms > 0 ? nlohmann::json(m.ratio()) : nlohmann::json(nullptr);
    j["checked"] = m.checked;
    j["passed"] = m.passed;
    j["check"] = m.check;
    j["setup_seconds"] = m.setup_seconds;
    j["check_seconds"] = m.check_seconds;
    result.push_back(std::move(j));
  }
  return result;
}

}  // namespace warpdex::workloads
