#pragma once
/// @file Graph files: DIMACS shortest-path (`.gr`), DIMACS clique and coloring (`.clq`, `.col`), Matrix
/// Market (`.mtx`) and SNAP edge lists, plain or gzip-compressed (read through zlib, detected by content,
/// not by name); and a writer of DIMACS clique files.
///
/// ```
/// const auto file = warpdex::graph::read_graph_file<std::int32_t>("USA-road-d.NY.gr.gz");
/// const auto g = warpdex::graph::build_csr_graph(warpdex::cuda{}, file.edges, file.build_options());
/// ```
///
/// Formats (ids in the result are 0-based):
/// - DIMACS `.gr`: `c` comment lines, one `p sp N M` line, then M lines `a U V W` (1-based ids <= N,
///   W an integer >= 0). Directed.
/// - DIMACS clique / coloring `.clq`, `.col` (the Second DIMACS Challenge's format): `c` comment lines,
///   one `p edge N M` (or `p col N M`) line, then lines `e U V` (1-based ids <= N). Undirected and
///   unweighted; `n ID VALUE` lines (vertex weights) are checked and ignored. The edge count M of
///   published files is unreliable: some list each edge in both directions and count it once, others
///   count both directions and list it once, so the check is lenient: more `e` lines than M are
///   accepted, and fewer only when their distinct edges number exactly M / 2. Any other shortfall is a
///   file that ends early (`check_edge_count = false` accepts it). The binary variant (`.clq.b`) is
///   rejected with a message.
/// - Matrix Market: the `%%MatrixMarket matrix coordinate F S` banner with field F in {pattern, integer,
///   real} and symmetry S in {general, symmetric}; `%` comments; a size line `R C NNZ` with R = C (the
///   vertex count); NNZ lines `I J [V]` (1-based). Symmetric is an undirected graph (each stored entry
///   one edge), general a directed one. Pattern entries carry no weight.
/// - SNAP: `#` comment lines, then one edge per line, `U V` or `U V W`, separated by spaces or tabs (ids
///   0-based, possibly sparse: the result asks for compacted ids). Every line has a weight or none does.
///   Directed unless a comment says "Undirected" (SNAP's headers do) or the options say otherwise.
///
/// Errors are `warpdex::error`s that name the file and the line: an unknown or malformed line, a missing
/// or extra field, an id out of range (0, or above N), a negative, non-numeric or (for integer weights)
/// fractional weight, a header that is missing or repeated, and a file that ends before the records its
/// header announced (a file ending mid-record).

#include <warpdex/graph/csr_graph.hpp>

#include <cstdint>
#include <functional>
#include <string>

namespace warpdex::graph {

enum class graph_format {
  automatic,      ///< by the name without a trailing `.gz`: `.gr` DIMACS, `.clq`/`.col` DIMACS clique,
                  ///< `.mtx` Matrix Market, else SNAP
  dimacs,         ///< DIMACS shortest-path `.gr`
  dimacs_clique,  ///< DIMACS clique / coloring `.clq`, `.col`
  matrix_market,  ///< Matrix Market coordinate `.mtx`
  snap,           ///< SNAP edge list
};

/// Parses "auto", "dimacs" (or "gr"), "clq" (or "col"), "mtx" or "snap"; anything else throws
/// `warpdex::error`.
[[nodiscard]] graph_format parse_graph_format(const std::string& text);

/// How weights are drawn for edges that have none (generators, unweighted files).
struct weight_distribution {
  enum class shape {
    uniform,  ///< uniform over [min_weight, max_weight]
    /// skewed to light edges: min + (max - min) * u^3 for u uniform in [0, 1) (integers: rounded down),
    /// so half the weights lie in the lowest eighth of the range
    skewed,
  };
  shape kind = shape::uniform;
  double min_weight = 1;     ///< >= 0
  double max_weight = 1000;  ///< >= min_weight (the paper draws integers in [0, 1000])
  std::uint64_t seed = 1;

  /// The weight of edge i: a pure function of (i, seed), so a graph is reproduced from its seed.
  /// Integers are uniform over [min, max] inclusive.
  template <class Weight>
  [[nodiscard]] Weight draw(std::uint64_t edge_index) const;
};

/// Parses "uniform" or "skewed"; anything else throws `warpdex::error`.
[[nodiscard]] weight_distribution::shape parse_weight_shape(const std::string& text);

struct graph_read_options {
  graph_format format = graph_format::automatic;
  /// Weights for files without them (pattern Matrix Market, two-column SNAP); none leaves the graph
  /// unweighted. Ignored when the file has weights.
  bool generate_weights = false;
  weight_distribution weights{};
  /// SNAP only: force directed (true) or undirected (false) instead of reading the header's comment.
  int snap_directed = -1;
  /// DIMACS clique only: false accepts a file with fewer edges than its `p` line declares (see the file
  /// comment for what is accepted anyway).
  bool check_edge_count = true;
  /// Called now and then with the fraction of the file read (by compressed bytes), from the reading
  /// thread. Empty: no calls.
  std::function<void(double)> progress{};
};

/// What a graph file holds, ready for `build_csr_graph`.
template <class Weight>
struct graph_file {
  edge_list<Weight> edges;
  bool directed = true;
  bool compact_ids = false;  ///< SNAP ids may be sparse: build with compacted ids
  graph_format format = graph_format::automatic;
  /// The id the file gives vertex 0 (1 for DIMACS and Matrix Market, 0 for SNAP): for mapping ids a user
  /// types or reads back.
  std::uint64_t id_base = 0;

  [[nodiscard]] graph_build_options build_options() const { return {directed, compact_ids}; }
};

/// Reads a graph file (see the file comment for the formats and errors). Weight: std::int32_t or float.
/// O(file size); memory: the edge list (12 bytes per edge with weights).
template <class Weight>
[[nodiscard]] graph_file<Weight> read_graph_file(const std::string& path, const graph_read_options& options = {});

/// Writes `edges` as a DIMACS clique file: `c` lines for each line of `comment`, `p edge N M` (N the edge
/// list's vertex_count, or the largest id + 1 when that is 0; M its size), then `e U V` per edge in list
/// order with 1-based ids. Weights are not written; self-loops and repeated edges are written as they
/// are. gzip-compressed when the path ends in `.gz`. Throws `warpdex::error` when the file cannot be
/// written or an id is not below N. Weight: std::int32_t or float.
template <class Weight>
void write_dimacs_clique_file(const std::string& path, const edge_list<Weight>& edges, const std::string& comment = {});

}  // namespace warpdex::graph
