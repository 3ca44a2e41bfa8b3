// slab_map on Zipf-skewed keys: 2^26 operations (or 2^--size-log2, if smaller) whose keys are drawn
// from 2^22 distinct keys (n / 16) with probability proportional to rank^-s, for s = 0.5, 1.0 and 1.5:
// an insert batch into an empty table, a find batch on a table holding every key, and the mixed batch
// of slab_hash.cu's shares (20% insert, 20% erase, 60% find) on a table holding half the keys. Each row's
// baseline is the same kind of batch on n unique uniform keys (the workload of slab_hash.cu's
// slab_map/{build,find_present,mixed}/n=.../util=60 rows), measured in the same run: the issue's target
// is a ratio of at least 0.5 at s = 1.0. Each row's unit says whether its mixed batch is combined
// (batch_combine, from the sampled repeats). Uncombined, the mixed batch at s = 1.0 would be quadratic
// (its hottest key, 6% of the batch, would leave about 10^6 tombstones for its own elements to walk).
#include "benchmarks.hpp"
#include "slab_bench_support.cuh"
#include "throughput_row.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/hash/slab_map.hpp>

#include <thrust/binary_search.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace warpdex::bench {
namespace {

using hash::operation;
using hash::operation_status;
using slab::count_status;
using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;

constexpr std::uint64_t skew_seed = 0x2f1f5eed;
/// Operations per batch at most: the issue's 2^26.
constexpr std::uint64_t target_operations = std::uint64_t{1} << 26;
/// Operations per distinct key: 2^26 operations over 2^22 keys.
constexpr std::uint64_t operations_per_key = 16;
/// The Zipf exponents of the rows (s = 1.0 is the issue's target; 0 would be uniform draws).
constexpr double exponents[] = {0.5, 1.0, 1.5};
/// The utilization of the tables: the headline of slab_hash.cu.
constexpr double base_fill = 0.6;

/// Element i's key: the key of rank r, where r is the first rank whose cumulative probability exceeds
/// a uniform draw of (seed, i) (inverse transform sampling over the Zipf distribution's CDF).
struct zipf_draw {
  const double* cumulative;  ///< rank_count cumulative probabilities, the last 1
  const std::uint32_t* keys_by_rank;
  std::uint64_t rank_count;
  std::uint64_t seed;
  __device__ std::uint32_t operator()(std::uint64_t i) const
  {
    constexpr double two_to_minus_53 = 1.0 / 9007199254740992.0;
    const double uniform = static_cast<double>(fmix64(i ^ seed) >> 11) * two_to_minus_53;
    const double* at = thrust::upper_bound(thrust::seq, cumulative, cumulative + rank_count, uniform);
    const std::uint64_t rank =
        at == cumulative + rank_count ? rank_count - 1 : static_cast<std::uint64_t>(at - cumulative);
    return keys_by_rank[rank];
  }
};

/// Element i's operation by slab_hash.cu's shares of the mixed batch.
struct mixed_operation {
  std::uint64_t seed;
  __device__ operation operator()(std::uint64_t i) const
  {
    const auto percent = static_cast<unsigned>(fmix64(i ^ seed) % 100);
    if (percent < slab::mixed_insert_percent) { return operation::insert; }
    if (percent < slab::mixed_insert_percent + slab::mixed_erase_percent) { return operation::erase; }
    return operation::find;
  }
};

/// `count` keys drawn from `keys_by_rank` with probability proportional to (rank + 1)^-exponent.
buffer<std::uint32_t> zipf_keys(std::span<const std::uint32_t> keys_by_rank, std::uint64_t count, double exponent,
                                std::uint64_t seed)
{
  std::vector<double> cumulative(keys_by_rank.size());
  double total = 0;
  for (std::size_t rank = 0; rank < cumulative.size(); ++rank) {
    total += std::pow(static_cast<double>(rank + 1), -exponent);
    cumulative[rank] = total;
  }
  for (double& value : cumulative) { value /= total; }
  cumulative.back() = 1.0;
  auto device_cumulative = make_device_buffer<double>(cumulative.size());
  device_cumulative.copy_from(std::span<const double>(cumulative));
  auto keys = make_device_buffer<std::uint32_t>(count);
  const thrust::counting_iterator<std::uint64_t> first(0);
  thrust::transform(thrust::cuda::par, first, first + count, keys.data(),
                    zipf_draw{device_cumulative.data(), keys_by_rank.data(), keys_by_rank.size(), seed});
  return keys;
}

std::string exponent_text(double exponent)
{
  char text[16];
  std::snprintf(text, sizeof text, "%.1f", exponent);
  return text;
}

/// The estimated mean number of other elements sharing an element's key, and whether an automatic
/// mixed batch of these keys is combined.
std::string repeats_note(std::span<const std::uint32_t> keys)
{
  const double repeats = hash::detail::estimated_key_repeats(
      hash::detail::sample_keys(cuda{}, keys.data(), keys.size(), hash::combine_sample_keys), keys.size());
  char text[96];
  std::snprintf(text, sizeof text, " (about %.0f other elements share a key; mixed batches %s)", repeats,
                repeats >= hash::combine_repeat_threshold ? "combined" : "not combined");
  return text;
}

std::string uniform_baseline(const char* kind)
{
  return std::string("slab_map ") + kind + " of n unique uniform keys, same run";
}

}  // namespace

void run_slab_hash_skew(context& ctx)
{
  const std::uint64_t n = std::min(ctx.n(), target_operations);
  const std::uint64_t distinct = std::max<std::uint64_t>(1, n / operations_per_key);
  const auto name = [&](const std::string& exponent, const char* kind) {
    return "slab_map/zipf=" + exponent + "/" + kind + "/n=" + std::to_string(n) + "/keys=" + std::to_string(distinct);
  };
  const char* kinds[] = {"insert", "find", "mixed"};
  bool any = false;
  for (const double exponent : exponents) {
    for (const char* kind : kinds) { any = any || ctx.selected(name(exponent_text(exponent), kind)); }
  }
  if (!any) { return; }
  const auto wanted = [&](const char* kind) {
    for (const double exponent : exponents) {
      if (ctx.selected(name(exponent_text(exponent), kind))) { return true; }
    }
    return false;
  };

  const cuda backend{};
  slab::key_data data(n, skew_seed);
  auto& statuses = data.statuses;
  auto& values_out = data.values_out;
  auto nothing = [] {};

  // The baselines: slab_hash.cu's headline workloads on n unique keys.
  double uniform_insert_ms = 0, uniform_find_ms = 0, uniform_mixed_ms = 0;
  {
    const double peak_keys = 1.0 + slab::mixed_insert_percent / 100.0;
    map_type map(backend, map_type::capacity_for(static_cast<std::uint64_t>(peak_keys * n), peak_keys * base_fill));
    const auto keys = data.keys();
    const auto build = [&] {
      map.clear();
      map.insert(keys, keys);
    };
    if (wanted("insert")) {
      uniform_insert_ms = ctx.median_prepared_ms([&] { map.clear(); }, [&] { map.insert(keys, keys); });
    }
    if (wanted("find")) {
      build();
      uniform_find_ms = ctx.median_prepared_ms(nothing, [&] { map.find(keys, values_out.span(), statuses.span()); });
    }
    if (wanted("mixed")) {
      const slab::mixed_batch mixed(data, skew_seed);
      uniform_mixed_ms = ctx.median_prepared_ms(build, [&] {
        map.execute(mixed.op_span(), mixed.key_span(), mixed.key_span(), values_out.span(), statuses.span());
      });
    }
  }

  // The distinct keys (ranked by their order in `data`) and the mixed batch's operations.
  const std::span<const std::uint32_t> keys_by_rank = data.keys().first(distinct);
  auto mixed_ops = make_device_buffer<operation>(n);
  const thrust::counting_iterator<std::uint64_t> first(0);
  thrust::transform(thrust::cuda::par, first, first + n, mixed_ops.data(), mixed_operation{skew_seed});
  // The mixed batch's table holds the keys of even rank (hot and cold keys alike).
  std::vector<std::uint32_t> host_half;
  const std::vector<std::uint32_t> host_ranked = data.all_keys.to_vector();
  for (std::uint64_t rank = 0; rank < distinct; rank += 2) { host_half.push_back(host_ranked[rank]); }
  auto half = make_device_buffer<std::uint32_t>(host_half.size());
  half.copy_from(std::span<const std::uint32_t>(host_half));

  map_type map(backend, map_type::capacity_for(distinct, base_fill));
  const auto ops_span = std::as_const(mixed_ops).span();
  for (const double exponent : exponents) {
    const std::string s = exponent_text(exponent);
    if (!ctx.selected(name(s, "insert")) && !ctx.selected(name(s, "find")) && !ctx.selected(name(s, "mixed"))) {
      continue;
    }
    const auto exponent_seed = static_cast<std::uint64_t>(exponent * 1000);
    const buffer<std::uint32_t> drawn = zipf_keys(keys_by_rank, n, exponent, skew_seed ^ exponent_seed);
    const auto keys = drawn.span();
    const std::string note = repeats_note(keys);

    if (ctx.selected(name(s, "insert"))) {
      const double ms = ctx.median_prepared_ms([&] { map.clear(); }, [&] { map.insert(keys, keys, statuses.span()); });
      const std::uint64_t inserted = count_status(statuses, n, operation_status::inserted);
      const bool verified = map.size() == inserted && inserted <= distinct &&
                            inserted + count_status(statuses, n, operation_status::already_present) == n;
      row r = throughput_row(name(s, "insert"), n, ms, "Gops/s" + note, uniform_baseline("build"), uniform_insert_ms,
                             slab::update_sol_bytes, verified);
      ctx.add(std::move(r));
    }
    if (ctx.selected(name(s, "find"))) {
      map.clear();
      map.insert(keys_by_rank, keys_by_rank);
      const double ms = ctx.median_prepared_ms(nothing, [&] { map.find(keys, values_out.span(), statuses.span()); });
      const bool verified = count_status(statuses, n, operation_status::found) == n &&
                            thrust::equal(thrust::cuda::par, values_out.data(), values_out.data() + n, keys.data());
      ctx.add(throughput_row(name(s, "find"), n, ms, "Gops/s" + note, uniform_baseline("find_present"), uniform_find_ms,
                             slab::find_sol_bytes, verified));
    }
    if (ctx.selected(name(s, "mixed"))) {
      const auto rebuild = [&] {
        map.clear();
        map.insert(half.span(), half.span());
      };
      const double ms = ctx.median_prepared_ms(
          rebuild, [&] { map.execute(ops_span, keys, keys, values_out.span(), statuses.span()); });
      const std::uint64_t inserted = count_status(statuses, n, operation_status::inserted);
      const std::uint64_t erased = count_status(statuses, n, operation_status::erased);
      const bool verified = map.size() == host_half.size() + inserted - erased &&
                            count_status(statuses, n, operation_status::out_of_memory) == 0;
      ctx.add(throughput_row(name(s, "mixed"), n, ms, "Gops/s" + note, uniform_baseline("mixed"), uniform_mixed_ms,
                             slab::mixed_sol_bytes, verified));
    }
  }
}

}  // namespace warpdex::bench
