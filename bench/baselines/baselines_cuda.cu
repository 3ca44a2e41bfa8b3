// The cuda baselines: CUB and Thrust calls on the default stream.
#include "baselines.hpp"

#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/split/warp_multisplit.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/merge.h>

#include <algorithm>
#include <bit>

namespace warpdex::baselines {
namespace {

constexpr unsigned block_threads = 256;

using hash::operation;
using hash::operation_status;

constexpr std::uint64_t open_empty = ~std::uint64_t{0};
constexpr std::uint32_t open_erased_key = hash::erased_key;

struct open_table {
  unsigned long long* slots;
  std::uint64_t mask;  // slot count - 1 (a power of two)
};

__device__ std::uint64_t open_home(const open_table& table, std::uint32_t key)
{
  return fmix32(key) & table.mask;
}

/// One element of a batch on the baseline table; returns its status as the slab table would.
__device__ operation_status open_apply(const open_table& table, operation op, std::uint32_t key, std::uint32_t value,
                                       std::uint32_t& found_value)
{
  for (std::uint64_t at = open_home(table, key);; at = (at + 1) & table.mask) {
    unsigned long long seen = __ldcg(table.slots + at);
    const auto seen_key = static_cast<std::uint32_t>(seen);
    if (seen_key == key) {
      if (op == operation::find) {
        found_value = static_cast<std::uint32_t>(seen >> 32);
        return operation_status::found;
      }
      if (op == operation::erase) {
        const unsigned long long erased = (seen & 0xffffffff00000000ULL) | open_erased_key;
        return atomicCAS(table.slots + at, seen, erased) == seen ? operation_status::erased
                                                                 : operation_status::not_found;
      }
      return operation_status::already_present;
    }
    if (seen == open_empty) {
      if (op != operation::insert) { return operation_status::not_found; }
      const unsigned long long pair = (static_cast<unsigned long long>(value) << 32) | key;
      seen = atomicCAS(table.slots + at, open_empty, pair);
      if (seen == open_empty) { return operation_status::inserted; }
      if (static_cast<std::uint32_t>(seen) == key) { return operation_status::already_present; }
    }
  }
}

__global__ void open_batch(open_table table, const operation* ops, operation uniform, const std::uint32_t* keys,
                           const std::uint32_t* values, std::uint32_t* values_out, operation_status* statuses,
                           std::uint64_t n)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  std::uint32_t found_value = 0;
  const operation op = ops != nullptr ? ops[i] : uniform;
  const operation_status status = open_apply(table, op, keys[i], values != nullptr ? values[i] : 0, found_value);
  if (status == operation_status::found && values_out != nullptr) { values_out[i] = found_value; }
  if (statuses != nullptr) { statuses[i] = status; }
}

void reserve(scratch& temp, std::size_t bytes)
{
  if (temp.size() < bytes) { temp = make_device_buffer<std::uint8_t>(bytes); }
}

unsigned blocks_for(std::uint64_t n)
{
  return static_cast<unsigned>((n + block_threads - 1) / block_threads);
}

template <class Identifier>
__global__ void label_kernel(const std::uint32_t* keys, std::uint64_t n, Identifier identifier, std::uint32_t* labels)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) { labels[i] = identifier(keys[i]); }
}

__global__ void pack_kernel(const std::uint32_t* keys, const std::uint32_t* values, std::uint64_t n,
                            std::uint64_t* packed)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) { packed[i] = (std::uint64_t{keys[i]} << 32) | values[i]; }
}

__global__ void unpack_kernel(const std::uint64_t* packed, std::uint64_t n, std::uint32_t* keys, std::uint32_t* values)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    keys[i] = static_cast<std::uint32_t>(packed[i] >> 32);
    values[i] = static_cast<std::uint32_t>(packed[i]);
  }
}

/// Scratch layout of the reduced-bit sort: labels, sorted labels, (pairs) packed records in and out,
/// then CUB's temporary storage, each part aligned to 256 bytes.
constexpr std::size_t aligned(std::size_t bytes)
{
  return (bytes + 255) / 256 * 256;
}

template <class Identifier>
void reduced_bit_sort(std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                      std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out,
                      const Identifier& identifier, scratch& temp)
{
  const std::uint64_t n = keys_in.size();
  const bool pairs = !values_in.empty();
  WARPDEX_EXPECTS(keys_out.size() == n && values_out.size() == values_in.size() && (!pairs || values_in.size() == n),
                  "baseline: the output spans must match the inputs");
  const int bits = detail::bucket_id_bits(identifier.bucket_count());
  const std::size_t label_bytes = aligned(n * sizeof(std::uint32_t));
  const std::size_t packed_bytes = pairs ? aligned(n * sizeof(std::uint64_t)) : 0;
  std::uint32_t* labels = nullptr;
  std::uint32_t* labels_out = nullptr;
  std::uint64_t* packed_in = nullptr;
  std::uint64_t* packed_out = nullptr;
  std::size_t cub_bytes = 0;
  if (pairs) {
    WARPDEX_CUDA_TRY(
        cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, labels, labels_out, packed_in, packed_out, n, 0, bits));
  } else {
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, labels, labels_out, keys_in.data(),
                                                     keys_out.data(), n, 0, bits));
  }
  reserve(temp, 2 * label_bytes + 2 * packed_bytes + cub_bytes);
  std::uint8_t* base = temp.data();
  labels = reinterpret_cast<std::uint32_t*>(base);
  labels_out = reinterpret_cast<std::uint32_t*>(base + label_bytes);
  packed_in = reinterpret_cast<std::uint64_t*>(base + 2 * label_bytes);
  packed_out = reinterpret_cast<std::uint64_t*>(base + 2 * label_bytes + packed_bytes);
  void* cub_temp = base + 2 * label_bytes + 2 * packed_bytes;
  label_kernel<<<blocks_for(n), block_threads>>>(keys_in.data(), n, identifier, labels);
  WARPDEX_CHECK_LAUNCH("label_kernel");
  if (pairs) {
    pack_kernel<<<blocks_for(n), block_threads>>>(keys_in.data(), values_in.data(), n, packed_in);
    WARPDEX_CHECK_LAUNCH("pack_kernel");
    WARPDEX_CUDA_TRY(
        cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, labels, labels_out, packed_in, packed_out, n, 0, bits));
    unpack_kernel<<<blocks_for(n), block_threads>>>(packed_out, n, keys_out.data(), values_out.data());
    WARPDEX_CHECK_LAUNCH("unpack_kernel");
  } else {
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, labels, labels_out, keys_in.data(),
                                                     keys_out.data(), n, 0, bits));
  }
}

}  // namespace

void sort_by_bits(const cuda&, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                  std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out, int begin_bit,
                  int end_bit, scratch& temp)
{
  const std::uint64_t n = keys_in.size();
  WARPDEX_EXPECTS(
      keys_out.size() == n && values_out.size() == values_in.size() && (values_in.empty() || values_in.size() == n),
      "sort_by_bits: the output spans must match the inputs");
  std::size_t bytes = 0;
  if (values_in.empty()) {
    WARPDEX_CUDA_TRY(
        cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys_in.data(), keys_out.data(), n, begin_bit, end_bit));
    reserve(temp, bytes);
    WARPDEX_CUDA_TRY(
        cub::DeviceRadixSort::SortKeys(temp.data(), bytes, keys_in.data(), keys_out.data(), n, begin_bit, end_bit));
  } else {
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in.data(), keys_out.data(), values_in.data(),
                                                     values_out.data(), n, begin_bit, end_bit));
    reserve(temp, bytes);
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, keys_in.data(), keys_out.data(),
                                                     values_in.data(), values_out.data(), n, begin_bit, end_bit));
  }
}

void sort_by_bucket(const cuda&, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                    std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out,
                    const delta_buckets& identifier, scratch& temp)
{
  reduced_bit_sort(keys_in, keys_out, values_in, values_out, identifier, temp);
}

void sort_by_bucket(const cuda&, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                    std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out,
                    const splitter_buckets<std::uint32_t>& identifier, scratch& temp)
{
  reduced_bit_sort(keys_in, keys_out, values_in, values_out, identifier, temp);
}

open_addressing_map::open_addressing_map(std::uint64_t keys)
    : slots_(make_device_buffer<unsigned long long>(std::bit_ceil(std::max<std::uint64_t>(2 * keys, 2))))
{
  clear();
}

void open_addressing_map::clear()
{
  WARPDEX_CUDA_TRY(cudaMemsetAsync(slots_.data(), 0xff, slots_.size_bytes()));
}

void open_addressing_map::apply(const cuda& backend, std::span<const operation> ops, operation uniform,
                                std::span<const std::uint32_t> keys, std::span<const std::uint32_t> values,
                                std::span<std::uint32_t> values_out, std::span<operation_status> statuses)
{
  const std::uint64_t n = keys.size();
  if (n == 0) { return; }
  const open_table table{slots_.data(), slots_.size() - 1};
  open_batch<<<blocks_for(n), block_threads, 0, backend.stream>>>(
      table, ops.empty() ? nullptr : ops.data(), uniform, keys.data(), values.empty() ? nullptr : values.data(),
      values_out.empty() ? nullptr : values_out.data(), statuses.empty() ? nullptr : statuses.data(), n);
  WARPDEX_CHECK_LAUNCH("open_batch");
}

std::string open_addressing_map::name()
{
  return "open-addressing linear probing, 1 thread/key, load factor 0.5";
}

void sorted_array_map::insert(const cuda&, const std::uint32_t* keys, const std::uint32_t* values, std::uint64_t n)
{
  WARPDEX_EXPECTS(size_ + n <= keys_.size(), "sorted_array_map: more keys than its capacity");
  if (batch_keys_.size() < n) {
    batch_keys_ = make_device_buffer<std::uint32_t>(n);
    batch_values_ = make_device_buffer<std::uint32_t>(n);
  }
  std::size_t temp_bytes = 0;
  WARPDEX_CUDA_TRY(
      cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, batch_keys_.data(), values, batch_values_.data(), n));
  reserve(temp_, temp_bytes);
  WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp_.data(), temp_bytes, keys, batch_keys_.data(), values,
                                                   batch_values_.data(), n));
  thrust::merge_by_key(thrust::cuda::par, batch_keys_.data(), batch_keys_.data() + n, keys_.data(),
                       keys_.data() + size_, batch_values_.data(), values_.data(), spare_keys_.data(),
                       spare_values_.data());
  keys_.swap(spare_keys_);
  values_.swap(spare_values_);
  size_ += n;
}

void lower_bound(const cuda&, std::span<const std::uint32_t> sorted_keys, std::span<const std::uint32_t> queries,
                 std::span<std::uint64_t> positions)
{
  WARPDEX_EXPECTS(positions.size() == queries.size(), "lower_bound: one position per query");
  thrust::lower_bound(thrust::cuda::par, sorted_keys.data(), sorted_keys.data() + sorted_keys.size(), queries.data(),
                      queries.data() + queries.size(), positions.data());
}

}  // namespace warpdex::baselines
