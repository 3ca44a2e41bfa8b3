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

struct histogram_result {
  std::vector<std::uint64_t> counts;  ///< one per bin
  std::uint64_t not_counted = 0;      ///< NaN samples and samples outside every bin
};

template <class Sample>
histogram_result histogram_even(const host& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                                Sample upper);
template <class Sample>
histogram_result histogram_range(const host& backend, std::span<const Sample> samples,
                                 std::span<const Sample> boundaries);

#if WARPDEX_HAS_CUDA
template <class Sample>
histogram_result histogram_even(const cuda& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                                Sample upper);
template <class Sample>
histogram_result histogram_range(const cuda& backend, std::span<const Sample> samples,
                                 std::span<const Sample> boundaries);
#endif

}  // namespace warpdex
