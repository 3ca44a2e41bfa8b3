// The pools of the split family's synchronous calls (detail/sync_scratch.hpp). Plain C++ against the CUDA
// runtime: no kernels here.
//
// Slot memory comes from cudaMalloc and cudaMallocHost, not from the stream-ordered device pool: a slot
// serves calls on any stream, one at a time, each of which waits on its stream before giving the slot
// back, so no order between streams is needed, and freeing it does not name a stream that its user may
// have destroyed since. The pools are made on first use, after a call of the CUDA runtime, so that their
// destructor (which frees the idle slots) runs at exit before the runtime shuts down.
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/memory_resource.hpp>
#include <warpdex/split/detail/sync_scratch.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace warpdex::detail {

struct sync_scratch_slot {
  explicit sync_scratch_slot(memory_resource* resource) : workspace(resource) {}
  multisplit_workspace workspace;
  std::uint64_t* device_words = nullptr;
  std::size_t device_count = 0;
  std::uint64_t* host_words = nullptr;
  std::size_t host_count = 0;
};

namespace {

std::atomic<std::uint64_t> allocations{0};
std::atomic<std::size_t> bytes_held{0};

/// The fewest result words a slot allocates: m + 2 words for up to 1022 buckets or bins.
constexpr std::size_t min_result_words = 1024;

[[noreturn]] void throw_out_of_memory(const char* what, std::size_t bytes)
{
  (void)cudaGetLastError();
  throw out_of_memory(std::string("synchronous split scratch: could not allocate ") + std::to_string(bytes) +
                      " bytes of " + what);
}

void* allocate_device(std::size_t bytes)
{
  void* pointer = nullptr;
  const cudaError_t status = cudaMalloc(&pointer, bytes);
  if (status == cudaErrorMemoryAllocation) { throw_out_of_memory("device memory", bytes); }
  WARPDEX_CUDA_TRY(status);
  allocations.fetch_add(1, std::memory_order_relaxed);
  bytes_held.fetch_add(bytes, std::memory_order_relaxed);
  return pointer;
}

void free_device(void* pointer, std::size_t bytes) noexcept
{
  if (pointer == nullptr) { return; }
  (void)cudaFree(pointer);  // waits for the device: nothing in flight uses it
  bytes_held.fetch_sub(bytes, std::memory_order_relaxed);
}

/// Device memory without stream order: the slots' workspaces grow through it.
class unordered_device_resource final : public memory_resource {
 public:
  [[nodiscard]] memory_kind kind() const noexcept override { return memory_kind::device; }

 private:
  void* do_allocate(std::size_t bytes, stream_t) override { return allocate_device(bytes); }
  void do_deallocate(void* pointer, std::size_t bytes, stream_t) noexcept override { free_device(pointer, bytes); }
};

memory_resource* unordered_device()
{
  static auto* const instance = new unordered_device_resource;  // stateless; never destroyed
  return instance;
}

/// Frees everything a slot holds (its device current).
void free_slot(sync_scratch_slot* slot) noexcept
{
  slot->workspace.release();
  free_device(slot->device_words, slot->device_count * sizeof(std::uint64_t));
  if (slot->host_words != nullptr) {
    (void)cudaFreeHost(slot->host_words);
    bytes_held.fetch_sub(slot->host_count * sizeof(std::uint64_t), std::memory_order_relaxed);
  }
  delete slot;
}

struct device_slots {
  std::vector<sync_scratch_slot*> idle;
  std::uint64_t made = 0;  // not released: idle or leased
  std::uint64_t leased = 0;
};

class slot_pools {
 public:
  slot_pools()
  {
    int count = 0;
    WARPDEX_CUDA_TRY(cudaGetDeviceCount(&count));  // the runtime is up before this object is complete
    devices_.resize(static_cast<std::size_t>(std::max(count, 0)));
  }
  ~slot_pools() { release(); }
  slot_pools(const slot_pools&) = delete;
  slot_pools& operator=(const slot_pools&) = delete;

  sync_scratch_slot* lease(int device)
  {
    {
      const std::lock_guard lock(mutex_);
      auto& slots = of(device);
      ++slots.leased;
      if (!slots.idle.empty()) {
        sync_scratch_slot* slot = slots.idle.back();
        slots.idle.pop_back();
        return slot;
      }
      ++slots.made;
    }
    try {
      return new sync_scratch_slot(unordered_device());
    } catch (...) {
      const std::lock_guard lock(mutex_);
      --of(device).made;
      --of(device).leased;
      throw;
    }
  }

  void give_back(int device, sync_scratch_slot* slot) noexcept
  {
    const std::lock_guard lock(mutex_);
    auto& slots = of(device);
    --slots.leased;
    try {
      slots.idle.push_back(slot);
    } catch (...) {  // no room to keep it: free it
      --slots.made;
      free_slot(slot);
    }
  }

  sync_scratch_statistics now()
  {
    sync_scratch_statistics statistics;
    const std::lock_guard lock(mutex_);
    for (const auto& slots : devices_) {
      statistics.slots += slots.made;
      statistics.leased += slots.leased;
    }
    statistics.allocations = allocations.load(std::memory_order_relaxed);
    statistics.bytes = bytes_held.load(std::memory_order_relaxed);
    return statistics;
  }

  void release() noexcept
  {
    const std::lock_guard lock(mutex_);
    int current = 0;
    const bool known = cudaGetDevice(&current) == cudaSuccess;
    for (std::size_t device = 0; device < devices_.size(); ++device) {
      auto& slots = devices_[device];
      if (slots.idle.empty()) { continue; }
      (void)cudaSetDevice(static_cast<int>(device));
      for (sync_scratch_slot* slot : slots.idle) { free_slot(slot); }
      slots.made -= slots.idle.size();
      slots.idle.clear();
    }
    if (known) { (void)cudaSetDevice(current); }
  }

 private:
  device_slots& of(int device)  // with the mutex held
  {
    WARPDEX_EXPECTS(device >= 0 && static_cast<std::size_t>(device) < devices_.size(),
                    "sync_scratch: there is no CUDA device " + std::to_string(device));
    return devices_[static_cast<std::size_t>(device)];
  }

  std::mutex mutex_;
  std::vector<device_slots> devices_;
};

slot_pools& pools()
{
  static slot_pools instance;  // destroyed at exit, before the CUDA runtime it started
  return instance;
}

}  // namespace

sync_scratch::sync_scratch(const cuda& backend) : stream_(backend.stream), exceptions_(std::uncaught_exceptions())
{
  WARPDEX_CUDA_TRY(cudaGetDevice(&device_));
  slot_ = pools().lease(device_);
}

sync_scratch::~sync_scratch()
{
  // Leaving by an exception, work of the call may still be queued on the stream: it must finish before
  // another call takes the slot.
  if (std::uncaught_exceptions() > exceptions_) { (void)cudaStreamSynchronize(stream_); }
  pools().give_back(device_, slot_);
}

multisplit_workspace& sync_scratch::workspace()
{
  return slot_->workspace;
}

std::uint64_t* sync_scratch::device_words(std::size_t count)
{
  if (slot_->device_count < count) {
    free_device(slot_->device_words, slot_->device_count * sizeof(std::uint64_t));
    slot_->device_words = nullptr;
    slot_->device_count = 0;
    const std::size_t words = std::bit_ceil(std::max(count, min_result_words));
    slot_->device_words = static_cast<std::uint64_t*>(allocate_device(words * sizeof(std::uint64_t)));
    slot_->device_count = words;
  }
  return slot_->device_words;
}

std::uint64_t* sync_scratch::host_words(std::size_t count)
{
  if (slot_->host_count < count) {
    if (slot_->host_words != nullptr) {
      (void)cudaFreeHost(slot_->host_words);  // waits for the device: no copy in flight writes it
      bytes_held.fetch_sub(slot_->host_count * sizeof(std::uint64_t), std::memory_order_relaxed);
      slot_->host_words = nullptr;
      slot_->host_count = 0;
    }
    const std::size_t words = std::bit_ceil(std::max(count, min_result_words));
    void* pointer = nullptr;
    const cudaError_t status = cudaMallocHost(&pointer, words * sizeof(std::uint64_t));
    if (status == cudaErrorMemoryAllocation) { throw_out_of_memory("pinned host memory", words * 8); }
    WARPDEX_CUDA_TRY(status);
    allocations.fetch_add(1, std::memory_order_relaxed);
    bytes_held.fetch_add(words * sizeof(std::uint64_t), std::memory_order_relaxed);
    slot_->host_words = static_cast<std::uint64_t*>(pointer);
    slot_->host_count = words;
  }
  return slot_->host_words;
}

sync_scratch_statistics sync_scratch_now()
{
  return pools().now();
}

void release_sync_scratch()
{
  pools().release();
}

}  // namespace warpdex::detail
