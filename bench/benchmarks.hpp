#pragma once
// Each family's benchmarks, listed in registry() (harness.cpp).

#include "harness.hpp"

namespace warpdex::bench {

/// cub::DeviceRadixSort of 32-bit keys and of 32-bit key-value pairs: the baselines of the multisplit,
/// radix sort and LSM rows.
void run_cub_radix_sort(context& ctx);

/// Stable multisplit of keys and pairs by bit fields, delta buckets and splitters, next to CUB.
void run_multisplit(context& ctx);

/// The warp-level multisplit primitives (ballot and match) per bucket count, each next to the other.
void run_warp_multisplit(context& ctx);

/// The multisplit radix sort and histograms, next to cub::DeviceRadixSort and cub::DeviceHistogram.
void run_split_sort_histogram(context& ctx);

/// slab_map build / find / erase / mixed batch against an open-addressing baseline, and bytes per pair.
void run_slab_hash(context& ctx);

/// slab_map insert / find / mixed batches over Zipf-skewed keys (s = 0.5, 1.0, 1.5), each next to the
/// same batch on unique uniform keys in the same run.
void run_slab_hash_skew(context& ctx);

/// slab_map filled 16 times past the size it was built for (rehash on doubling, or pool growth only)
/// and one rehash, each next to the same work at the final size in the same run.
void run_slab_hash_grow(context& ctx);

/// slab_map of 64-bit keys and values: build and finds at 2^26 next to the 32-bit map in the same run.
void run_slab_hash_key64(context& ctx);

/// slab_map's small batches: insert_async and find_async at n = 2^10, 2^14, 2^18 from the host call to the
/// results on the host, next to the floor of a GPU batch (a device copy and the copy home).
void run_slab_hash_latency(context& ctx);

/// slab_map's batch options (tile size, bucket order, automatic) side by side at two fills.
void run_slab_hash_variants(context& ctx);
/// SlabAlloc, SlabAlloc-light and device-side malloc: 128-byte allocations per second, verified.
void run_slab_alloc(context& ctx);

/// The LSM (lsm_map) next to a sorted array kept current by sorting and merging each batch.
void run_lsm(context& ctx);

/// Sorted-array search (binary, btree, sorted_queries, auto) against thrust::lower_bound.
void run_search_benchmarks(context& ctx);

/// String matching (DRK, DRK-WOM, DRK-2S) over 2^30 bytes of text, counted.
void run_strmatch_benchmarks(context& ctx);

/// `warpdex grep` end to end on a generated 4 GiB text file next to GNU grep on the CPU cores.
void run_grep_benchmarks(context& ctx);

/// SSSP: delta-stepping on multisplit, near-far and Bellman-Ford on R-MAT and a grid, in GTEPS, next to
/// near-far and a sequential Dijkstra; the bucketing's share of the time and its speed.
void run_sssp(context& ctx);
void run_dpp_cliques(context& ctx);

/// MRF segmentation (SLIC + mrf_segment) of the synthetic porous volume on the GPU and the host backend,
/// with precision / recall / accuracy against its ground truth.
void run_dpp_segment(context& ctx);

/// distributed_slab_map over every visible GPU (NCCL, one process): build and find at 2^28 and 2^30 keys in all,
/// next to one GPU's slab_map with every key, and NCCL's all-to-all bandwidth, in the same run; the distributed
/// multisplit and sort at 2^28 keys in all, next to one GPU's multisplit and radix sort of every key.
void run_distributed(context& ctx);

}  // namespace warpdex::bench
