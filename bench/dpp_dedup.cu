// Duplicate search (dpp/duplicates.hpp) on the GPU, next to CUB in the same process on the same data:
//   dedup/hash/<type>/n=<n>/dup=<f>    elements occurring once, by hash fighting
//   dedup/sort/<type>/n=<n>/dup=<f>    elements occurring once, by sorting
//   dedup/once_partitioned/u32/n=<n>/dup=<f>  elements occurring once, by the partitioned engine
//   dedup/unique/<type>/n=<n>/dup=<f>  distinct elements (ascending)
//   dedup/counts/<type>/n=<n>/dup=<f>  distinct elements with counts and first positions (ascending)
//   dedup/counts_only/<type>/n=<n>/dup=<f>  distinct elements with counts (ascending), no first positions:
//                                           the baseline's work
//   (unique and counts_only run the sort method by name, as they always measured)
//   dedup/unique_partitioned/u32/..., dedup/counts_only_partitioned/u32/...  the same by the partitioned engine
//   dedup/<method>/u32/n=<n>/zipf=1.1  unique, counts_only and their partitioned rows on Zipf-repeated keys
//                                      (exponent 1.1 over 2^24 distinct keys), against the same baselines
//   dedup/group_by_sum/<type>/n=<n>/dup=<f>  dpp::group_by (include/warpdex/dpp/group_by.hpp), sums of int64
//                                      values by key, ascending, against cub::DeviceRadixSort::SortPairs +
//                                      cub::DeviceReduce::ReduceByKey on the same pairs (u32 and u64)
// Baselines: cub::DeviceRadixSort::SortKeys + cub::DeviceRunLengthEncode::Encode (unique elements and
// counts, from which the once-elements follow) for once / counts rows, SortKeys + cub::DeviceSelect::Unique
// for unique rows; for tuples (no radix sort of 12-byte keys in CUB) thrust::sort + thrust::reduce_by_key.
// Types: u32 at n (duplicate fractions 0, 0.5, 0.99), u64 and tri (uint32x3, a triangle face) at n / 2.
#include "benchmarks.hpp"
#include "dpp_benchmarks.hpp"
#include "throughput_row.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/dpp/duplicates.hpp>
#include <warpdex/dpp/group_by.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/count.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

namespace warpdex::bench {
namespace {

using dpp::uint32x3;

constexpr std::uint64_t data_seed = 0xdedddedd;

template <class Element>
const char* type_name()
{
  if constexpr (std::is_same_v<Element, std::uint32_t>) { return "u32"; }
  if constexpr (std::is_same_v<Element, std::uint64_t>) { return "u64"; }
  return "tri";
}

/// The input's label in a row name: "dup=<fraction>", or "zipf=<exponent>" for Zipf-repeated keys.
struct input_label {
  const char* kind;
  double value;
  [[nodiscard]] std::string text() const
  {
    char number[16];
    std::snprintf(number, sizeof(number), "%g", value);
    return std::string(kind) + "=" + number;
  }
};

std::string row_name(const char* method, const char* type, std::uint64_t n, const input_label& label)
{
  return std::string("dedup/") + method + "/" + type + "/n=" + std::to_string(n) + "/" + label.text();
}

constexpr double zipf_exponent = 1.1;
constexpr std::uint64_t zipf_pool = std::uint64_t{1} << 24;

/// A triangle face from a 32-bit key: injective (word 0 is the key), the other words vary with it.
struct face_of_key {
  __host__ __device__ uint32x3 operator()(std::uint32_t key) const
  {
    return uint32x3{{key, fmix32(key ^ 0x9e3779b9U), fmix32(key + 0x7f4a7c15U)}};
  }
};

struct count_is_one {
  __host__ __device__ bool operator()(std::uint32_t count) const { return count == 1; }
};

/// The baseline's distinct elements and counts of `in` (sorted copy in `sorted`).
template <class Element>
struct baseline_runs {
  explicit baseline_runs(std::uint64_t n)
      : sorted(make_device_buffer<Element>(n)),
        unique(make_device_buffer<Element>(n)),
        counts(make_device_buffer<std::uint32_t>(n)),
        run_count(make_device_buffer<std::uint64_t>(1))
  {
  }
  buffer<Element> sorted;
  buffer<Element> unique;
  buffer<std::uint32_t> counts;
  buffer<std::uint64_t> run_count;
  buffer<std::uint8_t> temp;
  std::size_t temp_bytes = 0;
};

/// One baseline pass: sort, then run-length encode (`with_counts`) or select unique.
template <class Element>
void baseline_pass(const Element* in, std::uint64_t n, baseline_runs<Element>& runs, bool with_counts)
{
  if constexpr (std::is_integral_v<Element>) {
    std::size_t sort_bytes = 0;
    std::size_t second_bytes = 0;
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, in, runs.sorted.data(), n));
    if (with_counts) {
      WARPDEX_CUDA_TRY(cub::DeviceRunLengthEncode::Encode(nullptr, second_bytes, runs.sorted.data(), runs.unique.data(),
                                                          runs.counts.data(), runs.run_count.data(), n));
    } else {
      WARPDEX_CUDA_TRY(cub::DeviceSelect::Unique(nullptr, second_bytes, runs.sorted.data(), runs.unique.data(),
                                                 runs.run_count.data(), n));
    }
    const std::size_t needed = std::max(sort_bytes, second_bytes);
    if (runs.temp_bytes < needed) {
      runs.temp = make_device_buffer<std::uint8_t>(needed);
      runs.temp_bytes = needed;
    }
    sort_bytes = runs.temp_bytes;
    second_bytes = runs.temp_bytes;
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortKeys(runs.temp.data(), sort_bytes, in, runs.sorted.data(), n));
    if (with_counts) {
      WARPDEX_CUDA_TRY(cub::DeviceRunLengthEncode::Encode(runs.temp.data(), second_bytes, runs.sorted.data(),
                                                          runs.unique.data(), runs.counts.data(), runs.run_count.data(),
                                                          n));
    } else {
      WARPDEX_CUDA_TRY(cub::DeviceSelect::Unique(runs.temp.data(), second_bytes, runs.sorted.data(), runs.unique.data(),
                                                 runs.run_count.data(), n));
    }
  } else {
    WARPDEX_CUDA_TRY(cudaMemcpyAsync(runs.sorted.data(), in, n * sizeof(Element), cudaMemcpyDeviceToDevice));
    thrust::sort(thrust::cuda::par_nosync, runs.sorted.data(), runs.sorted.data() + n);
    const auto end =
        thrust::reduce_by_key(thrust::cuda::par, runs.sorted.data(), runs.sorted.data() + n,
                              thrust::constant_iterator<std::uint32_t>(1), runs.unique.data(), runs.counts.data());
    const std::uint64_t count = static_cast<std::uint64_t>(end.first - runs.unique.data());
    WARPDEX_CUDA_TRY(cudaMemcpyAsync(runs.run_count.data(), &count, sizeof(count), cudaMemcpyHostToDevice));
    WARPDEX_CUDA_TRY(cudaStreamSynchronize(nullptr));
  }
}

template <class Element>
const char* baseline_name(bool with_counts)
{
  if constexpr (std::is_integral_v<Element>) {
    return with_counts ? "cub::DeviceRadixSort::SortKeys + cub::DeviceRunLengthEncode::Encode"
                       : "cub::DeviceRadixSort::SortKeys + cub::DeviceSelect::Unique";
  }
  return "thrust::sort (merge sort) + thrust::reduce_by_key";
}

/// Whether any row of this type, size and duplicate fraction is selected.
bool rows_wanted(const context& ctx, const char* type, std::uint64_t n, const input_label& label)
{
  bool any = false;
  for (const char* method : {"hash", "sort", "once_partitioned", "unique", "counts", "counts_only",
                             "unique_partitioned", "counts_only_partitioned", "group_by_sum"}) {
    any = any || ctx.selected(row_name(method, type, n, label));
  }
  return any;
}

template <class Element>
void dedup_rows(context& ctx, const buffer<Element>& input, const input_label& label)
{
  const std::uint64_t n = input.size();
  const char* type = type_name<Element>();
  const cuda backend{};
  const std::span<const Element> in(input.data(), n);
  baseline_runs<Element> runs(n);
  const double rle_ms = ctx.median_ms(nullptr, [&] { baseline_pass(input.data(), n, runs, true); });
  const std::uint64_t distinct = runs.run_count.to_vector()[0];
  const auto once_count = static_cast<std::uint64_t>(
      thrust::count_if(thrust::cuda::par, runs.counts.data(), runs.counts.data() + distinct, count_is_one{}));
  const double streamed = 2.0 * sizeof(Element);  // read each element, write it (or less) once

  auto add = [&](const char* method, double ms, double baseline_ms, bool with_counts, bool verified) {
    ctx.add(throughput_row(row_name(method, type, n, label), n, ms, "Gelements/s", baseline_name<Element>(with_counts),
                           baseline_ms, streamed, verified));
  };

  for (const auto method :
       {dpp::duplicate_method::hash_fight, dpp::duplicate_method::sort, dpp::duplicate_method::partitioned}) {
    const char* name = method == dpp::duplicate_method::hash_fight ? "hash"
                       : method == dpp::duplicate_method::sort     ? "sort"
                                                                   : "once_partitioned";
    if (!ctx.selected(row_name(name, type, n, label))) { continue; }
    if (method == dpp::duplicate_method::partitioned && !std::is_same_v<Element, std::uint32_t>) { continue; }
    buffer<Element> once;
    const double ms = ctx.median_ms(nullptr, [&] {
      once = {};  // the previous result's memory back first
      once = dpp::elements_occurring_once(backend, in, method);
    });
    add(name, ms, rle_ms, true, once.size() == once_count);
  }
  struct count_row {
    const char* name;
    dpp::count_outputs outputs;
    dpp::duplicate_method method;
  };
  for (const auto& [name, outputs, method] :
       {count_row{"counts", dpp::count_outputs::with_first_positions, dpp::duplicate_method::sort},
        count_row{"counts_only", dpp::count_outputs::counts_only, dpp::duplicate_method::sort},
        count_row{"counts_only_partitioned", dpp::count_outputs::counts_only, dpp::duplicate_method::partitioned}}) {
    if (!ctx.selected(row_name(name, type, n, label))) { continue; }
    if (method == dpp::duplicate_method::partitioned && !std::is_same_v<Element, std::uint32_t>) { continue; }
    dpp::element_counts<Element> counted;
    const double ms = ctx.median_ms(nullptr, [&] {
      counted = {};  // the previous result's memory back before the next count
      counted = dpp::count_elements(backend, in, dpp::element_order::ascending, outputs, method);
    });
    bool verified =
        counted.elements.size() == distinct &&
        thrust::equal(thrust::cuda::par, counted.elements.data(), counted.elements.data() + distinct,
                      runs.unique.data()) &&
        thrust::equal(thrust::cuda::par, counted.counts.data(), counted.counts.data() + distinct, runs.counts.data());
    add(name, ms, rle_ms, true, verified);
  }
  const bool any_unique =
      ctx.selected(row_name("unique", type, n, label)) || ctx.selected(row_name("unique_partitioned", type, n, label));
  if (any_unique) {
    const double unique_ms = ctx.median_ms(nullptr, [&] { baseline_pass(input.data(), n, runs, false); });
    for (const auto method : {dpp::duplicate_method::sort, dpp::duplicate_method::partitioned}) {
      const char* name = method == dpp::duplicate_method::sort ? "unique" : "unique_partitioned";
      if (!ctx.selected(row_name(name, type, n, label))) { continue; }
      if (method == dpp::duplicate_method::partitioned && !std::is_same_v<Element, std::uint32_t>) { continue; }
      buffer<Element> unique;
      const double ms = ctx.median_ms(nullptr, [&] {
        unique = {};
        unique = dpp::unique_elements(backend, in, dpp::element_order::ascending, method);
      });
      const bool verified = unique.size() == distinct && thrust::equal(thrust::cuda::par, unique.data(),
                                                                       unique.data() + distinct, runs.unique.data());
      add(name, ms, unique_ms, false, verified);
    }
  }
}

/// A key's value for the group-by rows: in [-1000, 1000], a function of the key.
template <class Element>
struct value_of_key {
  __host__ __device__ std::int64_t operator()(Element key) const
  {
    return static_cast<std::int64_t>(fmix64(static_cast<std::uint64_t>(key)) % 2001) - 1000;
  }
};

/// dpp::group_by's sums next to CUB's SortPairs + ReduceByKey on the same pairs (integer keys).
template <class Element>
void group_by_row(context& ctx, const buffer<Element>& input, const input_label& label)
{
  const std::uint64_t n = input.size();
  const std::string name = row_name("group_by_sum", type_name<Element>(), n, label);
  if (!ctx.selected(name)) { return; }
  auto values = make_device_buffer<std::int64_t>(n);
  thrust::transform(thrust::cuda::par, input.data(), input.data() + n, values.data(), value_of_key<Element>{});
  auto sorted_keys = make_device_buffer<Element>(n);
  auto sorted_values = make_device_buffer<std::int64_t>(n);
  auto unique = make_device_buffer<Element>(n);
  auto sums = make_device_buffer<std::int64_t>(n);
  auto run_count = make_device_buffer<std::uint64_t>(1);
  buffer<std::uint8_t> temp;
  std::size_t temp_bytes = 0;
  const auto baseline = [&](void* storage, std::size_t& sort_bytes, std::size_t& reduce_bytes) {
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(storage, sort_bytes, input.data(), sorted_keys.data(),
                                                     values.data(), sorted_values.data(), n));
    WARPDEX_CUDA_TRY(cub::DeviceReduce::ReduceByKey(storage, reduce_bytes, sorted_keys.data(), unique.data(),
                                                    sorted_values.data(), sums.data(), run_count.data(),
                                                    thrust::plus<std::int64_t>(), n));
  };
  const double baseline_ms = ctx.median_ms(nullptr, [&] {
    std::size_t sort_bytes = 0;
    std::size_t reduce_bytes = 0;
    baseline(nullptr, sort_bytes, reduce_bytes);
    if (temp_bytes < std::max(sort_bytes, reduce_bytes)) {
      temp_bytes = std::max(sort_bytes, reduce_bytes);
      temp = make_device_buffer<std::uint8_t>(temp_bytes);
    }
    sort_bytes = temp_bytes;
    reduce_bytes = temp_bytes;
    baseline(temp.data(), sort_bytes, reduce_bytes);
  });
  const std::uint64_t distinct = run_count.to_vector()[0];
  const cuda backend{};
  dpp::key_groups<Element, std::int64_t> grouped;
  const double ms = ctx.median_ms(nullptr, [&] {
    grouped = {};  // the previous result's memory back first
    grouped = dpp::group_by(backend, std::span<const Element>(input.data(), n),
                            std::span<const std::int64_t>(values.data(), n), dpp::group_reduction::sum);
  });
  const bool verified =
      grouped.keys.size() == distinct &&
      thrust::equal(thrust::cuda::par, grouped.keys.data(), grouped.keys.data() + distinct, unique.data()) &&
      thrust::equal(thrust::cuda::par, grouped.values.data(), grouped.values.data() + distinct, sums.data());
  // Each pair read, sorted and reduced: the key and the value read and written once at the least.
  const double streamed = 2.0 * (sizeof(Element) + sizeof(std::int64_t));
  ctx.add(throughput_row(name, n, ms, "Gpairs/s",
                         "cub::DeviceRadixSort::SortPairs + cub::DeviceReduce::ReduceByKey (sum)", baseline_ms,
                         streamed, verified));
}

}  // namespace

void run_dpp_dedup(context& ctx)
{
  const std::uint64_t n = ctx.n();
  const cuda backend{};
  for (const double dup : {0.0, 0.5, 0.99}) {
    const input_label label{"dup", dup};
    if (!rows_wanted(ctx, "u32", n, label)) { continue; }
    auto keys = make_device_buffer<std::uint32_t>(n);
    generate_keys_with_duplicates(backend, keys.span(), dup, data_seed);
    dedup_rows<std::uint32_t>(ctx, keys, label);
    group_by_row<std::uint32_t>(ctx, keys, label);
  }
  const input_label zipf{"zipf", zipf_exponent};
  if (rows_wanted(ctx, "u32", n, zipf)) {
    auto keys = make_device_buffer<std::uint32_t>(n);
    generate_zipf_keys(backend, key_set<std::uint32_t>{zipf_pool, data_seed}, zipf_exponent, data_seed, keys.span());
    dedup_rows<std::uint32_t>(ctx, keys, zipf);
  }
  const std::uint64_t half = n / 2;
  const input_label half_repeated{"dup", 0.5};
  if (rows_wanted(ctx, "u64", half, half_repeated)) {
    auto keys = make_device_buffer<std::uint64_t>(half);
    generate_keys_with_duplicates(backend, keys.span(), 0.5, data_seed);
    dedup_rows<std::uint64_t>(ctx, keys, half_repeated);
    group_by_row<std::uint64_t>(ctx, keys, half_repeated);
  }
  if (rows_wanted(ctx, "tri", half, half_repeated)) {
    auto keys = make_device_buffer<std::uint32_t>(half);
    generate_keys_with_duplicates(backend, keys.span(), 0.5, data_seed);
    auto faces = make_device_buffer<uint32x3>(half);
    thrust::transform(thrust::cuda::par, keys.data(), keys.data() + half, faces.data(), face_of_key{});
    dedup_rows<uint32x3>(ctx, faces, half_repeated);
  }
}

}  // namespace warpdex::bench
