#pragma once
/// @file `warpdex::graph::csr_graph`: a directed or undirected graph in compressed sparse row form, on
/// either backend, with optional edge weights; and `edge_list`, what graph files and generators produce.
///
/// ```
/// warpdex::graph::edge_list<std::int32_t> edges;
/// edges.vertex_count = 3;
/// edges.add(0, 1, 5);
/// edges.add(1, 2, 7);
/// const auto g = warpdex::graph::build_csr_graph(warpdex::host{}, edges, {.directed = true});
/// // g.vertex_count() == 3, g.edge_count() == 2; out-edges of v: columns[row_offsets[v] .. row_offsets[v + 1])
/// ```
///
/// Supported weight types: std::int32_t and float (the compiled library instantiates both on both
/// backends). Vertex ids are 32-bit: a graph holds at most 2^32 - 1 vertices (id 2^32 - 1 is reserved,
/// `no_vertex`); it may hold more than 2^32 arcs (row offsets are 64-bit).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace warpdex::graph {

/// A vertex id. The largest value is reserved (no vertex: an unreached vertex's predecessor).
using vertex_id = std::uint32_t;
inline constexpr vertex_id no_vertex = std::numeric_limits<vertex_id>::max();

/// Edges as a graph file or a generator gives them, in host memory: arc i runs from sources[i] to
/// targets[i] with weight weights[i] (weights empty: an unweighted graph). Ids are the file's ids (0-based
/// after a reader's shift), possibly sparse; self-loops and repeated edges are allowed here and dealt with
/// by `build_csr_graph`.
template <class Weight>
struct edge_list {
  /// Vertices 0 .. vertex_count - 1 exist even when no edge touches them (a file's declared size); ids in
  /// the lists must lie below it. 0: the largest id + 1.
  std::uint64_t vertex_count = 0;
  std::vector<vertex_id> sources;
  std::vector<vertex_id> targets;
  std::vector<Weight> weights;  ///< empty, or one per edge

  void add(vertex_id source, vertex_id target) { sources.push_back(source), targets.push_back(target); }
  void add(vertex_id source, vertex_id target, Weight weight)
  {
    add(source, target);
    weights.push_back(weight);
  }
  [[nodiscard]] std::uint64_t size() const { return sources.size(); }
  [[nodiscard]] bool weighted() const { return !weights.empty(); }
};

/// How `build_csr_graph` turns an edge list into a graph.
struct graph_build_options {
  /// Directed: edge (u, v) is one arc u -> v. Undirected: it is the two arcs u -> v and v -> u, and
  /// (u, v) and (v, u) are the same edge.
  bool directed = true;
  /// Renumber the vertices that appear in an edge to 0 .. k - 1 in ascending order of their ids (the
  /// graph keeps the original ids, `original_ids`); vertices no edge touches are dropped then. Off: ids
  /// are kept and vertex_count is the edge list's.
  bool compact_ids = false;
};

/// A graph in CSR form in the memory of `Backend`. The out-arcs of vertex v are
/// columns[row_offsets[v] .. row_offsets[v + 1]) in ascending target order, with their weights beside
/// them. Built by `build_csr_graph`, which drops self-loops and merges repeated arcs (keeping the
/// smallest weight), so a graph has no self-loop and at most one arc u -> v. An undirected graph stores
/// each edge as its two arcs (edge_count() counts arcs).
template <class Weight, class Backend>
class csr_graph {
 public:
  using weight_type = Weight;
  using backend_type = Backend;

  csr_graph() = default;
  /// Takes arrays already in CSR form (as `build_csr_graph` makes them); `weights` is empty unless
  /// `weighted`.
  csr_graph(const Backend& backend, std::uint64_t vertex_count, bool directed, bool weighted,
            buffer<std::uint64_t> row_offsets, buffer<vertex_id> columns, buffer<Weight> weights,
            std::vector<vertex_id> original_ids)
      : backend_(backend),
        vertex_count_(vertex_count),
        directed_(directed),
        weighted_(weighted),
        row_offsets_(std::move(row_offsets)),
        columns_(std::move(columns)),
        weights_(std::move(weights)),
        original_ids_(std::move(original_ids))
  {
  }

  [[nodiscard]] const Backend& backend() const { return backend_; }
  [[nodiscard]] std::uint64_t vertex_count() const { return vertex_count_; }
  /// Arcs stored (an undirected edge counts twice).
  [[nodiscard]] std::uint64_t edge_count() const { return columns_.size(); }
  [[nodiscard]] bool directed() const { return directed_; }
  /// Whether the arcs carry weights (an unweighted graph's algorithms treat every weight as 1).
  [[nodiscard]] bool weighted() const { return weighted_; }

  /// vertex_count() + 1 offsets into columns (backend memory); row_offsets[0] = 0.
  [[nodiscard]] std::span<const std::uint64_t> row_offsets() const { return row_offsets_.span(); }
  /// The target of every arc (backend memory).
  [[nodiscard]] std::span<const vertex_id> columns() const { return columns_.span(); }
  /// The weight of every arc (backend memory); empty for an unweighted graph.
  [[nodiscard]] std::span<const Weight> weights() const { return weights_.span(); }

  /// With `compact_ids`: original_ids[v] is vertex v's id in the edge list (ascending). Empty otherwise
  /// (a vertex's id is its index).
  [[nodiscard]] const std::vector<vertex_id>& original_ids() const { return original_ids_; }
  /// The vertex index of an edge-list id: itself without `compact_ids`, else its place in
  /// original_ids. Throws `warpdex::error` when no vertex has that id.
  [[nodiscard]] vertex_id vertex_of(std::uint64_t id) const;
  /// The edge-list id of vertex v (the inverse of `vertex_of`).
  [[nodiscard]] std::uint64_t id_of(vertex_id v) const { return original_ids_.empty() ? v : original_ids_[v]; }

 private:
  Backend backend_{};
  std::uint64_t vertex_count_ = 0;
  bool directed_ = true;
  bool weighted_ = false;
  buffer<std::uint64_t> row_offsets_;
  buffer<vertex_id> columns_;
  buffer<Weight> weights_;
  std::vector<vertex_id> original_ids_;
};

/// Builds the CSR graph of an edge list on `backend`: self-loops dropped, repeated arcs merged into one
/// with the smallest of their weights (for undirected graphs (u, v) and (v, u) are the same edge), ids
/// compacted when asked. Weights must be >= 0 and not NaN (-0.0 is stored as +0.0); anything else, an id
/// at or above a nonzero `edges.vertex_count`, more than 2^32 - 1 vertices, or weights of the wrong count
/// throws `warpdex::error` before any device work. O(m log m) work (a sort of the arcs), about 3x the
/// arcs' bytes of temporary memory on the backend.
template <class Weight, class Backend>
[[nodiscard]] csr_graph<Weight, Backend> build_csr_graph(const Backend& backend, const edge_list<Weight>& edges,
                                                         const graph_build_options& options = {});

/// The graph's arcs back in host memory as an edge list (ids are vertex indices, not original ids):
/// for tests, writers and oracles.
template <class Weight, class Backend>
[[nodiscard]] edge_list<Weight> to_edge_list(const csr_graph<Weight, Backend>& graph);

template <class Weight, class Backend>
vertex_id csr_graph<Weight, Backend>::vertex_of(std::uint64_t id) const
{
  if (original_ids_.empty()) {
    WARPDEX_EXPECTS(id < vertex_count_, "vertex " + std::to_string(id) + " is out of range: the graph has " +
                                            std::to_string(vertex_count_) + " vertices (ids 0 .. " +
                                            std::to_string(vertex_count_ == 0 ? 0 : vertex_count_ - 1) + ")");
    return static_cast<vertex_id>(id);
  }
  std::uint64_t low = 0;
  std::uint64_t high = original_ids_.size();
  while (low < high) {
    const std::uint64_t middle = (low + high) / 2;
    if (original_ids_[middle] < id) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  WARPDEX_EXPECTS(low < original_ids_.size() && original_ids_[low] == id,
                  "vertex " + std::to_string(id) + " is not in the graph (no edge touches it)");
  return static_cast<vertex_id>(low);
}

}  // namespace warpdex::graph
