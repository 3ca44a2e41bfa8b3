// `warpdex demo`: the main job, a tour of the library. Every family runs its main operation on generated
// data sized to the backend, each timed warm next to the baseline a user would otherwise call and
// checked against an oracle (workloads.hpp); one table at the end, optionally written as JSON.
#include "commands.hpp"
#include "input.hpp"
#if WARPDEX_CLI_DPP
#include "dpp_workload.hpp"
#endif
#include "measurement.hpp"
#include "progress.hpp"
#include "workloads.hpp"

#if WARPDEX_CLI_DPP
#include "cliques_workload.hpp"
#include "faces_workload.hpp"
#include "segment_workload.hpp"
#endif
#if WARPDEX_CLI_GRAPH
#include "sssp_workload.hpp"
#endif

#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/host_memory.hpp>
#include <warpdex/core/detail/close_output.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace warpdex::cli {
namespace {

/// Elements per input unless --size-log2 says otherwise: about a second of work per step on each backend.
constexpr std::uint32_t cuda_size_log2 = 26;
constexpr std::uint32_t host_size_log2 = 22;
/// The tour's steps hold at most this many bytes per element at once (the hash step: keys, absent
/// keys, the mixed batch, values, statuses, the table and its baseline): the size is lowered until
/// that fits in half of the free memory.
constexpr std::uint64_t peak_bytes_per_element = 96;
/// Warm-up and timed runs: the benchmark's rule (median of at least 10) on the GPU; fewer on the host,
/// whose baselines run for seconds, so that the tour stays within minutes on two cores.
constexpr timing_options cuda_tour_timing{2, 10};
constexpr timing_options host_tour_timing{1, 5};

struct demo_options {
  std::uint32_t size_log2 = 0;  ///< 0: the backend's default
  std::uint64_t seed = 1;
  std::vector<std::string> families;  ///< empty: all
  std::string json;
  std::string commit = "unknown";  ///< written into the JSON table
};

/// One step of the tour: a family's operation on n generated elements.
struct tour_step {
  std::string family;
  std::string what;
  std::function<std::vector<measurement>(backend_choice, std::uint32_t size_log2, std::uint64_t seed,
                                         const timing_options&)>
      run;
};

/// The size of the steps whose host-side oracle is the slowest part: a quarter of the others' (at least 1).
std::uint32_t quarter(std::uint32_t size_log2)
{
  return size_log2 > 2 ? size_log2 - 2 : 1;
}

std::vector<std::uint32_t> generated_keys(std::uint32_t size_log2, std::uint64_t seed)
{
  std::vector<std::uint32_t> keys(std::uint64_t{1} << size_log2);
  generate_keys(host{}, key_set<std::uint32_t>{keys.size(), seed}, std::span<std::uint32_t>(keys));
  return keys;
}

const std::vector<tour_step>& tour()
{
  static const std::vector<tour_step> steps = {
    {"split", "multisplit of keys into 32 buckets",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       return std::vector<measurement>{
           measure_multisplit(backend, generated_keys(size_log2, seed), split_request{"bits", 32, 0, false}, timing)};
     }},
    {"split", "radix sort of keys",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       return std::vector<measurement>{measure_radix_sort(backend, generated_keys(size_log2, seed), timing)};
     }},
    {"hash", "slab_map build and find",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       hash_request request = generated_hash_request(size_log2, seed);
       request.mixed = false;
       std::string statistics;
       return measure_hash(backend, request, timing, statistics);
     }},
#if WARPDEX_CLI_LSM
    {"lsm", "lsm_map batched inserts and lookups",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       const std::uint32_t batch_log2 = std::min<std::uint32_t>(16, size_log2);
       return measure_lsm(backend, lsm_request{batch_log2, std::uint64_t{1} << (size_log2 - batch_log2), seed}, timing);
     }},
#endif
#if WARPDEX_CLI_DPP
    {"dpp", "duplicate search, half the keys repeated",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       // A quarter of the elements: the host oracle (std::unordered_map) would otherwise dominate the tour.
       return as_measurements(run_dedup_workload(backend, std::uint64_t{1} << quarter(size_log2), 0.5, seed, timing),
                              "", backend);
     }},
    {"dpp", "HashFight table build and find",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       return as_measurements(
           run_hashfight_workload(backend, std::uint64_t{1} << quarter(size_log2), 4, 1.03, seed, nullptr, timing),
           "hashfight ", backend);
     }},
    {"dpp", "external faces of a tetrahedralized grid",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       // About 2^(size - 4) tetrahedra (5 a cube), randomly numbered: the surface check and the host tuple
       // sort that cross-checks it would otherwise dominate the tour. The baseline is the sort of the
       // faces' id triples (the thesis's SortById) in the same run.
       dpp::faces_workload_options options;
       const auto side = static_cast<std::uint32_t>(
           std::max(1.0, std::cbrt(static_cast<double>(std::uint64_t{1} << quarter(quarter(size_log2))) / 5)));
       options.grid = dpp::tet_grid_options{side, side, side, 5, dpp::grid_numbering::randomized, seed};
       options.repetitions = timing.repetitions;
       const dpp::faces_workload_report report = dpp::run_faces_workload(backend, options);
       options.faces.method = dpp::face_method::sort_tuple;
       options.verify = false;
       const dpp::faces_workload_report baseline = dpp::run_faces_workload(backend, options);
       measurement m =
           make_measurement("dpp", "external faces (auto), " + report.mesh, report.backend, report.cells, "Gcells/s");
       m.median_ms = report.faces_seconds * 1e3;
       m.baseline = "sort of the faces' sorted id triples (SortById), same backend";
       m.baseline_ms = baseline.faces_seconds * 1e3;
       m.setup_seconds = report.read_seconds + report.upload_seconds;
       m.checked = true;
       m.passed = report.verified && baseline.external_faces == report.external_faces;
       m.check = report.check;
       return std::vector<measurement>{m};
     }},
    {"dpp", "maximal cliques of a small-world ring",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       // 2^(size - 4) vertices (at least 1024) with 8 neighbours each, a tenth rewired: a sparse graph whose maximal cliques
       // are a large share of all its cliques. On the GPU the baseline is the host backend, same graph.
       dpp::cliques_workload_options options;
       options.graph = "small-world:" + std::to_string(std::uint64_t{1} << std::max<std::uint32_t>(quarter(quarter(size_log2)), 10)) + ":8:0.1";
       options.seed = seed;
       options.repetitions = timing.repetitions;
       const dpp::cliques_workload_report report = dpp::run_cliques_workload(backend, options);
       measurement m = make_measurement("dpp", "maximal cliques, " + report.graph, report.backend,
                                        report.maximal_cliques, "Gcliques/s");
       m.median_ms = report.cliques_seconds * 1e3;
       if (backend != backend_choice::host) {
         // The host's enumeration takes about a second a run on 16 cores: the median of 3 after the warm-up,
         // as the segmentation's baseline below, keeps the step short.
         options.verify = false;
         options.repetitions = std::min(timing.repetitions, 3);
         const dpp::cliques_workload_report on_host = dpp::run_cliques_workload(backend_choice::host, options);
         m.baseline = "the host backend, same graph";
         m.baseline_ms = on_host.cliques_seconds * 1e3;
       }
       m.setup_seconds = report.read_seconds + report.build_seconds;
       m.checked = true;
       m.passed = report.verified;
       m.check = report.check;
       return std::vector<measurement>{m};
     }},
    {"dpp", "MRF segmentation of a synthetic porous slice",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       // A square slice of about 2^(size - 4) pixels (64 to 2048 a side) of the thesis's synthetic porous
       // rock, over SLIC superpixels; scored against its ground truth. On the GPU the baseline is the host
       // backend, same slice.
       const std::uint64_t side =
           std::clamp<std::uint64_t>(std::uint64_t{1} << (quarter(quarter(size_log2)) / 2), 64, 2048);
       dpp::segment_workload_options options;
       options.generate = true;
       options.dims = {side, side, 1};
       options.generator.seed = seed;
       options.repetitions = std::min(timing.repetitions, 3);
       const dpp::segment_workload_report report = dpp::run_segment_workload(backend, options);
       measurement m = make_measurement("dpp", "mrf segmentation (slic + em), " + report.input, report.backend,
                                        report.voxels(), "Gvoxels/s");
       m.median_ms = report.seconds() * 1e3;
       if (backend != backend_choice::host) {
         options.verify = false;
         options.repetitions = 1;
         const dpp::segment_workload_report on_host = dpp::run_segment_workload(backend_choice::host, options);
         m.baseline = "the host backend, same slice";
         m.baseline_ms = on_host.seconds() * 1e3;
       }
       m.setup_seconds = report.read_seconds;
       m.checked = true;
       // A sanity bound on the accuracy: tiny slices are mostly boundary; the test suite holds the 98% one.
       m.passed = report.verified && report.scores.accuracy() >= 0.9;
       char accuracy[64];
       std::snprintf(accuracy, sizeof accuracy, "; accuracy %.2f%% against the truth", 100 * report.scores.accuracy());
       m.check = report.check + accuracy;
       return std::vector<measurement>{m};
     }},
#endif
#if WARPDEX_CLI_GRAPH
    {"graph", "single-source shortest paths on an R-MAT graph",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       // 2^(size - 6) vertices and 16 times as many arcs: a quarter of the other steps' elements, since the
       // sequential Dijkstra that checks the distances and is the baseline runs on one host core.
       graph::sssp_workload_options options;
       options.graph = "rmat:" + std::to_string(std::max<std::uint32_t>(quarter(size_log2), 5) - 4);
       options.weights.seed = seed;
       options.repetitions = timing.repetitions;
       const graph::sssp_workload_report report = graph::run_sssp_workload(backend, options);
       measurement m =
           make_measurement("graph", "sssp delta-stepping, " + report.graph, report.backend, report.arcs, "Garcs/s");
       m.median_ms = report.median_seconds * 1e3;
       m.baseline = "sequential Dijkstra (binary heap), one host core";
       m.baseline_ms = report.dijkstra_seconds * 1e3;
       m.checked = true;
       m.passed = report.verified;
       m.check = report.verified ? "distances equal the sequential Dijkstra's" : "distances differ from Dijkstra's";
       return std::vector<measurement>{m};
     }},
#endif
    {"search", "sorted-array search",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       return measure_search(backend, search_request{size_log2, size_log2, 0.5, false, seed}, {"automatic"}, timing);
     }},
    {"grep", "fixed-string search of text",
     [](backend_choice backend, std::uint32_t size_log2, std::uint64_t seed, const timing_options& timing) {
       return measure_string_match(backend, string_match_request{size_log2 + 2, seed}, timing);
     }},
  };
  return steps;
}

/// The families a tour can visit, for --family's check.
std::vector<std::string> family_names()
{
  std::vector<std::string> names;
  for (const tour_step& step : tour()) {
    if (std::find(names.begin(), names.end(), step.family) == names.end()) { names.push_back(step.family); }
  }
  return names;
}

std::string joined(const std::vector<std::string>& names)
{
  std::string text;
  for (const std::string& name : names) { text += (text.empty() ? "" : ", ") + name; }
  return text;
}

/// The default size of the backend, lowered until the tour's peak fits in half of the free memory.
std::uint32_t tour_size_log2(backend_choice backend, std::uint32_t asked)
{
  std::uint32_t size_log2 = asked != 0 ? asked : backend == backend_choice::cuda ? cuda_size_log2 : host_size_log2;
  std::uint64_t free_bytes = 0;
  if (backend == backend_choice::cuda) {
    free_bytes = query_device(0).free_memory_bytes;
  } else {
    free_bytes = host_memory_bytes();
  }
  const auto fits = [&](std::uint32_t log2) { return (peak_bytes_per_element << log2) <= free_bytes / 2; };
  if (asked != 0) {
    WARPDEX_EXPECTS(fits(size_log2), "demo --size-log2 " + std::to_string(asked) + ": the tour needs about " +
                                         std::to_string((peak_bytes_per_element << size_log2) >> 20) +
                                         " MiB, more than half of the " + std::to_string(free_bytes >> 20) +
                                         " MiB free on the " + (backend == backend_choice::cuda ? "GPU" : "host"));
    return size_log2;
  }
  while (size_log2 > 10 && !fits(size_log2)) { --size_log2; }
  return size_log2;
}

void run_demo(const global_options& globals, const demo_options& opts)
{
  const std::vector<std::string> known = family_names();
  for (const std::string& family : opts.families) {
    if (std::find(known.begin(), known.end(), family) == known.end()) {
      usage_error("demo --family: no family '" + family + "'; the tour has " + joined(known));
    }
  }
  const backend_choice backend = selected_backend(globals);
  const std::uint32_t size_log2 = tour_size_log2(backend, opts.size_log2);
  const timing_options timing = backend == backend_choice::cuda ? cuda_tour_timing : host_tour_timing;
  std::vector<const tour_step*> chosen;
  for (const tour_step& step : tour()) {
    if (opts.families.empty() ||
        std::find(opts.families.begin(), opts.families.end(), step.family) != opts.families.end()) {
      chosen.push_back(&step);
    }
  }
  std::printf(
      "warpdex demo: backend %s, 2^%u elements per step, seed %llu, %zu steps; each rate is the median of %d "
      "runs after %d warm-up, next to its baseline in the same run\n",
      backend == backend_choice::cuda ? "cuda" : "host", size_log2, static_cast<unsigned long long>(opts.seed),
      chosen.size(), timing.repetitions, timing.warmup);
  std::fflush(stdout);

  const auto started = std::chrono::steady_clock::now();
  std::vector<measurement> rows;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const tour_step& step = *chosen[i];
    progress shown("[" + std::to_string(i + 1) + "/" + std::to_string(chosen.size()) + "] " + step.family + ": " +
                   step.what);
    shown.update(static_cast<double>(i) / static_cast<double>(chosen.size()));
    const auto step_started = std::chrono::steady_clock::now();
    try {
      for (measurement& m : step.run(backend, size_log2, opts.seed, timing)) { rows.push_back(std::move(m)); }
    } catch (const error& e) {
      // A step that cannot finish (a failed check inside a workload, exhausted memory) is a FAILED row,
      // and the tour goes on.
      measurement m = make_measurement(step.family, step.what, backend == backend_choice::cuda ? "cuda" : "host",
                                       std::uint64_t{1} << size_log2, "-");
      m.checked = true;
      m.check = e.what();
      rows.push_back(std::move(m));
    }
    std::printf("[%zu/%zu] %s: %s, %.1f s\n", i + 1, chosen.size(), step.family.c_str(), step.what.c_str(),
                seconds_since(step_started));
    std::fflush(stdout);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  print_table(rows);
  const auto failed = std::count_if(rows.begin(), rows.end(), [](const measurement& m) { return !m.ok(); });
  std::printf("\n%zu operations, %lld failed their check, %.1f s in all\n", rows.size(), static_cast<long long>(failed),
              seconds);
  if (!opts.json.empty()) {
    nlohmann::json record;
    record["commit"] = opts.commit;
    record["backend"] = backend == backend_choice::cuda ? "cuda" : "host";
    if (backend == backend_choice::cuda) { record["gpu"] = query_device(0).name; }
    record["size_log2"] = size_log2;
    record["seed"] = opts.seed;
    record["warmup"] = timing.warmup;
    record["repetitions"] = timing.repetitions;
    record["seconds"] = seconds;
    record["rows"] = to_json(rows);
    std::ofstream file(opts.json);
    WARPDEX_EXPECTS(file.good(), "demo --json: cannot write " + opts.json);
    file << record.dump(2) << '\n';
    warpdex::detail::close_output(file, "demo --json: " + opts.json);
    std::printf("table written to %s\n", opts.json.c_str());
  }
  WARPDEX_EXPECTS(failed == 0, "demo: " + std::to_string(failed) + " operation(s) failed their check");
}

}  // namespace

void add_demo_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<demo_options>();
  CLI::App* demo = app.add_subcommand(
      "demo", "Tour every family on generated data: warm rates next to their baselines, every result checked");
  demo->add_option("--size-log2", opts->size_log2,
                   "Elements per step, as a power of two (default: 26 on cuda, 22 on host, lowered to fit memory)")
      ->check(CLI::Range(1, 28));
  demo->add_option("--seed", opts->seed, "Seed of every generated input");
  demo->add_option("--family", opts->families, "Visit only these families (split, hash, lsm, dpp, graph, search, grep)")
      ->delimiter(',');
  demo->add_option("--json", opts->json, "Also write the table to FILE as JSON")->type_name("FILE");
  demo->add_option("--commit", opts->commit, "The source commit, written into the JSON table");
  demo->callback([opts, &globals] { run_demo(globals, *opts); });
}

}  // namespace warpdex::cli
