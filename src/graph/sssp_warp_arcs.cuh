#pragma once
// The arcs of a warp's vertices laid end to end over its lanes: the load balance the cuda backend's SSSP
// kernels share (the bucketed rounds, sssp_rounds_cuda.cu, and the asynchronous kernel,
// sssp_async_cuda.cu). CUDA-only.

#include <warpdex/core/warp.cuh>

#include <cstdint>

namespace warpdex::graph::detail {

/// Spreads the arcs of every lane's vertex (`light` arcs from `begin`; 0 for a lane without one) over the
/// warp's lanes, 32 at a time in the order of the lanes (a warp scan of `light`), and calls
/// `relax(has, arc, from)` on every lane for each 32: `arc` is the arc of the lane's slot and `from` the
/// distance of the vertex it leaves; `has` is false on the lanes past the last arc. The whole warp calls
/// this converged, and `relax` is called converged.
template <class Distance, class Relax>
__device__ void for_each_spread_arc(std::uint32_t light, std::uint64_t begin, Distance from, Relax&& relax)
{
  const unsigned lane = warp::lane_id();
  std::uint32_t inclusive = light;
  for (int offset = 1; offset < warp::size; offset *= 2) {
    const std::uint32_t below = __shfl_up_sync(warp::full_mask, inclusive, offset);
    if (static_cast<int>(lane) >= offset) { inclusive += below; }
  }
  const std::uint32_t exclusive = inclusive - light;
  const std::uint32_t total = __shfl_sync(warp::full_mask, inclusive, warp::size - 1);
  for (std::uint32_t slot_base = 0; slot_base < total; slot_base += warp::size) {
    const std::uint32_t slot = slot_base + lane;
    // The owner: the last lane whose first slot is <= slot (lanes without arcs share the next one's).
    int owner = 0;
    for (int step = warp::size / 2; step > 0; step /= 2) {
      const std::uint32_t first = __shfl_sync(warp::full_mask, exclusive, owner + step);
      if (first <= slot) { owner += step; }
    }
    const std::uint64_t owner_begin = __shfl_sync(warp::full_mask, begin, owner);
    const Distance owner_from = __shfl_sync(warp::full_mask, from, owner);
    const std::uint32_t owner_first = __shfl_sync(warp::full_mask, exclusive, owner);
    relax(slot < total, owner_begin + (slot - owner_first), owner_from);
  }
}

}  // namespace warpdex::graph::detail
