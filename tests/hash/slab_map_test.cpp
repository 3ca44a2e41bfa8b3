// slab_map on every backend with 128- and 64-byte slabs against std::unordered_map: each operation
// alone, mixed batches (exact oracle for distinct keys, the allowed-outcomes check under same-key
// contention), fills from 10% to 95%, growth, pool exhaustion, flush, statistics, and export + oracle
// after every batch.
#include "hash/outcome_check.hpp"
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::operation;
using hash::operation_status;
using oracle_map = std::unordered_map<std::uint32_t, std::uint32_t>;

template <class Config>
class slab_map_test : public slab_backend_test<typename Config::backend_type> {
 protected:
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, typename Config::backend_type, Config::slab_bytes>;
  /// Pairs one slab holds (15, or 7 in 64-byte slabs).
  static constexpr std::uint32_t pairs_per_slab = map_type::pairs_per_slab;

  /// Inserts pairs (must fit) and mirrors them in the oracle.
  void insert_all(map_type& map, const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                  oracle_map& oracle) const
  {
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    map.insert(device_keys.span(), device_values.span());
    for (std::size_t i = 0; i < keys.size(); ++i) { oracle.emplace(keys[i], values[i]); }
  }

};
TYPED_TEST_SUITE(slab_map_test, all_slab_configs, slab_config_names);

TYPED_TEST(slab_map_test, InsertThenFindPresentAndAbsentKeys)
{
  std::mt19937_64 random(101);
  const std::size_t n = 6000;
  const auto keys = distinct_keys(random, 2 * n);
  const std::vector<std::uint32_t> inserted(keys.begin(), keys.begin() + n);
  std::vector<std::uint32_t> values(n);
  for (auto& value : values) { value = static_cast<std::uint32_t>(random()); }
  typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(n));
  oracle_map oracle;
  this->insert_all(map, inserted, values, oracle);
  EXPECT_EQ(map.size(), n);
  EXPECT_EQ(export_map(map), oracle);

  auto queries = this->put(keys);
  auto found_values = this->template poisoned<std::uint32_t>(keys.size(), poison_value);
  auto statuses = this->template poisoned<operation_status>(keys.size(), operation_status::assigned);
  map.find(queries.span(), found_values.span(), statuses.span());
  const auto host_values = found_values.to_vector();
  const auto host_statuses = statuses.to_vector();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto expected = oracle.find(keys[i]);
    if (expected != oracle.end()) {
      ASSERT_EQ(host_statuses[i], operation_status::found) << "key " << keys[i];
      ASSERT_EQ(host_values[i], expected->second) << "key " << keys[i];
    } else {
      ASSERT_EQ(host_statuses[i], operation_status::not_found) << "key " << keys[i];
      ASSERT_EQ(host_values[i], poison_value) << "a missed find wrote its value";
    }
  }

  auto found = this->template poisoned<std::uint8_t>(keys.size(), 2);
  map.contains(queries.span(), found.span());
  const auto host_found = found.to_vector();
  for (std::size_t i = 0; i < keys.size(); ++i) { ASSERT_EQ(host_found[i], (i < n) ? 1 : 0) << "key " << keys[i]; }

  // The find that writes a default for misses and a found flag, plain and combined (every element
  // written: the outputs start poisoned).
  for (const auto combine : {hash::batch_combine::never, hash::batch_combine::always}) {
    map.set_batch_options({.combine = combine});
    const std::uint32_t default_value = 0xfeedbeef;
    auto defaulted = this->template poisoned<std::uint32_t>(keys.size(), poison_value);
    auto flags = this->template poisoned<std::uint8_t>(keys.size(), 2);
    map.find(queries.span(), defaulted.span(), flags.span(), default_value);
    const auto host_defaulted = defaulted.to_vector();
    const auto host_flags = flags.to_vector();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(host_flags[i], (i < n) ? 1 : 0) << "key " << keys[i];
      ASSERT_EQ(host_defaulted[i], i < n ? values[i] : default_value) << "key " << keys[i];
    }
  }
  map.set_batch_options({});
  auto short_flags = this->template poisoned<std::uint8_t>(keys.size() - 1, 2);
  auto all_values = this->template poisoned<std::uint32_t>(keys.size(), poison_value);
  expect_error_mentioning<error>([&] { map.find(queries.span(), all_values.span(), short_flags.span(), 0u); },
                                 {"find", "found holds"});
}

TYPED_TEST(slab_map_test, InsertKeepsThePresentValueAndOneOfRepeatedKeys)
{
  std::mt19937_64 random(102);
  const auto unique = distinct_keys(random, 500);
  typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(unique.size()));
  oracle_map oracle;
  const std::vector<std::uint32_t> first_half(unique.begin(), unique.begin() + 250);
  this->insert_all(map, first_half, std::vector<std::uint32_t>(250, 7), oracle);

  // Every key four times with distinct values: present keys report already_present, each absent key
  // exactly one inserted, and the inserted element's value is the one kept.
  std::vector<std::uint32_t> keys, values;
  for (int copy = 0; copy < 4; ++copy) {
    for (const std::uint32_t key : unique) {
      keys.push_back(key);
      values.push_back(static_cast<std::uint32_t>(keys.size()) + 1000);
    }
  }
  std::shuffle(keys.begin(), keys.end(), random);
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  auto statuses = this->template poisoned<operation_status>(keys.size(), operation_status::found);
  map.insert(device_keys.span(), device_values.span(), statuses.span());
  const auto host_statuses = statuses.to_vector();
  std::unordered_map<std::uint32_t, std::uint32_t> winner;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool was_present = oracle.count(keys[i]) == 1 && oracle.at(keys[i]) == 7;
    if (host_statuses[i] == operation_status::inserted) {
      ASSERT_FALSE(was_present) << "key " << keys[i] << " was present yet inserted";
      ASSERT_TRUE(winner.emplace(keys[i], values[i]).second) << "key " << keys[i] << " inserted twice";
    } else {
      ASSERT_EQ(host_statuses[i], operation_status::already_present);
    }
  }
  for (const auto& [key, value] : winner) { oracle.emplace(key, value); }
  EXPECT_EQ(winner.size(), 250u);
  EXPECT_EQ(export_map(map), oracle);
}

TYPED_TEST(slab_map_test, InsertOrAssignReplacesValues)
{
  std::mt19937_64 random(103);
  const auto keys = distinct_keys(random, 3000);
  typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(keys.size()));
  oracle_map oracle;
  const std::vector<std::uint32_t> old_keys(keys.begin(), keys.begin() + 1500);
  this->insert_all(map, old_keys, std::vector<std::uint32_t>(1500, 1), oracle);
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) { values[i] = static_cast<std::uint32_t>(i) * 3 + 2; }
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  auto statuses = this->template poisoned<operation_status>(keys.size(), operation_status::found);
  map.insert_or_assign(device_keys.span(), device_values.span(), statuses.span());
  const auto host_statuses = statuses.to_vector();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(host_statuses[i], i < 1500 ? operation_status::assigned : operation_status::inserted);
    oracle[keys[i]] = values[i];
  }
  EXPECT_EQ(export_map(map), oracle);
  map.insert_or_assign(device_keys.span(), device_keys.span());  // value = key, through the throwing overload
  for (const std::uint32_t key : keys) { oracle[key] = key; }
  EXPECT_EQ(export_map(map), oracle);
}

TYPED_TEST(slab_map_test, EraseReportsEachElementAndLeavesTheRest)
{
  std::mt19937_64 random(104);
  const auto keys = distinct_keys(random, 4000);
  typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(keys.size()));
  oracle_map oracle;
  const std::vector<std::uint32_t> present(keys.begin(), keys.begin() + 3000);
  this->insert_all(map, present, present, oracle);
  // Erase the second half of the present keys and all absent ones.
  const std::vector<std::uint32_t> doomed(keys.begin() + 1500, keys.end());
  auto device_doomed = this->put(doomed);
  auto statuses = this->template poisoned<operation_status>(doomed.size(), operation_status::found);
  map.erase(device_doomed.span(), statuses.span());
  const auto host_statuses = statuses.to_vector();
  for (std::size_t i = 0; i < doomed.size(); ++i) {
    const bool was_present = oracle.erase(doomed[i]) == 1;
    ASSERT_EQ(host_statuses[i], was_present ? operation_status::erased : operation_status::not_found);
  }
  EXPECT_EQ(export_map(map), oracle);
  const auto stats = map.statistics();
  EXPECT_EQ(stats.live, oracle.size());
  EXPECT_EQ(stats.erased, 1500u);
  // Erasing again finds nothing; re-inserting an erased key works and leaves no duplicate.
  map.erase(device_doomed.span(), statuses.span());
  for (const auto status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::not_found); }
  const std::vector<std::uint32_t> back(doomed.begin(), doomed.begin() + 100);
  this->insert_all(map, back, std::vector<std::uint32_t>(100, 9), oracle);
  EXPECT_EQ(export_map(map), oracle);
}

TYPED_TEST(slab_map_test, MixedBatchOfDistinctKeysMatchesTheOracleExactly)
{
  std::mt19937_64 random(105);
  const auto universe = distinct_keys(random, 8000);
  typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(6000, 0.7));
  oracle_map oracle;
  const std::vector<std::uint32_t> initial(universe.begin(), universe.begin() + 4000);
  std::vector<std::uint32_t> initial_values(initial.size());
  for (auto& value : initial_values) { value = static_cast<std::uint32_t>(random()); }
  this->insert_all(map, initial, initial_values, oracle);

  for (int round = 0; round < 3; ++round) {
    std::vector<std::uint32_t> keys = universe;
    std::shuffle(keys.begin(), keys.end(), random);
    keys.resize(5000);
    std::vector<operation> ops(keys.size());
    std::vector<std::uint32_t> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ops[i] = static_cast<operation>(random() % hash::operation_count);
      values[i] = static_cast<std::uint32_t>(random());
    }
    const auto [statuses, values_out] = this->execute(map, ops, keys, values);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      SCOPED_TRACE("round " + std::to_string(round) + " element " + std::to_string(i));
      const expected_outcome expected = apply_to_oracle(oracle, ops[i], keys[i], values[i]);
      ASSERT_EQ(statuses[i], expected.status);
      ASSERT_EQ(values_out[i], expected.value_out);
    }
    ASSERT_EQ(export_map(map), oracle) << "after round " << round;
  }
}

TYPED_TEST(slab_map_test, MixedBatchUnderSameKeyContentionShowsOnlyAllowedOutcomes)
{
  for (const std::uint64_t seed : {106u, 107u, 108u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    const auto hot_keys = distinct_keys(random, 24);
    typename TestFixture::map_type map(this->backend(), hash::slab_capacity{4, hash::slabs_per_block});
    oracle_map before;
    const std::vector<std::uint32_t> initial(hot_keys.begin(), hot_keys.begin() + 12);
    std::vector<std::uint32_t> initial_values(initial.size());
    for (std::size_t i = 0; i < initial.size(); ++i) {
      initial_values[i] = 0x10000000U + static_cast<std::uint32_t>(i);
    }
    this->insert_all(map, initial, initial_values, before);

    const std::size_t n = 4096;  // ~170 operations per key, all in one batch
    std::vector<operation> ops(n);
    std::vector<std::uint32_t> keys(n), values(n);
    for (std::size_t i = 0; i < n; ++i) {
      ops[i] = static_cast<operation>(random() % hash::operation_count);
      keys[i] = hot_keys[random() % hot_keys.size()];
      values[i] = static_cast<std::uint32_t>(i);  // unique, so a seen value names its writer
    }
    const auto [statuses, values_out] = this->execute(map, ops, keys, values);
    const oracle_map after = export_map(map);
    std::unordered_map<std::uint32_t, key_history> histories;
    for (const std::uint32_t key : hot_keys) {
      key_history& history = histories[key];
      if (const auto it = before.find(key); it != before.end()) { history.initial = it->second; }
      if (const auto it = after.find(key); it != after.end()) { history.final = it->second; }
    }
    for (std::size_t i = 0; i < n; ++i) {
      key_operation element{ops[i], values[i], statuses[i], std::nullopt};
      if (statuses[i] == operation_status::found) { element.value_out = values_out[i]; }
      if (statuses[i] != operation_status::found) { ASSERT_EQ(values_out[i], poison_value); }
      histories[keys[i]].operations.push_back(element);
    }
    EXPECT_EQ(after.size() - std::count_if(after.begin(), after.end(),
                                           [&](const auto& pair) { return histories.count(pair.first) == 1; }),
              0u)
        << "a key that no operation touched appeared";
    for (const auto& [key, history] : histories) { EXPECT_EQ(why_not_linearizable(history), "") << "key " << key; }
  }
}

TYPED_TEST(slab_map_test, FillsFromTenToNinetyFivePercentLoseNothing)
{
  std::mt19937_64 random(109);
  const hash::slab_capacity capacity{64, 256};
  const std::uint64_t base_pairs = std::uint64_t{capacity.bucket_count} * TestFixture::pairs_per_slab;
  const std::uint64_t most = base_pairs * 95 / 100;
  const auto keys = distinct_keys(random, most);
  typename TestFixture::map_type map(this->backend(), capacity);
  oracle_map oracle;
  std::uint64_t done = 0;
  for (const int percent : {10, 30, 50, 70, 85, 95}) {
    const std::uint64_t target = base_pairs * static_cast<std::uint64_t>(percent) / 100;
    const std::vector<std::uint32_t> batch(keys.begin() + static_cast<std::ptrdiff_t>(done),
                                           keys.begin() + static_cast<std::ptrdiff_t>(target));
    this->insert_all(map, batch, batch, oracle);
    done = target;
    ASSERT_EQ(export_map(map), oracle) << "at " << percent << "% of the base slabs";
    const auto stats = map.statistics();
    EXPECT_EQ(stats.live, oracle.size());
    EXPECT_GE(stats.slabs_in_use, capacity.bucket_count);
    EXPECT_NEAR(stats.memory_utilization,
                static_cast<double>(oracle.size()) * sizeof(std::uint64_t) /
                    (static_cast<double>(stats.slabs_in_use) * TestFixture::map_type::slab_bytes),
                1e-12);
  }
  EXPECT_GT(map.statistics().longest_chain, 1u) << "95% of the base slabs should overflow some lists";
}

TYPED_TEST(slab_map_test, GrowsAcrossSeveralSuperBlocksAndLosesNothing)
{
  std::mt19937_64 random(131);
  constexpr std::size_t batches = 10;
  constexpr std::size_t batch_keys = 10000;
  // 256 buckets (512 of 64-byte slabs, for lists as many slabs long) and no pool: every overflow slab
  // comes from super blocks added by growth (~6700 slabs of 128 bytes in the end, twice as many of 64).
  // A growth adds a slab per element that ran out, or half the pool: batches smaller than the pool
  // grows by make it grow several times.
  constexpr std::uint32_t buckets = 256 * hash::default_slab_bytes / TestFixture::map_type::slab_bytes;
  typename TestFixture::map_type map(this->backend(), hash::slab_capacity{buckets, 0});
  EXPECT_EQ(map.statistics().super_block_count, 0u);
  const auto keys = distinct_keys(random, batches * batch_keys);
  oracle_map oracle;
  for (std::size_t batch = 0; batch < batches; ++batch) {
    const std::vector<std::uint32_t> part(keys.begin() + batch * batch_keys, keys.begin() + (batch + 1) * batch_keys);
    std::vector<std::uint32_t> values(part.size());
    for (std::size_t i = 0; i < part.size(); ++i) { values[i] = static_cast<std::uint32_t>(random()); }
    auto device_keys = this->put(part);
    auto device_values = this->put(values);
    if (batch % 2 == 0) {  // with statuses: only the elements that ran out run again after a growth
      auto statuses = this->template poisoned<operation_status>(part.size(), operation_status::found);
      map.insert(device_keys.span(), device_values.span(), statuses.span());
      const auto host_statuses = statuses.to_vector();
      for (std::size_t i = 0; i < part.size(); ++i) { ASSERT_EQ(host_statuses[i], operation_status::inserted) << i; }
    } else {  // without: the batch runs again whole, and no exception escapes
      map.insert(device_keys.span(), device_values.span());
    }
    for (std::size_t i = 0; i < part.size(); ++i) { oracle.emplace(part[i], values[i]); }
    ASSERT_EQ(export_map(map), oracle) << "after batch " << batch;
  }
  const hash::slab_statistics stats = map.statistics();
  EXPECT_GE(stats.super_block_count, 3u);
  EXPECT_EQ(stats.pool_slabs, map.capacity().pool_slabs);
  EXPECT_GE(stats.pool_slabs, stats.slabs_in_use - buckets);
  // Every key is found with its value, across super blocks.
  auto device_keys = this->put(keys);
  auto values_out = this->template poisoned<std::uint32_t>(keys.size(), 0);
  auto statuses = this->template poisoned<operation_status>(keys.size(), operation_status::not_found);
  map.find(device_keys.span(), values_out.span(), statuses.span());
  const auto host_values = values_out.to_vector();
  const auto host_statuses = statuses.to_vector();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(host_statuses[i], operation_status::found);
    ASSERT_EQ(host_values[i], oracle.at(keys[i]));
  }
  // Erase half, flush (slabs of every super block go back), and the freed room is reused without growth.
  const std::vector<std::uint32_t> half(keys.begin(), keys.begin() + keys.size() / 2);
  auto device_half = this->put(half);
  map.erase(device_half.span());
  for (const std::uint32_t key : half) { oracle.erase(key); }
  map.flush();
  map.insert(device_half.span(), device_half.span());
  for (const std::uint32_t key : half) { oracle.emplace(key, key); }
  EXPECT_EQ(export_map(map), oracle);
  EXPECT_EQ(map.statistics().super_block_count, stats.super_block_count);
  // clear keeps the super blocks and returns all their slabs.
  map.clear();
  EXPECT_EQ(map.size(), 0u);
  map.insert(device_keys.span(), device_keys.span());
  EXPECT_EQ(map.size(), keys.size());
  EXPECT_EQ(map.statistics().super_block_count, stats.super_block_count);
}

TYPED_TEST(slab_map_test, MixedAndAssigningBatchesGrowAndMatchTheOracle)
{
  std::mt19937_64 random(132);
  typename TestFixture::map_type map(this->backend(), hash::slab_capacity{64, 0});
  const auto keys = distinct_keys(random, 12000);
  // insert_or_assign without statuses grows (run again whole).
  const std::vector<std::uint32_t> first(keys.begin(), keys.begin() + 6000);
  auto device_first = this->put(first);
  map.insert_or_assign(device_first.span(), device_first.span());
  oracle_map oracle;
  for (const std::uint32_t key : first) { oracle.emplace(key, key); }
  ASSERT_EQ(export_map(map), oracle);
  // A mixed batch: inserts of new keys (which need new slabs), assignments, erasures and finds.
  std::vector<operation> ops;
  std::vector<std::uint32_t> batch_keys, values;
  for (std::size_t i = 6000; i < keys.size(); ++i) {
    ops.push_back(operation::insert);
    batch_keys.push_back(keys[i]);
    values.push_back(static_cast<std::uint32_t>(i));
  }
  for (std::size_t i = 0; i < first.size(); ++i) {
    ops.push_back(i % 3 == 0 ? operation::erase : i % 3 == 1 ? operation::insert_or_assign : operation::find);
    batch_keys.push_back(first[i]);
    values.push_back(static_cast<std::uint32_t>(i + 1));
  }
  const auto [statuses, values_out] = this->execute(map, ops, batch_keys, values);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::uint32_t key = batch_keys[i];
    switch (ops[i]) {
      case operation::insert:
        ASSERT_EQ(statuses[i], operation_status::inserted) << i;
        oracle.emplace(key, values[i]);
        break;
      case operation::erase:
        ASSERT_EQ(statuses[i], operation_status::erased) << i;
        oracle.erase(key);
        break;
      case operation::insert_or_assign:
        ASSERT_EQ(statuses[i], operation_status::assigned) << i;
        oracle[key] = values[i];
        break;
      case operation::find:
        ASSERT_EQ(statuses[i], operation_status::found) << i;
        ASSERT_EQ(values_out[i], key) << i;
        break;
    }
  }
  EXPECT_EQ(export_map(map), oracle);
  EXPECT_GE(map.statistics().super_block_count, 1u);
}

TYPED_TEST(slab_map_test, ExhaustedPoolIsReportedAndTheTableStaysConsistent)
{
  std::mt19937_64 random(110);
  const hash::slab_capacity capacity{2, 3, false};  // room for 5 slabs of 15 (or 7) pairs, no growth
  const std::uint64_t room = 5 * TestFixture::pairs_per_slab;
  const auto keys = distinct_keys(random, 200);
  typename TestFixture::map_type map(this->backend(), capacity);
  // Inserts with statuses, retrying the elements that reported out_of_memory while retries still insert
  // something (a slab held for a moment by a concurrent append counts as taken); checks every status and
  // that the map holds exactly the keys reported inserted.
  auto insert_until_full = [&](std::vector<std::uint32_t> pending, oracle_map& oracle) {
    for (;;) {
      auto device_keys = this->put(pending);
      auto statuses = this->template poisoned<operation_status>(pending.size(), operation_status::found);
      map.insert(device_keys.span(), device_keys.span(), statuses.span());
      const auto host_statuses = statuses.to_vector();
      std::vector<std::uint32_t> exhausted;
      for (std::size_t i = 0; i < pending.size(); ++i) {
        if (host_statuses[i] == operation_status::inserted) {
          oracle.emplace(pending[i], pending[i]);
        } else {
          ASSERT_EQ(host_statuses[i], operation_status::out_of_memory);
          exhausted.push_back(pending[i]);
        }
      }
      ASSERT_EQ(export_map(map), oracle);
      if (exhausted.empty() || exhausted.size() == pending.size()) { return; }
      pending = exhausted;
    }
  };
  oracle_map oracle;
  insert_until_full(keys, oracle);
  EXPECT_EQ(oracle.size(), room) << "every slab should fill before exhaustion";
  auto device_keys = this->put(keys);
  auto found = this->template poisoned<std::uint8_t>(keys.size(), 2);
  map.contains(device_keys.span(), found.span());
  const auto host_found = found.to_vector();
  for (std::size_t i = 0; i < keys.size(); ++i) { ASSERT_EQ(host_found[i], oracle.count(keys[i])); }
  // The statusless overload throws after the batch; nothing already inserted is lost.
  expect_error_mentioning<out_of_memory>([&] { map.insert(device_keys.span(), device_keys.span()); },
                                         {"slab_map::insert", "exhausted", "were not inserted"});
  EXPECT_EQ(export_map(map), oracle);
  // After erasing everything and flushing, the freed room takes new keys again.
  map.erase(device_keys.span());
  map.flush();
  const auto stats = map.statistics();
  EXPECT_EQ(stats.erased, 0u);
  EXPECT_EQ(stats.live, 0u);
  EXPECT_EQ(stats.slabs_in_use, capacity.bucket_count);
  // Four slabs' worth of keys need at most 5 slabs however the two buckets share them.
  const std::size_t refill = 4 * TestFixture::pairs_per_slab;
  oracle.clear();
  insert_until_full(std::vector<std::uint32_t>(keys.begin(), keys.begin() + refill), oracle);
  EXPECT_EQ(oracle.size(), refill);
}

TYPED_TEST(slab_map_test, FlushKeepsEveryLivePair)
{
  std::mt19937_64 random(111);
  const auto keys = distinct_keys(random, 3000);
  typename TestFixture::map_type map(this->backend(), hash::slab_capacity{32, 1024});
  oracle_map oracle;
  this->insert_all(map, keys, keys, oracle);
  std::vector<std::uint32_t> doomed;
  for (const std::uint32_t key : keys) {
    if (random() % 3 == 0) {
      doomed.push_back(key);
      oracle.erase(key);
    }
  }
  auto device_doomed = this->put(doomed);
  map.erase(device_doomed.span());
  const auto before = map.statistics();
  map.flush();
  const auto after = map.statistics();
  EXPECT_EQ(after.erased, 0u);
  EXPECT_EQ(after.live, oracle.size());
  EXPECT_LT(after.slabs_in_use, before.slabs_in_use);
  EXPECT_EQ(export_map(map), oracle);
  // The compacted table keeps working: new keys, the erased ones again, and no duplicates.
  this->insert_all(map, doomed, std::vector<std::uint32_t>(doomed.size(), 4), oracle);
  EXPECT_EQ(export_map(map), oracle);
}

TYPED_TEST(slab_map_test, ManyMixedBatchesNeverLoseAnInsertedPair)
{
  std::mt19937_64 random(112);
  const auto universe = distinct_keys(random, 3000);
  typename TestFixture::map_type map(this->backend(), hash::slab_capacity{40, 4096});
  oracle_map oracle;
  for (int batch = 0; batch < 8; ++batch) {
    std::vector<std::uint32_t> keys = universe;
    std::shuffle(keys.begin(), keys.end(), random);
    keys.resize(1000);
    std::vector<operation> ops(keys.size());
    std::vector<std::uint32_t> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      // Insertion-heavy early, erasure-heavy late.
      ops[i] = random() % 8 < static_cast<unsigned>(8 - batch) ? operation::insert_or_assign : operation::erase;
      values[i] = static_cast<std::uint32_t>(random());
    }
    const auto [statuses, values_out] = this->execute(map, ops, keys, values);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (ops[i] == operation::erase) {
        ASSERT_EQ(statuses[i], oracle.erase(keys[i]) == 1 ? operation_status::erased : operation_status::not_found);
      } else {
        ASSERT_NE(statuses[i], operation_status::out_of_memory);
        oracle[keys[i]] = values[i];
      }
    }
    ASSERT_EQ(export_map(map), oracle) << "after batch " << batch;
    if (batch % 3 == 2) { map.flush(); }
  }
}

TYPED_TEST(slab_map_test, RejectsBadInputBeforeChangingAnything)
{
  typename TestFixture::map_type map(this->backend(), hash::slab_capacity{8, 0});
  oracle_map oracle;
  this->insert_all(map, {1, 2, 3}, {10, 20, 30}, oracle);
  for (const std::uint32_t reserved : {hash::empty_key, hash::erased_key}) {
    auto keys = this->put(std::vector<std::uint32_t>{5, 6, reserved, 7});
    auto values = this->put(std::vector<std::uint32_t>{1, 1, 1, 1});
    expect_error_mentioning<error>([&] { map.insert(keys.span(), values.span()); },
                                   {"slab_map::insert", "element 2", "reserved key", "nothing was changed"});
    expect_error_mentioning<error>([&] { map.insert_or_assign(keys.span(), values.span()); }, {"reserved key"});
    expect_error_mentioning<error>([&] { map.erase(keys.span()); }, {"slab_map::erase", "reserved key"});
    auto found = this->template poisoned<std::uint8_t>(4, 2);
    expect_error_mentioning<error>([&] { map.contains(keys.span(), found.span()); }, {"reserved key"});
  }
  auto keys = this->put(std::vector<std::uint32_t>{1, 2});
  auto short_values = this->put(std::vector<std::uint32_t>{1});
  expect_error_mentioning<error>([&] { map.insert(keys.span(), short_values.span()); },
                                 {"slab_map::insert", "values holds 1", "2 keys"});
  auto ops = this->put(std::vector<operation>{operation::erase, static_cast<operation>(hash::operation_count)});
  auto values_in = this->put(std::vector<std::uint32_t>{0, 0});
  auto values_out = this->template poisoned<std::uint32_t>(2, poison_value);
  auto statuses = this->template poisoned<operation_status>(2, operation_status::found);
  expect_error_mentioning<error>(
      [&] { map.execute(ops.span(), keys.span(), values_in.span(), values_out.span(), statuses.span()); },
      {"slab_map::execute", "element 1", "operation code"});
  EXPECT_EQ(statuses.to_vector()[0], operation_status::found) << "a rejected batch wrote a status";
  EXPECT_EQ(export_map(map), oracle);
  expect_error_mentioning<error>(
      [&] {
        typename TestFixture::map_type bad(this->backend(), hash::slab_capacity{0, 0});
      },
      {"bucket_count"});
  expect_error_mentioning<error>(
      [&] {
        typename TestFixture::map_type bad(this->backend(), hash::slab_capacity{1, hash::max_pool_slabs + 1});
      },
      {"pool_slabs", "32-bit"});
  auto small_keys = this->template poisoned<std::uint32_t>(2, 0);
  auto small_values = this->template poisoned<std::uint32_t>(2, 0);
  expect_error_mentioning<error>([&] { (void)map.export_pairs(small_keys.span(), small_values.span()); },
                                 {"export_pairs", "holds 3 pairs"});
}

TYPED_TEST(slab_map_test, StatisticsDescribeTheLists)
{
  constexpr std::uint32_t slab_bytes = TestFixture::map_type::slab_bytes;
  static_assert(TestFixture::map_type::pairs_per_slab == slab_bytes / sizeof(std::uint64_t) - 1);
  typename TestFixture::map_type map(this->backend(), hash::slab_capacity{1, 8});
  oracle_map oracle;
  std::vector<std::uint32_t> keys(40);
  for (std::size_t i = 0; i < keys.size(); ++i) { keys[i] = static_cast<std::uint32_t>(i); }
  this->insert_all(map, keys, keys, oracle);
  // One list of full slabs and a partial last one: 15 + 15 + 10 in 128-byte slabs, 5 * 7 + 5 in 64-byte ones.
  const std::uint64_t slabs = (keys.size() + TestFixture::pairs_per_slab - 1) / TestFixture::pairs_per_slab;
  const auto stats = map.statistics();
  EXPECT_EQ(stats.live, 40u);
  EXPECT_EQ(stats.slabs_in_use, slabs);
  EXPECT_EQ(stats.longest_chain, slabs);
  EXPECT_DOUBLE_EQ(stats.mean_slabs_per_bucket, static_cast<double>(slabs));
  EXPECT_DOUBLE_EQ(stats.bytes_per_live_entry, static_cast<double>(slabs * slab_bytes) / 40);
  EXPECT_DOUBLE_EQ(stats.memory_utilization, 40.0 * sizeof(std::uint64_t) / static_cast<double>(slabs * slab_bytes));
  // The base slab, a pool of 8 slabs and its bitmap.
  EXPECT_EQ(stats.reserved_bytes, 9u * slab_bytes + hash::bitmap_words_per_block * sizeof(std::uint32_t));
  map.clear();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.statistics().slabs_in_use, 1u);
}

TYPED_TEST(slab_map_test, RehashGrowsTheTableAndKeepsEveryLivePair)
{
  std::mt19937_64 random(std::random_device{}());
  const auto keys = distinct_keys(random, 4000);
  const hash::slab_capacity small{8, 2 * hash::slabs_per_block};  // long chains: ~33 slabs per bucket
  typename TestFixture::map_type map(this->backend(), small);
  oracle_map oracle;
  std::vector<std::uint32_t> values(keys.size());
  for (auto& value : values) { value = static_cast<std::uint32_t>(random()); }
  this->insert_all(map, keys, values, oracle);
  std::vector<std::uint32_t> doomed(keys.begin(), keys.begin() + 500);
  for (const std::uint32_t key : doomed) { oracle.erase(key); }
  auto device_doomed = this->put(doomed);
  map.erase(device_doomed.span());

  const auto grown = TestFixture::map_type::capacity_for(keys.size());
  map.rehash(grown);
  EXPECT_EQ(map.capacity().bucket_count, grown.bucket_count);
  const auto stats = map.statistics();
  EXPECT_EQ(stats.bucket_count, grown.bucket_count);
  EXPECT_EQ(stats.live, oracle.size());
  EXPECT_EQ(stats.erased, 0u) << "erased slots are dropped";
  EXPECT_LE(stats.longest_chain, 3u);
  EXPECT_EQ(export_map(map), oracle);
  // Every key is found with its value through the new buckets, and the table keeps taking keys.
  auto device_keys = this->put(keys);
  auto found_values = this->template poisoned<std::uint32_t>(keys.size(), poison_value);
  auto statuses = this->template poisoned<operation_status>(keys.size(), operation_status::assigned);
  map.find(device_keys.span(), found_values.span(), statuses.span());
  const auto host_values = found_values.to_vector();
  const auto host_statuses = statuses.to_vector();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto at = oracle.find(keys[i]);
    if (at == oracle.end()) {
      ASSERT_EQ(host_statuses[i], operation_status::not_found);
      ASSERT_EQ(host_values[i], poison_value);
    } else {
      ASSERT_EQ(host_statuses[i], operation_status::found);
      ASSERT_EQ(host_values[i], at->second);
    }
  }
  this->insert_all(map, doomed, doomed, oracle);
  EXPECT_EQ(export_map(map), oracle);
}

TYPED_TEST(slab_map_test, RehashThatCannotSucceedLeavesTheTableAsItWas)
{
  std::mt19937_64 random(std::random_device{}());
  const auto keys = distinct_keys(random, 1000);
  const hash::slab_capacity capacity{64, hash::slabs_per_block};
  typename TestFixture::map_type map(this->backend(), capacity);
  oracle_map oracle;
  this->insert_all(map, keys, keys, oracle);
  // Two buckets and one pool slab hold 45 pairs (21 in 64-byte slabs), not 1000: a fixed pool cannot
  // take them, nor a growing one limited to the super block it starts with.
  expect_error_mentioning<out_of_memory>(
      [&] {
        map.rehash(hash::slab_capacity{2, 1, /*grows=*/false});
      },
      {"slab_map::rehash", "do not fit", "a fixed pool", "left as it was"});
  expect_error_mentioning<out_of_memory>(
      [&] {
        map.rehash(hash::slab_capacity{2, 1, /*grows=*/true, /*super_block_limit=*/1});
      },
      {"slab_map::rehash", "do not fit", "limit of 1 super blocks", "left as it was"});
  expect_error_mentioning<error>(
      [&] {
        map.rehash(hash::slab_capacity{2, 1, /*grows=*/true, /*super_block_limit=*/0});
      },
      {"slab_map", "super_block_limit 0"});
  expect_error_mentioning<error>(
      [&] {
        map.rehash(hash::slab_capacity{2, hash::slabs_per_super_block + 1, /*grows=*/true, /*super_block_limit=*/1});
      },
      {"slab_map", "need 2 super blocks", "super_block_limit 1"});
  expect_error_mentioning<error>([&] { map.rehash(hash::slab_capacity{0, 10}); }, {"slab_map", "bucket_count"});
  expect_error_mentioning<error>(
      [&] {
        map.rehash(hash::slab_capacity{4, hash::max_pool_slabs + 1});
      },
      {"slab_map", "pool_slabs"});
  EXPECT_EQ(map.capacity().bucket_count, capacity.bucket_count);
  EXPECT_EQ(map.capacity().pool_slabs, capacity.pool_slabs);
  EXPECT_EQ(export_map(map), oracle);
  // Shrinking to a capacity that holds the entries works, and so does rehashing an empty map.
  map.rehash(hash::slab_capacity{16, hash::slabs_per_block});
  EXPECT_EQ(export_map(map), oracle);
  map.clear();
  map.rehash(hash::slab_capacity{3, 0});
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.capacity().bucket_count, 3u);
}

TEST(slab_table_view, DefaultHasherBucketEqualsTheUniversalHash)
{
  // The default hasher reduced by the bucket count is SlabHash's bucket function, so tables built with
  // it are exactly those built before the hasher became a parameter.
  std::mt19937_64 random(std::random_device{}());
  const std::uint32_t edge_keys[] = {0, 1, 4, 5, 6, hash::max_user_key, 0xfffffffaU, 0xfffffffbU, 0xfffffff0U};
  for (const std::uint32_t buckets : {1U, 2U, 3U, 100U, 65537U, 0x7fffffffU, 0xffffffffU}) {
    for (int seed = 0; seed < 20; ++seed) {
      const std::uint64_t drawn_seed = random();
      universal_hash reference = make_universal_hash(drawn_seed, buckets);
      hash::detail::slab_table_view<hash::map_slots> view;
      view.bucket_count = buckets;
      view.hasher = hash::universal_key_hash(drawn_seed);
      ASSERT_EQ(view.hasher.a, reference.a);
      ASSERT_EQ(view.hasher.b, reference.b);
      if (seed == 0) { view.hasher.a = reference.a = static_cast<std::uint32_t>(universal_hash::prime - 1); }
      if (seed == 1) { view.hasher.b = reference.b = static_cast<std::uint32_t>(universal_hash::prime - 1); }
      for (const std::uint32_t key : edge_keys) { ASSERT_EQ(view.bucket_of(key), reference(key)) << key; }
      for (int draw = 0; draw < 2000; ++draw) {
        const auto key = static_cast<std::uint32_t>(random());
        ASSERT_EQ(view.bucket_of(key), reference(key)) << "key " << key << " buckets " << buckets;
      }
    }
  }
}

TEST(slab_capacity, ForKeysSizesBucketsAndPool)
{
  const auto capacity = hash::slab_capacity::for_keys(900, 15, 0.6);
  EXPECT_EQ(capacity.bucket_count, 100u);
  EXPECT_GE(capacity.pool_slabs, 2u * hash::slabs_per_block);
  const auto dense = hash::slab_capacity::for_keys(1'000'000, 15, 0.95);
  EXPECT_GT(dense.pool_slabs, dense.bucket_count / 4) << "at 95% a third of the lists overflow";
  expect_error_mentioning<error>([] { (void)hash::slab_capacity::for_keys(10, 15, 0.0); }, {"base_fill"});
  // Entries grouped four to a key overflow more lists than distinct keys at the same fill.
  const auto grouped = hash::slab_capacity::for_keys(1'000'000, 15, 0.6, 4);
  const auto distinct = hash::slab_capacity::for_keys(1'000'000, 15, 0.6);
  EXPECT_EQ(grouped.bucket_count, distinct.bucket_count);
  EXPECT_GT(grouped.pool_slabs, 2 * distinct.pool_slabs);
  expect_error_mentioning<error>([] { (void)hash::slab_capacity::for_keys(10, 15, 0.6, 0); }, {"entries_per_key"});
}

TEST(outcome_check, RejectsHistoriesNoOrderExplains)
{
  using hash::operation_status;
  key_history two_inserts{
      std::nullopt,
      5,
      {{operation::insert, 5, operation_status::inserted, {}}, {operation::insert, 6, operation_status::inserted, {}}}};
  EXPECT_NE(why_not_linearizable(two_inserts), "");
  key_history unseen_value{1, 1, {{operation::find, 0, operation_status::found, 9}}};
  EXPECT_NE(why_not_linearizable(unseen_value), "");
  key_history assign_after_only_insert{std::nullopt,
                                       4,
                                       {{operation::insert, 4, operation_status::inserted, {}},
                                        {operation::insert_or_assign, 8, operation_status::assigned, {}}}};
  EXPECT_NE(why_not_linearizable(assign_after_only_insert), "");
  key_history absent_never{3, 3, {{operation::erase, 0, operation_status::not_found, {}}}};
  EXPECT_NE(why_not_linearizable(absent_never), "");
  key_history allowed{3,
                      8,
                      {{operation::erase, 0, operation_status::erased, {}},
                       {operation::find, 0, operation_status::not_found, {}},
                       {operation::insert, 8, operation_status::inserted, {}},
                       {operation::find, 0, operation_status::found, 3}}};
  EXPECT_EQ(why_not_linearizable(allowed), "");
}

}  // namespace
