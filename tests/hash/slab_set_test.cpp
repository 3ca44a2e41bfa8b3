// slab_set on every backend with 128- and 64-byte slabs against std::unordered_set: insert, contains, erase, mixed
// batches (exact and under contention), exhaustion, flush and bad input.
#include "hash/outcome_check.hpp"
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::operation;
using hash::operation_status;
using oracle_set = std::unordered_set<std::uint32_t>;

template <class Config>
class slab_set_test : public slab_backend_test<typename Config::backend_type> {
 protected:
  using set_type = hash::slab_set<std::uint32_t, typename Config::backend_type, Config::slab_bytes>;

  std::vector<operation_status> execute(set_type& set, const std::vector<operation>& ops,
                                        const std::vector<std::uint32_t>& keys) const
  {
    auto device_ops = this->put(ops);
    auto device_keys = this->put(keys);
    auto statuses =
        make_filled_buffer<operation_status>(this->backend(), keys.size(), static_cast<operation_status>(99));
    set.execute(device_ops.span(), device_keys.span(), statuses.span());
    return statuses.to_vector();
  }
};
TYPED_TEST_SUITE(slab_set_test, all_slab_configs, slab_config_names);

TYPED_TEST(slab_set_test, InsertContainsEraseMatchTheOracle)
{
  std::mt19937_64 random(201);
  const auto keys = distinct_keys(random, 8000);
  typename TestFixture::set_type set(this->backend(), TestFixture::set_type::capacity_for(6000));
  const std::vector<std::uint32_t> inserted(keys.begin(), keys.begin() + 6000);
  auto device_inserted = this->put(inserted);
  auto statuses = make_filled_buffer<operation_status>(this->backend(), inserted.size(), operation_status::found);
  set.insert(device_inserted.span(), statuses.span());
  for (const auto status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::inserted); }
  set.insert(device_inserted.span(), statuses.span());
  for (const auto status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::already_present); }
  oracle_set oracle(inserted.begin(), inserted.end());
  EXPECT_EQ(export_set(set), oracle);

  const std::vector<std::uint32_t> doomed(keys.begin() + 3000, keys.end());
  auto device_doomed = this->put(doomed);
  set.erase(device_doomed.span());
  for (const std::uint32_t key : doomed) { oracle.erase(key); }
  EXPECT_EQ(export_set(set), oracle);

  auto queries = this->put(keys);
  auto found = make_filled_buffer<std::uint8_t>(this->backend(), keys.size(), 2);
  set.contains(queries.span(), found.span());
  const auto host_found = found.to_vector();
  for (std::size_t i = 0; i < keys.size(); ++i) { ASSERT_EQ(host_found[i], oracle.count(keys[i])) << keys[i]; }
  EXPECT_EQ(set.statistics().erased, 3000u);
  set.flush();
  EXPECT_EQ(set.statistics().erased, 0u);
  EXPECT_EQ(export_set(set), oracle);
}

TYPED_TEST(slab_set_test, RehashGrowsTheSetAndKeepsEveryKey)
{
  std::mt19937_64 random(std::random_device{}());
  const auto keys = distinct_keys(random, 5000);
  typename TestFixture::set_type set(this->backend(), hash::slab_capacity{4, 2 * hash::slabs_per_block});
  auto device_keys = this->put(keys);
  set.insert(device_keys.span());
  const std::vector<std::uint32_t> doomed(keys.begin(), keys.begin() + 1000);
  auto device_doomed = this->put(doomed);
  set.erase(device_doomed.span());
  oracle_set oracle(keys.begin() + 1000, keys.end());
  // Too small and fixed, or too small with no room to grow: an error, and the set is unchanged.
  EXPECT_THROW(set.rehash(hash::slab_capacity{1, 1, /*grows=*/false}), out_of_memory);
  EXPECT_THROW(set.rehash(hash::slab_capacity{1, 1, /*grows=*/true, /*super_block_limit=*/1}), out_of_memory);
  EXPECT_EQ(set.capacity().bucket_count, 4u);
  EXPECT_EQ(export_set(set), oracle);

  const auto grown = TestFixture::set_type::capacity_for(keys.size());
  set.rehash(grown);
  const auto stats = set.statistics();
  EXPECT_EQ(stats.bucket_count, grown.bucket_count);
  EXPECT_EQ(stats.erased, 0u);
  EXPECT_LE(stats.longest_chain, 3u);
  EXPECT_EQ(export_set(set), oracle);
  auto found = make_filled_buffer<std::uint8_t>(this->backend(), keys.size(), 2);
  set.contains(device_keys.span(), found.span());
  const auto host_found = found.to_vector();
  for (std::size_t i = 0; i < keys.size(); ++i) { ASSERT_EQ(host_found[i], oracle.count(keys[i])) << keys[i]; }
}

TYPED_TEST(slab_set_test, MixedBatchOfDistinctKeysIsExactAndContentionIsAllowed)
{
  std::mt19937_64 random(202);
  const auto universe = distinct_keys(random, 4000);
  typename TestFixture::set_type set(this->backend(), hash::slab_capacity{64, hash::slabs_per_block});
  oracle_set oracle;
  std::vector<std::uint32_t> keys = universe;
  std::vector<operation> ops(keys.size());
  for (auto& op : ops) { op = static_cast<operation>(random() % hash::operation_count); }
  auto statuses = this->execute(set, ops, keys);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    // Every key starts absent and appears once.
    const bool inserts = ops[i] == operation::insert || ops[i] == operation::insert_or_assign;
    ASSERT_EQ(statuses[i], inserts ? operation_status::inserted : operation_status::not_found);
    if (inserts) { oracle.insert(keys[i]); }
  }
  ASSERT_EQ(export_set(set), oracle);

  const auto hot = distinct_keys(random, 16);
  const oracle_set before = export_set(set);
  keys.assign(3000, 0);
  ops.assign(3000, operation::find);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = random() % 2 == 0 ? hot[random() % hot.size()] : universe[random() % 64];
    ops[i] = static_cast<operation>(random() % hash::operation_count);
  }
  statuses = this->execute(set, ops, keys);
  const oracle_set after = export_set(set);
  std::unordered_map<std::uint32_t, key_history> histories;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    key_history& history = histories[keys[i]];
    history.has_values = false;
    if (before.count(keys[i]) == 1) { history.initial = 0; }
    if (after.count(keys[i]) == 1) { history.final = 0; }
    history.operations.push_back({ops[i], 0, statuses[i], std::nullopt});
  }
  for (const auto& [key, history] : histories) { EXPECT_EQ(why_not_linearizable(history), "") << "key " << key; }
  for (const std::uint32_t key : after) {
    if (histories.count(key) == 0) { EXPECT_EQ(before.count(key), 1u) << "untouched key " << key << " appeared"; }
  }
}

TYPED_TEST(slab_set_test, ExhaustionThrowsAfterTheBatchAndRejectsReservedKeys)
{
  std::mt19937_64 random(203);
  typename TestFixture::set_type set(this->backend(), hash::slab_capacity{1, 2, false});
  const auto keys = distinct_keys(random, 200);
  auto device_keys = this->put(keys);
  expect_error_mentioning<out_of_memory>([&] { set.insert(device_keys.span()); }, {"slab_set::insert", "exhausted"});
  const oracle_set held = export_set(set);
  // A slab held for a moment by a concurrent append counts as taken, so at most one may stay unused.
  constexpr std::uint32_t keys_per_slab = TestFixture::set_type::keys_per_slab;
  static_assert(keys_per_slab == TestFixture::set_type::slab_bytes / sizeof(std::uint32_t) - 1);
  EXPECT_GE(held.size(), 2u * keys_per_slab);
  EXPECT_LE(held.size(), 3u * keys_per_slab);
  for (const std::uint32_t key : held) { EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()); }
  auto reserved = this->put(std::vector<std::uint32_t>{hash::erased_key});
  expect_error_mentioning<error>([&] { set.insert(reserved.span()); }, {"slab_set::insert", "element 0", "reserved"});
  EXPECT_EQ(export_set(set), held);
  auto small = make_filled_buffer<std::uint32_t>(this->backend(), 3, 0);
  expect_error_mentioning<error>([&] { (void)set.export_keys(small.span()); },
                                 {"export_keys", "but the output holds 3"});
}

}  // namespace
