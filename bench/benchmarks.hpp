#pragma once
// Each family's benchmarks, listed in registry() (harness.cpp).

#include "harness.hpp"

namespace warpdex::bench {

/// cub::DeviceRadixSort of 32-bit keys and of 32-bit key-value pairs: the baselines of the multisplit,
/// radix sort and LSM rows.
void run_cub_radix_sort(context& ctx);

/// The LSM (lsm_map) next to a sorted array kept current by sorting and merging each batch.
void run_lsm(context& ctx);

}  // namespace warpdex::bench
