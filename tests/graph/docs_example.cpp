// The example that opens docs/graph.md (a test checks that the page holds this file verbatim from its
// first include line on): shortest paths on a small road network, on the GPU when there is one.
#include <warpdex/core/backend.hpp>
#include <warpdex/graph/csr_graph.hpp>
#include <warpdex/graph/sssp.hpp>

#include <cstdint>
#include <cstdio>

int main()
{
  namespace graph = warpdex::graph;
  graph::edge_list<std::int32_t> edges;  // arcs u -> v with weights >= 0
  edges.vertex_count = 5;
  edges.add(0, 1, 4);
  edges.add(0, 2, 1);
  edges.add(2, 1, 2);
  edges.add(1, 3, 5);
  edges.add(4, 3, 3);  // vertex 4 is not reached from 0
  const auto choice = warpdex::resolve_backend(warpdex::backend_choice::automatic);
  return warpdex::visit_backend(choice, [&](const auto& backend) {
    const auto g = graph::build_csr_graph(backend, edges, {.directed = true});
    const auto result = graph::sssp(g, 0, {.predecessors = true});
    const auto distances = result.distances.to_vector();  // std::uint64_t for int32 weights
    const auto predecessors = result.predecessors.to_vector();
    for (graph::vertex_id v = 0; v < g.vertex_count(); ++v) {
      if (distances[v] == graph::unreachable<std::int32_t>) {
        std::printf("vertex %u: unreachable\n", v);
      } else {
        std::printf("vertex %u: distance %llu, predecessor %u\n", v, static_cast<unsigned long long>(distances[v]),
                    predecessors[v]);
      }
    }
    return distances[3] == 8 ? 0 : 1;  // 0 -> 2 -> 1 -> 3
  });
}
