// The clique numbers of the generated DIMACS families, computed by igraph, against the published ones, and
// a DIMACS clique file written and read back. Host only: this suite links igraph (and its libraries),
// which the GPU machine does not have, and has no GPU code.
#include <warpdex/graph/generators.hpp>
#include <warpdex/graph/graph_io.hpp>

#include <gtest/gtest.h>
#include <igraph.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace warpdex::graph {
namespace {

using edges_t = edge_list<std::int32_t>;

/// An igraph graph built from an edge list, destroyed with the object.
class igraph_graph {
 public:
  explicit igraph_graph(const edges_t& edges)
  {
    igraph_vector_int_t ends;
    EXPECT_EQ(igraph_vector_int_init(&ends, static_cast<igraph_integer_t>(2 * edges.size())), IGRAPH_SUCCESS);
    for (std::uint64_t i = 0; i < edges.size(); ++i) {
      VECTOR(ends)[2 * i] = edges.sources[i];
      VECTOR(ends)[2 * i + 1] = edges.targets[i];
    }
    EXPECT_EQ(igraph_create(&graph_, &ends, static_cast<igraph_integer_t>(edges.vertex_count), IGRAPH_UNDIRECTED),
              IGRAPH_SUCCESS);
    igraph_vector_int_destroy(&ends);
  }
  igraph_graph(const igraph_graph&) = delete;
  igraph_graph& operator=(const igraph_graph&) = delete;
  ~igraph_graph() { igraph_destroy(&graph_); }

  [[nodiscard]] std::int64_t clique_number() const
  {
    igraph_integer_t size = 0;
    EXPECT_EQ(igraph_clique_number(&graph_, &size), IGRAPH_SUCCESS);
    return size;
  }
  [[nodiscard]] std::int64_t edge_count() const { return igraph_ecount(&graph_); }
  [[nodiscard]] bool simple() const
  {
    igraph_bool_t result = false;
    EXPECT_EQ(igraph_is_simple(&graph_, &result), IGRAPH_SUCCESS);
    return result;
  }

 private:
  igraph_t graph_{};
};

struct known_clique_number {
  std::string name;
  std::function<edges_t()> generate;
  std::int64_t clique_number;
};

// The published clique numbers (the DIMACS benchmark tables). igraph takes seconds to minutes on
// hamming8-4, johnson16-2-4 and MANN_a27, which are left out here; keller4 takes a few seconds.
TEST(clique_number, dimacs_families_have_the_published_clique_numbers)
{
  const std::vector<known_clique_number> instances = {
      {"hamming6-2", [] { return generate_hamming<std::int32_t>(6, 2); }, 32},
      {"hamming6-4", [] { return generate_hamming<std::int32_t>(6, 4); }, 4},
      {"johnson8-2-4", [] { return generate_johnson<std::int32_t>(8, 2, 4); }, 4},
      {"johnson8-4-4", [] { return generate_johnson<std::int32_t>(8, 4, 4); }, 14},
      {"MANN_a9", [] { return generate_mann<std::int32_t>(9); }, 16},
      {"c-fat200-1", [] { return generate_c_fat<std::int32_t>(200, 1); }, 12},
      {"c-fat200-2", [] { return generate_c_fat<std::int32_t>(200, 2); }, 24},
      {"c-fat200-5", [] { return generate_c_fat<std::int32_t>(200, 5); }, 58},
      {"c-fat500-1", [] { return generate_c_fat<std::int32_t>(500, 1); }, 14},
      {"c-fat500-10", [] { return generate_c_fat<std::int32_t>(500, 10); }, 126},
  };
  for (const auto& instance : instances) {
    SCOPED_TRACE(instance.name);
    const igraph_graph graph(instance.generate());
    EXPECT_TRUE(graph.simple());
    EXPECT_EQ(graph.clique_number(), instance.clique_number);
  }
}

TEST(clique_number, keller4_is_eleven)
{
  const igraph_graph graph(generate_keller<std::int32_t>(4));
  EXPECT_EQ(graph.clique_number(), 11);
}

TEST(clique_number, a_dimacs_clique_file_reads_back_as_the_same_graph)
{
  // Written by the library and read back: igraph sees the same edges and the same clique number.
  const auto edges = generate_c_fat<std::int32_t>(60, 2);
  const std::string path = ::testing::TempDir() + "warpdex_clique_number_cfat.clq.gz";
  write_dimacs_clique_file(path, edges, "c-fat 60 2");
  const auto file = read_graph_file<std::int32_t>(path);
  const igraph_graph original(edges);
  const igraph_graph read(file.edges);
  EXPECT_EQ(read.edge_count(), original.edge_count());
  EXPECT_EQ(read.clique_number(), original.clique_number());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace warpdex::graph
