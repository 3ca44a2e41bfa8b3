// The host baselines: the standard library, sorting in libstdc++'s parallel mode (OpenMP threads).
#include "baselines.hpp"

#include <warpdex/core/error.hpp>

#include <omp.h>
#include <parallel/algorithm>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_map>
#include <vector>

namespace warpdex::baselines {
namespace {

std::string threads_text()
{
  return std::to_string(omp_get_max_threads()) + " threads";
}

void check_sizes(std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                 std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out)
{
  WARPDEX_EXPECTS(keys_out.size() == keys_in.size() && values_out.size() == values_in.size() &&
                      (values_in.empty() || values_in.size() == keys_in.size()),
                  "baseline: the output spans must match the inputs");
}

/// Stable sort by `bucket(key)`: keys alone, or (key, value) pairs through an order of positions.
template <class Bucket>
void stable_sort_by(std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                    std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out, Bucket bucket,
                    scratch& temp)
{
  check_sizes(keys_in, keys_out, values_in, values_out);
  if (values_in.empty()) {
    std::memcpy(keys_out.data(), keys_in.data(), keys_in.size_bytes());
    __gnu_parallel::stable_sort(keys_out.begin(), keys_out.end(),
                                [&](std::uint32_t a, std::uint32_t b) { return bucket(a) < bucket(b); });
    return;
  }
  // Pairs: sort 64-bit (key, value) records by the key's bucket, then unzip.
  const std::size_t n = keys_in.size();
  if (temp.size() < n * sizeof(std::uint64_t)) {
    temp = buffer<std::uint8_t>(n * sizeof(std::uint64_t), host_resource());
  }
  auto* records = reinterpret_cast<std::uint64_t*>(temp.data());
#pragma omp parallel for
  for (std::size_t i = 0; i < n; ++i) { records[i] = (std::uint64_t{keys_in[i]} << 32) | values_in[i]; }
  __gnu_parallel::stable_sort(records, records + n, [&](std::uint64_t a, std::uint64_t b) {
    return bucket(static_cast<std::uint32_t>(a >> 32)) < bucket(static_cast<std::uint32_t>(b >> 32));
  });
#pragma omp parallel for
  for (std::size_t i = 0; i < n; ++i) {
    keys_out[i] = static_cast<std::uint32_t>(records[i] >> 32);
    values_out[i] = static_cast<std::uint32_t>(records[i]);
  }
}

}  // namespace

void sort_by_bits(const host&, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                  std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out, int begin_bit,
                  int end_bit, scratch& temp)
{
  WARPDEX_EXPECTS(0 <= begin_bit && begin_bit < end_bit && end_bit <= 32, "sort_by_bits: bits must lie in [0, 32)");
  const int width = end_bit - begin_bit;
  const std::uint32_t mask = width == 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << width) - 1;
  stable_sort_by(
      keys_in, keys_out, values_in, values_out, [=](std::uint32_t key) { return (key >> begin_bit) & mask; }, temp);
}

std::string sort_by_bits_name(backend_choice backend, bool pairs, int begin_bit, int end_bit)
{
  const std::string bits = "bits[" + std::to_string(begin_bit) + "," + std::to_string(end_bit) + ")";
  if (backend == backend_choice::cuda) {
    return std::string("cub::DeviceRadixSort::") + (pairs ? "SortPairs" : "SortKeys") + " " + bits;
  }
  return "std::stable_sort by " + bits + " (libstdc++ parallel mode, " + threads_text() + ")";
}

void sort_by_bucket(const host&, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                    std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out,
                    const delta_buckets& identifier, scratch& temp)
{
  stable_sort_by(keys_in, keys_out, values_in, values_out, identifier, temp);
}

void sort_by_bucket(const host&, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                    std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out,
                    const splitter_buckets<std::uint32_t>& identifier, scratch& temp)
{
  stable_sort_by(keys_in, keys_out, values_in, values_out, identifier, temp);
}

std::string sort_by_bucket_name(backend_choice backend)
{
  if (backend == backend_choice::cuda) { return "label + cub SortPairs over ceil(log2 m) bits"; }
  return "std::stable_sort by bucket (libstdc++ parallel mode, " + threads_text() + ")";
}

void lower_bound(const host&, std::span<const std::uint32_t> sorted_keys, std::span<const std::uint32_t> queries,
                 std::span<std::uint64_t> positions)
{
  WARPDEX_EXPECTS(positions.size() == queries.size(), "lower_bound: one position per query");
  const auto q = static_cast<std::int64_t>(queries.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < q; ++i) {
    positions[i] = static_cast<std::uint64_t>(std::lower_bound(sorted_keys.begin(), sorted_keys.end(), queries[i]) -
                                              sorted_keys.begin());
  }
}

std::string lower_bound_name(backend_choice backend)
{
  if (backend == backend_choice::cuda) { return "thrust::lower_bound, same keys and queries"; }
  return "std::lower_bound per query (" + threads_text() + ")";
}

sorted_array_map::sorted_array_map(backend_choice backend, std::uint64_t capacity)
{
  const auto allocate = [&] {
#if WARPDEX_HAS_CUDA
    if (backend == backend_choice::cuda) { return make_device_buffer<std::uint32_t>(capacity); }
#endif
    (void)backend;
    return buffer<std::uint32_t>(capacity, host_resource());
  };
  keys_ = allocate();
  values_ = allocate();
  spare_keys_ = allocate();
  spare_values_ = allocate();
}

sorted_array_map::~sorted_array_map() = default;

void sorted_array_map::insert(const host&, const std::uint32_t* keys, const std::uint32_t* values, std::uint64_t n)
{
  WARPDEX_EXPECTS(size_ + n <= keys_.size(), "sorted_array_map: more keys than its capacity");
  // The batch as 64-bit (key, value) records, sorted by key, merged with the resident pairs.
  if (temp_.size() < n * sizeof(std::uint64_t)) {
    temp_ = buffer<std::uint8_t>(n * sizeof(std::uint64_t), host_resource());
  }
  auto* records = reinterpret_cast<std::uint64_t*>(temp_.data());
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for
  for (std::int64_t i = 0; i < count; ++i) { records[i] = (std::uint64_t{keys[i]} << 32) | values[i]; }
  __gnu_parallel::sort(records, records + n);
  const std::uint32_t* old_keys = keys_.data();
  const std::uint32_t* old_values = values_.data();
  std::uint32_t* new_keys = spare_keys_.data();
  std::uint32_t* new_values = spare_values_.data();
  std::uint64_t from_batch = 0;
  std::uint64_t from_array = 0;
  for (std::uint64_t out = 0; out < size_ + n; ++out) {
    const bool take_batch =
        from_array == size_ ||
        (from_batch < n && static_cast<std::uint32_t>(records[from_batch] >> 32) < old_keys[from_array]);
    if (take_batch) {
      new_keys[out] = static_cast<std::uint32_t>(records[from_batch] >> 32);
      new_values[out] = static_cast<std::uint32_t>(records[from_batch]);
      ++from_batch;
    } else {
      new_keys[out] = old_keys[from_array];
      new_values[out] = old_values[from_array];
      ++from_array;
    }
  }
  keys_.swap(spare_keys_);
  values_.swap(spare_values_);
  size_ += n;
}

std::string sorted_array_map::name(backend_choice backend)
{
  if (backend == backend_choice::cuda) { return "sorted array: CUB SortPairs of each batch + thrust::merge_by_key"; }
  return "sorted array: parallel sort of each batch (" + threads_text() + ") + merge";
}

struct unordered_map_baseline::table {
  std::unordered_map<std::uint32_t, std::uint32_t> map;
};

unordered_map_baseline::unordered_map_baseline(std::uint64_t keys) : table_(new table)
{
  table_->map.reserve(keys);
}

unordered_map_baseline::~unordered_map_baseline()
{
  delete table_;
}

void unordered_map_baseline::clear()
{
  table_->map.clear();
}

void unordered_map_baseline::apply(const host&, std::span<const hash::operation> ops, hash::operation uniform,
                                   std::span<const std::uint32_t> keys, std::span<const std::uint32_t> values,
                                   std::span<std::uint32_t> values_out, std::span<hash::operation_status> statuses)
{
  using hash::operation;
  using hash::operation_status;
  WARPDEX_EXPECTS(
      uniform != operation::insert_or_assign &&
          std::none_of(ops.begin(), ops.end(), [](operation op) { return op == operation::insert_or_assign; }),
      "unordered_map_baseline: insert_or_assign is not part of the baseline's batches");
  auto& map = table_->map;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const operation op = ops.empty() ? uniform : ops[i];
    operation_status status = operation_status::not_found;
    if (op == operation::insert) {
      status = map.emplace(keys[i], values.empty() ? 0 : values[i]).second ? operation_status::inserted
                                                                           : operation_status::already_present;
    } else if (op == operation::erase) {
      status = map.erase(keys[i]) == 1 ? operation_status::erased : operation_status::not_found;
    } else if (const auto found = map.find(keys[i]); found != map.end()) {
      status = operation_status::found;
      if (!values_out.empty()) { values_out[i] = found->second; }
    }
    if (!statuses.empty()) { statuses[i] = status; }
  }
}

std::string unordered_map_baseline::name()
{
  return "std::unordered_map, one thread";
}

}  // namespace warpdex::baselines
