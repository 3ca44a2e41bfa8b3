// `warpdex lsm`: a generated workload on lsm_map (update batches of inserts and erases, each followed by
// lookups, counts, ranges and successor queries), the throughput of each operation, and a check of every
// answer against a std::map replaying the same batches (up to --verify-limit resident keys).
#include "commands.hpp"
#include "progress.hpp"
#include "workloads.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/lsm/lsm_map.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace warpdex::cli {
namespace {

using key_type = std::uint32_t;
using value_type = std::uint32_t;

struct lsm_cli_options {
  std::uint32_t batch_log2 = 16;
  std::uint32_t batches = 64;
  std::uint32_t queries_log2 = 16;
  double erase_fraction = 0.25;
  std::uint64_t range_width = 1 << 12;  // keys spanned by each count / range query
  std::uint64_t verify_limit = std::uint64_t{1} << 22;
  std::uint64_t seed = 1;
};

struct operation_time {
  std::string name;
  double seconds = 0;
  std::uint64_t elements = 0;
};

/// Times `work` (synchronized, so the time is the backend's).
template <class Backend, class Work>
void timed(const Backend& backend, operation_time& total, std::uint64_t elements, Work&& work)
{
  const auto started = std::chrono::steady_clock::now();
  work();
  backend.synchronize();
  total.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  total.elements += elements;
}

/// Checks every answer of one round of queries against the model; returns the number of wrong answers.
std::uint64_t wrong_answers(const std::map<key_type, value_type>& model, const std::vector<key_type>& queries,
                            const std::vector<value_type>& values, const std::vector<std::uint8_t>& found,
                            const std::vector<key_type>& upper, const std::vector<std::uint64_t>& counts,
                            const std::vector<key_type>& successors, const std::vector<std::uint8_t>& has_successor)
{
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto entry = model.find(queries[i]);
    const bool present = entry != model.end();
    wrong += (found[i] != (present ? 1 : 0) || (present && values[i] != entry->second)) ? 1 : 0;
    const auto expected_count =
        static_cast<std::uint64_t>(std::distance(model.lower_bound(queries[i]), model.upper_bound(upper[i])));
    wrong += counts[i] != expected_count ? 1 : 0;
    const auto next = model.upper_bound(queries[i]);
    wrong +=
        (has_successor[i] != (next != model.end() ? 1 : 0) || (next != model.end() && successors[i] != next->first))
            ? 1
            : 0;
  }
  return wrong;
}

template <class Backend>
void run_workload(const Backend& backend, const lsm_cli_options& opts)
{
  const std::uint64_t batch = std::uint64_t{1} << opts.batch_log2;
  const std::uint64_t query_count = std::uint64_t{1} << opts.queries_log2;
  const std::uint64_t total_updates = batch * opts.batches;
  const bool verify = total_updates <= opts.verify_limit;
  lsm_map<key_type, value_type, Backend> map(backend, lsm_options{batch});
  std::map<key_type, value_type> model;

  // Updates draw from a pool of keys half the size of all updates, so later batches overwrite and
  // erase keys of earlier ones.
  const key_set<key_type> pool{std::max<std::uint64_t>(1, total_updates / 2), opts.seed};
  std::vector<operation_time> times = {{"update"}, {"lookup"}, {"count"}, {"range"}, {"successor"}, {"cleanup"}};
  std::uint64_t wrong = 0;
  std::uint64_t range_pairs = 0;
  for (std::uint32_t round = 0; round < opts.batches; ++round) {
    auto keys = make_buffer<key_type>(backend, batch);
    generate_zipf_keys(backend, pool, 0.0, opts.seed + 2 * round + 1, keys.span());
    std::vector<key_type> batch_keys = keys.to_vector();
    std::vector<value_type> batch_values(batch);
    std::vector<lsm_operation> operations(batch);
    for (std::uint64_t i = 0; i < batch; ++i) {
      batch_values[i] = static_cast<value_type>(round * batch + i);
      // A deterministic spread of erases at the requested fraction.
      const double position = static_cast<double>((i * 2654435761u) % batch) / static_cast<double>(batch);
      operations[i] = position < opts.erase_fraction ? lsm_operation::erase : lsm_operation::insert;
    }
    const auto values = to_backend<value_type>(backend, batch_values);
    const auto operation_buffer = to_backend<lsm_operation>(backend, operations);
    timed(backend, times[0], batch, [&] { map.update(keys.span(), values.span(), operation_buffer.span()); });
    if (verify) {
      std::map<key_type, std::pair<bool, value_type>> outcome;
      for (std::uint64_t i = 0; i < batch; ++i) {
        auto& [erased, value] = outcome[batch_keys[i]];
        if (operations[i] == lsm_operation::erase) {
          erased = true;
        } else {
          value = batch_values[i];
        }
      }
      for (const auto& [key, result] : outcome) {
        if (result.first) {
          model.erase(key);
        } else {
          model[key] = result.second;
        }
      }
    }

    auto queries = make_buffer<key_type>(backend, query_count);
    generate_queries(backend, pool, 0.5, opts.seed + 2 * round + 2, queries.span());
    std::vector<key_type> query_keys = queries.to_vector();
    std::vector<key_type> upper_keys(query_count);
    for (std::uint64_t i = 0; i < query_count; ++i) {
      const std::uint64_t upper = static_cast<std::uint64_t>(query_keys[i]) + opts.range_width - 1;
      upper_keys[i] = static_cast<key_type>(std::min<std::uint64_t>(upper, UINT32_MAX));
    }
    const auto upper = to_backend<key_type>(backend, upper_keys);
    auto found = make_buffer<std::uint8_t>(backend, query_count);
    auto found_values = make_buffer<value_type>(backend, query_count);
    auto counts = make_buffer<std::uint64_t>(backend, query_count);
    auto successors = make_buffer<key_type>(backend, query_count);
    auto successor_values = make_buffer<value_type>(backend, query_count);
    auto has_successor = make_buffer<std::uint8_t>(backend, query_count);
    timed(backend, times[1], query_count, [&] { map.lookup(queries.span(), found_values.span(), found.span()); });
    timed(backend, times[2], query_count, [&] { map.count(queries.span(), upper.span(), counts.span()); });
    timed(backend, times[3], query_count, [&] { range_pairs += map.range(queries.span(), upper.span()).keys.size(); });
    timed(backend, times[4], query_count,
          [&] { map.successor(queries.span(), successors.span(), successor_values.span(), has_successor.span()); });
    if (verify) {
      wrong += wrong_answers(model, query_keys, found_values.to_vector(), found.to_vector(), upper_keys,
                             counts.to_vector(), successors.to_vector(), has_successor.to_vector());
    }
  }
  const std::uint64_t resident = map.resident_entries();
  timed(backend, times[5], resident, [&] { map.cleanup(); });
  if (verify) { wrong += map.size() == model.size() ? 0 : 1; }

  std::printf("the checked workload, each operation timed once per round (the timings above are warm):\n");
  std::printf("%-10s %14s %12s\n", "operation", "elements", "M/s");
  for (const operation_time& t : times) {
    if (t.name == "cleanup" && t.elements == map.size()) {
      // Nothing was erased or overwritten: the cleanup had nothing to remove, so no rate is shown.
      std::printf("%-10s %14llu %12s\n", t.name.c_str(), static_cast<unsigned long long>(t.elements),
                  "nothing to clean");
      continue;
    }
    std::printf("%-10s %14llu %12.1f\n", t.name.c_str(), static_cast<unsigned long long>(t.elements),
                t.seconds > 0 ? static_cast<double>(t.elements) / t.seconds / 1e6 : 0.0);
  }
  std::printf("live keys %llu, range pairs returned %llu\n", static_cast<unsigned long long>(map.size()),
              static_cast<unsigned long long>(range_pairs));
  if (!verify) {
    std::printf("not checked: %llu updates exceed --verify-limit\n", static_cast<unsigned long long>(total_updates));
    return;
  }
  WARPDEX_EXPECTS(wrong == 0, "lsm: " + std::to_string(wrong) + " answers differ from the std::map model");
  std::printf("every answer matches a std::map replaying the same batches\n");
}

void print_lsm(const global_options& globals, const lsm_cli_options& opts)
{
  const backend_choice choice = selected_backend(globals);
  std::printf("warpdex lsm: backend %s, %u batches of 2^%u updates (%.0f%% erases), 2^%u queries per batch\n",
              choice == backend_choice::cuda ? "cuda" : "host", opts.batches, opts.batch_log2,
              100 * opts.erase_fraction, opts.queries_log2);
  std::vector<measurement> headline;
  {
    progress shown("batched inserts and lookups, next to the sorted array");
    headline = measure_lsm(choice, lsm_request{opts.batch_log2, opts.batches, opts.seed}, cli_timing);
  }
  for (const measurement& m : headline) {
    std::printf("%s\n", m.operation.c_str());
    print_measurement(m);
  }
  {
    progress shown("the checked workload");
    visit_backend(choice, [&](const auto& backend) { run_workload(backend, opts); });
  }
  for (const measurement& m : headline) {
    WARPDEX_EXPECTS(m.ok(), "lsm: " + m.operation + " failed its check: " + m.check);
  }
}

}  // namespace

void add_lsm_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<lsm_cli_options>();
  CLI::App* lsm = app.add_subcommand("lsm", "Run a generated workload on the GPU LSM and report throughput");
  lsm->add_option("--batch-log2", opts->batch_log2, "Updates per batch (also the LSM's b), as a power of two")
      ->check(CLI::Range(0, 26));
  lsm->add_option("--batches", opts->batches, "Update batches, each followed by a round of queries")
      ->check(CLI::Range(1, 1 << 16));
  lsm->add_option("--queries-log2", opts->queries_log2, "Queries of each kind per round, as a power of two")
      ->check(CLI::Range(0, 26));
  lsm->add_option("--erase-fraction", opts->erase_fraction, "Fraction of each batch that erases")
      ->check(CLI::Range(0.0, 1.0));
  lsm->add_option("--range-width", opts->range_width, "Keys spanned by each count / range query")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
  lsm->add_option("--verify-limit", opts->verify_limit, "Check against std::map up to this many updates");
  lsm->add_option("--seed", opts->seed, "Seed of the generated workload");
  lsm->callback([opts, &globals] { print_lsm(globals, *opts); });
}

}  // namespace warpdex::cli
