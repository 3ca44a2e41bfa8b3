#pragma once
// The arcs of a warp's vertices laid end to end over its lanes: the load balance the cuda backend's SSSP
// kernels share (the bucketed rounds, sssp_rounds_cuda.cu, and the asynchronous kernel,
// sssp_async_cuda.cu). CUDA-only.

#include <warpdex/core/warp.cuh>

#include <cstdint>

namespace warpdex::graph::detail {

/// The first slot of every lane's `light` arcs (a warp scan; the whole warp calls this converged); `total` gets the
/// slots of the whole warp.
__device__ inline std::uint32_t spread_first_slot(std::uint32_t light, std::uint32_t& total)
{
  const unsigned lane = warp::lane_id();
  std::uint32_t inclusive = light;
  for (int offset = 1; offset < warp::size; offset *= 2) {
    const std::uint32_t below = __shfl_up_sync(warp::full_mask, inclusive, offset);
    if (static_cast<int>(lane) >= offset) { inclusive += below; }
  }
  total = __shfl_sync(warp::full_mask, inclusive, warp::size - 1);
  return inclusive - light;
}

/// The arc of `slot` and the distance of the vertex it leaves, given every lane's first slot `exclusive`, `begin`
/// and `from` (the whole warp calls this converged).
template <class Distance>
__device__ void spread_slot(std::uint32_t slot, std::uint32_t exclusive, std::uint64_t begin, Distance from,
                            std::uint64_t& arc, Distance& arc_from)
{
  // The owner: the last lane whose first slot is <= slot (lanes without arcs share the next one's).
  int owner = 0;
  for (int step = warp::size / 2; step > 0; step /= 2) {
    const std::uint32_t first = __shfl_sync(warp::full_mask, exclusive, owner + step);
    if (first <= slot) { owner += step; }
  }
  const std::uint64_t owner_begin = __shfl_sync(warp::full_mask, begin, owner);
  arc_from = __shfl_sync(warp::full_mask, from, owner);
  arc = owner_begin + (slot - __shfl_sync(warp::full_mask, exclusive, owner));
}

/// Spreads the arcs of every lane's vertex (`light` arcs from `begin`; 0 for a lane without one) over the
/// warp's lanes, 32 at a time in the order of the lanes (a warp scan of `light`), and calls
/// `relax(has, arc, from)` on every lane for each 32: `arc` is the arc of the lane's slot and `from` the
/// distance of the vertex it leaves; `has` is false on the lanes past the last arc. The whole warp calls
/// this converged, and `relax` is called converged.
template <class Distance, class Relax>
__device__ void for_each_spread_arc(std::uint32_t light, std::uint64_t begin, Distance from, Relax&& relax)
{
  std::uint32_t total = 0;
  const std::uint32_t exclusive = spread_first_slot(light, total);
  for (std::uint32_t slot_base = 0; slot_base < total; slot_base += warp::size) {
    const std::uint32_t slot = slot_base + warp::lane_id();
    std::uint64_t arc = 0;
    Distance arc_from{};
    spread_slot(slot, exclusive, begin, from, arc, arc_from);
    relax(slot < total, arc, arc_from);
  }
}

/// for_each_spread_arc, `Arcs` slots a lane at a time (lane l gets slots base + l, base + 32 + l, ...):
/// `relax(has, arc, from)` takes arrays of Arcs, so that a lane can overlap the loads of its arcs.
template <int Arcs, class Distance, class Relax>
__device__ void for_each_spread_arcs(std::uint32_t light, std::uint64_t begin, Distance from, Relax&& relax)
{
  std::uint32_t total = 0;
  const std::uint32_t exclusive = spread_first_slot(light, total);
  for (std::uint32_t slot_base = 0; slot_base < total; slot_base += Arcs * warp::size) {
    bool has[Arcs];
    std::uint64_t arc[Arcs];
    Distance arc_from[Arcs];
#pragma unroll
    for (int i = 0; i < Arcs; ++i) {
      const std::uint32_t slot = slot_base + i * warp::size + warp::lane_id();
      has[i] = slot < total;
      spread_slot(slot, exclusive, begin, from, arc[i], arc_from[i]);
    }
    relax(has, arc, arc_from);
  }
}

}  // namespace warpdex::graph::detail
