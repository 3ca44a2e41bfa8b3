// The batch options of the slab tables (tile size of finds and erasures, bucket order) on every backend
// against std:: oracles: every combination, on long lists (few buckets) so tiles walk chains; the
// automatic rule; bad options rejected without changing the table.
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/hash/batch_options.hpp>
#include <warpdex/hash/slab_multimap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::batch_options;
using hash::batch_order;
using hash::operation;
using hash::operation_status;
using hash::tile_lanes;

constexpr tile_lanes every_tile[] = {tile_lanes::automatic, tile_lanes::one,     tile_lanes::four,
                                     tile_lanes::eight,     tile_lanes::sixteen, tile_lanes::warp};
constexpr batch_order every_order[] = {batch_order::automatic, batch_order::input, batch_order::by_bucket,
                                       batch_order::by_partition};

std::string describe(const batch_options& options)
{
  return "tile " + std::to_string(static_cast<unsigned>(options.tile)) + ", order " +
         std::to_string(static_cast<unsigned>(options.order));
}

/// Every combination of the options.
std::vector<batch_options> every_option()
{
  std::vector<batch_options> all;
  for (const tile_lanes tile : every_tile) {
    for (const batch_order order : every_order) { all.push_back({tile, order}); }
  }
  return all;
}

/// A capacity of few buckets, so lists are about `slabs_per_list` slabs long, and a pool that holds them.
hash::slab_capacity long_lists(std::uint64_t entries, std::uint32_t data_slots, std::uint32_t slabs_per_list)
{
  hash::slab_capacity capacity;
  capacity.bucket_count =
      static_cast<std::uint32_t>(std::max<std::uint64_t>(1, entries / (data_slots * slabs_per_list)));
  capacity.pool_slabs = 4 * (entries / data_slots) + 4 * hash::slabs_per_block;
  return capacity;
}

template <class Backend>
class slab_options_test : public slab_backend_test<Backend> {
};
TYPED_TEST_SUITE(slab_options_test, all_backends, backend_names);

TYPED_TEST(slab_options_test, MapFindEraseAndInsertMatchTheOracleUnderEveryOption)
{
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, TypeParam>;
  std::mt19937_64 random(std::random_device{}());
  const std::size_t n = 3000;
  for (const batch_options& options : every_option()) {
    SCOPED_TRACE(describe(options));
    for (const std::uint32_t slabs_per_list : {1U, 4U}) {
      const auto keys = distinct_keys(random, 2 * n);
      std::vector<std::uint32_t> values(n);
      for (auto& value : values) { value = static_cast<std::uint32_t>(random()); }
      map_type map(this->backend(), long_lists(n, map_type::pairs_per_slab, slabs_per_list));
      map.set_batch_options(options);
      // Insert the first half, with every third key repeated (one copy must win).
      std::vector<std::uint32_t> insert_keys(keys.begin(), keys.begin() + n);
      std::vector<std::uint32_t> insert_values = values;
      for (std::size_t i = 0; i < n; i += 3) {
        insert_keys.push_back(keys[i]);
        insert_values.push_back(values[i] + 1);
      }
      auto device_insert_keys = this->put(insert_keys);
      auto device_insert_values = this->put(insert_values);
      auto insert_statuses = this->template poisoned<operation_status>(insert_keys.size(), operation_status::found);
      map.insert(device_insert_keys.span(), device_insert_values.span(), insert_statuses.span());
      std::unordered_map<std::uint32_t, std::uint32_t> oracle;
      const auto host_insert_statuses = insert_statuses.to_vector();
      for (std::size_t i = 0; i < insert_keys.size(); ++i) {
        if (host_insert_statuses[i] == operation_status::inserted) {
          ASSERT_TRUE(oracle.emplace(insert_keys[i], insert_values[i]).second) << "key " << insert_keys[i];
        } else {
          ASSERT_EQ(host_insert_statuses[i], operation_status::already_present) << "key " << insert_keys[i];
        }
      }
      ASSERT_EQ(oracle.size(), n);
      ASSERT_EQ(export_map(map), oracle);

      // Find present and absent keys, shuffled.
      std::vector<std::uint32_t> queries = keys;
      std::shuffle(queries.begin(), queries.end(), random);
      auto device_queries = this->put(queries);
      auto found_values = this->template poisoned<std::uint32_t>(queries.size(), poison_value);
      auto statuses = this->template poisoned<operation_status>(queries.size(), operation_status::assigned);
      map.find(device_queries.span(), found_values.span(), statuses.span());
      auto found = this->template poisoned<std::uint8_t>(queries.size(), 2);
      map.contains(device_queries.span(), found.span());
      const auto host_values = found_values.to_vector();
      const auto host_statuses = statuses.to_vector();
      const auto host_found = found.to_vector();
      for (std::size_t i = 0; i < queries.size(); ++i) {
        const auto expected = oracle.find(queries[i]);
        const bool present = expected != oracle.end();
        ASSERT_EQ(host_statuses[i], present ? operation_status::found : operation_status::not_found) << queries[i];
        ASSERT_EQ(host_values[i], present ? expected->second : poison_value) << queries[i];
        ASSERT_EQ(host_found[i], present ? 1 : 0) << queries[i];
      }

      // Erase every other query: present ones report erased exactly once.
      std::vector<std::uint32_t> erase_keys;
      for (std::size_t i = 0; i < queries.size(); i += 2) { erase_keys.push_back(queries[i]); }
      erase_keys.push_back(erase_keys.front());  // a repeat: one erased, one not_found (or absent twice)
      auto device_erase_keys = this->put(erase_keys);
      auto erase_statuses = this->template poisoned<operation_status>(erase_keys.size(), operation_status::found);
      map.erase(device_erase_keys.span(), erase_statuses.span());
      const auto host_erase_statuses = erase_statuses.to_vector();
      // The repeated key (first and last element): one copy reports erased, in either order.
      const std::size_t last = erase_keys.size() - 1;
      const bool repeated_was_present = oracle.erase(erase_keys[0]) == 1;
      const int repeated_erased = (host_erase_statuses[0] == operation_status::erased ? 1 : 0) +
                                  (host_erase_statuses[last] == operation_status::erased ? 1 : 0);
      ASSERT_EQ(repeated_erased, repeated_was_present ? 1 : 0);
      for (std::size_t i = 1; i < last; ++i) {
        const bool was_present = oracle.erase(erase_keys[i]) == 1;
        ASSERT_EQ(host_erase_statuses[i], was_present ? operation_status::erased : operation_status::not_found)
            << erase_keys[i];
      }
      ASSERT_EQ(export_map(map), oracle);
    }
  }
}

TYPED_TEST(slab_options_test, MixedBatchOfDistinctKeysMatchesTheOracleUnderEveryOrder)
{
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, TypeParam>;
  std::mt19937_64 random(std::random_device{}());
  const std::size_t n = 2000;
  for (const batch_order order : every_order) {
    SCOPED_TRACE(static_cast<unsigned>(order));
    const auto keys = distinct_keys(random, 2 * n);
    map_type map(this->backend(), long_lists(2 * n, map_type::pairs_per_slab, 3));
    map.set_batch_options({tile_lanes::automatic, order});
    std::unordered_map<std::uint32_t, std::uint32_t> oracle;
    std::vector<std::uint32_t> first(keys.begin(), keys.begin() + n);
    auto device_first = this->put(first);
    map.insert(device_first.span(), device_first.span());
    for (const std::uint32_t key : first) { oracle.emplace(key, key); }
    // Element i: find, insert, insert_or_assign or erase of keys[i] (present for i < n).
    std::vector<operation> ops(keys.size());
    std::vector<std::uint32_t> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ops[i] = static_cast<operation>(random() % hash::operation_count);
      values[i] = static_cast<std::uint32_t>(random());
    }
    auto device_ops = this->put(ops);
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    auto values_out = this->template poisoned<std::uint32_t>(keys.size(), poison_value);
    auto statuses = this->template poisoned<operation_status>(keys.size(), static_cast<operation_status>(0xdead));
    map.execute(device_ops.span(), device_keys.span(), device_values.span(), values_out.span(), statuses.span());
    const auto host_statuses = statuses.to_vector();
    const auto host_values = values_out.to_vector();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const expected_outcome expected = apply_to_oracle(oracle, ops[i], keys[i], values[i]);
      ASSERT_EQ(host_statuses[i], expected.status) << "element " << i;
      ASSERT_EQ(host_values[i], expected.value_out) << "element " << i;
    }
    ASSERT_EQ(export_map(map), oracle);
  }
}

TYPED_TEST(slab_options_test, SetMatchesTheOracleUnderEveryOption)
{
  using set_type = hash::slab_set<std::uint32_t, TypeParam>;
  std::mt19937_64 random(std::random_device{}());
  const std::size_t n = 3000;
  for (const batch_options& options : every_option()) {
    SCOPED_TRACE(describe(options));
    const auto keys = distinct_keys(random, 2 * n);
    set_type set(this->backend(), long_lists(n, hash::set_slots::data_slots, 3));
    set.set_batch_options(options);
    const std::vector<std::uint32_t> inserted(keys.begin(), keys.begin() + n);
    auto device_inserted = this->put(inserted);
    set.insert(device_inserted.span());
    std::unordered_set<std::uint32_t> oracle(inserted.begin(), inserted.end());
    auto device_keys = this->put(keys);
    auto found = this->template poisoned<std::uint8_t>(keys.size(), 2);
    set.contains(device_keys.span(), found.span());
    const auto host_found = found.to_vector();
    for (std::size_t i = 0; i < keys.size(); ++i) { ASSERT_EQ(host_found[i], i < n ? 1 : 0) << keys[i]; }
    std::vector<std::uint32_t> erase_keys;
    for (std::size_t i = 0; i < keys.size(); i += 3) { erase_keys.push_back(keys[i]); }
    auto device_erase_keys = this->put(erase_keys);
    auto statuses = this->template poisoned<operation_status>(erase_keys.size(), operation_status::found);
    set.erase(device_erase_keys.span(), statuses.span());
    const auto host_statuses = statuses.to_vector();
    for (std::size_t i = 0; i < erase_keys.size(); ++i) {
      const bool was_present = oracle.erase(erase_keys[i]) == 1;
      ASSERT_EQ(host_statuses[i], was_present ? operation_status::erased : operation_status::not_found);
    }
    ASSERT_EQ(export_set(set), oracle);
  }
}

TYPED_TEST(slab_options_test, MultimapEraseRemovesOneInstanceUnderEveryTile)
{
  using multimap_type = hash::slab_multimap<std::uint32_t, std::uint32_t, TypeParam>;
  std::mt19937_64 random(std::random_device{}());
  const std::size_t key_count = 600;
  constexpr std::uint32_t instances = 3;
  for (const tile_lanes tile : every_tile) {
    SCOPED_TRACE(static_cast<unsigned>(tile));
    const auto keys = distinct_keys(random, key_count);
    multimap_type multimap(this->backend(), long_lists(key_count * instances, multimap_type::pairs_per_slab, 3));
    multimap.set_batch_options({tile, batch_order::automatic});
    std::vector<std::uint32_t> pair_keys;
    std::vector<std::uint32_t> pair_values;
    std::map<std::uint32_t, std::multiset<std::uint32_t>> oracle;
    for (std::uint32_t copy = 0; copy < instances; ++copy) {
      for (const std::uint32_t key : keys) {
        pair_keys.push_back(key);
        pair_values.push_back(static_cast<std::uint32_t>(random()));
        oracle[key].insert(pair_values.back());
      }
    }
    auto device_pair_keys = this->put(pair_keys);
    auto device_pair_values = this->put(pair_values);
    multimap.insert(device_pair_keys.span(), device_pair_values.span());
    // Two erasures of every key remove two of its three instances.
    std::vector<std::uint32_t> erase_keys = keys;
    erase_keys.insert(erase_keys.end(), keys.begin(), keys.end());
    auto device_erase_keys = this->put(erase_keys);
    auto statuses = this->template poisoned<operation_status>(erase_keys.size(), operation_status::found);
    multimap.erase(device_erase_keys.span(), statuses.span());
    for (const operation_status status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::erased); }
    const std::uint64_t size = multimap.size();
    ASSERT_EQ(size, key_count * (instances - 2));
    auto exported_keys = make_buffer<std::uint32_t>(this->backend(), size);
    auto exported_values = make_buffer<std::uint32_t>(this->backend(), size);
    ASSERT_EQ(multimap.export_pairs(exported_keys.span(), exported_values.span()), size);
    const auto host_keys = exported_keys.to_vector();
    const auto host_values = exported_values.to_vector();
    std::unordered_set<std::uint32_t> seen;
    for (std::size_t i = 0; i < host_keys.size(); ++i) {
      ASSERT_TRUE(seen.insert(host_keys[i]).second) << "key " << host_keys[i] << " kept two instances";
      ASSERT_EQ(oracle.at(host_keys[i]).count(host_values[i]), 1U) << "a value the key never had";
    }
  }
}

TYPED_TEST(slab_options_test, RejectsBadOptionsAndKeepsTheOldOnes)
{
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, TypeParam>;
  map_type map(this->backend(), map_type::capacity_for(100));
  map.set_batch_options({tile_lanes::four, batch_order::by_bucket});
  expect_error_mentioning<error>(
      [&] {
        map.set_batch_options({static_cast<tile_lanes>(2), batch_order::input});
      },
      {"tile_lanes must be automatic, 1, 4, 8, 16 or 32", "got 2"});
  expect_error_mentioning<error>(
      [&] {
        map.set_batch_options({tile_lanes::one, static_cast<batch_order>(7)});
      },
      {"unknown batch_order 7"});
  EXPECT_EQ(map.get_batch_options().tile, tile_lanes::four);
  EXPECT_EQ(map.get_batch_options().order, batch_order::by_bucket);
}

TEST(plan_batch, AutomaticOptionsTakeTheMeasuredTileAndTheInputOrder)
{
  const hash::batch_plan plan = hash::plan_batch({});
  EXPECT_EQ(plan.tile_lanes, hash::automatic_tile_lanes);
  EXPECT_FALSE(plan.by_bucket);
  const hash::batch_plan fixed_order = hash::plan_batch({tile_lanes::automatic, batch_order::by_bucket});
  EXPECT_EQ(fixed_order.tile_lanes, hash::automatic_tile_lanes);
  EXPECT_TRUE(fixed_order.by_bucket);
}

TEST(plan_batch, FixedOptionsAreTakenAsTheyAre)
{
  const hash::batch_plan plan = hash::plan_batch({tile_lanes::one, batch_order::input});
  EXPECT_EQ(plan.tile_lanes, 1U);
  EXPECT_FALSE(plan.by_bucket);
  const hash::batch_plan sorted = hash::plan_batch({tile_lanes::warp, batch_order::by_bucket});
  EXPECT_EQ(sorted.tile_lanes, 32U);
  EXPECT_TRUE(sorted.by_bucket);
}

TEST(expected_overflow_slabs, GrowsWithTheFillAndStaysFiniteForHugeMeans)
{
  EXPECT_EQ(hash::expected_overflow_slabs(0.0, 15), 0.0);
  EXPECT_LT(hash::expected_overflow_slabs(9.0, 15), 0.1);
  const double three_slabs = hash::expected_overflow_slabs(45.0, 15);
  EXPECT_GT(three_slabs, 2.3);  // sum over j of P(Poisson(45) > 15 j) = 2.46
  EXPECT_LT(three_slabs, 2.6);
  const double huge = hash::expected_overflow_slabs(1e6, 15);
  EXPECT_GT(huge, 60.0);
  EXPECT_LT(huge, 64.0);
}

}  // namespace
