// hashfight_map (dpp/hashfight_map.hpp) on the GPU: build, find of present keys and find of absent keys,
//   hashfight/<build|find_present|find_absent>/<k32|k64>/n=<n>/lf=<lf>   and   hashfight/memory/...
// at load factors 1.03, 1.5 and 2.0 with the automatic chunk, next to the open-addressing baseline of
// bench/baselines (linear probing, 32-bit keys and values, load factor 0.5) on the same 32-bit keys in the
// same run. The baseline has no 64-bit form: the k64 rows compare with the same 32-bit baseline (named so).
// The chunked passes of Ch. VI, the same rows with the chunk set:
//   hashfight/<build|find_present|find_absent>/<k32|k64>/n=<n>/lf=<lf>/chunk=<auto|off|512MiB|1GiB|4GiB>
// (`off`: every step in one pass, the cliff the chunks avoid; run them at --size-log2 28 and 30). They run
// only when the filter says "chunk=", e.g. --filter '^hashfight/(build|find_present)/k32/.*/lf=1\.5/chunk='.
// The bucket sizes of the partitioned rounds (hashfight_options::bucket_bytes), run only when the filter
// says "bucket=":
//   hashfight/<build|find_present|find_absent|memory>/<k32|k64>/n=<n>/lf=<lf>/bucket=<slot|32|64>
// Speed of light: a build reads its pair and touches one random 32-byte sector twice (fight, check); a
// find reads its key, writes its value and reads one random sector (kept for every bucket size, so that
// the rows compare).
#include "benchmarks.hpp"
#include "dpp_benchmarks.hpp"
#include "throughput_row.hpp"
#include "baselines.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/dpp/hashfight_map.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <thrust/count.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace warpdex::bench {
namespace {

constexpr std::uint64_t data_seed = 0xf1647f16;
constexpr double sector_bytes = 32;
constexpr double load_factors[] = {1.03, 1.5, 2.0};

/// A setting of the rows: its name suffix ("" for the classic rows: automatic chunk and bucket), the
/// filter word that asks for it, and the options (bucket_bytes `one_slot`: the entry's size).
struct chunk_setting {
  const char* label;
  const char* asked_by;
  std::uint64_t chunk_bytes;
  std::uint32_t bucket_bytes;
};
constexpr std::uint32_t one_slot = 1;
constexpr chunk_setting chunk_settings[] = {
    {"", "", 0, 0},
    {"chunk=auto", "chunk=", 0, 0},
    {"chunk=off", "chunk=", dpp::hashfight_no_chunks, 0},
    {"chunk=512MiB", "chunk=", std::uint64_t{512} << 20, 0},
    {"chunk=1GiB", "chunk=", std::uint64_t{1} << 30, 0},
    {"chunk=4GiB", "chunk=", std::uint64_t{4} << 30, 0},
    {"bucket=slot", "bucket=", 0, one_slot},
    {"bucket=32", "bucket=", 0, 32},
    {"bucket=64", "bucket=", 0, 64},
};

std::string row_name(const char* kind, unsigned key_bits, std::uint64_t n, double lf, const char* suffix = "")
{
  char factor[16];
  std::snprintf(factor, sizeof(factor), "%g", lf);
  return std::string("hashfight/") + kind + "/k" + std::to_string(key_bits) + "/n=" + std::to_string(n) +
         "/lf=" + factor + (suffix[0] != '\0' ? std::string("/") + suffix : std::string());
}

/// Whether any row of this key width, load factor and setting is selected. The `/chunk=` and `/bucket=`
/// rows run only when the filter names them ("chunk=", "bucket="): a filter such as '^hashfight/' would
/// otherwise build every table eight more times.
bool setting_wanted(const context& ctx, unsigned key_bits, std::uint64_t n, double lf, const chunk_setting& setting)
{
  if (setting.label[0] != '\0' && ctx.opts().filter.find(setting.asked_by) == std::string::npos) { return false; }
  bool any = false;
  for (const char* kind : {"build", "find_present", "find_absent", "memory"}) {
    any = any || ctx.selected(row_name(kind, key_bits, n, lf, setting.label));
  }
  return any;
}

/// The baseline's times on n 32-bit keys (value = key) and n absent ones.
struct baseline_times {
  double build_ms = 0;
  double find_present_ms = 0;
  double find_absent_ms = 0;
  bool verified = false;
};

struct status_is_found {
  __host__ __device__ bool operator()(hash::operation_status status) const
  {
    return status == hash::operation_status::found;
  }
};

baseline_times measure_baseline(context& ctx, std::uint64_t n)
{
  buffer<std::uint32_t> all_keys = make_device_buffer<std::uint32_t>(2 * n);
  generate_keys(cuda{}, key_set<std::uint32_t>{2 * n, data_seed, key_order::shuffled, hash::max_user_key},
                all_keys.span());
  const std::uint32_t* keys = all_keys.data();
  const std::uint32_t* absent = all_keys.data() + n;
  auto statuses = make_device_buffer<hash::operation_status>(n);
  auto values_out = make_device_buffer<std::uint32_t>(n);
  baselines::open_addressing_map table(n);
  auto run = [&](hash::operation op, const std::uint32_t* batch) {
    table.apply(cuda{}, {}, op, std::span<const std::uint32_t>(batch, n), std::span<const std::uint32_t>(keys, n),
                values_out.span(), statuses.span());
  };
  auto clear = [&] { table.clear(); };
  baseline_times times;
  times.build_ms = ctx.median_prepared_ms(clear, [&] { run(hash::operation::insert, keys); });
  times.find_present_ms = ctx.median_prepared_ms([] {}, [&] { run(hash::operation::find, keys); });
  bool verified = static_cast<std::uint64_t>(thrust::count_if(thrust::cuda::par, statuses.data(), statuses.data() + n,
                                                              status_is_found{})) == n;
  times.find_absent_ms = ctx.median_prepared_ms([] {}, [&] { run(hash::operation::find, absent); });
  verified =
      verified && thrust::count_if(thrust::cuda::par, statuses.data(), statuses.data() + n, status_is_found{}) == 0;
  times.verified = verified;
  return times;
}

template <class Key>
struct is_miss {
  __host__ __device__ bool operator()(Key value) const
  {
    return value == dpp::hashfight_map<Key, Key, cuda>::miss_value;
  }
};

template <class Key>
void hashfight_rows(context& ctx, std::uint64_t n, const baseline_times& baseline)
{
  using map_type = dpp::hashfight_map<Key, Key, cuda>;
  constexpr unsigned key_bits = sizeof(Key) * 8;
  bool any = false;
  for (const double lf : load_factors) {
    for (const chunk_setting& setting : chunk_settings) { any = any || setting_wanted(ctx, key_bits, n, lf, setting); }
  }
  if (!any) { return; }
  const cuda backend{};
  // 2n distinct keys below the reserved one: the first n built (value = key), the other n absent.
  auto all_keys = make_device_buffer<Key>(2 * n);
  generate_keys(backend, key_set<Key>{2 * n, data_seed, key_order::shuffled, static_cast<Key>(map_type::empty_key - 1)},
                all_keys.span());
  const std::span<const Key> keys(all_keys.data(), n);
  const std::span<const Key> absent(all_keys.data() + n, n);
  auto found = make_device_buffer<Key>(n);
  const std::string baseline_label =
      baselines::open_addressing_map::name() +
      (key_bits == 32 ? ", k32/v32" : ", k32/v32 (the 32-bit baseline: it has no 64-bit form)");
  const double build_sol = 2.0 * sizeof(Key) + 2 * sector_bytes;
  const double find_sol = 2.0 * sizeof(Key) + sector_bytes;
  for (const double lf : load_factors) {
    for (const chunk_setting& setting : chunk_settings) {
      if (!setting_wanted(ctx, key_bits, n, lf, setting)) { continue; }
      auto add = [&](const char* kind, double ms, double baseline_ms, double sol, bool verified) {
        ctx.add(throughput_row(row_name(kind, key_bits, n, lf, setting.label), n, ms, "Gops/s", baseline_label,
                               baseline_ms, sol, verified && baseline.verified));
      };
      dpp::hashfight_options options;
      options.load_factor = lf;
      options.chunk_bytes = setting.chunk_bytes;
      options.bucket_bytes = setting.bucket_bytes == one_slot
                                 ? static_cast<std::uint32_t>(sizeof(dpp::hashfight_entry<Key, Key>))
                                 : setting.bucket_bytes;
      // The map, its build's scratch and the keys and answers above must fit the device's memory.
      const std::uint64_t needed =
          dpp::hashfight_build_bytes(n, sizeof(dpp::hashfight_entry<Key, Key>), options) + 3 * n * sizeof(Key);
      if (static_cast<double>(needed) > 0.9 * static_cast<double>(ctx.device().global_memory_bytes)) {
        std::fprintf(stderr, "skipped %s: needs about %llu MiB of device memory\n",
                     row_name("*", key_bits, n, lf, setting.label).c_str(),
                     static_cast<unsigned long long>(needed >> 20));
        continue;
      }
      std::unique_ptr<map_type> map;
      // The previous map is freed before each build (untimed), so only one table is held at a time.
      const double build_ms = ctx.median_prepared_ms(
          [&] { map.reset(); }, [&] { map = std::make_unique<map_type>(backend, keys, keys, options); });
      if (ctx.selected(row_name("build", key_bits, n, lf, setting.label))) {
        add("build", build_ms, baseline.build_ms, build_sol, map->size() == n);
      }
      if (ctx.selected(row_name("memory", key_bits, n, lf, setting.label))) {
        row r;
        r.name = row_name("memory", key_bits, n, lf, setting.label);
        r.n = n;
        r.value = static_cast<double>(map->memory_bytes()) / static_cast<double>(n);
        r.unit = "bytes/pair (" + std::to_string(map->rounds()) + " rounds, " +
                 std::to_string(map->partitioned_rounds()) + " of them in " + std::to_string(map->partitions()) +
                 " partitions, buckets of " + std::to_string(map->bucket_entries()) + " entries, " +
                 std::to_string(map->leftover_size()) + " leftovers, " + std::to_string(map->chunked_subtables()) +
                 " chunked)";
        r.baseline = "open-addressing table bytes per pair at load factor 0.5 (k32/v32)";
        r.baseline_value = 16.0;
        r.verified = map->size() == n;
        ctx.add(std::move(r));
      }
      if (ctx.selected(row_name("find_present", key_bits, n, lf, setting.label))) {
        const double ms = ctx.median_ms(nullptr, [&] { map->find(keys, found.span()); });
        add("find_present", ms, baseline.find_present_ms, find_sol,
            thrust::equal(thrust::cuda::par, found.data(), found.data() + n, keys.data()));
      }
      if (ctx.selected(row_name("find_absent", key_bits, n, lf, setting.label))) {
        const double ms = ctx.median_ms(nullptr, [&] { map->find(absent, found.span()); });
        add("find_absent", ms, baseline.find_absent_ms, find_sol,
            static_cast<std::uint64_t>(
                thrust::count_if(thrust::cuda::par, found.data(), found.data() + n, is_miss<Key>{})) == n);
      }
    }
  }
}

}  // namespace

void run_dpp_hashfight(context& ctx)
{
  const std::uint64_t n = ctx.n();
  bool any = false;
  for (const unsigned bits : {32u, 64u}) {
    for (const double lf : load_factors) {
      for (const chunk_setting& setting : chunk_settings) { any = any || setting_wanted(ctx, bits, n, lf, setting); }
    }
  }
  if (!any) { return; }
  const baseline_times baseline = measure_baseline(ctx, n);
  hashfight_rows<std::uint32_t>(ctx, n, baseline);
  hashfight_rows<std::uint64_t>(ctx, n, baseline);
}

}  // namespace warpdex::bench
