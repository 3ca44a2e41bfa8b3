// group_by against a std::map oracle on every backend of the build: both key types, both value types,
// every reduction, both orders and every method; empty, one key, all equal, extreme values, sums that
// wrap around, inputs past one partition of the host's engine, and refused calls.
#include "dpp_test_support.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/dpp/group_by.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <vector>

namespace {

using namespace warpdex::testing;
using namespace warpdex::dpp;

template <class Backend>
class group_by_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(group_by_test, all_backends, backend_names);

/// What a key's group holds, as the oracle computes it.
template <class Value>
struct oracle_group {
  Value value;
  std::uint64_t count = 0;
  std::uint64_t first = 0;
};

/// Every reduction, order and method on (keys, values) against a std::map, in input order.
template <class Key, class Value, class Backend>
void expect_groups_match(const Backend& backend, const std::vector<Key>& keys, const std::vector<Value>& values)
{
  const auto key_buffer = make_buffer_from<Key>(backend, keys);
  const auto value_buffer = make_buffer_from<Value>(backend, values);
  const std::span<const Key> in_keys(key_buffer.data(), key_buffer.size());
  const std::span<const Value> in_values(value_buffer.data(), value_buffer.size());
  for (const auto reduction : {group_reduction::sum, group_reduction::min, group_reduction::max}) {
    SCOPED_TRACE(std::string(group_reduction_name(reduction)));
    std::map<Key, oracle_group<Value>> groups;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      auto [entry, inserted] = groups.try_emplace(keys[i], oracle_group<Value>{values[i], 0, i});
      auto& group = entry->second;
      if (!inserted) {
        if (reduction == group_reduction::sum) {
          group.value =
              static_cast<Value>(static_cast<std::uint64_t>(group.value) + static_cast<std::uint64_t>(values[i]));
        } else if (reduction == group_reduction::min) {
          group.value = std::min(group.value, values[i]);
        } else {
          group.value = std::max(group.value, values[i]);
        }
      }
      ++group.count;
    }
    std::vector<std::pair<Key, oracle_group<Value>>> ascending(groups.begin(), groups.end());
    std::vector<std::pair<Key, oracle_group<Value>>> by_first = ascending;
    std::sort(by_first.begin(), by_first.end(),
              [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
    for (const auto order : {element_order::ascending, element_order::first_occurrence}) {
      const auto& expected = order == element_order::ascending ? ascending : by_first;
      std::vector<Key> expected_keys;
      std::vector<Value> expected_values;
      std::vector<std::uint64_t> expected_counts;
      for (const auto& [key, group] : expected) {
        expected_keys.push_back(key);
        expected_values.push_back(group.value);
        expected_counts.push_back(group.count);
      }
      for (const auto method : {duplicate_method::automatic, duplicate_method::sort, duplicate_method::partitioned}) {
        SCOPED_TRACE(std::string(duplicate_method_name(method)) +
                     (order == element_order::ascending ? " ascending" : " first occurrence"));
        const auto grouped = group_by(backend, in_keys, in_values, reduction, order, method);
        EXPECT_EQ(grouped.keys.to_vector(), expected_keys);
        EXPECT_EQ(grouped.values.to_vector(), expected_values);
        EXPECT_EQ(grouped.counts.to_vector(), expected_counts);
      }
    }
  }
}

/// Keys with about `duplicate_fraction` of them repeated, and values drawn over the whole type.
template <class Key, class Value, class Backend>
void expect_random_groups_match(const Backend& backend, std::uint64_t n, double duplicate_fraction, std::uint64_t seed)
{
  SCOPED_TRACE(std::to_string(n) + " pairs, keys of " + std::to_string(sizeof(Key)) + " bytes, " +
               (std::is_signed_v<Value> ? "signed" : "unsigned") + " values");
  const auto keys = elements_with_duplicates<Key>(n, duplicate_fraction, seed);
  std::mt19937_64 random(seed ^ 0x5eedU);
  std::vector<Value> values(n);
  for (auto& value : values) { value = static_cast<Value>(random()); }
  expect_groups_match(backend, keys, values);
}

TYPED_TEST(group_by_test, matches_the_oracle_for_every_type_reduction_order_and_method)
{
  const std::uint64_t seed = fresh_seed();
  for (const double fraction : {0.0, 0.5, 0.99}) {
    SCOPED_TRACE(fraction);
    expect_random_groups_match<std::uint32_t, std::int64_t>(this->backend(), 3000, fraction, seed);
    expect_random_groups_match<std::uint32_t, std::uint64_t>(this->backend(), 3000, fraction, seed);
    expect_random_groups_match<std::uint64_t, std::int64_t>(this->backend(), 3000, fraction, seed);
    expect_random_groups_match<std::uint64_t, std::uint64_t>(this->backend(), 3000, fraction, seed);
  }
}

// Past one partition of the host's engine (2^14 pairs a partition, one thread each from 2^15): keys half
// repeated and Zipf-repeated, and one partition of 2^17 distinct keys beside a few spread ones.
TYPED_TEST(group_by_test, inputs_past_one_partition)
{
  const std::uint64_t seed = fresh_seed();
  const std::uint64_t n = sanitizer_sized() ? 40000 : 150000;
  expect_random_groups_match<std::uint32_t, std::int64_t>(this->backend(), n, 0.5, seed);
  expect_random_groups_match<std::uint64_t, std::uint64_t>(this->backend(), n, 0.5, seed);
  std::mt19937_64 random(seed);
  const auto zipf = zipf_elements<std::uint64_t>(n, 1.1, seed);
  std::vector<std::int64_t> values(zipf.size());
  for (auto& value : values) { value = static_cast<std::int64_t>(random() % 2001) - 1000; }
  expect_groups_match(this->backend(), zipf, values);
  const auto skewed = one_crowded_partition(random);
  std::vector<std::uint64_t> skewed_values(skewed.size());
  for (auto& value : skewed_values) { value = random(); }
  expect_groups_match(this->backend(), skewed, skewed_values);
}

TYPED_TEST(group_by_test, empty_one_all_equal_extremes_and_wrapping_sums)
{
  const auto& backend = this->backend();
  expect_groups_match(backend, std::vector<std::uint32_t>{}, std::vector<std::int64_t>{});
  expect_groups_match(backend, std::vector<std::uint64_t>{7}, std::vector<std::uint64_t>{42});
  constexpr auto low = std::numeric_limits<std::int64_t>::min();
  constexpr auto high = std::numeric_limits<std::int64_t>::max();
  // One key, every value extreme: the sum wraps around (high + high + low + low + 5 = 3 modulo 2^64).
  expect_groups_match(backend, std::vector<std::uint32_t>(5, 0xffffffffU),
                      std::vector<std::int64_t>{high, low, 5, high, low});
  expect_groups_match(backend, std::vector<std::uint64_t>(3000, 0),
                      std::vector<std::uint64_t>(3000, ~std::uint64_t{0}));
  expect_groups_match(backend, std::vector<std::uint64_t>{~std::uint64_t{0}, 0, ~std::uint64_t{0}, 1},
                      std::vector<std::int64_t>{low, high, -1, 0});
}

TYPED_TEST(group_by_test, bad_calls_are_refused)
{
  const auto keys = make_buffer_from<std::uint32_t>(this->backend(), std::vector<std::uint32_t>{1, 2, 3});
  const auto values = make_buffer_from<std::int64_t>(this->backend(), std::vector<std::int64_t>{1, 2});
  expect_error_mentioning<warpdex::error>(
      [&] {
        (void)group_by(this->backend(), std::span<const std::uint32_t>(keys.data(), 3),
                       std::span<const std::int64_t>(values.data(), 2), group_reduction::sum);
      },
      {"group_by", "3 keys but 2 values"});
  EXPECT_EQ(parse_group_reduction("min"), group_reduction::min);
  EXPECT_EQ(group_reduction_name(group_reduction::max), "max");
  expect_error_mentioning<warpdex::error>([] { (void)parse_group_reduction("mean"); }, {"'mean'", "sum, min or max"});
  EXPECT_EQ(resolve_group_by_method<warpdex::host>(duplicate_method::automatic, 1), duplicate_method::partitioned);
  EXPECT_EQ(resolve_group_by_method<warpdex::host>(duplicate_method::sort, 1), duplicate_method::sort);
#if WARPDEX_HAS_CUDA
  EXPECT_EQ(resolve_group_by_method<warpdex::cuda>(duplicate_method::partitioned, 1ULL << 30), duplicate_method::sort);
#endif
}

}  // namespace
