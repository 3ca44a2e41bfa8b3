// slab_map on uniform unique 32-bit keys and values: build, find (present and absent), erase and a mixed
// batch (20% insert, 20% erase, 30% find present, 30% find absent) at ~60% memory utilization, each next to
// a baseline measured in the same process on the same data: a static open-addressing table written here
// (linear probing over 64-bit pairs, one thread per key, load factor 0.5, i.e. 16 bytes per pair, like
// cuCollections' static_map at that load factor). Plus the slab table's bytes per live pair, a
// utilization sweep (build and finds at 20%..90%) and an incremental sweep (batches of 2^16..2^22 keys
// until the table holds n: throughput and resident bytes per pair).
#include "baselines.hpp"
#include "benchmarks.hpp"
#include "throughput_row.hpp"
#include "slab_bench_support.cuh"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/hash/slab_map.hpp>

#include <thrust/count.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpdex::bench {
namespace {

using hash::operation;
using hash::operation_status;
using slab::count_status;
using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;

constexpr std::uint64_t data_seed = 0x5eed5eed;
/// Keys per row: the issue's targets (and the SlabHash and cuCollections figures they compare with) are
/// for n = 2^26 keys, whatever --size-log2 asks of the other benchmarks; a smaller --size-log2 still
/// shrinks the rows (quick runs).
constexpr std::uint64_t target_keys = std::uint64_t{1} << 26;

/// The figure a slab_map row compares against.
const std::string open_baseline = baselines::open_addressing_map::name();

row make_row(const std::string& name, std::uint64_t n, double ms, double baseline_ms, double sol_bytes, bool verified)
{
  return throughput_row(name, n, ms, "Gops/s", open_baseline, baseline_ms, sol_bytes, verified);
}

/// Target memory utilizations of the sweep, in percent: the table's buckets are sized so the keys fill
/// this share of the base slabs' data slots (slab_capacity::for_keys).
constexpr unsigned sweep_percents[] = {20, 30, 40, 50, 60, 70, 80, 90};
/// The utilization of the headline rows (erase, mixed, memory): the slab hash's sweet spot.
constexpr unsigned headline_percent = 60;
/// Batch sizes of the incremental sweep (log2): batches of 2^16 .. 2^22 keys until the table holds n.
constexpr unsigned incremental_batch_logs[] = {16, 18, 20, 22};

std::string row_name(const char* kind, std::uint64_t n, unsigned percent)
{
  return std::string("slab_map/") + kind + "/n=" + std::to_string(n) + "/util=" + std::to_string(percent);
}

/// The orders a build row runs in besides the automatic one (its own row): the input order (the build
/// before large insertion batches were split), the split by bucket range, and the split with other range
/// sizes and tiles (the sweep behind default_partition_bytes).
struct build_order {
  const char* suffix;
  hash::batch_options options;
};
constexpr std::uint64_t mib = std::uint64_t{1} << 20;
const build_order build_orders[] = {
    {"/order=input", {.order = hash::batch_order::input}},
    {"/order=by_partition", {.order = hash::batch_order::by_partition}},
    {"/order=by_partition,range=4MiB", {.order = hash::batch_order::by_partition, .partition_bytes = 4 * mib}},
    {"/order=by_partition,range=12MiB", {.order = hash::batch_order::by_partition, .partition_bytes = 12 * mib}},
    {"/order=by_partition,range=48MiB", {.order = hash::batch_order::by_partition, .partition_bytes = 48 * mib}},
    {"/order=by_partition,range=96MiB", {.order = hash::batch_order::by_partition, .partition_bytes = 96 * mib}},
    {"/order=by_partition,tile=1", {.tile = hash::tile_lanes::one, .order = hash::batch_order::by_partition}},
    {"/order=by_partition,tile=8", {.tile = hash::tile_lanes::eight, .order = hash::batch_order::by_partition}},
};
/// The orders of the Zipf rows: the first two of build_orders.
constexpr std::size_t zipf_orders = 2;

/// The Zipf build rows: n keys drawn from 2^24 distinct ones with probability proportional to rank^-1.1.
constexpr double zipf_exponent = 1.1;
constexpr std::uint64_t zipf_pool = std::uint64_t{1} << 24;

std::string zipf_row_name(std::uint64_t n)
{
  return "slab_map/build/zipf=1.1/n=" + std::to_string(n) + "/keys=" + std::to_string(zipf_pool);
}

/// Bytes a key of a build split by bucket range moves through DRAM, counted: the multisplit's 20 (keys
/// read twice, keys and values written once), the split pairs read again (8), and each base slab read
/// once and written back once for all the keys of its bucket (docs/hash.md, "Bulk builds by partition").
double partitioned_build_bytes(std::uint64_t n, std::uint64_t bucket_count, std::uint32_t slab_bytes)
{
  return 20.0 + 8.0 + 2.0 * slab_bytes * static_cast<double>(bucket_count) / static_cast<double>(n);
}

/// A build row's unit, with the bytes a key moves as counted for the order it ran in.
std::string build_unit(double memory_utilization, double bytes_per_key)
{
  return "Gops/s (memory utilization " + std::to_string(memory_utilization) + ", counted bytes/key " +
         std::to_string(bytes_per_key) + ")";
}

}  // namespace

void run_slab_hash(context& ctx)
{
  const std::uint64_t n = std::min(ctx.n(), target_keys);
  const char* kinds[] = {"build", "find_present", "find_absent", "erase", "mixed", "memory"};
  auto wanted = [&](const char* kind, unsigned percent) { return ctx.selected(row_name(kind, n, percent)); };
  auto incremental_name = [&](const char* kind, unsigned batch_log) {
    return std::string("slab_map/") + kind + "/batch=" + std::to_string(std::uint64_t{1} << batch_log) +
           "/n=" + std::to_string(n);
  };
  bool any = false;
  for (const unsigned percent : sweep_percents) {
    for (const char* kind : kinds) { any = any || wanted(kind, percent); }
  }
  auto wanted_in_order = [&](unsigned percent) {
    bool any_order = false;
    for (const build_order& fixed : build_orders) {
      any_order = any_order || ctx.selected(row_name("build", n, percent) + fixed.suffix);
    }
    return any_order;
  };
  for (const unsigned percent : sweep_percents) { any = any || wanted_in_order(percent); }
  bool zipf_wanted = ctx.selected(zipf_row_name(n));
  for (std::size_t o = 0; o < zipf_orders; ++o) {
    zipf_wanted = zipf_wanted || ctx.selected(zipf_row_name(n) + build_orders[o].suffix);
  }
  any = any || zipf_wanted;
  for (const unsigned batch_log : incremental_batch_logs) {
    any = any || ctx.selected(incremental_name("incremental", batch_log)) ||
          ctx.selected(incremental_name("incremental_resident", batch_log));
  }
  if (!any) { return; }

  const cuda backend{};
  slab::key_data data(n, data_seed);
  const std::span<const std::uint32_t> keys = data.keys();
  const std::span<const std::uint32_t> absent_keys = data.absent_keys();
  auto& statuses = data.statuses;
  auto& values_out = data.values_out;

  // The baseline, measured once: it does not depend on the slab table's utilization.
  baselines::open_addressing_map open(n);
  auto open_run = [&](std::span<const operation> ops, operation uniform, std::span<const std::uint32_t> batch_keys,
                      std::span<const std::uint32_t> values) {
    open.apply(backend, ops, uniform, batch_keys, values, values_out.span(), statuses.span());
  };
  auto open_clear = [&] { open.clear(); };
  auto open_build = [&] {
    open_clear();
    open_run({}, operation::insert, keys, keys);
  };
  auto nothing = [] {};
  const double open_build_ms = ctx.median_prepared_ms(open_clear, [&] { open_run({}, operation::insert, keys, keys); });
  const double open_find_present_ms = ctx.median_prepared_ms(nothing, [&] { open_run({}, operation::find, keys, {}); });
  const bool open_present_ok = count_status(statuses, n, operation_status::found) == n;
  const double open_find_absent_ms =
      ctx.median_prepared_ms(nothing, [&] { open_run({}, operation::find, absent_keys, {}); });
  const bool open_absent_ok = count_status(statuses, n, operation_status::found) == 0;

  constexpr double find_sol = slab::find_sol_bytes;
  constexpr double update_sol = slab::update_sol_bytes;

  for (const unsigned percent : sweep_percents) {
    bool needed = wanted_in_order(percent);
    for (const char* kind : kinds) { needed = needed || wanted(kind, percent); }
    if (!needed) { continue; }
    const double fill = percent / 100.0;
    // The headline table's pool also holds the mixed batch's insertions (the buckets are those for n keys).
    const double peak_keys = percent == headline_percent ? 1.0 + slab::mixed_insert_percent / 100.0 : 1.0;
    map_type map(backend, map_type::capacity_for(static_cast<std::uint64_t>(peak_keys * n), peak_keys * fill));
    auto build = [&] {
      map.clear();
      map.insert(keys, keys);  // value = key, so a find's output can be checked against its query
    };

    const bool automatic_splits = map.plan().by_partition;
    const double split_bytes = partitioned_build_bytes(n, map.capacity().bucket_count, hash::default_slab_bytes);
    if (wanted("build", percent) || wanted("memory", percent)) {
      const double ms = ctx.median_prepared_ms([&] { map.clear(); }, [&] { map.insert(keys, keys); });
      const hash::slab_statistics stats = map.statistics();
      if (wanted("build", percent)) {
        const double bytes = automatic_splits ? split_bytes : update_sol;
        row r = make_row(row_name("build", n, percent), n, ms, open_build_ms, bytes, stats.live == n);
        r.unit = build_unit(stats.memory_utilization, bytes);
        ctx.add(std::move(r));
      }
      if (wanted("memory", percent)) {
        row r;
        r.name = row_name("memory", n, percent);
        r.n = n;
        r.value = stats.bytes_per_live_entry;
        r.unit = "bytes/pair (utilization " + std::to_string(stats.memory_utilization) + ", slabs/bucket " +
                 std::to_string(stats.mean_slabs_per_bucket) + ", reserved " +
                 std::to_string(static_cast<double>(stats.reserved_bytes) / static_cast<double>(n)) + " bytes/pair)";
        r.baseline = "open-addressing table bytes per pair at load factor 0.5";
        r.baseline_value = static_cast<double>(open.bytes()) / static_cast<double>(n);
        r.verified = stats.live == n;
        ctx.add(std::move(r));
      }
    }

    // The build in each fixed order, beside the automatic row (same baseline).
    for (const build_order& fixed : build_orders) {
      const std::string name = row_name("build", n, percent) + fixed.suffix;
      if (!ctx.selected(name)) { continue; }
      const hash::batch_options original = map.get_batch_options();
      map.set_batch_options(fixed.options);
      const double ms = ctx.median_prepared_ms([&] { map.clear(); }, [&] { map.insert(keys, keys); });
      const hash::slab_statistics stats = map.statistics();
      map.set_batch_options(original);
      const double bytes = fixed.options.order == hash::batch_order::by_partition ? split_bytes : update_sol;
      row r = make_row(name, n, ms, open_build_ms, bytes, stats.live == n && slab::export_matches(map, keys));
      r.unit = build_unit(stats.memory_utilization, bytes);
      ctx.add(std::move(r));
    }

    auto find_row = [&](const char* kind, std::span<const std::uint32_t> queries, bool present) {
      if (!wanted(kind, percent)) { return; }
      build();
      const double ms = ctx.median_prepared_ms(nothing, [&] { map.find(queries, values_out.span(), statuses.span()); });
      bool verified = count_status(statuses, n, operation_status::found) == (present ? n : 0);
      if (present) {
        verified =
            verified && thrust::equal(thrust::cuda::par, values_out.data(), values_out.data() + n, queries.data());
      }
      verified = verified && (present ? open_present_ok : open_absent_ok);
      ctx.add(make_row(row_name(kind, n, percent), n, ms, present ? open_find_present_ms : open_find_absent_ms,
                       find_sol, verified));
    };
    find_row("find_present", keys, true);
    find_row("find_absent", absent_keys, false);

    if (wanted("erase", percent)) {
      const double ms = ctx.median_prepared_ms(build, [&] { map.erase(keys, statuses.span()); });
      bool verified = count_status(statuses, n, operation_status::erased) == n && map.size() == 0;
      const double open_ms = ctx.median_prepared_ms(open_build, [&] { open_run({}, operation::erase, keys, {}); });
      verified = verified && count_status(statuses, n, operation_status::erased) == n;
      ctx.add(make_row(row_name("erase", n, percent), n, ms, open_ms, update_sol, verified));
    }

    if (wanted("mixed", percent)) {
      const slab::mixed_batch mixed(data, data_seed);
      const auto op_span = mixed.op_span();
      const auto key_span = mixed.key_span();
      const double ms = ctx.median_prepared_ms(
          build, [&] { map.execute(op_span, key_span, key_span, values_out.span(), statuses.span()); });
      const bool verified = slab::mixed_batch_verified(map, statuses, n);
      const double open_ms =
          ctx.median_prepared_ms(open_build, [&] { open_run(op_span, operation::find, key_span, key_span); });
      ctx.add(make_row(row_name("mixed", n, percent), n, ms, open_ms, slab::mixed_sol_bytes, verified));
      // The same batch with combining off: what the automatic choice's key sample costs a batch of
      // unique keys (batch_options::combine), against the row above.
      const std::string never_name = row_name("mixed", n, percent) + "/combine=never";
      if (ctx.selected(never_name)) {
        const hash::batch_options original = map.get_batch_options();
        hash::batch_options never = original;
        never.combine = hash::batch_combine::never;
        map.set_batch_options(never);
        const double never_ms = ctx.median_prepared_ms(
            build, [&] { map.execute(op_span, key_span, key_span, values_out.span(), statuses.span()); });
        const bool never_verified = slab::mixed_batch_verified(map, statuses, n);
        map.set_batch_options(original);
        ctx.add(throughput_row(never_name, n, never_ms, "Gops/s",
                               "slab_map mixed with the automatic combine choice, same run", ms, slab::mixed_sol_bytes,
                               never_verified));
      }
    }
  }

  // The build from Zipf-repeated keys, each table sized for n keys (as the uniform build's), against the
  // open-addressing build of the same keys in the same run.
  if (zipf_wanted) {
    auto zipf = make_device_buffer<std::uint32_t>(n);
    generate_zipf_keys(backend, key_set<std::uint32_t>{zipf_pool, data_seed, key_order::shuffled, hash::max_user_key},
                       zipf_exponent, data_seed, zipf.span());
    const std::span<const std::uint32_t> zipf_keys(zipf.data(), n);
    map_type map(backend, map_type::capacity_for(n, headline_percent / 100.0));
    const std::uint64_t distinct = [&] {
      map.insert(zipf_keys, zipf_keys);
      return map.size();
    }();
    const double open_zipf_ms =
        ctx.median_prepared_ms(open_clear, [&] { open_run({}, operation::insert, zipf_keys, zipf_keys); });
    const bool open_zipf_ok = count_status(statuses, n, operation_status::inserted) == distinct;
    auto zipf_row = [&](const std::string& name, hash::batch_order order) {
      if (!ctx.selected(name)) { return; }
      map.set_batch_options({.order = order});
      const double ms = ctx.median_prepared_ms([&] { map.clear(); }, [&] { map.insert(zipf_keys, zipf_keys); });
      const hash::slab_statistics stats = map.statistics();
      const bool splits = map.plan().by_partition;
      const double bytes =
          splits ? partitioned_build_bytes(n, map.capacity().bucket_count, hash::default_slab_bytes) : update_sol;
      row r = make_row(name, n, ms, open_zipf_ms, bytes, open_zipf_ok && stats.live == distinct);
      r.unit = build_unit(stats.memory_utilization, bytes) + " " + std::to_string(distinct) + " distinct keys";
      r.baseline = open_baseline + ", the same Zipf keys";
      ctx.add(std::move(r));
    };
    zipf_row(zipf_row_name(n), hash::batch_order::automatic);
    for (std::size_t o = 0; o < zipf_orders; ++o) {
      zipf_row(zipf_row_name(n) + build_orders[o].suffix, build_orders[o].options.order);
    }
  }

  // Incremental batches: the table is filled to n keys one batch at a time, each batch a separate call
  // (validation, kernel, exhaustion read-back), so small batches show the per-call overhead.
  for (const unsigned batch_log : incremental_batch_logs) {
    const std::uint64_t batch = std::min(n, std::uint64_t{1} << batch_log);
    const std::string throughput_name = incremental_name("incremental", batch_log);
    const std::string resident_name = incremental_name("incremental_resident", batch_log);
    if (!ctx.selected(throughput_name) && !ctx.selected(resident_name)) { continue; }
    // Buckets for all n keys, no pool: every overflow slab comes from growth, so the resident size is
    // what the batches needed. A fresh table for every repetition (untimed), so each one grows.
    hash::slab_capacity capacity = map_type::capacity_for(n, headline_percent / 100.0);
    capacity.pool_slabs = 0;
    std::optional<map_type> fresh;
    const double ms = ctx.median_prepared_ms(
        [&] {
          fresh.reset();
          fresh.emplace(backend, capacity);
        },
        [&] {
          for (std::uint64_t first = 0; first < n; first += batch) {
            const auto part = keys.subspan(first, std::min(batch, n - first));
            fresh->insert(part, part);
          }
        });
    const map_type& map = *fresh;
    const hash::slab_statistics stats = map.statistics();
    const bool verified = stats.live == n && slab::export_matches(map, keys);
    if (ctx.selected(throughput_name)) {
      row r = make_row(throughput_name, n, ms, open_build_ms, update_sol, verified);
      r.baseline = std::string("one batch of n keys into ") + open_baseline;
      ctx.add(std::move(r));
    }
    if (ctx.selected(resident_name)) {
      row r;
      r.name = resident_name;
      r.n = n;
      r.value = static_cast<double>(stats.reserved_bytes) / static_cast<double>(n);
      r.unit = "resident bytes/pair (" + std::to_string(stats.reserved_bytes >> 20) + " MiB, " +
               std::to_string(stats.super_block_count) + " super blocks; in slabs " +
               std::to_string(stats.bytes_per_live_entry) + " bytes/pair)";
      r.baseline = "open-addressing table bytes per pair at load factor 0.5";
      r.baseline_value = static_cast<double>(open.bytes()) / static_cast<double>(n);
      r.verified = verified;
      ctx.add(std::move(r));
    }
  }
}

}  // namespace warpdex::bench
