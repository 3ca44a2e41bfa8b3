// `warpdex demo`: the main job. Generates every kind of input warpdex's tests and benchmarks use on the
// selected backend, checks each on the host against its definition, and reports the throughput.
#include "commands.hpp"
#include "progress.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace warpdex::cli {
namespace {

using key_type = std::uint32_t;

struct demo_options {
  std::uint32_t size_log2 = 22;
  std::uint64_t seed = 1;
};

struct step_result {
  std::string what;
  double seconds = 0;
  std::string check;
  bool passed = false;
};

std::uint64_t distinct_count(std::vector<key_type> keys)
{
  std::sort(keys.begin(), keys.end());
  return static_cast<std::uint64_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

/// Runs `generate` on the backend into a fresh buffer of n keys and returns them on the host with the
/// generation time (synchronized, so the time is the backend's).
template <class Backend, class Generate>
std::vector<key_type> timed_generate(const Backend& backend, std::uint64_t n, double& seconds, Generate&& generate)
{
  auto keys = make_buffer<key_type>(backend, n);
  const auto started = std::chrono::steady_clock::now();
  generate(keys.span());
  backend.synchronize();
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return keys.to_vector();
}

template <class Backend>
std::vector<step_result> run_demo(const Backend& backend, const demo_options& opts)
{
  const std::uint64_t n = std::uint64_t{1} << opts.size_log2;
  std::vector<step_result> results;
  const key_set<key_type> unique_set{n, opts.seed};
  const key_set<key_type> sorted_set{n, opts.seed, key_order::sorted};

  {
    progress shown("unique keys");
    step_result step{"unique keys"};
    const auto keys =
        timed_generate(backend, n, step.seconds, [&](auto out) { generate_keys(backend, unique_set, out); });
    const std::uint64_t distinct = distinct_count(keys);
    step.check = std::to_string(distinct) + " distinct of " + std::to_string(n);
    step.passed = distinct == n;
    results.push_back(step);
  }
  {
    progress shown("sorted keys");
    step_result step{"sorted keys"};
    const auto keys =
        timed_generate(backend, n, step.seconds, [&](auto out) { generate_keys(backend, sorted_set, out); });
    step.passed = std::adjacent_find(keys.begin(), keys.end(), std::greater_equal<>()) == keys.end();
    step.check = step.passed ? "strictly increasing" : "NOT strictly increasing";
    results.push_back(step);
  }
  {
    progress shown("keys with 25% duplicates");
    step_result step{"keys, 25% duplicates"};
    const auto keys = timed_generate(backend, n, step.seconds,
                                     [&](auto out) { generate_keys_with_duplicates(backend, out, 0.25, opts.seed); });
    const std::uint64_t distinct = distinct_count(keys);
    const std::uint64_t expected = n - n / 4;
    step.check = std::to_string(distinct) + " distinct, expected " + std::to_string(expected);
    step.passed = distinct == expected;
    results.push_back(step);
  }
  {
    progress shown("Zipf keys");
    step_result step{"Zipf keys, s = 1"};
    const key_set<key_type> pool{n / 16, opts.seed};
    const auto keys = timed_generate(backend, n, step.seconds,
                                     [&](auto out) { generate_zipf_keys(backend, pool, 1.0, opts.seed, out); });
    std::vector<key_type> ranked_keys(3);
    generate_keys(host{}, key_set<key_type>{3, opts.seed}, std::span<key_type>(ranked_keys));
    // Rank r has probability ~ 1/r: the top keys must appear in decreasing counts.
    std::uint64_t counts[3];
    for (int rank = 0; rank < 3; ++rank) {
      counts[rank] = static_cast<std::uint64_t>(std::count(keys.begin(), keys.end(), ranked_keys[rank]));
    }
    step.check = "top ranks " + std::to_string(counts[0]) + " > " + std::to_string(counts[1]) + " > " +
                 std::to_string(counts[2]);
    step.passed = counts[0] > counts[1] && counts[1] > counts[2];
    results.push_back(step);
  }
  {
    progress shown("queries, half absent");
    step_result step{"queries, 50% absent"};
    const auto queries = timed_generate(backend, n, step.seconds,
                                        [&](auto out) { generate_queries(backend, sorted_set, 0.5, opts.seed, out); });
    std::vector<key_type> keys(n);
    generate_keys(host{}, sorted_set, std::span<key_type>(keys));
    const auto absent = static_cast<std::uint64_t>(std::count_if(
        queries.begin(), queries.end(), [&](key_type q) { return !std::binary_search(keys.begin(), keys.end(), q); }));
    step.check = std::to_string(absent) + " absent, expected " + std::to_string(n / 2);
    step.passed = absent == n / 2;
    results.push_back(step);
  }
  return results;
}

void print_demo(const global_options& globals, const demo_options& opts)
{
  const backend_choice choice = selected_backend(globals);
  const std::uint64_t n = std::uint64_t{1} << opts.size_log2;
  std::printf("warpdex demo: backend %s, n = 2^%u 32-bit keys, seed %llu\n",
              choice == backend_choice::cuda ? "cuda" : "host", opts.size_log2,
              static_cast<unsigned long long>(opts.seed));
  const auto results = visit_backend(choice, [&](const auto& backend) { return run_demo(backend, opts); });
  bool all_passed = true;
  std::printf("%-24s %12s  %s\n", "generated", "Mkeys/s", "check");
  for (const step_result& step : results) {
    std::printf("%-24s %12.1f  %s: %s\n", step.what.c_str(), static_cast<double>(n) / step.seconds / 1e6,
                step.passed ? "ok" : "FAILED", step.check.c_str());
    all_passed = all_passed && step.passed;
  }
  WARPDEX_EXPECTS(all_passed, "demo: a generated input failed its check");
}

}  // namespace

void add_demo_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<demo_options>();
  CLI::App* demo = app.add_subcommand("demo", "Run the main job on generated data and check every result");
  demo->add_option("--size-log2", opts->size_log2, "Keys per input, as a power of two")->check(CLI::Range(1, 30));
  demo->add_option("--seed", opts->seed, "Seed of every generated input");
  demo->callback([opts, &globals] { print_demo(globals, *opts); });
}

}  // namespace warpdex::cli
