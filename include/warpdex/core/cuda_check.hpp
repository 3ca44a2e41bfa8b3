#pragma once
/// @file Checking every CUDA runtime call and kernel launch.
///
/// `WARPDEX_CUDA_TRY(cudaMemcpy(...))` throws `warpdex::cuda_error` naming the call, the CUDA error and,
/// for the errors a user can fix, what to do. `WARPDEX_CHECK_LAUNCH("kernel")` after a `<<<...>>>`
/// launch catches configuration errors at once; define `WARPDEX_SYNC_AFTER_LAUNCH` to also
/// synchronize and catch faults inside the kernel at the launch that caused them (slow; for debugging).

#include <warpdex/core/error.hpp>

#include <cuda_runtime_api.h>

#include <string>

namespace warpdex::detail {

/// A hint appended to the messages of the errors that have a usual cause outside warpdex.
inline const char* cuda_error_hint(cudaError_t status)
{
  switch (status) {
    case cudaErrorNoDevice:
      return " (no CUDA device is visible: check the driver and CUDA_VISIBLE_DEVICES, or use --backend host)";
    case cudaErrorInsufficientDriver:
      return " (no NVIDIA driver is loaded, or it is older than this CUDA runtime: install or update it, or use "
             "--backend host)";
    case cudaErrorMemoryAllocation:
      return " (device memory exhausted: use smaller inputs or free other allocations)";
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
      return " (warpdex was not built for this GPU: rebuild with -DCMAKE_CUDA_ARCHITECTURES=<its compute capability>)";
    case cudaErrorIllegalAddress:
      return " (a kernel accessed invalid memory: the CUDA context is now unusable; run compute-sanitizer to locate "
             "it)";
    default:
      return "";
  }
}

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line)
{
  std::string message = std::string("CUDA error in ") + what + ": " + cudaGetErrorName(status) + ": " +
                        cudaGetErrorString(status) + cuda_error_hint(status);
  std::string location = std::string(file) + ":" + std::to_string(line);
  if (status == cudaErrorMemoryAllocation) { throw out_of_memory(message, std::move(location)); }
  throw cuda_error(static_cast<int>(status), message, std::move(location));
}

}  // namespace warpdex::detail

/// Evaluates a CUDA runtime call and throws `warpdex::cuda_error` if it did not return cudaSuccess.
/// A failed call's non-sticky error is cleared, so later calls are not blamed for it.
#define WARPDEX_CUDA_TRY(call)                                                         \
  do {                                                                                 \
    const cudaError_t warpdex_status_ = (call);                                        \
    if (warpdex_status_ != cudaSuccess) {                                              \
      (void)cudaGetLastError();                                                        \
      ::warpdex::detail::throw_cuda_error(warpdex_status_, #call, __FILE__, __LINE__); \
    }                                                                                  \
  } while (0)

#ifdef WARPDEX_SYNC_AFTER_LAUNCH
#define WARPDEX_DETAIL_SYNC_AFTER_LAUNCH(name) \
  ::warpdex::detail::check_launch_status(cudaDeviceSynchronize(), name, __FILE__, __LINE__)
#else
#define WARPDEX_DETAIL_SYNC_AFTER_LAUNCH(name) ((void)0)
#endif

namespace warpdex::detail {
inline void check_launch_status(cudaError_t status, const char* kernel_name, const char* file, int line)
{
  if (status != cudaSuccess) {
    const std::string what = std::string("launch of ") + kernel_name;
    throw_cuda_error(status, what.c_str(), file, line);
  }
}
}  // namespace warpdex::detail

/// Checks the launch that just happened (call right after `kernel<<<...>>>(...)`).
#define WARPDEX_CHECK_LAUNCH(kernel_name)                                                        \
  do {                                                                                           \
    ::warpdex::detail::check_launch_status(cudaGetLastError(), kernel_name, __FILE__, __LINE__); \
    WARPDEX_DETAIL_SYNC_AFTER_LAUNCH(kernel_name);                                               \
  } while (0)
