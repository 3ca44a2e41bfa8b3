// slab_map growing past the size it was built for: n uniform unique keys (2^26, or 2^--size-log2 if
// smaller) inserted in batches of n / 16 into a table built for the first batch, three ways, each next
// to the same batches into a table built for all n keys (the baseline, measured in the same run):
// - grow/rehash_doubling: after a batch, rehash() (buckets for the load) whenever the load has reached
//   twice what the buckets were sized for, so the entries move O(1) times each (4 rehashes);
// - grow/pool_only: no rehash; the lists lengthen into super blocks added by growth;
// - rehash: one rehash() of a table holding n keys built for n / 16, in keys moved per second, next to
//   one batch of n keys into a table built for n (what the rehash does after its export).
// Each row checks that the map holds exactly the n keys with their values.
#include "benchmarks.hpp"
#include "slab_bench_support.cuh"
#include "throughput_row.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/hash/slab_map.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace warpdex::bench {
namespace {

using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;

constexpr std::uint64_t grow_seed = 0x62077eed;
/// Keys per row, as slab_hash.cu's rows.
constexpr std::uint64_t target_keys = std::uint64_t{1} << 26;
/// Batches the n keys arrive in; the table starts sized for one of them.
constexpr std::uint64_t batch_count = 16;
/// rehash_doubling rehashes when the buckets the load needs reach this multiple of the table's.
constexpr std::uint32_t rehash_growth_factor = 2;

std::string grow_name(const char* kind, std::uint64_t n)
{
  return std::string("slab_map/") + kind + "/start=n/" + std::to_string(batch_count) + "/n=" + std::to_string(n);
}

}  // namespace

void run_slab_hash_grow(context& ctx)
{
  const std::uint64_t n = std::min(ctx.n(), target_keys);
  const std::string doubling_name = grow_name("grow/rehash_doubling", n);
  const std::string pool_only_name = grow_name("grow/pool_only", n);
  const std::string rehash_name = grow_name("rehash", n);
  if (!ctx.selected(doubling_name) && !ctx.selected(pool_only_name) && !ctx.selected(rehash_name)) { return; }

  const cuda backend{};
  const slab::key_data data(n, grow_seed);
  const std::span<const std::uint32_t> keys = data.keys();
  const std::uint64_t batch = std::max<std::uint64_t>(1, n / batch_count);
  const hash::slab_capacity start = map_type::capacity_for(batch);
  const hash::slab_capacity final_size = map_type::capacity_for(n);

  // A fresh table for every repetition (untimed), filled batch by batch; `after_batch` runs after each.
  std::optional<map_type> map;
  auto fill = [&](const auto& after_batch) {
    for (std::uint64_t first = 0; first < n; first += batch) {
      const auto part = keys.subspan(first, std::min(batch, n - first));
      map->insert(part, part);  // value = key: the export check compares them
      after_batch();
    }
  };
  auto fresh_at = [&](const hash::slab_capacity& capacity) {
    return [&, capacity] {
      map.reset();
      map.emplace(backend, capacity);
    };
  };
  auto no_rehash = [] {};
  const double final_ms = ctx.median_prepared_ms(fresh_at(final_size), [&] { fill(no_rehash); });
  const bool final_ok = slab::export_matches(*map, keys);
  const std::string final_baseline =
      "the same " + std::to_string(batch_count) + " batches into a slab_map built for n, same run";

  if (ctx.selected(doubling_name)) {
    std::uint64_t rehashes = 0;
    auto rehash_when_doubled = [&] {
      const std::uint32_t needed = map_type::capacity_for(map->size()).bucket_count;
      if (needed >= rehash_growth_factor * map->capacity().bucket_count) {
        map->rehash();
        ++rehashes;
      }
    };
    const double ms = ctx.median_prepared_ms(fresh_at(start), [&] {
      rehashes = 0;
      fill(rehash_when_doubled);
    });
    const hash::slab_statistics stats = map->statistics();
    row r = throughput_row(doubling_name, n, ms, "Gops/s", final_baseline, final_ms, slab::update_sol_bytes,
                           final_ok && slab::export_matches(*map, keys));
    r.unit += " (" + std::to_string(rehashes) + " rehashes, " + std::to_string(stats.bucket_count) +
              " buckets at the end, longest list " + std::to_string(stats.longest_chain) + ")";
    ctx.add(std::move(r));
  }

  if (ctx.selected(pool_only_name)) {
    const double ms = ctx.median_prepared_ms(fresh_at(start), [&] { fill(no_rehash); });
    const hash::slab_statistics stats = map->statistics();
    row r = throughput_row(pool_only_name, n, ms, "Gops/s", final_baseline, final_ms, slab::update_sol_bytes,
                           final_ok && slab::export_matches(*map, keys));
    r.unit += " (" + std::to_string(stats.super_block_count) + " super blocks, mean list " +
              std::to_string(stats.mean_slabs_per_bucket) + " slabs, longest " + std::to_string(stats.longest_chain) +
              ")";
    ctx.add(std::move(r));
  }

  if (ctx.selected(rehash_name)) {
    // Prepared: a table built for one batch holding all n keys (lists about 16 slabs long).
    const double ms = ctx.median_prepared_ms(
        [&] {
          fresh_at(start)();
          fill(no_rehash);
        },
        [&] { map->rehash(); });
    const bool verified = map->capacity().bucket_count == final_size.bucket_count && slab::export_matches(*map, keys);
    const double one_batch_ms = ctx.median_prepared_ms(fresh_at(final_size), [&] { map->insert(keys, keys); });
    ctx.add(throughput_row(rehash_name, n, ms, "Gkeys/s moved",
                           "one batch of n keys into a slab_map built for n, same run", one_batch_ms,
                           slab::update_sol_bytes, verified && slab::export_matches(*map, keys)));
  }
}

}  // namespace warpdex::bench
