#pragma once
/// @file Grid sizes for the cuda backend's kernels.

#include <warpdex/core/cuda_check.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace warpdex::detail {

/// Blocks of `block_threads` threads for one thread per item.
inline unsigned blocks_for(std::uint64_t items, std::uint64_t block_threads)
{
  return static_cast<unsigned>((items + block_threads - 1) / block_threads);
}

/// Blocks of a grid-strided kernel over `items`: one per `block_threads` items, at most one full wave
/// (as many blocks as fit on the current device at once). A larger grid leaves a partial last wave: at
/// 2^24 keys, a third more blocks than fit cost the multisplit's histogram kernel up to half its time.
template <class Kernel>
unsigned one_wave_blocks(Kernel kernel, int block_threads, std::uint64_t items, std::size_t dynamic_shared_bytes = 0)
{
  int device = 0;
  int sm_count = 0;
  int resident_blocks = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  WARPDEX_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_blocks, kernel, block_threads, dynamic_shared_bytes));
  return static_cast<unsigned>(std::min<std::uint64_t>(
      blocks_for(items, static_cast<std::uint64_t>(block_threads)),
      static_cast<std::uint64_t>(sm_count) * static_cast<std::uint64_t>(std::max(resident_blocks, 1))));
}

}  // namespace warpdex::detail
