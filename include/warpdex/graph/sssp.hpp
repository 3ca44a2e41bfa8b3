#pragma once
/// @file Single-source shortest paths on a `csr_graph` with weights >= 0, on either backend: delta-stepping
/// with the frontier bucketed by the split family's multisplit (Ashkiani et al.'s Multisplit-SSSP), Davidson
/// et al.'s near-far, and Bellman-Ford over a frontier.
///
/// ```
/// const auto g = warpdex::graph::build_csr_graph(warpdex::cuda{}, edges, {.directed = true});
/// auto result = warpdex::graph::sssp(g, 0, {.predecessors = true});
/// const auto distances = result.distances.to_vector();  // unreachable: graph::unreachable<std::int32_t>
/// ```
///
/// Distances: `distance_t<Weight>` is std::uint64_t for std::int32_t weights (sums never overflow) and float
/// for float weights. An unreachable vertex has distance `unreachable<Weight>` (the largest uint64, or
/// +infinity) and predecessor `no_vertex`. An unweighted graph counts every arc as weight 1 (hop counts).
///
/// Results are the same on both backends and for every algorithm: integer distances are exact; float
/// distances are float32 sums along a path, the fixpoint of d(v) = min over arcs (u, v) of fl(d(u) + w),
/// which is what a sequential Dijkstra computes with float32 additions too (equal bit for bit; against
/// exact real arithmetic they differ by the rounding of the sums, about path length x 2^-24 relatively).
/// Predecessors form a shortest-path tree: pred[source] = source, and for every other reached v,
/// d(v) = fl(d(pred[v]) + w(pred[v], v)) with the tree reaching v from the source in the fewest arcs among
/// such tight arcs (smallest predecessor id on ties), so the tree is deterministic too, also with
/// zero-weight cycles.

#include <warpdex/graph/csr_graph.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace warpdex::graph {

template <class Weight>
using distance_t = std::conditional_t<std::is_integral_v<Weight>, std::uint64_t, float>;

/// The distance of a vertex the source does not reach.
template <class Weight>
inline constexpr distance_t<Weight> unreachable = std::is_integral_v<Weight>
                                                      ? std::numeric_limits<distance_t<Weight>>::max()
                                                      : std::numeric_limits<distance_t<Weight>>::infinity();

enum class sssp_algorithm {
  /// `host`: async_delta_stepping. `cuda`: async_delta_stepping on road-like graphs (mean out-degree below 6,
  /// at least 2^17 arcs), delta_stepping otherwise (docs/graph.md has the measurements behind the choices).
  automatic,
  /// delta-stepping (Meyer and Sanders): the pending vertices are kept in `bucket_count` buckets of
  /// width delta by tentative distance, and the lowest nonempty bucket is relaxed (the last bucket
  /// collects everything further away and is split again when it alone is left). On `cuda` the vertices
  /// a round queues are appended to their buckets by a warp-level multisplit inside the rounds' kernel;
  /// in the rounds launched from the host (all of them on `host`), the queue is split by
  /// warpdex::multisplit each round.
  delta_stepping,
  /// near-far (Davidson et al.): a near queue below a threshold and a far pile; the far pile is split
  /// (a two-way partition) only when the near queue runs dry, and the threshold grows by delta
  near_far,
  bellman_ford,  ///< relax every vertex whose distance changed in the previous round (a frontier)
  /// delta-stepping without rounds launched from the host. `cuda`: asynchronous: persistent blocks pull
  /// vertices from a device-side queue of buckets by distance and append the vertices they improve
  /// without a round barrier, the bucket width adjusted at run time from the work each bucket held, and
  /// the end detected on the device. `host`: every core relaxes the current bucket's entries (per-thread
  /// buckets, a barrier between passes): the host's parallel baseline.
  async_delta_stepping,
};

/// Parses "auto", "delta-stepping", "near-far", "bellman-ford" or "async-delta-stepping"; anything else throws
/// `warpdex::error`.
[[nodiscard]] sssp_algorithm parse_sssp_algorithm(const std::string& text);
/// The name `parse_sssp_algorithm` reads ("delta-stepping", ...).
[[nodiscard]] std::string to_string(sssp_algorithm algorithm);

/// `sssp_options::host_rounds` for every round from the host.
inline constexpr std::uint32_t every_round = std::numeric_limits<std::uint32_t>::max();

struct sssp_options {
  sssp_algorithm algorithm = sssp_algorithm::automatic;
  /// Bucket width of delta-stepping and near-far; 0 chooses it from the mean arc weight w and the mean
  /// out-degree d (rounded, at least 1, for integer weights; 1 when the graph has no arcs):
  /// - `host`: 32 w / d^2, narrow buckets, as a round costs little there and redundant relaxations most;
  /// - `cuda`, near-far, and async_delta_stepping on both backends: 32 w / d (Davidson et al.'s rule;
  ///   the cuda kernel adjusts it at run time);
  /// - `cuda`, delta-stepping: 1024 w / d^2, 32x the host's width, as a round costs more there: on an
  ///   H200 it was within 5% of the best of the widths tried on R-MAT 2^24 (d about 16) and on the
  ///   4096 x 4096 grid (d = 4) (docs/graph.md has the rows).
  /// Must be >= 0, finite and at most the largest weight (2^31 - 1 for int32, FLT_MAX for float).
  double delta = 0;
  /// Buckets of delta-stepping, >= 2 (Davidson et al. found 10 best).
  std::uint32_t bucket_count = 10;
  /// Also compute the predecessor tree (one more pass over the tight arcs, BFS-like).
  bool predecessors = false;
  /// `cuda` only: the rounds launched from the host before the rest run in one cooperative kernel. A
  /// round from the host is about ten launches and a synchronization (about 0.1 ms on an H200) but
  /// relaxes a large frontier faster; a round of the kernel costs one grid barrier (about 12 us). So
  /// graphs done in a few dozen rounds (R-MAT: 20-30) never reach the kernel, and those that take
  /// thousands (road-like grids) spend almost all of them in it. 0: every round in the kernel;
  /// `every_round`: none (the kernel is also skipped when the device cannot launch cooperative kernels,
  /// when bucket_count > 256, or when its (buckets + 1) x n vertex ids do not fit in half the free
  /// device memory).
  std::uint32_t host_rounds = 64;
};

/// What a run did, for reports and benchmarks.
struct sssp_statistics {
  sssp_algorithm algorithm = sssp_algorithm::automatic;  ///< the algorithm that ran (never automatic)
  double delta = 0;                                      ///< the bucket width used (0 for bellman_ford)
  std::uint64_t rounds = 0;  ///< relaxation rounds (async_delta_stepping: host: passes; cuda: window moves)
  std::uint64_t relaxed_arcs = 0;       ///< arcs relaxed over all rounds (>= reached arcs; the redundant work)
  std::uint64_t reached = 0;            ///< vertices with a finite distance (the source included)
  double bucketing_seconds = 0;         ///< time in delta-stepping's multisplits / near-far's partitions
  std::uint64_t bucketed_vertices = 0;  ///< queue entries those multisplits / partitions moved
  /// async_delta_stepping on `cuda`: the share of the warps' cycles spent finding no work, times the
  /// kernel's time (the rest relaxes and appends; `bucketing_seconds` is the appends' share)
  double idle_seconds = 0;
  double final_delta = 0;  ///< async_delta_stepping on `cuda`: the bucket width at the end (adjusted)
  /// async_delta_stepping on `cuda`, the takes from the near buckets: those that got vertices, those
  /// that found the bucket empty after all, and those a warp put off because the bucket held too few
  /// vertices for it (its ticket above the bucket's share of takers); `popped` counts the vertices taken
  /// from the buckets (not those a warp relaxes from its own stack of its improvements to the bucket)
  std::uint64_t takes = 0;
  std::uint64_t empty_takes = 0;
  std::uint64_t deferred_takes = 0;
  std::uint64_t popped = 0;
  double seconds = 0;                   ///< the whole call, predecessors included
};

/// Distances (and predecessors) in the graph's backend memory, one per vertex.
template <class Weight, class Backend>
struct sssp_result {
  buffer<distance_t<Weight>> distances;
  buffer<vertex_id> predecessors;  ///< empty unless asked for
  sssp_statistics statistics;
};

/// Shortest paths from `source` (a vertex index: `graph.vertex_of(id)` maps a file's id). Throws
/// `warpdex::error`, before any work, when the source is out of range or an arc weight is negative or NaN
/// (`build_csr_graph` rejects those already; a graph assembled by hand is checked here), or when an
/// option is out of range. Work: O(m + n) per round; rounds: about the number of delta buckets the
/// distances span times the relaxations per bucket (delta-stepping, near-far), the diameter in arcs
/// (bellman_ford). Each round launched from the host synchronizes the backend's stream; the rounds in
/// the cuda backend's kernel do not (sssp_options::host_rounds).
template <class Weight, class Backend>
[[nodiscard]] sssp_result<Weight, Backend> sssp(const csr_graph<Weight, Backend>& graph, vertex_id source,
                                                const sssp_options& options = {});

}  // namespace warpdex::graph
