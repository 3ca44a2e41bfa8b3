#pragma once
/// @file Relaxed atomic accesses for the racy steps of hash fighting and HashFight, one spelling for both
/// backends: cuda::atomic_ref in translation units nvcc compiles, std::atomic_ref in host ones. Relaxed
/// order is all these steps need: the algorithm-call boundary between a fight and its check orders them.

#include <warpdex/core/config.hpp>

#if defined(__CUDACC__)
#include <cuda/atomic>
#else
#include <atomic>
#endif

namespace warpdex::dpp::detail {

#if defined(__CUDACC__)
template <class T>
using atomic_ref = ::cuda::atomic_ref<T, ::cuda::thread_scope_device>;
inline constexpr auto relaxed = ::cuda::memory_order_relaxed;
#else
template <class T>
using atomic_ref = std::atomic_ref<T>;
inline constexpr auto relaxed = std::memory_order_relaxed;
#endif

// On the GPU, cuda::atomic_ref of a single byte reads (and compare-and-swaps) the aligned 32-bit word
// around it, which reaches past the end of a byte array whose size is not a multiple of 4
// (compute-sanitizer's memcheck reports it). A volatile byte access is a relaxed access in PTX's memory
// model, and a single byte cannot tear: bytes take that path.

/// *place = value, atomically (racing stores: one of them survives, untorn).
template <class T>
WARPDEX_HOST_DEVICE void relaxed_store(T* place, T value)
{
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 1) {
    *static_cast<volatile T*>(place) = value;
    return;
  }
#endif
  atomic_ref<T>(*place).store(value, relaxed);
}

/// *place, atomically.
template <class T>
WARPDEX_HOST_DEVICE T relaxed_load(T* place)
{
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 1) { return *static_cast<volatile T*>(place); }
#endif
  return atomic_ref<T>(*place).load(relaxed);
}

/// *place = max(*place, value), atomically.
template <class T>
WARPDEX_HOST_DEVICE void relaxed_fetch_max(T* place, T value)
{
#if defined(__CUDACC__)
  atomic_ref<T>(*place).fetch_max(value, relaxed);
#else
  atomic_ref<T> ref(*place);
  T seen = ref.load(relaxed);
  while (seen < value && !ref.compare_exchange_weak(seen, value, relaxed)) {}
#endif
}

/// *place |= bits, atomically (racing ors of different bits all take effect).
template <class T>
WARPDEX_HOST_DEVICE void relaxed_fetch_or(T* place, T bits)
{
  atomic_ref<T>(*place).fetch_or(bits, relaxed);
}

}  // namespace warpdex::dpp::detail
