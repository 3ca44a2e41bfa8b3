// The generators' cross-check: the cuda backend's output equals the host backend's, element for element,
// which is what lets tests and benchmarks build inputs and oracles on either side.
#include "generate_test_support.hpp"
#include "support/backend_fixture.hpp"

#include <warpdex/core/generate.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#if WARPDEX_HAS_CUDA

namespace {

using warpdex::key_order;
using warpdex::key_set;
using warpdex::testing::describe;
using warpdex::testing::generate_checked;

class generators_agree_across_backends : public warpdex::testing::cuda_test {};

/// Runs `generate(backend, out)` on both backends and expects identical output.
template <class Key, class Generate>
void expect_same_output(std::size_t size, Generate&& generate)
{
  const warpdex::host host;
  const warpdex::cuda cuda;
  const std::vector<Key> on_host = generate_checked<Key>(host, size, [&](std::span<Key> out) { generate(host, out); });
  const std::vector<Key> on_device =
      generate_checked<Key>(cuda, size, [&](std::span<Key> out) { generate(cuda, out); });
  ASSERT_EQ(on_device.size(), on_host.size());
  const auto [device_value, host_value] = std::mismatch(on_device.begin(), on_device.end(), on_host.begin());
  if (device_value != on_device.end()) {
    const auto differing = std::inner_product(on_device.begin(), on_device.end(), on_host.begin(), std::size_t{0},
                                              std::plus<>(), std::not_equal_to<>());
    ADD_FAILURE() << differing << " of " << size << " elements differ; the first at index "
                  << device_value - on_device.begin() << ": cuda " << *device_value << ", host " << *host_value;
  }
}

/// Sets of both orders over full and tight key ranges, and sizes that are no multiple of a block. Each
/// leaves room for absent queries.
template <class Key>
std::vector<key_set<Key>> sets_to_compare()
{
  constexpr Key max_key = std::numeric_limits<Key>::max();
  return {{1 << 20, 1, key_order::shuffled, max_key}, {100003, 2, key_order::shuffled, 100100},
          {4097, 3, key_order::shuffled, 1 << 13},    {1 << 20, 4, key_order::sorted, max_key},
          {100003, 5, key_order::sorted, 250000},     {1, 6, key_order::sorted, max_key}};
}

template <class Key>
void expect_keys_agree()
{
  std::vector<key_set<Key>> sets = sets_to_compare<Key>();
  sets.push_back({100003, 12, key_order::shuffled, 100002});  // the whole key range: a permutation
  for (const key_set<Key>& set : sets) {
    SCOPED_TRACE(describe(set));
    expect_same_output<Key>(
        set.size, [&](const auto& backend, std::span<Key> out) { warpdex::generate_keys(backend, set, out); });
  }
}

TEST_F(generators_agree_across_backends, generate_keys)
{
  expect_keys_agree<std::uint32_t>();
  expect_keys_agree<std::uint64_t>();
}

template <class Key>
void expect_duplicates_agree()
{
  for (const double fraction : {0.0, 0.3, 0.99, 1.0}) {
    for (const Key max_key : {std::numeric_limits<Key>::max(), Key{2000000}}) {
      SCOPED_TRACE("duplicate fraction " + std::to_string(fraction) + ", max key " + std::to_string(max_key));
      expect_same_output<Key>(1000003, [&](const auto& backend, std::span<Key> out) {
        warpdex::generate_keys_with_duplicates(backend, out, fraction, 7, max_key);
      });
    }
  }
}

TEST_F(generators_agree_across_backends, generate_keys_with_duplicates)
{
  expect_duplicates_agree<std::uint32_t>();
  expect_duplicates_agree<std::uint64_t>();
}

template <class Key>
void expect_zipf_agree()
{
  // Exponent 1 takes the logarithmic branch of the inverse CDF; the others the power branch.
  for (const double exponent : {0.0, 0.5, 1.0, 1.25, 3.0}) {
    for (const key_set<Key>& pool :
         {key_set<Key>{1 << 16, 8, key_order::shuffled}, key_set<Key>{1000, 9, key_order::sorted}}) {
      SCOPED_TRACE("exponent " + std::to_string(exponent) + ", pool: " + describe(pool));
      expect_same_output<Key>(1 << 20, [&](const auto& backend, std::span<Key> out) {
        warpdex::generate_zipf_keys(backend, pool, exponent, 10, out);
      });
    }
  }
}

TEST_F(generators_agree_across_backends, generate_zipf_keys)
{
  expect_zipf_agree<std::uint32_t>();
  expect_zipf_agree<std::uint64_t>();
}

template <class Key>
void expect_queries_agree()
{
  for (const key_set<Key>& set : sets_to_compare<Key>()) {
    for (const double absent_fraction : {0.0, 0.5, 1.0}) {
      SCOPED_TRACE("absent fraction " + std::to_string(absent_fraction) + ", set: " + describe(set));
      expect_same_output<Key>(300007, [&](const auto& backend, std::span<Key> out) {
        warpdex::generate_queries(backend, set, absent_fraction, 11, out);
      });
    }
  }
}

TEST_F(generators_agree_across_backends, generate_queries)
{
  expect_queries_agree<std::uint32_t>();
  expect_queries_agree<std::uint64_t>();
}

}  // namespace

#endif  // WARPDEX_HAS_CUDA
