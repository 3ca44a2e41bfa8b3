// The SSSP workload (sssp_workload.hpp).
#include "sssp_workload.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/core/host_memory.hpp>
#include <warpdex/core/detail/close_output.hpp>
#include <warpdex/graph/graph_spec.hpp>

#include "graph/host_copy.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <limits>
#include <queue>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::graph {
namespace {

/// Host bytes a run needs beside the edge list already read: on the host backend the CSR graph (offsets,
/// columns, weights, the build's sort), sssp's distances, flags and queues; on every backend the distances
/// read back and, with the check, the graph's host copy and Dijkstra's distances. A rough upper bound:
/// it only has to catch a header that declares far more than the machine holds.
std::uint64_t host_bytes_needed(bool on_host, std::uint64_t vertices, std::uint64_t arcs, bool verify)
{
  double per_vertex = 8;
  double per_arc = 0;
  if (on_host) {
    per_vertex += 36;
    per_arc += 24;
  }
  if (verify) {
    per_vertex += 16;
    per_arc += 8;
  }
  const double bytes = per_vertex * static_cast<double>(vertices) + per_arc * static_cast<double>(arcs);
  return bytes >= 0x1p64 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(bytes);
}

template <class Weight, class Backend>
sssp_workload_report run_on(const Backend& backend, const sssp_workload_options& options)
{
  const graph_file<Weight> file = load_graph<Weight>(options.graph, options.weights, options.progress);
  {
    std::uint64_t vertices = file.edges.vertex_count;
    if (vertices == 0) {
      for (std::uint64_t i = 0; i < file.edges.size(); ++i) {
        vertices = std::max<std::uint64_t>(vertices, std::max(file.edges.sources[i], file.edges.targets[i]) + 1ULL);
      }
    }
    if (file.compact_ids) { vertices = std::min<std::uint64_t>(vertices, 2 * file.edges.size()); }
    const std::uint64_t arcs = file.edges.size() * (file.directed ? 1 : 2);
    expect_host_memory(
        host_bytes_needed(std::is_same_v<Backend, host>, vertices, arcs, options.verify),
        "sssp on " + options.graph + " (" + std::to_string(vertices) + " vertices, " + std::to_string(arcs) + " arcs)");
  }
  const auto graph = build_csr_graph(backend, file.edges, file.build_options());
  // Before the source is checked against the ids, which an empty graph has none of.
  WARPDEX_EXPECTS(graph.vertex_count() > 0, "sssp on " + options.graph + ": the graph has no vertices");
  vertex_id source = 0;  // no source given: the graph's first vertex
  if (options.source) {
    const std::uint64_t id = *options.source;
    WARPDEX_EXPECTS(id >= file.id_base, "source " + std::to_string(id) + " is not a vertex: the file's ids start at " +
                                            std::to_string(file.id_base));
    WARPDEX_EXPECTS(file.compact_ids || id - file.id_base < graph.vertex_count(),
                    "source " + std::to_string(id) + " is out of range: the graph's ids are " +
                        std::to_string(file.id_base) + " .. " +
                        std::to_string(file.id_base + graph.vertex_count() - 1));
    source = graph.vertex_of(id - file.id_base);
  }
  sssp_workload_report report;
  report.graph = options.graph;
  report.backend = std::string(Backend::name);
  report.source = graph.id_of(source) + file.id_base;
  report.vertices = graph.vertex_count();
  report.arcs = graph.edge_count();
  report.directed = graph.directed();

  (void)sssp(graph, source, options.sssp);  // warm-up: the memory pool, the kernels' first launch
  std::vector<double> times;
  sssp_result<Weight, Backend> result;
  for (int run = 0; run < std::max(1, options.repetitions); ++run) {
    const auto started = std::chrono::steady_clock::now();
    result = sssp(graph, source, options.sssp);
    backend.synchronize();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  report.median_seconds = sorted[sorted.size() / 2];
  report.statistics = result.statistics;
  report.gteps = static_cast<double>(report.arcs) / report.median_seconds / 1e9;

  const auto distances = result.distances.to_vector();
  for (const auto d : distances) {
    if (d != unreachable<Weight>) { report.max_distance = std::max(report.max_distance, static_cast<double>(d)); }
  }
  if (options.verify) {
    const auto offsets = detail::to_host(graph.row_offsets(), backend);
    const auto columns = detail::to_host(graph.columns(), backend);
    const auto weights = detail::to_host(graph.weights(), backend);
    const auto started = std::chrono::steady_clock::now();
    const auto expected = sequential_dijkstra<Weight>(offsets, columns, weights, source);
    report.dijkstra_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    WARPDEX_EXPECTS(expected == distances, "sssp: the distances differ from the sequential Dijkstra's (a bug in " +
                                               to_string(result.statistics.algorithm) + " on the " + report.backend +
                                               " backend)");
    report.verified = true;
  }
  if (!options.output.empty()) {
    std::ofstream out(options.output);
    WARPDEX_EXPECTS(out.good(), "sssp: cannot write " + options.output);
    out << std::setprecision(std::numeric_limits<distance_t<Weight>>::max_digits10);  // floats read back exactly
    for (vertex_id v = 0; v < distances.size(); ++v) {
      out << graph.id_of(v) + file.id_base << ' ';
      if (distances[v] == unreachable<Weight>) {
        out << "inf\n";
      } else {
        out << distances[v] << '\n';
      }
    }
    warpdex::detail::close_output(out, "sssp: " + options.output);
  }
  return report;
}

}  // namespace

sssp_workload_report run_sssp_workload(backend_choice backend, const sssp_workload_options& options)
{
  return visit_backend(backend, [&](const auto& resolved) {
    return options.float_weights ? run_on<float>(resolved, options) : run_on<std::int32_t>(resolved, options);
  });
}

std::string sssp_workload_report::summary() const
{
  char text[1024];
  std::snprintf(
      text, sizeof text,
      "graph %s: %llu vertices, %llu arcs (%s)\n"
      "sssp %s on %s from vertex %llu: reached %llu vertices, max distance %.10g, %.3f ms (median), %.3f GTEPS\n"
      "  delta %.6g, %llu rounds, %llu arcs relaxed (%.2f per arc), bucketing %.1f%% of the time\n"
      "  check: %s",
      graph.c_str(), static_cast<unsigned long long>(vertices), static_cast<unsigned long long>(arcs),
      directed ? "directed" : "undirected", to_string(statistics.algorithm).c_str(), backend.c_str(),
      static_cast<unsigned long long>(source), static_cast<unsigned long long>(statistics.reached), max_distance,
      median_seconds * 1e3, gteps, statistics.delta, static_cast<unsigned long long>(statistics.rounds),
      static_cast<unsigned long long>(statistics.relaxed_arcs),
      arcs > 0 ? static_cast<double>(statistics.relaxed_arcs) / static_cast<double>(arcs) : 0.0,
      statistics.seconds > 0 ? 100 * statistics.bucketing_seconds / statistics.seconds : 0.0,
      verified ? ("equals a sequential Dijkstra (" + std::to_string(dijkstra_seconds * 1e3) + " ms on 1 core)").c_str()
               : "not checked");
  std::string result = text;
  if (statistics.final_delta > 0) {
    std::snprintf(text, sizeof text, "\n  asynchronous: delta %.6g at the end, the warps idle %.1f%% of the time",
                  statistics.final_delta,
                  statistics.seconds > 0 ? 100 * statistics.idle_seconds / statistics.seconds : 0.0);
    result += text;
  }
  return result;
}

}  // namespace warpdex::graph
