// Rows radix_sort/<keys32|pairs32|keys64>[/async] and radix_sort/keys32/digit=<d> (the multisplit radix
// sort next to cub::DeviceRadixSort; /async: radix_sort_async with a kept workspace, next to CUB allocating
// its storage in each call) and histogram/<even|range>/m=<m> (next to
// cub::DeviceHistogram::HistogramEven / HistogramRange; even bins also /block_shared and
// /warp_privatized, each algorithm of the cuda backend; both also /async, the asynchronous call with the
// counts left in device memory), on the same data in the same process. The synchronous rows' baseline is
// CUB's call allocating its temporary storage in each call (the metric cub_preallocated: allocated once;
// cub_allocating_waited / cub_allocating_counts_home: the allocating call, then a wait or the counts home);
// the histograms' /async rows keep CUB with its storage allocated once.
#include "benchmarks.hpp"
#include "verify.cuh"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/split/histogram.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::bench {
namespace {

constexpr std::uint64_t bench_seed = 0x50f7ed;
/// Samples are floats spread over [0, histogram_range) (the paper's histogram setup).
constexpr float histogram_range_end = 1024.0F;

row make_row(const std::string& name, std::uint64_t n, double ms, const char* unit, double sol_bytes)
{
  row r;
  r.name = name;
  r.n = n;
  r.median_ms = ms;
  r.value = static_cast<double>(n) / (ms * 1e6);
  r.unit = unit;
  r.sol_bytes_per_element = sol_bytes;
  return r;
}

struct key_to_sample {
  __device__ float operator()(std::uint32_t key) const
  {
    constexpr float key_space = 4294967296.0F;
    return static_cast<float>(key) / key_space * histogram_range_end;
  }
};

/// CUB's sort timed twice: with temporary storage allocated once (the rows' baseline) and with an
/// allocation of its own in every call, from the library's memory resource (what a caller without a
/// workspace pays: the size query, the allocation and the sort). `sort(temp, bytes)` is CUB's call: it
/// sets bytes when temp is null.
struct cub_times {
  double preallocated_ms = 0;
  double allocating_ms = 0;
  double allocating_waited_ms = 0;  ///< allocating, then a wait for the stream (what a synchronous call adds)
};
template <class Sort>
cub_times time_cub_sort(context& ctx, const Sort& sort)
{
  const cuda backend{};
  std::size_t bytes = 0;
  sort(nullptr, bytes);
  auto temp = make_buffer<std::uint8_t>(backend, bytes);
  cub_times times;
  times.preallocated_ms = ctx.median_ms(nullptr, [&] { sort(temp.data(), bytes); });
  const auto allocating = [&] {
    std::size_t own_bytes = 0;
    sort(nullptr, own_bytes);
    auto own = make_buffer<std::uint8_t>(backend, own_bytes);
    sort(own.data(), own_bytes);
  };
  times.allocating_ms = ctx.median_ms(nullptr, allocating);
  times.allocating_waited_ms = ctx.median_ms(nullptr, [&] {
    allocating();
    backend.synchronize();
  });
  return times;
}

/// A radix sort row next to CUB allocating its own storage in each call (the metrics cub_preallocated:
/// CUB with storage allocated once, and cub_allocating_waited: the allocating call and a wait for the
/// stream, in the row's unit): the synchronous rows and their `/async` twins
/// (the same sort through radix_sort_async with one workspace kept across the runs).
row radix_row_beside_allocating_cub(const std::string& name, std::uint64_t n, double ms, const char* unit,
                                    double sol_bytes, const cub_times& cub, const char* baseline)
{
  row r = make_row(name, n, ms, unit, sol_bytes);
  r.baseline = std::string(baseline) + " (temporary storage allocated in each call)";
  r.baseline_value = static_cast<double>(n) / (cub.allocating_ms * 1e6);
  r.metrics.emplace_back("cub_preallocated", static_cast<double>(n) / (cub.preallocated_ms * 1e6));
  r.metrics.emplace_back("cub_allocating_waited", static_cast<double>(n) / (cub.allocating_waited_ms * 1e6));
  return r;
}

/// radix_sort/<keys32|pairs32>[/async]: the synchronous call and /async, both next to CUB allocating in
/// each call (radix_row_beside_allocating_cub).
void run_radix_sort_rows(context& ctx)
{
  const std::uint64_t n = ctx.n();
  const cuda backend{};
  auto keys_in = make_device_buffer<std::uint32_t>(n);
  auto keys_out = make_device_buffer<std::uint32_t>(n);
  auto values_in = make_device_buffer<std::uint32_t>(n);
  auto values_out = make_device_buffer<std::uint32_t>(n);
  generate_keys(backend, key_set<std::uint32_t>{n, bench_seed}, keys_in.span());
  thrust::sequence(thrust::cuda::par, values_in.data(), values_in.data() + n);
  multisplit_workspace workspace;
  for (const bool pairs : {false, true}) {
    const std::string name = pairs ? "radix_sort/pairs32" : "radix_sort/keys32";
    const std::string async_name = name + "/async";
    if (!ctx.selected(name) && !ctx.selected(async_name)) { continue; }
    const int count = static_cast<int>(n);
    const cub_times cub = time_cub_sort(ctx, [&](void* temp, std::size_t& bytes) {
      if (pairs) {
        WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in.data(), keys_out.data(),
                                                         values_in.data(), values_out.data(), count));
      } else {
        WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in.data(), keys_out.data(), count));
      }
    });
    const char* baseline = pairs ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys";
    // One counting read (4 bytes per key), then four passes reading and writing the key (8 bytes) and
    // the value (8 more): the traffic of a one-sweep radix sort.
    const double sol_bytes = pairs ? 68.0 : 36.0;
    const char* unit = pairs ? "Gpairs/s" : "Gkeys/s";
    const auto verified = [&] {
      return pairs ? is_sorted_pair_permutation(keys_in.data(), keys_out.data(), values_out.data(), n, nullptr)
                   : is_sorted_permutation(keys_in.data(), keys_out.data(), n, nullptr);
    };
    if (ctx.selected(name)) {
      const double ms = ctx.median_ms(nullptr, [&] {
        if (pairs) {
          radix_sort_pairs(backend, std::as_const(keys_in).span(), std::as_const(values_in).span(), keys_out.span(),
                           values_out.span());
        } else {
          radix_sort(backend, std::as_const(keys_in).span(), keys_out.span());
        }
      });
      row r = radix_row_beside_allocating_cub(name, n, ms, unit, sol_bytes, cub, baseline);
      r.verified = verified();
      ctx.add(std::move(r));
    }
    if (ctx.selected(async_name)) {
      const double ms = ctx.median_ms(nullptr, [&] {
        if (pairs) {
          radix_sort_pairs_async(backend, std::as_const(keys_in).span(), std::as_const(values_in).span(),
                                 keys_out.span(), values_out.span(), workspace);
        } else {
          radix_sort_async(backend, std::as_const(keys_in).span(), keys_out.span(), workspace);
        }
      });
      WARPDEX_CUDA_TRY(cudaDeviceSynchronize());
      row r = radix_row_beside_allocating_cub(async_name, n, ms, unit, sol_bytes, cub, baseline);
      r.verified = verified();
      ctx.add(std::move(r));
    }
  }
}

/// radix_sort/keys32/digit=<d>: the 32-bit key sort with d bits per pass (one counting read, then
/// ceil(32 / d) passes of 8 bytes per key), next to cub::DeviceRadixSort::SortKeys, to fill a per-GPU default width.
void run_radix_sort_digit_rows(context& ctx)
{
  const auto digit_row = [](std::uint32_t digit_bits) {
    return "radix_sort/keys32/digit=" + std::to_string(digit_bits);
  };
  const std::array<std::uint32_t, 4> digit_widths = {5U, 6U, 7U, 8U};
  if (std::none_of(digit_widths.begin(), digit_widths.end(),
                   [&](std::uint32_t d) { return ctx.selected(digit_row(d)); })) {
    return;
  }
  const std::uint64_t n = ctx.n();
  const cuda backend{};
  auto keys_in = make_device_buffer<std::uint32_t>(n);
  auto keys_out = make_device_buffer<std::uint32_t>(n);
  generate_keys(backend, key_set<std::uint32_t>{n, bench_seed}, keys_in.span());
  std::size_t bytes = 0;
  const auto cub_sort = [&](void* temp) {
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in.data(), keys_out.data(), n));
  };
  cub_sort(nullptr);
  auto temp = make_device_buffer<std::uint8_t>(bytes);
  for (const std::uint32_t digit_bits : digit_widths) {
    const std::string name = digit_row(digit_bits);
    if (!ctx.selected(name)) { continue; }
    const double ms = ctx.median_ms(nullptr, [&] {
      radix_sort(backend, std::as_const(keys_in).span(), keys_out.span(), sort_order::ascending, digit_bits);
    });
    constexpr double bytes_per_key_and_pass = 2 * sizeof(std::uint32_t);
    const double passes = (32 + digit_bits - 1) / digit_bits;
    row r = make_row(name, n, ms, "Gkeys/s", sizeof(std::uint32_t) + passes * bytes_per_key_and_pass);
    r.verified = is_sorted_permutation(keys_in.data(), keys_out.data(), n, nullptr);
    r.baseline = "cub::DeviceRadixSort::SortKeys";
    r.baseline_value = static_cast<double>(n) / (ctx.median_ms(nullptr, [&] { cub_sort(temp.data()); }) * 1e6);
    ctx.add(std::move(r));
  }
}

/// radix_sort/keys64: one counting read, then eight passes of 16 bytes per key (read, write 8 bytes), next to
/// cub::DeviceRadixSort::SortKeys on the same uint64 keys.
void run_radix_sort_keys64_row(context& ctx)
{
  const std::string name = "radix_sort/keys64";
  const std::string async_name = name + "/async";
  if (!ctx.selected(name) && !ctx.selected(async_name)) { return; }
  const std::uint64_t n = ctx.n();
  const cuda backend{};
  auto keys_in = make_device_buffer<std::uint64_t>(n);
  auto keys_out = make_device_buffer<std::uint64_t>(n);
  generate_keys(backend, key_set<std::uint64_t>{n, bench_seed}, keys_in.span());
  const cub_times cub = time_cub_sort(ctx, [&](void* temp, std::size_t& bytes) {
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in.data(), keys_out.data(), static_cast<int>(n)));
  });
  constexpr double bytes_per_key_and_pass = 2 * sizeof(std::uint64_t);
  constexpr double passes = sizeof(std::uint64_t) * 8 / radix_sort_digit_bits;
  constexpr double sol_bytes = sizeof(std::uint64_t) + passes * bytes_per_key_and_pass;
  constexpr const char* baseline = "cub::DeviceRadixSort::SortKeys (uint64)";
  if (ctx.selected(name)) {
    const double ms =
        ctx.median_ms(nullptr, [&] { radix_sort(backend, std::as_const(keys_in).span(), keys_out.span()); });
    row r = radix_row_beside_allocating_cub(name, n, ms, "Gkeys/s", sol_bytes, cub, baseline);
    r.verified = is_sorted_permutation(keys_in.data(), keys_out.data(), n, nullptr);
    ctx.add(std::move(r));
  }
  if (ctx.selected(async_name)) {
    multisplit_workspace workspace;
    const double ms = ctx.median_ms(
        nullptr, [&] { radix_sort_async(backend, std::as_const(keys_in).span(), keys_out.span(), workspace); });
    WARPDEX_CUDA_TRY(cudaDeviceSynchronize());
    row r = radix_row_beside_allocating_cub(async_name, n, ms, "Gkeys/s", sol_bytes, cub, baseline);
    r.verified = is_sorted_permutation(keys_in.data(), keys_out.data(), n, nullptr);
    ctx.add(std::move(r));
  }
}

void run_histogram_rows(context& ctx)
{
  const std::uint64_t n = ctx.n();
  const cuda backend{};
  auto keys = make_device_buffer<std::uint32_t>(n);
  auto samples = make_device_buffer<float>(n);
  generate_keys(backend, key_set<std::uint32_t>{n, bench_seed + 1}, keys.span());
  thrust::transform(thrust::cuda::par, keys.data(), keys.data() + n, samples.data(), key_to_sample{});
  const int count = static_cast<int>(n);
  // Even bins: what callers get (no suffix) and each algorithm (/block_shared, /warp_privatized); CUB's
  // time is taken once per (kind, m) and is the baseline of each of these rows.
  // /async: the asynchronous call, the counts left in device memory (no allocation, no synchronization).
  struct variant {
    histogram_algorithm algorithm;
    const char* suffix;
    bool async = false;
  };
  const std::vector<variant> even_variants = {{histogram_algorithm::automatic, ""},
                                              {histogram_algorithm::automatic, "/async", true},
                                              {histogram_algorithm::block_shared, "/block_shared"},
                                              {histogram_algorithm::warp_privatized, "/warp_privatized"}};
  const std::vector<variant>& range_variants = even_variants;
  for (const bool range : {false, true}) {
    // Range bins also above 256 (block_shared, the boundaries' tree in shared memory up to 4096 bins).
    for (const std::uint32_t m : {2U, 16U, 32U, 64U, 128U, 256U, 1024U, 4096U}) {
      if (range ? (m == 64 || m == 128) : m > 256) { continue; }
      const std::string name = std::string("histogram/") + (range ? "range" : "even") + "/m=" + std::to_string(m);
      const auto& variants = range ? range_variants : even_variants;
      const bool any = std::any_of(variants.begin(), variants.end(),
                                   [&](const variant& v) { return ctx.selected(name + v.suffix); });
      if (!any) { continue; }
      std::vector<float> levels(m + 1);
      for (std::uint32_t b = 0; b <= m; ++b) { levels[b] = histogram_range_end * b / m; }
      auto stored_levels = make_device_buffer<float>(m + 1);
      stored_levels.copy_from(levels);
      auto cub_counts = make_device_buffer<unsigned>(m);  // 32-bit counters: CUB's fastest
      std::size_t bytes = 0;
      const auto cub_histogram = [&](void* temp) {
        if (range) {
          WARPDEX_CUDA_TRY(cub::DeviceHistogram::HistogramRange(temp, bytes, samples.data(), cub_counts.data(),
                                                                static_cast<int>(m + 1), stored_levels.data(), count));
        } else {
          WARPDEX_CUDA_TRY(cub::DeviceHistogram::HistogramEven(temp, bytes, samples.data(), cub_counts.data(),
                                                               static_cast<int>(m + 1), 0.0F, histogram_range_end,
                                                               count));
        }
      };
      cub_histogram(nullptr);
      auto temp = make_device_buffer<std::uint8_t>(bytes);
      const double cub_value =
          static_cast<double>(n) / (ctx.median_ms(nullptr, [&] { cub_histogram(temp.data()); }) * 1e6);
      const auto reference = cub_counts.to_vector();
      // CUB's call with its own storage, asked for and allocated in each call: the synchronous rows' baseline.
      const auto cub_allocating = [&] {
        cub_histogram(nullptr);
        auto own = make_device_buffer<std::uint8_t>(bytes);
        cub_histogram(own.data());
      };
      const double cub_allocating_value = static_cast<double>(n) / (ctx.median_ms(nullptr, cub_allocating) * 1e6);
      // ... and with the counts copied home, as a synchronous call returns them.
      const auto cub_counts_home = [&] {
        cub_allocating();
        (void)cub_counts.to_vector();  // waits for the stream
      };
      const double cub_counts_home_value = static_cast<double>(n) / (ctx.median_ms(nullptr, cub_counts_home) * 1e6);

      auto device_counts = make_device_buffer<std::uint64_t>(std::uint64_t{m} + 1);  // the bins, then not counted
      for (const auto& [algorithm, suffix, async] : variants) {
        if (!ctx.selected(name + suffix)) { continue; }
        histogram_result ours;
        const double ms = ctx.median_ms(nullptr, [&] {
          if (async && range) {
            histogram_range_async(backend, std::as_const(samples).span(), std::as_const(stored_levels).span(),
                                  device_counts.span(), algorithm);
          } else if (async) {
            histogram_even_async(backend, std::as_const(samples).span(), m, 0.0F, histogram_range_end,
                                 device_counts.span(), algorithm);
          } else {
            ours =
                range ? histogram_range(backend, std::as_const(samples).span(), std::as_const(stored_levels).span(),
                                        algorithm)
                      : histogram_even(backend, std::as_const(samples).span(), m, 0.0F, histogram_range_end, algorithm);
          }
        });
        if (async) {  // the last run's counts
          auto counts = device_counts.to_vector();
          ours.not_counted = counts.back();
          counts.pop_back();
          ours.counts = std::move(counts);
        }
        row r = make_row(name + suffix, n, ms, "Gsamples/s", sizeof(float));
        r.baseline = range ? "cub::DeviceHistogram::HistogramRange" : "cub::DeviceHistogram::HistogramEven";
        r.baseline_value = cub_value;
        if (!async) {  // the synchronous calls: next to CUB's call with its own storage
          r.baseline += " (temporary storage allocated in each call)";
          r.baseline_value = cub_allocating_value;
          r.metrics.emplace_back("cub_preallocated", cub_value);
          r.metrics.emplace_back("cub_allocating_counts_home", cub_counts_home_value);
        }
        // Verified when every sample is counted or reported and the counts agree with CUB's (bin edges
        // may round differently for a sample exactly on a boundary: allow a difference of a few per bin).
        std::uint64_t total = 0;
        bool close = true;
        constexpr std::uint64_t edge_tolerance = 16;
        for (std::uint32_t b = 0; b < m; ++b) {
          total += ours.counts[b];
          const auto difference = static_cast<std::int64_t>(ours.counts[b]) - static_cast<std::int64_t>(reference[b]);
          close = close && static_cast<std::uint64_t>(std::llabs(difference)) <= edge_tolerance;
        }
        r.verified = close && total + ours.not_counted == n;
        ctx.add(std::move(r));
      }
    }
  }
}

}  // namespace

void run_split_sort_histogram(context& ctx)
{
  // Gated by the rows' own names: a filter anchored at a row's end (`keys32$`) matches no family prefix.
  // Each row function checks its names before timing anything.
  const auto any_selected = [&](std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* name) { return ctx.selected(name); });
  };
  if (any_selected({"radix_sort/keys32", "radix_sort/pairs32", "radix_sort/keys32/async", "radix_sort/pairs32/async"})) {
    run_radix_sort_rows(ctx);
  }
  run_radix_sort_keys64_row(ctx);
  run_radix_sort_digit_rows(ctx);
  run_histogram_rows(ctx);
}

}  // namespace warpdex::bench
