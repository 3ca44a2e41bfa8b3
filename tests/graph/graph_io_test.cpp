// Graph file readers: each format read plain and gzip-compressed, weights generated for files without,
// and every malformed input rejected with the file, the line and what is wrong.
#include <warpdex/graph/generators.hpp>
#include <warpdex/graph/graph_io.hpp>
#include "sssp_workload.hpp"

#include "support/expect_error.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace warpdex::graph {
namespace {

using warpdex::testing::expect_error_mentioning;

/// A file in the test's temporary folder, removed with the object.
class temporary_file {
 public:
  temporary_file(const std::string& name, std::string_view contents, bool gzip = false)
      : path_(std::filesystem::temp_directory_path() /
              ("warpdex_graph_io_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
               std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" + name))
  {
    if (gzip) {
      gzFile file = gzopen(path_.c_str(), "wb");
      EXPECT_NE(file, nullptr);
      EXPECT_EQ(gzwrite(file, contents.data(), static_cast<unsigned>(contents.size())),
                static_cast<int>(contents.size()));
      gzclose(file);
    } else {
      std::ofstream(path_, std::ios::binary) << contents;
    }
  }
  ~temporary_file() { std::filesystem::remove(path_); }
  [[nodiscard]] std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

constexpr std::string_view dimacs_text =
    "c a small road network\n"
    "p sp 4 5\n"
    "a 1 2 7\n"
    "a 2 3 1\r\n"  // Windows line ends are accepted
    "\n"
    "a 3 1 0\n"
    "a 4 4 2\n"
    "a 1 2 3";  // no newline at the end

TEST(graph_io, dimacs_plain_and_gzip)
{
  for (const bool gzip : {false, true}) {
    SCOPED_TRACE(gzip ? "gzip" : "plain");
    const temporary_file file(gzip ? "road.gr.gz" : "road.gr", dimacs_text, gzip);
    double last_progress = -1;
    const auto read = read_graph_file<std::int32_t>(file.path(), {.progress = [&](double f) { last_progress = f; }});
    EXPECT_EQ(read.format, graph_format::dimacs);
    EXPECT_TRUE(read.directed);
    EXPECT_FALSE(read.compact_ids);
    EXPECT_EQ(read.edges.vertex_count, 4U);
    EXPECT_EQ(read.edges.sources, (std::vector<vertex_id>{0, 1, 2, 3, 0}));
    EXPECT_EQ(read.edges.targets, (std::vector<vertex_id>{1, 2, 0, 3, 1}));
    EXPECT_EQ(read.edges.weights, (std::vector<std::int32_t>{7, 1, 0, 2, 3}));
    EXPECT_DOUBLE_EQ(last_progress, 1.0);
  }
}

constexpr std::string_view clique_text =
    "c a DIMACS clique file\n"
    "c with two comment lines\n"
    "p edge 5 4\n"
    "n 1 7\n"  // a vertex weight: checked, ignored
    "e 1 2\n"
    "e 2 3\r\n"
    "\n"
    "e 5 1\n"
    "e 4 4";  // a self-loop (the build drops it), no newline at the end

TEST(graph_io, dimacs_clique_plain_and_gzip)
{
  for (const bool gzip : {false, true}) {
    SCOPED_TRACE(gzip ? "gzip" : "plain");
    const temporary_file file(gzip ? "g.clq.gz" : "g.clq", clique_text, gzip);
    double last_progress = -1;
    const auto read = read_graph_file<std::int32_t>(file.path(), {.progress = [&](double f) { last_progress = f; }});
    EXPECT_EQ(read.format, graph_format::dimacs_clique);
    EXPECT_FALSE(read.directed);
    EXPECT_FALSE(read.compact_ids);
    EXPECT_EQ(read.id_base, 1U);
    EXPECT_EQ(read.edges.vertex_count, 5U);
    EXPECT_EQ(read.edges.sources, (std::vector<vertex_id>{0, 1, 4, 3}));
    EXPECT_EQ(read.edges.targets, (std::vector<vertex_id>{1, 2, 0, 3}));
    EXPECT_FALSE(read.edges.weighted());
    EXPECT_DOUBLE_EQ(last_progress, 1.0);
  }
  // .col and 'p col'; the format named explicitly for any file name; weights drawn when asked.
  const temporary_file col("g.col", "p col 3 2\ne 1 2\ne 3 2\n");
  EXPECT_EQ(read_graph_file<float>(col.path()).edges.targets, (std::vector<vertex_id>{1, 1}));
  const temporary_file named("g.txt", "p edge 3 1\ne 1 3\n");
  const auto explicit_format =
      read_graph_file<std::int32_t>(named.path(), {.format = parse_graph_format("clq"), .generate_weights = true});
  EXPECT_EQ(explicit_format.format, graph_format::dimacs_clique);
  EXPECT_EQ(explicit_format.edges.weights.size(), 1U);
  EXPECT_EQ(parse_graph_format("col"), graph_format::dimacs_clique);
  const temporary_file binary("g.clq.b", "p edge 3 1\n");
  expect_error_mentioning<error>([&] { (void)read_graph_file<std::int32_t>(binary.path()); },
                                 {binary.path(), "DIMACS's binary clique format, which is not read"});
}

TEST(graph_io, dimacs_clique_edge_counts_of_published_files_are_accepted)
{
  // Each edge in both directions, counted once (more lines than declared).
  const temporary_file twice("twice.clq", "p edge 3 2\ne 1 2\ne 2 1\ne 2 3\ne 3 2\n");
  EXPECT_EQ(read_graph_file<std::int32_t>(twice.path()).edges.size(), 4U);
  // Each edge once, counted in both directions (M = 2 x the distinct edges).
  const temporary_file doubled("doubled.clq", "p edge 3 4\ne 1 2\ne 2 3\n");
  EXPECT_EQ(read_graph_file<std::int32_t>(doubled.path()).edges.size(), 2U);
  // A shortfall that is neither: a file that ends early, unless the check is off.
  const temporary_file short_file("short.clq", "c\np edge 3 5\ne 1 2\ne 2 3\n");
  expect_error_mentioning<error>([&] { (void)read_graph_file<std::int32_t>(short_file.path()); },
                                 {short_file.path() + ":4:", "ends after 2 of the 5 edges its 'p' line declares"});
  EXPECT_EQ(read_graph_file<std::int32_t>(short_file.path(), {.check_edge_count = false}).edges.size(), 2U);
  // Repeats do not count as distinct edges: 2 lines, 1 distinct edge, M = 4 is a shortfall.
  const temporary_file repeated("repeated.clq", "p edge 3 4\ne 1 2\ne 2 1\n");
  expect_error_mentioning<error>([&] { (void)read_graph_file<std::int32_t>(repeated.path()); },
                                 {":3:", "ends after 2 of the 4 edges"});
}

TEST(graph_io, dimacs_clique_files_round_trip)
{
  const auto edges = generate_keller<std::int32_t>(3);
  for (const std::string name : {"keller3.clq", "keller3.clq.gz"}) {
    SCOPED_TRACE(name);
    const temporary_file file(name, "");
    write_dimacs_clique_file(file.path(), edges, "keller3\ngenerated by warpdex");
    const auto read = read_graph_file<std::int32_t>(file.path());
    EXPECT_EQ(read.format, graph_format::dimacs_clique);
    EXPECT_EQ(read.edges.vertex_count, edges.vertex_count);
    EXPECT_EQ(read.edges.sources, edges.sources);
    EXPECT_EQ(read.edges.targets, edges.targets);
    // Compressed by name, plain otherwise: the first two bytes are gzip's magic or the comment.
    std::ifstream in(file.path(), std::ios::binary);
    std::string head(2, '\0');
    in.read(head.data(), 2);
    EXPECT_EQ(head, name.ends_with(".gz") ? std::string("\x1f\x8b") : std::string("c "));
  }
  // The written text, exactly; vertex_count 0 means the largest id + 1.
  edge_list<float> small;
  small.add(0, 2, 1.5F);
  const temporary_file text("small.clq", "");
  write_dimacs_clique_file(text.path(), small);
  std::ifstream in(text.path());
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, "p edge 3 1\ne 1 3\n");
  small.vertex_count = 2;
  expect_error_mentioning<error>([&] { write_dimacs_clique_file(text.path(), small); },
                                 {"edge 0 names a vertex beyond the 2 vertices"});
  expect_error_mentioning<error>([&] { write_dimacs_clique_file("/nonexistent/dir/g.clq", edges); },
                                 {"cannot write the graph file /nonexistent/dir/g.clq"});
}

TEST(graph_io, matrix_market_fields_and_symmetry)
{
  const temporary_file real("m.mtx",
                            "%%MatrixMarket matrix coordinate real symmetric\n% comment\n3 3 2\n2 1 0.5\n3 3 1e2\n");
  const auto read = read_graph_file<float>(real.path());
  EXPECT_FALSE(read.directed);
  EXPECT_EQ(read.edges.vertex_count, 3U);
  EXPECT_EQ(read.edges.sources, (std::vector<vertex_id>{1, 2}));
  EXPECT_EQ(read.edges.weights, (std::vector<float>{0.5F, 100.0F}));
  expect_error_mentioning<error>([&] { (void)read_graph_file<std::int32_t>(real.path()); },
                                 {real.path() + ":1:", "read the graph with float weights"});

  const temporary_file pattern("p.mtx.gz", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", true);
  const auto unweighted = read_graph_file<std::int32_t>(pattern.path());
  EXPECT_TRUE(unweighted.directed);
  EXPECT_FALSE(unweighted.edges.weighted());
  const auto generated = read_graph_file<std::int32_t>(
      pattern.path(), {.generate_weights = true, .weights = {.min_weight = 5, .max_weight = 5}});
  EXPECT_EQ(generated.edges.weights, std::vector<std::int32_t>{5});

  const temporary_file integer("i.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 12\n");
  EXPECT_EQ(read_graph_file<std::int32_t>(integer.path()).edges.weights, std::vector<std::int32_t>{12});
}

TEST(graph_io, snap_with_and_without_weights)
{
  const temporary_file weighted("w.txt", "# Undirected graph: test\n# FromNodeId\tToNodeId\n10\t20\t3\n20 30 4.0\n");
  const auto read = read_graph_file<float>(weighted.path());
  EXPECT_EQ(read.format, graph_format::snap);
  EXPECT_FALSE(read.directed);
  EXPECT_TRUE(read.compact_ids);
  EXPECT_EQ(read.edges.sources, (std::vector<vertex_id>{10, 20}));
  EXPECT_EQ(read.edges.weights, (std::vector<float>{3, 4}));
  EXPECT_TRUE(read_graph_file<float>(weighted.path(), {.snap_directed = 1}).directed);

  const temporary_file plain("p.txt", "# Directed graph\n0 1\n1 2\n");
  const auto unweighted = read_graph_file<std::int32_t>(plain.path(), {.generate_weights = true});
  EXPECT_TRUE(unweighted.directed);
  ASSERT_EQ(unweighted.edges.weights.size(), 2U);
  EXPECT_GE(unweighted.edges.weights[0], 1);
  EXPECT_LE(unweighted.edges.weights[0], 1000);
}

struct malformed_case {
  std::string_view name;
  std::string_view text;
  std::vector<std::string_view> fragments;
};

TEST(graph_io, malformed_files_name_the_line_and_the_problem)
{
  const std::vector<malformed_case> cases = {
      {"t.gr", "p sp 2 1\na 1 2\n", {":2:", "'a FROM TO WEIGHT' (2 fields)"}},
      {"t.gr", "p sp 2 2\na 1 2 3\n", {":2:", "ends after 1 of the 2 arcs"}},
      {"t.gr", "p sp 2 1\na 1 3 1\n", {":2:", "vertex id 3 is out of range", "declares 2 vertices"}},
      {"t.gr", "p sp 2 1\na 0 1 1\n", {":2:", "vertex id 0 is out of range: ids start at 1"}},
      {"t.gr", "p sp 2 1\na 1 2 -5\n", {":2:", "weight -5 is negative"}},
      {"t.gr", "p sp 2 1\na 1 2 x\n", {":2:", "weight 'x' is not a number"}},
      {"t.gr", "p sp 2 1\na 1 2 1.5\n", {":2:", "weight 1.5 is not an integer"}},
      {"t.gr", "p sp 2 1\na 1 2 99999999999\n", {":2:", "does not fit a 32-bit integer"}},
      {"t.gr", "a 1 2 1\n", {":1:", "an arc before the 'p sp"}},
      {"t.gr", "c only comments\n", {":1:", "no 'p sp VERTICES ARCS' line"}},
      {"t.gr", "p sp 2 1\np sp 2 1\n", {":2:", "a second 'p' line"}},
      {"t.gr", "p sp 2 1\nq 1 2\n", {":2:", "unknown line type 'q'"}},
      {"t.gr", "p sp 2 1\na 1 2 1\na 2 1 1\n", {":3:", "more arcs than the 1"}},
      {"t.gr", "p sp 2 1\na 1x 2 1\n", {":2:", "vertex id '1x' is not a non-negative integer"}},
      {"t.mtx", "%%MatrixMarket matrix array real general\n", {":1:", "only coordinate"}},
      {"t.mtx", "%%MatrixMarket matrix coordinate complex general\n", {":1:", "field 'complex'"}},
      {"t.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n", {":1:", "symmetry 'skew-symmetric'"}},
      {"t.mtx", "3 3 1\n", {":1:", "expected the banner"}},
      {"t.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n", {":2:", "must be square"}},
      {"t.mtx",
       "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n",
       {":3:", "ends after 1 of the 2 entries"}},
      {"t.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2\n", {":3:", "has 3 fields, this one 2"}},
      {"t.mtx",
       "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n3 1\n",
       {":3:", "vertex id 3 is out of range"}},
      {"t.mtx", "", {":0:", "an empty file"}},
      {"t.txt", "0 1 2\n1 2\n", {":2:", "the first edge had 3"}},
      {"t.txt", "0\n", {":1:", "'FROM TO' or 'FROM TO WEIGHT' (1 fields)"}},
      {"t.txt", "0 5000000000\n", {":1:", "does not fit the 32-bit vertex ids"}},
      {"t.txt", "0 -1\n", {":1:", "vertex id '-1' is not a non-negative integer"}},
      {"t.clq", "p edge 2 1\ne 1\n", {":2:", "an edge line must read 'e U V' (1 fields)"}},
      {"t.clq", "p edge 2 1\ne 1 2 3\n", {":2:", "'e U V' (3 fields)"}},
      {"t.clq", "p edge 2 1\ne 1 3\n", {":2:", "vertex id 3 is out of range", "declares 2 vertices"}},
      {"t.clq", "p edge 2 1\ne 0 1\n", {":2:", "vertex id 0 is out of range: ids start at 1"}},
      {"t.clq", "p edge 2 1\ne 1 two\n", {":2:", "vertex id 'two' is not a non-negative integer"}},
      {"t.clq", "e 1 2\n", {":1:", "an edge before the 'p edge VERTICES EDGES' line"}},
      {"t.clq", "n 1 2\n", {":1:", "a vertex line before the 'p edge"}},
      {"t.clq", "p edge 2 1\nn 3 1\n", {":2:", "vertex id 3 is out of range"}},
      {"t.clq", "p edge 2 1\nn 1\n", {":2:", "'n ID VALUE' (1 fields)"}},
      {"t.clq", "c only comments\n", {":1:", "no 'p edge VERTICES EDGES' line"}},
      {"t.clq", "", {":0:", "an empty file"}},
      {"t.clq", "p edge 2 1\np edge 2 1\n", {":2:", "a second 'p' line"}},
      {"t.clq", "p sp 2 1\n", {":1:", "must read 'p edge VERTICES EDGES' (or 'p col VERTICES EDGES')"}},
      {"t.clq", "p edge 2\n", {":1:", "must read 'p edge VERTICES EDGES'"}},
      {"t.clq", "p edge x 1\n", {":1:", "vertex count 'x' is not a non-negative integer"}},
      {"t.clq", "p edge 2 -1\n", {":1:", "edge count '-1' is not a non-negative integer"}},
      {"t.clq", "p edge 5000000000 1\n", {":1:", "exceed the 32-bit vertex ids"}},
      {"t.clq", "p edge 2 1\na 1 2 3\n", {":2:", "unknown line type 'a' (expected c, p, e or n)"}},
      {"t.col", "p col 4 3\ne 1 2\ne 2 3\n", {":3:", "ends after 2 of the 3 edges"}},
      // Quoted file bytes stay one printable line: a carriage return inside a token, a line type of a
      // binary file, and UTF-8's next-line character (which Python's splitlines splits at).
      {"t.txt", "0 1\r2\n", {":1:", "vertex id '1\\x0d2' is not a non-negative integer"}},
      {"t.gr", "\x01\xfe\x7f\n", {":1:", "unknown line type '\\x01\\xfe\\x7f'"}},
      {"t.gr", "p sp 2 1\na 1 2 3\xc2\x85\n", {":2:", "weight '3\\xc2\\x85' is not a number"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.name) + ": " + std::string(c.text));
    const temporary_file file(std::string(c.name), c.text);
    std::vector<std::string_view> fragments = c.fragments;
    const std::string path = file.path();
    fragments.push_back(path);
    expect_error_mentioning<error>([&] { (void)read_graph_file<std::int32_t>(path); }, fragments);
  }
}

TEST(graph_io, truncated_gzip_and_missing_files)
{
  // A gzip stream cut in the middle: zlib reports it, and the error says where the reading stopped.
  std::string text = "p sp 1000 1000\n";
  for (int i = 0; i < 1000; ++i) { text += "a " + std::to_string(i % 1000 + 1) + " 1 " + std::to_string(i) + "\n"; }
  const temporary_file whole("whole.gr.gz", text, true);
  std::ifstream in(whole.path(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const temporary_file cut("cut.gr", std::string_view(bytes).substr(0, bytes.size() / 2));
  expect_error_mentioning<error>([&] { (void)read_graph_file<std::int32_t>(cut.path()); },
                                 {cut.path(), "the gzip stream ends early", "a truncated gzip file"});
  expect_error_mentioning<error>([] { (void)read_graph_file<float>("/nonexistent/graph.gr"); },
                                 {"cannot read the graph file /nonexistent/graph.gr"});
  expect_error_mentioning<error>([] { (void)parse_graph_format("csv"); },
                                 {"unknown graph format 'csv' (auto, dimacs, clq, mtx or snap)"});
}

TEST(sssp_workload, a_dimacs_file_from_its_one_based_source_to_a_distance_file)
{
  const std::string output =
      (std::filesystem::temp_directory_path() /
       ("warpdex_sssp_workload_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".txt"))
          .string();
  // tests/graph/data/road.gr, written here so that the test runs away from the source tree (a GPU machine's bundle).
  const std::string graph = output + ".gr";
  std::ofstream(graph) << "c a five-vertex road network; vertex 5 is unreachable from 1\np sp 5 6\na 1 2 4\na 1 3 1\n"
                          "a 3 2 2\na 2 4 5\na 4 1 1\na 5 4 3\n";
  const auto report =
      run_sssp_workload(backend_choice::host, {.graph = graph, .source = 1, .repetitions = 1, .output = output});
  std::filesystem::remove(graph);
  EXPECT_TRUE(report.verified);
  EXPECT_EQ(report.vertices, 5U);
  EXPECT_EQ(report.statistics.reached, 4U);
  EXPECT_EQ(report.max_distance, 8.0);
  std::ifstream file(output);
  const std::string written((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, "1 0\n2 3\n3 1\n4 8\n5 inf\n");  // the file's ids; 5 is not reached from 1
  std::filesystem::remove(output);
  expect_error_mentioning<error>([] { (void)load_graph<float>("rmat:x", {}); }, {"graph 'rmat:x': 'x' is not"});
  expect_error_mentioning<error>([] { (void)load_graph<float>("grid:3", {}); }, {"grid:WIDTHxHEIGHT"});
  const auto grid = load_graph<std::int32_t>("grid:3x2", {});
  EXPECT_FALSE(grid.directed);
  EXPECT_EQ(grid.edges.size(), 7U);
}

}  // namespace
}  // namespace warpdex::graph
