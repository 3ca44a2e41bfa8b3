#pragma once
// Test support for the multisplit family: inputs of several bucket distributions, the stable-partition
// oracle (a stable sort of input positions by bucket id) and the radix sort's (positions stably sorted
// by key).

#include <warpdex/split/bucket_identifiers.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace warpdex::testing {

/// How the keys of a generated input spread over the buckets.
enum class bucket_spread {
  uniform,        ///< every bucket equally likely
  one_bucket,     ///< all keys in one bucket
  binomial,       ///< bucket ~ Binomial(m - 1, 1/2): most keys in the middle buckets
  quarter_skewed  ///< a quarter of the keys uniform over all buckets, the rest in one bucket
};

inline const char* spread_name(bucket_spread spread)
{
  switch (spread) {
    case bucket_spread::uniform:
      return "uniform";
    case bucket_spread::one_bucket:
      return "one_bucket";
    case bucket_spread::binomial:
      return "binomial";
    case bucket_spread::quarter_skewed:
      return "quarter_skewed";
  }
  return "?";
}

/// n bucket ids in [0, m) drawn with `spread`.
inline std::vector<std::uint32_t> draw_buckets(std::uint64_t n, std::uint32_t m, bucket_spread spread,
                                               std::mt19937_64& random)
{
  std::uniform_int_distribution<std::uint32_t> any_bucket(0, m - 1);
  std::binomial_distribution<std::uint32_t> middle_bucket(m - 1, 0.5);
  std::bernoulli_distribution quarter(0.25);
  const std::uint32_t favourite = any_bucket(random);
  std::vector<std::uint32_t> buckets(n);
  for (auto& bucket : buckets) {
    switch (spread) {
      case bucket_spread::uniform:
        bucket = any_bucket(random);
        break;
      case bucket_spread::one_bucket:
        bucket = favourite;
        break;
      case bucket_spread::binomial:
        bucket = middle_bucket(random);
        break;
      case bucket_spread::quarter_skewed:
        bucket = quarter(random) ? any_bucket(random) : favourite;
        break;
    }
  }
  return buckets;
}

/// What a stable multisplit must produce, from the bucket id of every input key.
template <class Key, class Value>
struct expected_split {
  std::vector<Key> keys;
  std::vector<Value> values;
  std::vector<std::uint64_t> offsets;
};

template <class Key, class Value>
expected_split<Key, Value> stable_split_oracle(const std::vector<Key>& keys, const std::vector<Value>& values,
                                               const std::vector<std::uint32_t>& ids, std::uint32_t m)
{
  std::vector<std::uint64_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return ids[a] < ids[b]; });
  expected_split<Key, Value> expected;
  for (const std::uint64_t i : order) {
    expected.keys.push_back(keys[i]);
    if (!values.empty()) { expected.values.push_back(values[i]); }
  }
  expected.offsets.assign(m, 0);
  for (const std::uint32_t id : ids) {
    if (id + 1 < m) { ++expected.offsets[id + 1]; }
  }
  std::partial_sum(expected.offsets.begin(), expected.offsets.end(), expected.offsets.begin());
  return expected;
}

/// The positions 0 .. n - 1 stably sorted by their keys.
template <class Key>
std::vector<std::uint32_t> stable_order(const std::vector<Key>& keys, sort_order order = sort_order::ascending)
{
  std::vector<std::uint32_t> positions(keys.size());
  std::iota(positions.begin(), positions.end(), std::uint32_t{0});
  std::stable_sort(positions.begin(), positions.end(), [&](std::uint32_t a, std::uint32_t b) {
    return order == sort_order::ascending ? keys[a] < keys[b] : keys[a] > keys[b];
  });
  return positions;
}

/// values[positions[0]], values[positions[1]], ...
template <class T>
std::vector<T> gather(const std::vector<T>& values, const std::vector<std::uint32_t>& positions)
{
  std::vector<T> result(positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) { result[i] = values[positions[i]]; }
  return result;
}

}  // namespace warpdex::testing
