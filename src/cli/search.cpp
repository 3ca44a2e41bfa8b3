// `warpdex search`: sorted-array search on generated data, every algorithm checked against the host.
#include "commands.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/search/sorted_search.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace warpdex::cli {
namespace {

using key_type = std::uint32_t;

struct search_options {
  std::uint32_t keys_log2 = 24;
  std::uint32_t queries_log2 = 22;
  double absent_fraction = 0.5;
  bool sorted_queries = false;
  std::uint64_t seed = 1;
};

template <class Backend>
void run_search(const Backend& backend, const search_options& opts)
{
  const std::uint64_t n = std::uint64_t{1} << opts.keys_log2;
  const std::uint64_t q = std::uint64_t{1} << opts.queries_log2;
  const key_set<key_type> set{n, opts.seed, key_order::sorted};
  auto keys = make_buffer<key_type>(backend, n);
  auto queries = make_buffer<key_type>(backend, q);
  generate_keys(backend, set, keys.span());
  generate_queries(backend, set, opts.absent_fraction, opts.seed + 1, queries.span());
  auto host_queries = queries.to_vector();
  if (opts.sorted_queries) {
    std::sort(host_queries.begin(), host_queries.end());
    queries.copy_from(std::span<const key_type>(host_queries));
  }
  const auto host_keys = keys.to_vector();
  std::vector<std::uint64_t> expected(q);
  for (std::uint64_t i = 0; i < q; ++i) {
    expected[i] = std::lower_bound(host_keys.begin(), host_keys.end(), host_queries[i]) - host_keys.begin();
  }
  const sorted_index<key_type, Backend> index(backend, keys.span());
  auto positions = make_buffer<std::uint64_t>(backend, q);
  std::printf("warpdex search: backend %s, 2^%u sorted keys, 2^%u %s queries (%.0f%% absent), automatic = %s\n",
              std::string(Backend::name).c_str(), opts.keys_log2, opts.queries_log2,
              opts.sorted_queries ? "sorted" : "random", 100 * opts.absent_fraction,
              std::string(to_string(index.choose(queries.span()))).c_str());
  std::printf("%-16s %12s  %s\n", "lower_bound", "Gqueries/s", "check");
  bool all_passed = true;
  for (const search_algorithm algorithm :
       {search_algorithm::automatic, search_algorithm::binary, search_algorithm::btree, search_algorithm::kary,
        search_algorithm::sorted_queries}) {
    index.lower_bound(queries.span(), positions.span(), algorithm);  // warm-up
    backend.synchronize();
    const auto started = std::chrono::steady_clock::now();
    index.lower_bound(queries.span(), positions.span(), algorithm);
    backend.synchronize();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const bool passed = positions.to_vector() == expected;
    all_passed = all_passed && passed;
    std::printf("%-16s %12.3f  %s\n", std::string(to_string(algorithm)).c_str(), static_cast<double>(q) / seconds / 1e9,
                passed ? "ok: equals std::lower_bound" : "FAILED");
  }
  WARPDEX_EXPECTS(all_passed, "search: a result differs from std::lower_bound");
}

}  // namespace

void add_search_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<search_options>();
  CLI::App* search = app.add_subcommand("search", "Sorted-array search on generated keys, checked against the host");
  search->add_option("--keys-log2", opts->keys_log2, "Sorted 32-bit keys, as a power of two")->check(CLI::Range(1, 30));
  search->add_option("--queries-log2", opts->queries_log2, "Queries, as a power of two")->check(CLI::Range(0, 30));
  search->add_option("--absent", opts->absent_fraction, "Fraction of queries that are not keys")
      ->check(CLI::Range(0.0, 1.0));
  search->add_flag("--sorted-queries", opts->sorted_queries, "Sort the queries first");
  search->add_option("--seed", opts->seed, "Seed of the generated keys and queries");
  search->callback([opts, &globals] {
    visit_backend(selected_backend(globals), [&](const auto& backend) { run_search(backend, *opts); });
  });
}

}  // namespace warpdex::cli
