// Maximal cliques against igraph's igraph_maximal_cliques on every backend of the build: random graphs
// of several densities (fixed seeds and a fresh one), planted overlapping cliques, the generators' grids,
// rings and R-MAT graphs; known answers (complete, empty and star graphs, isolated vertices); the same
// output on both backends; min_size, count_only, the memory limit's error and bad input.
#include "dpp_test_support.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"
#include "cliques_workload.hpp"

#include <warpdex/dpp/maximal_cliques.hpp>
#include <warpdex/graph/csr_graph.hpp>
#include <warpdex/graph/generators.hpp>

#include <igraph.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace warpdex::testing;
using namespace warpdex::dpp;
using warpdex::graph::edge_list;
using warpdex::graph::vertex_id;
using clique_list = std::vector<std::vector<vertex_id>>;

template <class Backend>
class maximal_cliques_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(maximal_cliques_test, all_backends, backend_names);

/// igraph's maximal cliques of the edge list (as an undirected simple graph), each sorted, the list
/// sorted. igraph reports isolated vertices as cliques of one vertex too.
clique_list igraph_cliques(const edge_list<std::int32_t>& edges, std::uint32_t min_size = 0)
{
  igraph_vector_int_t ends;
  igraph_vector_int_init(&ends, static_cast<igraph_integer_t>(2 * edges.size()));
  for (std::size_t e = 0; e < edges.size(); ++e) {
    VECTOR(ends)[2 * e] = edges.sources[e];
    VECTOR(ends)[2 * e + 1] = edges.targets[e];
  }
  igraph_t graph;
  igraph_create(&graph, &ends, static_cast<igraph_integer_t>(edges.vertex_count), IGRAPH_UNDIRECTED);
  igraph_simplify(&graph, true, true, nullptr);
  igraph_vector_int_list_t found;
  igraph_vector_int_list_init(&found, 0);
  igraph_maximal_cliques(&graph, &found, static_cast<igraph_integer_t>(min_size), 0);
  clique_list cliques;
  for (igraph_integer_t c = 0; c < igraph_vector_int_list_size(&found); ++c) {
    const igraph_vector_int_t* members = igraph_vector_int_list_get_ptr(&found, c);
    std::vector<vertex_id> clique;
    for (igraph_integer_t v = 0; v < igraph_vector_int_size(members); ++v) {
      clique.push_back(static_cast<vertex_id>(VECTOR(*members)[v]));
    }
    std::sort(clique.begin(), clique.end());
    cliques.push_back(std::move(clique));
  }
  igraph_vector_int_list_destroy(&found);
  igraph_destroy(&graph);
  igraph_vector_int_destroy(&ends);
  std::sort(cliques.begin(), cliques.end());
  return cliques;
}

template <class Backend>
clique_set cliques_of(const Backend& backend, const edge_list<std::int32_t>& edges, const clique_options& options = {})
{
  const auto graph = warpdex::graph::build_csr_graph(backend, edges, {.directed = false});
  return maximal_cliques(graph, options);
}

/// The returned cliques, checked against the histogram's shape (sizes grouped ascending, each clique
/// ascending), then sorted for comparison.
clique_list sorted_cliques(const clique_set& set)
{
  clique_list cliques = set.to_host();
  EXPECT_EQ(cliques.size(), set.returned_count());
  for (std::size_t c = 0; c < cliques.size(); ++c) {
    EXPECT_TRUE(std::is_sorted(cliques[c].begin(), cliques[c].end())) << "clique " << c;
    EXPECT_TRUE(std::adjacent_find(cliques[c].begin(), cliques[c].end()) == cliques[c].end()) << "clique " << c;
    if (c > 0) { EXPECT_LE(cliques[c - 1].size(), cliques[c].size()) << "clique " << c; }
  }
  std::sort(cliques.begin(), cliques.end());
  return cliques;
}

std::vector<std::uint64_t> histogram_of(const clique_list& cliques)
{
  std::vector<std::uint64_t> histogram;
  for (const auto& clique : cliques) {
    if (histogram.size() <= clique.size()) { histogram.resize(clique.size() + 1, 0); }
    ++histogram[clique.size()];
  }
  if (histogram.size() == 1) { histogram.resize(2, 0); }
  return histogram;
}

template <class Backend>
void expect_igraph_cliques(const Backend& backend, const edge_list<std::int32_t>& edges, const std::string& what)
{
  SCOPED_TRACE(what);
  const clique_set found = cliques_of(backend, edges);
  const clique_list expected = igraph_cliques(edges);
  const clique_list got = sorted_cliques(found);
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
  EXPECT_EQ(found.count(), expected.size());
  std::vector<std::uint64_t> histogram = found.size_histogram;
  histogram.resize(std::max<std::size_t>(histogram.size(), 2), 0);
  EXPECT_EQ(histogram, histogram_of(expected));
  EXPECT_GE(found.stats.all_cliques, found.count());
}

edge_list<std::int32_t> random_graph(std::uint32_t vertices, double p, std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  std::bernoulli_distribution edge(p);
  edge_list<std::int32_t> edges;
  edges.vertex_count = vertices;
  for (vertex_id u = 0; u < vertices; ++u) {
    for (vertex_id v = u + 1; v < vertices; ++v) {
      if (edge(random)) { random() % 2 ? edges.add(u, v) : edges.add(v, u); }
    }
  }
  return edges;
}

/// A sparse random graph with `count` planted cliques of 5 to 12 vertices, overlapping one another.
edge_list<std::int32_t> planted_cliques(std::uint32_t vertices, std::uint32_t count, std::uint64_t seed)
{
  auto edges = random_graph(vertices, 0.02, seed);
  std::mt19937_64 random(seed + 1);
  for (std::uint32_t c = 0; c < count; ++c) {
    const std::uint32_t size = 5 + static_cast<std::uint32_t>(random() % 8);
    std::set<vertex_id> members;
    while (members.size() < size) { members.insert(static_cast<vertex_id>(random() % (vertices / 2))); }
    for (const vertex_id u : members) {
      for (const vertex_id v : members) {
        if (u < v) { edges.add(u, v); }
      }
    }
  }
  return edges;
}

TYPED_TEST(maximal_cliques_test, random_graphs_match_igraph)
{
  const std::uint64_t fresh = fresh_seed();
  for (const double p : {0.0, 0.05, 0.2, 0.5, 0.65}) {
    for (const std::uint64_t seed : {case_seed(static_cast<std::uint64_t>(p * 100)), fresh}) {
      expect_igraph_cliques(this->backend(), random_graph(60, p, seed),
                            "G(60, " + std::to_string(p) + ") seed " + std::to_string(seed));
    }
  }
}

TYPED_TEST(maximal_cliques_test, planted_cliques_match_igraph)
{
  for (const std::uint64_t seed : {case_seed(1), fresh_seed()}) {
    expect_igraph_cliques(this->backend(), planted_cliques(400, 30, seed), "planted, seed " + std::to_string(seed));
  }
}

TYPED_TEST(maximal_cliques_test, generated_families_match_igraph)
{
  namespace g = warpdex::graph;
  expect_igraph_cliques(this->backend(), g::generate_grid<std::int32_t>({.width = 13, .height = 7}, std::nullopt), "grid");
  expect_igraph_cliques(this->backend(),
                        g::generate_small_world<std::int32_t>({.vertices = 500, .neighbours = 6, .rewire = 0.2, .seed = fresh_seed()}, std::nullopt),
                        "small world");
  // R-MAT's hubs: high-degree vertices whose neighbourhoods the degree order keeps out of the buckets.
  expect_igraph_cliques(this->backend(), g::generate_rmat<std::int32_t>({.scale = 10, .edge_factor = 8, .seed = case_seed(2)}, std::nullopt),
                        "rmat");
}

TYPED_TEST(maximal_cliques_test, known_answers)
{
  // The complete graph on 20 vertices: one clique of 20.
  edge_list<std::int32_t> complete;
  for (vertex_id u = 0; u < 20; ++u) {
    for (vertex_id v = u + 1; v < 20; ++v) { complete.add(u, v); }
  }
  const clique_set whole = cliques_of(this->backend(), complete);
  EXPECT_EQ(whole.count(), 1U);
  EXPECT_EQ(whole.clique_number(), 20U);
  EXPECT_EQ(whole.stats.all_cliques, (std::uint64_t{1} << 20) - 1);  // every nonempty subset
  const clique_list whole_cliques = whole.to_host();
  ASSERT_EQ(whole_cliques.size(), 1U);
  EXPECT_EQ(whole_cliques[0].size(), 20U);

  // No edges: every vertex alone.
  edge_list<std::int32_t> empty;
  empty.vertex_count = 7;
  const clique_set alone = cliques_of(this->backend(), empty);
  EXPECT_EQ(alone.size_histogram, (std::vector<std::uint64_t>{0, 7}));
  EXPECT_EQ(sorted_cliques(alone), (clique_list{{0}, {1}, {2}, {3}, {4}, {5}, {6}}));

  // A star with two isolated vertices: its edges and the two.
  edge_list<std::int32_t> star;
  star.vertex_count = 12;
  for (vertex_id leaf = 1; leaf < 10; ++leaf) { star.add(leaf, 0); }
  const clique_set star_cliques = cliques_of(this->backend(), star);
  EXPECT_EQ(star_cliques.size_histogram, (std::vector<std::uint64_t>{0, 2, 9}));
  EXPECT_EQ(sorted_cliques(star_cliques), igraph_cliques(star));

  // No vertices at all.
  edge_list<std::int32_t> nothing;
  const clique_set none = cliques_of(this->backend(), nothing);
  EXPECT_EQ(none.count(), 0U);
  EXPECT_EQ(none.clique_number(), 0U);
  EXPECT_TRUE(none.to_host().empty());
}

TYPED_TEST(maximal_cliques_test, min_size_and_count_only)
{
  const auto edges = planted_cliques(300, 20, case_seed(3));
  const clique_set all = cliques_of(this->backend(), edges);
  const clique_set large = cliques_of(this->backend(), edges, {.min_size = 5});
  EXPECT_EQ(large.size_histogram, all.size_histogram);
  EXPECT_EQ(sorted_cliques(large), igraph_cliques(edges, 5));
  EXPECT_EQ(large.offset_of_size(5), 0U);
  const clique_set counted = cliques_of(this->backend(), edges, {.count_only = true});
  EXPECT_EQ(counted.size_histogram, all.size_histogram);
  EXPECT_TRUE(counted.vertices.empty());
  EXPECT_TRUE(counted.to_host().empty());
}

TYPED_TEST(maximal_cliques_test, memory_limit_stops_with_what_it_needs)
{
  edge_list<std::int32_t> complete;
  for (vertex_id u = 0; u < 24; ++u) {
    for (vertex_id v = u + 1; v < 24; ++v) { complete.add(u, v); }
  }
  expect_error_mentioning<warpdex::out_of_memory>(
      [&] { (void)cliques_of(this->backend(), complete, {.memory_limit_bytes = 1 << 20}); },
      {"dpp::maximal_cliques", "cliques of", "needs", "over the limit of 1 MiB"});
  // Within the limit it completes, and says what it held.
  edge_list<std::int32_t> smaller;
  for (vertex_id u = 0; u < 18; ++u) {
    for (vertex_id v = u + 1; v < 18; ++v) { smaller.add(u, v); }
  }
  const clique_set fits = cliques_of(this->backend(), smaller, {.memory_limit_bytes = 64 << 20});
  EXPECT_EQ(fits.count(), 1U);
  EXPECT_GT(fits.stats.peak_bytes, 1U << 20);
  EXPECT_LE(fits.stats.peak_bytes, 64U << 20);
}

TYPED_TEST(maximal_cliques_test, bad_input)
{
  edge_list<std::int32_t> edges;
  edges.add(0, 1);
  const auto directed = warpdex::graph::build_csr_graph(this->backend(), edges, {.directed = true});
  expect_error_mentioning<warpdex::error>([&] { (void)maximal_cliques(directed); }, {"directed"});
  const auto undirected = warpdex::graph::build_csr_graph(this->backend(), edges, {.directed = false});
  expect_error_mentioning<warpdex::error>([&] { (void)maximal_cliques(undirected, {.min_size = 0}); },
                                          {"min_size"});
}

TYPED_TEST(maximal_cliques_test, workload_writes_the_files_ids)
{
  // A SNAP file with sparse ids: the output names the file's ids, not the compacted indices.
  const auto folder = std::filesystem::temp_directory_path() /
                      ("warpdex_cliques_test_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(folder);
  const std::string input = (folder / "graph.txt").string();
  const std::string output = (folder / "cliques.txt").string();
  std::ofstream(input) << "# Undirected graph\n10 20\n20 30\n10 30\n30 40\n100 200\n200 200\n";
  warpdex::dpp::cliques_workload_options options;
  options.graph = input;
  options.output = output;
  const auto backend = std::is_same_v<TypeParam, warpdex::host> ? warpdex::backend_choice::host
                                                                 : warpdex::backend_choice::cuda;
  const auto report = warpdex::dpp::run_cliques_workload(backend, options);
  EXPECT_TRUE(report.verified) << report.check;
  EXPECT_EQ(report.vertices, 6U);
  EXPECT_EQ(report.edges, 5U);  // the self-loop dropped
  EXPECT_EQ(report.maximal_cliques, 3U);
  EXPECT_EQ(report.clique_number(), 3U);
  std::ifstream written(output);
  std::multiset<std::string> lines;
  for (std::string line; std::getline(written, line);) { lines.insert(line); }
  EXPECT_EQ(lines, (std::multiset<std::string>{"10 20 30", "30 40", "100 200"}));
  std::filesystem::remove_all(folder);
}

TEST(maximal_cliques_check, finds_what_is_wrong)
{
  // The triangle 0-1-2 and the edge 2-3, as CSR.
  const std::vector<std::uint64_t> offsets{0, 2, 4, 7, 8};
  const std::vector<vertex_id> columns{1, 2, 0, 2, 0, 1, 3, 2};
  EXPECT_EQ(warpdex::dpp::check_maximal_cliques(offsets, columns, {{0, 1, 2}, {2, 3}}), "");
  EXPECT_NE(warpdex::dpp::check_maximal_cliques(offsets, columns, {{0, 1}, {2, 3}}).find("not maximal"),
            std::string::npos);
  EXPECT_NE(warpdex::dpp::check_maximal_cliques(offsets, columns, {{0, 1, 2, 3}}).find("not a clique"),
            std::string::npos);
  EXPECT_NE(warpdex::dpp::check_maximal_cliques(offsets, columns, {{0, 1, 2}, {2, 3}, {2, 3}}).find("twice"),
            std::string::npos);
}

#if WARPDEX_HAS_CUDA
class maximal_cliques_backends : public cuda_test {
};

TEST_F(maximal_cliques_backends, cuda_output_equals_host_output)
{
  const auto edges = planted_cliques(2000, 100, fresh_seed());
  const clique_set on_host = cliques_of(warpdex::host{}, edges);
  const clique_set on_gpu = cliques_of(warpdex::cuda{}, edges);
  EXPECT_EQ(on_gpu.size_histogram, on_host.size_histogram);
  EXPECT_EQ(on_gpu.vertices.to_vector(), on_host.vertices.to_vector());
  EXPECT_EQ(on_gpu.stats.all_cliques, on_host.stats.all_cliques);
}
#endif

}  // namespace
