#pragma once
// Each family's benchmarks, listed in registry() (harness.cpp).

#include "harness.hpp"

namespace warpdex::bench {

/// cub::DeviceRadixSort of 32-bit keys and of 32-bit key-value pairs: the baselines of the multisplit,
/// radix sort and LSM rows.
void run_cub_radix_sort(context& ctx);

/// Sorted-array search (binary, btree, sorted_queries, auto) against thrust::lower_bound.
void run_search_benchmarks(context& ctx);

/// String matching (DRK, DRK-WOM, DRK-2S) over 2^30 bytes of text, counted.
void run_strmatch_benchmarks(context& ctx);

}  // namespace warpdex::bench
