// build_csr_graph against a std::map model of the arcs it must keep, on every backend: self-loops
// dropped, repeated arcs merged with their smallest weight, undirected edges doubled, ids compacted;
// and the generators' shapes.
#include <warpdex/graph/csr_graph.hpp>
#include <warpdex/graph/generators.hpp>

#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace warpdex::graph {
namespace {

using warpdex::testing::all_backends;
using warpdex::testing::backend_names;
using warpdex::testing::backend_test;
using warpdex::testing::expect_error_mentioning;

template <class Backend>
class graph_build_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(graph_build_test, all_backends, backend_names);

using arc_map = std::map<std::pair<vertex_id, vertex_id>, std::int32_t>;

/// The arcs a graph must hold: no self-loops, one arc per (u, v) with the smallest weight.
arc_map model_arcs(const edge_list<std::int32_t>& edges, bool directed)
{
  arc_map arcs;
  const auto add = [&](vertex_id u, vertex_id v, std::int32_t w) {
    if (u == v) { return; }
    const auto [place, inserted] = arcs.emplace(std::make_pair(u, v), w);
    if (!inserted) { place->second = std::min(place->second, w); }
  };
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const std::int32_t w = edges.weighted() ? edges.weights[i] : 0;
    add(edges.sources[i], edges.targets[i], w);
    if (!directed) { add(edges.targets[i], edges.sources[i], w); }
  }
  return arcs;
}

template <class Backend>
void expect_graph_holds(const csr_graph<std::int32_t, Backend>& graph, const arc_map& expected)
{
  const edge_list<std::int32_t> arcs = to_edge_list(graph);
  ASSERT_EQ(arcs.size(), expected.size());
  ASSERT_EQ(graph.edge_count(), expected.size());
  std::size_t i = 0;
  for (const auto& [arc, weight] : expected) {  // map order = CSR order (source, then target)
    ASSERT_EQ(arcs.sources[i], arc.first) << "arc " << i;
    ASSERT_EQ(arcs.targets[i], arc.second) << "arc " << i;
    if (graph.weighted()) { ASSERT_EQ(arcs.weights[i], weight) << "arc " << i; }
    ++i;
  }
}

edge_list<std::int32_t> random_edges(std::uint64_t seed, std::uint32_t vertices, std::size_t count, bool weighted)
{
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<vertex_id> vertex(0, vertices - 1);
  std::uniform_int_distribution<std::int32_t> weight(0, 20);
  edge_list<std::int32_t> edges;
  edges.vertex_count = vertices;
  for (std::size_t i = 0; i < count; ++i) {
    if (weighted) {
      edges.add(vertex(random), vertex(random), weight(random));
    } else {
      edges.add(vertex(random), vertex(random));
    }
  }
  return edges;
}

TYPED_TEST(graph_build_test, self_loops_dropped_and_repeats_keep_the_smallest_weight)
{
  edge_list<std::int32_t> edges;
  edges.vertex_count = 5;  // vertex 4 has no edge but exists
  edges.add(0, 1, 7);
  edges.add(0, 1, 3);  // repeat: the smaller weight wins
  edges.add(0, 1, 9);
  edges.add(2, 2, 1);  // self-loop: dropped
  edges.add(3, 0, 0);
  edges.add(1, 0, 4);
  for (const bool directed : {true, false}) {
    SCOPED_TRACE(directed ? "directed" : "undirected");
    const auto graph = build_csr_graph(this->backend(), edges, {.directed = directed});
    EXPECT_EQ(graph.vertex_count(), 5U);
    EXPECT_EQ(graph.directed(), directed);
    expect_graph_holds(graph, model_arcs(edges, directed));
    // Undirected: (0, 1) and (1, 0) are one edge with weight min(7, 3, 9, 4) = 3 in both directions.
    if (!directed) {
      const auto arcs = to_edge_list(graph);
      EXPECT_EQ(arcs.weights[0], 3);
    }
  }
}

TYPED_TEST(graph_build_test, random_edge_lists_match_the_model)
{
  const std::uint64_t fresh = std::random_device{}();
  for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{2}, fresh}) {
    for (const bool weighted : {true, false}) {
      for (const bool directed : {true, false}) {
        SCOPED_TRACE("seed " + std::to_string(seed) + (weighted ? " weighted" : " unweighted") +
                     (directed ? " directed" : " undirected"));
        const auto edges = random_edges(seed, 300, 3000, weighted);
        const auto graph = build_csr_graph(this->backend(), edges, {.directed = directed});
        EXPECT_EQ(graph.weighted(), weighted);
        expect_graph_holds(graph, model_arcs(edges, directed));
        EXPECT_EQ(graph.row_offsets().size(), 301U);
      }
    }
  }
}

TYPED_TEST(graph_build_test, sparse_ids_are_compacted_and_mapped_back)
{
  edge_list<std::int32_t> edges;
  edges.add(1000000, 7, 2);
  edges.add(7, 4000000000U, 5);
  edges.add(4000000000U, 1000000, 1);
  const auto graph = build_csr_graph(this->backend(), edges, {.directed = true, .compact_ids = true});
  ASSERT_EQ(graph.vertex_count(), 3U);
  EXPECT_EQ(graph.original_ids(), (std::vector<vertex_id>{7, 1000000, 4000000000U}));
  EXPECT_EQ(graph.vertex_of(1000000), 1U);
  EXPECT_EQ(graph.id_of(2), 4000000000U);
  expect_error_mentioning<error>([&] { (void)graph.vertex_of(8); }, {"vertex 8 is not in the graph"});
  arc_map expected{{{1, 0}, 2}, {{0, 2}, 5}, {{2, 1}, 1}};
  expect_graph_holds(graph, expected);
}

TYPED_TEST(graph_build_test, empty_and_edgeless_graphs)
{
  edge_list<std::int32_t> edges;
  const auto empty = build_csr_graph(this->backend(), edges);
  EXPECT_EQ(empty.vertex_count(), 0U);
  EXPECT_EQ(empty.edge_count(), 0U);
  edges.vertex_count = 4;
  edges.add(2, 2, 1);  // only a self-loop
  const auto lonely = build_csr_graph(this->backend(), edges);
  EXPECT_EQ(lonely.vertex_count(), 4U);
  EXPECT_EQ(lonely.edge_count(), 0U);
  EXPECT_EQ(to_edge_list(lonely).size(), 0U);
}

TYPED_TEST(graph_build_test, bad_edge_lists_are_rejected)
{
  edge_list<std::int32_t> edges;
  edges.vertex_count = 3;
  edges.add(0, 3, 1);
  expect_error_mentioning<error>([&] { (void)build_csr_graph(this->backend(), edges); },
                                 {"vertex id 3 is out of range for 3 vertices"});
  edges = {};
  edges.add(0, 1, -2);
  expect_error_mentioning<error>([&] { (void)build_csr_graph(this->backend(), edges); },
                                 {"edge 0 (0 -> 1) has weight -2", "weights must be >= 0"});
  edge_list<float> nan_edges;
  nan_edges.add(1, 0, std::numeric_limits<float>::quiet_NaN());
  expect_error_mentioning<error>([&] { (void)build_csr_graph(this->backend(), nan_edges); }, {"not NaN"});
  edges = {};
  edges.add(0, 1, 1);
  edges.add(1, 2);  // two edges, one weight
  expect_error_mentioning<error>([&] { (void)build_csr_graph(this->backend(), edges); }, {"2 edges but 1 weights"});
  edges = {};
  edges.add(0, no_vertex);
  expect_error_mentioning<error>([&] { (void)build_csr_graph(this->backend(), edges); }, {"is reserved"});
}

TYPED_TEST(graph_build_test, negative_zero_weights_become_zero)
{
  edge_list<float> edges;
  edges.add(0, 1, -0.0F);
  const auto graph = build_csr_graph(this->backend(), edges);
  const auto arcs = to_edge_list(graph);
  ASSERT_EQ(arcs.size(), 1U);
  EXPECT_FALSE(std::signbit(arcs.weights[0]));
}

TEST(graph_generators, shapes_and_reproducibility)
{
  const weight_distribution uniform{};
  const auto grid = generate_grid<std::int32_t>({.width = 5, .height = 3}, uniform);
  EXPECT_EQ(grid.vertex_count, 15U);
  EXPECT_EQ(grid.size(), 2U * 15 - 5 - 3);
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const vertex_id u = grid.sources[i];
    const vertex_id v = grid.targets[i];
    EXPECT_TRUE(v == u + 1 || v == u + 5) << u << " - " << v;
    EXPECT_TRUE(v != u + 1 || u % 5 != 4) << "a horizontal edge wraps a row: " << u;
    EXPECT_GE(grid.weights[i], 1);
    EXPECT_LE(grid.weights[i], 1000);
  }
  const auto rmat = generate_rmat<float>({.scale = 10, .edge_factor = 8, .seed = 3}, std::nullopt);
  EXPECT_EQ(rmat.vertex_count, 1024U);
  EXPECT_EQ(rmat.size(), 8192U);
  EXPECT_FALSE(rmat.weighted());
  const auto again = generate_rmat<float>({.scale = 10, .edge_factor = 8, .seed = 3}, std::nullopt);
  EXPECT_EQ(rmat.sources, again.sources);
  EXPECT_EQ(rmat.targets, again.targets);
  // R-MAT is skewed: vertex 0 (the top-left quadrant every level) has far more than the mean degree.
  const auto hub_degree = std::count(rmat.sources.begin(), rmat.sources.end(), 0U);
  EXPECT_GT(hub_degree, 8 * 8);
  const auto ring = generate_small_world<std::int32_t>({.vertices = 100, .neighbours = 4, .rewire = 0}, std::nullopt);
  ASSERT_EQ(ring.size(), 200U);
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const vertex_id gap = (ring.targets[i] + 100 - ring.sources[i]) % 100;
    EXPECT_TRUE(gap == 1 || gap == 2);
  }
}

TEST(graph_generators, weight_distributions)
{
  weight_distribution uniform{.min_weight = 0, .max_weight = 9, .seed = 5};
  weight_distribution skewed = uniform;
  skewed.kind = weight_distribution::shape::skewed;
  std::vector<int> uniform_counts(10);
  std::vector<int> skewed_counts(10);
  constexpr int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    ++uniform_counts.at(static_cast<std::size_t>(uniform.draw<std::int32_t>(i)));
    ++skewed_counts.at(static_cast<std::size_t>(skewed.draw<std::int32_t>(i)));
  }
  for (const int count : uniform_counts) { EXPECT_NEAR(count, draws / 10, draws / 50); }
  // u^3 < 0.1 for u < 0.464: almost half the skewed draws are 0.
  EXPECT_NEAR(skewed_counts[0], 0.464 * draws, draws / 50);
  EXPECT_LT(skewed_counts[9], draws / 20);
  const float f = weight_distribution{.min_weight = 0.5, .max_weight = 0.75}.draw<float>(3);
  EXPECT_GE(f, 0.5F);
  EXPECT_LE(f, 0.75F);
  expect_error_mentioning<error>(
      [] {
        (void)generate_grid<float>({.width = 2, .height = 2}, weight_distribution{.min_weight = 3, .max_weight = 2});
      },
      {"min (3.000000) <= max (2.000000)"});
  expect_error_mentioning<error>([] { (void)generate_rmat<float>({.scale = 0}, std::nullopt); }, {"scale 0"});
}

std::string file_text(const std::string& path)
{
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(graph_docs, the_page_opens_with_the_compiled_example)
{
  // A check of the source tree (docs/ against tests/): skipped where the binary runs without it.
  if (!std::filesystem::exists(WARPDEX_SOURCE_DIR "/docs/graph.md")) {
    GTEST_SKIP() << "the source tree is not here (" WARPDEX_SOURCE_DIR "): docs/graph.md is checked where it is";
  }
  const std::string example = file_text(WARPDEX_SOURCE_DIR "/tests/graph/docs_example.cpp");
  const std::string code = example.substr(example.find("#include"));
  const std::string page = file_text(WARPDEX_SOURCE_DIR "/docs/graph.md");
  EXPECT_NE(page.find(code), std::string::npos) << "docs/graph.md no longer holds tests/graph/docs_example.cpp";
}

}  // namespace
}  // namespace warpdex::graph
