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
#include <warpdex/graph/graph_io.hpp>
#include <warpdex/graph/sssp.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpdex::graph {

/// A sequential Dijkstra (binary heap, lazy deletion) over a CSR graph in host memory (weights empty: 1
/// each), with the same float32 additions as `sssp`: the oracle of the workload and the CPU baseline of
/// the benchmarks. O((n + m) log n).
template <class Weight>
[[nodiscard]] std::vector<distance_t<Weight>> sequential_dijkstra(std::span<const std::uint64_t> row_offsets,
                                                                  std::span<const vertex_id> columns,
                                                                  std::span<const Weight> weights, vertex_id source);

/// A graph named on a command line: a generator spec or a file.
/// - `rmat:SCALE[:EDGE_FACTOR]`: R-MAT, 2^SCALE vertices, EDGE_FACTOR (16) x that many directed edges;
/// - `grid:WIDTHxHEIGHT`: a 2D grid, undirected (road-like);
/// - `geometric:N[:NEIGHBOURS]`: a random geometric graph, each of N points in the unit square joined to its
///   NEIGHBOURS (4) nearest, undirected (road-like; weights are the lengths scaled into the weights' range);
/// - `small-world:N[:NEIGHBOURS[:REWIRE]]`: a Watts-Strogatz ring (4 neighbours, rewire 0.1), undirected;
/// - `gnp:N:P[:SEED]`: Erdős–Rényi G(N, P), undirected (SEED: the weights' seed when left out);
/// - the DIMACS clique families (generators.hpp), undirected: `hamming:BITS:DISTANCE` (hamming6-2 is
///   `hamming:6:2`), `johnson:LENGTH:WEIGHT:DISTANCE` (`johnson:8:4:4`), `keller:DIMENSION` (`keller:4`),
///   `mann:POINTS` (MANN_a27 is `mann:27`), `cfat:N:C` or `c-fat:N:C` (c-fat200-1 is `cfat:200:1`);
/// - anything else: a graph file (graph_io.hpp), weights generated when it has none.
/// Generated weights follow `weights` (the paper's uniform integers in [1, 1000] by default); R-MAT, the
/// geometric graph and the small-world ring take their seed from it too. Throws `warpdex::error` for a
/// malformed spec (a known generator name with fields that do not fit its syntax names the syntax).
template <class Weight>
[[nodiscard]] graph_file<Weight> load_graph(const std::string& spec, const weight_distribution& weights,
                                            const std::function<void(double)>& progress = {});

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
