#pragma once
// `warpdex hash --gpus N` and `warpdex split --gpus N`: the distributed family driven by this process
// (hash_gpus.cpp, split_gpus.cpp).

#include <warpdex/split/bucket_identifiers.hpp>

#include <cstdint>
#include <vector>

namespace warpdex::distributed {
class communicator;
}  // namespace warpdex::distributed

namespace warpdex::cli {

#if WARPDEX_HAS_NCCL
/// The first `gpus` visible GPUs for a communicator, NVLink multicast (NVLS) off unless the environment says
/// otherwise (hash_gpus.cpp).
[[nodiscard]] std::vector<int> communicator_devices(std::uint32_t gpus);
/// One line per GPU of `group`: its name and memory.
void print_gpus(const distributed::communicator& group);
#endif

/// `warpdex hash --gpus N`: the distributed map over N GPUs driven by this process (distributed::
/// measure_sharded_hash), printed per GPU and in total; throws warpdex::error when a check fails, or when this
/// build has no NCCL (hash_gpus.cpp).
void print_sharded_hash(std::uint32_t gpus, std::uint32_t size_log2, std::uint64_t seed);

/// `warpdex split --gpus N`: the distributed multisplit by `buckets` and the distributed sort over N GPUs driven by
/// this process (distributed::measure_distributed_split), printed per GPU and in total, next to one GPU; throws
/// warpdex::error when a check fails, or when this build has no NCCL (split_gpus.cpp).
void print_distributed_split(std::uint32_t gpus, std::uint32_t size_log2, std::uint64_t seed,
                             bit_field_buckets buckets);

}  // namespace warpdex::cli
