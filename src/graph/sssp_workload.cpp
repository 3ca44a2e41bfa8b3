// The SSSP workload (sssp_workload.hpp) and the sequential Dijkstra it checks against.
#include <warpdex/core/error.hpp>
#include <warpdex/core/host_memory.hpp>
#include <warpdex/graph/generators.hpp>
#include <warpdex/graph/sssp_workload.hpp>
#include <warpdex/core/detail/close_output.hpp>

#include "host_copy.hpp"

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

template <class Weight>
std::vector<distance_t<Weight>> sequential_dijkstra(std::span<const std::uint64_t> row_offsets,
                                                    std::span<const vertex_id> columns, std::span<const Weight> weights,
                                                    vertex_id source)
{
  using distance = distance_t<Weight>;
  const std::size_t n = row_offsets.size() - 1;
  std::vector<distance> distances(n, unreachable<Weight>);
  using entry = std::pair<distance, vertex_id>;
  std::priority_queue<entry, std::vector<entry>, std::greater<>> heap;
  distances[source] = 0;
  heap.emplace(0, source);
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d != distances[u]) { continue; }  // a stale entry
    for (std::uint64_t arc = row_offsets[u]; arc < row_offsets[u + 1]; ++arc) {
      const distance candidate = d + static_cast<distance>(weights.empty() ? Weight(1) : weights[arc]);
      const vertex_id v = columns[arc];
      if (candidate < distances[v]) {
        distances[v] = candidate;
        heap.emplace(candidate, v);
      }
    }
  }
  return distances;
}

template std::vector<std::uint64_t> sequential_dijkstra<std::int32_t>(std::span<const std::uint64_t>,
                                                                      std::span<const vertex_id>,
                                                                      std::span<const std::int32_t>, vertex_id);
template std::vector<float> sequential_dijkstra<float>(std::span<const std::uint64_t>, std::span<const vertex_id>,
                                                       std::span<const float>, vertex_id);

namespace {

std::vector<std::string> split_spec(const std::string& spec, char separator)
{
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = spec.find(separator, start);
    parts.push_back(spec.substr(start, end - start));
    if (end == std::string::npos) { return parts; }
    start = end + 1;
  }
}

std::uint64_t spec_number(const std::string& spec, const std::string& text)
{
  std::size_t used = 0;
  std::uint64_t value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  WARPDEX_EXPECTS(used == text.size() && !text.empty() && text[0] != '-',
                  "graph '" + spec + "': '" + text + "' is not a non-negative integer");
  return value;
}

/// A spec number that must fit 32 bits (the generators' sizes).
std::uint32_t spec_u32(const std::string& spec, const std::string& text)
{
  const std::uint64_t value = spec_number(spec, text);
  WARPDEX_EXPECTS(value <= std::numeric_limits<std::uint32_t>::max(),
                  "graph '" + spec + "': " + text + " does not fit 32 bits");
  return static_cast<std::uint32_t>(value);
}

double spec_real(const std::string& spec, const std::string& text, const std::string& what)
{
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  WARPDEX_EXPECTS(used == text.size() && !text.empty(),
                  "graph '" + spec + "': " + what + " '" + text + "' is not a number");
  return value;
}

/// The spec syntax of each generator, for the message when its fields do not fit.
std::string generator_syntax(const std::string& name)
{
  if (name == "rmat") { return "rmat:SCALE[:EDGE_FACTOR]"; }
  if (name == "grid") { return "grid:WIDTHxHEIGHT"; }
  if (name == "small-world") { return "small-world:N[:NEIGHBOURS[:REWIRE]]"; }
  if (name == "geometric") { return "geometric:N[:NEIGHBOURS]"; }
  if (name == "gnp") { return "gnp:N:P[:SEED]"; }
  if (name == "hamming") { return "hamming:BITS:DISTANCE"; }
  if (name == "johnson") { return "johnson:LENGTH:WEIGHT:DISTANCE"; }
  if (name == "keller") { return "keller:DIMENSION"; }
  if (name == "mann") { return "mann:POINTS (9, 27, 81 or 243)"; }
  return "cfat:N:C";
}

bool is_generator_name(const std::string& name)
{
  for (const char* known :
       {"rmat", "grid", "geometric", "small-world", "gnp", "hamming", "johnson", "keller", "mann", "cfat", "c-fat"}) {
    if (name == known) { return true; }
  }
  return false;
}

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

template <class Weight>
graph_file<Weight> load_graph(const std::string& spec, const weight_distribution& weights,
                              const std::function<void(double)>& progress)
{
  const std::vector<std::string> parts = split_spec(spec, ':');
  graph_file<Weight> file;
  if (parts[0] == "rmat" && parts.size() >= 2 && parts.size() <= 3) {
    rmat_parameters parameters{.scale = static_cast<std::uint32_t>(spec_number(spec, parts[1])), .seed = weights.seed};
    if (parts.size() == 3) { parameters.edge_factor = static_cast<std::uint32_t>(spec_number(spec, parts[2])); }
    file.edges = generate_rmat<Weight>(parameters, weights);
    file.directed = true;
  } else if (parts[0] == "grid" && parts.size() == 2) {
    const auto sides = split_spec(parts[1], 'x');
    WARPDEX_EXPECTS(sides.size() == 2, "graph '" + spec + "': a grid is grid:WIDTHxHEIGHT");
    file.edges = generate_grid<Weight>({.width = static_cast<std::uint32_t>(spec_number(spec, sides[0])),
                                        .height = static_cast<std::uint32_t>(spec_number(spec, sides[1]))},
                                       weights);
    file.directed = false;
  } else if (parts[0] == "small-world" && parts.size() >= 2 && parts.size() <= 4) {
    small_world_parameters parameters{.vertices = spec_u32(spec, parts[1]), .seed = weights.seed};
    if (parts.size() >= 3) { parameters.neighbours = spec_u32(spec, parts[2]); }
    if (parts.size() == 4) {
      try {
        parameters.rewire = std::stod(parts[3]);
      } catch (const std::exception&) {
        WARPDEX_FAIL("graph '" + spec + "': the rewiring probability '" + parts[3] + "' is not a number");
      }
    }
    file.edges = generate_small_world<Weight>(parameters, weights);
    file.directed = false;
  } else if (parts[0] == "geometric" && parts.size() >= 2 && parts.size() <= 3) {
    file.edges = generate_geometric<Weight>(
        {.vertices = spec_u32(spec, parts[1]),
         .neighbours = parts.size() == 3 ? spec_u32(spec, parts[2]) : geometric_parameters{}.neighbours,
         .seed = weights.seed},
        weights);
    file.directed = false;
  } else if (parts[0] == "gnp" && parts.size() >= 3 && parts.size() <= 4) {
    file.edges = generate_gnp<Weight>({.vertices = spec_u32(spec, parts[1]),
                                       .probability = spec_real(spec, parts[2], "the edge probability"),
                                       .seed = parts.size() == 4 ? spec_number(spec, parts[3]) : weights.seed},
                                      weights);
    file.directed = false;
  } else if (parts[0] == "hamming" && parts.size() == 3) {
    file.edges = generate_hamming<Weight>(spec_u32(spec, parts[1]), spec_u32(spec, parts[2]), weights);
    file.directed = false;
  } else if (parts[0] == "johnson" && parts.size() == 4) {
    file.edges =
        generate_johnson<Weight>(spec_u32(spec, parts[1]), spec_u32(spec, parts[2]), spec_u32(spec, parts[3]), weights);
    file.directed = false;
  } else if (parts[0] == "keller" && parts.size() == 2) {
    file.edges = generate_keller<Weight>(spec_u32(spec, parts[1]), weights);
    file.directed = false;
  } else if (parts[0] == "mann" && parts.size() == 2) {
    file.edges = generate_mann<Weight>(spec_u32(spec, parts[1]), weights);
    file.directed = false;
  } else if ((parts[0] == "cfat" || parts[0] == "c-fat") && parts.size() == 3) {
    file.edges = generate_c_fat<Weight>(spec_u32(spec, parts[1]), spec_real(spec, parts[2], "c"), weights);
    file.directed = false;
  } else if (parts.size() > 1 && is_generator_name(parts[0])) {
    WARPDEX_FAIL("graph '" + spec + "': expected " + generator_syntax(parts[0]));
  } else {
    file = read_graph_file<Weight>(spec, {.generate_weights = true, .weights = weights, .progress = progress});
  }
  return file;
}

template graph_file<std::int32_t> load_graph<std::int32_t>(const std::string&, const weight_distribution&,
                                                           const std::function<void(double)>&);
template graph_file<float> load_graph<float>(const std::string&, const weight_distribution&,
                                             const std::function<void(double)>&);

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
