#pragma once
// The benchmark harness: CUDA-event timing, rows of the result record, and the registry through which
// each family adds its benchmarks. Shared by `warpdex-bench` and `warpdex bench`.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/timing.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::bench {

/// One line of the result record (ARCHITECTURE.md, "Benchmarks and the result record").
struct row {
  std::string name;
  std::uint64_t n = 0;
  double value = 0;  ///< throughput in `unit`
  std::string unit;
  double median_ms = 0;
  std::string baseline;                  ///< what `baseline_value` measured (empty when this row is a baseline)
  std::optional<double> baseline_value;  ///< in `unit`, measured in this process on the same data
  /// The fewest bytes per element the operation must move through device memory; with the measured copy
  /// bandwidth this gives `sol_fraction`, the fraction of the speed of light.
  double sol_bytes_per_element = 0;
  bool verified = false;  ///< the benchmark checked its own output
  /// Other figures of the row (e.g. a segmentation's accuracy), written as the object "metrics".
  std::vector<std::pair<std::string, double>> metrics;
};

struct options {
  std::string filter = ".*";       ///< ECMAScript regex; a benchmark runs the rows whose names match
  std::uint32_t size_log2 = 28;    ///< n = 2^size_log2 elements for the large-input rows
  int repetitions = 15;            ///< timed runs per row (the median is reported; at least 10)
  int warmup = 3;                  ///< untimed runs before them
  std::string output;              ///< record file; empty: bench/results/<date>-<gpu>.json
  std::string commit = "unknown";  ///< the source commit the binary was built from
  bool write_record = true;
};

/// Adds the options above to a command (`warpdex-bench` or `warpdex bench`).
void add_options(CLI::App& app, options& opts);

/// What a benchmark sees: the options, the GPU, the measured copy bandwidth, and where rows go.
class context {
 public:
  context(const options& opts, device_info device, double copy_bandwidth_GBps);

  [[nodiscard]] const options& opts() const { return opts_; }
  [[nodiscard]] const device_info& device() const { return device_; }
  [[nodiscard]] double copy_bandwidth_GBps() const { return copy_bandwidth_GBps_; }
  [[nodiscard]] std::uint64_t n() const { return std::uint64_t{1} << opts_.size_log2; }
  /// The warm-up and repetitions of every timed row (warpdex::median_ms, shared with the CLI).
  [[nodiscard]] timing_options timing() const { return {opts_.warmup, opts_.repetitions}; }

  /// Whether a row of this name is selected by the filter (benchmarks skip work for unselected rows).
  [[nodiscard]] bool selected(const std::string& row_name) const;

  /// Records a row and prints it.
  void add(row result);
  [[nodiscard]] const std::vector<row>& rows() const { return rows_; }

  /// Median time in milliseconds of `repetitions` runs of `work` on `stream` after `warmup` runs, each
  /// run timed alone with CUDA events (warpdex::median_ms).
  [[nodiscard]] double median_ms(stream_t stream, const std::function<void()>& work) const;
  /// The same on the default stream with an untimed `prepare` before every run (e.g. rebuilding the
  /// table that `work` changes).
  [[nodiscard]] double median_prepared_ms(const std::function<void()>& prepare,
                                          const std::function<void()>& work) const;

 private:
  options opts_;
  device_info device_;
  double copy_bandwidth_GBps_;
  std::regex filter_;
  std::vector<row> rows_;
};

/// Device-to-device copy bandwidth in GB/s (10^9 bytes), counting bytes read plus bytes written,
/// measured with cudaMemcpyAsync over `bytes` bytes: the speed of light of a memory-bound operation.
[[nodiscard]] double measure_copy_bandwidth_GBps(std::size_t bytes = std::size_t{1} << 30, int repetitions = 10);

/// A family's benchmarks: a function that adds rows to the context.
struct benchmark {
  std::string name;
  std::function<void(context&)> run;
};

/// All benchmarks in the order they run.
[[nodiscard]] const std::vector<benchmark>& registry();

/// Runs the selected benchmarks and writes the record; returns the process exit code.
int run(const options& opts);

}  // namespace warpdex::bench
