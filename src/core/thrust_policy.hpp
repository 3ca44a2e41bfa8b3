#pragma once
// Thrust execution policies for the two backends, shared by the components written once against Thrust
// (lsm, graph): `policy(backend)` is thrust::cuda::par on the backend's stream for warpdex::cuda and
// thrust::omp::par for warpdex::host, both drawing temporary storage from the backend's memory resource.
// A host translation unit selects Thrust's OpenMP system (THRUST_DEVICE_SYSTEM=OMP), so it needs no CUDA
// header.

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
#else
inline auto policy(const host& backend)
{
  return thrust::omp::par(resource_allocator{backend.resource(), nullptr});
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
