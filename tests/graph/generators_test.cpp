// The generators of the DIMACS clique families against the published instances' vertex and edge counts
// (the Second DIMACS Challenge's clique benchmarks), their structure against the definitions, and G(n, p)
// against the binomial distribution of its edge count, with fixed seeds and a fresh one.
#include <warpdex/graph/generators.hpp>
#include <warpdex/graph/graph_spec.hpp>

#include "support/expect_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace warpdex::graph {
namespace {

using warpdex::testing::expect_error_mentioning;
using edges_t = edge_list<std::int32_t>;

/// Every id below vertex_count, no self-loop, no edge twice (in either direction).
void expect_simple(const edges_t& edges)
{
  std::vector<std::uint64_t> keys(edges.size());
  for (std::uint64_t i = 0; i < edges.size(); ++i) {
    const std::uint64_t u = edges.sources[i];
    const std::uint64_t v = edges.targets[i];
    ASSERT_LT(u, edges.vertex_count);
    ASSERT_LT(v, edges.vertex_count);
    ASSERT_NE(u, v) << "a self-loop at " << u;
    keys[i] = std::min(u, v) << 32 | std::max(u, v);
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::adjacent_find(keys.begin(), keys.end()), keys.end()) << "an edge appears twice";
}

struct published_instance {
  std::string name;
  std::function<edges_t()> generate;
  std::uint64_t vertices;
  std::uint64_t edges;
};

TEST(generators, dimacs_families_have_the_published_vertex_and_edge_counts)
{
  // The counts of the DIMACS files (p edge N M), and for keller3 of the neighbourhood of a vertex of G_3.
  const std::vector<published_instance> instances = {
      {"hamming6-2", [] { return generate_hamming<std::int32_t>(6, 2); }, 64, 1824},
      {"hamming6-4", [] { return generate_hamming<std::int32_t>(6, 4); }, 64, 704},
      {"hamming8-2", [] { return generate_hamming<std::int32_t>(8, 2); }, 256, 31616},
      {"hamming8-4", [] { return generate_hamming<std::int32_t>(8, 4); }, 256, 20864},
      {"hamming10-4", [] { return generate_hamming<std::int32_t>(10, 4); }, 1024, 434176},
      {"johnson8-2-4", [] { return generate_johnson<std::int32_t>(8, 2, 4); }, 28, 210},
      {"johnson8-4-4", [] { return generate_johnson<std::int32_t>(8, 4, 4); }, 70, 1855},
      {"johnson16-2-4", [] { return generate_johnson<std::int32_t>(16, 2, 4); }, 120, 5460},
      {"johnson32-2-4", [] { return generate_johnson<std::int32_t>(32, 2, 4); }, 496, 107880},
      {"keller3", [] { return generate_keller<std::int32_t>(3); }, 34, 261},
      {"keller4", [] { return generate_keller<std::int32_t>(4); }, 171, 9435},
      {"keller5", [] { return generate_keller<std::int32_t>(5); }, 776, 225990},
      {"keller6", [] { return generate_keller<std::int32_t>(6); }, 3361, 4619898},
      {"MANN_a9", [] { return generate_mann<std::int32_t>(9); }, 45, 918},
      {"MANN_a27", [] { return generate_mann<std::int32_t>(27); }, 378, 70551},
      {"c-fat200-1", [] { return generate_c_fat<std::int32_t>(200, 1); }, 200, 1534},
      {"c-fat200-2", [] { return generate_c_fat<std::int32_t>(200, 2); }, 200, 3235},
      {"c-fat200-5", [] { return generate_c_fat<std::int32_t>(200, 5); }, 200, 8473},
      {"c-fat500-1", [] { return generate_c_fat<std::int32_t>(500, 1); }, 500, 4459},
      {"c-fat500-2", [] { return generate_c_fat<std::int32_t>(500, 2); }, 500, 9139},
      {"c-fat500-5", [] { return generate_c_fat<std::int32_t>(500, 5); }, 500, 23191},
      {"c-fat500-10", [] { return generate_c_fat<std::int32_t>(500, 10); }, 500, 46627},
  };
  for (const auto& instance : instances) {
    SCOPED_TRACE(instance.name);
    const edges_t edges = instance.generate();
    EXPECT_EQ(edges.vertex_count, instance.vertices);
    EXPECT_EQ(edges.size(), instance.edges);
    EXPECT_FALSE(edges.weighted());
    expect_simple(edges);
  }
}

TEST(generators, mann_a81_counts_and_weights_when_asked)
{
  const auto edges = generate_mann<float>(81, weight_distribution{.min_weight = 2, .max_weight = 3});
  EXPECT_EQ(edges.vertex_count, 3321U);
  EXPECT_EQ(edges.size(), 5506380U);
  ASSERT_EQ(edges.weights.size(), edges.size());
  EXPECT_GE(*std::min_element(edges.weights.begin(), edges.weights.end()), 2.0F);
  EXPECT_LE(*std::max_element(edges.weights.begin(), edges.weights.end()), 3.0F);
}

/// The adjacency matrix of an edge list (small graphs).
std::vector<std::vector<bool>> adjacency(const edges_t& edges)
{
  std::vector<std::vector<bool>> matrix(edges.vertex_count, std::vector<bool>(edges.vertex_count));
  for (std::uint64_t i = 0; i < edges.size(); ++i) {
    matrix[edges.sources[i]][edges.targets[i]] = true;
    matrix[edges.targets[i]][edges.sources[i]] = true;
  }
  return matrix;
}

TEST(generators, hamming_and_johnson_follow_the_distance_rule)
{
  const auto hamming = adjacency(generate_hamming<std::int32_t>(5, 3));
  for (std::uint32_t u = 0; u < 32; ++u) {
    for (std::uint32_t v = 0; v < 32; ++v) { EXPECT_EQ(hamming[u][v], std::popcount(u ^ v) >= 3) << u << " " << v; }
  }
  // johnson(6, 3, 4): the 20 words of weight 3 in ascending order, adjacent at distance >= 4.
  std::vector<std::uint32_t> words;
  for (std::uint32_t w = 0; w < 64; ++w) {
    if (std::popcount(w) == 3) { words.push_back(w); }
  }
  const auto johnson = adjacency(generate_johnson<std::int32_t>(6, 3, 4));
  ASSERT_EQ(johnson.size(), words.size());
  for (std::size_t u = 0; u < words.size(); ++u) {
    for (std::size_t v = 0; v < words.size(); ++v) {
      EXPECT_EQ(johnson[u][v], std::popcount(words[u] ^ words[v]) >= 4) << words[u] << " " << words[v];
    }
  }
}

TEST(generators, keller_is_the_neighbourhood_of_a_vertex_of_the_keller_graph)
{
  // G_3 by its definition, on words of three base-4 digits.
  const auto digit = [](std::uint32_t word, int i) { return (word >> (2 * i)) & 3U; };
  const auto keller_adjacent = [&](std::uint32_t a, std::uint32_t b) {
    int differ = 0;
    bool by_two = false;
    for (int i = 0; i < 3; ++i) {
      differ += digit(a, i) != digit(b, i) ? 1 : 0;
      by_two = by_two || (digit(a, i) + 4 - digit(b, i)) % 4 == 2;
    }
    return differ >= 2 && by_two;
  };
  std::vector<std::uint32_t> neighbours;
  for (std::uint32_t w = 0; w < 64; ++w) {
    if (keller_adjacent(0, w)) { neighbours.push_back(w); }
  }
  const auto keller = adjacency(generate_keller<std::int32_t>(3));
  ASSERT_EQ(keller.size(), neighbours.size());
  for (std::size_t u = 0; u < neighbours.size(); ++u) {
    for (std::size_t v = 0; v < neighbours.size(); ++v) {
      EXPECT_EQ(keller[u][v], u != v && keller_adjacent(neighbours[u], neighbours[v]));
    }
  }
}

TEST(generators, mann_is_the_complement_of_a_steiner_triple_system_formulation)
{
  for (const std::uint32_t points : {9U, 27U}) {
    SCOPED_TRACE(points);
    const auto edges = generate_mann<std::int32_t>(points);
    const auto graph = adjacency(edges);
    const std::uint64_t n = edges.vertex_count;
    const std::uint64_t triples = points * (points - 1) / 6;
    ASSERT_EQ(n, points + 3 * triples);
    // The non-edges: each triple vertex misses its two triple mates and the point it stands for; a point
    // misses the triple vertices standing for it, one per triple through it.
    std::vector<std::vector<std::uint32_t>> triple_points(triples);
    std::vector<int> triples_through(points, 0);
    for (std::uint64_t t = 0; t < triples; ++t) {
      for (std::uint64_t j = 0; j < 3; ++j) {
        const std::uint64_t vertex = points + 3 * t + j;
        std::vector<std::uint64_t> missing;
        for (std::uint64_t other = 0; other < n; ++other) {
          if (other != vertex && !graph[vertex][other]) { missing.push_back(other); }
        }
        ASSERT_EQ(missing.size(), 3U);
        EXPECT_LT(missing[0], points);  // the point, then the two mates of the same triple
        EXPECT_EQ((missing[1] - points) / 3, t);
        EXPECT_EQ((missing[2] - points) / 3, t);
        triple_points[t].push_back(static_cast<std::uint32_t>(missing[0]));
        ++triples_through[missing[0]];
      }
    }
    // The triples form a Steiner triple system: every pair of points lies in exactly one triple.
    std::vector<std::vector<int>> pair_count(points, std::vector<int>(points, 0));
    for (const auto& triple : triple_points) {
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) {
          if (a != b) { ++pair_count[triple[a]][triple[b]]; }
        }
      }
    }
    for (std::uint32_t x = 0; x < points; ++x) {
      EXPECT_EQ(triples_through[x], static_cast<int>((points - 1) / 2));
      for (std::uint32_t y = 0; y < points; ++y) {
        if (x != y) { ASSERT_EQ(pair_count[x][y], 1) << x << " " << y; }
        if (x != y) { EXPECT_TRUE(graph[x][y]); }  // the points form a clique
      }
    }
  }
}

TEST(generators, c_fat_parts_are_cliques_joined_around_a_ring)
{
  // 40 vertices, c = 1: k = floor(40 / ln 40) = 10 parts of 4 vertices; vertex v lies in part v / 4.
  const auto graph = adjacency(generate_c_fat<std::int32_t>(40, 1));
  for (std::uint32_t u = 0; u < 40; ++u) {
    for (std::uint32_t v = 0; v < 40; ++v) {
      const std::uint32_t gap = (u / 4 + 10 - v / 4) % 10;
      EXPECT_EQ(graph[u][v], u != v && (gap <= 1 || gap == 9)) << u << " " << v;
    }
  }
  // Two parts (k = 2) or one: a complete graph, each edge once.
  const auto two_parts = generate_c_fat<std::int32_t>(10, 2);  // floor(10 / (2 ln 10)) = 2
  EXPECT_EQ(two_parts.size(), 45U);
  expect_simple(two_parts);
  EXPECT_EQ(generate_c_fat<std::int32_t>(10, 4).size(), 45U);  // k = 1
}

TEST(generators, parameters_out_of_range_are_rejected)
{
  expect_error_mentioning<error>([] { (void)generate_hamming<std::int32_t>(6, 0); }, {"hamming", "distance 0"});
  expect_error_mentioning<error>([] { (void)generate_hamming<std::int32_t>(6, 7); }, {"hamming", "distance 7"});
  expect_error_mentioning<error>([] { (void)generate_hamming<std::int32_t>(0, 1); }, {"hamming", "0 bits"});
  expect_error_mentioning<error>([] { (void)generate_hamming<std::int32_t>(31, 1); }, {"hamming", "more than the"});
  expect_error_mentioning<error>([] { (void)generate_johnson<std::int32_t>(8, 9, 4); }, {"johnson", "weight (9)"});
  expect_error_mentioning<error>([] { (void)generate_johnson<std::int32_t>(8, 2, 0); }, {"johnson", "distance"});
  expect_error_mentioning<error>([] { (void)generate_johnson<std::int32_t>(40, 20, 2); }, {"johnson", "2^17"});
  expect_error_mentioning<error>([] { (void)generate_keller<std::int32_t>(1); }, {"keller", "dimension 1"});
  expect_error_mentioning<error>([] { (void)generate_keller<std::int32_t>(9); }, {"keller", "dimension 9"});
  expect_error_mentioning<error>([] { (void)generate_mann<std::int32_t>(45); }, {"mann: 45 points", "affine"});
  expect_error_mentioning<error>([] { (void)generate_mann<std::int32_t>(1); }, {"mann: 1 points"});
  expect_error_mentioning<error>([] { (void)generate_mann<std::int32_t>(729); }, {"mann: 729 points"});
  expect_error_mentioning<error>([] { (void)generate_c_fat<std::int32_t>(200, 0); }, {"c-fat", "c must be > 0"});
  expect_error_mentioning<error>([] { (void)generate_c_fat<std::int32_t>(10, 100); }, {"c-fat", "make no part"});
  expect_error_mentioning<error>([] { (void)generate_c_fat<std::int32_t>(1, 1); }, {"c-fat", "at least 2"});
  expect_error_mentioning<error>([] { (void)generate_gnp<std::int32_t>({.vertices = 10, .probability = 1.5}); },
                                 {"gnp", "outside [0, 1]"});
  expect_error_mentioning<error>([] { (void)generate_gnp<std::int32_t>({.vertices = 10, .probability = -0.1}); },
                                 {"gnp", "outside [0, 1]"});
  expect_error_mentioning<error>([] { (void)generate_gnp<std::int32_t>({.vertices = 1U << 20, .probability = 0.5}); },
                                 {"gnp", "edges expected", "more than the 2147483648"});
}

/// |count - n p| within `sigmas` standard deviations of Binomial(n, p).
void expect_binomial(std::uint64_t count, double trials, double p, const std::string& what, double sigmas = 6)
{
  const double mean = trials * p;
  const double deviation = std::sqrt(trials * p * (1 - p));
  EXPECT_LE(std::abs(static_cast<double>(count) - mean), sigmas * deviation + 1)
      << what << ": " << count << " against a mean of " << mean << " (standard deviation " << deviation << ")";
}

TEST(generators, gnp_edge_counts_follow_the_binomial_distribution)
{
  const std::uint64_t fresh_seed = std::random_device{}();
  for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{12345}, fresh_seed}) {
    for (const double p : {0.002, 0.05, 0.5, 0.9}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", p " + std::to_string(p));
      const std::uint32_t n = 2000;
      const auto edges = generate_gnp<std::int32_t>({.vertices = n, .probability = p, .seed = seed});
      EXPECT_EQ(edges.vertex_count, n);
      expect_simple(edges);
      const double pairs = n * (n - 1.0) / 2;
      expect_binomial(edges.size(), pairs, p, "edges");
      // The first and last candidates of each row are as likely as any (an error at either end of the
      // skipping shows here): edges to vertex 0, and between consecutive ids.
      std::uint64_t to_zero = 0;
      std::uint64_t consecutive = 0;
      std::uint64_t in_order = 0;
      for (std::uint64_t i = 0; i < edges.size(); ++i) {
        to_zero += edges.targets[i] == 0 ? 1 : 0;
        consecutive += edges.sources[i] == edges.targets[i] + 1 ? 1 : 0;
        in_order += edges.sources[i] > edges.targets[i] && (i == 0 || edges.sources[i - 1] <= edges.sources[i]) ? 1 : 0;
      }
      EXPECT_EQ(in_order, edges.size()) << "edges (u, v) with u > v, rows in ascending order";
      expect_binomial(to_zero, n - 1, p, "edges to vertex 0");
      expect_binomial(consecutive, n - 1, p, "edges (v + 1, v)");
    }
  }
}

TEST(generators, gnp_is_a_function_of_its_seed_and_handles_the_extremes)
{
  const auto a = generate_gnp<std::int32_t>({.vertices = 5000, .probability = 0.01, .seed = 7});
  const auto b = generate_gnp<std::int32_t>({.vertices = 5000, .probability = 0.01, .seed = 7});
  const auto c = generate_gnp<std::int32_t>({.vertices = 5000, .probability = 0.01, .seed = 8});
  EXPECT_EQ(a.sources, b.sources);
  EXPECT_EQ(a.targets, b.targets);
  EXPECT_NE(a.targets, c.targets);
  EXPECT_EQ(generate_gnp<std::int32_t>({.vertices = 100, .probability = 0}).size(), 0U);
  const auto complete = generate_gnp<std::int32_t>({.vertices = 100, .probability = 1});
  EXPECT_EQ(complete.size(), 4950U);
  expect_simple(complete);
  EXPECT_EQ(generate_gnp<std::int32_t>({.vertices = 1, .probability = 1}).size(), 0U);
  EXPECT_EQ(generate_gnp<std::int32_t>({.vertices = 0, .probability = 0.5}).size(), 0U);
}

TEST(generators, specs_name_the_dimacs_families_and_gnp)
{
  const weight_distribution weights{};
  const auto hamming = load_graph<std::int32_t>("hamming:6:2", weights);
  EXPECT_FALSE(hamming.directed);
  EXPECT_EQ(hamming.edges.vertex_count, 64U);
  EXPECT_EQ(hamming.edges.size(), 1824U);
  EXPECT_EQ(hamming.edges.weights.size(), 1824U);  // the workload draws weights for generated graphs
  EXPECT_EQ(load_graph<std::int32_t>("johnson:8:4:4", weights).edges.size(), 1855U);
  EXPECT_EQ(load_graph<std::int32_t>("keller:4", weights).edges.size(), 9435U);
  EXPECT_EQ(load_graph<std::int32_t>("mann:9", weights).edges.size(), 918U);
  EXPECT_EQ(load_graph<std::int32_t>("cfat:200:1", weights).edges.size(), 1534U);
  EXPECT_EQ(load_graph<std::int32_t>("c-fat:200:5", weights).edges.size(), 8473U);
  const auto gnp = load_graph<float>("gnp:1000:0.01:9", weights);
  EXPECT_FALSE(gnp.directed);
  EXPECT_EQ(gnp.edges.targets,
            (generate_gnp<float>({.vertices = 1000, .probability = 0.01, .seed = 9}, std::nullopt).targets));
  expect_error_mentioning<error>([] { (void)load_graph<float>("hamming:6", {}); },
                                 {"graph 'hamming:6': expected hamming:BITS:DISTANCE"});
  expect_error_mentioning<error>([] { (void)load_graph<float>("johnson:8:4", {}); },
                                 {"expected johnson:LENGTH:WEIGHT:DISTANCE"});
  expect_error_mentioning<error>([] { (void)load_graph<float>("keller:x", {}); }, {"'x' is not a non-negative"});
  expect_error_mentioning<error>([] { (void)load_graph<float>("gnp:10:half", {}); },
                                 {"the edge probability 'half' is not a number"});
  expect_error_mentioning<error>([] { (void)load_graph<float>("cfat:200:1:2", {}); }, {"expected cfat:N:C"});
  expect_error_mentioning<error>([] { (void)load_graph<float>("mann:45", {}); }, {"mann: 45 points"});
  expect_error_mentioning<error>([] { (void)load_graph<float>("keller:5000000000", {}); }, {"does not fit 32 bits"});
}

/// The k nearest of every point by brute force (ties: smaller id), as sets of edges {u, v} with u < v.
std::vector<std::uint64_t> brute_force_nearest_edges(std::uint32_t n, std::uint32_t k, std::uint64_t seed)
{
  std::vector<std::pair<double, double>> points(n);
  for (vertex_id v = 0; v < n; ++v) { points[v] = geometric_point(seed, v); }
  std::vector<std::uint64_t> keys;
  for (std::uint64_t u = 0; u < n; ++u) {
    std::vector<std::pair<double, vertex_id>> others;
    for (vertex_id v = 0; v < n; ++v) {
      if (v == u) { continue; }
      const double dx = points[v].first - points[u].first;
      const double dy = points[v].second - points[u].second;
      others.emplace_back(dx * dx + dy * dy, v);
    }
    std::partial_sort(others.begin(), others.begin() + k, others.end());
    for (std::uint32_t j = 0; j < k; ++j) {
      const std::uint64_t v = others[j].second;
      keys.push_back(std::min(u, v) << 32 | std::max(u, v));
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

TEST(generators, geometric_joins_each_point_to_its_k_nearest)
{
  std::random_device device;
  const std::uint64_t fresh = (std::uint64_t{device()} << 32) | device();
  for (const std::uint64_t seed : {std::uint64_t{1}, fresh}) {
    for (const auto& [n, k] : {std::pair<std::uint32_t, std::uint32_t>{1500, 4}, {700, 1}, {40, 7}, {5, 4}, {2, 1}}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", n " + std::to_string(n) + ", k " + std::to_string(k));
      const auto edges = generate_geometric<std::int32_t>({.vertices = n, .neighbours = k, .seed = seed}, std::nullopt);
      expect_simple(edges);
      EXPECT_EQ(edges.vertex_count, n);
      std::vector<std::uint64_t> keys(edges.size());
      for (std::uint64_t i = 0; i < edges.size(); ++i) {
        ASSERT_LT(edges.sources[i], edges.targets[i]);
        if (i > 0) {
          ASSERT_TRUE(edges.sources[i - 1] < edges.sources[i] ||
                      (edges.sources[i - 1] == edges.sources[i] && edges.targets[i - 1] < edges.targets[i]))
              << "edges out of order at " << i;
        }
        keys[i] = std::uint64_t{edges.sources[i]} << 32 | edges.targets[i];
      }
      EXPECT_EQ(keys, brute_force_nearest_edges(n, k, seed));
    }
  }
}

TEST(generators, geometric_is_road_like_and_weighted_by_length)
{
  const std::uint32_t n = 1U << 16;
  const auto plain = generate_geometric<std::int32_t>({.vertices = n, .neighbours = 4, .seed = 3}, std::nullopt);
  const double mean_degree = 2.0 * static_cast<double>(plain.size()) / n;
  EXPECT_GT(mean_degree, 4.0);
  EXPECT_LT(mean_degree, 6.0);
  std::vector<std::uint32_t> degree(n, 0);
  for (std::uint64_t i = 0; i < plain.size(); ++i) {
    ++degree[plain.sources[i]];
    ++degree[plain.targets[i]];
  }
  EXPECT_GE(*std::min_element(degree.begin(), degree.end()), 4U);
  // The same graph, weighted: the weights grow with the length (scaled so the longest edge has the
  // largest weight), uniform linearly and skewed as the cube.
  const weight_distribution uniform{.min_weight = 0, .max_weight = 1000, .seed = 99};
  const auto weighted = generate_geometric<float>({.vertices = n, .neighbours = 4, .seed = 3}, uniform);
  const auto skewed = generate_geometric<float>(
      {.vertices = n, .neighbours = 4, .seed = 3},
      weight_distribution{.kind = weight_distribution::shape::skewed, .min_weight = 0, .max_weight = 1000});
  ASSERT_EQ(weighted.targets, plain.targets);
  ASSERT_EQ(weighted.weights.size(), plain.size());
  double longest = 0;
  std::vector<double> lengths(plain.size());
  for (std::uint64_t i = 0; i < plain.size(); ++i) {
    const auto [ux, uy] = geometric_point(3, plain.sources[i]);
    const auto [vx, vy] = geometric_point(3, plain.targets[i]);
    lengths[i] = std::hypot(ux - vx, uy - vy);
    longest = std::max(longest, lengths[i]);
  }
  for (std::uint64_t i = 0; i < plain.size(); ++i) {
    const double t = lengths[i] / longest;
    ASSERT_NEAR(weighted.weights[i], 1000 * t, 1e-3) << i;
    ASSERT_NEAR(skewed.weights[i], 1000 * t * t * t, 1e-3) << i;
  }
  const auto integers = generate_geometric<std::int32_t>({.vertices = n, .neighbours = 4, .seed = 3}, uniform);
  EXPECT_EQ(*std::max_element(integers.weights.begin(), integers.weights.end()), 1000);
  EXPECT_GE(*std::min_element(integers.weights.begin(), integers.weights.end()), 0);
  // A function of the seed.
  EXPECT_EQ(generate_geometric<std::int32_t>({.vertices = n, .neighbours = 4, .seed = 3}, std::nullopt).targets,
            plain.targets);
  EXPECT_NE(generate_geometric<std::int32_t>({.vertices = n, .neighbours = 4, .seed = 4}, std::nullopt).targets,
            plain.targets);
  // The spec.
  const auto loaded = load_graph<std::int32_t>("geometric:65536", weight_distribution{.seed = 3});
  EXPECT_FALSE(loaded.directed);
  EXPECT_EQ(loaded.edges.targets, plain.targets);
  EXPECT_EQ(load_graph<std::int32_t>("geometric:1000:6", {}).edges.vertex_count, 1000U);
  expect_error_mentioning<error>([] { (void)load_graph<float>("geometric:10:4:2", {}); },
                                 {"expected geometric:N[:NEIGHBOURS]"});
  expect_error_mentioning<error>([] { (void)generate_geometric<float>({.vertices = 10, .neighbours = 10}, {}); },
                                 {"geometric", "neighbours"});
  expect_error_mentioning<error>([] { (void)generate_geometric<float>({.vertices = 0}, {}); },
                                 {"geometric", "vertices"});
  EXPECT_EQ(generate_geometric<float>({.vertices = 1, .neighbours = 4}, {}).size(), 0U);
}

}  // namespace
}  // namespace warpdex::graph
