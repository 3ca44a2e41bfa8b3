#pragma once
/// @file The maximal-cliques workload shared by `warpdex cliques`, the demo tour and the benchmarks: a
/// graph named by a generator spec or a file, taken as undirected, its maximal cliques on a backend,
/// timed per stage, checked, and written.
///
/// ```
/// const auto report = warpdex::dpp::run_cliques_workload(warpdex::backend_choice::host, {.graph = "grid:64x64"});
/// std::printf("%s\n", report.summary().c_str());  // counts, clique number, per-stage times, the check
/// ```

#include <warpdex/core/backend.hpp>
#include <warpdex/dpp/maximal_cliques.hpp>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace warpdex::dpp {

struct cliques_workload_options {
  /// A graph file or generator spec, as `graph::load_graph` reads it (sssp_workload.hpp); every arc is
  /// taken as an undirected edge.
  std::string graph = "rmat:16";
  std::uint64_t seed = 1;  ///< of a generated graph
  clique_options cliques{};
  int repetitions = 1;  ///< timed runs after one warm-up; the median is reported
  bool verify = true;   ///< run the checks of `cliques_workload_report::check`
  /// When not empty: the returned cliques, one a line, their vertices' ids as the file writes them,
  /// separated by spaces. With `cliques.count_only` an error (no clique is kept).
  std::string output{};
  std::function<void(double)> progress{};  ///< file reading progress
};

struct cliques_workload_report {
  std::string graph;
  std::string backend;
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;  ///< undirected edges after self-loops and repeats are dropped
  std::vector<std::uint64_t> size_histogram;  ///< of the maximal cliques (clique_set::size_histogram)
  std::uint64_t maximal_cliques = 0;
  std::uint64_t returned_cliques = 0;  ///< of at least the minimum size
  clique_stats stats{};
  double read_seconds = 0;     ///< reading the file or generating the graph (host)
  double build_seconds = 0;    ///< the CSR graph on the backend
  double cliques_seconds = 0;  ///< maximal_cliques, the median of the timed runs
  double write_seconds = 0;    ///< the output file (0 without one)
  /// What was checked, in words: every returned clique is a clique and maximal (no vertex adjacent to
  /// all of it), none repeats, the histogram adds up; on cuda, graphs of at most `cross_check_max_edges`
  /// edges give the same output on the host backend.
  std::string check;
  bool verified = false;  ///< every check passed (false also when `verify` was off)

  /// The size of the largest clique.
  [[nodiscard]] std::uint32_t clique_number() const
  {
    return size_histogram.empty() ? 0 : static_cast<std::uint32_t>(size_histogram.size() - 1);
  }
  /// A paragraph: counts, clique number, histogram, per-stage times, the check.
  [[nodiscard]] std::string summary() const;
};

/// Graphs up to this many edges are cross-checked against the host backend when run on cuda.
inline constexpr std::uint64_t cross_check_max_edges = std::uint64_t{1} << 22;

/// The workload on `backend` (a resolved choice). Throws `warpdex::error` on a bad file or option, and
/// when a check fails (a bug).
[[nodiscard]] cliques_workload_report run_cliques_workload(backend_choice backend,
                                                           const cliques_workload_options& options);

/// The checks of the report on cliques in host memory over an undirected CSR graph in host memory: ""
/// when every clique is a maximal clique and none repeats, else what failed first.
[[nodiscard]] std::string check_maximal_cliques(std::span<const std::uint64_t> row_offsets,
                                                std::span<const graph::vertex_id> columns,
                                                const std::vector<std::vector<graph::vertex_id>>& cliques);

}  // namespace warpdex::dpp
