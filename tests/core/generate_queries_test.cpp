// generate_queries on every backend: the exact number of absent queries, checked against the set itself.
#include "generate_test_support.hpp"
#include "support/backend_fixture.hpp"

#include <warpdex/core/generate.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

using warpdex::key_order;
using warpdex::key_set;
using warpdex::testing::describe;
using warpdex::testing::generate_checked;
using warpdex::testing::generate_set;

template <class Backend>
class generate_queries_test : public warpdex::testing::backend_test<Backend> {
};
TYPED_TEST_SUITE(generate_queries_test, warpdex::testing::all_backends, warpdex::testing::backend_names);

template <class Key, class Backend>
void expect_exact_absent_count(const Backend& backend, const key_set<Key>& set, std::size_t query_count,
                               double absent_fraction, std::uint64_t seed)
{
  SCOPED_TRACE(std::to_string(query_count) + " queries, absent fraction " + std::to_string(absent_fraction) +
               ", seed " + std::to_string(seed) + ", against a " + describe(set));
  const std::vector<Key> members = generate_set(backend, set);
  const std::unordered_set<Key> set_oracle(members.begin(), members.end());
  const std::vector<Key> queries = generate_checked<Key>(backend, query_count, [&](std::span<Key> out) {
    warpdex::generate_queries(backend, set, absent_fraction, seed, out);
  });

  std::size_t absent = 0;
  std::size_t absent_in_first_half = 0;
  std::size_t above_max_key = 0;
  std::unordered_set<Key> distinct_present;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    above_max_key += queries[i] > set.max_key ? 1 : 0;
    if (set_oracle.contains(queries[i])) {
      distinct_present.insert(queries[i]);
    } else {
      ++absent;
      absent_in_first_half += i < queries.size() / 2 ? 1 : 0;
    }
  }
  const auto expected_absent = static_cast<std::size_t>(std::floor(absent_fraction * static_cast<double>(query_count)));
  EXPECT_EQ(absent, expected_absent);
  EXPECT_EQ(above_max_key, 0U);

  const std::size_t present = query_count - absent;
  if (absent >= 1000 && present >= 1000) {
    // The two kinds are mixed at random positions, not one after the other.
    EXPECT_NEAR(static_cast<double>(absent_in_first_half) / static_cast<double>(absent), 0.5, 0.1);
  }
  if (present >= 1000 && set.size >= present) {
    // Present queries are drawn uniformly from the set: with replacement, about 60% or more are distinct.
    EXPECT_GT(distinct_present.size(), present / 4);
  }
}

constexpr auto max_u32 = std::numeric_limits<std::uint32_t>::max();
constexpr auto max_u64 = std::numeric_limits<std::uint64_t>::max();
constexpr double absent_fractions[] = {0.0, 0.1, 0.5, 0.99, 1.0};

TYPED_TEST(generate_queries_test, shuffled_set_gets_exactly_the_requested_absent_queries)
{
  std::uint64_t seed = 400;
  for (const double fraction : absent_fractions) {
    expect_exact_absent_count(this->backend(), key_set<std::uint32_t>{1 << 16, 1, key_order::shuffled, max_u32},
                              1 << 16, fraction, ++seed);
    // Only 100 keys of the domain are absent from this set.
    expect_exact_absent_count(this->backend(), key_set<std::uint32_t>{900, 2, key_order::shuffled, 999}, 10007,
                              fraction, ++seed);
    expect_exact_absent_count(this->backend(), key_set<std::uint64_t>{1 << 16, 3, key_order::shuffled, max_u64}, 50000,
                              fraction, ++seed);
  }
}

TYPED_TEST(generate_queries_test, sorted_set_gets_exactly_the_requested_absent_queries)
{
  std::uint64_t seed = 500;
  for (const double fraction : absent_fractions) {
    expect_exact_absent_count(this->backend(), key_set<std::uint32_t>{1 << 16, 4, key_order::sorted, max_u32}, 1 << 16,
                              fraction, ++seed);
    // Two keys per slot: one present, one absent. And a domain that the set size does not divide.
    expect_exact_absent_count(this->backend(), key_set<std::uint32_t>{1000, 5, key_order::sorted, 1999}, 10007,
                              fraction, ++seed);
    expect_exact_absent_count(this->backend(), key_set<std::uint32_t>{1000, 6, key_order::sorted, 2500}, 10007,
                              fraction, ++seed);
    expect_exact_absent_count(this->backend(), key_set<std::uint64_t>{1 << 16, 7, key_order::sorted, max_u64}, 50000,
                              fraction, ++seed);
    expect_exact_absent_count(this->backend(), key_set<std::uint64_t>{1, 8, key_order::sorted, max_u64}, 1000, fraction,
                              ++seed);
  }
}

TYPED_TEST(generate_queries_test, all_absent_queries_need_no_members)
{
  for (const key_order order : {key_order::shuffled, key_order::sorted}) {
    const key_set<std::uint32_t> empty_set{0, 8, order, 999};
    const std::vector<std::uint32_t> queries = generate_checked<std::uint32_t>(
        this->backend(), 1000,
        [&](std::span<std::uint32_t> out) { warpdex::generate_queries(this->backend(), empty_set, 1.0, 9, out); });
    EXPECT_TRUE(std::all_of(queries.begin(), queries.end(), [](std::uint32_t key) { return key <= 999; }));
    // Spread over the domain, not stuck on one value.
    EXPECT_GT(std::unordered_set<std::uint32_t>(queries.begin(), queries.end()).size(), 500U);
  }
}

}  // namespace
