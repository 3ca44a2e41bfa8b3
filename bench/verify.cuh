#pragma once
// Device-side checks benchmarks run on their own outputs, so a row is `verified` only when it was.

#include <warpdex/core/hash.hpp>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>

#include <cstdint>

namespace warpdex::bench {

/// A multiset fingerprint: the sum of mixed values, equal for any two permutations of the same values.
template <class T>
struct mixed_value {
  __host__ __device__ std::uint64_t operator()(T value) const { return fmix64(static_cast<std::uint64_t>(value)); }
};

template <class T>
std::uint64_t multiset_fingerprint(const T* values, std::uint64_t n, stream_t stream)
{
  return thrust::transform_reduce(thrust::cuda::par.on(stream), values, values + n, mixed_value<T>{}, std::uint64_t{0},
                                  thrust::plus<std::uint64_t>{});
}

/// Whether `sorted` is in ascending order and holds the same multiset as `original`.
template <class T>
bool is_sorted_permutation(const T* original, const T* sorted, std::uint64_t n, stream_t stream)
{
  return thrust::is_sorted(thrust::cuda::par.on(stream), sorted, sorted + n) &&
         multiset_fingerprint(original, n, stream) == multiset_fingerprint(sorted, n, stream);
}

/// For pairs sorted by key whose values were the input positions: the number of outputs i whose value is
/// not the position of an input with key sorted_keys[i].
template <class Key>
struct pair_mismatch {
  const Key* original_keys;
  const Key* sorted_keys;
  const std::uint32_t* sorted_positions;
  __host__ __device__ std::uint64_t operator()(std::uint64_t i) const
  {
    return original_keys[sorted_positions[i]] == sorted_keys[i] ? 0 : 1;
  }
};

/// Whether pairs (key, input position) were sorted correctly: keys ascending and a permutation of the
/// input keys, positions a permutation of [0, n), and every position pointing at an input of its key.
template <class Key>
bool is_sorted_pair_permutation(const Key* original_keys, const Key* sorted_keys, const std::uint32_t* positions,
                                std::uint64_t n, stream_t stream)
{
  if (!is_sorted_permutation(original_keys, sorted_keys, n, stream)) { return false; }
  const auto first = thrust::counting_iterator<std::uint64_t>(0);
  std::uint64_t identity_fingerprint =
      thrust::transform_reduce(thrust::cuda::par.on(stream), first, first + n, mixed_value<std::uint64_t>{},
                               std::uint64_t{0}, thrust::plus<std::uint64_t>{});
  if (multiset_fingerprint(positions, n, stream) != identity_fingerprint) { return false; }
  const std::uint64_t mismatches = thrust::transform_reduce(thrust::cuda::par.on(stream), first, first + n,
                                                            pair_mismatch<Key>{original_keys, sorted_keys, positions},
                                                            std::uint64_t{0}, thrust::plus<std::uint64_t>{});
  return mismatches == 0;
}

}  // namespace warpdex::bench
