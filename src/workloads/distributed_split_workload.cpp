// The multi-GPU multisplit and sort workload (distributed_split_workload.hpp).
#include "distributed_split_workload.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/memory_resource.hpp>
#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace warpdex::distributed {
namespace {

using call = std::function<std::vector<rank_part>(call_phases*)>;

/// Times `distributed_call` (its parts freed after each run, each on its GPU), then runs it once more phase by
/// phase and compares its parts, concatenated, with `expected`.
void measure(communicator& group, const timing_options& timing, const call& distributed_call,
             const std::vector<std::uint32_t>& expected, split_workload_operation& operation, std::string& check,
             const char* what)
{
  const std::uint32_t gpus = group.rank_count();
  std::vector<rank_part> parts;
  const auto release = [&] {
    if (parts.empty()) { return; }
    group.for_each_local([&](std::uint32_t gpu) { parts[gpu] = {}; });
    parts.clear();
  };
  operation.ms = median_ms(
      host{}, timing, [&] { parts = distributed_call(nullptr); }, release);
  release();
  parts = distributed_call(&operation.phases);
  std::vector<std::vector<std::uint32_t>> keys(gpus);
  group.for_each_local([&](std::uint32_t gpu) { keys[gpu] = parts[gpu].keys.to_vector(); });
  operation.keys_per_gpu.clear();
  std::uint64_t position = 0;
  bool same = true;
  for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) {
    operation.keys_per_gpu.push_back(keys[gpu].size());
    same = same && parts[gpu].global_offset == position && position + keys[gpu].size() <= expected.size() &&
           std::equal(keys[gpu].begin(), keys[gpu].end(), expected.begin() + static_cast<std::ptrdiff_t>(position));
    position += keys[gpu].size();
  }
  operation.passed = same && position == expected.size();
  release();
  // What a GPU sends to the others on average when the keys are spread evenly: n / gpus keys, 1 - 1 / gpus of them
  // to other GPUs.
  const double sent = static_cast<double>(expected.size()) / gpus * (1.0 - 1.0 / gpus) * sizeof(std::uint32_t);
  operation.exchange_GBps_per_gpu = operation.phases.exchange_ms > 0 ? sent / (operation.phases.exchange_ms * 1e6) : 0;
  check +=
      std::string(check.empty() ? "" : "; ") + what + (operation.passed ? " equals" : " DIFFERS FROM") + " one GPU's";
}

}  // namespace

split_workload_result measure_distributed_split(communicator& group, const split_workload_options& options)
{
  const std::uint32_t gpus = group.rank_count();
  WARPDEX_EXPECTS(group.local_count() == gpus,
                  "measure_distributed_split: the communicator has ranks in other processes; it needs one process "
                  "driving every GPU");
  const std::uint64_t n = options.keys;
  WARPDEX_EXPECTS(n >= gpus && n < (std::uint64_t{1} << 32), "measure_distributed_split: " + std::to_string(n) +
                                                                 " keys for " + std::to_string(gpus) +
                                                                 " GPUs; between one per GPU and 2^32 - 1");
  split_workload_result result;
  result.gpus = gpus;
  result.keys = n;
  const auto setup_started = std::chrono::steady_clock::now();

  // The keys, generated on the first GPU; each GPU's slice copied to it.
  const cuda first = group.backend(0);
  std::vector<std::uint64_t> slice_offsets(gpus + 1, 0);
  for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) { slice_offsets[gpu + 1] = n * (gpu + 1) / gpus; }
  std::vector<buffer<std::uint32_t>> slices(gpus);
  std::optional<buffer<std::uint32_t>> all_keys;
  group.for_each_local([&](std::uint32_t gpu) {
    if (gpu != 0) { return; }
    all_keys = make_buffer<std::uint32_t>(first, n);
    generate_keys(first, key_set<std::uint32_t>{n, options.seed}, all_keys->span());
    first.synchronize();
  });
  group.for_each_local([&](std::uint32_t gpu) {
    const cuda on = group.backend(gpu);
    const std::uint64_t count = slice_offsets[gpu + 1] - slice_offsets[gpu];
    slices[gpu] = make_buffer<std::uint32_t>(on, count);
    copy_between_devices(slices[gpu].data(), group.device(gpu), all_keys->data() + slice_offsets[gpu], group.device(0),
                         count * sizeof(std::uint32_t), on.stream);
    on.synchronize();
  });
  per_rank<const std::uint32_t> spans;
  for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) { spans.push_back(slices[gpu].span()); }
  result.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_started).count();

  // One GPU, every key: the baseline, whose output is the oracle (then its memory goes back).
  const auto one_gpu = [&](const std::function<void(std::span<std::uint32_t>)>& work, double& ms) {
    std::vector<std::uint32_t> expected;
    group.for_each_local([&](std::uint32_t gpu) {
      if (gpu != 0) { return; }
      auto out = make_buffer<std::uint32_t>(first, n);
      ms = median_ms(first, options.timing, [&] { work(out.span()); });
      expected = out.to_vector();
    });
    return expected;
  };
  if (options.multisplit) {
    const auto expected = one_gpu(
        [&](std::span<std::uint32_t> out) { (void)warpdex::multisplit(first, all_keys->span(), out, options.buckets); },
        result.multisplit.one_gpu_ms);
    measure(
        group, options.timing,
        [&](call_phases* phases) { return multisplit(group, spans, options.buckets, bucket_ranges{}, phases); },
        expected, result.multisplit, result.check, "the multisplit");
  }
  if (options.sort) {
    const auto expected = one_gpu([&](std::span<std::uint32_t> out) { radix_sort(first, all_keys->span(), out); },
                                  result.sort.one_gpu_ms);
    measure(
        group, options.timing, [&](call_phases* phases) { return sort(group, spans, sort_options{}, phases); },
        expected, result.sort, result.check, "the sort");
  }
  group.for_each_local([&](std::uint32_t gpu) {  // each GPU's memory freed with it current
    slices[gpu] = {};
    if (gpu == 0) { all_keys.reset(); }
  });
  return result;
}

}  // namespace warpdex::distributed
