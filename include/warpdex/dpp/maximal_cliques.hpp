#pragma once
/// @file Maximal clique enumeration (Lessley, Ch. VII): every maximal clique of an undirected graph, or
/// only their count and size histogram, on either backend with the same results. Built only with the
/// CCCL headers (docs/dpp.md).
///
/// ```
/// const auto edges = warpdex::graph::generate_grid<std::int32_t>({.width = 4, .height = 4}, std::nullopt);
/// const auto g = warpdex::graph::build_csr_graph(warpdex::host{}, edges, {.directed = false});
/// const auto cliques = warpdex::dpp::maximal_cliques(g);
/// // cliques.count() == 24 (the grid's edges), cliques.size_histogram[2] == 24, clique_number() == 2
/// ```
///
/// **Method.** The thesis's iterative extension, one round per clique size k, over a degree-ordered
/// orientation: the vertices are ranked by (degree, id) ascending and each edge kept once, from its
/// lower-ranked end, so a vertex's oriented neighbours are few (at most sqrt(2m) of them) even in graphs
/// with hubs. Cliques are rank tuples in ascending order, held lexicographically sorted, so the k-cliques
/// sharing their first k - 1 vertices (the thesis's hash buckets) are contiguous — and they are exactly
/// the children of one (k-1)-clique, so no sort or hash is needed to build them. A round:
///  1. *Count*: clique i = (P, x) and each later clique j = (P, y) of its bucket make the (k+1)-clique
///     (P, x, y) when x and y are adjacent (a binary search in x's oriented neighbours). Every
///     (k+1)-clique arises from exactly one such pair.
///  2. *Write* (after a scan of the counts): the new cliques, in lexicographic order; i and j are not
///     maximal.
///  3. *Look up*: each new clique's other k-subsets (dropping one of its first k - 1 vertices) are found
///     by binary search among the k-cliques and marked not maximal.
///  4. The k-cliques left unmarked are maximal and go to the output.
/// Isolated vertices are the maximal 1-cliques; edges the 2-cliques.
///
/// Work: O(sum over buckets of bucket_size^2 * log d) for the counts, O(C_k * k^2 * log C_k) for the
/// lookups of the C_k k-cliques. The method enumerates every clique, not only the maximal ones: graphs
/// whose maximal cliques are few among all their cliques (dense DIMACS graphs; the thesis's MANN_a9) cost
/// far more than their output.
///
/// **Memory.** A round holds the k-cliques and the (k+1)-cliques (4 bytes a vertex each) with 17 bytes of
/// bookkeeping a clique. The count of the next round is known before its memory is taken: when a round
/// would exceed `clique_options::memory_limit_bytes` (9/10 of the backend's memory by default; on the host,
/// of the memory available now) it stops with `warpdex::out_of_memory` saying how many cliques of which
/// size need how much memory, never a crash. Before the first round, a graph whose oriented degrees exceed
/// 20 has its clique counts estimated (16384 random paths of the clique tree, on the host): when one
/// round's estimate is already over the limit, it stops at once the same way (hamming:6:2 in a second,
/// not after minutes of rounds); deep rounds are underestimated, so the round check stays the last word.
///
/// **Output** (deterministic, equal on both backends): grouped by size, ascending; each clique's vertex
/// indices ascending (graph indices: map them with `csr_graph::id_of`); within a size, in the
/// lexicographic order of the cliques' degree ranks.
///
/// Errors (`warpdex::error`, before any work): a directed graph, `min_size` of 0.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/graph/csr_graph.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace warpdex::dpp {

/// What `maximal_cliques` returns and keeps.
struct clique_options {
  /// Only maximal cliques of at least this many vertices are returned (the rest are still counted in
  /// the statistics). >= 1.
  std::uint32_t min_size = 1;
  /// Only the histogram: no clique's vertices are written.
  bool count_only = false;
  /// The most backend memory the enumeration may hold at once, in bytes; 0: nine tenths of the backend's
  /// memory (the device's, or the host's physical memory).
  std::uint64_t memory_limit_bytes = 0;
};

/// How the enumeration went.
struct clique_stats {
  std::uint32_t rounds = 0;              ///< clique sizes enumerated (the largest clique's size)
  std::uint64_t all_cliques = 0;         ///< cliques of every size enumerated, maximal or not
  std::uint64_t largest_round = 0;       ///< the most cliques of one size
  std::uint64_t peak_bytes = 0;          ///< the most memory held by the rounds at once
  std::uint64_t oriented_max_degree = 0; ///< the largest oriented neighbourhood (bucket bound)
};

/// The maximal cliques of a graph.
struct clique_set {
  /// The vertices of the returned cliques, in backend memory: every returned clique of size s takes s
  /// consecutive entries; the cliques of size s follow those of size s - 1 (see the file comment for
  /// the order). Empty with `count_only`.
  buffer<graph::vertex_id> vertices;
  /// size_histogram[s]: the maximal cliques of exactly s vertices, returned or not (index 0 unused).
  std::vector<std::uint64_t> size_histogram;
  std::uint32_t min_size = 1;  ///< the option the cliques were returned with
  clique_stats stats;

  /// Maximal cliques of every size.
  [[nodiscard]] std::uint64_t count() const;
  /// Maximal cliques of at least `min_size` vertices (those `vertices` holds unless `count_only`).
  [[nodiscard]] std::uint64_t returned_count() const;
  /// The size of the largest clique (0 for a graph without vertices).
  [[nodiscard]] std::uint32_t clique_number() const
  {
    return size_histogram.empty() ? 0 : static_cast<std::uint32_t>(size_histogram.size() - 1);
  }
  /// Where the cliques of size s start in `vertices` (s >= min_size; s = clique_number() + 1 gives the
  /// end).
  [[nodiscard]] std::uint64_t offset_of_size(std::uint32_t s) const;
  /// The returned cliques in host memory, one vector each, in output order.
  [[nodiscard]] std::vector<std::vector<graph::vertex_id>> to_host() const;
};

/// An undirected CSR graph's arrays in the backend's memory (what `maximal_cliques` reads).
struct clique_graph_view {
  std::uint64_t vertex_count = 0;
  std::span<const std::uint64_t> row_offsets;  ///< vertex_count + 1 entries
  std::span<const graph::vertex_id> columns;   ///< both arcs of every edge, ascending per row, no loops
};

/// The maximal cliques of an undirected graph given as CSR arrays (as `build_csr_graph` makes them:
/// rows sorted, no self-loop or repeated arc, every edge as both arcs; not checked).
template <class Backend>
[[nodiscard]] clique_set maximal_cliques(const Backend& backend, const clique_graph_view& graph,
                                         const clique_options& options = {});

/// The maximal cliques of `graph`, which must be undirected (see the file comment).
template <class Weight, class Backend>
[[nodiscard]] clique_set maximal_cliques(const graph::csr_graph<Weight, Backend>& graph,
                                         const clique_options& options = {})
{
  WARPDEX_EXPECTS(!graph.directed(), "dpp::maximal_cliques: the graph is directed; cliques need an undirected "
                                     "graph (build it with directed = false)");
  return maximal_cliques(graph.backend(), clique_graph_view{graph.vertex_count(), graph.row_offsets(), graph.columns()},
                         options);
}

}  // namespace warpdex::dpp
