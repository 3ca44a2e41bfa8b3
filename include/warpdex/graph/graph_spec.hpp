#pragma once
/// @file Graphs named on a command line, a generator spec or a file (load_graph), and the sequential
/// Dijkstra that checks and baselines `sssp` on the host.

#include <warpdex/graph/graph_io.hpp>
#include <warpdex/graph/sssp.hpp>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace warpdex::graph {

/// A sequential Dijkstra (binary heap, lazy deletion) over a CSR graph in host memory (weights empty: 1
/// each), with the same float32 additions as `sssp`: the oracle of the workload and the CPU baseline of
/// the benchmarks. O((n + m) log n).
template <class Weight>
[[nodiscard]] std::vector<distance_t<Weight>> sequential_dijkstra(std::span<const std::uint64_t> row_offsets,
                                                                  std::span<const vertex_id> columns,
                                                                  std::span<const Weight> weights, vertex_id source);

/// A graph named on a command line: a generator spec or a file.
/// - `rmat:SCALE[:EDGE_FACTOR]`: R-MAT, 2^SCALE vertices, EDGE_FACTOR (16) x that many directed edges;
/// - `grid:WIDTHxHEIGHT`: a 2D grid, undirected (road-like);
/// - `geometric:N[:NEIGHBOURS]`: a random geometric graph, each of N points in the unit square joined to its
///   NEIGHBOURS (4) nearest, undirected (road-like; weights are the lengths scaled into the weights' range);
/// - `small-world:N[:NEIGHBOURS[:REWIRE]]`: a Watts-Strogatz ring (4 neighbours, rewire 0.1), undirected;
/// - `gnp:N:P[:SEED]`: Erdős–Rényi G(N, P), undirected (SEED: the weights' seed when left out);
/// - the DIMACS clique families (generators.hpp), undirected: `hamming:BITS:DISTANCE` (hamming6-2 is
///   `hamming:6:2`), `johnson:LENGTH:WEIGHT:DISTANCE` (`johnson:8:4:4`), `keller:DIMENSION` (`keller:4`),
///   `mann:POINTS` (MANN_a27 is `mann:27`), `cfat:N:C` or `c-fat:N:C` (c-fat200-1 is `cfat:200:1`);
/// - anything else: a graph file (graph_io.hpp), weights generated when it has none.
/// Generated weights follow `weights` (the paper's uniform integers in [1, 1000] by default); R-MAT, the
/// geometric graph and the small-world ring take their seed from it too. Throws `warpdex::error` for a
/// malformed spec (a known generator name with fields that do not fit its syntax names the syntax).
template <class Weight>
[[nodiscard]] graph_file<Weight> load_graph(const std::string& spec, const weight_distribution& weights,
                                            const std::function<void(double)>& progress = {});

}  // namespace warpdex::graph
