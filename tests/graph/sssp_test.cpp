// sssp against Boost.Graph's dijkstra_shortest_paths on every generator (fixed and fresh seeds), every
// algorithm, both weight types and every backend; the predecessor tree checked as a shortest-path tree;
// the corner cases (self-loops, parallel arcs, zero-weight cycles, one vertex, unreachable vertices) and
// the errors.
#include <warpdex/graph/csr_graph.hpp>
#include <warpdex/graph/generators.hpp>
#include <warpdex/graph/sssp.hpp>

#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace warpdex::graph {
namespace {

using warpdex::testing::all_backends;
using warpdex::testing::backend_names;
using warpdex::testing::backend_test;
using warpdex::testing::expect_error_mentioning;

template <class Backend>
class sssp_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(sssp_test, all_backends, backend_names);

constexpr sssp_algorithm all_algorithms[] = {sssp_algorithm::automatic, sssp_algorithm::delta_stepping,
                                             sssp_algorithm::near_far, sssp_algorithm::bellman_ford,
                                             sssp_algorithm::async_delta_stepping};

/// Boost's Dijkstra over the graph's arcs, with the same distance type (so float sums round alike);
/// unreachable vertices get `unreachable<Weight>`.
template <class Weight>
std::vector<distance_t<Weight>> boost_dijkstra(const edge_list<Weight>& arcs, vertex_id source)
{
  using distance = distance_t<Weight>;
  using boost_graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                            boost::property<boost::edge_weight_t, distance>>;
  boost_graph g(arcs.vertex_count);
  for (std::size_t i = 0; i < arcs.size(); ++i) {
    boost::add_edge(arcs.sources[i], arcs.targets[i], arcs.weighted() ? static_cast<distance>(arcs.weights[i]) : 1, g);
  }
  std::vector<distance> distances(arcs.vertex_count);
  const distance infinity = std::numeric_limits<distance>::max();
  boost::dijkstra_shortest_paths(
      g, source, boost::distance_map(distances.data()).distance_inf(infinity).distance_zero(distance{0}));
  for (auto& d : distances) {
    if (d == infinity) { d = unreachable<Weight>; }
  }
  return distances;
}

/// pred[source] = source; every other reached v has a tight arc from pred[v]; the tree reaches v from the
/// source without a cycle; unreached vertices have no predecessor.
template <class Weight>
void expect_shortest_path_tree(const edge_list<Weight>& arcs, const std::vector<std::uint64_t>& offsets,
                               vertex_id source, const std::vector<distance_t<Weight>>& distances,
                               const std::vector<vertex_id>& predecessors)
{
  const std::size_t n = distances.size();
  ASSERT_EQ(predecessors.size(), n);
  ASSERT_EQ(predecessors[source], source);
  for (vertex_id v = 0; v < n; ++v) {
    if (v == source) { continue; }
    if (distances[v] == unreachable<Weight>) {
      ASSERT_EQ(predecessors[v], no_vertex) << "unreached vertex " << v;
      continue;
    }
    const vertex_id p = predecessors[v];
    ASSERT_LT(p, n) << "reached vertex " << v << " has no predecessor";
    bool tight = false;
    for (std::uint64_t arc = offsets[p]; arc < offsets[p + 1]; ++arc) {
      const distance_t<Weight> w = arcs.weighted() ? static_cast<distance_t<Weight>>(arcs.weights[arc]) : 1;
      tight = tight || (arcs.targets[arc] == v && distances[p] + w == distances[v]);
    }
    ASSERT_TRUE(tight) << "arc " << p << " -> " << v << " is missing or not tight";
  }
  // Walk up from every vertex: the source within n steps (0 = unknown, 1 = on the walk, 2 = reaches it).
  std::vector<std::uint8_t> state(n, 0);
  state[source] = 2;
  for (vertex_id v = 0; v < n; ++v) {
    if (distances[v] == unreachable<Weight>) { continue; }
    std::vector<vertex_id> walk;
    vertex_id at = v;
    while (state[at] == 0) {
      state[at] = 1;
      walk.push_back(at);
      at = predecessors[at];
    }
    ASSERT_EQ(state[at], 2) << "the predecessors of " << v << " run in a cycle";
    for (const vertex_id w : walk) { state[w] = 2; }
  }
}

/// The CSR offsets of arcs listed in CSR order.
template <class Weight>
std::vector<std::uint64_t> offsets_of(const edge_list<Weight>& arcs)
{
  std::vector<std::uint64_t> offsets(arcs.vertex_count + 1, 0);
  for (const vertex_id s : arcs.sources) { ++offsets[s + 1]; }
  for (std::size_t v = 0; v < arcs.vertex_count; ++v) { offsets[v + 1] += offsets[v]; }
  return offsets;
}

/// sssp.hpp's `automatic`: host: the parallel delta-stepping; cuda: the asynchronous kernel on graphs of mean
/// out-degree below 6 and at least 2^17 arcs, delta-stepping otherwise.
template <class Backend>
sssp_algorithm automatic_choice(std::uint64_t vertices, std::uint64_t arcs)
{
  if (std::is_same_v<Backend, host> || (arcs >= (std::uint64_t{1} << 17) && arcs < 6 * vertices)) {
    return sssp_algorithm::async_delta_stepping;
  }
  return sssp_algorithm::delta_stepping;
}

/// Every algorithm from `source` equals Boost's distances; predecessor trees are valid and equal.
template <class Weight, class Backend>
void expect_all_algorithms_match_dijkstra(const csr_graph<Weight, Backend>& graph, vertex_id source)
{
  const edge_list<Weight> arcs = to_edge_list(graph);
  const auto expected = boost_dijkstra(arcs, source);
  const auto offsets = offsets_of(arcs);
  std::vector<vertex_id> first_tree;
  for (const sssp_algorithm algorithm : all_algorithms) {
    SCOPED_TRACE("algorithm " + to_string(algorithm));
    const auto result = sssp(graph, source, {.algorithm = algorithm, .predecessors = true});
    const auto distances = result.distances.to_vector();
    ASSERT_EQ(distances.size(), expected.size());
    for (std::size_t v = 0; v < expected.size(); ++v) { ASSERT_EQ(distances[v], expected[v]) << "vertex " << v; }
    if (!std::is_same_v<Backend, host> && algorithm != sssp_algorithm::async_delta_stepping) {
      // Every round from the host, every round in the kernel, and a hand-over after 3 rounds end at the
      // same distances.
      for (const std::uint32_t host_rounds : {every_round, 0U, 3U}) {
        const auto other = sssp(graph, source, {.algorithm = algorithm, .host_rounds = host_rounds});
        ASSERT_EQ(other.distances.to_vector(), distances) << host_rounds << " host rounds";
      }
    }
    const auto predecessors = result.predecessors.to_vector();
    expect_shortest_path_tree(arcs, offsets, source, distances, predecessors);
    if (first_tree.empty()) {
      first_tree = predecessors;
    } else {
      ASSERT_EQ(predecessors, first_tree) << "the tree differs between algorithms";
    }
    const auto reached = static_cast<std::uint64_t>(
        std::count_if(expected.begin(), expected.end(), [](auto d) { return d != unreachable<Weight>; }));
    EXPECT_EQ(result.statistics.reached, reached);
    if (algorithm == sssp_algorithm::automatic) {
      EXPECT_EQ(result.statistics.algorithm, automatic_choice<Backend>(graph.vertex_count(), graph.edge_count()));
    } else {
      EXPECT_EQ(result.statistics.algorithm, algorithm);
    }
  }
}

template <class Weight, class Backend>
void check_generated_graphs(const Backend& backend, std::uint64_t seed)
{
  SCOPED_TRACE("seed " + std::to_string(seed) + (std::is_integral_v<Weight> ? " int32" : " float"));
  weight_distribution uniform{.min_weight = 0, .max_weight = 1000, .seed = seed};
  weight_distribution skewed = uniform;
  skewed.kind = weight_distribution::shape::skewed;
  {
    SCOPED_TRACE("rmat uniform");
    const auto g =
        build_csr_graph(backend, generate_rmat<Weight>({.scale = 12, .edge_factor = 8, .seed = seed}, uniform));
    expect_all_algorithms_match_dijkstra(g, 0);
  }
  {
    SCOPED_TRACE("rmat skewed, undirected, from a low-degree vertex");
    const auto g = build_csr_graph(
        backend, generate_rmat<Weight>({.scale = 10, .edge_factor = 4, .seed = seed}, skewed), {.directed = false});
    expect_all_algorithms_match_dijkstra(g, static_cast<vertex_id>(seed % g.vertex_count()));
  }
  {
    SCOPED_TRACE("grid");
    const auto g =
        build_csr_graph(backend, generate_grid<Weight>({.width = 64, .height = 48}, uniform), {.directed = false});
    expect_all_algorithms_match_dijkstra(g, static_cast<vertex_id>(seed % g.vertex_count()));
  }
  {
    SCOPED_TRACE("geometric, uniform");
    const auto g =
        build_csr_graph(backend, generate_geometric<Weight>({.vertices = 4000, .neighbours = 4, .seed = seed}, uniform),
                        {.directed = false});
    expect_all_algorithms_match_dijkstra(g, static_cast<vertex_id>(seed % g.vertex_count()));
  }
  {
    // One nearest neighbour: many small components apart; skewed weights from 0 give many zero weights.
    SCOPED_TRACE("geometric, skewed, k = 1");
    const auto g =
        build_csr_graph(backend, generate_geometric<Weight>({.vertices = 3000, .neighbours = 1, .seed = seed}, skewed),
                        {.directed = false});
    expect_all_algorithms_match_dijkstra(g, static_cast<vertex_id>(seed % g.vertex_count()));
  }
  {
    SCOPED_TRACE("small world, unweighted");
    const auto g = build_csr_graph(
        backend,
        generate_small_world<Weight>({.vertices = 5000, .neighbours = 4, .rewire = 0.05, .seed = seed}, std::nullopt),
        {.directed = false});
    expect_all_algorithms_match_dijkstra(g, 1);
  }
}

TYPED_TEST(sssp_test, generated_graphs_match_boost_dijkstra)
{
  const std::uint64_t fresh = std::random_device{}();
  for (const std::uint64_t seed : {std::uint64_t{7}, fresh}) {
    check_generated_graphs<std::int32_t>(this->backend(), seed);
    check_generated_graphs<float>(this->backend(), seed);
  }
}

TYPED_TEST(sssp_test, corner_cases)
{
  // Self-loops, parallel arcs (the lighter one counts), a zero-weight cycle, unreachable vertices.
  edge_list<std::int32_t> edges;
  edges.vertex_count = 8;
  edges.add(0, 0, 5);  // self-loop
  edges.add(0, 1, 9);
  edges.add(0, 1, 4);  // parallel, lighter
  edges.add(1, 2, 0);  // zero-weight cycle 1 -> 2 -> 3 -> 1
  edges.add(2, 3, 0);
  edges.add(3, 1, 0);
  edges.add(3, 4, 2);
  edges.add(6, 7, 1);  // 5, 6, 7 unreachable from 0
  const auto g = build_csr_graph(this->backend(), edges);
  expect_all_algorithms_match_dijkstra(g, 0);
  const auto result = sssp(g, 0, {.predecessors = true});
  const auto distances = result.distances.to_vector();
  EXPECT_EQ(distances, (std::vector<std::uint64_t>{0, 4, 4, 4, 6, unreachable<std::int32_t>, unreachable<std::int32_t>,
                                                   unreachable<std::int32_t>}));
  // The tree takes the fewest tight arcs: 1 from 0, 2 from 1, 3 from 2, 4 from 3.
  EXPECT_EQ(result.predecessors.to_vector(), (std::vector<vertex_id>{0, 0, 1, 2, 3, no_vertex, no_vertex, no_vertex}));
  EXPECT_EQ(result.statistics.reached, 5U);

  // One vertex, no arcs.
  edge_list<float> single;
  single.vertex_count = 1;
  const auto one = build_csr_graph(this->backend(), single);
  for (const sssp_algorithm algorithm : all_algorithms) {
    const auto alone = sssp(one, 0, {.algorithm = algorithm, .predecessors = true});
    EXPECT_EQ(alone.distances.to_vector(), std::vector<float>{0.0F});
    EXPECT_EQ(alone.predecessors.to_vector(), std::vector<vertex_id>{0});
  }

  // Every weight 0: distances 0 along any path, and a tree all the same.
  edge_list<float> zeros;
  for (vertex_id v = 0; v + 1 < 50; ++v) { zeros.add(v + 1, v, 0.0F), zeros.add(v, v + 1, 0.0F); }
  expect_all_algorithms_match_dijkstra(build_csr_graph(this->backend(), zeros), 25);
}

TYPED_TEST(sssp_test, given_delta_and_bucket_counts_give_the_same_distances)
{
  // Weights up to 100: delta 1 then means hundreds of buckets, still quick.
  const auto g = build_csr_graph(
      this->backend(),
      generate_grid<std::int32_t>({.width = 20, .height = 20}, weight_distribution{.max_weight = 100, .seed = 4}),
      {.directed = false});
  const auto expected = boost_dijkstra(to_edge_list(g), 17);
  for (const double delta : {1.0, 37.0, 5000.0, 1e9}) {
    for (const std::uint32_t buckets : {2U, 3U, 64U}) {
      for (const sssp_algorithm algorithm :
           {sssp_algorithm::delta_stepping, sssp_algorithm::near_far, sssp_algorithm::async_delta_stepping}) {
        const auto result = sssp(g, 17, {.algorithm = algorithm, .delta = delta, .bucket_count = buckets});
        ASSERT_EQ(result.distances.to_vector(), expected)
            << to_string(algorithm) << " delta " << delta << " buckets " << buckets;
        EXPECT_EQ(result.statistics.delta, delta);
      }
    }
  }
}

/// A weighted graph with hubs (out-degree 3000, above the device rounds' 1024-arc chunking), vertices
/// of 33 to 1024 arcs (relaxed warp by warp) and light vertices, all reachable from vertex 0.
edge_list<std::int32_t> hub_graph(std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  constexpr vertex_id n = 6000;
  std::uniform_int_distribution<vertex_id> any_vertex(0, n - 1);
  std::uniform_int_distribution<std::int32_t> any_weight(0, 500);
  edge_list<std::int32_t> edges;
  edges.vertex_count = n;
  for (vertex_id v = 0; v + 1 < n; ++v) { edges.add(v, v + 1, 1000); }  // a slow path that reaches everyone
  for (const vertex_id hub : {0U, 17U, 4000U}) {
    for (int i = 0; i < 3000; ++i) { edges.add(hub, any_vertex(random), any_weight(random)); }
  }
  for (vertex_id v = 100; v < 160; ++v) {
    const int degree = 33 + static_cast<int>(random() % 1000);
    for (int i = 0; i < degree; ++i) { edges.add(v, any_vertex(random), any_weight(random)); }
  }
  for (int i = 0; i < 20000; ++i) { edges.add(any_vertex(random), any_vertex(random), any_weight(random)); }
  return edges;
}

TYPED_TEST(sssp_test, hubs_and_bucket_counts_match_boost_dijkstra)
{
  for (const std::uint64_t seed : {std::uint64_t{3}, std::uint64_t{std::random_device{}()}}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto edges = hub_graph(seed);
    const auto g = build_csr_graph(this->backend(), edges);
    expect_all_algorithms_match_dijkstra(g, 0);
    // The cuda backend keeps at most 256 buckets on the device and drives more from the host.
    const auto expected = boost_dijkstra(to_edge_list(g), 5);
    for (const std::uint32_t buckets : {2U, 256U, 300U}) {
      const auto result = sssp(
          g, 5, {.algorithm = sssp_algorithm::delta_stepping, .delta = 7, .bucket_count = buckets, .host_rounds = 0});
      ASSERT_EQ(result.distances.to_vector(), expected) << buckets << " buckets";
    }
  }
}

TYPED_TEST(sssp_test, async_delta_stepping_relaxes_hubs_lowered_while_their_chunks_run)
{
  // Hubs of 2000 arcs (chunks of 256 on cuda) reached through 1500 feeders each, by paths whose lengths
  // differ by a few units: a hub is lowered again and again while warps relax its chunks, and a chunk
  // that stops once its hub is queued again must leave the whole relaxation to the hub's next take.
  // Mean out-degree above 6 (the kernel's flag in the distance's word). A fixed and a fresh seed.
  for (const std::uint64_t seed : warpdex::testing::fixed_and_fresh_seeds(23)) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    constexpr vertex_id n = 5000;
    constexpr vertex_id feeders = 1500;
    constexpr vertex_id hubs[] = {1600, 2500, 4999};
    std::uniform_int_distribution<vertex_id> any_vertex(0, n - 1);
    edge_list<std::int32_t> edges;
    edges.vertex_count = n;
    for (vertex_id f = 1; f <= feeders; ++f) {
      edges.add(0, f, static_cast<std::int32_t>(random() % 1000));
      for (const vertex_id hub : hubs) { edges.add(f, hub, static_cast<std::int32_t>(random() % 8)); }
    }
    for (const vertex_id hub : hubs) {
      for (int i = 0; i < 2000; ++i) { edges.add(hub, any_vertex(random), static_cast<std::int32_t>(random() % 50)); }
    }
    for (int i = 0; i < 25000; ++i) {
      edges.add(any_vertex(random), any_vertex(random), static_cast<std::int32_t>(1 + random() % 1000));
    }
    const auto g = build_csr_graph(this->backend(), edges);
    ASSERT_GE(g.edge_count(), 6U * n);
    const auto expected = boost_dijkstra(to_edge_list(g), 0);
    for (const double delta : {1.0, 0.0, 4000.0}) {
      const sssp_options options{.algorithm = sssp_algorithm::async_delta_stepping, .delta = delta};
      ASSERT_EQ(sssp(g, 0, options).distances.to_vector(), expected) << "delta " << delta;
    }
  }
}

TYPED_TEST(sssp_test, async_delta_stepping_matches_boost_dijkstra_at_any_width)
{
  // Widths from one weight unit (thousands of buckets, many beyond the queue's window) to all in one
  // bucket; a road-like and a skewed power-law graph, a fixed and a fresh seed (fixed only when sanitized).
  std::vector<std::uint64_t> seeds{11};
  if (!warpdex::testing::sanitizer_sized()) { seeds.push_back(std::random_device{}()); }
  const std::uint32_t points = warpdex::testing::full_or_sanitizer_sized(20000U, 3000U);
  for (const std::uint64_t seed : seeds) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const weight_distribution weights{.min_weight = 0, .max_weight = 1000, .seed = seed};
    const auto geometric =
        build_csr_graph(this->backend(), generate_geometric<std::int32_t>({.vertices = points, .seed = seed}, weights),
                        {.directed = false});
    const auto rmat = build_csr_graph(
        this->backend(),
        generate_rmat<float>({.scale = 11, .edge_factor = 8, .seed = seed},
                             weight_distribution{.kind = weight_distribution::shape::skewed, .seed = seed}));
    const vertex_id source = static_cast<vertex_id>(seed % points);
    const auto expected_geometric = boost_dijkstra(to_edge_list(geometric), source);
    const auto expected_rmat = boost_dijkstra(to_edge_list(rmat), 0);
    for (const double delta : {1.0, 50.0, 0.0, 1000.0}) {
      SCOPED_TRACE("delta " + std::to_string(delta));
      const sssp_options options{.algorithm = sssp_algorithm::async_delta_stepping, .delta = delta};
      const auto on_geometric = sssp(geometric, source, options);
      ASSERT_EQ(on_geometric.distances.to_vector(), expected_geometric);
      EXPECT_EQ(on_geometric.statistics.algorithm, sssp_algorithm::async_delta_stepping);
      // Every reached vertex's arcs are relaxed at least once.
      const auto offsets = offsets_of(to_edge_list(geometric));
      std::uint64_t reached_arcs = 0;
      for (vertex_id v = 0; v < points; ++v) {
        if (expected_geometric[v] != unreachable<std::int32_t>) { reached_arcs += offsets[v + 1] - offsets[v]; }
      }
      EXPECT_GE(on_geometric.statistics.relaxed_arcs, reached_arcs);
      ASSERT_EQ(sssp(rmat, 0, options).distances.to_vector(), expected_rmat);
    }
    // A grid large enough for several width decisions on a GPU (one per threads/16 vertices taken): the
    // width moves only within 1/8 .. 64 times the first.
    SCOPED_TRACE("grid");
    const std::uint32_t side = warpdex::testing::full_or_sanitizer_sized(256U, 48U);
    const auto grid = build_csr_graph(
        this->backend(), generate_grid<std::int32_t>({.width = side, .height = side}, weights), {.directed = false});
    const vertex_id start = seed % 2 == 0 ? 0 : static_cast<vertex_id>(side / 2 * side + side / 2);
    const auto on_grid = sssp(grid, start, {.algorithm = sssp_algorithm::async_delta_stepping});
    const auto expected_grid = boost_dijkstra(to_edge_list(grid), start);
    ASSERT_EQ(on_grid.distances.to_vector(), expected_grid);
    if constexpr (!std::is_same_v<TypeParam, host>) {
      EXPECT_GE(on_grid.statistics.final_delta, std::floor(on_grid.statistics.delta / 8));
      EXPECT_LE(on_grid.statistics.final_delta, on_grid.statistics.delta * 64);
      // Every reached vertex's arcs are relaxed at least once (a vertex is taken from a near bucket or
      // from the stack of the warp that improved it); a take gets at most 32 vertices from a bucket.
      const sssp_statistics& s = on_grid.statistics;
      const auto grid_offsets = offsets_of(to_edge_list(grid));
      std::uint64_t reached_grid_arcs = 0;
      for (vertex_id v = 0; v + 1 < grid_offsets.size(); ++v) {
        if (expected_grid[v] != unreachable<std::int32_t>) {
          reached_grid_arcs += grid_offsets[v + 1] - grid_offsets[v];
        }
      }
      EXPECT_GE(s.relaxed_arcs, reached_grid_arcs);
      EXPECT_GE(s.takes, 1U);
      EXPECT_LE(s.popped, 32 * s.takes);
    } else {
      EXPECT_EQ(on_grid.statistics.takes + on_grid.statistics.popped, 0U);
    }
  }
}

TYPED_TEST(sssp_test, async_delta_stepping_on_ties_and_zero_weights_run_after_run)
{
  // Weights 0 .. 2 make many warps lower the same vertex to the same or nearly the same distance at once,
  // where a take's flag and a relaxation's flag must order the distance between them (a lowering the
  // taker misses while the relaxer sees the vertex still queued would leave a distance too large).
  // Several runs of a grid and a graph of hubs, a fresh seed.
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const weight_distribution weights{.min_weight = 0, .max_weight = 2, .seed = seed};
  const std::uint32_t side = warpdex::testing::full_or_sanitizer_sized(96U, 24U);
  const auto grid_edges = generate_grid<std::int32_t>({.width = side, .height = side}, weights);
  const auto grid = build_csr_graph(this->backend(), grid_edges, {.directed = false});
  const auto rmat = build_csr_graph(
      this->backend(), generate_rmat<std::int32_t>({.scale = 10, .edge_factor = 16, .seed = seed}, weights));
  const vertex_id start = static_cast<vertex_id>(seed % (std::uint64_t{side} * side));
  const auto expected_grid = boost_dijkstra(to_edge_list(grid), start);
  const auto expected_rmat = boost_dijkstra(to_edge_list(rmat), 0);
  const int runs = warpdex::testing::sanitizer_sized() ? 1 : 6;
  for (int run = 0; run < runs; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    for (const double delta : {1.0, 0.0}) {
      const sssp_options options{.algorithm = sssp_algorithm::async_delta_stepping, .delta = delta};
      ASSERT_EQ(sssp(grid, start, options).distances.to_vector(), expected_grid) << "delta " << delta;
      ASSERT_EQ(sssp(rmat, 0, options).distances.to_vector(), expected_rmat) << "delta " << delta;
    }
  }
}

/// A chain 0 -> 1 -> ... -> n - 1 of arcs weighing `chain` and `shortcuts` random arcs weighing [low, high]:
/// long paths of heavy arcs.
template <class Weight>
edge_list<Weight> heavy_chain(std::uint64_t seed, vertex_id n, vertex_id shortcuts, Weight chain, Weight low,
                              Weight high)
{
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<vertex_id> any_vertex(0, n - 1);
  std::uniform_real_distribution<double> fraction(0, 1);
  edge_list<Weight> edges;
  edges.vertex_count = n;
  for (vertex_id v = 0; v + 1 < n; ++v) { edges.add(v, v + 1, chain); }
  for (vertex_id i = 0; i < shortcuts; ++i) {
    const auto weight = static_cast<Weight>(static_cast<double>(low) + fraction(random) * (high - low));
    edges.add(any_vertex(random), any_vertex(random), weight);
  }
  return edges;
}

TYPED_TEST(sssp_test, async_delta_stepping_keeps_the_largest_distances)
{
  // int32 weights near 2^31 give distances past 2^32, and float weights near 10^38 give sums past FLT_MAX,
  // which round to +infinity and so lower no distance (Boost's Dijkstra leaves those vertices unreached
  // too). With 250 or 6000 shortcuts on 2000 vertices the cuda kernel keeps its queued flags apart; with
  // 12000 (7 arcs a vertex) in the distance's word, the distance shifted by a bit. A fixed and a fresh seed.
  for (const std::uint64_t seed : warpdex::testing::fixed_and_fresh_seeds(5)) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const sssp_options options{.algorithm = sssp_algorithm::async_delta_stepping};
    constexpr std::int32_t largest = std::numeric_limits<std::int32_t>::max();
    for (const vertex_id shortcuts : {250U, 12000U}) {
      SCOPED_TRACE(std::to_string(shortcuts) + " int32 shortcuts");
      const auto wide = build_csr_graph(
          this->backend(), heavy_chain<std::int32_t>(seed, 2000, shortcuts, largest, largest / 2, largest));
      const auto wide_expected = boost_dijkstra(to_edge_list(wide), 0);
      std::uint64_t farthest = 0;
      for (const auto d : wide_expected) {
        farthest = d != unreachable<std::int32_t> ? std::max(farthest, d) : farthest;
      }
      ASSERT_GT(farthest, std::uint64_t{1} << 32);
      ASSERT_EQ(sssp(wide, 0, options).distances.to_vector(), wide_expected);
    }
    for (const vertex_id shortcuts : {6000U, 12000U}) {
      SCOPED_TRACE(std::to_string(shortcuts) + " float shortcuts");
      const auto huge =
          build_csr_graph(this->backend(), heavy_chain<float>(seed, 2000, shortcuts, 3e37F, 1e38F, 3e38F));
      const auto huge_expected = boost_dijkstra(to_edge_list(huge), 0);
      ASSERT_GT(std::count(huge_expected.begin(), huge_expected.end(), unreachable<float>), 0);
      ASSERT_GT(huge_expected[4], 1e38F);  // 4 chain arcs: finite, past 10^38
      ASSERT_EQ(sssp(huge, 0, options).distances.to_vector(), huge_expected);
    }
  }
}

TYPED_TEST(sssp_test, automatic_runs_the_asynchronous_kernel_on_road_like_graphs)
{
  // On cuda the asynchronous kernel for a grid and a random geometric graph (degree 4-5) of more than 2^17
  // arcs, the bucketed rounds for a smaller grid and for an R-MAT graph of degree about 14; the distances
  // equal Boost's either way.
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const weight_distribution weights{.min_weight = 0, .max_weight = 1000, .seed = seed};
  struct road_case {
    const char* name;
    csr_graph<std::int32_t, TypeParam> graph;
    bool async_on_cuda;
  };
  const std::vector<road_case> cases = [&] {
    std::vector<road_case> built;
    built.push_back(
        {"grid 256 x 256",
         build_csr_graph(this->backend(), generate_grid<std::int32_t>({.width = 256, .height = 256}, weights),
                         {.directed = false}),
         true});
    built.push_back(
        {"geometric 40000",
         build_csr_graph(this->backend(), generate_geometric<std::int32_t>({.vertices = 40000, .seed = seed}, weights),
                         {.directed = false}),
         true});
    built.push_back(
        {"grid 100 x 100",
         build_csr_graph(this->backend(), generate_grid<std::int32_t>({.width = 100, .height = 100}, weights),
                         {.directed = false}),
         false});
    built.push_back({"rmat 2^14",
                     build_csr_graph(this->backend(), generate_rmat<std::int32_t>(
                                                          {.scale = 14, .edge_factor = 16, .seed = seed}, weights)),
                     false});
    return built;
  }();
  for (const road_case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto result = sssp(c.graph, 0);
    const sssp_algorithm expected = std::is_same_v<TypeParam, host> || c.async_on_cuda
                                        ? sssp_algorithm::async_delta_stepping
                                        : sssp_algorithm::delta_stepping;
    EXPECT_EQ(result.statistics.algorithm, expected);
    EXPECT_EQ(result.statistics.algorithm, automatic_choice<TypeParam>(c.graph.vertex_count(), c.graph.edge_count()));
    ASSERT_EQ(result.distances.to_vector(), boost_dijkstra(to_edge_list(c.graph), 0));
  }
}

TYPED_TEST(sssp_test, bad_input_is_rejected)
{
  edge_list<std::int32_t> edges;
  edges.add(0, 1, 3);
  const auto g = build_csr_graph(this->backend(), edges);
  expect_error_mentioning<error>([&] { (void)sssp(g, 2); }, {"source 2 is out of range", "2 vertices"});
  expect_error_mentioning<error>([&] { (void)sssp(g, 0, {.delta = -1}); }, {"delta must be >= 0"});
  expect_error_mentioning<error>([&] { (void)sssp(g, 0, {.bucket_count = 1}); }, {"bucket_count must be >= 2"});
  const auto empty = build_csr_graph(this->backend(), edge_list<std::int32_t>{});
  expect_error_mentioning<error>([&] { (void)sssp(empty, 0); }, {"the graph has no vertices"});

  // A graph assembled by hand with a negative weight: sssp checks the weights itself.
  const auto backend = this->backend();
  const std::vector<std::uint64_t> offsets{0, 1, 1};
  const std::vector<vertex_id> columns{1};
  const std::vector<std::int32_t> weights{-4};
  csr_graph<std::int32_t, TypeParam> negative(backend, 2, true, true,
                                              warpdex::testing::make_buffer_from<std::uint64_t>(backend, offsets),
                                              warpdex::testing::make_buffer_from<vertex_id>(backend, columns),
                                              warpdex::testing::make_buffer_from<std::int32_t>(backend, weights), {});
  expect_error_mentioning<error>([&] { (void)sssp(negative, 0); }, {"arc 0 has weight -4", "weights >= 0"});
}

#if WARPDEX_HAS_CUDA
class sssp_cuda_scale : public warpdex::testing::cuda_test {};

/// Larger graphs than the typed cases (GPU only; "Huge" keeps it out of the sanitizer runs): the
/// cuda backend equals the host backend and the sequential Dijkstra, predecessors included.
TEST_F(sssp_cuda_scale, HugeGraphsEqualTheHostBackend)
{
  const weight_distribution weights{.min_weight = 0, .max_weight = 1000, .seed = std::random_device{}()};
  SCOPED_TRACE("weight seed " + std::to_string(weights.seed));
  const auto rmat = generate_rmat<float>({.scale = 16, .edge_factor = 16, .seed = weights.seed}, weights);
  const auto grid = generate_grid<std::int32_t>({.width = 300, .height = 200}, weights);
  for (const sssp_algorithm algorithm : all_algorithms) {
    SCOPED_TRACE(to_string(algorithm));
    const sssp_options options{.algorithm = algorithm, .predecessors = true};
    const auto on_gpu = sssp(build_csr_graph(cuda{}, rmat), 0, options);
    const auto on_host = sssp(build_csr_graph(host{}, rmat), 0, options);
    ASSERT_EQ(on_gpu.distances.to_vector(), on_host.distances.to_vector());
    ASSERT_EQ(on_gpu.predecessors.to_vector(), on_host.predecessors.to_vector());
    const auto grid_gpu = build_csr_graph(cuda{}, grid, {.directed = false});
    const auto grid_result = sssp(grid_gpu, 12345, options);
    const auto arcs = to_edge_list(grid_gpu);
    const auto distances = grid_result.distances.to_vector();
    ASSERT_EQ(distances, boost_dijkstra(arcs, 12345));
    expect_shortest_path_tree(arcs, offsets_of(arcs), 12345, distances, grid_result.predecessors.to_vector());
  }
}
#endif

TEST(sssp_names, parse_and_print)
{
  for (const sssp_algorithm algorithm : all_algorithms) {
    EXPECT_EQ(parse_sssp_algorithm(to_string(algorithm)), algorithm);
  }
  expect_error_mentioning<error>([] { (void)parse_sssp_algorithm("dijkstra"); }, {"unknown SSSP algorithm 'dijkstra'"});
}

}  // namespace
}  // namespace warpdex::graph
