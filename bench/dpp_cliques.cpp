// The maximal-cliques rows: dpp::maximal_cliques on the GPU and on the host backend against igraph's
// igraph_maximal_cliques (one host core, as it comes), timed in this process on the same graph, in
// maximal cliques per second. igraph's cliques are also the oracle: every row's output is compared with
// them, clique for clique. Graphs: the sparse families the issue names (R-MAT with a = 0.45, b = c = 0.15,
// whose maximal cliques are most of its cliques; a road-like grid; a small-world ring) at 2^(size - 8)
// vertices, and the DIMACS families of the thesis, generated (or the graph specs given by
// WARPDEX_BENCH_CLIQUE_GRAPHS, comma-separated, as `warpdex cliques` reads them). igraph's time grows
// faster than its graphs here (4x the vertices took it 10-17x the time): at --size-log2 28 its three
// searches take minutes; the records use 26.
#include "benchmarks.hpp"

#include <warpdex/core/timing.hpp>
#include <warpdex/dpp/maximal_cliques.hpp>
#include <warpdex/graph/generators.hpp>
#include <warpdex/graph/graph_spec.hpp>

#include <igraph.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace warpdex::bench {
namespace {

using graph::vertex_id;
using clique_list = std::vector<std::vector<vertex_id>>;

struct named_graph {
  std::string name;
  graph::edge_list<std::int32_t> edges;
};

/// igraph's maximal cliques of the CSR graph in host memory (each sorted, the list sorted), and the time
/// of igraph_maximal_cliques alone.
clique_list igraph_cliques(const std::vector<std::uint64_t>& offsets, const std::vector<vertex_id>& columns,
                           double& ms)
{
  const std::uint64_t n = offsets.size() - 1;
  igraph_vector_int_t ends;
  igraph_vector_int_init(&ends, static_cast<igraph_integer_t>(columns.size()));
  std::uint64_t at = 0;
  for (vertex_id u = 0; u < n; ++u) {
    for (std::uint64_t e = offsets[u]; e < offsets[u + 1]; ++e) {
      if (u < columns[e]) {  // each undirected edge once
        VECTOR(ends)[at++] = u;
        VECTOR(ends)[at++] = columns[e];
      }
    }
  }
  igraph_vector_int_resize(&ends, static_cast<igraph_integer_t>(at));
  igraph_t g;
  igraph_create(&g, &ends, static_cast<igraph_integer_t>(n), IGRAPH_UNDIRECTED);
  igraph_vector_int_list_t found;
  igraph_vector_int_list_init(&found, 0);
  const auto started = std::chrono::steady_clock::now();
  igraph_maximal_cliques(&g, &found, 0, 0);
  ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  clique_list cliques(static_cast<std::size_t>(igraph_vector_int_list_size(&found)));
  for (std::size_t c = 0; c < cliques.size(); ++c) {
    const igraph_vector_int_t* members = igraph_vector_int_list_get_ptr(&found, static_cast<igraph_integer_t>(c));
    for (igraph_integer_t v = 0; v < igraph_vector_int_size(members); ++v) {
      cliques[c].push_back(static_cast<vertex_id>(VECTOR(*members)[v]));
    }
    std::sort(cliques[c].begin(), cliques[c].end());
  }
  igraph_vector_int_list_destroy(&found);
  igraph_destroy(&g);
  igraph_vector_int_destroy(&ends);
  std::sort(cliques.begin(), cliques.end());
  return cliques;
}

clique_list sorted(clique_list cliques)
{
  std::sort(cliques.begin(), cliques.end());
  return cliques;
}

void run_graph(context& ctx, const named_graph& input)
{
  const std::uint64_t vertices =
      input.edges.vertex_count != 0
          ? input.edges.vertex_count
          : (input.edges.size() == 0 ? 0
                                     : 1 + std::max(*std::max_element(input.edges.sources.begin(), input.edges.sources.end()),
                                                    *std::max_element(input.edges.targets.begin(), input.edges.targets.end())));
  const std::string prefix = "/" + input.name + "/v=" + std::to_string(vertices) + "/e=";
  if (!ctx.selected("cliques" + prefix) && !ctx.selected("cliques_host" + prefix)) { return; }
  const auto g = graph::build_csr_graph(cuda{}, input.edges, {.directed = false});
  const std::string suffix = "/" + input.name + "/v=" + std::to_string(g.vertex_count()) +
                             "/e=" + std::to_string(g.edge_count() / 2);
  const std::string gpu_name = "cliques" + suffix;
  const std::string host_name = "cliques_host" + suffix;
  if (!ctx.selected(gpu_name) && !ctx.selected(host_name)) { return; }
  const auto offsets = g.row_offsets().size() == 0 ? std::vector<std::uint64_t>{0} : [&] {
    std::vector<std::uint64_t> host(g.row_offsets().size());
    warpdex::detail::copy_device_bytes(host.data(), g.row_offsets().data(), g.row_offsets().size_bytes(), nullptr);
    warpdex::detail::synchronize(nullptr);
    return host;
  }();
  std::vector<vertex_id> columns(g.columns().size());
  warpdex::detail::copy_device_bytes(columns.data(), g.columns().data(), g.columns().size_bytes(), nullptr);
  warpdex::detail::synchronize(nullptr);
  // The GPU first: a graph over the memory limit is reported without igraph's search.
  dpp::clique_set on_gpu;
  double gpu_first_ms = 0;
  try {
    const auto started = std::chrono::steady_clock::now();
    on_gpu = dpp::maximal_cliques(g);
    gpu_first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  } catch (const out_of_memory& failure) {
    std::printf("  %s: %s\n", input.name.c_str(), failure.what());
    return;
  }
  std::printf("  %s: first GPU run %.3f ms, %llu maximal cliques; igraph next\n", input.name.c_str(), gpu_first_ms,
              static_cast<unsigned long long>(on_gpu.count()));
  double igraph_ms = 0;
  const clique_list expected = igraph_cliques(offsets, columns, igraph_ms);
  const double count = static_cast<double>(expected.size());
  const auto rate = [&](double ms) { return count / (ms * 1e3); };  // millions of maximal cliques a second
  const std::string baseline = "igraph " IGRAPH_VERSION " igraph_maximal_cliques, 1 host core, same graph";

  // A run of a second or more is timed 3 times after one warm-up.
  const auto timed = [&](const auto& backend, const std::function<void()>& work) {
    const auto started = std::chrono::steady_clock::now();
    work();
    backend.synchronize();
    const double first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return warpdex::median_ms(backend, first_ms > 1000 ? timing_options{0, 3} : ctx.timing(), work);
  };
  const auto add_row = [&](const std::string& name, double ms, const dpp::clique_set& found) {
    row r;
    r.name = name;
    r.n = g.edge_count() / 2;
    r.median_ms = ms;
    r.value = rate(ms);
    r.unit = "Mcliques/s";
    r.baseline = baseline;
    r.baseline_value = rate(igraph_ms);
    r.verified = found.count() == expected.size() && sorted(found.to_host()) == expected;
    ctx.add(r);
    std::printf("  %s: %llu maximal of %llu cliques (ratio %.3g), clique number %u, peak %.1f MiB, oriented "
                "degree <= %llu\n",
                name.c_str(), static_cast<unsigned long long>(found.count()),
                static_cast<unsigned long long>(found.stats.all_cliques),
                found.stats.all_cliques ? found.count() / static_cast<double>(found.stats.all_cliques) : 0.0,
                found.clique_number(), found.stats.peak_bytes / 1048576.0,
                static_cast<unsigned long long>(found.stats.oriented_max_degree));
  };
  try {
    if (ctx.selected(gpu_name)) {
      dpp::clique_set found;
      const double ms = timed(cuda{}, [&] { found = dpp::maximal_cliques(g); });
      add_row(gpu_name, ms, found);
    }
    if (ctx.selected(host_name)) {
      const auto on_host = graph::build_csr_graph(host{}, input.edges, {.directed = false});
      dpp::clique_set found;
      const double ms = timed(host{}, [&] { found = dpp::maximal_cliques(on_host); });
      add_row(host_name, ms, found);
    }
  } catch (const out_of_memory& failure) {
    // The thesis's limit (few maximal cliques among very many): said, not hidden.
    std::printf("  %s: %s (igraph: %.1f ms, %zu maximal cliques)\n", input.name.c_str(), failure.what(), igraph_ms,
                expected.size());
  }
}

}  // namespace

void run_dpp_cliques(context& ctx)
{
  // Full size (--size-log2 28): R-MAT with 2^20 vertices and 8 x 2^20 edges drawn, a 1024 x 1024 grid and
  // a ring of 2^20 vertices with 8 neighbours each.
  const std::uint32_t scale = ctx.opts().size_log2 > 12 ? ctx.opts().size_log2 - 8 : 4;
  std::vector<named_graph> graphs;
  graphs.push_back({"rmat-a45", graph::generate_rmat<std::int32_t>(
                                    {.scale = scale, .edge_factor = 8, .a = 0.45, .b = 0.15, .c = 0.15, .seed = 0xc1},
                                    std::nullopt)});
  const std::uint32_t side = std::uint32_t{1} << (scale / 2);
  graphs.push_back({"grid", graph::generate_grid<std::int32_t>({.width = side, .height = side}, std::nullopt)});
  graphs.push_back({"small-world", graph::generate_small_world<std::int32_t>(
                                       {.vertices = std::uint32_t{1} << scale, .neighbours = 8, .rewire = 0.1, .seed = 0xc2},
                                       std::nullopt)});
  for (auto& input : graphs) {
    run_graph(ctx, input);
    input.edges = {};
  }
  // The DIMACS families the thesis ran (Ch. VII), generated (docs/graph.md), or the specs of
  // WARPDEX_BENCH_CLIQUE_GRAPHS instead. The dense ones may exceed the memory: the row then says so.
  const char* extra = std::getenv("WARPDEX_BENCH_CLIQUE_GRAPHS");
  const std::string specs =
      extra != nullptr ? extra : "hamming:6:4,johnson:8:4:4,johnson:16:2:4,keller:4,mann:9,cfat:200:1,cfat:200:5";
  for (std::size_t start = 0; start <= specs.size();) {
    const std::size_t end = std::min(specs.find(',', start), specs.size());
    const std::string spec = specs.substr(start, end - start);
    start = end + 1;
    if (spec.empty()) { continue; }
    const auto file = graph::load_graph<std::int32_t>(spec, {});
    std::string name = spec.substr(spec.find_last_of('/') + 1);
    std::replace(name.begin(), name.end(), ':', '-');
    run_graph(ctx, {name, file.edges});
  }
}

}  // namespace warpdex::bench
