// `warpdex search`: sorted-array search on generated data, every algorithm timed warm next to the
// baseline's lower_bound and checked against it.
#include "commands.hpp"
#include "progress.hpp"
#include "workloads.hpp"

#include <warpdex/core/error.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace warpdex::cli {
namespace {

using key_type = std::uint32_t;

void print_search(const global_options& globals, const search_request& request)
{
  const backend_choice backend = selected_backend(globals);
  std::printf("warpdex search: backend %s, %s sorted keys, %s %s queries (%.0f%% absent)\n",
              backend == backend_choice::cuda ? "cuda" : "host",
              size_text(std::uint64_t{1} << request.keys_log2).c_str(),
              size_text(std::uint64_t{1} << request.queries_log2).c_str(), request.sorted_queries ? "sorted" : "random",
              100 * request.absent_fraction);
  std::vector<measurement> results;
  {
    progress shown("searching with every algorithm and the baseline");
    results = measure_search(backend, request, {"automatic", "binary", "btree", "kary", "sorted_queries"}, cli_timing);
  }
  bool all_passed = true;
  for (const measurement& m : results) {
    std::printf("%s\n", m.operation.c_str());
    print_measurement(m);
    all_passed = all_passed && m.ok();
  }
  WARPDEX_EXPECTS(all_passed, "search: a result differs from the baseline's lower_bound");
}

}  // namespace

void add_search_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<search_request>();
  CLI::App* search = app.add_subcommand("search", "Sorted-array search on generated keys, checked against the host");
  search->add_option("--keys-log2", opts->keys_log2, "Sorted 32-bit keys, as a power of two")->check(CLI::Range(1, 30));
  search->add_option("--queries-log2", opts->queries_log2, "Queries, as a power of two")->check(CLI::Range(0, 30));
  search->add_option("--absent", opts->absent_fraction, "Fraction of queries that are not keys")
      ->check(CLI::Range(0.0, 1.0));
  search->add_flag("--sorted-queries", opts->sorted_queries, "Sort the queries first");
  search->add_option("--seed", opts->seed, "Seed of the generated keys and queries");
  search->callback([opts, &globals] { print_search(globals, *opts); });
}

}  // namespace warpdex::cli
