// The maximal-cliques workload (include/warpdex/dpp/cliques_workload.hpp). Host code: the backends'
// enumeration is instantiated in maximal_cliques_host.cpp / maximal_cliques_cuda.cu.
#include "cliques_workload.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/graph/graph_spec.hpp>

#include "graph/host_copy.hpp"
#include "dpp_workload_support.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <parallel/algorithm>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::dpp {
namespace {

using detail::format_seconds;
using detail::seconds_since;
using graph::vertex_id;

bool adjacent(std::span<const std::uint64_t> row_offsets, std::span<const vertex_id> columns, vertex_id u, vertex_id v)
{
  const auto begin = columns.begin() + static_cast<std::ptrdiff_t>(row_offsets[u]);
  const auto end = columns.begin() + static_cast<std::ptrdiff_t>(row_offsets[u + 1]);
  return std::binary_search(begin, end, v);
}

std::string clique_text(const std::vector<vertex_id>& clique)
{
  std::string text = "{";
  for (std::size_t t = 0; t < clique.size(); ++t) { text += (t ? " " : "") + std::to_string(clique[t]); }
  return text + "}";
}

}  // namespace

std::string check_maximal_cliques(std::span<const std::uint64_t> row_offsets, std::span<const vertex_id> columns,
                                  const std::vector<std::vector<vertex_id>>& cliques)
{
  const std::uint64_t n = row_offsets.empty() ? 0 : row_offsets.size() - 1;
  // What is wrong with one clique, "" when nothing is. Cliques are checked on every host thread; the
  // message names the first bad clique in output order, so it does not depend on the threads.
  const auto problem_of = [&](const std::vector<vertex_id>& clique) -> std::string {
    if (clique.empty()) { return "an empty clique"; }
    for (const vertex_id v : clique) {
      if (v >= n) { return "clique " + clique_text(clique) + " holds a vertex out of range"; }
    }
    for (std::size_t a = 0; a < clique.size(); ++a) {
      for (std::size_t b = a + 1; b < clique.size(); ++b) {
        if (!adjacent(row_offsets, columns, clique[a], clique[b])) {
          return clique_text(clique) + " is not a clique: " + std::to_string(clique[a]) + " and " +
                 std::to_string(clique[b]) + " are not adjacent";
        }
      }
    }
    // Maximal: no neighbour of its lowest-degree member is adjacent to every member.
    const vertex_id pivot = *std::min_element(clique.begin(), clique.end(), [&](vertex_id a, vertex_id b) {
      return row_offsets[a + 1] - row_offsets[a] < row_offsets[b + 1] - row_offsets[b];
    });
    for (std::uint64_t e = row_offsets[pivot]; e < row_offsets[pivot + 1]; ++e) {
      const vertex_id w = columns[e];
      const bool joins_all = std::all_of(clique.begin(), clique.end(), [&](vertex_id v) {
        return v == w || (v != w && adjacent(row_offsets, columns, v, w));
      });
      if (joins_all && std::find(clique.begin(), clique.end(), w) == clique.end()) {
        return clique_text(clique) + " is not maximal: vertex " + std::to_string(w) + " is adjacent to all of it";
      }
    }
    return "";
  };
  const auto count = static_cast<std::int64_t>(cliques.size());
  std::int64_t first_bad = count;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : first_bad)
  for (std::int64_t i = 0; i < count; ++i) {
    if (i < first_bad && !problem_of(cliques[static_cast<std::size_t>(i)]).empty()) { first_bad = i; }
  }
  if (first_bad < count) { return problem_of(cliques[static_cast<std::size_t>(first_bad)]); }
  // Repeats: the cliques' positions sorted by their members (as returned), equal neighbours repeat.
  std::vector<std::uint64_t> order(cliques.size());
  std::iota(order.begin(), order.end(), std::uint64_t{0});
  __gnu_parallel::sort(order.begin(), order.end(),
                       [&](std::uint64_t a, std::uint64_t b) { return cliques[a] < cliques[b]; });
  const auto repeated = std::adjacent_find(order.begin(), order.end(),
                                           [&](std::uint64_t a, std::uint64_t b) { return cliques[a] == cliques[b]; });
  if (repeated != order.end()) { return "clique " + clique_text(cliques[*repeated]) + " appears twice"; }
  return "";
}

std::string cliques_workload_report::summary() const
{
  std::string histogram;
  for (std::size_t s = 1; s < size_histogram.size(); ++s) {
    if (size_histogram[s] == 0) { continue; }
    histogram += (histogram.empty() ? "" : ", ") + std::to_string(s) + ": " + std::to_string(size_histogram[s]);
  }
  const double ratio = stats.all_cliques == 0 ? 0 : static_cast<double>(maximal_cliques) / stats.all_cliques;
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.3g", cliques_seconds > 0 ? stats.all_cliques / cliques_seconds : 0.0);
  char ratio_text[32];
  std::snprintf(ratio_text, sizeof ratio_text, "%.3g", ratio);
  return "graph " + graph + ": " + std::to_string(vertices) + " vertices, " + std::to_string(edges) +
         " edges (undirected)\n" + "cliques on " + backend + ": " + std::to_string(maximal_cliques) +
         " maximal cliques (" + std::to_string(returned_cliques) + " returned), clique number " +
         std::to_string(clique_number()) + "\n  sizes " + histogram + "\n  " + std::to_string(stats.all_cliques) +
         " cliques enumerated (maximal/all " + ratio_text + "), " + std::to_string(stats.rounds) +
         " rounds, peak " + std::to_string(stats.peak_bytes >> 20) + " MiB\n  read " + format_seconds(read_seconds) +
         ", build " + format_seconds(build_seconds) + ", cliques " + format_seconds(cliques_seconds) + " (" + rate +
         " cliques/s), write " + format_seconds(write_seconds) + "\n  check: " + check;
}

cliques_workload_report run_cliques_workload(backend_choice resolved, const cliques_workload_options& options)
{
  WARPDEX_EXPECTS(options.repetitions >= 1, "cliques: at least one timed run");
  WARPDEX_EXPECTS(options.output.empty() || !options.cliques.count_only,
                  "cliques: count_only keeps no clique to write to " + options.output);
  cliques_workload_report report;
  report.graph = options.graph;
  auto started = std::chrono::steady_clock::now();
  graph::weight_distribution generated;
  generated.seed = options.seed;
  // Cliques ignore weights: read them as floats, which any file's weights parse as (fractional ones too,
  // which int32 refuses), and drop them.
  graph::graph_file<float> read = graph::load_graph<float>(options.graph, generated, options.progress);
  graph::graph_file<std::int32_t> file;
  file.edges.vertex_count = read.edges.vertex_count;
  file.edges.sources = std::move(read.edges.sources);
  file.edges.targets = std::move(read.edges.targets);
  file.directed = read.directed;
  file.compact_ids = read.compact_ids;
  file.format = read.format;
  file.id_base = read.id_base;
  read = {};
  report.read_seconds = seconds_since(started);
  const graph::graph_build_options build{.directed = false, .compact_ids = file.compact_ids};

  std::vector<std::vector<vertex_id>> cliques;
  std::vector<vertex_id> vertices_out;
  std::vector<std::uint64_t> row_offsets;
  std::vector<vertex_id> columns;
  std::vector<vertex_id> original_ids;
  visit_backend(resolved, [&](const auto& backend) {
    report.backend = std::string(backend.name);
    started = std::chrono::steady_clock::now();
    const auto g = graph::build_csr_graph(backend, file.edges, build);
    backend.synchronize();
    report.build_seconds = seconds_since(started);
    report.vertices = g.vertex_count();
    report.edges = g.edge_count() / 2;
    auto found = maximal_cliques(g, options.cliques);  // warm-up
    std::vector<double> times;
    for (int run = 0; run < options.repetitions; ++run) {
      started = std::chrono::steady_clock::now();
      found = maximal_cliques(g, options.cliques);
      times.push_back(seconds_since(started));
    }
    std::sort(times.begin(), times.end());
    report.cliques_seconds = times[times.size() / 2];
    report.size_histogram = found.size_histogram;
    report.maximal_cliques = found.count();
    report.returned_cliques = found.returned_count();
    report.stats = found.stats;
    vertices_out = found.vertices.to_vector();
    if (options.verify || !options.output.empty()) { cliques = found.to_host(); }
    if (options.verify) {
      row_offsets = graph::detail::to_host(g.row_offsets(), backend);
      columns = graph::detail::to_host(g.columns(), backend);
    }
    original_ids = g.original_ids();
  });

  if (options.verify) {
    std::string problem = check_maximal_cliques(row_offsets, columns, cliques);
    std::string checked = "every clique maximal, none repeated";
    std::uint64_t returned = 0;
    for (std::size_t s = options.cliques.min_size; s < report.size_histogram.size(); ++s) {
      returned += report.size_histogram[s];
    }
    if (problem.empty() && !options.cliques.count_only && returned != cliques.size()) {
      problem = std::to_string(cliques.size()) + " cliques returned, the histogram counts " + std::to_string(returned);
    }
    if (problem.empty() && resolved != backend_choice::host && report.edges <= cross_check_max_edges) {
      const auto on_host = maximal_cliques(graph::build_csr_graph(host{}, file.edges, build), options.cliques);
      if (on_host.size_histogram != report.size_histogram || on_host.vertices.to_vector() != vertices_out) {
        problem = "the host backend's output differs";
      }
      checked += ", equal to the host backend's";
    }
    report.check = problem.empty() ? checked : "FAILED: " + problem;
    report.verified = problem.empty();
    WARPDEX_EXPECTS(report.verified, "cliques on " + options.graph + ": " + report.check);
  } else {
    report.check = "not run";
  }

  if (!options.output.empty()) {
    started = std::chrono::steady_clock::now();
    std::ofstream out(options.output, std::ios::binary);
    WARPDEX_EXPECTS(out.good(), "cannot write the cliques to " + options.output);
    std::string line;
    for (const auto& clique : cliques) {
      line.clear();
      for (std::size_t t = 0; t < clique.size(); ++t) {
        const std::uint64_t id =
            (original_ids.empty() ? clique[t] : original_ids[clique[t]]) + file.id_base;
        line += (t ? " " : "") + std::to_string(id);
      }
      line += '\n';
      out.write(line.data(), static_cast<std::streamsize>(line.size()));
    }
    out.close();
    WARPDEX_EXPECTS(out.good(), "writing the cliques to " + options.output + " failed (disk full?)");
    report.write_seconds = seconds_since(started);
  }
  return report;
}

}  // namespace warpdex::dpp
