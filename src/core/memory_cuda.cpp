// The CUDA memory resources. Plain C++ against the CUDA runtime API: no kernels here.
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/device_scope.hpp>
#include <warpdex/core/memory_resource.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
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

  /// Maps the pool's memory, present and future, for GPU `peer` too.
  void grant_access(int peer)
  {
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = peer;
    access.flags = cudaMemAccessFlagsProtReadWrite;
    WARPDEX_CUDA_TRY(cudaMemPoolSetAccess(pool_, &access, 1));
  }

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

/// cudaMallocHost pins every page, which costs about as much as a copy of the bytes, and cudaFreeHost
/// unpins them: freed blocks of `pinned_cache_min_bytes` or more are kept, up to `pinned_cache_bytes` in
/// all, and handed to the next allocation of the same rounded size, so a pipeline that allocates its
/// staging buffers per input (grep over many files, benchmarks' repeated runs) pins once. A block is
/// cached after the device is synchronized, as cudaFreeHost would: no copy still in flight uses it when
/// it is handed out again. Cached blocks are never returned before the process ends, except when an
/// allocation fails, which frees them all and tries again.
class pinned_memory_resource final : public memory_resource {
 public:
  [[nodiscard]] memory_kind kind() const noexcept override { return memory_kind::pinned; }

 private:
  static constexpr std::size_t pinned_cache_min_bytes = std::size_t{1} << 20;
  static constexpr std::size_t pinned_cache_granule = std::size_t{2} << 20;
  static constexpr std::size_t pinned_cache_bytes = std::size_t{1} << 30;

  static std::size_t rounded(std::size_t bytes)
  {
    if (bytes < pinned_cache_min_bytes) { return bytes; }
    return (bytes + pinned_cache_granule - 1) / pinned_cache_granule * pinned_cache_granule;
  }

  void* do_allocate(std::size_t requested, stream_t) override
  {
    const std::size_t bytes = rounded(requested);
    {
      const std::lock_guard lock(mutex_);
      if (const auto cached = cached_.find(bytes); cached != cached_.end()) {
        void* pointer = cached->second;
        cached_.erase(cached);
        cached_bytes_ -= bytes;
        return pointer;
      }
    }
    void* pointer = nullptr;
    cudaError_t status = cudaMallocHost(&pointer, bytes);
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      release_cached();
      status = cudaMallocHost(&pointer, bytes);
    }
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw out_of_memory("pinned host memory exhausted: could not allocate " + bytes_text(bytes));
    }
    WARPDEX_CUDA_TRY(status);
    return pointer;
  }

  void do_deallocate(void* pointer, std::size_t requested, stream_t) noexcept override
  {
    const std::size_t bytes = rounded(requested);
    if (bytes >= pinned_cache_min_bytes && cudaDeviceSynchronize() == cudaSuccess) {
      const std::lock_guard lock(mutex_);
      if (cached_bytes_ + bytes <= pinned_cache_bytes) {
        cached_.emplace(bytes, pointer);
        cached_bytes_ += bytes;
        return;
      }
    }
    (void)cudaFreeHost(pointer);
  }

  void release_cached() noexcept
  {
    const std::lock_guard lock(mutex_);
    for (const auto& [bytes, pointer] : cached_) { (void)cudaFreeHost(pointer); }
    cached_.clear();
    cached_bytes_ = 0;
  }

  std::mutex mutex_;
  std::multimap<std::size_t, void*> cached_;
  std::size_t cached_bytes_ = 0;
};

}  // namespace

namespace {

/// Every GPU's pool, made on first use, and which GPUs enable_peer_access joined (ordered pairs).
struct device_pools {
  std::mutex mutex;
  std::vector<std::unique_ptr<device_pool_resource>> resources;
  std::set<std::pair<int, int>> joined;

  device_pool_resource& of(int device)  // with the mutex held
  {
    if (resources.empty()) {
      int device_count = 0;
      WARPDEX_CUDA_TRY(cudaGetDeviceCount(&device_count));
      resources.resize(static_cast<std::size_t>(device_count));
    }
    WARPDEX_EXPECTS(device >= 0 && static_cast<std::size_t>(device) < resources.size(),
                    "device_resource: there is no CUDA device " + std::to_string(device));
    auto& resource = resources[static_cast<std::size_t>(device)];
    if (!resource) { resource = std::make_unique<device_pool_resource>(device); }
    return *resource;
  }
};

device_pools& pools()
{
  static auto* const instance = new device_pools;  // never destroyed, as the pools themselves
  return *instance;
}

}  // namespace

memory_resource* device_resource(int device)
{
  if (device < 0) { WARPDEX_CUDA_TRY(cudaGetDevice(&device)); }
  auto& all = pools();
  const std::lock_guard lock(all.mutex);
  return &all.of(device);
}

std::size_t enable_peer_access(const std::vector<int>& devices)
{
  auto& all = pools();
  const std::lock_guard lock(all.mutex);
  std::size_t unreachable = 0;
  for (const int from : devices) {
    for (const int to : devices) {
      if (from == to || all.joined.contains({from, to})) { continue; }
      int possible = 0;
      WARPDEX_CUDA_TRY(cudaDeviceCanAccessPeer(&possible, from, to));
      if (possible == 0) {
        ++unreachable;
        continue;
      }
      {
        // Plain allocations (cudaMalloc, NCCL's, a user's) of `to`, reachable from `from`'s context.
        const detail::device_scope on(from);
        const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
        if (status == cudaErrorPeerAccessAlreadyEnabled) {
          (void)cudaGetLastError();
        } else {
          WARPDEX_CUDA_TRY(status);
        }
      }
      all.of(to).grant_access(from);
      all.joined.insert({from, to});
    }
  }
  return unreachable;
}

bool peer_access_enabled(int from, int to)
{
  if (from == to) { return true; }
  auto& all = pools();
  const std::lock_guard lock(all.mutex);
  return all.joined.contains({from, to});
}

void copy_between_devices(void* destination, int destination_device, const void* source, int source_device,
                          std::size_t bytes, stream_t stream)
{
  if (bytes == 0) { return; }
  const detail::device_scope on(destination_device);
  if (peer_access_enabled(destination_device, source_device)) {
    WARPDEX_CUDA_TRY(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, stream));
    WARPDEX_CUDA_TRY(cudaStreamSynchronize(stream));
    return;
  }
  // No peer mapping: through pinned host memory, a chunk at a time.
  constexpr std::size_t chunk_bytes = std::size_t{64} << 20;
  memory_resource* pinned = pinned_resource();
  const std::size_t staging_bytes = std::min(bytes, chunk_bytes);
  void* staging = pinned->allocate(staging_bytes);
  try {
    for (std::size_t done = 0; done < bytes; done += staging_bytes) {
      const std::size_t part = std::min(staging_bytes, bytes - done);
      {
        const detail::device_scope from(source_device);
        WARPDEX_CUDA_TRY(
            cudaMemcpy(staging, static_cast<const std::byte*>(source) + done, part, cudaMemcpyDeviceToHost));
      }
      WARPDEX_CUDA_TRY(
          cudaMemcpyAsync(static_cast<std::byte*>(destination) + done, staging, part, cudaMemcpyHostToDevice, stream));
      WARPDEX_CUDA_TRY(cudaStreamSynchronize(stream));
    }
  } catch (...) {
    pinned->deallocate(staging, staging_bytes);
    throw;
  }
  pinned->deallocate(staging, staging_bytes);
}

memory_resource* pinned_resource()
{
  // Never destroyed: buffers freed during static destruction still find it, and the cached blocks are
  // the operating system's to reclaim at exit.
  static auto* const resource = new pinned_memory_resource;
  return resource;
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
