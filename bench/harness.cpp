#include "harness.hpp"

#include "benchmarks.hpp"
#include "dpp_benchmarks.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/timing.hpp>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace warpdex::bench {
namespace {

std::string today()
{
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

/// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"
std::string file_name_part(const std::string& text)
{
  std::string part;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      part += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!part.empty() && part.back() != '-') {
      part += '-';
    }
  }
  while (!part.empty() && part.back() == '-') { part.pop_back(); }
  return part;
}

nlohmann::json row_json(const row& r, double copy_bandwidth_GBps)
{
  nlohmann::json j;
  j["name"] = r.name;
  j["n"] = r.n;
  j["value"] = r.value;
  j["unit"] = r.unit;
  j["median_ms"] = r.median_ms;
  j["baseline"] = r.baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.baseline);
  j["baseline_value"] = r.baseline_value ? nlohmann::json(*r.baseline_value) : nlohmann::json(nullptr);
  j["ratio"] =
      r.baseline_value && *r.baseline_value > 0 ? nlohmann::json(r.value / *r.baseline_value) : nlohmann::json(nullptr);
  if (r.sol_bytes_per_element > 0 && r.median_ms > 0) {
    const double achieved_GBps = r.sol_bytes_per_element * static_cast<double>(r.n) / (r.median_ms * 1e6);
    j["sol_bytes_per_element"] = r.sol_bytes_per_element;
    j["sol_fraction"] = achieved_GBps / copy_bandwidth_GBps;
  } else {
    j["sol_fraction"] = nullptr;
  }
  if (!r.metrics.empty()) {
    nlohmann::json metrics = nlohmann::json::object();
    for (const auto& [name, value] : r.metrics) { metrics[name] = value; }
    j["metrics"] = metrics;
  }
  j["verified"] = r.verified;
  return j;
}

void write_record(const context& ctx, const options& opts)
{
  std::filesystem::path path = opts.output;
  if (path.empty()) {
    const std::string stem = "bench/results/" + today() + "-" + file_name_part(ctx.device().name);
    path = stem + ".json";
    for (int attempt = 2; std::filesystem::exists(path); ++attempt) {
      path = stem + "-" + std::to_string(attempt) + ".json";  // never overwrite an earlier run's record
    }
  }
  if (path.has_parent_path()) { std::filesystem::create_directories(path.parent_path()); }
  nlohmann::json record;
  record["commit"] = opts.commit;
  record["gpu"] = ctx.device().name;
  record["date"] = today();
  record["copy_bandwidth_GBps"] = ctx.copy_bandwidth_GBps();
  record["size_log2"] = opts.size_log2;
  record["repetitions"] = opts.repetitions;
  record["rows"] = nlohmann::json::array();
  for (const row& r : ctx.rows()) { record["rows"].push_back(row_json(r, ctx.copy_bandwidth_GBps())); }
  std::ofstream file(path);
  WARPDEX_EXPECTS(file.good(), "cannot write the benchmark record " + path.string());
  file << record.dump(2) << '\n';
  WARPDEX_EXPECTS(file.good(), "writing the benchmark record " + path.string() + " failed");
  std::cout << "record: " << path.string() << '\n';
}

}  // namespace

void add_options(CLI::App& app, options& opts)
{
  app.add_option("--filter", opts.filter, "Run only the rows whose names match this regular expression");
  app.add_option("--size-log2", opts.size_log2, "Elements of the large-input rows, as a power of two")
      ->check(CLI::Range(10, 31));
  app.add_option("--repetitions", opts.repetitions, "Timed runs per row; the median is reported")
      ->check(CLI::Range(10, 1000));
  app.add_option("--warmup", opts.warmup, "Untimed runs before the timed ones")->check(CLI::Range(1, 100));
  app.add_option("--output", opts.output, "Record file (default: bench/results/<date>-<gpu>.json)");
  app.add_option("--commit", opts.commit, "Commit the binary was built from, written into the record");
  app.add_flag("!--no-record", opts.write_record, "Print the rows but write no record");
}

context::context(const options& opts, device_info device, double copy_bandwidth_GBps)
    : opts_(opts), device_(std::move(device)), copy_bandwidth_GBps_(copy_bandwidth_GBps)
{
  try {
    filter_ = std::regex(opts.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    WARPDEX_FAIL("--filter '" + opts.filter + "' is not a valid regular expression: " + e.what());
  }
}

bool context::selected(const std::string& row_name) const
{
  return std::regex_search(row_name, filter_);
}

void context::add(row result)
{
  std::string line = result.name + "  " + std::to_string(result.value) + " " + result.unit;
  if (result.baseline_value) {
    line += "  (" + std::to_string(result.value / *result.baseline_value) + "x " + result.baseline + ")";
  }
  if (result.sol_bytes_per_element > 0 && result.median_ms > 0) {
    const double achieved_GBps =
        result.sol_bytes_per_element * static_cast<double>(result.n) / (result.median_ms * 1e6);
    line += "  sol " + std::to_string(achieved_GBps / copy_bandwidth_GBps_);
  }
  line += result.verified ? "  verified" : "  NOT VERIFIED";
  std::cout << line << std::endl;
  rows_.push_back(std::move(result));
}

double context::median_ms(stream_t stream, const std::function<void()>& work) const
{
  return warpdex::median_ms(cuda{stream}, timing(), work);
}

double context::median_prepared_ms(const std::function<void()>& prepare, const std::function<void()>& work) const
{
  return warpdex::median_ms(cuda{}, timing(), work, prepare);
}

double measure_copy_bandwidth_GBps(std::size_t bytes, int repetitions)
{
  auto source = make_device_buffer<std::uint8_t>(bytes);
  auto destination = make_device_buffer<std::uint8_t>(bytes);
  constexpr int pattern = 0x5a;
  WARPDEX_CUDA_TRY(cudaMemsetAsync(source.data(), pattern, bytes, nullptr));
  WARPDEX_CUDA_TRY(cudaMemsetAsync(destination.data(), 0, bytes, nullptr));
  const double ms = warpdex::median_ms(cuda{}, timing_options{2, repetitions}, [&] {
    WARPDEX_CUDA_TRY(cudaMemcpyAsync(destination.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, nullptr));
  });
  const std::vector<std::uint8_t> copied = destination.to_vector();
  const bool intact = std::all_of(copied.begin(), copied.end(), [](std::uint8_t b) { return b == pattern; });
  WARPDEX_EXPECTS(intact, "the device-to-device copy that measures bandwidth produced wrong bytes");
  return 2.0 * static_cast<double>(bytes) / (ms * 1e6);
}

const std::vector<benchmark>& registry()
{
  static const std::vector<benchmark> all = {
    {"baseline/cub_radix_sort", run_cub_radix_sort},
    {"multisplit", run_multisplit},
    {"warp_multisplit", run_warp_multisplit},
    {"split/radix_sort_histogram", run_split_sort_histogram},
    {"slab_hash", run_slab_hash},
    {"slab_hash_skew", run_slab_hash_skew},
    {"slab_hash_grow", run_slab_hash_grow},
    {"slab_hash_key64", run_slab_hash_key64},
    {"slab_hash_latency", run_slab_hash_latency},
    {"slab_map_variants", run_slab_hash_variants},
    {"slab_alloc", run_slab_alloc},
    {"lsm", run_lsm},
    {"search", run_search_benchmarks},
    {"strmatch", run_strmatch_benchmarks},
    {"grep", run_grep_benchmarks},
    {"sssp", run_sssp},
    {"dpp/dedup", run_dpp_dedup},
    {"dpp/hashfight", run_dpp_hashfight},
    {"dpp/faces", run_dpp_faces},
    {"dpp/faces_host", run_dpp_faces_host},
#if WARPDEX_BENCH_TBB
    {"dpp/hashfight_host", run_dpp_hashfight_host},
#endif
#if WARPDEX_BENCH_IGRAPH
    {"dpp/cliques", run_dpp_cliques},
#endif
    {"dpp/segment", run_dpp_segment},
#if WARPDEX_BENCH_NCCL
    {"distributed", run_distributed},
#endif
  };
  return all;
}

int run(const options& opts)
{
  std::string reason;
  WARPDEX_EXPECTS(cuda_device_available(&reason), "benchmarks need a CUDA device: " + reason);
  const device_info device = query_device(0);
  constexpr std::size_t copy_bytes = std::size_t{1} << 30;  // 1 GiB: many times any GPU's L2
  const double copy_GBps = measure_copy_bandwidth_GBps(copy_bytes, opts.repetitions);
  std::cout << "gpu: " << device.name << "  commit: " << opts.commit << "  copy bandwidth: " << copy_GBps
            << " GB/s (read + write)\n";

  context ctx(opts, device, copy_GBps);
  row copy_row;
  copy_row.name = "copy/device_to_device";
  copy_row.n = copy_bytes;
  copy_row.value = copy_GBps;
  copy_row.unit = "GB/s";
  copy_row.median_ms = 2.0 * static_cast<double>(copy_bytes) / (copy_GBps * 1e6);
  copy_row.sol_bytes_per_element = 2.0;  // n counts bytes: each is read once and written once
  copy_row.verified = true;              // measure_copy_bandwidth_GBps checks the copied bytes
  ctx.add(std::move(copy_row));

  for (const benchmark& b : registry()) { b.run(ctx); }
  if (opts.write_record) { write_record(ctx, opts); }
  const bool all_verified = std::all_of(ctx.rows().begin(), ctx.rows().end(), [](const row& r) { return r.verified; });
  return all_verified ? 0 : 1;
}

}  // namespace warpdex::bench
