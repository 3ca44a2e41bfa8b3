#pragma once
// sssp_algorithm::async_delta_stepping, outside the Thrust rounds of sssp_impl.hpp: on the host an OpenMP
// delta-stepping over all cores (sssp_parallel_host.cpp), on the cuda backend an asynchronous
// delta-stepping of persistent blocks pulling from a device-side bucket queue (sssp_async_cuda.cu).
// Both start from distances set to unreachable but the source's 0, and fill the statistics' rounds,
// relaxed_arcs and bucketed_vertices.

#include <warpdex/core/backend.hpp>
#include <warpdex/graph/sssp.hpp>

#include "sssp_rounds.hpp"

#include <cstdint>

namespace warpdex::graph::detail {

/// Graphs of fewer arcs per vertex are road-like: on cuda `automatic` runs the asynchronous kernel on them
/// (async_suits, sssp_impl.hpp), and the kernel keeps its queued flags apart from the distances for them
/// (sssp_async_cuda.cu, flag_place).
inline constexpr std::uint64_t road_like_degree = 6;

/// The host's parallel delta-stepping (input.queued, pending and bucket_count unused): buckets of width
/// input.delta kept per thread, every thread relaxing the current bucket's entries (dynamic schedule),
/// a barrier between the bucket's passes. An entry is a (vertex, distance) pair, skipped when the
/// vertex's distance has dropped below it since, so every entry relaxed is relaxed once.
template <class Weight>
void run_parallel_delta_stepping(const device_rounds_input<Weight>& input, vertex_id source,
                                 sssp_statistics& statistics);

#if WARPDEX_HAS_CUDA
/// Whether the asynchronous kernel can run: the device has room for its queues.
template <class Weight>
[[nodiscard]] bool async_rounds_possible(const device_rounds_input<Weight>& input);

/// The cuda backend's asynchronous delta-stepping from `source` (input.queued: n flags, all 0 but the
/// source's 1; pending, pending_count and bucket_count unused; delta: the initial bucket width, adjusted
/// at run time). Synchronizes the backend's stream once, at the end.
template <class Weight>
void run_async_delta_stepping(const cuda& backend, const device_rounds_input<Weight>& input, vertex_id source,
                              sssp_statistics& statistics);
#endif

}  // namespace warpdex::graph::detail
