// `warpdex hash`: builds a slab_map from generated unique keys, queries present and absent keys, erases a
// share, runs a mixed batch, and prints each step's throughput, its check, and the table's utilization.
#include "commands.hpp"
#include "progress.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/hash/slab_map.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace warpdex::cli {
namespace {

using hash::operation;
using hash::operation_status;

struct hash_options {
  std::uint32_t size_log2 = 22;
  double base_fill = 0.6;
  std::uint64_t seed = 1;
};

struct timed_step {
  std::string what;
  std::uint64_t operations = 0;
  double seconds = 0;
  std::string check;
  bool passed = false;
};

template <class Backend, class Work>
double seconds_of(const Backend& backend, Work&& work)
{
  const auto started = std::chrono::steady_clock::now();
  work();
  backend.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

std::uint64_t count_of(const std::vector<operation_status>& statuses, operation_status wanted)
{
  return static_cast<std::uint64_t>(std::count(statuses.begin(), statuses.end(), wanted));
}

template <class Backend>
std::vector<timed_step> run_hash(const Backend& backend, const hash_options& opts, hash::slab_statistics& stats)
{
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, Backend>;
  const std::uint64_t n = std::uint64_t{1} << opts.size_log2;
  const key_set<std::uint32_t> set{n, opts.seed, key_order::shuffled, hash::max_user_key};
  auto keys = make_buffer<std::uint32_t>(backend, n);
  generate_keys(backend, set, keys.span());
  auto queries = make_buffer<std::uint32_t>(backend, n);
  auto values = make_buffer<std::uint32_t>(backend, n);
  auto statuses = make_buffer<operation_status>(backend, n);
  // Buckets for n keys at base_fill; the pool also holds the mixed batch's insertions (a quarter of n).
  constexpr double peak_keys = 1.25;
  map_type map(backend, map_type::capacity_for(static_cast<std::uint64_t>(peak_keys * n), peak_keys * opts.base_fill),
               opts.seed);
  std::vector<timed_step> steps;

  {
    progress shown("build");
    timed_step step{"build (insert)", n};
    step.seconds = seconds_of(backend, [&] { map.insert(keys.span(), keys.span(), statuses.span()); });
    const std::uint64_t inserted = count_of(statuses.to_vector(), operation_status::inserted);
    step.check = std::to_string(inserted) + " of " + std::to_string(n) + " inserted";
    step.passed = inserted == n;
    steps.push_back(step);
  }
  for (const double absent_fraction : {0.0, 1.0}) {
    progress shown("find");
    timed_step step{absent_fraction == 0.0 ? "find present" : "find absent", n};
    generate_queries(backend, set, absent_fraction, opts.seed + 1, queries.span());
    step.seconds = seconds_of(backend, [&] { map.find(queries.span(), values.span(), statuses.span()); });
    const std::uint64_t found = count_of(statuses.to_vector(), operation_status::found);
    const std::uint64_t expected = absent_fraction == 0.0 ? n : 0;
    step.check = std::to_string(found) + " found, expected " + std::to_string(expected);
    step.passed = found == expected;
    steps.push_back(step);
  }
  stats = map.statistics();
  {
    progress shown("mixed batch");
    // A quarter each: insert absent keys, erase built keys, find built keys, find absent keys.
    const std::vector<std::uint32_t> host_queries = [&] {
      generate_queries(backend, set, 0.5, opts.seed + 2, queries.span());
      return queries.to_vector();
    }();
    const std::vector<std::uint32_t> host_keys = keys.to_vector();
    std::vector<operation> host_ops(n);
    std::vector<std::uint32_t> batch_keys(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      host_ops[i] = i % 4 == 0 ? operation::insert : i % 4 == 1 ? operation::erase : operation::find;
      batch_keys[i] = i % 4 == 1 ? host_keys[i] : host_queries[i];
    }
    auto ops = make_buffer<operation>(backend, n);
    ops.copy_from(std::span<const operation>(host_ops));
    queries.copy_from(std::span<const std::uint32_t>(batch_keys));
    timed_step step{"mixed batch", n};
    step.seconds = seconds_of(
        backend, [&] { map.execute(ops.span(), queries.span(), queries.span(), values.span(), statuses.span()); });
    const auto host_statuses = statuses.to_vector();
    const std::uint64_t size = map.size();
    const std::uint64_t expected =
        n + count_of(host_statuses, operation_status::inserted) - count_of(host_statuses, operation_status::erased);
    step.check = std::to_string(size) + " keys after, expected " + std::to_string(expected);
    step.passed = size == expected && count_of(host_statuses, operation_status::out_of_memory) == 0;
    steps.push_back(step);
  }
  return steps;
}

void print_hash(const global_options& globals, const hash_options& opts)
{
  const backend_choice choice = selected_backend(globals);
  std::printf("warpdex hash: slab_map on backend %s, n = 2^%u unique 32-bit keys, base fill %.2f, seed %llu\n",
              choice == backend_choice::cuda ? "cuda" : "host", opts.size_log2, opts.base_fill,
              static_cast<unsigned long long>(opts.seed));
  hash::slab_statistics stats;
  const auto steps = visit_backend(choice, [&](const auto& backend) { return run_hash(backend, opts, stats); });
  bool all_passed = true;
  std::printf("%-18s %12s  %s\n", "step", "Mops/s", "check");
  for (const timed_step& step : steps) {
    std::printf("%-18s %12.1f  %s: %s\n", step.what.c_str(), static_cast<double>(step.operations) / step.seconds / 1e6,
                step.passed ? "ok" : "FAILED", step.check.c_str());
    all_passed = all_passed && step.passed;
  }
  std::printf(
      "after build: %llu buckets, %.3f slabs per bucket (longest %llu), memory utilization %.3f, "
      "%.2f bytes per live pair, %.1f MB reserved\n",
      static_cast<unsigned long long>(stats.bucket_count), stats.mean_slabs_per_bucket,
      static_cast<unsigned long long>(stats.longest_chain), stats.memory_utilization, stats.bytes_per_live_entry,
      static_cast<double>(stats.reserved_bytes) / 1e6);
  WARPDEX_EXPECTS(all_passed, "hash: a step failed its check");
}

}  // namespace

void add_hash_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<hash_options>();
  CLI::App* command = app.add_subcommand("hash",
                                         "Build, query and update a slab hash map; print throughput and "
                                         "utilization");
  command->add_option("--size-log2", opts->size_log2, "Keys to build from, as a power of two")
      ->check(CLI::Range(1, 30));
  command->add_option("--base-fill", opts->base_fill, "Average fill of the base slabs after the build, in (0, 0.8]")
      ->check(CLI::Range(0.01, 0.8));
  command->add_option("--seed", opts->seed, "Seed of the keys and of the bucket hash");
  command->callback([opts, &globals] { print_hash(globals, *opts); });
}

}  // namespace warpdex::cli
