#pragma once
/// @file Graph generators: R-MAT (Kronecker) graphs, 2D grids and random geometric graphs (road-like: low
/// degree, high diameter), small-world rings (Watts-Strogatz), Erdős–Rényi G(n, p), and the DIMACS clique
/// benchmark families defined by formulas (hamming, johnson, keller, MANN_a, c-fat). The random ones are
/// counter-based: edge i (G(n, p): the draws of row u; the geometric graph: the point of vertex i) is a
/// pure function of (i, the parameters, the seed), so a graph is reproduced from its seed alone and
/// generated in parallel on the host's cores. The results are edge
/// lists for `build_csr_graph` (R-MAT: directed, with the self-loops and repeated edges its draws make,
/// which the build drops and merges; all others: undirected, each edge once, no self-loops). Each takes
/// an optional `weight_distribution`: weights drawn per edge when given, an unweighted list otherwise.
///
/// The DIMACS families reproduce the published instances up to a renumbering of the vertices (the same
/// vertex and edge counts, checked by the tests for 22 instances, and clique numbers, checked with igraph
/// for 11 where igraph is fast): `generate_hamming<W>(6, 2)` is
/// hamming6-2, `generate_johnson<W>(8, 4, 4)` johnson8-4-4, `generate_keller<W>(4)` keller4,
/// `generate_mann<W>(27)` MANN_a27 and `generate_c_fat<W>(200, 1)` c-fat200-1.
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
#include <utility>

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

/// A random geometric graph, road-like: n points drawn uniformly in the unit square, each joined to its
/// `neighbours` nearest (ties by the smaller id); an edge where either end chose the other, so the graph
/// is symmetric, nearly planar, of degree >= neighbours (about 1.3 x neighbours on average: k = 4 gives
/// 5.4) and of hop diameter about sqrt(n). The k nearest are found through a uniform grid of cells of
/// about two points each: O(n k) work, parallel over the points. It may have a few small components apart.
/// Weights (when given) are the Euclidean lengths scaled into [min_weight, max_weight]: t = length /
/// (the longest edge's length), `uniform` maps t linearly, `skewed` maps t^3 (integers: rounded down,
/// like weight_distribution::draw), so they follow the geometry, the triangle inequality approximately
/// included; the distribution's seed is not used (the points' seed is `seed`).
struct geometric_parameters {
  std::uint32_t vertices = 1 << 16;  ///< >= 1, < 2^32 - 1
  std::uint32_t neighbours = 4;      ///< k: 1 <= k <= 32 and k < vertices (or any k for one vertex)
  std::uint64_t seed = 1;
};

/// Erdős–Rényi G(n, p): each of the n (n - 1) / 2 vertex pairs is an edge with probability p,
/// independently. Generated in O(n + m) by geometric skipping (Batagelj and Brandes, 2005): within row u
/// the next candidate v < u is found by drawing the length of the run of non-edges, log(1 - r) /
/// log(1 - p) rounded down.
struct gnp_parameters {
  std::uint32_t vertices = 1 << 16;  ///< < 2^32 - 1
  double probability = 1e-4;         ///< in [0, 1]; the expected edge count p n (n - 1) / 2 must be < 2^31
  std::uint64_t seed = 1;
};

/// The largest edge list the generators make (2^31 edges, 16 GiB of ids): parameters that ask for more are
/// rejected with an error instead of exhausting the memory.
inline constexpr std::uint64_t max_generated_edges = std::uint64_t{1} << 31;

/// The edges of an R-MAT graph; weighted when `weights` is given. Throws `warpdex::error` on parameters
/// out of range.
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_rmat(const rmat_parameters& parameters,
                                              const std::optional<weight_distribution>& weights);

/// The edges of a grid graph (each edge once; build it undirected).
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_grid(const grid_parameters& parameters,
                                              const std::optional<weight_distribution>& weights);

/// The edges of a random geometric graph (each edge once as (u, v) with u < v, in ascending u then v;
/// build it undirected). Throws `warpdex::error` on parameters out of range.
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_geometric(const geometric_parameters& parameters,
                                                   const std::optional<weight_distribution>& weights);

/// The point of vertex `v` of the random geometric graph of seed `seed` (x, y in [0, 1)): what
/// generate_geometric joins by distance, for checks and drawings.
[[nodiscard]] std::pair<double, double> geometric_point(std::uint64_t seed, vertex_id v);

/// The edges of a small-world ring (each edge once; build it undirected).
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_small_world(const small_world_parameters& parameters,
                                                     const std::optional<weight_distribution>& weights);

/// The edges of G(n, p) (each edge once as (u, v) with u > v, rows in ascending u; build it undirected).
/// Throws `warpdex::error` on parameters out of range.
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_gnp(const gnp_parameters& parameters,
                                             const std::optional<weight_distribution>& weights = {});

/// The DIMACS Hamming graph hamming`bits`-`min_distance`: the 2^bits words of `bits` bits (vertex id = the
/// word), an edge between two words whose Hamming distance is at least `min_distance` (the graph of
/// binary codes of that minimum distance: a maximum clique is a largest code). 2^bits x sum_{k >= d}
/// C(bits, k) / 2 edges (hamming6-2: 64 vertices, 1824 edges; hamming8-4: 256, 20864). Preconditions:
/// 1 <= bits <= 31, 1 <= min_distance <= bits; otherwise `warpdex::error`. O(vertices + edges).
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_hamming(std::uint32_t bits, std::uint32_t min_distance,
                                                 const std::optional<weight_distribution>& weights = {});

/// The DIMACS Johnson graph johnson`length`-`weight`-`min_distance`: the binary words of `length` bits with
/// exactly `weight` ones (vertex ids in ascending order of the words), an edge between two words whose
/// Hamming distance is at least `min_distance` (the graph of constant-weight codes). johnson8-2-4: 28
/// vertices, 210 edges; johnson16-2-4: 120, 5460; johnson32-2-4: 496, 107880. Preconditions:
/// 1 <= weight <= length <= 63, min_distance >= 1, at most 2^17 words (every pair is tested);
/// otherwise `warpdex::error`. O(vertices^2).
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_johnson(std::uint32_t length, std::uint32_t weight, std::uint32_t min_distance,
                                                 const std::optional<weight_distribution>& weights = {});

/// The DIMACS Keller graph keller`dimension`. The Keller graph G_d (Corrádi and Szabó; Lagarias and Shor)
/// has the 4^d words over {0, 1, 2, 3} as vertices, adjacent when they differ in at least two
/// coordinates and differ by exactly 2 (mod 4) in at least one. The DIMACS instances are the subgraph of
/// G_d induced by the neighbours of the word 0 (G_d is vertex-transitive, so its clique number is one
/// more): 4^d - 3^d - d vertices, ids in ascending order of the words read in base 4. keller4: 171
/// vertices, 9435 edges, clique number 11; keller5: 776, 225990, 27; keller6: 3361, 4619898, 59.
/// Preconditions: 2 <= dimension <= 8; otherwise `warpdex::error`. O(vertices^2).
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_keller(std::uint32_t dimension,
                                                const std::optional<weight_distribution>& weights = {});

/// The DIMACS graph MANN_a`points`: Mannino and Sassano's clique formulation of the Steiner triple
/// covering problem (the smallest set of points meeting every triple of a Steiner triple system,
/// Fulkerson, Nemhauser and Trotter's A_n). Built on the affine Steiner triple system AG(k, 3): points
/// Z_3^k (`points` = 3^k), triples {x, y, z} with x + y + z = 0, which are the systems A_9, A_27 and A_81
/// of the published instances. Vertices: one per point (ids 0 .. points - 1), then three per triple, one
/// per point of the triple (ids points + 3 t + j, triples in lexicographic order). The graph is the
/// complement of: the triangle of each triple's three vertices, and the edge between a point and each
/// triple vertex standing for it. A clique picks the points left out of a cover plus one vertex of each
/// triple standing for a point in the cover, so the clique number is points - (smallest cover) +
/// triples. MANN_a9: 45 vertices, 918 edges, clique number 16; MANN_a27: 378, 70551, 126; MANN_a81:
/// 3321, 5506380, 1100. MANN_a45 is built on a non-affine system (A_45) and is not reproduced.
/// Preconditions: points = 3^k with 1 <= k <= 5; otherwise `warpdex::error`. O(vertices^2).
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_mann(std::uint32_t points,
                                              const std::optional<weight_distribution>& weights = {});

/// The DIMACS c-fat graph c-fat`vertices`-`c` (Berman and Pelc's c-fat rings, as generated by Hasselberg,
/// Pardalos and Vairaktarakis for the DIMACS challenge): k = floor(vertices / (c ln vertices)) parts of
/// consecutive ids, the first vertices mod k of them one vertex larger than the others; each part is a
/// clique and joined completely to the parts before and after it on a ring of the k parts. The clique
/// number is the largest sum of two neighbouring parts (k >= 3). c-fat200-1: 200 vertices, 1534 edges,
/// clique number 12; c-fat200-2: 3235, 24; c-fat200-5: 8473, 58; c-fat500-10: 500, 46627, 126.
/// Preconditions: vertices >= 2, c > 0, k >= 1; otherwise `warpdex::error`. O(vertices + edges).
template <class Weight>
[[nodiscard]] edge_list<Weight> generate_c_fat(std::uint32_t vertices, double c,
                                               const std::optional<weight_distribution>& weights = {});

}  // namespace warpdex::graph
