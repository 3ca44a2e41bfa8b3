#pragma once
// The cuda backend's SSSP rounds run on the device (sssp_rounds_cuda.cu): one cooperative kernel runs
// every round, so a round costs two grid barriers instead of about nine launches and a host
// synchronization (about 0.12 ms a round on an H200, which made the road-like grids slow: docs/graph.md).

#include <warpdex/core/backend.hpp>
#include <warpdex/graph/sssp.hpp>

#include <cstdint>

namespace warpdex::graph::detail {

/// What the device rounds work on: the graph (backend memory), the distances and queued flags as the
/// rounds from the host left them, the vertices pending, and the bucketing.
template <class Weight>
struct device_rounds_input {
  const std::uint64_t* row_offsets = nullptr;
  const vertex_id* columns = nullptr;
  const Weight* weights = nullptr;  ///< nullptr: every arc weighs 1
  std::uint64_t vertex_count = 0;
  std::uint64_t arc_count = 0;
  distance_t<Weight>* distances = nullptr;
  std::uint32_t* queued = nullptr;
  const vertex_id* pending = nullptr;  ///< the pending vertices (all queued), where the rounds start
  std::uint64_t pending_count = 0;
  sssp_algorithm algorithm = sssp_algorithm::bellman_ford;  ///< never automatic
  distance_t<Weight> delta{};                               ///< unused by bellman_ford
  std::uint32_t bucket_count = 2;                           ///< delta_stepping's; near_far uses 2
};

#if WARPDEX_HAS_CUDA
/// The buckets the device rounds keep for `input` (near_far: 2, bellman_ford: 1 used of 2).
template <class Weight>
std::uint32_t device_round_buckets(const device_rounds_input<Weight>& input)
{
  return input.algorithm == sssp_algorithm::delta_stepping ? input.bucket_count : 2U;
}

/// Whether the device rounds can run: the device launches cooperative kernels, the bucket count is at
/// most 256 (the buckets' arrays are cached in shared memory), and their (buckets + 1) x n vertex ids
/// fit in half the free device memory.
template <class Weight>
[[nodiscard]] bool device_rounds_possible(const device_rounds_input<Weight>& input);

/// Runs SSSP's rounds to the fixpoint on the device, from the pending vertices (split into the buckets
/// by their distances first); fills the statistics' rounds, relaxed_arcs,
/// bucketed_vertices and bucketing_seconds (the share of the warps' cycles spent bucketing, times the
/// kernel's time). Synchronizes the backend's stream once, at the end.
template <class Weight>
void run_device_rounds(const cuda& backend, const device_rounds_input<Weight>& input, sssp_statistics& statistics);
#endif

}  // namespace warpdex::graph::detail
