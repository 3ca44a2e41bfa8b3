#pragma once
// What every algorithm written once over Thrust needs from its backend: the execution policy (Thrust's
// CUDA system on the backend's stream, or its OpenMP system), temporary storage from the backend's memory
// resource, and reading one value back. A translation unit compiled by nvcc gets the cuda backend's
// policy; a host translation unit (THRUST_DEVICE_SYSTEM=OMP) gets the host backend's.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>

#include <thrust/execution_policy.h>
#if defined(__CUDACC__)
#include <thrust/system/cuda/execution_policy.h>
#else
#include <thrust/system/omp/execution_policy.h>
#endif

#include <cstddef>
#include <type_traits>

namespace warpdex::detail {

/// Thrust's temporary storage from the backend's memory resource: the stream-ordered device pool on
/// cuda, so the many small temporaries of batch updates neither synchronize nor call cudaMalloc.
struct resource_allocator {
  using value_type = char;
  memory_resource* resource;
  stream_t stream;
  char* allocate(std::ptrdiff_t bytes)
  {
    return static_cast<char*>(resource->allocate(static_cast<std::size_t>(bytes), stream));
  }
  void deallocate(char* pointer, std::size_t bytes) { resource->deallocate(pointer, bytes, stream); }
};

#if defined(__CUDACC__)
inline auto policy(const cuda& backend)
{
  return thrust::cuda::par(resource_allocator{backend.resource(), backend.stream}).on(backend.stream);
}

/// The same without the synchronization Thrust adds after algorithms that return nothing to the host:
/// work stays queued on the stream (algorithms returning a value still wait for it).
inline auto policy_nosync(const cuda& backend)
{
  return thrust::cuda::par_nosync(resource_allocator{backend.resource(), backend.stream}).on(backend.stream);
}
#else
inline auto policy(const host& backend)
{
  return thrust::omp::par(resource_allocator{backend.resource(), nullptr});
}

inline auto policy_nosync(const host& backend)
{
  return policy(backend);
}
#endif

/// One value from the backend's memory.
template <class T, class Backend>
T read_back(const Backend& backend, const T* pointer)
{
  T value{};
  if constexpr (std::is_same_v<Backend, host>) {
    value = *pointer;
  } else {
    copy_device_bytes(&value, pointer, sizeof(T), backend.stream);
    synchronize(backend.stream);
  }
  return value;
}

}  // namespace warpdex::detail
