// Insertion batches split by bucket range (batch_order::by_partition) on every backend against
// std::unordered_map: distinct keys, Zipf-repeated keys, one key throughout, keys built to share one
// bucket (their range far past its share), insert_or_assign over present keys, a growing pool, a set,
// reserved keys rejected with nothing changed, and the plan (only an explicit order splits). The cuda
// backend splits these batches (more than 2048 elements: the ones checked by a kernel of their own); the
// host backend runs them in input order, so both must export the same tables.
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/hash/batch_options.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::batch_order;

/// Splits by bucket range, ranges of 16 base slabs.
const hash::batch_options small_ranges{.order = batch_order::by_partition,
                                       .partition_bytes = 16 * hash::default_slab_bytes};

/// The values each key was offered in a batch (a key's exported value must be one of them).
using offered_values = std::unordered_map<std::uint32_t, std::unordered_set<std::uint32_t>>;

offered_values offers(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values)
{
  offered_values offered;
  for (std::size_t i = 0; i < keys.size(); ++i) { offered[keys[i]].insert(values[i]); }
  return offered;
}

std::vector<std::uint32_t> random_values(std::mt19937_64& random, std::size_t count)
{
  std::vector<std::uint32_t> values(count);
  for (auto& value : values) { value = static_cast<std::uint32_t>(random()); }
  return values;
}

/// Keys whose bucket in `map` is `bucket`, drawn by rejection.
template <class Map>
std::vector<std::uint32_t> keys_in_bucket(std::mt19937_64& random, const Map& map, std::uint32_t bucket,
                                          std::size_t count)
{
  const std::uint32_t buckets = map.capacity().bucket_count;
  std::unordered_set<std::uint32_t> seen;
  std::vector<std::uint32_t> keys;
  std::uniform_int_distribution<std::uint32_t> draw(0, hash::max_user_key);
  while (keys.size() < count) {
    const std::uint32_t key = draw(random);
    if (map.hash_function()(key) % buckets == bucket && seen.insert(key).second) { keys.push_back(key); }
  }
  return keys;
}

template <class Backend>
class slab_partition_test : public slab_backend_test<Backend> {
 protected:
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, Backend>;

  /// Makes `map` split its batches by bucket range, ranges of 16 buckets (up to 256 of them): these
  /// tables are far smaller than the default range, which would leave them one range and unsplit.
  static map_type& split(map_type& map)
  {
    map.set_batch_options(small_ranges);
    return map;
  }

  /// Inserts (or assigns, with `assign`) the batch, statusless, as a bulk build does.
  void insert(map_type& map, const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
              bool assign = false) const
  {
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    if (assign) {
      map.insert_or_assign(device_keys.span(), device_values.span());
    } else {
      map.insert(device_keys.span(), device_values.span());
    }
  }

  /// Splits `map` and inserts the first `count` of `keys` with random values; checks and returns the table.
  std::unordered_map<std::uint32_t, std::uint32_t> hold_first(map_type& map, std::mt19937_64& random,
                                                              const std::vector<std::uint32_t>& keys,
                                                              std::size_t count) const
  {
    split(map);
    const std::vector<std::uint32_t> held(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(count));
    const auto values = random_values(random, count);
    insert(map, held, values);
    std::unordered_map<std::uint32_t, std::uint32_t> oracle;
    for (std::size_t i = 0; i < count; ++i) { oracle.emplace(held[i], values[i]); }
    EXPECT_EQ(export_map(map), oracle);
    return oracle;
  }

  /// The map holds exactly the keys `before` held and those of `offered`; keys of `before` keep their
  /// value unless `assigned`, the others hold one of the values offered for them.
  static void expect_built(const map_type& map, const std::unordered_map<std::uint32_t, std::uint32_t>& before,
                           const offered_values& offered, bool assigned = false)
  {
    const auto exported = export_map(map);
    std::unordered_set<std::uint32_t> expected_keys;
    for (const auto& [key, value] : before) { expected_keys.insert(key); }
    for (const auto& [key, values] : offered) { expected_keys.insert(key); }
    ASSERT_EQ(exported.size(), expected_keys.size());
    ASSERT_EQ(map.size(), expected_keys.size());
    for (const std::uint32_t key : expected_keys) {
      const auto found = exported.find(key);
      ASSERT_NE(found, exported.end()) << "key " << key << " missing";
      const auto old = before.find(key);
      if (old != before.end() && !assigned) {
        ASSERT_EQ(found->second, old->second) << "an insertion changed the value of present key " << key;
      } else if (offered.contains(key)) {
        ASSERT_TRUE(offered.at(key).contains(found->second)) << "key " << key << " holds a value never offered";
      }
    }
  }
};
TYPED_TEST_SUITE(slab_partition_test, all_backends, backend_names);

TYPED_TEST(slab_partition_test, DistinctKeysMatchTheOracleExactly)
{
  seeded_random random;
  const std::size_t n = 60000;
  const auto keys = distinct_keys(random, n);
  const auto values = random_values(random, n);
  typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(n));
  TestFixture::split(map);
  this->insert(map, keys, values);
  std::unordered_map<std::uint32_t, std::uint32_t> oracle;
  for (std::size_t i = 0; i < n; ++i) { oracle.emplace(keys[i], values[i]); }
  EXPECT_EQ(export_map(map), oracle);
}

TYPED_TEST(slab_partition_test, ZipfKeysHoldOneOfTheirValues)
{
  seeded_random random;
  const std::size_t n = 80000;
  const auto universe = distinct_keys(random, 8192);
  for (const double exponent : {1.1, 2.0}) {
    SCOPED_TRACE("exponent " + std::to_string(exponent));
    const auto keys = zipf_draws(random, universe, n, exponent);
    const auto values = random_values(random, n);
    typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(n));
    TestFixture::split(map);
    this->insert(map, keys, values);
    this->expect_built(map, {}, offers(keys, values));
    // insert_or_assign of the same batch: every key ends with one of its values too.
    const auto assigned_values = random_values(random, n);
    this->insert(map, keys, assigned_values, true);
    this->expect_built(map, {}, offers(keys, assigned_values));
  }
}

TYPED_TEST(slab_partition_test, OneKeyThroughoutIsInsertedOnce)
{
  seeded_random random;
  const std::size_t n = 50000;
  const std::vector<std::uint32_t> keys(n, static_cast<std::uint32_t>(random() % hash::max_user_key));
  const auto values = random_values(random, n);
  typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(n));
  TestFixture::split(map);
  this->insert(map, keys, values);
  this->expect_built(map, {}, offers(keys, values));
  EXPECT_EQ(map.size(), 1U);
}

TYPED_TEST(slab_partition_test, KeysOfOneBucketFillTheirRangeFarPastItsShare)
{
  seeded_random random;
  // 20,000 keys spread over the buckets and 6,000 in bucket 0 (a list of 400 slabs), into a table with
  // no pool (every overflow slab comes from growth): bucket 0's range holds 6,000 elements where its
  // share is under 100.
  const std::size_t spread = 20000;
  hash::slab_capacity capacity = TestFixture::map_type::capacity_for(spread);
  capacity.pool_slabs = 0;
  typename TestFixture::map_type map(this->backend(), capacity);
  TestFixture::split(map);
  auto keys = distinct_keys(random, spread);
  const auto same_bucket = keys_in_bucket(random, map, 0, 6000);
  const std::unordered_set<std::uint32_t> spread_keys(keys.begin(), keys.end());
  for (const std::uint32_t key : same_bucket) {
    if (!spread_keys.contains(key)) { keys.push_back(key); }
  }
  std::shuffle(keys.begin(), keys.end(), random);
  const auto values = random_values(random, keys.size());
  this->insert(map, keys, values);
  std::unordered_map<std::uint32_t, std::uint32_t> oracle;
  for (std::size_t i = 0; i < keys.size(); ++i) { oracle.emplace(keys[i], values[i]); }
  EXPECT_EQ(export_map(map), oracle);
  EXPECT_GE(map.statistics().longest_chain, 6000 / TestFixture::map_type::pairs_per_slab);
}

TYPED_TEST(slab_partition_test, PresentKeysKeepTheirValuesAndAssignmentsReplaceThem)
{
  seeded_random random;
  const std::size_t n = 40000;
  const auto keys = distinct_keys(random, 2 * n);
  typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(2 * n));
  const auto before = this->hold_first(map, random, keys, n);

  // Half present keys, half new ones, each twice with different values.
  std::vector<std::uint32_t> batch(keys.begin() + n / 2, keys.begin() + n + n / 2);
  batch.insert(batch.end(), batch.begin(), batch.end());
  std::shuffle(batch.begin(), batch.end(), random);
  const auto batch_values = random_values(random, batch.size());
  this->insert(map, batch, batch_values);
  this->expect_built(map, before, offers(batch, batch_values));

  const auto assigned_values = random_values(random, batch.size());
  auto after_insert = export_map(map);
  this->insert(map, batch, assigned_values, true);
  this->expect_built(map, after_insert, offers(batch, assigned_values), true);
}

TYPED_TEST(slab_partition_test, SetsKeepEveryDistinctKey)
{
  seeded_random random;
  using set_type = hash::slab_set<std::uint32_t, TypeParam>;
  const std::size_t n = 60000;
  const auto keys = zipf_draws(random, distinct_keys(random, 16384), n, 1.1);
  set_type set(this->backend(), set_type::capacity_for(n));
  set.set_batch_options(small_ranges);
  auto device_keys = this->put(keys);
  set.insert(device_keys.span());
  EXPECT_EQ(export_set(set), std::unordered_set<std::uint32_t>(keys.begin(), keys.end()));
}

TYPED_TEST(slab_partition_test, ReservedKeysRejectTheBatchAndChangeNothing)
{
  seeded_random random;
  const std::size_t n = 10000;
  const auto keys = distinct_keys(random, 2 * n);
  typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(2 * n));
  const auto before = this->hold_first(map, random, keys, n);
  for (const std::uint32_t reserved : {hash::empty_key, hash::erased_key}) {
    std::vector<std::uint32_t> batch(keys.begin() + n, keys.end());
    batch[7777] = reserved;
    auto device_keys = this->put(batch);
    auto device_values = this->put(random_values(random, batch.size()));
    expect_error_mentioning<error>([&] { map.insert(device_keys.span(), device_values.span()); },
                                   {"slab_map::insert", "element 7777", "reserved key", "nothing was changed"});
    expect_error_mentioning<error>([&] { map.insert_or_assign(device_keys.span(), device_values.span()); },
                                   {"element 7777", "reserved key"});
    EXPECT_EQ(export_map(map), before);
  }
}

TEST(slab_partition_rule, OnlyAnExplicitOrderSplitsAndRangesDefaultToTheirBytes)
{
  EXPECT_FALSE(hash::plan_batch({}).by_partition);
  EXPECT_FALSE(hash::plan_batch({.order = batch_order::input}).by_partition);
  EXPECT_TRUE(hash::plan_batch({.order = batch_order::by_partition}).by_partition);
  EXPECT_EQ(hash::plan_batch({}).partition_bytes, hash::default_partition_bytes);
  EXPECT_EQ(hash::plan_batch(small_ranges).partition_bytes, 16 * hash::default_slab_bytes);
}

}  // namespace
