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
///
/// Asynchronous form (`histogram_even_async`, `histogram_range_async`): the counts go to m + 1 words of
/// the backend's memory (counts[m] = the samples not counted) and the cuda backend enqueues one memset
/// and one kernel on the stream without waiting for it and without allocating. The synchronous calls
/// are this form plus one copy of the counts to the host and one synchronization; on the cuda backend
/// the counts go to memory the library keeps per device (device words and pinned host words, grown on
/// demand, safe from several host threads at once): a warm call allocates nothing.

#include <warpdex/core/backend.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace warpdex {

/// How the cuda backend counts (docs/split.md), even and range bins alike. Both give the same counts; the
/// host backend has one algorithm and accepts any value.
enum class histogram_algorithm {
  automatic,        ///< warp_privatized up to 256 bins past 2^20 samples, else block_shared
  block_shared,     ///< one shared counter per bin and block (global counters above 4096 bins)
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
                                 std::span<const Sample> boundaries,
                                 histogram_algorithm algorithm = histogram_algorithm::automatic);

/// The asynchronous forms on the host backend: the same API as the cuda backend's, computed before they
/// return.
template <class Sample>
void histogram_even_async(const host& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                          Sample upper, std::span<std::uint64_t> counts,
                          histogram_algorithm algorithm = histogram_algorithm::automatic);
template <class Sample>
void histogram_range_async(const host& backend, std::span<const Sample> samples, std::span<const Sample> boundaries,
                           std::span<std::uint64_t> counts,
                           histogram_algorithm algorithm = histogram_algorithm::automatic);

#if WARPDEX_HAS_CUDA
/// Counts the samples (device memory) in each of `bins` even bins of [lower, upper) on the cuda backend.
/// Up to 256 bins (automatic, past 2^20 samples) the samples are read with 16-byte loads, 4 per thread in
/// flight, and counted in per-warp shared counters (each bin replicated min(32, 512 / m) times); every
/// block adds its counts to the global ones once per bin.
template <class Sample>
histogram_result histogram_even(const cuda& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                                Sample upper, histogram_algorithm algorithm = histogram_algorithm::automatic);
template <class Sample>
histogram_result histogram_range(const cuda& backend, std::span<const Sample> samples,
                                 std::span<const Sample> boundaries,
                                 histogram_algorithm algorithm = histogram_algorithm::automatic);

/// Counts the samples (device memory) in each of `bins` even bins of [lower, upper), enqueued on the
/// backend's stream without waiting for it: counts (device memory, bins + 1 words) receives the count of
/// each bin and, in counts[bins], the samples not counted (NaN or outside [lower, upper)). Read them
/// after the stream has reached that point. Checks as histogram_even (on the host, before anything is
/// enqueued) and counts.size() == bins + 1. One memset and one kernel (none for n = 0: the memset alone).
template <class Sample>
void histogram_even_async(const cuda& backend, std::span<const Sample> samples, std::uint32_t bins, Sample lower,
                          Sample upper, std::span<std::uint64_t> counts,
                          histogram_algorithm algorithm = histogram_algorithm::automatic);

/// Counts the samples (device memory) in the bins between m + 1 boundaries (device memory), enqueued
/// without waiting: counts (device memory, m + 1 words) as histogram_even_async's. Checks on the host:
/// at least 2 boundaries and counts.size() == m + 1; the boundaries themselves are not read (that would
/// wait for the stream): unsorted or NaN boundaries give unspecified counts but no access out of
/// bounds. The synchronous histogram_range checks them.
template <class Sample>
void histogram_range_async(const cuda& backend, std::span<const Sample> samples, std::span<const Sample> boundaries,
                           std::span<std::uint64_t> counts,
                           histogram_algorithm algorithm = histogram_algorithm::automatic);
#endif

}  // namespace warpdex
