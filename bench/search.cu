#include "benchmarks.hpp"

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

#include <cstdint>
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
  const search_algorithm algorithms[] = {search_algorithm::binary, search_algorithm::btree,
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
  const double baseline_ms = ctx.median_ms(nullptr, [&] {
    thrust::lower_bound(policy, keys.data(), keys.data() + n, queries.data(), queries.data() + q, expected.data());
  });
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
    r.baseline = "thrust::lower_bound, same keys and queries";
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

void run_strmatch_benchmarks(context& ctx)
{
  bool any = false;
  for (const char* algorithm : {"drk", "wom", "2s"}) {
    for (const std::uint64_t m : pattern_lengths) {
      any = any || ctx.selected(std::string("strmatch/") + algorithm + "/m=" + std::to_string(m));
    }
  }
  if (!any) { return; }
  const cuda backend{};
  const std::uint64_t n = std::uint64_t{1} << text_log2;
  auto text = make_device_buffer<std::uint8_t>(n);
  WARPDEX_CUDA_TRY(cub::DeviceFor::Bulk(n, letter_text_element{text.data(), 0x7e47}, nullptr));
  const std::vector<std::uint8_t> host_text = text.to_vector();
  const std::span<const std::uint8_t> device_text(text.data(), n);
  for (const std::uint64_t m : pattern_lengths) {
    // a piece of the text, so that it occurs at least once
    const std::uint64_t from = fmix64(m) % (n - m);
    const std::span<const std::uint8_t> pattern(host_text.data() + from, m);
    const std::uint64_t expected = count_matches(host{}, std::span<const std::uint8_t>(host_text), pattern);
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
      ctx.add(std::move(r));
    }
  }
}

}  // namespace warpdex::bench
