// generate_keys, generate_keys_with_duplicates and generate_zipf_keys on every backend, checked against
// what their contracts promise (distinctness, ranges, exact distinct counts, skew).
#include "generate_test_support.hpp"
#include "support/backend_fixture.hpp"

#include <warpdex/core/generate.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using warpdex::key_order;
using warpdex::key_set;
using warpdex::testing::describe;
using warpdex::testing::distinct_count;
using warpdex::testing::generate_checked;
using warpdex::testing::generate_set;

constexpr auto max_u32 = std::numeric_limits<std::uint32_t>::max();
constexpr auto max_u64 = std::numeric_limits<std::uint64_t>::max();

template <class Backend>
class generate_keys_test : public warpdex::testing::backend_test<Backend> {
};
TYPED_TEST_SUITE(generate_keys_test, warpdex::testing::all_backends, warpdex::testing::backend_names);

template <class Key>
bool all_within(const std::vector<Key>& keys, Key max_key)
{
  return std::all_of(keys.begin(), keys.end(), [max_key](Key key) { return key <= max_key; });
}

template <class Key, class Backend>
void expect_distinct_keys_within_range(const Backend& backend, const key_set<Key>& set)
{
  SCOPED_TRACE(describe(set));
  const std::vector<Key> keys = generate_set(backend, set);
  EXPECT_TRUE(all_within(keys, set.max_key));
  EXPECT_EQ(distinct_count(keys), set.size);
}

TYPED_TEST(generate_keys_test, shuffled_keys_are_distinct_and_within_range)
{
  const auto& backend = this->backend();
  expect_distinct_keys_within_range(backend, key_set<std::uint32_t>{1 << 20, 1, key_order::shuffled, max_u32});
  // A domain just above a power of two: most of the permutation's range lies outside it (cycle walking).
  expect_distinct_keys_within_range(backend, key_set<std::uint32_t>{100000, 2, key_order::shuffled, (1U << 17) + 1});
  expect_distinct_keys_within_range(backend, key_set<std::uint32_t>{1000, 3, key_order::shuffled, 4999});
  expect_distinct_keys_within_range(backend, key_set<std::uint64_t>{1 << 18, 4, key_order::shuffled, max_u64});
  expect_distinct_keys_within_range(backend,
                                    key_set<std::uint64_t>{50000, 5, key_order::shuffled, (1ULL << 40) + 12345});
}

template <class Key, class Backend>
void expect_permutation_of_the_domain(const Backend& backend, std::uint64_t size, std::uint64_t seed)
{
  const key_set<Key> set{size, seed, key_order::shuffled, static_cast<Key>(size - 1)};
  SCOPED_TRACE(describe(set));
  const std::vector<Key> keys = generate_set(backend, set);
  std::vector<Key> identity(size);
  std::iota(identity.begin(), identity.end(), Key{0});
  if (size >= 1000) { EXPECT_NE(keys, identity) << "a shuffled set should not come out in order"; }
  std::vector<Key> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, identity);
}

TYPED_TEST(generate_keys_test, shuffled_set_covering_the_whole_domain_is_a_permutation)
{
  for (const std::uint64_t size : {1, 2, 3, 1000, 4096, 65537}) {
    expect_permutation_of_the_domain<std::uint32_t>(this->backend(), size, size + 10);
    expect_permutation_of_the_domain<std::uint64_t>(this->backend(), size, size + 20);
  }
}

template <class Key, class Backend>
void expect_sorted_keys_spread_over_range(const Backend& backend, const key_set<Key>& set)
{
  SCOPED_TRACE(describe(set));
  const std::vector<Key> keys = generate_set(backend, set);
  EXPECT_TRUE(std::adjacent_find(keys.begin(), keys.end(), std::greater_equal<Key>()) == keys.end())
      << "keys do not increase strictly";
  EXPECT_TRUE(all_within(keys, set.max_key));
  if (set.size >= 1000 && set.size <= set.max_key / 100) {
    // A set much smaller than its domain spreads over all of it: the median key sits near the middle.
    const double median_position = static_cast<double>(keys[keys.size() / 2]) / static_cast<double>(set.max_key);
    EXPECT_NEAR(median_position, 0.5, 0.05);
  }
}

TYPED_TEST(generate_keys_test, sorted_keys_increase_strictly_within_range)
{
  const auto& backend = this->backend();
  expect_sorted_keys_spread_over_range(backend, key_set<std::uint32_t>{1 << 20, 6, key_order::sorted, max_u32});
  expect_sorted_keys_spread_over_range(backend, key_set<std::uint32_t>{1000, 7, key_order::sorted, 1999});
  expect_sorted_keys_spread_over_range(backend, key_set<std::uint32_t>{12345, 8, key_order::sorted, 20000});
  expect_sorted_keys_spread_over_range(backend, key_set<std::uint32_t>{3, 9, key_order::sorted, 10});
  expect_sorted_keys_spread_over_range(backend, key_set<std::uint64_t>{1 << 16, 10, key_order::sorted, max_u64});
  expect_sorted_keys_spread_over_range(backend, key_set<std::uint64_t>{77777, 11, key_order::sorted, 1ULL << 35});
  // One key over all 2^64 values: its slot is wider than any 64-bit stride.
  expect_sorted_keys_spread_over_range(backend, key_set<std::uint64_t>{1, 15, key_order::sorted, max_u64});
}

TYPED_TEST(generate_keys_test, sorted_set_covering_the_whole_domain_counts_up)
{
  const key_set<std::uint32_t> set{1000, 12, key_order::sorted, 999};
  std::vector<std::uint32_t> identity(1000);
  std::iota(identity.begin(), identity.end(), 0U);
  EXPECT_EQ(generate_set(this->backend(), set), identity);
}

TYPED_TEST(generate_keys_test, seed_selects_the_set)
{
  for (const key_order order : {key_order::shuffled, key_order::sorted}) {
    const key_set<std::uint32_t> set{10000, 13, order, 1U << 24};
    key_set<std::uint32_t> other_seed = set;
    other_seed.seed = 14;
    SCOPED_TRACE(describe(set));
    const auto keys = generate_set(this->backend(), set);
    EXPECT_EQ(generate_set(this->backend(), set), keys);
    EXPECT_NE(generate_set(this->backend(), other_seed), keys);
  }
}

template <class Key, class Backend>
void expect_exact_distinct_count(const Backend& backend, std::size_t size, double duplicate_fraction,
                                 std::uint64_t seed, Key max_key)
{
  SCOPED_TRACE(std::to_string(size) + " keys, duplicate fraction " + std::to_string(duplicate_fraction) + ", max key " +
               std::to_string(max_key) + ", seed " + std::to_string(seed));
  const std::vector<Key> keys = generate_checked<Key>(backend, size, [&](std::span<Key> out) {
    warpdex::generate_keys_with_duplicates(backend, out, duplicate_fraction, seed, max_key);
  });
  const auto repeats = static_cast<std::size_t>(std::floor(duplicate_fraction * static_cast<double>(size)));
  const std::size_t expected_distinct = std::max<std::size_t>(size - repeats, 1);  // at least one key
  EXPECT_EQ(distinct_count(keys), expected_distinct);
  EXPECT_TRUE(all_within(keys, max_key));
}

TYPED_TEST(generate_keys_test, duplicates_leave_exactly_the_promised_distinct_count)
{
  std::uint64_t seed = 100;
  for (const std::size_t size : {1, 1000, 77777, 1 << 16}) {
    for (const double fraction : {0.0, 0.25, 0.5, 0.99, 1.0}) {
      expect_exact_distinct_count<std::uint32_t>(this->backend(), size, fraction, ++seed, max_u32);
      expect_exact_distinct_count<std::uint64_t>(this->backend(), size, fraction, ++seed, max_u64);
    }
  }
  // A key range barely larger than the distinct count, and one exactly as large.
  expect_exact_distinct_count<std::uint32_t>(this->backend(), 10000, 0.5, ++seed, 5000);
  expect_exact_distinct_count<std::uint32_t>(this->backend(), 10000, 0.0, ++seed, 9999);
  expect_exact_distinct_count<std::uint64_t>(this->backend(), 10000, 0.1, ++seed, 1ULL << 40);
}

/// How often each key of `pool` (by rank: pool.key(r - 1) has rank r) is drawn in `draws` Zipf draws.
template <class Key, class Backend>
std::vector<std::size_t> zipf_draws_per_rank(const Backend& backend, const key_set<Key>& pool, double exponent,
                                             std::uint64_t seed, std::size_t draws)
{
  const std::vector<Key> pool_keys = generate_set(backend, pool);
  std::unordered_map<Key, std::size_t> index_of_key;
  for (std::size_t index = 0; index < pool_keys.size(); ++index) { index_of_key[pool_keys[index]] = index; }
  const std::vector<Key> drawn = generate_checked<Key>(
      backend, draws, [&](std::span<Key> out) { warpdex::generate_zipf_keys(backend, pool, exponent, seed, out); });
  std::vector<std::size_t> counts(pool.size, 0);
  std::size_t outside_pool = 0;
  for (const Key key : drawn) {
    const auto found = index_of_key.find(key);
    if (found == index_of_key.end()) {
      ++outside_pool;
    } else {
      ++counts[found->second];
    }
  }
  EXPECT_EQ(outside_pool, 0U) << "draws must come from the pool";
  return counts;
}

template <class Key, class Backend>
void expect_zipf_skew(const Backend& backend, const key_set<Key>& pool, double exponent, std::uint64_t seed)
{
  SCOPED_TRACE("exponent " + std::to_string(exponent) + ", pool: " + describe(pool));
  const std::vector<std::size_t> counts = zipf_draws_per_rank(backend, pool, exponent, seed, 1 << 18);
  EXPECT_EQ(std::max_element(counts.begin(), counts.end()) - counts.begin(), 0) << "rank 1 must be the most frequent";
  // Frequencies fall with rank. Compare ranks 1, 2, 4, ..., 32, whose expected counts (>= 700 with
  // 2^18 draws) differ by 7 or more standard deviations for every exponent used here.
  for (std::size_t rank = 1; rank < 32; rank *= 2) {
    EXPECT_GT(counts[rank - 1], counts[2 * rank - 1]) << "rank " << rank << " vs rank " << 2 * rank;
  }
}

TYPED_TEST(generate_keys_test, zipf_frequencies_fall_with_rank)
{
  const auto& backend = this->backend();
  expect_zipf_skew(backend, key_set<std::uint32_t>{1000, 200, key_order::shuffled, max_u32}, 1.0, 201);
  expect_zipf_skew(backend, key_set<std::uint32_t>{1000, 202, key_order::sorted, 1U << 20}, 1.5, 203);
  expect_zipf_skew(backend, key_set<std::uint64_t>{1000, 204, key_order::shuffled, max_u64}, 0.5, 205);
  expect_zipf_skew(backend, key_set<std::uint64_t>{5000, 206, key_order::shuffled, max_u64}, 0.99, 207);
}

TYPED_TEST(generate_keys_test, zipf_with_exponent_zero_is_roughly_uniform)
{
  // 2^18 draws over 1000 keys: 262 expected per key, deviation 16; [131, 393] is 8 deviations wide.
  constexpr std::size_t draws = 1 << 18;
  const key_set<std::uint32_t> pool{1000, 300, key_order::shuffled, max_u32};
  const std::vector<std::size_t> counts = zipf_draws_per_rank(this->backend(), pool, 0.0, 301, draws);
  const double expected = static_cast<double>(draws) / static_cast<double>(pool.size);
  const auto [fewest, most] = std::minmax_element(counts.begin(), counts.end());
  EXPECT_GT(static_cast<double>(*fewest), 0.5 * expected);
  EXPECT_LT(static_cast<double>(*most), 1.5 * expected);
}

}  // namespace
