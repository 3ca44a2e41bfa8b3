#pragma once
/// @file Warp-level multisplit primitives for use inside kernels (CUB style: construct from the
/// TempStorage, call with the whole warp converged).
///
/// Both classes answer the same two questions about the 32 bucket ids a warp holds (one per lane):
/// - `local_offset`: how many lower lanes hold this lane's bucket (the rank that keeps a multisplit
///   stable within the warp);
/// - `histogram`: per bucket, how many lanes hold it; for MaxBuckets > 32, `counts[s]` on lane l is the
///   count of bucket 32 s + l (ceil(MaxBuckets / 32) segments).
/// `warp_multisplit_ballot` votes bit by bit: ceil(log2 MaxBuckets) ballots, no shared memory.
/// `warp_multisplit_match` uses `__match_any_sync` (one instruction for the same-bucket mask) and
/// builds the histogram in shared memory. Lanes with `active == false` (past the end of the input) hold
/// no bucket and are counted nowhere. Bucket ids of active lanes must be below MaxBuckets.
///
/// ```
/// __global__ void kernel(const unsigned* buckets, unsigned* ranks) {
///   __shared__ warpdex::warp_multisplit_match<64>::TempStorage storage;  // one warp here
///   const unsigned bucket = buckets[threadIdx.x];
///   ranks[threadIdx.x] = warpdex::warp_multisplit_match<64>(storage).local_offset(bucket);
/// }
/// ```

#include <warpdex/core/warp.cuh>

#include <cstdint>
#include <type_traits>

namespace warpdex {

namespace detail {
/// Bits needed to write every id below `bucket_count`: ceil(log2 bucket_count).
constexpr int bucket_id_bits(std::uint32_t bucket_count)
{
  int bits = 0;
  while (bits < 32 && (std::uint64_t{1} << bits) < bucket_count) { ++bits; }
  return bits;
}
}  // namespace detail

/// Ballot-based warp multisplit for up to MaxBuckets buckets.
template <std::uint32_t MaxBuckets>
class warp_multisplit_ballot {
  static_assert(MaxBuckets >= 1, "at least one bucket");

 public:
  static constexpr int segments = static_cast<int>((MaxBuckets + warp::size - 1) / warp::size);
  static constexpr int id_bits = detail::bucket_id_bits(MaxBuckets);

  /// Ballots need no shared memory; the type exists so both variants are used the same way.
  struct TempStorage {};

  __device__ explicit warp_multisplit_ballot(TempStorage& /*storage*/) {}

  /// The lanes whose bucket equals this lane's (this lane included when active).
  __device__ unsigned same_bucket_lanes(std::uint32_t bucket, bool active = true) const
  {
    unsigned peers = warp::ballot(active);
#pragma unroll
    for (int bit = 0; bit < id_bits; ++bit) {
      const bool set = (bucket >> bit) & 1U;
      const unsigned voters = warp::ballot(set && active);
      peers &= set ? voters : ~voters;
    }
    return peers;
  }

  /// How many lower lanes hold this lane's bucket.
  __device__ std::uint32_t local_offset(std::uint32_t bucket, bool active = true) const
  {
    return static_cast<std::uint32_t>(warp::rank_in(same_bucket_lanes(bucket, active)));
  }

  /// counts[s] on lane l: the number of active lanes holding bucket 32 s + l.
  __device__ void histogram(std::uint32_t bucket, std::uint32_t (&counts)[segments], bool active = true) const
  {
    const unsigned active_lanes = warp::ballot(active);
    unsigned votes[id_bits > 0 ? id_bits : 1];
#pragma unroll
    for (int bit = 0; bit < id_bits; ++bit) { votes[bit] = warp::ballot(((bucket >> bit) & 1U) && active); }
#pragma unroll
    for (int segment = 0; segment < segments; ++segment) {
      const std::uint32_t target = segment * warp::size + warp::lane_id();
      unsigned holders = active_lanes;
#pragma unroll
      for (int bit = 0; bit < id_bits; ++bit) { holders &= ((target >> bit) & 1U) ? votes[bit] : ~votes[bit]; }
      counts[segment] = target < MaxBuckets ? static_cast<std::uint32_t>(warp::popc(holders)) : 0;
    }
  }
};

/// `__match_any_sync`-based warp multisplit for up to MaxBuckets buckets.
template <std::uint32_t MaxBuckets>
class warp_multisplit_match {
  static_assert(MaxBuckets >= 1, "at least one bucket");

 public:
  static constexpr int segments = static_cast<int>((MaxBuckets + warp::size - 1) / warp::size);

  /// One count per bucket, written by the lowest lane of each bucket's group.
  struct TempStorage {
    std::uint32_t counts[MaxBuckets];
  };

  __device__ explicit warp_multisplit_match(TempStorage& storage) : storage_(storage) {}

  /// The lanes whose bucket equals this lane's (this lane included when active).
  __device__ unsigned same_bucket_lanes(std::uint32_t bucket, bool active = true) const
  {
    // Inactive lanes all vote the same value, so they form one group, which is masked out.
    constexpr std::uint64_t inactive = std::uint64_t{1} << 32;
    return warp::match_any(active ? std::uint64_t{bucket} : inactive) & warp::ballot(active);
  }

  __device__ std::uint32_t local_offset(std::uint32_t bucket, bool active = true) const
  {
    return static_cast<std::uint32_t>(warp::rank_in(same_bucket_lanes(bucket, active)));
  }

  /// counts[s] on lane l: the number of active lanes holding bucket 32 s + l.
  __device__ void histogram(std::uint32_t bucket, std::uint32_t (&counts)[segments], bool active = true) const
  {
    for (std::uint32_t b = warp::lane_id(); b < MaxBuckets; b += warp::size) { storage_.counts[b] = 0; }
    __syncwarp();
    const unsigned peers = same_bucket_lanes(bucket, active);
    if (active && warp::rank_in(peers) == 0) {
      storage_.counts[bucket] = static_cast<std::uint32_t>(warp::popc(peers));
    }
    __syncwarp();
#pragma unroll
    for (int segment = 0; segment < segments; ++segment) {
      const std::uint32_t target = segment * warp::size + warp::lane_id();
      counts[segment] = target < MaxBuckets ? storage_.counts[target] : 0;
    }
    __syncwarp();
  }

 private:
  TempStorage& storage_;
};

/// The largest bucket count for which `warp_multisplit` takes the ballot variant: every m measured.
/// On an H200 (rows `warp_multisplit/<ballot|match>/m=<m>`, 2^28 ids) the ballot variant ran 1.2x the
/// match variant at m = 2, 4.7x at m = 32 and 2.8x at m = 256 (docs/split.md).
inline constexpr std::uint32_t warp_multisplit_ballot_max_buckets = 256;

/// The warp multisplit variant for up to MaxBuckets buckets: ballot up to
/// warp_multisplit_ballot_max_buckets, match above (same interface as both).
template <std::uint32_t MaxBuckets>
using warp_multisplit = std::conditional_t<(MaxBuckets <= warp_multisplit_ballot_max_buckets),
                                           warp_multisplit_ballot<MaxBuckets>, warp_multisplit_match<MaxBuckets>>;

}  // namespace warpdex
