// The multi-GPU hash workload (distributed_hash_workload.hpp).
#include "distributed_hash_workload.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/memory_resource.hpp>
#include <warpdex/hash/slab_map.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpdex::distributed {
namespace {

using hash::operation_status;

/// The median wall time in milliseconds of `work` (which returns with its results written), after warm-up
/// runs, with `prepare` untimed before each run.
double median_wall_ms(const timing_options& timing, const std::function<void()>& work,
                      const std::function<void()>& prepare)
{
  std::vector<double> times;
  for (int run = 0; run < timing.warmup + timing.repetitions; ++run) {
    if (prepare) { prepare(); }
    const auto started = std::chrono::steady_clock::now();
    work();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    if (run >= timing.warmup) { times.push_back(ms); }
  }
  std::sort(times.begin(), times.end());
  return times.empty() ? 0 : times[times.size() / 2];
}

}  // namespace

sharded_hash_result measure_sharded_hash(communicator& group, const sharded_hash_options& options)
{
  const std::uint32_t gpus = group.rank_count();
  WARPDEX_EXPECTS(group.local_count() == gpus,
                  "measure_sharded_hash: the communicator has ranks in other processes; it needs one process driving "
                  "every GPU");
  const std::uint64_t n = options.keys;
  WARPDEX_EXPECTS(n >= gpus && n <= (std::uint64_t{1} << 31) + (std::uint64_t{1} << 30),
                  "measure_sharded_hash: " + std::to_string(n) + " keys for " + std::to_string(gpus) +
                      " GPUs; between one per GPU and 3 * 2^30");
  sharded_hash_result result;
  result.gpus = gpus;
  result.keys = n;
  const auto setup_started = std::chrono::steady_clock::now();

  // The keys and queries, generated on the first GPU (the baseline's), then each GPU's slice copied to it.
  const key_set<std::uint32_t> set{n, options.seed, key_order::shuffled, hash::max_user_key};
  const cuda first = group.backend(0);
  std::vector<std::uint64_t> slice_offsets(gpus + 1, 0);
  for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) { slice_offsets[gpu + 1] = n * (gpu + 1) / gpus; }
  std::vector<buffer<std::uint32_t>> keys(gpus), queries(gpus);
  std::optional<buffer<std::uint32_t>> all_keys, all_queries;
  group.for_each_local([&](std::uint32_t gpu) {
    if (gpu != 0) { return; }
    all_keys = make_buffer<std::uint32_t>(first, n);
    all_queries = make_buffer<std::uint32_t>(first, n);
    generate_keys(first, set, all_keys->span());
    generate_queries(first, set, 0.5, options.seed + 1, all_queries->span());
    first.synchronize();
  });
  group.for_each_local([&](std::uint32_t gpu) {
    const cuda on = group.backend(gpu);
    const std::uint64_t count = slice_offsets[gpu + 1] - slice_offsets[gpu];
    keys[gpu] = make_buffer<std::uint32_t>(on, count);
    queries[gpu] = make_buffer<std::uint32_t>(on, count);
    copy_between_devices(keys[gpu].data(), group.device(gpu), all_keys->data() + slice_offsets[gpu], group.device(0),
                         count * sizeof(std::uint32_t), on.stream);
    copy_between_devices(queries[gpu].data(), group.device(gpu), all_queries->data() + slice_offsets[gpu],
                         group.device(0), count * sizeof(std::uint32_t), on.stream);
    on.synchronize();
  });
  result.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_started).count();

  // One GPU, all the keys: the baseline (then its memory goes back before the distributed run).
  if (options.one_gpu_baseline) {
    group.for_each_local([&](std::uint32_t gpu) {
      if (gpu != 0) { return; }
      using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;
      std::unique_ptr<map_type> table;
      const auto fresh = [&] {
        table.reset();
        table = std::make_unique<map_type>(first, map_type::capacity_for(n));
      };
      const auto insert = [&] { table->insert(all_keys->span(), all_keys->span()); };
      result.one_gpu_build_ms = median_ms(first, options.timing, insert, fresh);
      auto values = make_buffer<std::uint32_t>(first, n);
      auto statuses = make_buffer<operation_status>(first, n);
      result.one_gpu_find_ms =
          median_ms(first, options.timing, [&] { table->find(all_queries->span(), values.span(), statuses.span()); });
      table.reset();
    });
  }
  group.for_each_local([&](std::uint32_t gpu) {
    if (gpu == 0) {
      all_keys.reset();
      all_queries.reset();
    }
  });

  // The distributed map: build (an empty map each run), find.
  per_rank<const std::uint32_t> key_spans, query_spans;
  for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) {
    key_spans.push_back(keys[gpu].span());
    query_spans.push_back(queries[gpu].span());
  }
  result.map_exchanged_by_copies = group.exchanges_by_copies();
  using distributed_map = distributed_slab_map<communicator>;
  std::unique_ptr<distributed_map> map;
  const auto fresh_map = [&] {
    map.reset();
    map = std::make_unique<distributed_map>(group, n);
  };
  result.build_ms = median_wall_ms(
      options.timing, [&] { map->insert(key_spans, key_spans); }, fresh_map);
  fresh_map();
  map->measure_phases(true);
  map->insert(key_spans, key_spans);
  result.build_phases = map->last_phases();
  map->measure_phases(false);

  std::vector<buffer<std::uint32_t>> found_values(gpus);
  std::vector<buffer<operation_status>> found_statuses(gpus);
  group.for_each_local([&](std::uint32_t gpu) {
    found_values[gpu] = make_buffer<std::uint32_t>(group.backend(gpu), keys[gpu].size());
    found_statuses[gpu] = make_buffer<operation_status>(group.backend(gpu), keys[gpu].size());
  });
  per_rank<std::uint32_t> value_spans;
  per_rank<operation_status> status_spans;
  for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) {
    value_spans.push_back(found_values[gpu].span());
    status_spans.push_back(found_statuses[gpu].span());
  }
  result.find_ms = median_wall_ms(options.timing, [&] { map->find(query_spans, value_spans, status_spans); }, {});
  map->measure_phases(true);
  map->find(query_spans, value_spans, status_spans);
  result.find_phases = map->last_phases();
  map->measure_phases(false);

  // The checks: the queries' answers (every found value is its key; exactly the generated absent ones are
  // missing), then nothing lost (every key inserted is found, with its value).
  const auto check_started = std::chrono::steady_clock::now();
  std::uint64_t found = 0, wrong_values = 0, lost = 0;
  const auto tally = [&](const std::vector<buffer<std::uint32_t>>& asked, std::uint64_t& found_count) {
    for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) {
      std::vector<std::uint32_t> asked_keys, values;
      std::vector<operation_status> statuses;
      group.for_each_local([&](std::uint32_t local) {
        if (local != gpu) { return; }
        asked_keys = asked[gpu].to_vector();
        values = found_values[gpu].to_vector();
        statuses = found_statuses[gpu].to_vector();
      });
      for (std::size_t i = 0; i < asked_keys.size(); ++i) {
        if (statuses[i] != operation_status::found) { continue; }
        ++found_count;
        wrong_values += values[i] != asked_keys[i];
      }
    }
  };
  tally(queries, found);
  map->find(key_spans, value_spans, status_spans);
  std::uint64_t keys_found = 0;
  tally(keys, keys_found);
  lost = n - keys_found;
  const std::uint64_t expected_found = n - n / 2;
  const std::uint64_t size = map->size();
  result.keys_per_gpu.assign(gpus, 0);
  group.for_each_local([&](std::uint32_t gpu) { result.keys_per_gpu[gpu] = map->local_table(gpu).size(); });
  result.passed = found == expected_found && wrong_values == 0 && lost == 0 && size == n;
  result.check = "size " + std::to_string(size) + " of " + std::to_string(n) + ", " + std::to_string(lost) +
                 " keys lost, " + std::to_string(found) + " queries found (" + std::to_string(expected_found) +
                 " present), " + std::to_string(wrong_values) + " wrong values";
  result.check_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - check_started).count();
  group.for_each_local([&](std::uint32_t gpu) {  // each GPU's memory freed with it current
    found_values[gpu] = {};
    found_statuses[gpu] = {};
  });
  map.reset();

  // NCCL's all-to-all alone: each GPU sends its keys, an equal share to every GPU (itself included).
  std::vector<std::vector<std::uint64_t>> counts(gpus);
  for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) {
    const std::uint64_t count = keys[gpu].size();
    for (std::uint32_t peer = 0; peer < gpus; ++peer) {
      counts[gpu].push_back(count * (peer + 1) / gpus - count * peer / gpus);
    }
  }
  const std::vector<std::uint64_t> gathered = group.all_gather(counts);
  std::vector<exchange_layout> layouts(gpus);
  std::vector<buffer<std::uint32_t>> received(gpus);
  std::vector<all_to_all_buffers> exchange(gpus);
  group.for_each_local([&](std::uint32_t gpu) {
    layouts[gpu] = layout_of_rank(gpu, gpus, gathered, gpus);
    received[gpu] = make_buffer<std::uint32_t>(group.backend(gpu), layouts[gpu].total_received());
  });
  for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) {
    exchange[gpu] = {keys[gpu].data(), received[gpu].data(), &layouts[gpu]};
  }
  result.all_to_all_bytes_per_gpu = keys[0].size() * sizeof(std::uint32_t);
  // Timed through NCCL, then by copies where the communicator can; each way's data checked, the receive buffers
  // poisoned before it.
  const auto exchange_once = [&](bool by_copies, double& ms) {
    group.exchange_by_copies(by_copies);
    group.for_each_local([&](std::uint32_t gpu) {
      received[gpu].copy_from(std::vector<std::uint32_t>(received[gpu].size(), 0xdeadbeefU));
    });
    ms = median_wall_ms(options.timing,
                        [&] {
                          group.all_to_all(exchange, sizeof(std::uint32_t));
                          group.synchronize();
                        },
                        {});
    // What arrived is what was sent: GPU g's part from GPU p is p's keys [p's send offset for g, + count).
    std::vector<std::vector<std::uint32_t>> sent(gpus);
    std::vector<std::vector<std::uint32_t>> arrived(gpus);
    group.for_each_local([&](std::uint32_t gpu) {
      sent[gpu] = keys[gpu].to_vector();
      arrived[gpu] = received[gpu].to_vector();
    });
    bool verified = true;
    for (std::uint32_t gpu = 0; gpu < gpus; ++gpu) {
      for (std::uint32_t peer = 0; peer < gpus; ++peer) {
        const std::uint64_t count = layouts[gpu].receive_counts[peer];
        const auto from = sent[peer].begin() + static_cast<std::ptrdiff_t>(layouts[peer].send_offsets[gpu]);
        const auto at = arrived[gpu].begin() + static_cast<std::ptrdiff_t>(layouts[gpu].receive_offsets[peer]);
        verified = verified && count == layouts[peer].send_counts[gpu] &&
                   std::equal(from, from + static_cast<std::ptrdiff_t>(count), at);
      }
    }
    return verified;
  };
  const bool copies_by_default = group.exchanges_by_copies();
  result.all_to_all_verified = exchange_once(false, result.all_to_all_ms);
  if (group.can_exchange_by_copies()) {
    result.copies_all_to_all_verified = exchange_once(true, result.copies_all_to_all_ms);
  }
  group.exchange_by_copies(copies_by_default);
  group.for_each_local([&](std::uint32_t gpu) {
    received[gpu] = {};
    keys[gpu] = {};
    queries[gpu] = {};
  });
  return result;
}

}  // namespace warpdex::distributed
