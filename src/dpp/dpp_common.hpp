#pragma once
// What the dpp family's Thrust implementations share (duplicates_impl.hpp, external_faces_impl.hpp,
// hashfight_impl.hpp, maximal_cliques_impl.hpp).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/config.hpp>
#include <warpdex/core/error.hpp>

#if defined(__CUDACC__)
#include <warpdex/core/cuda_check.hpp>

#include <cuda_runtime.h>
#else
#include <unistd.h>
#endif

#include <cstdint>
#include <new>
#include <string>

namespace warpdex::dpp::detail {

/// Runs `action`, reporting exhausted memory (ours, or Thrust's own) as warpdex::out_of_memory.
template <class Action>
decltype(auto) reporting_allocation_failure(const char* operation, Action&& action)
{
  try {
    return action();
  } catch (const std::bad_alloc& failure) {
    throw out_of_memory(std::string("dpp::") + operation + ": out of memory: " + failure.what());
  }
}

/// A flag that is set (stencil of the compactions).
struct is_set {
  WARPDEX_HOST_DEVICE bool operator()(std::uint8_t flag) const { return flag != 0; }
};

/// The low 32 bits of a (high << 32 | low) pair: a vertex of a sorted arc or neighbourhood key.
struct low_word {
  WARPDEX_HOST_DEVICE std::uint32_t operator()(std::uint64_t word) const { return static_cast<std::uint32_t>(word); }
};

/// The first (v << 32 | low) pair of row v: what lower_bound looks for to find where row v of sorted
/// pairs starts.
struct row_start {
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t v) const { return v << 32; }
};

/// The most memory the backend could ever give a build: the device's memory (free memory would miss
/// what warpdex's pool caches, which the pool returns when an allocation needs it), or the host's
/// physical memory. A build that fits this but not what is free fails in its allocation, with
/// warpdex::out_of_memory from the memory resource.
#if defined(__CUDACC__)
inline std::uint64_t memory_limit_bytes(const cuda&)
{
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  WARPDEX_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  return total_bytes;
}
#else
inline std::uint64_t memory_limit_bytes(const host&)
{
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGESIZE);
  return pages > 0 && page_bytes > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_bytes)
                                     : ~std::uint64_t{0};
}
#endif

}  // namespace warpdex::dpp::detail
