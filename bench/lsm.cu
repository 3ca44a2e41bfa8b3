// The LSM rows: bulk build, batch insertion, lookup, count, range and cleanup, each next to the
// sorted-array baseline (a sorted array kept current by CUB-sorting each batch and merging it in,
// queried with binary searches) measured in this process on the same data.
#include "baselines.hpp"
#include "benchmarks.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/stream.hpp>
#include <warpdex/core/timing.hpp>
#include <warpdex/lsm/lsm_map.hpp>
#include <warpdex/search/search_device.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime_api.h>
#include <thrust/count.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/merge.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpdex::bench {
namespace {

using key_type = std::uint32_t;
using value_type = std::uint32_t;
using map_type = lsm_map<key_type, value_type, cuda>;

/// Resident elements of the LSM rows: 2^27, the largest resident count the targets are stated for.
constexpr std::uint32_t resident_log2 = 27;
constexpr std::uint32_t query_log2 = 24;  // lookups per row
constexpr std::uint32_t short_range_queries_log2 = 20;
constexpr std::uint32_t long_range_queries_log2 = 15;
constexpr std::uint64_t short_range_length = 8;  // average live keys per count / range query
constexpr std::uint64_t long_range_length = 1024;
constexpr std::uint64_t query_batch_log2 = 20;  // b of the structure the queries run on
constexpr std::uint64_t seed = 0x15a1;
constexpr double pair_bytes = sizeof(key_type) + sizeof(value_type);

std::string power(std::uint64_t log2)
{
  return "2^" + std::to_string(log2);
}

row make_row(std::string name, std::uint64_t n, double ms, const char* unit, std::string baseline, double baseline_ms,
             double sol_bytes, bool verified)
{
  row r;
  r.name = std::move(name);
  r.n = n;
  r.median_ms = ms;
  r.value = static_cast<double>(n) / (ms * 1e6);
  r.unit = unit;
  r.baseline = std::move(baseline);
  r.baseline_value = static_cast<double>(n) / (baseline_ms * 1e6);
  r.sol_bytes_per_element = sol_bytes;
  r.verified = verified;
  return r;
}

/// Milliseconds of one run of `work` on the default stream.
template <class Work>
double timed_ms(Work&& work)
{
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  WARPDEX_CUDA_TRY(cudaEventCreate(&start));
  WARPDEX_CUDA_TRY(cudaEventCreate(&stop));
  WARPDEX_CUDA_TRY(cudaEventRecord(start, nullptr));
  work();
  WARPDEX_CUDA_TRY(cudaEventRecord(stop, nullptr));
  WARPDEX_CUDA_TRY(cudaEventSynchronize(stop));
  float ms = 0;
  WARPDEX_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  return ms;
}

using sorted_array = baselines::sorted_array_map;

/// The sorted-array baseline searches with the same binary search the search family uses.
__host__ __device__ inline std::uint64_t first_not_below(const key_type* keys, std::uint64_t size, key_type key)
{
  return binary_search_bound<bound_kind::lower>(keys, size, key);
}

struct sorted_lookup {
  const key_type* keys;
  const value_type* values;
  std::uint64_t size;
  const key_type* queries;
  value_type* values_out;
  std::uint8_t* found;
  __device__ void operator()(std::uint64_t i) const
  {
    const std::uint64_t at = first_not_below(keys, size, queries[i]);
    const bool hit = at < size && keys[at] == queries[i];
    found[i] = hit ? 1 : 0;
    values_out[i] = hit ? values[at] : 0;
  }
};

/// Keys in [lower, upper] of the sorted array.
struct sorted_count {
  const key_type* keys;
  std::uint64_t size;
  const key_type* lower;
  const key_type* upper;
  std::uint64_t* counts;
  __device__ void operator()(std::uint64_t i) const
  {
    counts[i] = binary_search_bound<bound_kind::upper>(keys, size, upper[i]) - first_not_below(keys, size, lower[i]);
  }
};

struct sorted_range_copy {
  const key_type* keys;
  const value_type* values;
  std::uint64_t size;
  const key_type* lower;
  const std::uint64_t* offsets;
  key_type* keys_out;
  value_type* values_out;
  __device__ void operator()(std::uint64_t i) const
  {
    const std::uint64_t first = first_not_below(keys, size, lower[i]);
    for (std::uint64_t j = 0; j < offsets[i + 1] - offsets[i]; ++j) {
      keys_out[offsets[i] + j] = keys[first + j];
      values_out[offsets[i] + j] = values[first + j];
    }
  }
};

/// upper = lower + width - 1, saturated.
struct add_width {
  std::uint64_t width;
  __device__ key_type operator()(key_type lower) const
  {
    const std::uint64_t upper = static_cast<std::uint64_t>(lower) + width - 1;
    return static_cast<key_type>(upper > UINT32_MAX ? UINT32_MAX : upper);
  }
};

template <class T>
T read_one(const T* device_value)
{
  T value{};
  WARPDEX_CUDA_TRY(cudaMemcpy(&value, device_value, sizeof(T), cudaMemcpyDeviceToHost));
  return value;
}

/// `count` distinct shuffled keys with values = their positions.
template <class Key>
struct key_pairs {
  buffer<Key> keys;
  buffer<value_type> values;
};
using pairs = key_pairs<key_type>;
template <class Key = key_type>
key_pairs<Key> generate_pairs(std::uint64_t count, std::uint64_t pair_seed)
{
  key_pairs<Key> p{make_device_buffer<Key>(count), make_device_buffer<value_type>(count)};
  generate_keys(cuda{}, key_set<Key>{count, pair_seed}, p.keys.span());
  thrust::sequence(thrust::cuda::par, p.values.data(), p.values.data() + count);
  return p;
}

bool same_contents(const map_type& map, const sorted_array& array)
{
  if (map.size() != array.size()) { return false; }
  const auto contents = map.retrieve_all();
  return thrust::equal(thrust::cuda::par, contents.keys.data(), contents.keys.data() + array.size(), array.keys()) &&
         thrust::equal(thrust::cuda::par, contents.values.data(), contents.values.data() + array.size(),
                       array.values());
}

void run_build(context& ctx, std::uint64_t n)
{
  const std::string name = "lsm/build/keys32/n=" + power(resident_log2);
  if (!ctx.selected(name)) { return; }
  const pairs input = generate_pairs(n, seed);
  map_type map(cuda{}, lsm_options{std::uint64_t{1} << query_batch_log2, 0.0});
  const double ms = ctx.median_ms(nullptr, [&] { map.bulk_build(input.keys.span(), input.values.span()); });
  auto sorted_keys = make_device_buffer<key_type>(n);
  auto sorted_values = make_device_buffer<value_type>(n);
  std::size_t temp_bytes = 0;
  const int items = static_cast<int>(n);
  WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, input.keys.data(), sorted_keys.data(),
                                                   input.values.data(), sorted_values.data(), items));
  auto temp = make_device_buffer<std::uint8_t>(temp_bytes);
  const double baseline_ms = ctx.median_ms(nullptr, [&] {
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, input.keys.data(), sorted_keys.data(),
                                                     input.values.data(), sorted_values.data(), items));
  });
  sorted_array sorted(backend_choice::cuda, n);
  sorted.insert(cuda{}, input.keys.data(), input.values.data(), n);
  ctx.add(make_row(name, n, ms, "Gpairs/s", "cub::DeviceRadixSort::SortPairs", baseline_ms, 2 * pair_bytes,
                   same_contents(map, sorted)));
}

struct write_index {
  key_type* out;
  __device__ void operator()(std::uint64_t i) const { out[i] = static_cast<key_type>(i); }
};

/// CUB's SortPairs of `batch` pairs of the input from an offset, into buffers of its own.
template <class Key>
class cub_batch_sort {
 public:
  cub_batch_sort(const key_pairs<Key>& input, std::uint64_t batch)
      : input_(input), keys_out_(make_device_buffer<Key>(batch)),
        values_out_(make_device_buffer<value_type>(batch)), items_(static_cast<int>(batch))
  {
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes_, input.keys.data(), keys_out_.data(),
                                                     input.values.data(), values_out_.data(), items_));
    temp_ = make_device_buffer<std::uint8_t>(temp_bytes_);
  }
  void operator()(std::uint64_t offset)
  {
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp_.data(), temp_bytes_, input_.keys.data() + offset,
                                                     keys_out_.data(), input_.values.data() + offset,
                                                     values_out_.data(), items_));
  }
  [[nodiscard]] Key* keys_out() { return keys_out_.data(); }
  [[nodiscard]] value_type* values_out() { return values_out_.data(); }

 private:
  const key_pairs<Key>& input_;
  buffer<Key> keys_out_;
  buffer<value_type> values_out_;
  buffer<std::uint8_t> temp_;
  std::size_t temp_bytes_ = 0;
  int items_;
};

/// The median time of inserting n pairs of `input` batch by batch into a fresh LSM (the map built untimed),
/// as `warpdex lsm` times it; `map` holds the last run's map.
template <class Key>
double lsm_insert_ms(context& ctx, const key_pairs<Key>& input, std::uint64_t n, std::uint64_t batch,
                     std::optional<lsm_map<Key, value_type, cuda>>& map)
{
  return ctx.median_prepared_ms(
      [&] {
        map.reset();
        map.emplace(cuda{}, lsm_options{batch, 0.0});
      },
      [&] {
        for (std::uint64_t offset = 0; offset < n; offset += batch) {
          map->insert(input.keys.span().subspan(offset, batch), input.values.span().subspan(offset, batch));
        }
      });
}

/// The host's cost of queueing the pieces an insert batch of b entries is made of (no waiting): what
/// bounds a batch when the GPU's work is small.
void report_host_costs(std::uint64_t batch)
{
  const pairs input = generate_pairs(batch, seed);
  cub_batch_sort<key_type> sort(input, batch);
  const auto per_call_us = [](int calls, const auto& call) {
    WARPDEX_CUDA_TRY(cudaDeviceSynchronize());
    const auto started = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) { call(); }
    const auto queued = std::chrono::steady_clock::now();
    WARPDEX_CUDA_TRY(cudaDeviceSynchronize());
    return std::chrono::duration<double, std::micro>(queued - started).count() / calls;
  };
  constexpr int calls = 200;
  const double sort_us = per_call_us(calls, [&] { sort(0); });
  const double for_each_us = per_call_us(calls, [&] {
    thrust::for_each(thrust::cuda::par_nosync, thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(batch),
                     write_index{sort.values_out()});
  });
  // The two halves of the sorted keys, merged into the values' buffer.
  const key_type* sorted = sort.keys_out();
  const double merge_us = per_call_us(calls, [&] {
    thrust::merge(thrust::cuda::par_nosync, sorted, sorted + batch / 2, sorted + batch / 2, sorted + batch,
                  sort.values_out());
  });
  const double allocation_us = per_call_us(calls, [&] { (void)make_buffer<std::uint8_t>(cuda{}, batch); });
  std::printf("  host time to queue, per call at b = %llu: CUB SortPairs %.1f us, thrust::for_each %.1f us, "
              "thrust::merge %.1f us, pool allocation and free %.1f us\n",
              static_cast<unsigned long long>(batch), sort_us, for_each_us, merge_us, allocation_us);
}

/// Inserts n keys batch by batch into a fresh LSM and into an empty sorted array: the median time of
/// the whole sequence (each run from empty, the map built untimed), as `warpdex lsm` times it.
void run_insert(context& ctx, std::uint64_t n, std::uint32_t batch_log2)
{
  const std::string name = "lsm/insert/b=" + power(batch_log2) + "/n=" + power(resident_log2);
  if (!ctx.selected(name)) { return; }
  const std::uint64_t batch = std::uint64_t{1} << batch_log2;
  const pairs input = generate_pairs(n, seed + batch_log2);
  std::optional<map_type> map;
  sorted_array sorted(backend_choice::cuda, n);
  const double ms = lsm_insert_ms(ctx, input, n, batch, map);
  const double baseline_ms =
      ctx.median_prepared_ms([&] { sorted.clear(); },
                             [&] {
                               for (std::uint64_t offset = 0; offset < n; offset += batch) {
                                 sorted.insert(cuda{}, input.keys.data() + offset, input.values.data() + offset, batch);
                               }
                             });
  // Where a batch's time goes: the host's time to queue the whole sequence (insert waits for nothing)
  // against the time until the GPU is done.
  map.reset();
  map.emplace(cuda{}, lsm_options{batch, 0.0});
  WARPDEX_CUDA_TRY(cudaDeviceSynchronize());
  const auto started = std::chrono::steady_clock::now();
  for (std::uint64_t offset = 0; offset < n; offset += batch) {
    map->insert(input.keys.span().subspan(offset, batch), input.values.span().subspan(offset, batch));
  }
  const auto queued = std::chrono::steady_clock::now();
  WARPDEX_CUDA_TRY(cudaDeviceSynchronize());
  const auto done = std::chrono::steady_clock::now();
  const double batches = static_cast<double>(n / batch);
  std::printf("  %s: per batch %.1f us queued by the host, %.1f us until the GPU is done\n", name.c_str(),
              std::chrono::duration<double, std::micro>(queued - started).count() / batches,
              std::chrono::duration<double, std::micro>(done - started).count() / batches);
  ctx.add(make_row(name, n, ms, "Gpairs/s", "sorted array: CUB SortPairs of each batch + thrust::merge_by_key",
                   baseline_ms, 2 * pair_bytes, same_contents(*map, sorted)));
}

/// Replaces about `percent` of the keys, spread over every batch, by one hot key.
template <class Key>
struct make_hot {
  Key* keys;
  Key hot;
  std::uint32_t percent;
  __device__ void operator()(std::uint64_t i) const
  {
    const std::uint64_t mixed = (i + 1) * 0x9e3779b97f4a7c15ull;
    if ((mixed >> 32) % 100 < percent) { keys[i] = hot; }
  }
};

/// 2^22 pairs inserted in batches of 2^16 against CUB's SortPairs of each batch alone, the part of the
/// sorted array's insert that the LSM's batch sort replaces (the sorted array holds neither repeated nor
/// 64-bit keys). With `hot_percent`, that share of the keys is one key: a batch's split by its top bits
/// puts that much of the batch in one bucket, and the key's repeats form one long run. The contents are
/// checked against the last pair of each key, found on the host.
template <class Key>
void run_insert_against_sort(context& ctx, const std::string& name, std::uint32_t hot_percent)
{
  constexpr std::uint32_t batch_log2 = 16;
  constexpr std::uint32_t total_log2 = 22;
  if (!ctx.selected(name)) { return; }
  const std::uint64_t n = std::uint64_t{1} << total_log2;
  const std::uint64_t batch = std::uint64_t{1} << batch_log2;
  key_pairs<Key> input = generate_pairs<Key>(n, seed + 100);
  if (hot_percent > 0) {
    const auto indices = thrust::counting_iterator<std::uint64_t>(0);
    thrust::for_each(thrust::cuda::par, indices, indices + n,
                     make_hot<Key>{input.keys.data(), Key{0x5eed1234u}, hot_percent});
  }
  std::optional<lsm_map<Key, value_type, cuda>> map;
  const double ms = lsm_insert_ms(ctx, input, n, batch, map);
  cub_batch_sort<Key> sort(input, batch);
  const double baseline_ms = ctx.median_ms(nullptr, [&] {
    for (std::uint64_t offset = 0; offset < n; offset += batch) { sort(offset); }
  });
  std::vector<Key> keys(n);
  std::vector<value_type> values(n);
  WARPDEX_CUDA_TRY(cudaMemcpy(keys.data(), input.keys.data(), n * sizeof(Key), cudaMemcpyDeviceToHost));
  WARPDEX_CUDA_TRY(cudaMemcpy(values.data(), input.values.data(), n * sizeof(value_type), cudaMemcpyDeviceToHost));
  std::map<Key, value_type> last;
  for (std::uint64_t i = 0; i < n; ++i) { last[keys[i]] = values[i]; }
  const auto contents = map->retrieve_all();
  std::vector<Key> got_keys(contents.keys.size());
  std::vector<value_type> got_values(contents.values.size());
  WARPDEX_CUDA_TRY(cudaMemcpy(got_keys.data(), contents.keys.data(), got_keys.size() * sizeof(Key),
                              cudaMemcpyDeviceToHost));
  WARPDEX_CUDA_TRY(cudaMemcpy(got_values.data(), contents.values.data(), got_values.size() * sizeof(value_type),
                              cudaMemcpyDeviceToHost));
  bool verified = got_keys.size() == last.size();
  std::uint64_t i = 0;
  for (const auto& [key, value] : last) {
    if (!verified) { break; }
    verified = got_keys[i] == key && got_values[i] == value;
    ++i;
  }
  ctx.add(make_row(name, n, ms, "Gpairs/s", "cub::DeviceRadixSort::SortPairs of each batch (the sorted array's sort)",
                   baseline_ms, 2.0 * (sizeof(Key) + sizeof(value_type)), verified));
}

/// Lookups, counts and ranges on 63 batches of 2^20 (six occupied levels) against the sorted array.
void run_queries(context& ctx)
{
  const std::string prefix_present = "lsm/lookup_present/";
  const std::string prefix_absent = "lsm/lookup_absent/";
  const bool any = ctx.selected(prefix_present + "q=" + power(query_log2)) ||
                   ctx.selected(prefix_absent + "q=" + power(query_log2)) || ctx.selected("lsm/count/L=8") ||
                   ctx.selected("lsm/range/L=8") || ctx.selected("lsm/count/L=1024") ||
                   ctx.selected("lsm/range/L=1024");
  if (!any) { return; }
  const std::uint64_t batch = std::uint64_t{1} << query_batch_log2;
  const std::uint64_t resident = (std::uint64_t{1} << resident_log2) - batch;
  const pairs input = generate_pairs(resident, seed);
  map_type map(cuda{}, lsm_options{batch, 0.0});
  sorted_array sorted(backend_choice::cuda, resident);
  for (std::uint64_t offset = 0; offset < resident; offset += batch) {
    map.insert(input.keys.span().subspan(offset, batch), input.values.span().subspan(offset, batch));
  }
  sorted.insert(cuda{}, input.keys.data(), input.values.data(), resident);
  const std::string shape =
      "q=" + power(query_log2) + "/n=" + std::to_string(resident) + "/levels=" + std::to_string(map.occupied_levels());

  const std::uint64_t q = std::uint64_t{1} << query_log2;
  auto queries = make_device_buffer<key_type>(q);
  auto values = make_device_buffer<value_type>(q);
  auto found = make_device_buffer<std::uint8_t>(q);
  auto baseline_values = make_device_buffer<value_type>(q);
  auto baseline_found = make_device_buffer<std::uint8_t>(q);
  for (const double absent : {0.0, 1.0}) {
    const std::string name = (absent == 0.0 ? prefix_present : prefix_absent) + shape;
    if (!ctx.selected(name)) { continue; }
    generate_queries(cuda{}, key_set<key_type>{resident, seed}, absent, seed + 7, queries.span());
    const double ms = ctx.median_ms(nullptr, [&] { map.lookup(queries.span(), values.span(), found.span()); });
    const double baseline_ms = ctx.median_ms(nullptr, [&] {
      thrust::for_each(thrust::cuda::par, thrust::counting_iterator<std::uint64_t>(0),
                       thrust::counting_iterator<std::uint64_t>(q),
                       sorted_lookup{sorted.keys(), sorted.values(), resident, queries.data(), baseline_values.data(),
                                     baseline_found.data()});
    });
    const auto hits = thrust::count(thrust::cuda::par, found.data(), found.data() + q, std::uint8_t{1});
    const bool verified = thrust::equal(thrust::cuda::par, found.data(), found.data() + q, baseline_found.data()) &&
                          thrust::equal(thrust::cuda::par, values.data(), values.data() + q, baseline_values.data()) &&
                          static_cast<std::uint64_t>(hits) == (absent == 0.0 ? q : 0);
    ctx.add(make_row(name, q, ms, "Gqueries/s", "binary search on the sorted array", baseline_ms,
                     sizeof(key_type) + sizeof(value_type) + 1, verified));
  }

  // Average gap between the 2^26 shuffled 32-bit keys: 2^32 / resident; a width of L gaps holds ~L keys.
  const std::uint64_t gap = (std::uint64_t{1} << 32) / resident;
  bool index_reported = false;  // only the first count after the inserts builds the index
  for (const auto& [length, queries_log2] : {std::pair{short_range_length, short_range_queries_log2},
                                             std::pair{long_range_length, long_range_queries_log2}}) {
    const std::string count_name = "lsm/count/L=" + std::to_string(length) + "/q=" + power(queries_log2);
    const std::string range_name = "lsm/range/L=" + std::to_string(length) + "/q=" + power(queries_log2);
    if (!ctx.selected(count_name) && !ctx.selected(range_name)) { continue; }
    const std::uint64_t range_queries = std::uint64_t{1} << queries_log2;
    auto lower = make_device_buffer<key_type>(range_queries);
    auto upper = make_device_buffer<key_type>(range_queries);
    generate_keys(cuda{}, key_set<key_type>{range_queries, seed + length}, lower.span());
    thrust::transform(thrust::cuda::par, lower.data(), lower.data() + range_queries, upper.data(),
                      add_width{length * gap});
    auto counts = make_device_buffer<std::uint64_t>(range_queries);
    auto baseline_offsets = make_device_buffer<std::uint64_t>(range_queries + 1);
    const auto count_baseline = [&] {
      thrust::for_each(thrust::cuda::par, thrust::counting_iterator<std::uint64_t>(0),
                       thrust::counting_iterator<std::uint64_t>(range_queries),
                       sorted_count{sorted.keys(), resident, lower.data(), upper.data(), baseline_offsets.data()});
    };
    // The first count after the inserts builds the liveness index; its time is a row of its own.
    const double index_ms = timed_ms([&] { map.count(lower.span(), upper.span(), counts.span()); });
    if (!index_reported) {
      index_reported = true;
      row index_row = make_row("lsm/count/liveness_index/n=" + std::to_string(resident), resident, index_ms,
                               "Gentries/s", "", index_ms, 0, true);
      index_row.baseline_value.reset();  // the build of the index has no baseline; it is reported for honesty
      ctx.add(std::move(index_row));
    }
    if (ctx.selected(count_name)) {
      const double ms = ctx.median_ms(nullptr, [&] { map.count(lower.span(), upper.span(), counts.span()); });
      const double baseline_ms = ctx.median_ms(nullptr, count_baseline);
      const bool verified =
          thrust::equal(thrust::cuda::par, counts.data(), counts.data() + range_queries, baseline_offsets.data());
      ctx.add(make_row(count_name, range_queries, ms, "Gqueries/s", "two binary searches on the sorted array",
                       baseline_ms, 2 * sizeof(key_type) + sizeof(std::uint64_t), verified));
    }
    if (ctx.selected(range_name)) {
      std::uint64_t total = 0;
      buffer<key_type> baseline_keys;
      buffer<value_type> baseline_range_values;
      const auto range_baseline = [&] {
        count_baseline();
        thrust::fill(thrust::cuda::par, baseline_offsets.data() + range_queries,
                     baseline_offsets.data() + range_queries + 1, std::uint64_t{0});
        thrust::exclusive_scan(thrust::cuda::par, baseline_offsets.data(), baseline_offsets.data() + range_queries + 1,
                               baseline_offsets.data());
        total = read_one(baseline_offsets.data() + range_queries);
        baseline_keys = make_device_buffer<key_type>(total);
        baseline_range_values = make_device_buffer<value_type>(total);
        thrust::for_each(
            thrust::cuda::par, thrust::counting_iterator<std::uint64_t>(0),
            thrust::counting_iterator<std::uint64_t>(range_queries),
            sorted_range_copy{sorted.keys(), sorted.values(), resident, lower.data(), baseline_offsets.data(),
                              baseline_keys.data(), baseline_range_values.data()});
      };
      lsm_range_result<key_type, value_type> result;
      const double ms = ctx.median_ms(nullptr, [&] { result = map.range(lower.span(), upper.span()); });
      const double baseline_ms = ctx.median_ms(nullptr, range_baseline);
      const bool verified =
          result.keys.size() == total &&
          thrust::equal(thrust::cuda::par, result.offsets.data(), result.offsets.data() + range_queries + 1,
                        baseline_offsets.data()) &&
          thrust::equal(thrust::cuda::par, result.keys.data(), result.keys.data() + total, baseline_keys.data()) &&
          thrust::equal(thrust::cuda::par, result.values.data(), result.values.data() + total,
                        baseline_range_values.data());
      ctx.add(make_row(range_name, range_queries, ms, "Gqueries/s",
                       "sorted array: two binary searches, scan, copy of each range", baseline_ms,
                       2 * sizeof(key_type) + static_cast<double>(length) * pair_bytes, verified));
    }
  }
}

/// Cleanup of a bulk-built 2^25 plus 15 batches of 2^20 that erase or overwrite resident keys (five
/// levels, a quarter of the resident entries stale or tombstones), against a bulk build of the live pairs.
void run_cleanup(context& ctx)
{
  constexpr std::uint32_t base_log2 = resident_log2 - 1;
  const std::string name = "lsm/cleanup/n=" + power(base_log2) + "+15x" + power(query_batch_log2);
  if (!ctx.selected(name)) { return; }
  const std::uint64_t base = std::uint64_t{1} << base_log2;
  const std::uint64_t batch = std::uint64_t{1} << query_batch_log2;
  constexpr int update_batches = 15;
  const pairs input = generate_pairs(base, seed);
  auto erase_operations = make_device_buffer<lsm_operation>(batch);
  thrust::fill(thrust::cuda::par, erase_operations.data(), erase_operations.data() + batch, lsm_operation::erase);
  map_type map(cuda{}, lsm_options{batch, 0.0});
  const auto prepare = [&] {
    map.bulk_build(input.keys.span(), input.values.span());
    for (int b = 0; b < update_batches; ++b) {
      const auto keys = input.keys.span().subspan(static_cast<std::uint64_t>(b) * batch, batch);
      if (b % 2 == 0) {
        map.erase(keys);
      } else {
        map.insert(keys, input.values.span().subspan(0, batch));  // overwrite with other values
      }
    }
  };
  std::vector<double> times;
  for (int repetition = 0; repetition < ctx.opts().warmup + ctx.opts().repetitions; ++repetition) {
    prepare();
    const double ms = timed_ms([&] { map.cleanup(); });
    if (repetition >= ctx.opts().warmup) { times.push_back(ms); }
  }
  std::sort(times.begin(), times.end());
  const double ms = times[times.size() / 2];
  const std::uint64_t resident_before = base + update_batches * batch;
  const auto live = map.retrieve_all();
  const bool clean = map.resident_tombstones() == 0 && map.resident_entries() == map.size() &&
                     map.size() == base - (update_batches + 1) / 2 * batch;
  // Rebuild from scratch: a bulk build of the same number of live pairs, unsorted.
  const pairs rebuild_input = generate_pairs(map.size(), seed + 3);
  map_type rebuilt(cuda{}, lsm_options{batch, 0.0});
  const double baseline_ms =
      ctx.median_ms(nullptr, [&] { rebuilt.bulk_build(rebuild_input.keys.span(), rebuild_input.values.span()); });
  // The ratio is rebuild time / cleanup time; both are expressed per resident entry before the cleanup.
  ctx.add(make_row(name, resident_before, ms, "Gentries/s", "lsm_map::bulk_build of the live pairs (rebuild)",
                   baseline_ms, 2 * pair_bytes, clean && live.keys.size() == map.size()));
}

/// Batches a small-batch run inserts into an emptied map (levels 0 .. 5 fill and merge along the way).
constexpr std::uint64_t small_batches = 64;

/// Whether two maps hold the same live pairs.
bool same_contents(const map_type& map, const map_type& other)
{
  if (map.size() != other.size()) { return false; }
  const auto mine = map.retrieve_all();
  const auto theirs = other.retrieve_all();
  const std::uint64_t n = map.size();
  return thrust::equal(thrust::cuda::par, mine.keys.data(), mine.keys.data() + n, theirs.keys.data()) &&
         thrust::equal(thrust::cuda::par, mine.values.data(), mine.values.data() + n, theirs.values.data());
}

/// The LSM's small batches (issue 44): small_batches batches of 2^batch_log2 distinct keys inserted into a
/// map emptied before every run (untimed), per batch, on a stream of their own: the synchronous insert and
/// insert_async, each waited for after every batch (waited) or queued back to back with one wait (queued),
/// and insert_async replayed from a graph captured from the queued loop (graph). Each row stands next to
/// its floor in the same run: one device copy of the batch's keys, waited for, queued, or in a graph.
void run_small_batches(context& ctx, std::uint32_t batch_log2)
{
  const std::string prefix = "lsm/small/b=" + power(batch_log2) + "/";
  const std::vector<std::string> names = {prefix + "insert/waited", prefix + "insert_async/waited",
                                          prefix + "insert/queued", prefix + "insert_async/queued",
                                          prefix + "insert_async/graph"};
  if (std::none_of(names.begin(), names.end(), [&](const std::string& name) { return ctx.selected(name); })) {
    return;
  }
  const std::uint64_t batch = std::uint64_t{1} << batch_log2;
  const pairs input = generate_pairs(batch * small_batches, seed + 100 + batch_log2);
  WARPDEX_CUDA_TRY(cudaDeviceSynchronize());  // generated on the legacy default stream
  const owned_stream own;
  const cuda on{own.get()};
  map_type sync_map(on, lsm_options{batch, 0.0});
  map_type async_map(on, lsm_options{batch, 0.0});
  async_map.reserve_async(small_batches);
  auto copied = make_buffer<key_type>(on, batch);
  const auto keys_of = [&](std::uint64_t i) { return input.keys.span().subspan(i * batch, batch); };
  const auto values_of = [&](std::uint64_t i) { return input.values.span().subspan(i * batch, batch); };
  const std::function<void(std::uint64_t)> insert = [&](std::uint64_t i) { sync_map.insert(keys_of(i), values_of(i)); };
  const std::function<void(std::uint64_t)> insert_async = [&](std::uint64_t i) {
    async_map.insert_async(keys_of(i), values_of(i));
  };
  const std::function<void(std::uint64_t)> copy = [&](std::uint64_t i) {
    detail::copy_device_bytes(copied.data(), input.keys.data() + i * batch, batch * sizeof(key_type), own.get());
  };
  const auto queued = [&](const std::function<void(std::uint64_t)>& call) {
    return [&] {
      for (std::uint64_t i = 0; i < small_batches; ++i) { call(i); }
      on.synchronize();
    };
  };
  const auto waited = [&](const std::function<void(std::uint64_t)>& call) {
    return [&] {
      for (std::uint64_t i = 0; i < small_batches; ++i) {
        call(i);
        on.synchronize();
      }
    };
  };
  const auto per_batch_ms = [&](const std::function<void()>& prepare, const std::function<void()>& work) {
    return warpdex::median_ms(on, ctx.timing(), work, prepare) / static_cast<double>(small_batches);
  };
  const std::function<void()> clear_sync = [&] { sync_map.clear(); };
  const std::function<void()> clear_async = [&] { async_map.clear(); };
  const std::function<void()> nothing;
  const captured_graph insert_graph(own.get(), [&] {
    for (std::uint64_t i = 0; i < small_batches; ++i) { insert_async(i); }
  });
  const captured_graph copy_graph(own.get(), [&] {
    for (std::uint64_t i = 0; i < small_batches; ++i) { copy(i); }
  });
  const double floor_waited_ms = per_batch_ms(nothing, waited(copy));
  const double floor_queued_ms = per_batch_ms(nothing, queued(copy));
  const double floor_graph_ms = per_batch_ms(nothing, [&] {
    copy_graph.launch(own.get());
    on.synchronize();
  });
  // The reference contents: every batch inserted synchronously.
  const double insert_waited_ms = per_batch_ms(clear_sync, waited(insert));
  const bool sync_right = sync_map.size() == batch * small_batches;
  const double insert_queued_ms = per_batch_ms(clear_sync, queued(insert));
  const bool queued_right = sync_map.size() == batch * small_batches;
  const double async_waited_ms = per_batch_ms(clear_async, waited(insert_async));
  const bool async_waited_right = same_contents(async_map, sync_map);
  const double async_queued_ms = per_batch_ms(clear_async, queued(insert_async));
  const bool async_queued_right = same_contents(async_map, sync_map);
  const double graph_ms = per_batch_ms(clear_async, [&] {
    insert_graph.launch(own.get());
    on.synchronize();
  });
  const bool graph_right = same_contents(async_map, sync_map);
  const std::string waited_floor = "device copy of the batch's keys, waited for (floor)";
  const std::string queued_floor = "device copy of the batch's keys, queued (floor)";
  const std::string graph_floor = "device copy of the batch's keys, in a graph (floor)";
  const auto add = [&](std::size_t which, double ms, const std::string& floor_name, double floor_ms, bool right) {
    if (!ctx.selected(names[which])) { return; }
    row r = make_row(names[which], batch, ms, "Gpairs/s", floor_name, floor_ms, 0.0, right);
    r.metrics = {{"us_per_batch", ms * 1000.0},
                 {"floor_us_per_batch", floor_ms * 1000.0},
                 {"floor_fraction", floor_ms / ms},
                 {"graph_nodes", static_cast<double>(insert_graph.node_count()) / small_batches}};
    ctx.add(std::move(r));
  };
  add(0, insert_waited_ms, waited_floor, floor_waited_ms, sync_right);
  add(1, async_waited_ms, waited_floor, floor_waited_ms, async_waited_right);
  add(2, insert_queued_ms, queued_floor, floor_queued_ms, queued_right);
  add(3, async_queued_ms, queued_floor, floor_queued_ms, async_queued_right);
  add(4, graph_ms, graph_floor, floor_graph_ms, graph_right);
}

}  // namespace

void run_lsm(context& ctx)
{
  const std::uint64_t n = std::uint64_t{1} << resident_log2;
  run_build(ctx, n);
  if (ctx.selected("lsm/insert/b=" + power(16) + "/n=" + power(resident_log2))) { report_host_costs(std::uint64_t{1} << 16); }
  for (const std::uint32_t batch_log2 : {16u, 18u, 20u}) { run_insert(ctx, n, batch_log2); }
  run_insert_against_sort<key_type>(ctx, "lsm/insert/b=" + power(16) + "/n=" + power(22) + "/hot=50%", 50);
  run_insert_against_sort<std::uint64_t>(ctx, "lsm/insert/keys64/b=" + power(16) + "/n=" + power(22), 0);
  run_queries(ctx);
  run_cleanup(ctx);
  for (const std::uint32_t batch_log2 : {10u, 14u}) { run_small_batches(ctx, batch_log2); }
}

}  // namespace warpdex::bench
