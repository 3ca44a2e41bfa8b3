#include "benchmarks.hpp"
#include "baselines.hpp"
#include "grep_baseline.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/search/sorted_search.hpp>
#include <warpdex/search/string_match.hpp>

#include <cub/device/device_for.cuh>
#include <thrust/binary_search.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::bench {
namespace {

using key_type = std::uint32_t;
/// Each query is read once and its position written once: the least a search must move.
constexpr double search_bytes_per_query = sizeof(key_type) + sizeof(std::uint64_t);
constexpr std::uint32_t search_keys_log2 = 28;
constexpr std::uint32_t search_queries_log2[] = {26, 16, 10};
constexpr double absent_fraction = 0.5;
constexpr std::uint64_t search_seed = 0x5ea4c4;

void run_search_case(context& ctx, const sorted_index<key_type, cuda>& index, std::span<const key_type> keys,
                     std::span<const key_type> queries, const std::string& order)
{
  const std::uint64_t n = keys.size();
  const std::uint64_t q = queries.size();
  const std::string suffix = "/" + order + "/q=" + std::to_string(q) + "/n=" + std::to_string(n);
  const search_algorithm algorithms[] = {search_algorithm::binary, search_algorithm::btree, search_algorithm::kary,
                                         search_algorithm::sorted_queries, search_algorithm::automatic};
  bool any_selected = false;
  for (const search_algorithm algorithm : algorithms) {
    const std::string name = algorithm == search_algorithm::automatic ? "auto" : std::string(to_string(algorithm));
    any_selected = any_selected || ctx.selected("search/" + name + suffix);
  }
  if (!any_selected) { return; }
  auto expected = make_device_buffer<std::uint64_t>(q);
  auto positions = make_device_buffer<std::uint64_t>(q);
  const auto policy = thrust::cuda::par.on(nullptr);
  const double baseline_ms =
      ctx.median_ms(nullptr, [&] { baselines::lower_bound(cuda{}, keys, queries, expected.span()); });
  const double baseline_value = static_cast<double>(q) / (baseline_ms * 1e6);
  for (const search_algorithm algorithm : algorithms) {
    const std::string name = algorithm == search_algorithm::automatic ? "auto" : std::string(to_string(algorithm));
    if (!ctx.selected("search/" + name + suffix)) { continue; }
    WARPDEX_CUDA_TRY(cudaMemset(positions.data(), 0xff, positions.size_bytes()));
    const double ms = ctx.median_ms(nullptr, [&] { index.lower_bound(queries, positions.span(), algorithm); });
    row r;
    r.name = "search/" + name + suffix;
    r.n = q;
    r.median_ms = ms;
    r.value = static_cast<double>(q) / (ms * 1e6);
    r.unit = "Gqueries/s";
    r.baseline = baselines::lower_bound_name(backend_choice::cuda);
    r.baseline_value = baseline_value;
    r.sol_bytes_per_element = search_bytes_per_query;
    r.verified = thrust::equal(policy, positions.data(), positions.data() + q, expected.data());
    ctx.add(std::move(r));
  }
}

/// Letters and a space, spread evenly: text with the statistics of a 27-letter alphabet.
struct letter_text_element {
  std::uint8_t* text;
  std::uint64_t seed;
  __device__ void operator()(std::uint64_t i) const
  {
    constexpr std::uint64_t alphabet = 27;
    const std::uint64_t r = fmix64(i ^ seed) % alphabet;
    text[i] = r == alphabet - 1 ? ' ' : static_cast<std::uint8_t>('a' + r);
  }
};

constexpr std::uint32_t text_log2 = 30;
constexpr std::uint64_t pattern_lengths[] = {4, 8, 16, 64, 256, 1024};
constexpr int grep_repetitions = 3;
constexpr std::uint64_t several_pattern_counts[] = {16, 256, 10000};
constexpr std::uint64_t several_pattern_m =
    8;  // the shortest; lengths 8 to 15  // of the one-process-per-core grep baseline

}  // namespace

void run_search_benchmarks(context& ctx)
{
  bool any = false;
  for (const char* order : {"random", "sorted"}) {
    for (const std::uint32_t q_log2 : search_queries_log2) {
      for (const char* algorithm : {"binary", "btree", "sorted_queries", "auto"}) {
        any = any || ctx.selected(std::string("search/") + algorithm + "/" + order +
                                  "/q=" + std::to_string(std::uint64_t{1} << q_log2) +
                                  "/n=" + std::to_string(std::uint64_t{1} << search_keys_log2));
      }
    }
  }
  if (!any) { return; }
  const cuda backend{};
  const std::uint64_t n = std::uint64_t{1} << search_keys_log2;
  const key_set<key_type> set{n, search_seed, key_order::sorted};
  auto keys = make_device_buffer<key_type>(n);
  generate_keys(backend, set, keys.span());
  const sorted_index<key_type, cuda> index(backend, keys.span());
  for (const std::uint32_t q_log2 : search_queries_log2) {
    const std::uint64_t q = std::uint64_t{1} << q_log2;
    auto queries = make_device_buffer<key_type>(q);
    generate_queries(backend, set, absent_fraction, search_seed + q_log2, queries.span());
    run_search_case(ctx, index, keys.span(), queries.span(), "random");
    thrust::sort(thrust::cuda::par, queries.data(), queries.data() + q);
    run_search_case(ctx, index, keys.span(), queries.span(), "sorted");
  }
}

/// Several patterns counted in one pass (k pieces of the text of lengths m to 2m - 1), checked against
/// one single-pattern count per pattern; the row's baseline is those k passes.
void run_several_patterns(context& ctx, std::span<const std::uint8_t> device_text,
                          const std::vector<std::uint8_t>& host_text)
{
  const cuda backend{};
  const std::uint64_t n = host_text.size();
  for (const std::uint64_t k : several_pattern_counts) {
    const std::string name = "strmatch/several/k=" + std::to_string(k) + "/m=" + std::to_string(several_pattern_m);
    if (!ctx.selected(name)) { continue; }
    std::vector<std::span<const std::uint8_t>> patterns;
    for (std::uint64_t i = 0; i < k; ++i) {
      const std::uint64_t m = several_pattern_m + fmix64(i + k) % several_pattern_m;
      patterns.push_back(std::span<const std::uint8_t>(host_text).subspan(fmix64(i ^ (k << 32)) % (n - m), m));
    }
    std::vector<std::uint64_t> found;
    const double ms = ctx.median_ms(nullptr, [&] {
      found = count_matches(backend, device_text, std::span<const std::span<const std::uint8_t>>(patterns));
    });
    std::vector<std::uint64_t> one_by_one(k);
    double baseline_ms = 0;
    std::string baseline;
    if (k <= max_patterns_per_pass) {
      baseline_ms = ctx.median_ms(nullptr, [&] {
        for (std::uint64_t i = 0; i < k; ++i) { one_by_one[i] = count_matches(backend, device_text, patterns[i]); }
      });
      baseline = "count_matches once per pattern (automatic)";
    } else {
      // k single passes would take seconds a repetition: the host backend's count over the host copy, once
      const auto started = std::chrono::steady_clock::now();
      one_by_one = count_matches(host{}, std::span<const std::uint8_t>(host_text),
                                 std::span<const std::span<const std::uint8_t>>(patterns));
      baseline_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
      baseline = "the host backend's count_matches of the k patterns (" + host_string_matcher() + "), one run";
    }
    row r;
    r.name = name;
    r.n = n;
    r.median_ms = ms;
    r.value = static_cast<double>(n) / (ms * 1e6);
    r.unit = "GB/s of text";
    r.baseline = baseline;
    r.baseline_value = static_cast<double>(n) / (baseline_ms * 1e6);
    r.sol_bytes_per_element = 1;
    r.verified =
        found == one_by_one && std::all_of(found.begin(), found.end(), [](std::uint64_t count) { return count > 0; });
    ctx.add(std::move(r));
  }
}

void run_strmatch_benchmarks(context& ctx)
{
  bool any = false;
  for (const char* algorithm : {"drk", "wom", "2s"}) {
    for (const std::uint64_t m : pattern_lengths) {
      any = any || ctx.selected(std::string("strmatch/") + algorithm + "/m=" + std::to_string(m));
    }
  }
  for (const std::uint64_t k : several_pattern_counts) {
    any = any || ctx.selected("strmatch/several/k=" + std::to_string(k) + "/m=" + std::to_string(several_pattern_m));
  }
  if (!any) { return; }
  const cuda backend{};
  const std::uint64_t n = std::uint64_t{1} << text_log2;
  auto text = make_device_buffer<std::uint8_t>(n);
  WARPDEX_CUDA_TRY(cub::DeviceFor::Bulk(n, letter_text_element{text.data(), 0x7e47}, nullptr));
  const std::vector<std::uint8_t> host_text = text.to_vector();
  const std::span<const std::uint8_t> device_text(text.data(), n);
  // The baseline: GNU grep on the CPU cores over the same text in a file (in the page cache once written).
  // The text has no newline, so `grep -c` would stop at its first match: occurrences are counted with
  // `grep -o | wc -l`, one process per core over pieces overlapping by m - 1 bytes.
  // WARPDEX_BENCH_STRMATCH_GREP=0 leaves the baseline out (it takes about a minute of the machine).
  const char* grep_setting = std::getenv("WARPDEX_BENCH_STRMATCH_GREP");
  const bool grep_skipped = grep_setting != nullptr && std::string(grep_setting) == "0";
  const bool have_grep = !grep_skipped && grep_available();
  const temp_folder folder;
  const std::filesystem::path text_file = folder.path() / "text";
  if (have_grep) { write_bytes(text_file, host_text); }
  std::vector<std::uint64_t> cuts;
  for (unsigned i = 0; i < cpu_cores(); ++i) { cuts.push_back(n / cpu_cores() * i); }
  cuts.push_back(n);
  for (const std::uint64_t m : pattern_lengths) {
    // a piece of the text, so that it occurs at least once
    const std::uint64_t from = fmix64(m) % (n - m);
    const std::span<const std::uint8_t> pattern(host_text.data() + from, m);
    const std::uint64_t expected = count_matches(host{}, std::span<const std::uint8_t>(host_text), pattern);
    std::optional<grep_measure> grep;
    bool m_selected = false;
    for (const char* name : {"drk", "wom", "2s"}) {
      m_selected = m_selected || ctx.selected(std::string("strmatch/") + name + "/m=" + std::to_string(m));
    }
    if (have_grep && m_selected) {
      const auto pieces = write_pieces(folder.path(), "piece", host_text, cuts, m - 1);
      grep = time_grep(folder.path(), pattern, "-o", "| wc -l", text_file, pieces, grep_repetitions);
      std::printf(
          "strmatch grep baseline m=%llu: 1 process %.3f s (%llu found), %u processes %.3f s (%llu found), "
          "%llu occurrences\n",
          static_cast<unsigned long long>(m), grep->single_seconds, static_cast<unsigned long long>(grep->single_count),
          grep->processes, grep->parallel_seconds, static_cast<unsigned long long>(grep->parallel_count),
          static_cast<unsigned long long>(expected));
    }
    for (const auto& [name, algorithm] : {std::pair<const char*, match_algorithm>{"drk", match_algorithm::drk},
                                          {"wom", match_algorithm::wom},
                                          {"2s", match_algorithm::two_stage}}) {
      const std::string row_name = std::string("strmatch/") + name + "/m=" + std::to_string(m);
      if (!ctx.selected(row_name)) { continue; }
      std::uint64_t found = 0;
      const double ms =
          ctx.median_ms(nullptr, [&] { found = count_matches(backend, device_text, pattern, algorithm); });
      row r;
      r.name = row_name;
      r.n = n;
      r.median_ms = ms;
      r.value = static_cast<double>(n) / (ms * 1e6);
      r.unit = "GB/s of text";
      r.sol_bytes_per_element = 1;  // every text byte read once
      r.verified = found == expected && found > 0;
      if (grep) {
        r.baseline = "grep -F -o | wc -l, " + std::to_string(grep->processes) +
                     " processes over pieces overlapping by m - 1 (1 process: " +
                     std::to_string(static_cast<double>(n) / grep->single_seconds * 1e-9) + " GB/s)";
        r.baseline_value = static_cast<double>(n) / grep->parallel_seconds * 1e-9;
      } else {
        r.baseline = grep_skipped ? "grep not run (WARPDEX_BENCH_STRMATCH_GREP=0)"
                     : have_grep  ? ""
                                  : "grep not found on this machine";
      }
      ctx.add(std::move(r));
    }
  }
  run_several_patterns(ctx, device_text, host_text);
}

}  // namespace warpdex::bench
