// The SSSP rows: delta-stepping on multisplit, near-far and Bellman-Ford from one source in one run on an
// R-MAT graph and a road-like grid, in GTEPS (the graph's arcs / the median time). Delta-stepping's
// baseline is near-far (the paper's comparison); near-far's and Bellman-Ford's is a sequential
// binary-heap Dijkstra on one host core (the CPU baseline: Boost is not on the GPU machine), timed in this
// process on the same graph, which also verifies every row. Two more rows per graph give the share of
// delta-stepping's time spent bucketing and the bucketing's speed in Gkeys/s (to hold against the
// multisplit rows of the same m). Rows ending in /host-rounds and /kernel-rounds time every round launched
// from the host and every round in the cooperative kernel, against the default mix (sssp.hpp). The
// asynchronous delta-stepping's rows are against near-far too, with the kernel's phases in their metrics,
// and the host backend's parallel delta-stepping on every core of the machine is timed against it.
// Graphs: R-MAT 2^(size_log2 - 4) and 2^(size_log2 - 6), a square grid of 2^(size_log2 - 4) vertices and a
// random geometric graph of 2^(size_log2 - 5).
#include "benchmarks.hpp"

#include <warpdex/graph/generators.hpp>
#include <warpdex/graph/sssp.hpp>
#include <warpdex/graph/graph_spec.hpp>
#include <warpdex/core/timing.hpp>

#if WARPDEX_BENCH_BOOST
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/dijkstra_shortest_paths_no_color_map.hpp>
#endif

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::bench {
namespace {

using weight_type = std::int32_t;  // the paper's integer weights in [0, 1000]
constexpr std::uint32_t rmat_edge_factor = 16;
/// The least bytes a round must move per arc it relaxes: the target id and the weight.
constexpr double arc_bytes = sizeof(graph::vertex_id) + sizeof(weight_type);
constexpr graph::sssp_algorithm algorithms[] = {graph::sssp_algorithm::delta_stepping, graph::sssp_algorithm::near_far,
                                                graph::sssp_algorithm::bellman_ford,
                                                graph::sssp_algorithm::async_delta_stepping};
constexpr std::size_t near_far_index = 1;

struct named_graph {
  std::string name;  ///< "rmat" or "grid"
  graph::edge_list<weight_type> edges;
  bool directed = true;
};

std::string row_prefix(const std::string& what, const std::string& graph_name,
                       const graph::csr_graph<weight_type, cuda>& g)
{
  return "sssp/" + what + "/" + graph_name + "/v=" + std::to_string(g.vertex_count()) +
         "/e=" + std::to_string(g.edge_count());
}

/// The rows of a graph, up to the arc count, which is known only after the build (repeats merged).
std::vector<std::string> row_prefixes(const std::string& graph_name, std::uint64_t vertices)
{
  std::vector<std::string> prefixes;
  for (const std::string what : {"delta-stepping", "near-far", "bellman-ford", "async-delta-stepping",
                                 "host-async-delta-stepping", "bucketing-share", "bucketing"}) {
    prefixes.push_back("sssp/" + what + "/" + graph_name + "/v=" + std::to_string(vertices) + "/e=");
  }
  return prefixes;
}

/// Whether any row of the graph may be selected (so generating, building and Dijkstra are worth it).
bool graph_selected(const context& ctx, const std::string& graph_name, std::uint64_t vertices)
{
  for (const std::string& prefix : row_prefixes(graph_name, vertices)) {
    if (ctx.selected(prefix)) { return true; }
  }
  return false;
}

/// Distances from `source` by a sequential Dijkstra on one host core, and its time: Boost.Graph's (the
/// issue's CPU baseline, timed without building its graph) when the build found Boost, else warpdex's own.
struct cpu_dijkstra {
  std::vector<std::uint64_t> distances;
  double ms = 0;
  std::string name;
};

cpu_dijkstra run_cpu_dijkstra(const std::vector<std::uint64_t>& offsets, const std::vector<graph::vertex_id>& columns,
                              const std::vector<weight_type>& weights, graph::vertex_id source)
{
  cpu_dijkstra result;
  const auto started = std::chrono::steady_clock::now();
#if WARPDEX_BENCH_BOOST
  using boost_graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                         boost::no_property, graph::vertex_id, std::uint64_t>;
  const auto vertices = static_cast<graph::vertex_id>(offsets.size() - 1);
  std::vector<std::pair<graph::vertex_id, graph::vertex_id>> arcs;
  arcs.reserve(columns.size());
  for (graph::vertex_id v = 0; v < vertices; ++v) {
    for (std::uint64_t i = offsets[v]; i < offsets[v + 1]; ++i) { arcs.emplace_back(v, columns[i]); }
  }
  // In CSR order, so Boost's edge index i is warpdex's arc i and the weights are used in place.
  const boost_graph g(boost::edges_are_sorted, arcs.begin(), arcs.end(), vertices);
  arcs = {};
  result.distances.assign(vertices, graph::unreachable<weight_type>);
  const auto weight_map = boost::make_iterator_property_map(weights.data(), boost::get(boost::edge_index, g));
  const auto distance_map =
      boost::make_iterator_property_map(result.distances.data(), boost::get(boost::vertex_index, g));
  const auto dijkstra_started = std::chrono::steady_clock::now();
  boost::dijkstra_shortest_paths_no_color_map(
      g, source,
      boost::weight_map(weight_map)
          .distance_map(distance_map)
          .distance_inf(graph::unreachable<weight_type>)
          .distance_zero(std::uint64_t{0})
          .distance_combine([](std::uint64_t d, weight_type w) { return d + static_cast<std::uint64_t>(w); }));
  result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - dijkstra_started).count();
  result.name = "Boost.Graph's dijkstra_shortest_paths_no_color_map, 1 host core, same graph";
#else
  result.distances = graph::sequential_dijkstra<weight_type>(offsets, columns, weights, source);
  result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  result.name = "sequential binary-heap Dijkstra, 1 host core, same graph (Boost.Graph not found)";
#endif
  (void)started;
  return result;
}

void run_graph(context& ctx, const named_graph& input)
{
  const cuda backend{};
  const auto g = graph::build_csr_graph(backend, input.edges, {.directed = input.directed});
  const graph::vertex_id source = 0;

  // The CPU baseline and the oracle.
  std::vector<std::uint64_t> host_offsets(g.vertex_count() + 1);
  std::vector<graph::vertex_id> host_columns(g.edge_count());
  std::vector<weight_type> host_weights(g.edge_count());
  warpdex::detail::copy_device_bytes(host_offsets.data(), g.row_offsets().data(), g.row_offsets().size_bytes(),
                                     nullptr);
  warpdex::detail::copy_device_bytes(host_columns.data(), g.columns().data(), g.columns().size_bytes(), nullptr);
  warpdex::detail::copy_device_bytes(host_weights.data(), g.weights().data(), g.weights().size_bytes(), nullptr);
  warpdex::detail::synchronize(nullptr);
  const cpu_dijkstra dijkstra = run_cpu_dijkstra(host_offsets, host_columns, host_weights, source);
  const std::vector<std::uint64_t>& expected = dijkstra.distances;
  const double dijkstra_ms = dijkstra.ms;
  const double arcs = static_cast<double>(g.edge_count());
  const auto gteps = [&](double ms) { return arcs / (ms * 1e6); };

  // A run of a second or more (the grid: thousands of rounds) is timed 3 times after one warm-up: the
  // median of 3 such runs varies by well under a percent, and 11 runs of each row would take minutes.
  const auto timed = [&](const std::function<void()>& work) {
    const auto started = std::chrono::steady_clock::now();
    work();
    backend.synchronize();
    const double first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    const timing_options timing = first_ms > 1000 ? timing_options{0, 3} : ctx.timing();
    return warpdex::median_ms(backend, timing, work);
  };
  std::vector<double> median(std::size(algorithms));
  std::vector<bool> verified(std::size(algorithms));
  std::vector<graph::sssp_statistics> statistics(std::size(algorithms));
  // Bellman-Ford and the asynchronous kernel run only when a row of theirs is selected (Bellman-Ford takes
  // seconds on the grid); delta-stepping and near-far always (the others' baselines and statistics).
  const auto algorithm_needed = [&](std::size_t a) {
    if (algorithms[a] != graph::sssp_algorithm::bellman_ford &&
        algorithms[a] != graph::sssp_algorithm::async_delta_stepping) {
      return true;
    }
    const std::string name = row_prefix(graph::to_string(algorithms[a]), input.name, g);
    return ctx.selected(name) || ctx.selected(name + "/host-rounds") || ctx.selected(name + "/kernel-rounds") ||
           (algorithms[a] == graph::sssp_algorithm::async_delta_stepping &&
            ctx.selected(row_prefix("host-async-delta-stepping", input.name, g)));
  };
  for (std::size_t a = 0; a < std::size(algorithms); ++a) {
    if (!algorithm_needed(a)) { continue; }
    const graph::sssp_options options{.algorithm = algorithms[a]};
    graph::sssp_result<weight_type, cuda> result;
    median[a] = timed([&] { result = graph::sssp(g, source, options); });
    verified[a] = result.distances.to_vector() == expected;
    statistics[a] = result.statistics;
  }
  const std::string& dijkstra_name = dijkstra.name;
  for (std::size_t a = 0; a < std::size(algorithms); ++a) {
    const std::string name = row_prefix(graph::to_string(algorithms[a]), input.name, g);
    if (!ctx.selected(name)) { continue; }
    row r;
    r.name = name;
    r.n = g.edge_count();
    r.median_ms = median[a];
    r.value = gteps(median[a]);
    r.unit = "GTEPS";
    const bool against_near_far = algorithms[a] == graph::sssp_algorithm::delta_stepping ||
                                  algorithms[a] == graph::sssp_algorithm::async_delta_stepping;
    r.baseline = against_near_far ? "near-far (Davidson et al.), same run" : dijkstra_name;
    r.baseline_value = against_near_far ? gteps(median[near_far_index]) : gteps(dijkstra_ms);
    r.sol_bytes_per_element = arc_bytes;
    r.verified = verified[a];
    const graph::sssp_statistics& s = statistics[a];
    r.metrics = {{"rounds", static_cast<double>(s.rounds)},
                 {"relaxations_per_arc", static_cast<double>(s.relaxed_arcs) / arcs},
                 {"delta", s.delta},
                 {"bucketing_ms", 1e3 * s.bucketing_seconds},
                 {"dijkstra_1_core_ms", dijkstra_ms}};
    if (algorithms[a] == graph::sssp_algorithm::async_delta_stepping) {
      // The kernel's phases: waiting for work, appending, the rest relaxing (shares of the warps' cycles).
      r.metrics.emplace_back("final_delta", s.final_delta);
      r.metrics.emplace_back("idle_ms", 1e3 * s.idle_seconds);
      r.metrics.emplace_back("append_ms", 1e3 * s.bucketing_seconds);
      r.metrics.emplace_back("relax_ms", 1e3 * std::max(0.0, s.seconds - s.idle_seconds - s.bucketing_seconds));
      // The near buckets' takes: those that got vertices, the empty ones and the ones put off per useful
      // take, the vertices a useful take got, and the time per window move.
      const double takes = static_cast<double>(std::max<std::uint64_t>(s.takes, 1));
      r.metrics.emplace_back("takes", static_cast<double>(s.takes));
      r.metrics.emplace_back("empty_per_take", static_cast<double>(s.empty_takes) / takes);
      r.metrics.emplace_back("deferred_per_take", static_cast<double>(s.deferred_takes) / takes);
      r.metrics.emplace_back("popped_per_take", static_cast<double>(s.popped) / takes);
      r.metrics.emplace_back("ms_per_move", median[a] / static_cast<double>(std::max<std::uint64_t>(s.rounds, 1)));
      // Entries appended to the rings per arc (those a warp keeps on its own stack are not).
      r.metrics.emplace_back("appended_per_arc", static_cast<double>(s.bucketed_vertices) / arcs);
      std::printf("  async takes: %llu useful (%.1f vertices each), %.2f empty and %.2f deferred per useful\n",
                  static_cast<unsigned long long>(s.takes), static_cast<double>(s.popped) / takes,
                  static_cast<double>(s.empty_takes) / takes, static_cast<double>(s.deferred_takes) / takes);
    }
    ctx.add(r);
    std::printf(
        "  %s: delta %.0f (end %.0f), %llu rounds (%.3f ms a round), %.2f relaxations per arc, %llu reached, "
        "idle %.1f%%\n",
        graph::to_string(algorithms[a]).c_str(), s.delta, s.final_delta, static_cast<unsigned long long>(s.rounds),
        median[a] / static_cast<double>(std::max<std::uint64_t>(s.rounds, 1)),
        static_cast<double>(s.relaxed_arcs) / arcs, static_cast<unsigned long long>(s.reached),
        s.seconds > 0 ? 100 * s.idle_seconds / s.seconds : 0.0);
  }
  // The host backend's parallel delta-stepping on every core of this machine, same graph: the CPU
  // baseline of the asynchronous kernel.
  const std::string host_name = row_prefix("host-async-delta-stepping", input.name, g);
  if (ctx.selected(host_name)) {
    const auto host_graph = graph::build_csr_graph(host{}, input.edges, {.directed = input.directed});
    const graph::sssp_options options{.algorithm = graph::sssp_algorithm::async_delta_stepping};
    graph::sssp_result<weight_type, host> result;
    const auto started = std::chrono::steady_clock::now();
    result = graph::sssp(host_graph, source, options);
    const double first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    std::vector<double> times{first_ms};
    for (int run = 0; run < 2; ++run) {  // the median of 3: a run takes a second or more at full size
      const auto again = std::chrono::steady_clock::now();
      result = graph::sssp(host_graph, source, options);
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - again).count());
    }
    std::sort(times.begin(), times.end());
    row r;
    r.name = host_name;
    r.n = g.edge_count();
    r.median_ms = times[1];
    r.value = gteps(times[1]);
    r.unit = "GTEPS";
    r.baseline = "the cuda backend's async-delta-stepping, same run";
    r.baseline_value = gteps(median[3]);
    r.verified = result.distances.to_vector() == expected;
    r.metrics = {{"threads", static_cast<double>(omp_get_max_threads())},
                 {"rounds", static_cast<double>(result.statistics.rounds)},
                 {"relaxations_per_arc", static_cast<double>(result.statistics.relaxed_arcs) / arcs},
                 {"delta", result.statistics.delta}};
    ctx.add(r);
    std::printf("  host async-delta-stepping on %d threads: %.1f ms, %llu passes, %.2f relaxations per arc\n",
                omp_get_max_threads(), times[1], static_cast<unsigned long long>(result.statistics.rounds),
                static_cast<double>(result.statistics.relaxed_arcs) / arcs);
  }
  // A row of one more run with other options, against a row of this run: its rounds and relaxations
  // printed after `label`.
  const auto variant_row = [&](const std::string& name, const graph::sssp_options& options, const std::string& baseline,
                               double baseline_ms, const std::string& label) {
    graph::sssp_result<weight_type, cuda> result;
    row r;
    r.name = name;
    r.n = g.edge_count();
    r.median_ms = timed([&] { result = graph::sssp(g, source, options); });
    r.value = gteps(r.median_ms);
    r.unit = "GTEPS";
    r.baseline = baseline;
    r.baseline_value = gteps(baseline_ms);
    r.sol_bytes_per_element = arc_bytes;
    r.verified = result.distances.to_vector() == expected;
    ctx.add(r);
    std::printf("  %s: %llu rounds, %.3f ms a round, %.2f relaxations per arc\n", label.c_str(),
                static_cast<unsigned long long>(result.statistics.rounds),
                r.median_ms / static_cast<double>(std::max<std::uint64_t>(result.statistics.rounds, 1)),
                static_cast<double>(result.statistics.relaxed_arcs) / arcs);
  };
  // The two ways the cuda backend runs a round alone (sssp.hpp's host_rounds), against the default
  // (the first 64 rounds from the host, the rest in the kernel): every round launched and synchronized
  // from the host, and every round in the cooperative kernel.
  const std::pair<const char*, std::uint32_t> round_paths[] = {{"host-rounds", graph::every_round},
                                                               {"kernel-rounds", 0U}};
  for (const auto& [path, host_rounds] : round_paths) {
    for (std::size_t a = 0; a < std::size(algorithms); ++a) {
      const std::string algorithm = graph::to_string(algorithms[a]);
      const std::string name = row_prefix(algorithm, input.name, g) + "/" + path;
      if (!ctx.selected(name)) { continue; }
      variant_row(name, {.algorithm = algorithms[a], .host_rounds = host_rounds},
                  algorithm + " with the default rounds (64 from the host, then the kernel), same run", median[a],
                  algorithm + ", " + path);
    }
  }
  // Delta-stepping with other multiples of the automatic delta: the data to re-tune the rule by.
  for (const double factor : {0.25, 4.0}) {
    const double delta = std::max(1.0, std::round(statistics[0].delta * factor));
    const std::string name =
        row_prefix("delta-stepping", input.name, g) + "/delta=" + std::to_string(static_cast<long long>(delta));
    if (!ctx.selected(name)) { continue; }
    variant_row(name, {.algorithm = graph::sssp_algorithm::delta_stepping, .delta = delta},
                "delta-stepping with the automatic delta " + std::to_string(statistics[0].delta) + ", same run",
                median[0], "delta " + std::to_string(static_cast<long long>(delta)));
  }
  const std::string share_name = row_prefix("bucketing-share", input.name, g);
  const std::string speed_name = row_prefix("bucketing", input.name, g);
  if (ctx.selected(share_name)) {
    const graph::sssp_statistics& s = statistics[0];
    row share;
    share.name = share_name;
    share.n = g.edge_count();
    share.median_ms = 1e3 * s.bucketing_seconds;
    share.value = s.seconds > 0 ? s.bucketing_seconds / s.seconds : 0;
    share.unit = "fraction of the time";
    share.verified = verified[0];
    ctx.add(share);
  }
  if (ctx.selected(speed_name)) {
    const graph::sssp_statistics& s = statistics[0];
    row speed;
    speed.name = speed_name;
    speed.n = s.bucketed_vertices;
    speed.median_ms = 1e3 * s.bucketing_seconds;
    speed.value = s.bucketing_seconds > 0 ? static_cast<double>(s.bucketed_vertices) / s.bucketing_seconds / 1e9 : 0;
    speed.unit = "Gkeys/s";
    speed.verified = verified[0];
    ctx.add(speed);
  }
}

}  // namespace

void run_sssp(context& ctx)
{
  // Full size (--size-log2 28): R-MAT with 2^24 vertices and 16 x 2^24 edges, and a 4096 x 4096 grid.
  const std::uint32_t scale = ctx.opts().size_log2 > 8 ? ctx.opts().size_log2 - 4 : 4;
  const graph::weight_distribution weights{.min_weight = 0, .max_weight = 1000, .seed = 0x555b};
  if (graph_selected(ctx, "rmat", std::uint64_t{1} << scale)) {
    named_graph rmat{
        "rmat", graph::generate_rmat<weight_type>({.scale = scale, .edge_factor = rmat_edge_factor}, weights), true};
    run_graph(ctx, rmat);
  }
  const std::uint32_t side = std::uint32_t{1} << (scale / 2);
  if (graph_selected(ctx, "grid", std::uint64_t{side} * side)) {
    named_graph grid{"grid", graph::generate_grid<weight_type>({.width = side, .height = side}, weights), false};
    run_graph(ctx, grid);
  }
  // Road-like without the grid's regularity: a random geometric graph of half the R-MAT's vertices (2^23
  // at full size), each point joined to its 4 nearest, weights the lengths scaled into [0, 1000].
  const std::uint32_t points = std::uint32_t{1} << (scale - 1);
  if (graph_selected(ctx, "geometric", points)) {
    named_graph geometric{
        "geometric",
        graph::generate_geometric<weight_type>({.vertices = points, .neighbours = 4, .seed = 0x555b}, weights), false};
    run_graph(ctx, geometric);
  }
  // The smaller R-MAT of ADDS's table (rmat22 at full size).
  if (scale > 6 && graph_selected(ctx, "rmat", std::uint64_t{1} << (scale - 2))) {
    named_graph rmat{"rmat",
                     graph::generate_rmat<weight_type>({.scale = scale - 2, .edge_factor = rmat_edge_factor}, weights),
                     true};
    run_graph(ctx, rmat);
  }
}

}  // namespace warpdex::bench
