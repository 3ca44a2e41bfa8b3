#include <warpdex/core/backend.hpp>
#include <warpdex/core/error.hpp>

#if WARPDEX_HAS_CUDA
#include <warpdex/core/cuda_check.hpp>

#include <cuda_runtime_api.h>
#endif

#include <string>

namespace warpdex {

bool cuda_device_available(std::string* reason)
{
#if WARPDEX_HAS_CUDA
  int device_count = 0;
  const cudaError_t status = cudaGetDeviceCount(&device_count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    if (reason != nullptr) {
      *reason =
          std::string("no usable CUDA device (") + cudaGetErrorName(status) + ")" + detail::cuda_error_hint(status);
    }
    return false;
  }
  if (device_count == 0) {
    if (reason != nullptr) { *reason = "no CUDA device is visible"; }
    return false;
  }
  return true;
#else
  if (reason != nullptr) {
    *reason = "warpdex was built without its CUDA backend (no CUDA compiler at configure time)";
  }
  return false;
#endif
}

device_info query_device(int id)
{
#if WARPDEX_HAS_CUDA
  std::string reason;
  WARPDEX_EXPECTS(cuda_device_available(&reason), "query_device: " + reason);
  int device_count = 0;
  WARPDEX_CUDA_TRY(cudaGetDeviceCount(&device_count));
  WARPDEX_EXPECTS(id >= 0 && id < device_count, "query_device: there is no CUDA device " + std::to_string(id) + " (" +
                                                    std::to_string(device_count) + " visible)");
  cudaDeviceProp properties{};
  WARPDEX_CUDA_TRY(cudaGetDeviceProperties(&properties, id));
  device_info info;
  info.id = id;
  info.name = properties.name;
  info.compute_capability_major = properties.major;
  info.compute_capability_minor = properties.minor;
  info.multiprocessor_count = properties.multiProcessorCount;
  info.global_memory_bytes = properties.totalGlobalMem;
  info.l2_cache_bytes = static_cast<std::size_t>(properties.l2CacheSize);
  info.shared_memory_per_block_optin_bytes = properties.sharedMemPerBlockOptin;
  info.memory_bus_width_bits = properties.memoryBusWidth;
  int current = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&current));
  WARPDEX_CUDA_TRY(cudaSetDevice(id));
  std::size_t total = 0;
  WARPDEX_CUDA_TRY(cudaMemGetInfo(&info.free_memory_bytes, &total));
  WARPDEX_CUDA_TRY(cudaSetDevice(current));
  return info;
#else
  (void)id;
  WARPDEX_FAIL("query_device: warpdex was built without its CUDA backend");
#endif
}

backend_choice parse_backend_choice(std::string_view text)
{
  if (text == "auto") { return backend_choice::automatic; }
  if (text == "cuda") { return backend_choice::cuda; }
  if (text == "host") { return backend_choice::host; }
  WARPDEX_FAIL("unknown backend '" + std::string(text) + "': expected auto, cuda or host");
}

backend_choice resolve_backend(backend_choice choice)
{
  if (choice == backend_choice::host) { return choice; }
  std::string reason;
  const bool available = cuda_device_available(&reason);
  if (choice == backend_choice::automatic) { return available ? backend_choice::cuda : backend_choice::host; }
  WARPDEX_EXPECTS(available, "the cuda backend was requested but " + reason + "; use --backend host or auto");
  return choice;
}

}  // namespace warpdex
