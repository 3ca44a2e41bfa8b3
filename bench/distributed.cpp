// The distributed rows: distributed_slab_map over every GPU of this process (NCCL), build and find next to one
// GPU's hash::slab_map holding every key, and NCCL's all-to-all bandwidth, all measured in the same run
// (distributed::measure_sharded_hash, shared with `warpdex hash --gpus N`); and the distributed multisplit and sort
// next to one GPU's multisplit and radix sort of every key (distributed::measure_distributed_split, shared with
// `warpdex split --gpus N`).

#include "benchmarks.hpp"
#include "throughput_row.hpp"
#include "distributed_hash_workload.hpp"
#include "distributed_split_workload.hpp"

#include <warpdex/core/backend.hpp>
#include <warpdex/distributed/communicator.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace warpdex::bench {
namespace {

// The slab rows' speed of light (slab_bench_support.cuh): 3 streamed words and a 32-byte sector read (find), or
// read and written back (build), per key. Over G GPUs the bandwidth is G copies', so a row's bytes are divided by G.
constexpr double find_sol_bytes = 3 * 4 + 32;
constexpr double build_sol_bytes = 3 * 4 + 2 * 32;
// Device bytes the first GPU needs, with a margin, per key: the baseline's phase holds every key and query, a table
// of every key (about 16 bytes a key at the default fill) and the find's values and statuses, besides its slices;
// the distributed phase holds, per key of its share, the slices, its table and a call's temporaries.
constexpr double baseline_bytes_per_key = 40;
constexpr double share_bytes_per_key = 64;
// The multisplit's and sort's speed of light on one GPU (split_multisplit.cu, split_sort_histogram.cu): 12 bytes per
// key for a multisplit of at most 256 buckets, 36 for a one-sweep radix sort of 32-bit keys.
constexpr double multisplit_sol_bytes = 12;
constexpr double sort_sol_bytes = 36;
// Device bytes the first GPU needs per key of all, with a margin: every key, the baseline's output and its copy
// read back through the host, its slice, and per key of its share the split, the received keys and the part (the
// sort's radix sort one more array).
constexpr double split_bytes_per_key = 16;
constexpr double split_share_bytes_per_key = 24;

/// Whether `needed` bytes fit in the first GPU's free memory; if not, says that `name` is skipped.
bool fits_on_first_gpu(const distributed::communicator& group, double needed, const std::string& name)
{
  const double free_bytes = static_cast<double>(query_device(group.device(0)).free_memory_bytes);
  if (needed <= free_bytes) { return true; }
  std::printf("%s: skipped, needs about %.1f GiB on the first GPU, %.1f GiB free\n", name.c_str(),
              needed / (1ULL << 30), free_bytes / (1ULL << 30));
  return false;
}

std::string size_name(std::uint64_t n)
{
  std::uint32_t log2 = 0;
  while ((std::uint64_t{1} << log2) < n) { ++log2; }
  return (std::uint64_t{1} << log2) == n ? "2^" + std::to_string(log2) : std::to_string(n);
}

/// distributed/<multisplit|sort>/keys32/gpus=G/n=<n>: the distributed multisplit (256 buckets by the top byte,
/// ranges balanced) and sort of n keys in all, next to one GPU's multisplit and radix sort of every key.
void run_distributed_split(context& ctx, distributed::communicator& group, const std::string& multisplit_name,
                           const std::string& sort_name)
{
  const std::uint64_t n = ctx.n();
  const std::uint32_t gpus = group.rank_count();
  const double needed =
      split_bytes_per_key * static_cast<double>(n) + split_share_bytes_per_key * static_cast<double>(n) / gpus;
  if (!fits_on_first_gpu(group, needed, sort_name)) { return; }
  distributed::split_workload_options options;
  options.keys = n;
  options.seed = 1;
  options.timing = ctx.timing();
  options.multisplit = ctx.selected(multisplit_name);
  options.sort = ctx.selected(sort_name);
  const distributed::split_workload_result result = distributed::measure_distributed_split(group, options);
  const auto add_row = [&](const std::string& name, const distributed::split_workload_operation& operation,
                           const char* baseline, double sol_bytes) {
    if (!ctx.selected(name)) { return; }
    row r = throughput_row(name, n, operation.ms, "Gkeys/s", baseline, operation.one_gpu_ms, sol_bytes / gpus,
                           operation.passed);
    const double phase_total = operation.phases.total_ms();
    const double most =
        static_cast<double>(*std::max_element(operation.keys_per_gpu.begin(), operation.keys_per_gpu.end()));
    r.metrics = {{"gpus", static_cast<double>(gpus)},
                 {"per_gpu_Gkeys_per_s", r.value / gpus},
                 {"exchange_share", phase_total > 0 ? operation.phases.exchange_ms / phase_total : 0},
                 {"split_ms", operation.phases.split_ms},
                 {"exchange_ms", operation.phases.exchange_ms},
                 {"local_ms", operation.phases.local_ms},
                 {"exchange_GBps_per_gpu", operation.exchange_GBps_per_gpu},
                 {"fullest_gpu_over_mean", most * gpus / static_cast<double>(n)}};
    ctx.add(std::move(r));
  };
  add_row(multisplit_name, result.multisplit, "warpdex::multisplit on one GPU, every key (same run)",
          multisplit_sol_bytes);
  add_row(sort_name, result.sort, "warpdex::radix_sort on one GPU, every key (same run)", sort_sol_bytes);
  if (!result.passed(options)) { std::printf("%s: check FAILED: %s\n", sort_name.c_str(), result.check.c_str()); }
}

}  // namespace

void run_distributed(context& ctx)
{
  ::setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);  // NVLink multicast off, as the scripts set it
  const std::vector<int> devices = distributed::communicator::visible_devices();
  const auto gpus = static_cast<std::uint32_t>(devices.size());
  const auto name_of = [&](const std::string& what, std::uint64_t n) {
    return "distributed/" + what + "/gpus=" + std::to_string(gpus) + "/n=" + size_name(n);
  };
  // The sizes: 2^28 and 2^30 keys in all (--size-log2 sets the first; the second is 4 times it).
  const std::vector<std::uint64_t> sizes{ctx.n(), 4 * ctx.n()};
  const bool any_selected = std::any_of(sizes.begin(), sizes.end(), [&](std::uint64_t n) {
    return ctx.selected(name_of("slab_map/build", n)) || ctx.selected(name_of("slab_map/find", n)) ||
           ctx.selected(name_of("nccl/all_to_all", n)) || ctx.selected(name_of("copies/all_to_all", n));
  });
  const std::string multisplit_name = name_of("multisplit/keys32", ctx.n());
  const std::string sort_name = name_of("sort/keys32", ctx.n());
  const bool split_selected = ctx.selected(multisplit_name) || ctx.selected(sort_name);
  if (!any_selected && !split_selected) { return; }  // no communicator (NCCL's start-up) for rows nobody asked for
  distributed::communicator group(devices);
  if (split_selected) { run_distributed_split(ctx, group, multisplit_name, sort_name); }
  for (const std::uint64_t n : sizes) {
    const std::string build_name = name_of("slab_map/build", n);
    const std::string find_name = name_of("slab_map/find", n);
    const std::string exchange_name = name_of("nccl/all_to_all", n);
    if (!ctx.selected(build_name) && !ctx.selected(find_name) && !ctx.selected(exchange_name) &&
        !ctx.selected(name_of("copies/all_to_all", n))) {
      continue;
    }
    // The first GPU holds the baseline's every key besides its share: it needs the most.
    const double share = static_cast<double>(n) / gpus;
    const double needed =
        std::max(baseline_bytes_per_key * static_cast<double>(n) + 8 * share, share_bytes_per_key * share);
    if (!fits_on_first_gpu(group, needed, build_name)) { continue; }
    distributed::sharded_hash_options options;
    options.keys = n;
    options.seed = 1;
    options.timing = ctx.timing();
    const distributed::sharded_hash_result result = distributed::measure_sharded_hash(group, options);
    const double most = static_cast<double>(*std::max_element(result.keys_per_gpu.begin(), result.keys_per_gpu.end()));
    const double imbalance = most * gpus / static_cast<double>(n);
    const auto add_map_row = [&](const std::string& name, double ms, double one_gpu_ms, const char* baseline,
                                 double sol_bytes, const distributed::call_phases& phases) {
      if (!ctx.selected(name)) { return; }
      row r = throughput_row(name, n, ms, "Gkeys/s", baseline, one_gpu_ms, sol_bytes / gpus, result.passed);
      const double phase_total = phases.total_ms();
      r.metrics = {{"gpus", static_cast<double>(gpus)},
                   {"per_gpu_Gkeys_per_s", r.value / gpus},
                   {"exchange_share", phase_total > 0 ? phases.exchange_ms / phase_total : 0},
                   {"split_ms", phases.split_ms},
                   {"exchange_ms", phases.exchange_ms},
                   {"tables_ms", phases.local_ms},
                   {"scatter_ms", phases.finish_ms},
                   {"all_to_all_GBps_per_gpu", result.all_to_all_GBps()},
                   {"fullest_gpu_over_mean", imbalance}};
      ctx.add(std::move(r));
    };
    add_map_row(build_name, result.build_ms, result.one_gpu_build_ms,
                "hash::slab_map insert on one GPU, every key (same run)", build_sol_bytes, result.build_phases);
    add_map_row(find_name, result.find_ms, result.one_gpu_find_ms,
                "hash::slab_map find on one GPU, every query (same run)", find_sol_bytes, result.find_phases);
    const auto add_exchange_row = [&](const std::string& name, double ms, double GBps, const char* baseline,
                                      double baseline_GBps, bool verified) {
      if (!ctx.selected(name) || ms <= 0) { return; }
      row r;
      r.name = name;
      r.n = result.all_to_all_bytes_per_gpu;
      r.median_ms = ms;
      r.value = GBps;
      r.unit = "GB/s per GPU";
      r.baseline = baseline;
      r.baseline_value = baseline_GBps;
      r.verified = verified;
      r.metrics = {{"gpus", static_cast<double>(gpus)}};
      ctx.add(std::move(r));
    };
    add_exchange_row(exchange_name, result.all_to_all_ms, result.all_to_all_GBps(),
                     "cudaMemcpyAsync device to device, read + write bytes (same run)", ctx.copy_bandwidth_GBps(),
                     result.all_to_all_verified);
    add_exchange_row(name_of("copies/all_to_all", n), result.copies_all_to_all_ms, result.copies_all_to_all_GBps(),
                     "NCCL's all-to-all of the same buckets (same run)", result.all_to_all_GBps(),
                     result.copies_all_to_all_verified);
    if (!result.passed) { std::printf("%s: check FAILED: %s\n", build_name.c_str(), result.check.c_str()); }
  }
}

}  // namespace warpdex::bench
