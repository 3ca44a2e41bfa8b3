#pragma once
// The atomics SSSP's rounds share on both backends (sssp_impl.hpp) and in the cuda backend's
// device-side rounds (sssp_rounds_cuda.cu).

#include <warpdex/core/config.hpp>

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace warpdex::graph::detail {

/// Atomic minimum; returns the value before. T is uint32, uint64 or a non-negative float (whose bit
/// patterns order like the values, +infinity above every finite one, so the GPU uses an integer minimum).
template <class T>
WARPDEX_HOST_DEVICE T atomic_min_value(T* address, T value)
{
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __int_as_float(atomicMin(reinterpret_cast<int*>(address), __float_as_int(value)));
  } else if constexpr (sizeof(T) == sizeof(unsigned long long)) {
    return atomicMin(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
  } else {
    return atomicMin(address, value);
  }
#else
  std::atomic_ref<T> ref(*address);
  T old = ref.load(std::memory_order_relaxed);
  while (value < old && !ref.compare_exchange_weak(old, value, std::memory_order_relaxed)) {}
  return old;
#endif
}

/// A read of a value other threads may lower at the same time (any value it had will do).
template <class T>
WARPDEX_HOST_DEVICE T relaxed_load(const T* address)
{
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile T*>(address);
#else
  return std::atomic_ref<T>(*const_cast<T*>(address)).load(std::memory_order_relaxed);
#endif
}

/// Atomic exchange of a flag; returns the value before.
WARPDEX_HOST_DEVICE inline std::uint32_t atomic_exchange_flag(std::uint32_t* address, std::uint32_t value)
{
#if defined(__CUDA_ARCH__)
  return atomicExch(address, value);
#else
  return std::atomic_ref<std::uint32_t>(*address).exchange(value, std::memory_order_relaxed);
#endif
}

}  // namespace warpdex::graph::detail
