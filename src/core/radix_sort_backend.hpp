#pragma once
// Sorts from an input array into an output array on either backend: CUB's radix sort on cuda, with no
// copies around it (thrust::sort and thrust::stable_sort_by_key sort in place, so their caller copies
// first: 8 more bytes moved per 4-byte key), and Thrust's OpenMP system on host. Integer keys only.

#include <warpdex/core/detail/thrust_backend.hpp>

#include <thrust/copy.h>
#include <thrust/sort.h>
#if defined(__CUDACC__)
#include <warpdex/core/cuda_check.hpp>

#include <cub/device/device_radix_sort.cuh>
#endif

#include <climits>
#include <cstdint>

namespace warpdex::detail {

#if defined(__CUDACC__)
/// CUB picks its radix sort's tuning by the type of the count. On an H200, with an `int` count the
/// passes over 2^27 pairs took 868 us against 1008 with a 64-bit one, but those over 2^16 pairs 10.2 us
/// against 8.9 (the LSM's insertion rows: b = 2^16 and 2^18 slower with `int`, 2^20 faster). So counts
/// from this many up to 2^31 - 1 reach CUB as `int`.
inline constexpr std::uint64_t int_count_sort_from = std::uint64_t{1} << 20;

/// Whether a sort of `n` items passes CUB an `int` count (int_count_sort_from).
inline bool sorts_with_int_count(std::uint64_t n)
{
  return n >= int_count_sort_from && n <= static_cast<std::uint64_t>(INT_MAX);
}

/// Stable sort of (key, value) pairs by key from the inputs into the outputs.
/// With `scratch`, CUB's temporary storage comes from it (grown when too small) and stays there for the
/// next call: one allocation less per sort, for callers that sort many small batches.
template <class Key, class Value>
void stable_sort_pairs(const cuda& backend, const Key* keys_in, const Value* values_in, Key* keys_out,
                       Value* values_out, std::uint64_t n, buffer<std::uint8_t>* scratch = nullptr)
{
  std::size_t temp_bytes = 0;
  const auto sort = [&](void* temp) {
    constexpr int key_bits = static_cast<int>(sizeof(Key) * CHAR_BIT);
    if (sorts_with_int_count(n)) {
      WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, values_in, values_out,
                                                       static_cast<int>(n), 0, key_bits, backend.stream));
    } else {
      WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, 0,
                                                       key_bits, backend.stream));
    }
  };
  sort(nullptr);
  if (scratch == nullptr) {
    auto temp = make_buffer<std::uint8_t>(backend, temp_bytes);
    sort(temp.data());
    return;
  }
  if (scratch->size() < temp_bytes) { *scratch = make_buffer<std::uint8_t>(backend, temp_bytes); }
  sort(scratch->data());
}

/// Sort of keys from `keys_in` into `keys_out`.
template <class Key>
void sort_keys(const cuda& backend, const Key* keys_in, Key* keys_out, std::uint64_t n)
{
  std::size_t temp_bytes = 0;
  const auto sort = [&](void* temp) {
    constexpr int key_bits = static_cast<int>(sizeof(Key) * CHAR_BIT);
    if (sorts_with_int_count(n)) {
      WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, static_cast<int>(n), 0,
                                                      key_bits, backend.stream));
    } else {
      WARPDEX_CUDA_TRY(
          cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, n, 0, key_bits, backend.stream));
    }
  };
  sort(nullptr);
  auto temp = make_buffer<std::uint8_t>(backend, temp_bytes);
  sort(temp.data());
}
#else
template <class Key, class Value>
void stable_sort_pairs(const host& backend, const Key* keys_in, const Value* values_in, Key* keys_out,
                       Value* values_out, std::uint64_t n, buffer<std::uint8_t>* /*scratch*/ = nullptr)
{
  thrust::copy(policy(backend), keys_in, keys_in + n, keys_out);
  thrust::copy(policy(backend), values_in, values_in + n, values_out);
  thrust::stable_sort_by_key(policy(backend), keys_out, keys_out + n, values_out);
}

template <class Key>
void sort_keys(const host& backend, const Key* keys_in, Key* keys_out, std::uint64_t n)
{
  thrust::copy(policy(backend), keys_in, keys_in + n, keys_out);
  thrust::sort(policy(backend), keys_out, keys_out + n);
}
#endif

}  // namespace warpdex::detail
