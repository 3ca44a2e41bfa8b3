// The CUDA memory resources. Plain C++ against the CUDA runtime API: no kernels here.
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/memory_resource.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace warpdex {
namespace {

std::string bytes_text(std::size_t bytes)
{
  return std::to_string(bytes) + " bytes";
}

/// cudaMallocAsync from a pool of our own, so the default pool's settings (which other libraries in the
/// process may rely on) stay untouched. The pool keeps freed memory for the next allocations instead of
/// returning it to the driver at every synchronization: mapping fresh memory costs about as much as
/// writing it, which made every large temporary (a sort's second buffer, an LSM level) pay that again
/// on each call. An allocation the cached memory stands in the way of trims the pool and tries again.
class device_pool_resource final : public memory_resource {
 public:
  explicit device_pool_resource(int device) : device_(device)
  {
    cudaMemPoolProps properties{};
    properties.allocType = cudaMemAllocationTypePinned;
    properties.handleTypes = cudaMemHandleTypeNone;
    properties.location.type = cudaMemLocationTypeDevice;
    properties.location.id = device;
    WARPDEX_CUDA_TRY(cudaMemPoolCreate(&pool_, &properties));
    std::uint64_t keep_everything = std::numeric_limits<std::uint64_t>::max();
    WARPDEX_CUDA_TRY(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  }
  // The pool lives as long as the process: destroying it from a static destructor could run after the
  // CUDA runtime has shut down.

  [[nodiscard]] memory_kind kind() const noexcept override { return memory_kind::device; }

 private:
  void* do_allocate(std::size_t bytes, stream_t stream) override
  {
    void* pointer = nullptr;
    cudaError_t status = cudaMallocFromPoolAsync(&pointer, bytes, pool_, stream);
    if (status == cudaErrorMemoryAllocation) {
      // Return the cached memory that no allocation holds (after the work queued on it) and try again.
      (void)cudaGetLastError();
      WARPDEX_CUDA_TRY(cudaDeviceSynchronize());
      WARPDEX_CUDA_TRY(cudaMemPoolTrimTo(pool_, 0));
      status = cudaMallocFromPoolAsync(&pointer, bytes, pool_, stream);
    }
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      std::size_t free_bytes = 0;
      std::size_t total_bytes = 0;
      (void)cudaMemGetInfo(&free_bytes, &total_bytes);
      throw out_of_memory("device memory exhausted on GPU " + std::to_string(device_) + ": could not allocate " +
                          bytes_text(bytes) + " (" + bytes_text(free_bytes) + " free of " + bytes_text(total_bytes) +
                          "); use smaller inputs");
    }
    WARPDEX_CUDA_TRY(status);
    return pointer;
  }
  void do_deallocate(void* pointer, std::size_t, stream_t stream) noexcept override
  {
    (void)cudaFreeAsync(pointer, stream);
  }

  int device_;
  cudaMemPool_t pool_ = nullptr;
};

class pinned_memory_resource final : public memory_resource {
 public:
  [[nodiscard]] memory_kind kind() const noexcept override { return memory_kind::pinned; }

 private:
  void* do_allocate(std::size_t bytes, stream_t) override
  {
    void* pointer = nullptr;
    const cudaError_t status = cudaMallocHost(&pointer, bytes);
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw out_of_memory("pinned host memory exhausted: could not allocate " + bytes_text(bytes));
    }
    WARPDEX_CUDA_TRY(status);
    return pointer;
  }
  void do_deallocate(void* pointer, std::size_t, stream_t) noexcept override { (void)cudaFreeHost(pointer); }
};

}  // namespace

memory_resource* device_resource(int device)
{
  if (device < 0) { WARPDEX_CUDA_TRY(cudaGetDevice(&device)); }
  static std::mutex mutex;
  static std::vector<std::unique_ptr<device_pool_resource>> resources;
  const std::lock_guard lock(mutex);
  if (resources.empty()) {
    int device_count = 0;
    WARPDEX_CUDA_TRY(cudaGetDeviceCount(&device_count));
    resources.resize(static_cast<std::size_t>(device_count));
  }
  WARPDEX_EXPECTS(static_cast<std::size_t>(device) < resources.size(),
                  "device_resource: there is no CUDA device " + std::to_string(device));
  auto& resource = resources[static_cast<std::size_t>(device)];
  if (!resource) { resource = std::make_unique<device_pool_resource>(device); }
  return resource.get();
}

memory_resource* pinned_resource()
{
  static pinned_memory_resource resource;
  return &resource;
}

namespace detail {
void copy_device_bytes(void* destination, const void* source, std::size_t bytes, stream_t stream)
{
  if (bytes != 0) { WARPDEX_CUDA_TRY(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, stream)); }
}
void synchronize(stream_t stream)
{
  WARPDEX_CUDA_TRY(cudaStreamSynchronize(stream));
}
}  // namespace detail

}  // namespace warpdex
