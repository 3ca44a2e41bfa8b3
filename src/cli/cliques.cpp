// `warpdex cliques GRAPH [--min-size K] [-o FILE]`: the maximal cliques of a graph file or a generated
// graph (every arc an undirected edge), with their count, the clique number, the size histogram, the time
// of each stage and the checks of the shared workload (include/warpdex/dpp/cliques_workload.hpp).
#include "commands.hpp"
#include "progress.hpp"

#include "cliques_workload.hpp"

#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace warpdex::cli {
namespace {

struct cliques_cli_options {
  dpp::cliques_workload_options workload;
  std::uint64_t memory_limit_mib = 0;
  bool no_verify = false;
};

void run_cliques_command(const global_options& globals, cliques_cli_options opts)
{
  opts.workload.verify = !opts.no_verify;
  opts.workload.cliques.memory_limit_bytes = opts.memory_limit_mib << 20;
  std::optional<progress> shown;
  shown.emplace("cliques on " + opts.workload.graph + " (read or generate)");
  opts.workload.progress = [&shown](double fraction) {
    if (shown) { shown->update(fraction); }
  };
  const dpp::cliques_workload_report report = dpp::run_cliques_workload(selected_backend(globals), opts.workload);
  shown.reset();
  std::printf("warpdex cliques: %s\n", report.summary().c_str());
  if (!opts.workload.output.empty()) {
    std::printf("%llu cliques written to %s\n", static_cast<unsigned long long>(report.returned_cliques),
                opts.workload.output.c_str());
  }
}

}  // namespace

void add_cliques_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<cliques_cli_options>();
  CLI::App* cliques = app.add_subcommand(
      "cliques", "Maximal cliques of a graph file (.clq, .mtx, SNAP, .gr; gzip too) or a generated graph, undirected");
  cliques->add_option("graph", opts->workload.graph,
                      "A graph file (.clq, .col, .mtx, SNAP, .gr), or rmat:SCALE[:DEGREE], grid:WxH, small-world:N[:K[:P]], "
                      "gnp:N:P[:SEED], hamming:BITS:D, johnson:N:W:D, keller:D, mann:P, cfat:N:C")
      ->required();
  cliques->add_option("--min-size,-k", opts->workload.cliques.min_size, "Return only cliques of at least K vertices")
      ->check(CLI::Range(1U, 1U << 30));
  CLI::Option* output = cliques->add_option("-o,--output", opts->workload.output,
                                            "Write the cliques here, one a line, the file's vertex ids separated by "
                                            "spaces");
  // --count-only keeps no clique's vertices: there would be nothing to write.
  cliques->add_flag("--count-only", opts->workload.cliques.count_only, "Only the count and the size histogram")
      ->excludes(output);
  cliques->add_option("--memory-limit", opts->memory_limit_mib,
                      "Stop with an error past this many MiB (0: the backend's memory)")
      // In bytes it must fit 64 bits: a larger count wrapped to 0, the default limit.
      ->check(CLI::Range(std::uint64_t{0}, std::numeric_limits<std::uint64_t>::max() >> 20));
  cliques->add_option("--seed", opts->workload.seed, "Seed of a generated graph");
  cliques->add_option("--repetitions", opts->workload.repetitions, "Timed runs (the median is reported)")
      ->check(CLI::Range(1, 1000));
  cliques->add_flag("--no-verify", opts->no_verify,
                    "Skip the checks (every clique maximal, none repeated, equal to the host backend's)");
  cliques->callback([opts, &globals] { run_cliques_command(globals, *opts); });
}

}  // namespace warpdex::cli
