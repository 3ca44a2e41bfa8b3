// `warpdex split --gpus N`: the distributed multisplit and sort over N GPUs of this process (NCCL), next to one GPU.

#include "progress.hpp"
#include "gpus.hpp"
#include "measurement.hpp"

#include <warpdex/core/backend.hpp>
#include <warpdex/core/error.hpp>

#if WARPDEX_HAS_NCCL
#include <warpdex/distributed/communicator.hpp>
#include "distributed_split_workload.hpp"
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

namespace warpdex::cli {

using namespace warpdex::workloads;

#if WARPDEX_HAS_NCCL
namespace {
void print_operation(const char* what, const distributed::split_workload_result& result,
                     const distributed::split_workload_operation& operation)
{
  const auto gkeys = [&](double ms) { return ms > 0 ? static_cast<double>(result.keys) / (ms * 1e6) : 0; };
  std::printf(
      "%-10s %8.3f ms  %7.3f Gkeys/s in total, %7.3f Gkeys/s per GPU  | one GPU, every key: %8.3f ms  %7.3f "
      "Gkeys/s  -> %.2fx one GPU\n",
      what, operation.ms, gkeys(operation.ms), gkeys(operation.ms) / result.gpus, operation.one_gpu_ms,
      gkeys(operation.one_gpu_ms), operation.ms > 0 ? operation.one_gpu_ms / operation.ms : 0);
  const distributed::call_phases& phases = operation.phases;
  const double total = phases.total_ms();
  const auto share = [&](double phase_ms) { return total > 0 ? 100.0 * phase_ms / total : 0.0; };
  std::printf(
      "           phases (one more call, synchronized between them): split and counts %.3f ms (%.0f%%), exchange "
      "%.3f ms (%.0f%%, %.1f GB/s per GPU to the others), local %.3f ms (%.0f%%)\n",
      phases.split_ms, share(phases.split_ms), phases.exchange_ms, share(phases.exchange_ms),
      operation.exchange_GBps_per_gpu, phases.local_ms, share(phases.local_ms));
  std::printf("           keys per GPU afterwards:");
  for (const std::uint64_t keys : operation.keys_per_gpu) {
    std::printf(" %llu", static_cast<unsigned long long>(keys));
  }
  const auto most = *std::max_element(operation.keys_per_gpu.begin(), operation.keys_per_gpu.end());
  std::printf(" (the fullest %.3fx the mean)\n",
              static_cast<double>(most) * result.gpus / static_cast<double>(result.keys));
}
}  // namespace

void print_distributed_split(std::uint32_t gpus, std::uint32_t size_log2, std::uint64_t seed, bit_field_buckets buckets)
{
  distributed::communicator group(communicator_devices(gpus));
  const int version = distributed::communicator::nccl_version();
  std::printf(
      "warpdex split --gpus %u: distributed multisplit (bits [%u, %u), %u buckets, ranges balanced) and sort over %u "
      "GPUs, one process (NCCL %d.%d.%d), n = 2^%u distinct 32-bit keys in all, seed %llu\n",
      gpus, buckets.shift, buckets.shift + buckets.bits, buckets.bucket_count(), gpus, version / 10000,
      version / 100 % 100, version % 100, size_log2, static_cast<unsigned long long>(seed));
  print_gpus(group);
  distributed::split_workload_options options;
  options.keys = std::uint64_t{1} << size_log2;
  options.seed = seed;
  options.timing = cli_timing;
  options.buckets = buckets;
  distributed::split_workload_result result;
  {
    progress shown("multisplit and sort on every GPU, each next to one GPU with every key");
    result = distributed::measure_distributed_split(group, options);
  }
  std::printf(
      "each GPU passes 1/%u of the keys; medians of %d runs after %d warm-up runs, each call from the first GPU's "
      "start to the last GPU's part\n",
      gpus, cli_timing.repetitions, cli_timing.warmup);
  print_operation("multisplit", result, result.multisplit);
  print_operation("sort", result, result.sort);
  std::printf("check: the parts, concatenated in GPU order: %s: %s\n", result.check.c_str(),
              result.passed(options) ? "ok" : "FAILED");
  WARPDEX_EXPECTS(result.passed(options), "split --gpus: the check failed: " + result.check);
}
#else
void print_distributed_split(std::uint32_t /*gpus*/, std::uint32_t /*size_log2*/, std::uint64_t /*seed*/,
                             bit_field_buckets /*buckets*/)
{
  WARPDEX_FAIL(
      "split --gpus: this build of warpdex has no NCCL (configure with the CUDA toolkit and NCCL: "
      "tools/python-env.sh --nccl, or -DWARPDEX_ENABLE_NCCL=ON)");
}
#endif

}  // namespace warpdex::cli
