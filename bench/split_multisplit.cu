// Multisplit rows: multisplit/<keys|pairs>/<bits|delta|splitters>/m=<m> (bit fields with m <= 256: one
// row per algorithm, suffixed /three_pass and /single_pass, and /warp_tiles up to m = 32; every identifier
// with 4 to 32 buckets: the same four; m <= 3 with every identifier: also /partition and /warp_tiles; every m <= 256:
// also /async, the asynchronous entry with the offsets left in device memory; every m > 256: suffixed /super_bucket and
// /reduced_bit_sort next to the default row), each next to its CUB baseline on the same keys in the same process:
// - bits: cub::DeviceRadixSort over the same bits (a bit-range radix sort is a stable multisplit);
// - delta, splitters: the reduced-bit sort (label every key, then SortPairs of (label, key) over
//   ceil(log2 m) bits; pairs carry key and value packed in 64 bits);
// - delta with m = 2 and m = 3, keys: cub::DevicePartition::If (2-way, 3-way).
// A synchronous row next to a CUB sort has as baseline CUB allocating its temporary storage in each call
// (the metric baseline_preallocated: the storage allocated once); the /async rows keep the preallocated one.
#include "benchmarks.hpp"
#include "baselines.hpp"
#include "verify.cuh"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/split/detail/multisplit_kernels.cuh>
#include <warpdex/split/detail/multisplit_partition.cuh>
#include <warpdex/split/detail/multisplit_warp_tiles.cuh>
#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/warp_multisplit.cuh>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/transform_reduce.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::bench {
namespace {

using key32 = std::uint32_t;
using value32 = std::uint32_t;

/// The multisplit's traffic with m <= 256: read the keys to count, read them again and write them
/// (12 bytes per key); pairs read and write the values once more (20 bytes per pair).
constexpr double key_split_bytes = 3 * sizeof(key32);
constexpr double pair_split_bytes = key_split_bytes + 2 * sizeof(value32);
constexpr std::uint64_t bench_seed = 0x5eed5917;

/// Output positions i where the multisplit is wrong: the bucket decreases, or (pairs, whose values are
/// input positions) the key is not the input key of its value, or equal buckets do not keep input order.
template <class Identifier>
struct split_error {
  const key32* keys_in;
  const key32* keys_out;
  const value32* positions;  // null for keys only
  Identifier identifier;
  __device__ std::uint64_t operator()(std::uint64_t i) const
  {
    const std::uint32_t bucket = identifier(keys_out[i]);
    if (positions != nullptr && keys_in[positions[i]] != keys_out[i]) { return 1; }
    if (i == 0) { return 0; }
    const std::uint32_t previous = identifier(keys_out[i - 1]);
    if (previous > bucket) { return 1; }
    return positions != nullptr && previous == bucket && positions[i - 1] >= positions[i] ? 1 : 0;
  }
};

template <class Identifier>
bool is_stable_split(const key32* keys_in, const key32* keys_out, const value32* positions, std::uint64_t n,
                     const Identifier& identifier)
{
  const auto first = thrust::counting_iterator<std::uint64_t>(0);
  const std::uint64_t errors = thrust::transform_reduce(
      thrust::cuda::par, first, first + n, split_error<Identifier>{keys_in, keys_out, positions, identifier},
      std::uint64_t{0}, thrust::plus<std::uint64_t>{});
  if (errors != 0 || multiset_fingerprint(keys_in, n, nullptr) != multiset_fingerprint(keys_out, n, nullptr)) {
    return false;
  }
  if (positions == nullptr) { return true; }
  const std::uint64_t identity =
      thrust::transform_reduce(thrust::cuda::par, first, first + n, mixed_value<std::uint64_t>{}, std::uint64_t{0},
                               thrust::plus<std::uint64_t>{});
  return multiset_fingerprint(positions, n, nullptr) == identity;
}

/// Device buffers of one benchmark input: keys, positions as values, outputs, scratch for baselines.
struct split_data {
  std::uint64_t n;
  buffer<key32> keys_in, keys_out;
  buffer<value32> values_in, values_out;
  buffer<std::uint32_t> labels, labels_out;  // the partition baseline's counts and third part
  baselines::scratch temp;

  explicit split_data(std::uint64_t size)
      : n(size),
        keys_in(make_device_buffer<key32>(size)),
        keys_out(make_device_buffer<key32>(size)),
        values_in(make_device_buffer<value32>(size)),
        values_out(make_device_buffer<value32>(size))
  {
    thrust::sequence(thrust::cuda::par, values_in.data(), values_in.data() + n);  // value = input position
  }

  /// Keys spread uniformly over [0, max_key] (distinct, shuffled).
  void generate(key32 max_key)
  {
    generate_keys(cuda{}, key_set<key32>{n, bench_seed, key_order::shuffled, max_key}, keys_in.span());
  }

  void reserve_temp(std::size_t bytes)
  {
    if (temp.size() < bytes) { temp = make_device_buffer<std::uint8_t>(bytes); }
  }
};

/// Times one identifier's multisplit (keys or pairs), verifies it, and adds the row with its baseline.
/// `async`: multisplit_async / multisplit_pairs_async with the offsets and the bad-id count left in
/// device memory and one workspace kept across the runs (what a caller that keeps the offsets on the
/// device sees: no synchronization, no allocation); else the synchronous call (offsets on the host).
/// `baseline_can_allocate` (the CUB sorts, which reserve data.temp themselves): a synchronous row's
/// baseline is CUB allocating its temporary storage in each call, as the synchronous call would without
/// the scratch the library keeps (the metric baseline_preallocated: with the storage allocated once).
template <class Identifier, class Baseline>
void add_split_row(context& ctx, split_data& data, const std::string& name, const Identifier& identifier, bool pairs,
                   const std::string& baseline_name, Baseline&& baseline,
                   multisplit_algorithm algorithm = multisplit_algorithm::automatic, bool async = false,
                   bool baseline_can_allocate = false)
{
  const std::uint64_t n = data.n;
  const std::uint32_t m = identifier.bucket_count();
  const cuda backend{};
  auto results = make_device_buffer<std::uint64_t>(std::uint64_t{m} + 2);  // m + 1 offsets, the bad ids
  multisplit_workspace workspace;
  const auto run_async = [&] {
    const std::span<std::uint64_t> offsets = results.span().first(std::uint64_t{m} + 1);
    std::uint64_t* bad_ids = results.data() + m + 1;
    if (pairs) {
      multisplit_pairs_async(backend, std::as_const(data.keys_in).span(), std::as_const(data.values_in).span(),
                             data.keys_out.span(), data.values_out.span(), identifier, offsets, bad_ids, workspace,
                             algorithm);
    } else {
      multisplit_async(backend, std::as_const(data.keys_in).span(), data.keys_out.span(), identifier, offsets, bad_ids,
                       workspace, algorithm);
    }
  };
  const auto run = [&] {
    if (async) {
      run_async();
    } else if (pairs) {
      (void)multisplit_pairs(backend, std::as_const(data.keys_in).span(), std::as_const(data.values_in).span(),
                             data.keys_out.span(), data.values_out.span(), identifier, algorithm);
    } else {
      (void)multisplit(backend, std::as_const(data.keys_in).span(), data.keys_out.span(), identifier, algorithm);
    }
  };
  const double ms = ctx.median_ms(nullptr, run);
  bool offsets_right = true;
  if (async) {  // the device offsets of the last run against the synchronous call's
    const auto device_results = results.to_vector();
    auto reference_out = make_device_buffer<key32>(n);
    auto expected =
        multisplit(backend, std::as_const(data.keys_in).span(), reference_out.span(), identifier, algorithm);
    expected.push_back(n);
    expected.push_back(0);  // no bad ids
    offsets_right = device_results == expected;
  }
  row r;
  r.name = name;
  r.n = n;
  r.median_ms = ms;
  r.value = static_cast<double>(n) / (ms * 1e6);
  r.unit = pairs ? "Gpairs/s" : "Gkeys/s";
  r.sol_bytes_per_element = pairs ? pair_split_bytes : key_split_bytes;
  r.verified = offsets_right && is_stable_split(data.keys_in.data(), data.keys_out.data(),
                                                pairs ? data.values_out.data() : nullptr, n, identifier);
  const double baseline_ms = ctx.median_ms(nullptr, baseline);
  r.baseline = baseline_name;
  r.baseline_value = static_cast<double>(n) / (baseline_ms * 1e6);
  if (!async && baseline_can_allocate) {
    const double allocating_ms = ctx.median_ms(nullptr, [&] {
      data.temp = baselines::scratch();  // freed on the stream, as a call's own storage would be
      baseline();
    });
    r.metrics.emplace_back("baseline_preallocated", static_cast<double>(n) / (baseline_ms * 1e6));
    r.baseline = baseline_name + " (temporary storage allocated in each call)";
    r.baseline_value = static_cast<double>(n) / (allocating_ms * 1e6);
  }
  ctx.add(std::move(r));
}

/// CUB radix sort over bits [0, bits): keys, or pairs (baselines::sort_by_bits).
auto radix_sort_baseline(split_data& data, int bits, bool pairs)
{
  return [&data, bits, pairs] {
    const std::span<const value32> values_in =
        pairs ? std::as_const(data.values_in).span() : std::span<const value32>{};
    const std::span<value32> values_out = pairs ? data.values_out.span() : std::span<value32>{};
    baselines::sort_by_bits(cuda{}, std::as_const(data.keys_in).span(), data.keys_out.span(), values_in, values_out, 0,
                            bits, data.temp);
  };
}

/// The reduced-bit sort: label, then sort (label, key) pairs (baselines::sort_by_bucket).
template <class Identifier>
auto reduced_bit_sort_baseline(split_data& data, const Identifier& identifier, bool pairs)
{
  return [&data, identifier, pairs] {
    const std::span<const value32> values_in =
        pairs ? std::as_const(data.values_in).span() : std::span<const value32>{};
    const std::span<value32> values_out = pairs ? data.values_out.span() : std::span<value32>{};
    baselines::sort_by_bucket(cuda{}, std::as_const(data.keys_in).span(), data.keys_out.span(), values_in, values_out,
                              identifier, data.temp);
  };
}

struct below {
  key32 bound;
  __host__ __device__ bool operator()(key32 key) const { return key < bound; }
};

/// cub::DevicePartition::If: 2-way for m = 2, 3-way for m = 3, with the delta identifier's bounds.
auto partition_baseline(split_data& data, const delta_buckets& identifier)
{
  const auto n = data.n;
  if (data.labels.size() < n) {  // labels: the selected counts; labels_out: the third part
    data.labels = make_device_buffer<std::uint32_t>(n);
    data.labels_out = make_device_buffer<std::uint32_t>(n);
  }
  const below first{identifier.delta};
  const below second{2 * identifier.delta};
  const bool three_way = identifier.bucket_count() == 3;
  std::size_t bytes = 0;
  const auto partition = [&data, n, first, second, three_way](void* temp, std::size_t& temp_bytes) {
    if (three_way) {
      WARPDEX_CUDA_TRY(cub::DevicePartition::If(temp, temp_bytes, data.keys_in.data(), data.keys_out.data(),
                                                data.values_out.data(), data.labels_out.data(), data.labels.data(), n,
                                                first, second));
    } else {
      WARPDEX_CUDA_TRY(cub::DevicePartition::If(temp, temp_bytes, data.keys_in.data(), data.keys_out.data(),
                                                data.labels.data(), n, first));
    }
  };
  partition(nullptr, bytes);
  data.reserve_temp(bytes);
  return [&data, partition, bytes]() mutable { partition(data.temp.data(), bytes); };
}

struct algorithm_variant {
  multisplit_algorithm algorithm;
  const char* suffix;
  bool async = false;  ///< multisplit_async (offsets left on the device), else the synchronous call
};
/// `automatic` through the asynchronous entry (suffix /async), next to the synchronous row without suffix:
/// every row with m <= 256, where the asynchronous call does not synchronize.
constexpr algorithm_variant automatic_async = {multisplit_algorithm::automatic, "/async", true};
/// The bit-field rows with m <= 256 time what users get (`automatic`, no suffix) and each algorithm of
/// the cuda backend (suffix /three_pass, /single_pass).
const std::vector<algorithm_variant> split_algorithms = {{multisplit_algorithm::automatic, ""},
                                                         automatic_async,
                                                         {multisplit_algorithm::three_pass, "/three_pass"},
                                                         {multisplit_algorithm::single_pass, "/single_pass"}};
/// Every row with m > 256 times `automatic` and both algorithms for many buckets.
const std::vector<algorithm_variant> many_bucket_algorithms = {
    {multisplit_algorithm::automatic, ""},
    {multisplit_algorithm::super_bucket, "/super_bucket"},
    {multisplit_algorithm::reduced_bit_sort, "/reduced_bit_sort"}};
const std::vector<algorithm_variant> automatic_only = {{multisplit_algorithm::automatic, ""}, automatic_async};
/// Up to 3 buckets (every identifier): also the partition (suffix /partition) next to the one-pass
/// algorithms it replaces in `automatic`.
const std::vector<algorithm_variant> few_bucket_algorithms = {{multisplit_algorithm::automatic, ""},
                                                              automatic_async,
                                                              {multisplit_algorithm::three_pass, "/three_pass"},
                                                              {multisplit_algorithm::single_pass, "/single_pass"},
                                                              {multisplit_algorithm::partition, "/partition"},
                                                              {multisplit_algorithm::warp_tiles, "/warp_tiles"}};
/// 4 to 32 buckets, every identifier: also the warp tiles (suffix /warp_tiles).
const std::vector<algorithm_variant> warp_tile_algorithms = {{multisplit_algorithm::automatic, ""},
                                                             automatic_async,
                                                             {multisplit_algorithm::three_pass, "/three_pass"},
                                                             {multisplit_algorithm::single_pass, "/single_pass"},
                                                             {multisplit_algorithm::warp_tiles, "/warp_tiles"}};

/// The variants timed for m buckets (bit fields: every algorithm also for m <= 256).
const std::vector<algorithm_variant>& variants_for(std::uint32_t m, bool bit_field)
{
  if (m > detail::multisplit_direct_max_buckets) { return many_bucket_algorithms; }
  if (m <= detail::partition_max_buckets) { return few_bucket_algorithms; }
  if (m <= detail::warp_tiles_max_buckets) { return warp_tile_algorithms; }
  return bit_field ? split_algorithms : automatic_only;
}

std::string row_name(bool pairs, const char* kind, std::uint32_t m)
{
  return std::string("multisplit/") + (pairs ? "pairs/" : "keys/") + kind + "/m=" + std::to_string(m);
}

}  // namespace

void run_multisplit(context& ctx)
{
  // Nothing is generated unless some row is selected (names as the loops below build them).
  bool any = false;
  for (const bool pairs : {false, true}) {
    for (const char* kind : {"bits", "delta", "splitters"}) {
      for (const std::uint32_t m : {2U, 3U, 4U, 8U, 16U, 32U, 64U, 256U, 1000U, 1024U, 4096U}) {
        for (const char* suffix : {"", "/async", "/three_pass", "/single_pass", "/super_bucket", "/reduced_bit_sort",
                                   "/partition", "/warp_tiles"}) {
          any = any || ctx.selected(row_name(pairs, kind, m) + suffix);
        }
      }
    }
  }
  if (!any) { return; }
  split_data data(ctx.n());
  data.generate(0xffffffffU);
  for (const bool pairs : {false, true}) {
    for (const std::uint32_t bits : {1U, 2U, 3U, 4U, 5U, 6U, 8U, 10U, 12U}) {
      for (const auto& [algorithm, algorithm_name, async] : variants_for(1U << bits, true)) {
        const std::string name = row_name(pairs, "bits", 1U << bits) + algorithm_name;
        if (!ctx.selected(name)) { continue; }
        auto baseline = radix_sort_baseline(data, static_cast<int>(bits), pairs);
        add_split_row(ctx, data, name, bit_field_buckets{0, bits}, pairs,
                      std::string("cub::DeviceRadixSort::") + (pairs ? "SortPairs" : "SortKeys") + " bits[0," +
                          std::to_string(bits) + ")",
                      baseline, algorithm, async, true);
      }
    }
  }
  for (const bool pairs : {false, true}) {
    for (const std::uint32_t m : {2U, 3U, 32U, 256U, 1000U, 4096U}) {
      for (const auto& [algorithm, algorithm_name, async] : variants_for(m, false)) {
        const std::string name = row_name(pairs, "delta", m) + algorithm_name;
        if (!ctx.selected(name)) { continue; }
        const delta_buckets identifier{static_cast<key32>((std::uint64_t{1} << 32) / m), m};
        data.generate(static_cast<key32>(std::uint64_t{identifier.delta} * m - 1));
        if (!pairs && m <= 3) {
          auto baseline = partition_baseline(data, identifier);
          add_split_row(ctx, data, name, identifier, pairs,
                        std::string("cub::DevicePartition::If ") + (m == 2 ? "2-way" : "3-way"), baseline, algorithm,
                        async);
        } else {
          auto baseline = reduced_bit_sort_baseline(data, identifier, pairs);
          add_split_row(ctx, data, name, identifier, pairs, "label + cub SortPairs over ceil(log2 m) bits", baseline,
                        algorithm, async, true);
        }
      }
    }
  }
  data.generate(0xffffffffU);
  for (const bool pairs : {false, true}) {
    for (const std::uint32_t m : {32U, 256U, 1000U, 4096U}) {
      for (const auto& [algorithm, algorithm_name, async] : variants_for(m, false)) {
        const std::string name = row_name(pairs, "splitters", m) + algorithm_name;
        if (!ctx.selected(name)) { continue; }
        const key32 spacing = static_cast<key32>((std::uint64_t{1} << 32) / m);
        std::vector<key32> splitters(m - 1);
        for (std::uint32_t i = 0; i + 1 < m; ++i) { splitters[i] = (i + 1) * spacing; }
        auto stored = make_device_buffer<key32>(splitters.size());
        stored.copy_from(splitters);
        const splitter_buckets<key32> identifier{stored.data(), m - 1};
        auto baseline = reduced_bit_sort_baseline(data, identifier, pairs);
        add_split_row(ctx, data, name, identifier, pairs, "label + cub SortPairs over ceil(log2 m) bits", baseline,
                      algorithm, async, true);
      }
    }
  }
}

}  // namespace warpdex::bench
