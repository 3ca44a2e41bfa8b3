#pragma once
/// @file Histograms on the multisplit's counting pass: how many samples fall in each of m bins.
///
/// Even bins split [lower, upper) into m bins of equal width: bin = floor((x - lower) * m / (upper - lower)).
/// Range bins are given by m + 1 strictly increasing boundaries: bin b = [boundaries[b], boundaries[b + 1]).
/// Samples outside the bins and NaN samples are not counted; their number is reported. Samples are
/// uint32 or float. The boundaries live in the memory of the backend.
///
/// Preconditions (`warpdex::error`): m >= 1; lower < upper, both finite; boundaries strictly
/// increasing and not NaN. Synchronizes the backend's stream. Work O(n + m * blocks).

#include <warpdex/core/backend.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace warpdex {

/// How the cuda backend counts even bins (docs/split.md). Both give the same counts; the host backend
/// has one algorithm and accepts any value.
enum class histogram_algorithm {
  automatic,        ///< warp_privatized up to 256 bins, block_shared above
  block_shared,     ///< one shared counter per bin and block, one sample per 4-byte load
  warp_privatized,  ///< 16-byte loads, counters per warp replicated per lane group (m <= 256; above: block_shared)
};

struct histogram_result {
  std::vector<std::uint64_t> counts;  ///< one per bin
  std::uint64_t not_counted = 0;      ///< NaN samples and samples outside every bin
};

/// Counts the samples in each of `bins` even bins of [lower, upper) on the host backend.
template <class Sample>
histogram_result histogram_even(const host& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                                Sample upper, histogram_algorithm algorithm = histogram_algorithm::automatic);
template <class Sample>
histogram_result histogram_range(const host& backend, std::span<const Sample> samples,
                                 std::span<const Sample> boundaries);

#if WARPDEX_HAS_CUDA
/// Counts the samples (device memory) in each of `bins` even bins of [lower, upper) on the cuda backend.
/// Up to 256 bins (automatic) the samples are read with 16-byte loads, 4 per thread in flight, and
/// counted in per-warp shared counters (each bin replicated min(32, 512 / m) times); every block adds
/// its counts to the global ones once per bin.
template <class Sample>
histogram_result histogram_even(const cuda& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                                Sample upper, histogram_algorithm algorithm = histogram_algorithm::automatic);
template <class Sample>
histogram_result histogram_range(const cuda& backend, std::span<const Sample> samples,
                                 std::span<const Sample> boundaries);
#endif

}  // namespace warpdex
