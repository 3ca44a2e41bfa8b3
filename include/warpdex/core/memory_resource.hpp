#pragma once
/// @file Where warpdex gets its memory: a small polymorphic allocator interface (in the spirit of
/// std::pmr and RMM) whose allocations are ordered on a stream, with a resource for each kind of memory.

#include <warpdex/core/config.hpp>

#include <cstddef>
#include <vector>

namespace warpdex {

/// Which processor can dereference the memory a resource hands out.
enum class memory_kind {
  host,    ///< ordinary host memory
  pinned,  ///< page-locked host memory (host-accessible; fast asynchronous transfers)
  device,  ///< GPU global memory (device-accessible only)
};

/// An allocator. `allocate` and `deallocate` are stream-ordered: memory returned by `allocate(bytes, s)`
/// may be used by work on stream `s` (and by the host after synchronizing `s`); `deallocate(p, bytes, s)`
/// may be called while work on `s` that uses `p` is still in flight. Resources for host memory ignore
/// the stream. Failure throws `warpdex::out_of_memory`; `allocate(0, s)` returns nullptr.
class memory_resource {
 public:
  virtual ~memory_resource() = default;

  [[nodiscard]] void* allocate(std::size_t bytes, stream_t stream = nullptr)
  {
    return bytes == 0 ? nullptr : do_allocate(bytes, stream);
  }
  void deallocate(void* pointer, std::size_t bytes, stream_t stream = nullptr) noexcept
  {
    if (pointer != nullptr) { do_deallocate(pointer, bytes, stream); }
  }
  [[nodiscard]] virtual memory_kind kind() const noexcept = 0;

 private:
  virtual void* do_allocate(std::size_t bytes, stream_t stream) = 0;
  virtual void do_deallocate(void* pointer, std::size_t bytes, stream_t stream) noexcept = 0;
};

/// Host memory aligned to `host_memory_alignment` bytes (a cache line pair, enough for any vector load).
inline constexpr std::size_t host_memory_alignment = 128;

/// The process-wide resource for ordinary host memory.
memory_resource* host_resource();

#if WARPDEX_HAS_CUDA
/// The process-wide stream-ordered resource for device memory of `device` (-1: the current device):
/// `cudaMallocAsync` from a memory pool warpdex owns, so allocating inside a pipeline does not
/// synchronize. The pool keeps freed memory cached for later allocations (mapping fresh memory is
/// slow); an allocation that does not fit beside the cached memory returns it to the driver and tries
/// again before reporting `out_of_memory`. Memory freed by warpdex therefore stays reserved for
/// warpdex until then.
memory_resource* device_resource(int device = -1);

/// Lets every GPU of `devices` read and write the memory of the others where the hardware joins them (NVLink,
/// or PCIe peer-to-peer): enables peer access between their contexts and grants it on their `device_resource`
/// pools, whose allocations are otherwise mapped for their own GPU alone (a copy between two GPUs' pool
/// memory, or a kernel reading a peer's, then fails with cudaErrorInvalidValue). Idempotent; costs a
/// context and a pool on each listed GPU. Returns how many ordered pairs (a reaching b) cannot be joined:
/// copies between those stay possible through host memory only (`copy_between_devices`).
std::size_t enable_peer_access(const std::vector<int>& devices);

/// Whether GPU `from` may read and write GPU `to`'s pool memory (always true for from == to): what
/// `enable_peer_access` granted.
[[nodiscard]] bool peer_access_enabled(int from, int to);

/// Copies `bytes` from `source`, device memory of GPU `source_device`, to `destination`, device memory of GPU
/// `destination_device`, ordered on `stream` (a stream of the destination GPU), then waits for it: directly where
/// `enable_peer_access` joined the two GPUs, otherwise through pinned host memory in chunks.
void copy_between_devices(void* destination, int destination_device, const void* source, int source_device,
                          std::size_t bytes, stream_t stream);

/// The process-wide resource for pinned host memory (`cudaMallocHost`); it synchronizes the device on
/// free. Freed blocks of 1 MiB or more (sizes rounded up to 2 MiB) are kept pinned, up to 1 GiB in all,
/// for later allocations of the same rounded size: pinning costs about as much as copying the bytes.
/// They are freed when an allocation fails, else at exit.
memory_resource* pinned_resource();
#endif

}  // namespace warpdex
