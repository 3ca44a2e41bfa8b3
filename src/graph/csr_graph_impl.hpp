#pragma once
// build_csr_graph written once against Thrust (see warpdex/core/detail/thrust_backend.hpp); csr_graph_cuda.cu and
// csr_graph_host.cpp instantiate it for their backend.

#include <warpdex/core/error.hpp>
#include <warpdex/graph/csr_graph.hpp>

#include <warpdex/core/detail/thrust_backend.hpp>
#include "host_copy.hpp"

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace warpdex::graph::detail {

using warpdex::detail::policy;

/// An arc as one sortable word: the source in the high half, the target in the low half.
struct arc_key {
  WARPDEX_HOST_DEVICE std::uint64_t operator()(vertex_id source, vertex_id target) const
  {
    return (std::uint64_t{source} << 32) | target;
  }
};
struct arc_target {
  WARPDEX_HOST_DEVICE vertex_id operator()(std::uint64_t key) const { return static_cast<vertex_id>(key); }
};
struct row_start_key {
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t vertex) const { return vertex << 32; }
};
struct is_self_loop {
  WARPDEX_HOST_DEVICE bool operator()(std::uint64_t key) const
  {
    return static_cast<vertex_id>(key >> 32) == static_cast<vertex_id>(key);
  }
};
/// The same on a (key, weight) tuple.
struct is_weighted_self_loop {
  template <class Arc>
  WARPDEX_HOST_DEVICE bool operator()(const Arc& arc) const
  {
    return is_self_loop{}(static_cast<std::uint64_t>(thrust::get<0>(arc)));
  }
};
/// -0.0 becomes +0.0, so that weights compare and add like their values everywhere.
template <class Weight>
struct positive_zero {
  WARPDEX_HOST_DEVICE Weight operator()(Weight weight) const { return weight == Weight(0) ? Weight(0) : weight; }
};

/// Rejects what the graph cannot hold, before any backend work. Returns the vertex count.
template <class Weight>
std::uint64_t validate_edge_list(const edge_list<Weight>& edges)
{
  WARPDEX_EXPECTS(edges.targets.size() == edges.sources.size(),
                  "build_csr_graph: " + std::to_string(edges.sources.size()) + " sources but " +
                      std::to_string(edges.targets.size()) + " targets");
  WARPDEX_EXPECTS(edges.weights.empty() || edges.weights.size() == edges.sources.size(),
                  "build_csr_graph: " + std::to_string(edges.sources.size()) + " edges but " +
                      std::to_string(edges.weights.size()) + " weights (give one per edge, or none)");
  for (std::size_t i = 0; i < edges.weights.size(); ++i) {
    const Weight weight = edges.weights[i];
    if (!(weight >= Weight(0))) {
      WARPDEX_FAIL("build_csr_graph: edge " + std::to_string(i) + " (" + std::to_string(edges.sources[i]) + " -> " +
                   std::to_string(edges.targets[i]) + ") has weight " + std::to_string(weight) +
                   "; weights must be >= 0 and not NaN");
    }
  }
  std::uint64_t largest = 0;
  for (std::size_t i = 0; i < edges.sources.size(); ++i) {
    largest = std::max<std::uint64_t>(largest, std::max(edges.sources[i], edges.targets[i]));
  }
  WARPDEX_EXPECTS(edges.sources.empty() || largest < no_vertex,
                  "build_csr_graph: vertex id " + std::to_string(no_vertex) + " is reserved (no_vertex)");
  if (edges.vertex_count == 0) { return edges.sources.empty() ? 0 : largest + 1; }
  WARPDEX_EXPECTS(edges.vertex_count <= no_vertex, "build_csr_graph: " + std::to_string(edges.vertex_count) +
                                                       " vertices exceed the 32-bit ids (at most " +
                                                       std::to_string(no_vertex) + ")");
  WARPDEX_EXPECTS(edges.sources.empty() || largest < edges.vertex_count,
                  "build_csr_graph: vertex id " + std::to_string(largest) + " is out of range for " +
                      std::to_string(edges.vertex_count) + " vertices");
  return edges.vertex_count;
}

template <class T, class Backend>
buffer<T> to_backend(const Backend& backend, const std::vector<T>& values)
{
  auto result = make_buffer<T>(backend, values.size());
  result.copy_from(values);
  return result;
}

template <class Weight, class Backend>
csr_graph<Weight, Backend> build(const Backend& backend, const edge_list<Weight>& edges,
                                 const graph_build_options& options)
{
  std::uint64_t vertex_count = validate_edge_list(edges);
  const bool weighted = edges.weighted();
  const std::uint64_t input_edges = edges.size();
  const std::uint64_t arcs = options.directed ? input_edges : 2 * input_edges;
  const auto exec = policy(backend);

  // Sources and targets of every arc; an undirected edge adds its reverse after all the edges.
  auto sources = make_buffer<vertex_id>(backend, arcs);
  auto targets = make_buffer<vertex_id>(backend, arcs);
  sources.copy_from(edges.sources);
  targets.copy_from(edges.targets);
  auto weights = make_buffer<Weight>(backend, weighted ? arcs : 0);
  if (weighted) { weights.copy_from(edges.weights); }
  if (!options.directed && input_edges > 0) {
    thrust::copy(exec, targets.data(), targets.data() + input_edges, sources.data() + input_edges);
    thrust::copy(exec, sources.data(), sources.data() + input_edges, targets.data() + input_edges);
    if (weighted) { thrust::copy(exec, weights.data(), weights.data() + input_edges, weights.data() + input_edges); }
  }
  if (weighted) {
    thrust::transform(exec, weights.data(), weights.data() + arcs, weights.data(), positive_zero<Weight>{});
  }

  std::vector<vertex_id> original_ids;
  if (options.compact_ids) {
    // The ids in use, sorted and unique; every id becomes its rank among them.
    auto ids = make_buffer<vertex_id>(backend, 2 * input_edges);
    thrust::copy(exec, sources.data(), sources.data() + input_edges, ids.data());
    thrust::copy(exec, targets.data(), targets.data() + input_edges, ids.data() + input_edges);
    thrust::sort(exec, ids.data(), ids.data() + ids.size());
    const auto id_count =
        static_cast<std::uint64_t>(thrust::unique(exec, ids.data(), ids.data() + ids.size()) - ids.data());
    thrust::lower_bound(exec, ids.data(), ids.data() + id_count, sources.data(), sources.data() + arcs, sources.data());
    thrust::lower_bound(exec, ids.data(), ids.data() + id_count, targets.data(), targets.data() + arcs, targets.data());
    std::vector<vertex_id> all = ids.to_vector();
    original_ids.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(id_count));
    vertex_count = id_count;
  }

  // Arcs as sorted words, self-loops removed, repeats merged (the smallest weight wins).
  auto keys = make_buffer<std::uint64_t>(backend, arcs);
  thrust::transform(exec, sources.data(), sources.data() + arcs, targets.data(), keys.data(), arc_key{});
  sources = buffer<vertex_id>();
  targets = buffer<vertex_id>();
  std::uint64_t kept = 0;
  if (weighted) {
    auto zipped = thrust::make_zip_iterator(thrust::make_tuple(keys.data(), weights.data()));
    kept = static_cast<std::uint64_t>(thrust::remove_if(exec, zipped, zipped + arcs, is_weighted_self_loop{}) - zipped);
    thrust::sort_by_key(exec, keys.data(), keys.data() + kept, weights.data());
    auto unique_keys = make_buffer<std::uint64_t>(backend, kept);
    auto unique_weights = make_buffer<Weight>(backend, kept);
    const auto ends =
        thrust::reduce_by_key(exec, keys.data(), keys.data() + kept, weights.data(), unique_keys.data(),
                              unique_weights.data(), thrust::equal_to<std::uint64_t>{}, thrust::minimum<Weight>{});
    kept = static_cast<std::uint64_t>(ends.first - unique_keys.data());
    keys = std::move(unique_keys);
    weights = make_buffer<Weight>(backend, kept);
    thrust::copy(exec, unique_weights.data(), unique_weights.data() + kept, weights.data());
  } else {
    kept = static_cast<std::uint64_t>(thrust::remove_if(exec, keys.data(), keys.data() + arcs, is_self_loop{}) -
                                      keys.data());
    thrust::sort(exec, keys.data(), keys.data() + kept);
    kept = static_cast<std::uint64_t>(thrust::unique(exec, keys.data(), keys.data() + kept) - keys.data());
  }

  auto columns = make_buffer<vertex_id>(backend, kept);
  thrust::transform(exec, keys.data(), keys.data() + kept, columns.data(), arc_target{});
  auto row_offsets = make_buffer<std::uint64_t>(backend, vertex_count + 1);
  const auto row_starts = thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0), row_start_key{});
  thrust::lower_bound(exec, keys.data(), keys.data() + kept, row_starts, row_starts + vertex_count + 1,
                      row_offsets.data());
  backend.synchronize();
  return csr_graph<Weight, Backend>(backend, vertex_count, options.directed, weighted, std::move(row_offsets),
                                    std::move(columns), std::move(weights), std::move(original_ids));
}

template <class Weight, class Backend>
edge_list<Weight> to_host_edges(const csr_graph<Weight, Backend>& graph)
{
  edge_list<Weight> edges;
  edges.vertex_count = graph.vertex_count();
  const auto offsets = to_host(graph.row_offsets(), graph.backend());
  edges.targets = to_host(graph.columns(), graph.backend());
  if (graph.weighted()) { edges.weights = to_host(graph.weights(), graph.backend()); }
  edges.sources.resize(edges.targets.size());
  for (std::uint64_t v = 0; v < graph.vertex_count(); ++v) {
    std::fill(edges.sources.begin() + static_cast<std::ptrdiff_t>(offsets[v]),
              edges.sources.begin() + static_cast<std::ptrdiff_t>(offsets[v + 1]), static_cast<vertex_id>(v));
  }
  return edges;
}

}  // namespace warpdex::graph::detail

namespace warpdex::graph {

template <class Weight, class Backend>
csr_graph<Weight, Backend> build_csr_graph(const Backend& backend, const edge_list<Weight>& edges,
                                           const graph_build_options& options)
{
  return detail::build(backend, edges, options);
}

template <class Weight, class Backend>
edge_list<Weight> to_edge_list(const csr_graph<Weight, Backend>& graph)
{
  return detail::to_host_edges(graph);
}

}  // namespace warpdex::graph

#define WARPDEX_INSTANTIATE_CSR_GRAPH(Backend, Weight)                                                           \
  template csr_graph<Weight, Backend> build_csr_graph<Weight, Backend>(const Backend&, const edge_list<Weight>&, \
                                                                       const graph_build_options&);              \
  template edge_list<Weight> to_edge_list<Weight, Backend>(const csr_graph<Weight, Backend>&);
