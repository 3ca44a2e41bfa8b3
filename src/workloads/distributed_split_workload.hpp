#pragma once
/// @file The multi-GPU multisplit and sort workload that `warpdex split --gpus N` and the benchmark rows
/// `distributed/multisplit/...` and `distributed/sort/...` share (built with NCCL): one process drives every GPU of a
/// communicator; generated distinct 32-bit keys, a slice per GPU, are multisplit (256 buckets by the top byte, the
/// ranges balanced by the keys) and sorted across the GPUs, next to one GPU's multisplit and radix sort of every key
/// in the same run, whose outputs are the oracles (the ranks' parts, concatenated, must equal them).

#include <warpdex/core/timing.hpp>
#include <warpdex/distributed/communicator.hpp>
#include <warpdex/distributed/distributed_split.hpp>
#include <warpdex/split/bucket_identifiers.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpdex::distributed {

struct split_workload_options {
  std::uint64_t keys = std::uint64_t{1} << 24;  ///< over all GPUs (each GPU passes a slice)
  std::uint64_t seed = 1;
  timing_options timing{};
  bit_field_buckets buckets{24, 8};  ///< the multisplit's identifier
  bool multisplit = true;            ///< run the multisplit (and its baseline)
  bool sort = true;                  ///< run the sort (and its baseline)
};

/// One operation's measurements.
struct split_workload_operation {
  double ms = 0;                            ///< median wall time of the distributed call (its parts freed between runs)
  call_phases phases;                       ///< one more call, timed phase by phase
  double one_gpu_ms = 0;                    ///< the single-device call on the first GPU with every key
  std::vector<std::uint64_t> keys_per_gpu;  ///< each GPU's part (the ranges' balance)
  bool passed = false;                      ///< the parts, concatenated, equal the single-device output
  /// The bytes a GPU sends to the others, on average for evenly spread keys, per second of the exchange phase (GB/s).
  double exchange_GBps_per_gpu = 0;
};

struct split_workload_result {
  std::uint32_t gpus = 0;
  std::uint64_t keys = 0;
  split_workload_operation multisplit;
  split_workload_operation sort;
  std::string check;  ///< what the checks found
  double setup_seconds = 0;
  double check_seconds = 0;
  [[nodiscard]] bool passed(const split_workload_options& options) const
  {
    return (!options.multisplit || multisplit.passed) && (!options.sort || sort.passed);
  }
};

/// Runs the workload on every GPU of `group` (a communicator whose ranks are all in this process). Throws
/// warpdex::error when the group has ranks in other processes, or for keys < the GPU count or >= 2^32.
[[nodiscard]] split_workload_result measure_distributed_split(communicator& group,
                                                              const split_workload_options& options);

}  // namespace warpdex::distributed
