// `warpdex sssp GRAPH [--source S] [-o DIST] [--algorithm A]`: shortest paths from one source on a graph
// file or a generated graph, with the vertices reached, the largest distance, the time and GTEPS, checked
// against a sequential Dijkstra on the host.
#include "commands.hpp"
#include "progress.hpp"

#include "sssp_workload.hpp"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace warpdex::cli {
namespace {

struct sssp_cli_options {
  graph::sssp_workload_options workload;
  std::uint64_t source = 0;  ///< --source, when given
  std::string algorithm = "auto";
  std::string weights = "uniform";
  std::string weight_type = "int";
  bool no_verify = false;
};

/// A double as messages show it (10 significant digits at most).
std::string number(double value)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

/// Usage errors the parser's checks cannot see: values that fit a double but not the weight type, and
/// limits given the wrong way round.
void check_weight_options(const sssp_cli_options& opts)
{
  const bool floats = opts.weight_type == "float";
  const double largest = floats ? static_cast<double>(std::numeric_limits<float>::max())
                                : static_cast<double>(std::numeric_limits<std::int32_t>::max());
  const std::string range = " is beyond the " + opts.weight_type + " weights' range (at most " + number(largest) + ")";
  const auto& weights = opts.workload.weights;
  if (opts.workload.sssp.delta > largest) { usage_error("sssp --delta: " + number(opts.workload.sssp.delta) + range); }
  if (weights.max_weight > largest) { usage_error("sssp --max-weight: " + number(weights.max_weight) + range); }
  if (weights.min_weight > largest) { usage_error("sssp --min-weight: " + number(weights.min_weight) + range); }
  if (weights.min_weight > weights.max_weight) {
    usage_error("sssp --min-weight " + number(weights.min_weight) + " is above --max-weight " +
                number(weights.max_weight));
  }
}

void run_sssp_command(const global_options& globals, sssp_cli_options opts, bool source_given)
{
  check_weight_options(opts);
  if (source_given) { opts.workload.source = opts.source; }
  opts.workload.sssp.algorithm = graph::parse_sssp_algorithm(opts.algorithm);
  opts.workload.weights.kind = graph::parse_weight_shape(opts.weights);
  opts.workload.float_weights = opts.weight_type == "float";
  opts.workload.verify = !opts.no_verify;
  std::optional<progress> shown;
  shown.emplace("sssp on " + opts.workload.graph + " (read or generate, build, run, check)");
  opts.workload.progress = [&shown](double fraction) {
    if (shown) { shown->update(fraction); }
  };
  // The progress line covers reading and building; the runs report their own times.
  const graph::sssp_workload_report report = graph::run_sssp_workload(selected_backend(globals), opts.workload);
  shown.reset();
  std::printf("warpdex sssp: %s\n", report.summary().c_str());
  if (!opts.workload.output.empty()) { std::printf("distances written to %s\n", opts.workload.output.c_str()); }
}

}  // namespace

void add_sssp_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<sssp_cli_options>();
  CLI::App* sssp = app.add_subcommand(
      "sssp", "Shortest paths from one source on a graph file (.gr, .clq, .mtx, SNAP; gzip too) or a generated graph");
  sssp->add_option("graph", opts->workload.graph,
                   "A graph file, or rmat:SCALE[:DEGREE], grid:WxH, geometric:N[:K], small-world:N[:K[:P]], "
                   "gnp:N:P[:SEED], "
                   "hamming:BITS:D, johnson:LENGTH:WEIGHT:D, keller:DIM, mann:POINTS, cfat:N:C")
      ->required();
  CLI::Option* source = sssp->add_option("--source,-s", opts->source,
                                         "The source vertex (the file's id; default: the first vertex, 1 in a DIMACS "
                                         "file)");
  sssp->add_option("-o,--output", opts->workload.output, "Write 'ID DISTANCE' lines here (inf: unreachable)");
  sssp->add_option("--algorithm", opts->algorithm,
                   "auto, delta-stepping, near-far, bellman-ford or async-delta-stepping; the last names a "
                   "different algorithm on each backend: cuda: the asynchronous kernel (no rounds); host: "
                   "delta-stepping in passes over all cores (OpenMP), the GPU's baseline")
      ->check(CLI::IsMember({"auto", "delta-stepping", "near-far", "bellman-ford", "async-delta-stepping"}));
  sssp->add_option("--delta", opts->workload.sssp.delta,
                   "Bucket width, at most the largest weight (0: chosen from the weights and degrees)")
      ->check(CLI::NonNegativeNumber);
  sssp->add_option("--buckets", opts->workload.sssp.bucket_count, "Buckets of delta-stepping")
      ->check(CLI::Range(2U, 1U << 16));
  sssp->add_option("--host-rounds", opts->workload.sssp.host_rounds,
                   "cuda: rounds launched from the host before the rest run in one kernel (0: all in the kernel)");
  sssp->add_option("--weight-type", opts->weight_type, "int (32-bit, exact distances) or float")
      ->check(CLI::IsMember({"int", "float"}));
  sssp->add_option("--weights", opts->weights, "Generated weights (graphs without): uniform or skewed")
      ->check(CLI::IsMember({"uniform", "skewed"}));
  sssp->add_option("--min-weight", opts->workload.weights.min_weight, "Smallest generated weight")
      ->check(CLI::NonNegativeNumber);
  sssp->add_option("--max-weight", opts->workload.weights.max_weight, "Largest generated weight")
      ->check(CLI::NonNegativeNumber);
  sssp->add_option("--seed", opts->workload.weights.seed, "Seed of generated graphs and weights");
  sssp->add_option("--repetitions", opts->workload.repetitions, "Timed runs (the median is reported)")
      ->check(CLI::Range(1, 1000));
  sssp->add_flag("--no-verify", opts->no_verify, "Skip the check against a sequential Dijkstra on the host");
  sssp->callback([opts, source, &globals] { run_sssp_command(globals, *opts, source->count() > 0); });
}

}  // namespace warpdex::cli
