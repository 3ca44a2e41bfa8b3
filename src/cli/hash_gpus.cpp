// `warpdex hash --gpus N`: the distributed slab map over N GPUs of this process (NCCL), next to one GPU.

#include "progress.hpp"
#include "gpus.hpp"
#include "measurement.hpp"

#include <warpdex/core/backend.hpp>
#include <warpdex/core/error.hpp>

#if WARPDEX_HAS_NCCL
#include <warpdex/distributed/communicator.hpp>
#include "distributed_hash_workload.hpp"
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace warpdex::cli {

using namespace warpdex::workloads;

#if WARPDEX_HAS_NCCL
namespace {
double gkeys_per_second(std::uint64_t keys, double ms)
{
  return ms > 0 ? static_cast<double>(keys) / (ms * 1e6) : 0;
}

void print_operation(const char* what, const distributed::sharded_hash_result& result, double ms, double one_gpu_ms,
                     const distributed::call_phases& phases)
{
  const double total = gkeys_per_second(result.keys, ms);
  std::printf("%-6s %8.3f ms  %7.3f Gkeys/s in total, %7.3f Gkeys/s per GPU", what, ms, total, total / result.gpus);
  if (one_gpu_ms > 0) {
    std::printf("  | one GPU, every key: %8.3f ms  %7.3f Gkeys/s  -> %.2fx one GPU", one_gpu_ms,
                gkeys_per_second(result.keys, one_gpu_ms), one_gpu_ms / ms);
  }
  const double phase_total = phases.total_ms();
  const auto share = [&](double phase_ms) { return phase_total > 0 ? 100.0 * phase_ms / phase_total : 0.0; };
  std::printf(
      "\n       phases (one more call, synchronized between them): split %.3f ms (%.0f%%), exchange %.3f ms "
      "(%.0f%%), tables %.3f ms (%.0f%%), scatter %.3f ms (%.0f%%)\n",
      phases.split_ms, share(phases.split_ms), phases.exchange_ms, share(phases.exchange_ms), phases.local_ms,
      share(phases.local_ms), phases.finish_ms, share(phases.finish_ms));
}
}  // namespace

std::vector<int> communicator_devices(std::uint32_t gpus)
{
  ::setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);  // NVLink multicast off unless the user says otherwise
  return distributed::communicator::visible_devices(static_cast<int>(gpus));
}

void print_gpus(const distributed::communicator& group)
{
  for (std::uint32_t gpu = 0; gpu < group.rank_count(); ++gpu) {
    const device_info device = query_device(group.device(gpu));
    std::printf("  GPU %u: %s, %.1f GiB\n", gpu, device.name.c_str(),
                static_cast<double>(device.global_memory_bytes) / (1ULL << 30));
  }
}

void print_sharded_hash(std::uint32_t gpus, std::uint32_t size_log2, std::uint64_t seed)
{
  distributed::communicator group(communicator_devices(gpus));
  const int version = distributed::communicator::nccl_version();
  std::printf(
      "warpdex hash --gpus %u: distributed_slab_map over %u GPUs, one process (NCCL %d.%d.%d), n = 2^%u unique "
      "32-bit keys in all, seed %llu\n",
      gpus, gpus, version / 10000, version / 100 % 100, version % 100, size_log2,
      static_cast<unsigned long long>(seed));
  print_gpus(group);
  distributed::sharded_hash_options options;
  options.keys = std::uint64_t{1} << size_log2;
  options.seed = seed;
  options.timing = cli_timing;
  distributed::sharded_hash_result result;
  {
    progress shown("build and find on every GPU, then on one GPU, then NCCL's all-to-all alone");
    result = distributed::measure_sharded_hash(group, options);
  }
  std::printf(
      "each GPU passes 1/%u of the keys and of the queries (half of them absent); medians of %d runs after "
      "%d warm-up runs, each call from the first GPU's start to the last GPU's results\n",
      gpus, cli_timing.repetitions, cli_timing.warmup);
  print_operation("build", result, result.build_ms, result.one_gpu_build_ms, result.build_phases);
  print_operation("find", result, result.find_ms, result.one_gpu_find_ms, result.find_phases);
  std::printf(
      "all-to-all (%.1f MiB from each GPU, an equal share to every GPU): NCCL %.3f ms, %.1f GB/s per GPU, data %s",
      static_cast<double>(result.all_to_all_bytes_per_gpu) / (1 << 20), result.all_to_all_ms, result.all_to_all_GBps(),
      result.all_to_all_verified ? "checked" : "WRONG");
  if (result.copies_all_to_all_ms > 0) {
    std::printf("; copies between the GPUs %.3f ms, %.1f GB/s per GPU, data %s", result.copies_all_to_all_ms,
                result.copies_all_to_all_GBps(), result.copies_all_to_all_verified ? "checked" : "WRONG");
  }
  std::printf("\nthe map's calls exchanged %s\n",
              result.map_exchanged_by_copies ? "by copies between the GPUs (peer access)" : "through NCCL");
  std::printf("keys per GPU after the build:");
  for (const std::uint64_t keys : result.keys_per_gpu) { std::printf(" %llu", static_cast<unsigned long long>(keys)); }
  const auto most = *std::max_element(result.keys_per_gpu.begin(), result.keys_per_gpu.end());
  std::printf(" (the fullest %.3fx the mean)\n", static_cast<double>(most) * gpus / static_cast<double>(result.keys));
  std::printf("check: %s: %s (setup %.2f s, check %.2f s)\n", result.check.c_str(), result.passed ? "ok" : "FAILED",
              result.setup_seconds, result.check_seconds);
  WARPDEX_EXPECTS(result.passed, "hash --gpus: the check failed: " + result.check);
  WARPDEX_EXPECTS(result.all_to_all_verified, "hash --gpus: the timed all-to-all delivered wrong data");
  WARPDEX_EXPECTS(result.copies_all_to_all_ms == 0 || result.copies_all_to_all_verified,
                  "hash --gpus: the timed all-to-all by copies delivered wrong data");
}
#else
void print_sharded_hash(std::uint32_t /*gpus*/, std::uint32_t /*size_log2*/, std::uint64_t /*seed*/)
{
  WARPDEX_FAIL(
      "hash --gpus: this build of warpdex has no NCCL (configure with the CUDA toolkit and NCCL: "
      "tools/python-env.sh --nccl, or -DWARPDEX_ENABLE_NCCL=ON)");
}
#endif

}  // namespace warpdex::cli
