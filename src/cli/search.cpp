// `warpdex search`: sorted-array search on generated data, every algorithm timed warm next to the
// baseline's lower_bound and checked against it.
// `warpdex grep`: fixed-string grep with grep's output for -c, -b and -n.
#include "commands.hpp"
#include "progress.hpp"
#include "workloads.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/search/grep.hpp>

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

struct grep_command_options {
  bool count_only = false;
  bool byte_offset = false;
  bool line_number = false;
  std::uint64_t chunk_mib = 64;
  std::string pattern;
  std::vector<std::string> files;
};

/// grep's exit status: 0 when a line matched, 1 when none did, 2 when a file could not be read.
int run_grep(backend_choice choice, const grep_command_options& opts)
{
  grep_options options;
  options.count_only = opts.count_only;
  options.byte_offset = opts.byte_offset;
  options.line_number = opts.line_number;
  options.with_filename = opts.files.size() > 1;
  options.chunk_bytes = opts.chunk_mib << 20;
  bool matched = false;
  bool failed = false;
  for (const std::string& name : opts.files) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> input(std::fopen(name.c_str(), "rb"), std::fclose);
    if (!input) {
      std::fprintf(stderr, "warpdex grep: %s: %s\n", name.c_str(), std::strerror(errno));
      failed = true;
      continue;
    }
    const grep_result result = visit_backend(choice, [&](const auto& backend) {
      return grep_stream(backend, input.get(), name, opts.pattern, options, stdout);
    });
    matched = matched || result.matching_lines > 0;
    if (result.binary && result.matching_lines > 0 && !options.count_only) {
      std::fflush(stdout);
      std::fprintf(stderr, "warpdex grep: %s: binary file matches\n", name.c_str());
    }
  }
  std::fflush(stdout);
  return failed ? 2 : (matched ? 0 : 1);
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

void add_grep_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<grep_command_options>();
  CLI::App* grep = app.add_subcommand("grep", "Fixed-string search in files, with grep -F's output");
  grep->add_flag("-c,--count", opts->count_only, "Print the number of matching lines per file");
  grep->add_flag("-b,--byte-offset", opts->byte_offset, "Prefix each line with the byte offset of its start");
  grep->add_flag("-n,--line-number", opts->line_number, "Prefix each line with its line number");
  grep->add_option("--chunk-mib", opts->chunk_mib, "MiB of input searched per step")->check(CLI::Range(1, 1 << 16));
  grep->add_option("pattern", opts->pattern, "The fixed string to find (no newline)")->required();
  grep->add_option("files", opts->files, "Files to search")->required();
  grep->callback([opts, &globals] {
    const int status = run_grep(selected_backend(globals), *opts);
    std::exit(status);
  });
}

}  // namespace warpdex::cli
