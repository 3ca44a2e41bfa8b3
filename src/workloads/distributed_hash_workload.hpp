#pragma once
/// @file The multi-GPU hash workload that `warpdex hash --gpus N` and the benchmark rows `distributed/...` share
/// (built with NCCL): one process drives every GPU of a communicator; a distributed_slab_map is built from
/// generated unique keys and queried (half the queries absent), next to one GPU doing the same with a
/// hash::slab_map, and the all-to-all is timed on its own in the same run, through NCCL and by copies between the
/// GPUs.

#include <warpdex/core/timing.hpp>
#include <warpdex/distributed/communicator.hpp>
#include <warpdex/distributed/distributed_slab_map.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpdex::distributed {

struct sharded_hash_options {
  std::uint64_t keys = std::uint64_t{1} << 24;  ///< distinct keys over all GPUs (each GPU passes a slice)
  std::uint64_t seed = 1;
  timing_options timing{};
  bool one_gpu_baseline = true;  ///< also time hash::slab_map on the first GPU with all the keys
};

struct sharded_hash_result {
  std::uint32_t gpus = 0;
  std::uint64_t keys = 0;
  double build_ms = 0;       ///< median wall time of distributed_slab_map::insert of all keys (empty map each run)
  double find_ms = 0;        ///< median wall time of distributed_slab_map::find of as many queries
  call_phases build_phases;  ///< one more build and find, timed phase by phase
  call_phases find_phases;
  double one_gpu_build_ms = 0;  ///< hash::slab_map on the first GPU, all keys (0: not measured)
  double one_gpu_find_ms = 0;
  std::uint64_t all_to_all_bytes_per_gpu = 0;  ///< what each GPU sent in the timed all-to-all (its share of the keys)
  double all_to_all_ms = 0;                    ///< median wall time of that all-to-all
  bool all_to_all_verified = false;            ///< every GPU received exactly its share of every GPU's keys
  /// The same all-to-all by copies between the GPUs (communicator::exchange_by_copies), where the communicator can
  /// (0 and false elsewhere); the map's calls take this way where it is possible.
  double copies_all_to_all_ms = 0;
  bool copies_all_to_all_verified = false;
  bool map_exchanged_by_copies = false;     ///< which way the map's build and find exchanged their buckets
  std::vector<std::uint64_t> keys_per_gpu;  ///< each GPU's table size after the build (the owners' balance)
  bool passed = false;
  std::string check;
  double setup_seconds = 0;
  double check_seconds = 0;

  /// Bytes each GPU sent per second in the all-to-all (NCCL's "algorithm bandwidth"), in GB/s.
  [[nodiscard]] double all_to_all_GBps() const
  {
    return all_to_all_ms > 0 ? static_cast<double>(all_to_all_bytes_per_gpu) / (all_to_all_ms * 1e6) : 0;
  }
  /// The same for the all-to-all by copies.
  [[nodiscard]] double copies_all_to_all_GBps() const
  {
    return copies_all_to_all_ms > 0 ? static_cast<double>(all_to_all_bytes_per_gpu) / (copies_all_to_all_ms * 1e6) : 0;
  }
};

/// Runs the workload on every GPU of `group` (a communicator whose ranks are all in this process). Throws
/// warpdex::error when the group has ranks in other processes, or for keys < the GPU count or > 2^32 - 2^31.
[[nodiscard]] sharded_hash_result measure_sharded_hash(communicator& group, const sharded_hash_options& options);

}  // namespace warpdex::distributed
