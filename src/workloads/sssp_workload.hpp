#pragma once
/// @file The SSSP workload shared by `warpdex sssp`, the demo tour and the benchmarks: a graph named by a
/// generator spec or a file, shortest paths on a backend, timed, with the result checked against a
/// sequential Dijkstra on the host.
///
/// ```
/// const auto report = warpdex::graph::run_sssp_workload(warpdex::backend_choice::cuda, {.graph = "rmat:20"});
/// std::printf("%s\n", report.summary().c_str());  // reached vertices, max distance, time, GTEPS, check
/// ```

#include <warpdex/core/backend.hpp>
#include <warpdex/graph/graph_spec.hpp>
#include <warpdex/graph/sssp.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpdex::graph {

struct sssp_workload_options {
  std::string graph = "rmat:16";
  /// The source's id as the file writes it (1-based for DIMACS and Matrix Market); none: the graph's first
  /// vertex (1 in a DIMACS file).
  std::optional<std::uint64_t> source{};
  sssp_options sssp{};
  weight_distribution weights{};
  bool float_weights = false;  ///< float instead of int32 weights
  bool verify = true;          ///< compare with sequential_dijkstra on the host
  /// Timed runs after one warm-up; the report gives the median.
  int repetitions = 3;
  std::function<void(double)> progress{};  ///< file reading progress
  /// When not empty: write the distances there, one line `ID DISTANCE` per vertex (the file's ids;
  /// `inf` for unreachable vertices).
  std::string output{};
};

struct sssp_workload_report {
  std::string graph;
  std::string backend;
  std::uint64_t source = 0;  ///< the source's id as the file writes it
  std::uint64_t vertices = 0;
  std::uint64_t arcs = 0;  ///< arcs of the graph (an undirected edge counts twice)
  bool directed = true;
  sssp_statistics statistics;  ///< of the median run
  double median_seconds = 0;
  double max_distance = 0;  ///< the largest finite distance
  /// Billions of the graph's arcs per second of the median run (traversed edges per second, TEPS).
  double gteps = 0;
  bool verified = false;  ///< the distances equal the sequential Dijkstra's
  double dijkstra_seconds = 0;

  /// One paragraph for a terminal.
  [[nodiscard]] std::string summary() const;
};

/// Loads the graph, refuses it when the run would need more host memory than the machine has, builds it
/// on the backend, runs sssp (warm-up + repetitions), checks it against the sequential Dijkstra when
/// asked, writes the distances when asked, and reports. `backend` is resolved (host or cuda). Throws
/// `warpdex::error` on bad input, on a failed write and when the check fails (a bug).
[[nodiscard]] sssp_workload_report run_sssp_workload(backend_choice backend, const sssp_workload_options& options);

}  // namespace warpdex::graph
