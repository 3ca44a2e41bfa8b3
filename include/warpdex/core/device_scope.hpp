#pragma once
/// @file `detail::device_scope`: a scoped current device, for work on several GPUs from one thread.

#include <warpdex/core/cuda_check.hpp>

#include <cuda_runtime_api.h>

namespace warpdex::detail {
/// Makes `device` current for its lifetime, then restores the device that was (work on several GPUs from one
/// thread: every call that touches a device's memory or streams runs with that device current).
class device_scope {
 public:
  explicit device_scope(int device)
  {
    WARPDEX_CUDA_TRY(cudaGetDevice(&previous_));
    WARPDEX_CUDA_TRY(cudaSetDevice(device));
  }
  ~device_scope() { (void)cudaSetDevice(previous_); }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = 0;
};
}  // namespace warpdex::detail
