// slab_map of 64-bit keys and values on uniform unique keys at n = 2^26 and 60% utilization: build,
// find present and find absent, each beside the 32-bit slab_map doing the same operation on as many
// keys, measured in the same process (the issue's target: the 64-bit rows at >= 0.6x the 32-bit ones,
// for twice the bytes per pair). Values equal keys, so a find's output is checked against its query.
#include "benchmarks.hpp"
#include "slab_bench_support.cuh"
#include "throughput_row.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/hash/slab_map.hpp>

#include <thrust/equal.h>
#include <thrust/execution_policy.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

namespace warpdex::bench {
namespace {

using hash::operation_status;
using slab::count_status;
using map32_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;
using map64_type = hash::slab_map<std::uint64_t, std::uint64_t, cuda>;

constexpr std::uint64_t key64_data_seed = 0x64b175eedULL;
/// Keys per row: the issue's target size (a smaller --size-log2 shrinks the rows for quick runs).
constexpr std::uint64_t key64_target_keys = std::uint64_t{1} << 26;
/// The utilization of the rows: the slab hash's sweet spot, as the 32-bit headline rows.
constexpr unsigned key64_percent = 60;
/// Speed-of-light bytes per 64 / 64 element: key and value (8 bytes each) and a status streamed, plus
/// one sector read at random (find) or read and written back (update).
constexpr double key64_streamed_bytes = 8 + 8 + 4;
constexpr double key64_find_sol = key64_streamed_bytes + slab::sector_bytes;
constexpr double key64_update_sol = key64_streamed_bytes + 2 * slab::sector_bytes;

std::string key64_row_name(const char* kind, std::uint64_t n)
{
  return std::string("slab_map/") + kind + "/n=" + std::to_string(n) + "/util=" + std::to_string(key64_percent) +
         "/key64";
}

const std::string key32_baseline = "slab_map of 32-bit keys and values, same operation and n, same run";

}  // namespace

void run_slab_hash_key64(context& ctx)
{
  const std::uint64_t n = std::min(ctx.n(), key64_target_keys);
  const char* kinds[] = {"build", "find_present", "find_absent"};
  bool any = false;
  for (const char* kind : kinds) { any = any || ctx.selected(key64_row_name(kind, n)); }
  if (!any) { return; }

  const cuda backend{};
  const double fill = key64_percent / 100.0;
  slab::key_data data32(n, key64_data_seed);
  auto all64 = make_device_buffer<std::uint64_t>(2 * n);
  generate_keys(backend, key_set<std::uint64_t>{2 * n, key64_data_seed, key_order::shuffled, hash::max_user_key64},
                all64.span());
  const std::span<const std::uint64_t> keys64(all64.data(), n);
  const std::span<const std::uint64_t> absent64(all64.data() + n, n);
  auto values_out64 = make_device_buffer<std::uint64_t>(n);
  auto& statuses = data32.statuses;

  map32_type map32(backend, map32_type::capacity_for(n, fill));
  map64_type map64(backend, map64_type::capacity_for(n, fill));
  auto nothing = [] {};

  if (ctx.selected(key64_row_name("build", n))) {
    const double ms32 =
        ctx.median_prepared_ms([&] { map32.clear(); }, [&] { map32.insert(data32.keys(), data32.keys()); });
    const bool ok32 = map32.size() == n;
    const double ms64 = ctx.median_prepared_ms([&] { map64.clear(); }, [&] { map64.insert(keys64, keys64); });
    const hash::slab_statistics stats = map64.statistics();
    row r = throughput_row(key64_row_name("build", n), n, ms64, "Gops/s", key32_baseline, ms32, key64_update_sol,
                           ok32 && stats.live == n);
    r.unit += " (memory utilization " + std::to_string(stats.memory_utilization) + ", " +
              std::to_string(stats.bytes_per_live_entry) + " bytes/pair)";
    ctx.add(std::move(r));
  }

  auto find_row = [&](const char* kind, bool present) {
    if (!ctx.selected(key64_row_name(kind, n))) { return; }
    map32.clear();
    map32.insert(data32.keys(), data32.keys());
    const auto queries32 = present ? data32.keys() : data32.absent_keys();
    const double ms32 =
        ctx.median_prepared_ms(nothing, [&] { map32.find(queries32, data32.values_out.span(), statuses.span()); });
    const bool ok32 = count_status(statuses, n, operation_status::found) == (present ? n : 0);
    map64.clear();
    map64.insert(keys64, keys64);
    const auto queries64 = present ? keys64 : absent64;
    const double ms64 =
        ctx.median_prepared_ms(nothing, [&] { map64.find(queries64, values_out64.span(), statuses.span()); });
    bool verified = ok32 && count_status(statuses, n, operation_status::found) == (present ? n : 0);
    if (present) {
      verified =
          verified && thrust::equal(thrust::cuda::par, values_out64.data(), values_out64.data() + n, queries64.data());
    }
    ctx.add(throughput_row(key64_row_name(kind, n), n, ms64, "Gops/s", key32_baseline, ms32, key64_find_sol, verified));
  };
  find_row("find_present", true);
  find_row("find_absent", false);
}

}  // namespace warpdex::bench
