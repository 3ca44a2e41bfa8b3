// slab_map's batch options and slab size side by side in one run, on uniform unique 32-bit keys at two
// fills: the slab hash's 0.6 keys per base-slab data slot (lists about one slab long) and 3 (lists about
// 3.5 slabs long).
// - 128-byte slabs: finds and erasures with every tile size (1, 4, 8, 16, 32 lanes), each in input order
//   and sorted by bucket; builds and mixed batches (20% insert, 20% erase, 30% find present, 30% find
//   absent) with every tile in input order and sorted by bucket for tiles 4 and 8; and the automatic
//   choice of each.
// - 64-byte slabs: every kind with tiles 1, 4 and 8 in input order and the automatic choice.
// - Bytes of slabs per live pair after the build, per slab size.
// Each row's baseline is the 128-byte tile=8 variant in input order (the choice before the options
// existed), measured in the same run on the same keys; the 64-byte memory row's is the 128-byte one.
#include "benchmarks.hpp"
#include "slab_bench_support.cuh"

#include <warpdex/core/buffer.hpp>
#include <warpdex/hash/batch_options.hpp>
#include <warpdex/hash/slab_map.hpp>

#include <thrust/equal.h>
#include <thrust/execution_policy.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace warpdex::bench {
namespace {

using hash::batch_options;
using hash::batch_order;
using hash::operation_status;
using hash::tile_lanes;
using slab::count_status;

constexpr std::uint64_t data_seed = 0xd1ac4a54;
/// Keys per row: the size the issue's targets are stated for (a smaller --size-log2 shrinks the rows).
constexpr std::uint64_t target_keys = std::uint64_t{1} << 26;
/// Keys per base-slab data slot: the slab hash's sweet spot (lists ~1 slab), and long lists (~3.5 slabs).
constexpr double fills[] = {0.6, 3.0};
/// The smaller slab size (DACHash's nodes).
constexpr std::uint32_t small_slab_bytes = 64;

enum class kind { build, find_present, find_absent, erase, mixed };
constexpr kind all_kinds[] = {kind::build, kind::find_present, kind::find_absent, kind::erase, kind::mixed};

const char* name_of(kind k)
{
  switch (k) {
    case kind::build:
      return "build";
    case kind::find_present:
      return "find_present";
    case kind::find_absent:
      return "find_absent";
    case kind::erase:
      return "erase";
    case kind::mixed:
      return "mixed";
  }
  return "";
}

/// Whether a kind inserts (build, mixed): those rows run a bounded set of variants.
bool inserts(kind k)
{
  return k == kind::build || k == kind::mixed;
}

struct variant {
  std::string name;
  batch_options options;
  std::uint32_t slab_bytes;
  bool for_insertions;  ///< also measured for the kinds that insert
};

/// The variant every row is compared with.
const std::string baseline_variant = "tile=8";

std::vector<variant> all_variants()
{
  std::vector<variant> variants;
  for (const tile_lanes tile :
       {tile_lanes::eight, tile_lanes::one, tile_lanes::four, tile_lanes::sixteen, tile_lanes::warp}) {
    const std::string name = "tile=" + std::to_string(static_cast<unsigned>(tile));
    const bool reorder_insertions = tile == tile_lanes::four || tile == tile_lanes::eight;
    variants.push_back({name, {tile, batch_order::input}, hash::default_slab_bytes, true});
    variants.push_back(
        {name + ",reorder", {tile, batch_order::by_bucket}, hash::default_slab_bytes, reorder_insertions});
  }
  variants.push_back({"auto", {}, hash::default_slab_bytes, true});
  const std::string small = ",slab=" + std::to_string(small_slab_bytes);
  for (const tile_lanes tile : {tile_lanes::one, tile_lanes::four, tile_lanes::eight}) {
    const std::string name = "tile=" + std::to_string(static_cast<unsigned>(tile)) + small;
    variants.push_back({name, {tile, batch_order::input}, small_slab_bytes, true});
  }
  variants.push_back({"auto" + small, {}, small_slab_bytes, true});
  return variants;
}

/// Buckets for `keys` keys at `fill` keys per base-slab data slot, and a pool twice the expected overflow
/// of the mixed batch's peak (its insertions add a fifth to the keys) plus two memory blocks.
hash::slab_capacity capacity_at(std::uint64_t keys, double fill, std::uint32_t data_slots)
{
  constexpr double peak_keys = 1.0 + slab::mixed_insert_percent / 100.0;
  hash::slab_capacity capacity;
  const double keys_per_bucket = fill * data_slots;
  capacity.bucket_count = static_cast<std::uint32_t>(std::ceil(static_cast<double>(keys) / keys_per_bucket));
  const double overflow = hash::expected_overflow_slabs(peak_keys * keys_per_bucket, data_slots);
  capacity.pool_slabs =
      static_cast<std::uint64_t>(2.0 * overflow * capacity.bucket_count) + 2 * std::uint64_t{hash::slabs_per_block};
  return capacity;
}

/// "0.6", "3": the shortest form of a fill.
std::string fill_name(double fill)
{
  std::ostringstream out;
  out << fill;
  return out.str();
}

/// The rows of one fill: their names, which are selected, and the baselines measured so far.
class fill_rows {
 public:
  fill_rows(context& ctx, std::uint64_t n, double fill) : ctx_(ctx), n_(n), fill_(fill)
  {
    prefix_ = "/n=2^" + std::to_string(std::bit_width(n) - 1) + "/fill=" + fill_name(fill);
  }

  [[nodiscard]] double fill() const { return fill_; }
  [[nodiscard]] std::string name(kind k, const variant& v) const
  {
    return std::string("slab_map/") + name_of(k) + prefix_ + "/variant=" + v.name;
  }
  [[nodiscard]] std::string memory_name(std::uint32_t slab_bytes) const
  {
    return "slab_map/memory" + prefix_ + "/slab=" + std::to_string(slab_bytes);
  }
  [[nodiscard]] bool selected(kind k, const variant& v) const
  {
    return (v.for_insertions || !inserts(k)) && ctx_.selected(name(k, v));
  }
  /// Whether the row runs: selected, or the baseline of a selected row of its kind.
  [[nodiscard]] bool measured(kind k, const variant& v, const std::vector<variant>& variants) const
  {
    if (selected(k, v)) { return true; }
    if (v.name != baseline_variant) { return false; }
    return std::any_of(variants.begin(), variants.end(), [&](const variant& other) { return selected(k, other); });
  }
  [[nodiscard]] bool any_selected(const std::vector<variant>& variants) const
  {
    for (const kind k : all_kinds) {
      for (const variant& v : variants) {
        if (selected(k, v)) { return true; }
      }
    }
    return ctx_.selected(memory_name(hash::default_slab_bytes)) || ctx_.selected(memory_name(small_slab_bytes));
  }

  /// Records a throughput row (when selected) with the baseline of its kind.
  void add(kind k, const variant& v, double ms, double sol_bytes, bool verified)
  {
    if (v.name == baseline_variant) { baseline_ms_[k] = ms; }
    if (!selected(k, v)) { return; }
    row r;
    r.name = name(k, v);
    r.n = n_;
    r.median_ms = ms;
    r.value = static_cast<double>(n_) / (ms * 1e6);
    r.unit = "Gops/s";
    if (const auto baseline = baseline_ms_.find(k); baseline != baseline_ms_.end()) {
      r.baseline =
          "slab_map of 128-byte slabs with tile=8 in input order (the fixed default before tiles of 4), same keys and "
          "run";
      r.baseline_value = static_cast<double>(n_) / (baseline->second * 1e6);
    }
    r.sol_bytes_per_element = sol_bytes;
    r.verified = verified;
    ctx_.add(std::move(r));
  }

  /// Records the memory row of a slab size (when selected); the 128-byte one is the 64-byte one's baseline.
  void add_memory(std::uint32_t slab_bytes, const hash::slab_statistics& stats)
  {
    if (slab_bytes == hash::default_slab_bytes) { baseline_bytes_ = stats.bytes_per_live_entry; }
    if (!ctx_.selected(memory_name(slab_bytes))) { return; }
    row r;
    r.name = memory_name(slab_bytes);
    r.n = n_;
    r.value = stats.bytes_per_live_entry;
    r.unit = "bytes/pair (utilization " + std::to_string(stats.memory_utilization) + ", slabs/bucket " +
             std::to_string(stats.mean_slabs_per_bucket) + ", reserved " +
             std::to_string(static_cast<double>(stats.reserved_bytes) / static_cast<double>(n_)) + " bytes/pair)";
    if (slab_bytes != hash::default_slab_bytes && baseline_bytes_) {
      r.baseline = "slab_map of 128-byte slabs at the same fill, bytes per live pair, same run";
      r.baseline_value = *baseline_bytes_;
    }
    r.verified = stats.live == n_;
    ctx_.add(std::move(r));
  }

  [[nodiscard]] bool memory_wanted(std::uint32_t slab_bytes) const
  {
    // The 128-byte figure is the 64-byte row's baseline.
    return ctx_.selected(memory_name(slab_bytes)) ||
           (slab_bytes == hash::default_slab_bytes && ctx_.selected(memory_name(small_slab_bytes)));
  }

 private:
  context& ctx_;
  std::uint64_t n_;
  double fill_;
  std::string prefix_;
  std::map<kind, double> baseline_ms_;
  std::optional<double> baseline_bytes_;
};

/// Every row of one fill and slab size, on one table.
template <std::uint32_t SlabBytes>
void run_slab_size(context& ctx, slab::key_data& data, const std::optional<slab::mixed_batch>& mixed,
                   const std::vector<variant>& variants, fill_rows& rows)
{
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda, SlabBytes>;
  const std::uint64_t n = data.n;
  const std::span<const std::uint32_t> keys = data.keys();
  const std::span<const std::uint32_t> absent_keys = data.absent_keys();
  auto& statuses = data.statuses;
  auto& values_out = data.values_out;
  std::vector<const variant*> mine;
  for (const variant& v : variants) {
    if (v.slab_bytes == SlabBytes) { mine.push_back(&v); }
  }
  bool needed = rows.memory_wanted(SlabBytes);
  for (const kind k : all_kinds) {
    for (const variant* v : mine) { needed = needed || rows.measured(k, *v, variants); }
  }
  if (!needed) { return; }

  map_type map(cuda{}, capacity_at(n, rows.fill(), map_type::pairs_per_slab));
  auto build = [&] {
    map.set_batch_options({});
    map.clear();
    map.insert(keys, keys);  // value = key, so a find's output can be checked against its query
  };
  if (rows.memory_wanted(SlabBytes)) {
    build();
    rows.add_memory(SlabBytes, map.statistics());
  }
  for (const kind k : all_kinds) {
    for (const variant* v : mine) {
      if (!rows.measured(k, *v, variants)) { continue; }
      double ms = 0;
      bool verified = false;
      double sol = slab::update_sol_bytes;
      switch (k) {
        case kind::build:
          ms = ctx.median_prepared_ms(
              [&] {
                map.clear();
                map.set_batch_options(v->options);
              },
              [&] { map.insert(keys, keys, statuses.span()); });
          verified = count_status(statuses, n, operation_status::inserted) == n && map.size() == n;
          break;
        case kind::erase:
          ms = ctx.median_prepared_ms(
              [&] {
                build();
                map.set_batch_options(v->options);
              },
              [&] { map.erase(keys, statuses.span()); });
          verified = count_status(statuses, n, operation_status::erased) == n && map.size() == 0;
          break;
        case kind::mixed:
          ms = ctx.median_prepared_ms(
              [&] {
                build();
                map.set_batch_options(v->options);
              },
              [&] {
                map.execute(mixed->op_span(), mixed->key_span(), mixed->key_span(), values_out.span(), statuses.span());
              });
          verified = slab::mixed_batch_verified(map, statuses, n);
          sol = slab::mixed_sol_bytes;
          break;
        case kind::find_present:
        case kind::find_absent: {
          const bool present = k == kind::find_present;
          const std::span<const std::uint32_t> queries = present ? keys : absent_keys;
          build();
          map.set_batch_options(v->options);
          ms = ctx.median_prepared_ms([] {}, [&] { map.find(queries, values_out.span(), statuses.span()); });
          verified = count_status(statuses, n, operation_status::found) == (present ? n : 0);
          if (present) {
            verified =
                verified && thrust::equal(thrust::cuda::par, values_out.data(), values_out.data() + n, queries.data());
          }
          sol = slab::find_sol_bytes;
          break;
        }
      }
      rows.add(k, *v, ms, sol, verified);
    }
  }
}

}  // namespace

void run_slab_hash_variants(context& ctx)
{
  const std::uint64_t n = std::min(ctx.n(), target_keys);
  const std::vector<variant> variants = all_variants();
  bool any = false;
  bool any_mixed = false;
  for (const double fill : fills) {
    const fill_rows rows(ctx, n, fill);
    any = any || rows.any_selected(variants);
    for (const variant& v : variants) { any_mixed = any_mixed || rows.measured(kind::mixed, v, variants); }
  }
  if (!any) { return; }

  slab::key_data data(n, data_seed);
  std::optional<slab::mixed_batch> mixed;
  if (any_mixed) { mixed.emplace(data, data_seed); }
  for (const double fill : fills) {
    fill_rows rows(ctx, n, fill);
    // The 128-byte rows first: they hold the baselines of the 64-byte ones.
    run_slab_size<hash::default_slab_bytes>(ctx, data, mixed, variants, rows);
    run_slab_size<small_slab_bytes>(ctx, data, mixed, variants, rows);
  }
}

}  // namespace warpdex::bench
