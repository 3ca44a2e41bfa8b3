// Bindings of the graph family: a CSR graph built from edge arrays on either backend, single-source
// shortest paths on it, and its maximal cliques (the dpp family's enumeration).

#include "arrays.hpp"

#include <warpdex/dpp/maximal_cliques.hpp>
#include <warpdex/graph/csr_graph.hpp>
#include <warpdex/graph/sssp.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <optional>
#include <string>

namespace warpdex::python {
namespace {

template <class Weight>
class graph_binding {
  template <class Backend>
  using graph_on = graph::csr_graph<Weight, Backend>;

  /// The edge list in host memory (the library's edge list is host memory): host arrays only.
  static graph::edge_list<Weight> edges_of(const input_array& sources, const input_array& targets,
                                           const std::optional<input_array>& weights, std::uint64_t vertex_count)
  {
    call_arrays arrays("Graph");
    graph::edge_list<Weight> edges;
    edges.vertex_count = vertex_count;
    const auto source_span = arrays.span<graph::vertex_id>(sources, "sources");
    const auto target_span = arrays.span<graph::vertex_id>(targets, "targets");
    expect_same_size("Graph", source_span.size(), "sources", target_span.size(), "targets");
    std::span<const Weight> weight_span;
    if (weights) {
      weight_span = arrays.span<Weight>(*weights, "weights");
      expect_same_size("Graph", source_span.size(), "sources", weight_span.size(), "weights");
    }
    if (arrays.where().cuda) {
      throw nb::value_error(
          "Graph: the edge arrays are read on the host: pass host (NumPy) arrays; "
          "device='cuda' builds the graph on the GPU");
    }
    edges.sources.assign(source_span.begin(), source_span.end());
    edges.targets.assign(target_span.begin(), target_span.end());
    edges.weights.assign(weight_span.begin(), weight_span.end());
    return edges;
  }

 public:
  graph_binding(const input_array& sources, const input_array& targets, const std::optional<input_array>& weights,
                std::uint64_t vertex_count, bool directed, bool compact_ids, const std::string& device)
      : graph_(placement_of(device), 0,
               [&, edges = edges_of(sources, targets, weights, vertex_count)](const auto& backend) {
                 const graph::graph_build_options options{directed, compact_ids};
                 return std::make_unique<graph_on<backend_of<decltype(backend)>>>(
                     graph::build_csr_graph(backend, edges, options));
               })
  {
  }

  /// (distances, predecessors or None, statistics) of shortest paths from vertex index `source`.
  nb::tuple sssp(std::uint64_t source, const std::string& algorithm, double delta, std::uint32_t bucket_count,
                 bool predecessors, const std::string& library) const
  {
    graph::sssp_options options;
    options.algorithm = graph::parse_sssp_algorithm(algorithm);
    options.delta = delta;
    options.bucket_count = bucket_count;
    options.predecessors = predecessors;
    auto [distances, tree, statistics] = graph_.visit([&](const auto& graph) {
      WARPDEX_EXPECTS(source < graph.vertex_count(), "sssp: source vertex " + std::to_string(source) +
                                                         " is out of range: the graph has " +
                                                         std::to_string(graph.vertex_count()) + " vertices");
      auto result = graph::sssp(graph, static_cast<graph::vertex_id>(source), options);
      graph.backend().synchronize();
      return std::make_tuple(std::move(result.distances), std::move(result.predecessors), result.statistics);
    });
    nb::dict stats;
    stats["algorithm"] = graph::to_string(statistics.algorithm);
    stats["delta"] = statistics.delta;
    stats["rounds"] = statistics.rounds;
    stats["relaxed_arcs"] = statistics.relaxed_arcs;
    stats["reached"] = statistics.reached;
    stats["seconds"] = statistics.seconds;
    nb::object tree_array = nb::none();
    if (predecessors) { tree_array = owned_array(std::move(tree), graph_.where(), library); }
    return nb::make_tuple(owned_array(std::move(distances), graph_.where(), library), tree_array, stats);
  }

  /// (vertices, size_histogram, statistics) of the maximal cliques: the returned cliques' vertices one
  /// after another (None with `count_only`), the histogram of every maximal clique's size (a list), and
  /// the enumeration's statistics.
  nb::tuple maximal_cliques(std::uint32_t min_size, bool count_only, std::uint64_t memory_limit_bytes,
                            const std::string& library) const
  {
    const dpp::clique_options options{min_size, count_only, memory_limit_bytes};
    auto cliques = graph_.visit([&](const auto& graph) {
      auto result = dpp::maximal_cliques(graph, options);
      graph.backend().synchronize();
      return result;
    });
    nb::dict stats;
    stats["rounds"] = cliques.stats.rounds;
    stats["all_cliques"] = cliques.stats.all_cliques;
    stats["largest_round"] = cliques.stats.largest_round;
    stats["peak_bytes"] = cliques.stats.peak_bytes;
    stats["oriented_max_degree"] = cliques.stats.oriented_max_degree;
    nb::list histogram;
    for (const std::uint64_t count : cliques.size_histogram) { histogram.append(count); }
    nb::object vertices = nb::none();
    if (!count_only) { vertices = owned_array(std::move(cliques.vertices), graph_.where(), library); }
    return nb::make_tuple(vertices, histogram, stats);
  }

  [[nodiscard]] std::uint64_t vertex_count() const
  {
    return graph_.visit([](const auto& graph) { return graph.vertex_count(); });
  }
  [[nodiscard]] std::uint64_t edge_count() const
  {
    return graph_.visit([](const auto& graph) { return graph.edge_count(); });
  }
  [[nodiscard]] std::uint64_t vertex_of(std::uint64_t id) const
  {
    return graph_.visit([&](const auto& graph) { return static_cast<std::uint64_t>(graph.vertex_of(id)); });
  }
  [[nodiscard]] std::uint64_t id_of(std::uint64_t vertex) const
  {
    return graph_.visit([&](const auto& graph) {
      WARPDEX_EXPECTS(vertex < graph.vertex_count(), "id_of: vertex " + std::to_string(vertex) + " is out of range");
      return graph.id_of(static_cast<graph::vertex_id>(vertex));
    });
  }
  [[nodiscard]] std::string device() const { return graph_.device(); }

 private:
  on_backend<graph_on> graph_;
};

template <class Weight>
void bind_graph_type(nb::module_& module, const char* name)
{
  using binding = graph_binding<Weight>;
  nb::class_<binding>(module, name, "The compiled CSR graph; use warpdex.Graph.")
      .def(nb::init<const input_array&, const input_array&, const std::optional<input_array>&, std::uint64_t, bool,
                    bool, const std::string&>(),
           nb::arg("sources"), nb::arg("targets"), nb::arg("weights").none(), nb::arg("vertex_count"),
           nb::arg("directed"), nb::arg("compact_ids"), nb::arg("device"))
      .def("sssp", &binding::sssp, nb::arg("source"), nb::arg("algorithm"), nb::arg("delta"), nb::arg("bucket_count"),
           nb::arg("predecessors"), nb::arg("library"))
      .def("maximal_cliques", &binding::maximal_cliques, nb::arg("min_size"), nb::arg("count_only"),
           nb::arg("memory_limit_bytes"), nb::arg("library"))
      .def("vertex_count", &binding::vertex_count)
      .def("edge_count", &binding::edge_count)
      .def("vertex_of", &binding::vertex_of, nb::arg("id"))
      .def("id_of", &binding::id_of, nb::arg("vertex"))
      .def_prop_ro("device", &binding::device);
}

}  // namespace

void bind_graph(nb::module_& module)
{
  bind_graph_type<std::int32_t>(module, "GraphCoreInt32");
  bind_graph_type<float>(module, "GraphCoreFloat32");
  module.attr("no_vertex") = graph::no_vertex;
}

}  // namespace warpdex::python
