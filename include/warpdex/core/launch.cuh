#pragma once
/// @file Grid sizes for the cuda backend's kernels.

#include <warpdex/core/cuda_check.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace warpdex::detail {

/// Blocks of `block_threads` threads for one thread per item.
inline unsigned blocks_for(std::uint64_t items, std::uint64_t block_threads)
{
  return static_cast<unsigned>((items + block_threads - 1) / block_threads);
}

/// The blocks of a kernel that fit on one device at once, for its block size and dynamic shared memory:
/// asked of the device the first time and remembered, so a call's path after the first makes no attribute
/// or occupancy query (each one costs microseconds of host time on a call of a few).
class device_waves {
 public:
  template <class Kernel>
  static unsigned blocks(Kernel kernel, int block_threads, std::size_t dynamic_shared_bytes)
  {
    int device = 0;
    WARPDEX_CUDA_TRY(cudaGetDevice(&device));
    const entry key{device, reinterpret_cast<const void*>(kernel), block_threads, dynamic_shared_bytes, 0};
    device_waves& waves = instance();
    {
      const std::lock_guard<std::mutex> hold(waves.lock_);
      for (const entry& known : waves.known_) {
        if (known.same(key)) { return known.wave; }
      }
    }
    int sm_count = 0;
    int resident_blocks = 0;
    WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    WARPDEX_CUDA_TRY(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_blocks, kernel, block_threads, dynamic_shared_bytes));
    entry found = key;
    found.wave = static_cast<unsigned>(sm_count) * static_cast<unsigned>(std::max(resident_blocks, 1));
    const std::lock_guard<std::mutex> hold(waves.lock_);
    waves.known_.push_back(found);
    return found.wave;
  }

 private:
  struct entry {
    int device;
    const void* kernel;
    int block_threads;
    std::size_t shared_bytes;
    unsigned wave;
    [[nodiscard]] bool same(const entry& other) const
    {
      return device == other.device && kernel == other.kernel && block_threads == other.block_threads &&
             shared_bytes == other.shared_bytes;
    }
  };
  static device_waves& instance()
  {
    static device_waves waves;
    return waves;
  }
  std::mutex lock_;
  std::vector<entry> known_;
};

/// Blocks of a grid-strided kernel over `items`: one per `block_threads` items, at most one full wave
/// (as many blocks as fit on the current device at once). A larger grid leaves a partial last wave: at
/// 2^24 keys, a third more blocks than fit cost the multisplit's histogram kernel up to half its time.
template <class Kernel>
unsigned one_wave_blocks(Kernel kernel, int block_threads, std::uint64_t items, std::size_t dynamic_shared_bytes = 0)
{
  return static_cast<unsigned>(
      std::min<std::uint64_t>(blocks_for(items, static_cast<std::uint64_t>(block_threads)),
                              device_waves::blocks(kernel, block_threads, dynamic_shared_bytes)));
}

}  // namespace warpdex::detail
