#pragma once
// The clique counts maximal_cliques expects before it enumerates anything (maximal_cliques_impl.hpp),
// estimated on the host from the degree-ordered orientation; defined in maximal_cliques.cpp.

#include <warpdex/graph/csr_graph.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace warpdex::dpp::detail {

/// Random root-to-leaf paths through the clique tree (Knuth's estimate of a backtracking tree's size): a
/// clique's children are its extensions by a common out-neighbour of all its vertices, ranked above its
/// last one, so every clique is one node. A path from root v multiplies the branching factors it meets;
/// averaged over paths and weighted by the roots it stands for, the product up to depth k estimates the
/// k-cliques without bias. Each root is sampled alike (all of them when the graph has at most
/// `clique_estimate_paths` vertices), so the counts of 1- and 2-cliques are exact.
inline constexpr std::uint64_t clique_estimate_paths = std::uint64_t{1} << 14;

/// cliques_of_size[k]: the estimated k-cliques (index 0 unused) of the oriented graph given as rows of
/// out-neighbour ranks, ascending (out_offsets has a row per vertex and one more entry).
[[nodiscard]] std::vector<double> estimate_clique_counts(std::span<const std::uint64_t> out_offsets,
                                                         std::span<const graph::vertex_id> out_columns,
                                                         std::uint64_t seed);

}  // namespace warpdex::dpp::detail
