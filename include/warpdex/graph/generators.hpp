#pragma once
/// @file Graph generators: R-MAT (Kronecker) graphs, 2D grids (road-like: low degree, high diameter) and
/// small-world rings (Watts-Strogatz). Each is counter-based: edge i is a pure function of (i, the
/// parameters, the seed), so a graph is reproduced from its seed alone and generated in parallel on the
/// host's cores. The results are edge lists for `build_csr_graph` (R-MAT: directed, with the self-loops
/// and repeated edges its draws make, which the build drops and merges; grids and rings: undirected).
///
/// ```
/// const auto edges = warpdex::graph::generate_rmat<std::int32_t>({.scale = 20},
/// warpdex::graph::weight_distribution{}); const auto g = warpdex::graph::build_csr_graph(warpdex::cuda{}, edges,
/// {.directed = true});
/// ```

#include <warpdex/graph/csr_graph.hpp>
#include <warpdex/graph/graph_io.hpp>

#include <cstdint>
#include <optional>

namespace warpdex::graph {

/// R-MAT: each edge picks one quadrant of the adjacency matrix per level with probabilities a, b, c and
/// d = 1 - a - b - c, scale levels deep (Chakrabarti et al.; the defaults are Graph500's). Vertex ids are
/// not permuted: low ids are the high-degree ones (vertex 0 is the largest hub).
struct rmat_parameters {
  std::uint32_t scale = 16;        ///< 2^scale vertices; 1 <= scale <= 31
  std::uint32_t edge_factor = 16;  ///< edges drawn = edge_factor * 2^scale (before merging repeats)
  double a = 0.57;
  double b = 0.19;
  double c = 0.19;
  std::uint64_t seed = 1;
};

/// A width x height grid with edges between horizontal and vertical neighbours (vertex x + y * width):
/// 2 * width * height - width - height undirected edges, diameter width + height - 2.
struct grid_parameters {
  std::uint32_t width = 256;
  std::uint32_t height = 256;
};

/// A ring of n vertices, each joined to its `neighbours / 2` nearest on either side; each edge's far
/// end is replaced with probability `rewire` by a uniformly drawn vertex (Watts-Strogatz).
struct small_world_parameters {
  std::uint32_t vertices = 1 << 16;
  std::uint32_t neighbours = 4;  ///< even, >= 2, < vertices
  double rewire = 0.1;           ///< in [0, 1]
  std::uint64_t seed = 1;
};

/// The edges of an R-MAT graph; weighted when `weights` is given. Throws `warpdex::error` on parameters
/// out of range.
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_rmat(const rmat_parameters& parameters,
                                              const std::optional<weight_distribution>& weights);

/// The edges of a grid graph (each edge once; build it undirected).
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_grid(const grid_parameters& parameters,
                                              const std::optional<weight_distribution>& weights);

/// The edges of a small-world ring (each edge once; build it undirected).
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_small_world(const small_world_parameters& parameters,
                                                     const std::optional<weight_distribution>& weights);

}  // namespace warpdex::graph
