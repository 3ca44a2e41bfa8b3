#pragma once
/// @file Where warpdex gets its memory: a small polymorphic allocator interface (in the spirit of
/// std::pmr and RMM) whose allocations are ordered on a stream, with a resource for each kind of memory.

#include <warpdex/core/config.hpp>

#include <cstddef>

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

/// The process-wide resource for pinned host memory (`cudaMallocHost`); it synchronizes the device on
/// free. Freed blocks of 1 MiB or more (sizes rounded up to 2 MiB) are kept pinned, up to 1 GiB in all,
/// for later allocations of the same rounded size: pinning costs about as much as copying the bytes.
/// They are freed when an allocation fails, else at exit.
memory_resource* pinned_resource();
#endif

}  // namespace warpdex
