#pragma once
/// @file Warp-level helpers for kernels: lane and warp indices, lane masks, and thin wrappers over the
/// `_sync` intrinsics whose member mask defaults to the whole warp. CUDA-only (include from .cu files).

#include <cstdint>

namespace warpdex::warp {

inline constexpr int size = 32;
inline constexpr unsigned full_mask = 0xffffffffU;

/// This thread's lane within its warp, read from the %laneid register.
__device__ __forceinline__ unsigned lane_id()
{
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

/// The warp's index within a one-dimensional thread block.
__device__ __forceinline__ unsigned warp_in_block()
{
  return threadIdx.x / size;
}

/// The warp's index within a one-dimensional grid.
__device__ __forceinline__ std::uint64_t global_warp_id()
{
  return (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / size;
}

/// Lanes below this one (bits [0, lane)).
__device__ __forceinline__ unsigned lanemask_lt()
{
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}
/// Lanes at or below this one (bits [0, lane]).
__device__ __forceinline__ unsigned lanemask_le()
{
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(mask));
  return mask;
}
/// Lanes above this one.
__device__ __forceinline__ unsigned lanemask_gt()
{
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(mask));
  return mask;
}
/// Lanes at or above this one.
__device__ __forceinline__ unsigned lanemask_ge()
{
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(mask));
  return mask;
}

__device__ __forceinline__ unsigned ballot(bool predicate, unsigned members = full_mask)
{
  return __ballot_sync(members, predicate);
}
__device__ __forceinline__ bool any(bool predicate, unsigned members = full_mask)
{
  return __any_sync(members, predicate) != 0;
}
__device__ __forceinline__ bool all(bool predicate, unsigned members = full_mask)
{
  return __all_sync(members, predicate) != 0;
}

template <class T>
__device__ __forceinline__ T shfl(T value, int source_lane, int width = size, unsigned members = full_mask)
{
  return __shfl_sync(members, value, source_lane, width);
}
template <class T>
__device__ __forceinline__ T shfl_up(T value, unsigned delta, int width = size, unsigned members = full_mask)
{
  return __shfl_up_sync(members, value, delta, width);
}
template <class T>
__device__ __forceinline__ T shfl_down(T value, unsigned delta, int width = size, unsigned members = full_mask)
{
  return __shfl_down_sync(members, value, delta, width);
}
template <class T>
__device__ __forceinline__ T shfl_xor(T value, int lane_mask, int width = size, unsigned members = full_mask)
{
  return __shfl_xor_sync(members, value, lane_mask, width);
}

/// The lanes among `members` holding the same `value` as this one (sm_70 and newer).
template <class T>
__device__ __forceinline__ unsigned match_any(T value, unsigned members = full_mask)
{
  return __match_any_sync(members, value);
}

/// Number of set bits; index of the lowest set bit (0 when none, else 1-based as `__ffs`).
__device__ __forceinline__ int popc(unsigned bits)
{
  return __popc(bits);
}
__device__ __forceinline__ int ffs(unsigned bits)
{
  return __ffs(bits);
}

/// How many lanes below this one have their bit set in `bits`: a lane's rank among a ballot's voters.
__device__ __forceinline__ int rank_in(unsigned bits)
{
  return __popc(bits & lanemask_lt());
}

}  // namespace warpdex::warp
