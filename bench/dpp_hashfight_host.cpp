// hashfight_map on the HOST backend (OpenMP, all the machine's threads) next to
// tbb::concurrent_unordered_map with the same thread count, same keys, in the same run: the thesis's CPU
// comparison (Lessley Ch. IV). Rows hashfight_host/<build|find_present|find_absent>/k32/n=<n>/lf=1.03.
// n is at most 2^24 pairs whatever --size-log2 asks: TBB's map inserts a few million pairs per second,
// so larger sizes would take minutes per run. Timed with the host clock; the TBB build is timed over
// fewer runs (tbb_build_runs) for the same reason. Host rows have no device speed of light.
#include "benchmarks.hpp"
#include "dpp_benchmarks.hpp"
#include "throughput_row.hpp"

#include <warpdex/core/generate.hpp>
#include <warpdex/dpp/hashfight_map.hpp>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/concurrent_unordered_map.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace warpdex::bench {
namespace {

constexpr std::uint64_t host_max_pairs = std::uint64_t{1} << 24;
constexpr double host_load_factor = 1.03;
constexpr int tbb_build_runs = 3;
constexpr std::uint64_t data_seed = 0x7bb7bb;

std::string row_name(const char* kind, std::uint64_t n)
{
  return std::string("hashfight_host/") + kind + "/k32/n=" + std::to_string(n) + "/lf=1.03";
}

/// Median wall time in ms of `runs` runs of `work`, each after an untimed `prepare`.
double host_median_ms(int runs, const std::function<void()>& prepare, const std::function<void()>& work)
{
  std::vector<double> times;
  for (int run = 0; run < runs; ++run) {
    prepare();
    const auto started = std::chrono::steady_clock::now();
    work();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

void run_dpp_hashfight_host(context& ctx)
{
  const std::uint64_t n = std::min(ctx.n(), host_max_pairs);
  const char* kinds[] = {"build", "find_present", "find_absent"};
  bool any = false;
  for (const char* kind : kinds) { any = any || ctx.selected(row_name(kind, n)); }
  if (!any) { return; }
  const int threads = omp_get_max_threads();
  const oneapi::tbb::global_control same_threads(oneapi::tbb::global_control::max_allowed_parallelism,
                                                 static_cast<std::size_t>(threads));
  const int runs = std::max(ctx.opts().repetitions, 1);

  // 2n distinct keys: the first n built (value = key), the other n absent.
  std::vector<std::uint32_t> all_keys(2 * n);
  generate_keys(host{}, key_set<std::uint32_t>{2 * n, data_seed, key_order::shuffled, 0xfffffffeU},
                std::span<std::uint32_t>(all_keys));
  const std::span<const std::uint32_t> keys(all_keys.data(), n);
  const std::span<const std::uint32_t> absent(all_keys.data() + n, n);
  std::vector<std::uint32_t> found(n);

  using tbb_map = oneapi::tbb::concurrent_unordered_map<std::uint32_t, std::uint32_t>;
  std::unique_ptr<tbb_map> reference;
  const double tbb_build_ms = host_median_ms(
      tbb_build_runs, [&] { reference = std::make_unique<tbb_map>(); },
      [&] {
        oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::uint64_t>(0, n), [&](const auto& range) {
          for (std::uint64_t i = range.begin(); i != range.end(); ++i) { reference->emplace(keys[i], keys[i]); }
        });
      });
  auto tbb_hits = [&](std::span<const std::uint32_t> queries) {
    return oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<std::uint64_t>(0, n), std::uint64_t{0},
        [&](const auto& range, std::uint64_t hits) {
          for (std::uint64_t i = range.begin(); i != range.end(); ++i) {
            const auto entry = reference->find(queries[i]);
            found[i] = entry != reference->end() ? entry->second : 0;
            hits += entry != reference->end() ? 1 : 0;
          }
          return hits;
        },
        std::plus<>());
  };
  std::uint64_t tbb_present = 0;
  std::uint64_t tbb_absent = 0;
  const double tbb_present_ms = host_median_ms(
      runs, [] {}, [&] { tbb_present = tbb_hits(keys); });
  const double tbb_absent_ms = host_median_ms(
      runs, [] {}, [&] { tbb_absent = tbb_hits(absent); });
  const bool tbb_ok = reference->size() == n && tbb_present == n && tbb_absent == 0;
  reference.reset();

  using map_type = dpp::hashfight_map<std::uint32_t, std::uint32_t, host>;
  dpp::hashfight_options options;
  options.load_factor = host_load_factor;
  std::unique_ptr<map_type> map;
  const double build_ms = host_median_ms(
      runs, [&] { map.reset(); }, [&] { map = std::make_unique<map_type>(host{}, keys, keys, options); });
  const double present_ms = host_median_ms(
      runs, [] {}, [&] { map->find(keys, std::span<std::uint32_t>(found)); });
  const bool present_ok = std::equal(found.begin(), found.end(), keys.begin());
  const double absent_ms = host_median_ms(
      runs, [] {}, [&] { map->find(absent, std::span<std::uint32_t>(found)); });
  const bool absent_ok =
      std::all_of(found.begin(), found.end(), [](std::uint32_t v) { return v == map_type::miss_value; });

  const std::string baseline = "tbb::concurrent_unordered_map, " + std::to_string(threads) + " threads (same keys)";
  const std::string unit = "Gops/s (host, " + std::to_string(threads) + " threads)";
  const double times[] = {build_ms, present_ms, absent_ms};
  const double baseline_times[] = {tbb_build_ms, tbb_present_ms, tbb_absent_ms};
  const bool verified[] = {map->size() == n, present_ok, absent_ok};
  for (int k = 0; k < 3; ++k) {
    if (!ctx.selected(row_name(kinds[k], n))) { continue; }
    ctx.add(throughput_row(row_name(kinds[k], n), n, times[k], unit, baseline, baseline_times[k], 0.0,
                           verified[k] && tbb_ok));
  }
}

}  // namespace warpdex::bench
