// slab_multimap on every backend against std::unordered_multimap: insertions with duplicate keys and
// pairs, count, find_all (count pass, offsets, fill pass; compared as multisets per query), erase of one
// instance and of all instances, many lanes inserting one key at once, exhaustion, flush and rehash, and
// bad input rejected before anything changes.
#include "hash/multimap_check.hpp"
#include "hash/outcome_check.hpp"
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/hash/slab_multimap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::operation;
using hash::operation_status;
using oracle_multimap = std::unordered_multimap<std::uint32_t, std::uint32_t>;
/// A status no operation reports: statuses are filled with it to show which elements were written.
constexpr auto unwritten_status = static_cast<operation_status>(0xdead);
/// The operations a multimap's mixed batch holds.
constexpr operation multimap_operations[] = {operation::find, operation::insert, operation::erase};

value_multisets by_key(const oracle_multimap& pairs)
{
  value_multisets sets;
  for (const auto& [key, value] : pairs) { sets[key].push_back(value); }
  for (auto& [key, values] : sets) { std::sort(values.begin(), values.end()); }
  return sets;
}

template <class Backend>
class slab_multimap_test : public multimap_backend_test<Backend> {
 protected:
  using multimap_type = hash::slab_multimap<std::uint32_t, std::uint32_t, Backend>;

  /// Inserts pairs (must fit) and mirrors them in the oracle.
  void insert_all(multimap_type& multimap, const std::vector<std::uint32_t>& keys,
                  const std::vector<std::uint32_t>& values, oracle_multimap& oracle) const
  {
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    auto statuses = this->template poisoned<operation_status>(keys.size(), operation_status::found);
    multimap.insert(device_keys.span(), device_values.span(), statuses.span());
    for (const operation_status status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::inserted); }
    for (std::size_t i = 0; i < keys.size(); ++i) { oracle.emplace(keys[i], values[i]); }
  }

  /// Runs a mixed batch with poisoned outputs; returns the statuses and values_out.
  std::pair<std::vector<operation_status>, std::vector<std::uint32_t>> execute(
      multimap_type& multimap, const std::vector<operation>& ops, const std::vector<std::uint32_t>& keys,
      const std::vector<std::uint32_t>& values) const
  {
    auto device_ops = this->put(ops);
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    auto values_out = this->template poisoned<std::uint32_t>(keys.size(), poison_value);
    auto statuses = this->template poisoned<operation_status>(keys.size(), unwritten_status);
    multimap.execute(device_ops.span(), device_keys.span(), device_values.span(), values_out.span(), statuses.span());
    return {statuses.to_vector(), values_out.to_vector()};
  }
};
TYPED_TEST_SUITE(slab_multimap_test, all_backends, backend_names);

TYPED_TEST(slab_multimap_test, InsertKeepsEveryPairAndQueriesMatchTheOracle)
{
  std::mt19937_64 random(301);
  const std::size_t n = 20000;
  // Few distinct keys, so most keys repeat; small values, so identical pairs repeat too; one hot key
  // whose values fill many slabs.
  const auto distinct = distinct_keys(random, 3000);
  const std::uint32_t hot_key = distinct[0];
  constexpr std::uint32_t value_range = 4;
  constexpr std::size_t hot_share = 10;  // one insertion in hot_share goes to the hot key
  std::vector<std::uint32_t> keys(n);
  std::vector<std::uint32_t> values(n);
  std::uniform_int_distribution<std::size_t> pick(0, distinct.size() / 2 - 1);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = i % hot_share == 0 ? hot_key : distinct[pick(random)];
    values[i] = static_cast<std::uint32_t>(random() % value_range);
  }
  typename TestFixture::multimap_type multimap(this->backend(), hash::slab_capacity{2048, 8192});
  oracle_multimap oracle;
  this->insert_all(multimap, keys, values, oracle);
  EXPECT_EQ(multimap.size(), n);
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  // Queries: present keys (some repeated), absent keys from the other half of `distinct`.
  std::vector<std::uint32_t> queries(distinct.begin(), distinct.end());
  queries.insert(queries.end(), keys.begin(), keys.begin() + 500);
  std::shuffle(queries.begin(), queries.end(), random);
  this->expect_queries_match(multimap, queries, by_key(oracle));
  // A second batch onto present keys adds to them.
  std::vector<std::uint32_t> more_values(keys.size());
  for (auto& value : more_values) { value = static_cast<std::uint32_t>(random()); }
  this->insert_all(multimap, keys, more_values, oracle);
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  this->expect_queries_match(multimap, queries, by_key(oracle));
}

TYPED_TEST(slab_multimap_test, ManyLanesInsertingOneKeyAllSucceed)
{
  std::mt19937_64 random(302);
  constexpr std::uint32_t contended_key = 77;
  constexpr std::uint32_t other_key = 78;
  const std::size_t n = 8192;
  std::vector<std::uint32_t> keys(n, contended_key);
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = static_cast<std::uint32_t>(i);
    if (random() % 8 == 0) { keys[i] = other_key; }
  }
  typename TestFixture::multimap_type multimap(this->backend(), hash::slab_capacity{4, 2048});
  oracle_multimap oracle;
  this->insert_all(multimap, keys, values, oracle);
  EXPECT_EQ(multimap.size(), n);
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  this->expect_queries_match(multimap, {contended_key, other_key, contended_key + 2}, by_key(oracle));
}

TYPED_TEST(slab_multimap_test, CapacityForSeveralValuesPerKeyHoldsThemAll)
{
  // Keys with four values each put four pairs into one list: sized for distinct keys, a pool this size
  // ran out on the GPU (2^20 pairs, 3.7% reported out_of_memory). Sized with values_per_key it holds all.
  constexpr std::uint32_t values_per_key = 4;
  const std::size_t key_count = std::size_t{1} << 16;
  std::mt19937_64 random(303);
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> values;
  for (std::size_t key = 0; key < key_count; ++key) {
    const auto spread_key = static_cast<std::uint32_t>(random() % 0xfffffff0U);
    for (std::uint32_t r = 0; r < values_per_key; ++r) {
      keys.push_back(spread_key);
      values.push_back(static_cast<std::uint32_t>(key * values_per_key + r));
    }
  }
  std::shuffle(keys.begin(), keys.end(), random);  // values need not follow: only the pairs count
  typename TestFixture::multimap_type multimap(
      this->backend(), TestFixture::multimap_type::capacity_for(keys.size(), 0.6, values_per_key));
  oracle_multimap oracle;
  this->insert_all(multimap, keys, values, oracle);
  EXPECT_EQ(multimap.size(), keys.size());
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
}

TYPED_TEST(slab_multimap_test, EraseRemovesOneInstanceAndEraseAllRemovesEvery)
{
  std::mt19937_64 random(303);
  const auto distinct = distinct_keys(random, 400);
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> values;
  for (std::size_t k = 0; k < distinct.size(); ++k) {
    for (std::size_t copy = 0; copy < k % 40; ++copy) {  // key k holds k % 40 values (some none)
      keys.push_back(distinct[k]);
      values.push_back(static_cast<std::uint32_t>(random()));
    }
  }
  typename TestFixture::multimap_type multimap(this->backend(), hash::slab_capacity{256, 2048});
  oracle_multimap oracle;
  this->insert_all(multimap, keys, values, oracle);

  // Erase one instance: key k gets k % 7 requests, so n requests on m instances remove min(n, m).
  std::vector<std::uint32_t> erasures;
  for (std::size_t k = 0; k < distinct.size(); ++k) { erasures.insert(erasures.end(), k % 7, distinct[k]); }
  std::shuffle(erasures.begin(), erasures.end(), random);
  auto device_erasures = this->put(erasures);
  auto statuses = this->template poisoned<operation_status>(erasures.size(), operation_status::found);
  multimap.erase(device_erasures.span(), statuses.span());
  const auto host_statuses = statuses.to_vector();
  std::unordered_map<std::uint32_t, std::size_t> erased_per_key;
  for (std::size_t i = 0; i < erasures.size(); ++i) {
    ASSERT_TRUE(host_statuses[i] == operation_status::erased || host_statuses[i] == operation_status::not_found);
    erased_per_key[erasures[i]] += host_statuses[i] == operation_status::erased ? 1 : 0;
  }
  const auto before = by_key(oracle);
  const auto after = this->exported(multimap);
  for (std::size_t k = 0; k < distinct.size(); ++k) {
    const std::size_t held = k % 40;
    const std::size_t removed = std::min(held, k % 7);
    ASSERT_EQ(erased_per_key[distinct[k]], removed) << "key " << k;
    const auto kept = after.find(distinct[k]);
    const std::size_t kept_count = kept == after.end() ? 0 : kept->second.size();
    ASSERT_EQ(kept_count, held - removed) << "key " << k;
    if (kept_count > 0) {
      const auto& original = before.at(distinct[k]);
      ASSERT_TRUE(std::includes(original.begin(), original.end(), kept->second.begin(), kept->second.end()))
          << "key " << k << " holds a value it was never given";
    }
  }
  // Rebuild the oracle from the table (which instance an erase removes is not specified).
  oracle.clear();
  for (const auto& [key, kept] : after) {
    for (const std::uint32_t value : kept) { oracle.emplace(key, value); }
  }

  // Erase all: every other key, some requested twice, plus absent keys.
  std::vector<std::uint32_t> erase_all_keys;
  for (std::size_t k = 0; k < distinct.size(); k += 2) {
    erase_all_keys.insert(erase_all_keys.end(), k % 6 == 0 ? 2 : 1, distinct[k]);
  }
  const auto absent = distinct_keys(random, 50);
  for (const std::uint32_t key : absent) {
    if (oracle.count(key) == 0) { erase_all_keys.push_back(key); }
  }
  std::shuffle(erase_all_keys.begin(), erase_all_keys.end(), random);
  auto device_erase_all = this->put(erase_all_keys);
  auto all_statuses = this->template poisoned<operation_status>(erase_all_keys.size(), operation_status::found);
  multimap.erase_all(device_erase_all.span(), all_statuses.span());
  const auto host_all_statuses = all_statuses.to_vector();
  std::unordered_map<std::uint32_t, std::size_t> erased_reports;
  for (std::size_t i = 0; i < erase_all_keys.size(); ++i) {
    ASSERT_TRUE(host_all_statuses[i] == operation_status::erased ||
                host_all_statuses[i] == operation_status::not_found);
    erased_reports[erase_all_keys[i]] += host_all_statuses[i] == operation_status::erased ? 1 : 0;
  }
  for (const auto& [key, reports] : erased_reports) {
    const std::size_t held = oracle.count(key);
    if (held == 0) {
      ASSERT_EQ(reports, 0U) << "erase_all of an absent key reported erased";
    } else {
      ASSERT_GE(reports, 1U) << "key " << key;
      ASSERT_LE(reports, held) << "key " << key;
    }
    oracle.erase(key);
  }
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  this->expect_queries_match(multimap, distinct, by_key(oracle));

  // Flush reclaims the erased slots and keeps every pair; rehash keeps the duplicates.
  multimap.flush();
  EXPECT_EQ(multimap.statistics().erased, 0U);
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  multimap.rehash(hash::slab_capacity{64, 2048});
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  this->expect_queries_match(multimap, distinct, by_key(oracle));
}

TYPED_TEST(slab_multimap_test, ExhaustedPoolIsReportedAndNothingIsLost)
{
  constexpr std::uint32_t key = 9;
  constexpr std::size_t attempts = 40;
  // One bucket and no pool that cannot grow: the base slab holds pairs_per_slab pairs, the rest find no slab.
  typename TestFixture::multimap_type multimap(this->backend(), hash::slab_capacity{1, 0, false});
  std::vector<std::uint32_t> values(attempts);
  for (std::size_t i = 0; i < attempts; ++i) { values[i] = static_cast<std::uint32_t>(i); }
  auto keys = this->put(std::vector<std::uint32_t>(attempts, key));
  auto device_values = this->put(values);
  auto statuses = this->template poisoned<operation_status>(attempts, operation_status::found);
  multimap.insert(keys.span(), device_values.span(), statuses.span());
  oracle_multimap oracle;
  const auto host_statuses = statuses.to_vector();
  for (std::size_t i = 0; i < attempts; ++i) {
    ASSERT_TRUE(host_statuses[i] == operation_status::inserted || host_statuses[i] == operation_status::out_of_memory);
    if (host_statuses[i] == operation_status::inserted) { oracle.emplace(key, values[i]); }
  }
  EXPECT_EQ(oracle.size(), TestFixture::multimap_type::pairs_per_slab);
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  expect_error_mentioning<out_of_memory>([&] { multimap.insert(keys.span(), device_values.span()); },
                                         {"slab_multimap::insert", "exhausted"});
}

TYPED_TEST(slab_multimap_test, GrowsWithoutStatusesAndKeepsEveryDuplicate)
{
  constexpr std::size_t keys_count = 10;
  constexpr std::size_t values_per_key = 300;
  // Four buckets and no pool: the 3000 pairs need ~200 slabs, all from growth. Without statuses a
  // multimap cannot run the batch again whole (that would add pairs twice): only the elements that
  // ran out run again.
  typename TestFixture::multimap_type multimap(this->backend(), hash::slab_capacity{4, 0});
  std::vector<std::uint32_t> keys, values;
  oracle_multimap oracle;
  for (std::size_t i = 0; i < keys_count * values_per_key; ++i) {
    keys.push_back(static_cast<std::uint32_t>(i % keys_count));
    values.push_back(static_cast<std::uint32_t>(i));
    oracle.emplace(keys.back(), values.back());
  }
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  multimap.insert(device_keys.span(), device_values.span());
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  EXPECT_GE(multimap.statistics().super_block_count, 1u);
}

TYPED_TEST(slab_multimap_test, RejectsBadInputBeforeChangingAnything)
{
  typename TestFixture::multimap_type multimap(this->backend(), hash::slab_capacity{8, 0});
  oracle_multimap oracle;
  this->insert_all(multimap, {1, 1, 2, 5, 6, 7}, {10, 11, 20, 50, 60, 70}, oracle);
  for (const std::uint32_t reserved : {hash::empty_key, hash::erased_key}) {
    auto keys = this->put(std::vector<std::uint32_t>{5, 6, reserved, 7});
    auto values = this->put(std::vector<std::uint32_t>{1, 1, 1, 1});
    auto statuses = this->template poisoned<operation_status>(4, operation_status::found);
    expect_error_mentioning<error>([&] { multimap.insert(keys.span(), values.span(), statuses.span()); },
                                   {"slab_multimap::insert", "element 2", "reserved key", "nothing was changed"});
    expect_error_mentioning<error>([&] { multimap.erase(keys.span(), statuses.span()); },
                                   {"slab_multimap::erase", "element 2", "reserved key"});
    expect_error_mentioning<error>([&] { multimap.erase_all(keys.span(), statuses.span()); },
                                   {"slab_multimap::erase_all", "element 2", "reserved key"});
    auto counts = this->template poisoned<std::uint64_t>(4, 99);
    expect_error_mentioning<error>([&] { multimap.count(keys.span(), counts.span()); },
                                   {"slab_multimap::count", "element 2", "reserved key"});
    auto offsets = this->template poisoned<std::uint64_t>(5, 99);
    expect_error_mentioning<error>([&] { (void)multimap.find_all_offsets(keys.span(), offsets.span()); },
                                   {"slab_multimap::find_all_offsets", "element 2", "reserved key"});
    auto found = this->template poisoned<std::uint32_t>(4, poison_value);
    expect_error_mentioning<error>([&] { multimap.find_all(keys.span(), offsets.span(), found.span()); },
                                   {"slab_multimap::find_all", "element 2", "reserved key"});
    for (const operation_status status : statuses.to_vector()) { EXPECT_EQ(status, operation_status::found); }
    for (const std::uint64_t count : counts.to_vector()) { EXPECT_EQ(count, 99U); }
    for (const std::uint64_t offset : offsets.to_vector()) { EXPECT_EQ(offset, 99U); }
    for (const std::uint32_t value : found.to_vector()) { EXPECT_EQ(value, poison_value); }
  }
  auto keys = this->put(std::vector<std::uint32_t>{1, 2});
  auto short_values = this->put(std::vector<std::uint32_t>{1});
  expect_error_mentioning<error>([&] { multimap.insert(keys.span(), short_values.span()); },
                                 {"slab_multimap::insert", "values holds 1", "2 keys"});
  auto short_offsets = this->template poisoned<std::uint64_t>(2, 0);
  expect_error_mentioning<error>([&] { (void)multimap.find_all_offsets(keys.span(), short_offsets.span()); },
                                 {"find_all_offsets", "offsets holds 2", "2 keys need 3"});
  expect_error_mentioning<error>([&] { multimap.find_all(keys.span(), short_offsets.span(), short_values.span()); },
                                 {"slab_multimap::find_all", "offsets holds 2", "need 3"});
  auto small_keys = this->template poisoned<std::uint32_t>(2, 0);
  auto small_values = this->template poisoned<std::uint32_t>(2, 0);
  expect_error_mentioning<error>([&] { (void)multimap.export_pairs(small_keys.span(), small_values.span()); },
                                 {"slab_multimap::export_pairs", "holds 6 pairs"});
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
}

TYPED_TEST(slab_multimap_test, FillPassNeverWritesOutsideItsRanges)
{
  typename TestFixture::multimap_type multimap(this->backend(), hash::slab_capacity{8, 0});
  oracle_multimap oracle;
  this->insert_all(multimap, {3, 3, 3, 4}, {30, 31, 32, 40}, oracle);
  // Offsets that give key 3 room for one value and the output room for two: stale or hostile offsets
  // cut the values short instead of overrunning.
  auto queries = this->put(std::vector<std::uint32_t>{3, 4});
  auto offsets = this->put(std::vector<std::uint64_t>{0, 1, 3});
  auto values = this->template poisoned<std::uint32_t>(2, poison_value);
  multimap.find_all(queries.span(), offsets.span(), values.span());
  const auto host_values = values.to_vector();
  EXPECT_TRUE(host_values[0] == 30 || host_values[0] == 31 || host_values[0] == 32);
  EXPECT_EQ(host_values[1], 40U);
}

/// A seed of its own for each run of a randomized case (reported by SCOPED_TRACE on failure).
std::uint64_t fresh_seed()
{
  return std::random_device{}();
}

TYPED_TEST(slab_multimap_test, MixedBatchOfDistinctKeysMatchesTheOracle)
{
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  constexpr std::size_t most_values = 5;  // a prefilled key holds 1 .. most_values values
  const auto universe = distinct_keys(random, 6000);
  const std::vector<std::uint32_t> prefilled(universe.begin(), universe.begin() + 3000);
  std::vector<std::uint32_t> initial_keys, initial_values;
  for (const std::uint32_t key : prefilled) {
    for (std::size_t copy = 0, copies = 1 + random() % most_values; copy < copies; ++copy) {
      initial_keys.push_back(key);
      initial_values.push_back(static_cast<std::uint32_t>(random()));
    }
  }
  typename TestFixture::multimap_type multimap(
      this->backend(), TestFixture::multimap_type::capacity_for(initial_keys.size(), 0.6, most_values / 2));
  oracle_multimap oracle;
  this->insert_all(multimap, initial_keys, initial_values, oracle);

  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::vector<std::uint32_t> keys = universe;  // each key once per batch: the outcome is exact
    std::shuffle(keys.begin(), keys.end(), random);
    keys.resize(4000);
    std::vector<operation> ops(keys.size());
    std::vector<std::uint32_t> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ops[i] = multimap_operations[random() % std::size(multimap_operations)];
      values[i] = static_cast<std::uint32_t>(random());
    }
    const auto [statuses, values_out] = this->execute(multimap, ops, keys, values);
    const value_multisets before = by_key(oracle);
    std::vector<std::uint32_t> erased_keys;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      SCOPED_TRACE("element " + std::to_string(i) + " key " + std::to_string(keys[i]));
      const auto held = before.find(keys[i]);
      const bool present = held != before.end();
      switch (ops[i]) {
        case operation::find:
          ASSERT_EQ(statuses[i], present ? operation_status::found : operation_status::not_found);
          if (present) {
            ASSERT_TRUE(std::binary_search(held->second.begin(), held->second.end(), values_out[i]))
                << "a find reported value " << values_out[i] << ", which its key does not hold";
          } else {
            ASSERT_EQ(values_out[i], poison_value);
          }
          break;
        case operation::insert:
          ASSERT_EQ(statuses[i], operation_status::inserted);
          ASSERT_EQ(values_out[i], poison_value);
          oracle.emplace(keys[i], values[i]);
          break;
        case operation::erase:
          ASSERT_EQ(statuses[i], present ? operation_status::erased : operation_status::not_found);
          ASSERT_EQ(values_out[i], poison_value);
          if (present) { erased_keys.push_back(keys[i]); }
          break;
        case operation::insert_or_assign:
          FAIL() << "not generated";
      }
    }
    // Which instance an erase removes is unspecified: the table must hold the key's values less one of
    // them; the oracle then takes the table's choice.
    const value_multisets after = this->exported(multimap);
    for (const std::uint32_t key : erased_keys) {
      const std::vector<std::uint32_t>& had = before.at(key);
      const auto kept = after.find(key);
      const std::vector<std::uint32_t> left = kept == after.end() ? std::vector<std::uint32_t>{} : kept->second;
      ASSERT_EQ(left.size() + 1, had.size()) << "key " << key;
      ASSERT_TRUE(std::includes(had.begin(), had.end(), left.begin(), left.end())) << "key " << key;
      oracle.erase(key);
      for (const std::uint32_t value : left) { oracle.emplace(key, value); }
    }
    ASSERT_EQ(after, by_key(oracle));
  }
}

TYPED_TEST(slab_multimap_test, MixedBatchUnderSameKeyContentionShowsOnlyAllowedOutcomes)
{
  // Keys holding from none to more instances than a batch erases, so both regimes occur: keys that
  // may run empty (not_found allowed) and keys that never can.
  constexpr std::size_t initial_instances[] = {0, 0, 1, 2, 5, 20, 40, 60, 90, 150, 300, 400};
  constexpr std::size_t n = 4096;  // ~340 operations per key, ~110 of them erasures
  for (int round = 0; round < 3; ++round) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    const auto hot_keys = distinct_keys(random, std::size(initial_instances));
    // Few buckets and a small pool that grows: lists many slabs long, appended to during the batch.
    typename TestFixture::multimap_type multimap(this->backend(), hash::slab_capacity{4, hash::slabs_per_block});
    std::vector<std::uint32_t> initial_keys, initial_values;
    std::map<std::uint32_t, multiset_history> histories;
    for (std::size_t k = 0; k < hot_keys.size(); ++k) {
      multiset_history& history = histories[hot_keys[k]];
      for (std::size_t copy = 0; copy < initial_instances[k]; ++copy) {
        initial_keys.push_back(hot_keys[k]);
        initial_values.push_back(0x10000000U + static_cast<std::uint32_t>(initial_values.size()));
        history.initial.push_back(initial_values.back());
      }
    }
    oracle_multimap oracle;
    this->insert_all(multimap, initial_keys, initial_values, oracle);

    std::vector<operation> ops(n);
    std::vector<std::uint32_t> keys(n), values(n);
    for (std::size_t i = 0; i < n; ++i) {
      ops[i] = multimap_operations[random() % std::size(multimap_operations)];
      keys[i] = hot_keys[random() % hot_keys.size()];
      values[i] = static_cast<std::uint32_t>(i);  // unique, so a seen value names its writer
    }
    const auto [statuses, values_out] = this->execute(multimap, ops, keys, values);
    for (std::size_t i = 0; i < n; ++i) {
      key_operation element{ops[i], values[i], statuses[i], std::nullopt};
      if (statuses[i] == operation_status::found) {
        element.value_out = values_out[i];
      } else {
        ASSERT_EQ(values_out[i], poison_value) << "element " << i;
      }
      if (ops[i] == operation::insert) {
        ASSERT_EQ(statuses[i], operation_status::inserted) << "element " << i << ": the pool grows";
      }
      histories.at(keys[i]).operations.push_back(element);
    }
    for (const auto& [key, values_left] : this->exported(multimap)) {
      const auto history = histories.find(key);
      ASSERT_NE(history, histories.end()) << "key " << key << ", which no operation touched, appeared";
      history->second.final = values_left;
    }
    for (const auto& [key, history] : histories) {
      EXPECT_EQ(why_not_linearizable_multiset(history), "") << "key " << key;
    }
  }
}

TEST(outcome_check, MultisetRejectsHistoriesNoOrderExplains)
{
  const auto element = [](operation op, operation_status status, std::uint32_t value = 0) {
    key_operation made{op, value, status, std::nullopt};
    if (status == operation_status::found) { made.value_out = value; }
    return made;
  };
  constexpr auto find = operation::find;
  constexpr auto insert = operation::insert;
  constexpr auto erase = operation::erase;
  using s = operation_status;
  // Allowed: erase both initial instances, observe the empty key, insert 5 (seen), erase it, insert 6.
  const multiset_history allowed{
      {1, 2},
      {6},
      {element(find, s::found, 1), element(erase, s::erased), element(erase, s::erased), element(erase, s::erased),
       element(erase, s::not_found), element(find, s::not_found), element(insert, s::inserted, 5),
       element(find, s::found, 5), element(insert, s::inserted, 6), element(insert, s::out_of_memory, 7)}};
  EXPECT_EQ(why_not_linearizable_multiset(allowed), "");
  // An initial instance survives, yet the key was seen empty.
  const multiset_history empty_never{{1, 2}, {2}, {element(erase, s::erased), element(find, s::not_found)}};
  EXPECT_NE(why_not_linearizable_multiset(empty_never), "");
  const multiset_history erase_fails_never{
      {1, 2}, {1, 3}, {element(erase, s::erased), element(erase, s::not_found), element(insert, s::inserted, 3)}};
  EXPECT_NE(why_not_linearizable_multiset(erase_fails_never), "");
  // As many erasures as initial instances, but one of them outlived the batch: an inserted one was
  // erased instead, so the key never was empty. Counts alone would allow it.
  const multiset_history initial_survives{{1, 2},
                                          {1},
                                          {element(insert, s::inserted, 3), element(erase, s::erased),
                                           element(erase, s::erased), element(find, s::not_found)}};
  EXPECT_NE(why_not_linearizable_multiset(initial_survives), "");
  // Counts that do not add up: a lost insertion, an erasure of nothing.
  const multiset_history lost_insert{{1}, {1}, {element(insert, s::inserted, 3)}};
  EXPECT_NE(why_not_linearizable_multiset(lost_insert), "");
  const multiset_history erased_from_nothing{{}, {}, {element(erase, s::erased)}};
  EXPECT_NE(why_not_linearizable_multiset(erased_from_nothing), "");
  // Values nothing wrote: seen by a find, or left twice after one insertion.
  const multiset_history unseen_value{{1}, {1}, {element(find, s::found, 9)}};
  EXPECT_NE(why_not_linearizable_multiset(unseen_value), "");
  const multiset_history duplicated{{1}, {3, 3}, {element(insert, s::inserted, 3)}};
  EXPECT_NE(why_not_linearizable_multiset(duplicated), "");
  // Statuses a multimap never reports.
  const multiset_history already_present{{1}, {1}, {element(insert, s::already_present, 1)}};
  EXPECT_NE(why_not_linearizable_multiset(already_present), "");
  const multiset_history assignment{{1}, {1}, {element(operation::insert_or_assign, s::assigned, 1)}};
  EXPECT_NE(why_not_linearizable_multiset(assignment), "");
}

TYPED_TEST(slab_multimap_test, MixedBatchReportsExhaustionPerElementAndLosesNothing)
{
  constexpr std::uint32_t key = 9;
  constexpr std::uint32_t absent_key = 11;
  constexpr std::size_t initial = 5, inserts = 30, erasures = 3, finds = 5, absent_finds = 2;
  std::vector<operation> ops;
  std::vector<std::uint32_t> keys, values;
  const auto add = [&](operation op, std::uint32_t on, std::size_t times) {
    for (std::size_t i = 0; i < times; ++i) {
      ops.push_back(op);
      keys.push_back(on);
      values.push_back(0x20000000U + static_cast<std::uint32_t>(values.size()));
    }
  };
  add(operation::insert, key, inserts);
  add(operation::erase, key, erasures);
  add(operation::find, key, finds);
  add(operation::find, absent_key, absent_finds);
  std::mt19937_64 random(304);
  std::vector<std::size_t> order(ops.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), random);
  std::vector<operation> shuffled_ops;
  std::vector<std::uint32_t> shuffled_keys, shuffled_values;
  for (const std::size_t i : order) {
    shuffled_ops.push_back(ops[i]);
    shuffled_keys.push_back(keys[i]);
    shuffled_values.push_back(values[i]);
  }
  const std::vector<std::uint32_t> initial_values{1, 2, 3, 4, 5};

  for (const bool grows : {false, true}) {
    SCOPED_TRACE(grows ? "growing pool" : "fixed pool");
    // One bucket and no pool: the base slab holds pairs_per_slab pairs, erased slots are not reused,
    // so a fixed table has room for pairs_per_slab - initial insertions.
    typename TestFixture::multimap_type multimap(this->backend(), hash::slab_capacity{1, 0, grows});
    oracle_multimap oracle;
    this->insert_all(multimap, std::vector<std::uint32_t>(initial, key), initial_values, oracle);
    const auto [statuses, values_out] = this->execute(multimap, shuffled_ops, shuffled_keys, shuffled_values);
    multiset_history history{initial_values, {}, {}};
    std::size_t inserted = 0, exhausted = 0;
    for (std::size_t i = 0; i < shuffled_ops.size(); ++i) {
      SCOPED_TRACE("element " + std::to_string(i));
      if (shuffled_keys[i] == absent_key) {
        ASSERT_EQ(statuses[i], operation_status::not_found);
        ASSERT_EQ(values_out[i], poison_value);
        continue;
      }
      // More instances than erasures throughout: every erase and find meets one.
      switch (shuffled_ops[i]) {
        case operation::insert:
          ASSERT_TRUE(statuses[i] == operation_status::inserted || statuses[i] == operation_status::out_of_memory);
          (statuses[i] == operation_status::inserted ? inserted : exhausted) += 1;
          ASSERT_EQ(values_out[i], poison_value);
          break;
        case operation::erase:
          ASSERT_EQ(statuses[i], operation_status::erased);
          break;
        default:
          ASSERT_EQ(statuses[i], operation_status::found);
      }
      key_operation element{shuffled_ops[i], shuffled_values[i], statuses[i], std::nullopt};
      if (statuses[i] == operation_status::found) { element.value_out = values_out[i]; }
      history.operations.push_back(element);
    }
    const std::size_t room = grows ? inserts : TestFixture::multimap_type::pairs_per_slab - initial;
    EXPECT_EQ(inserted, room);
    EXPECT_EQ(exhausted, inserts - room);
    const value_multisets after = this->exported(multimap);
    ASSERT_EQ(after.size(), 1U);
    history.final = after.at(key);
    EXPECT_EQ(history.final.size(), initial + room - erasures);
    EXPECT_EQ(why_not_linearizable_multiset(history), "");
    if (grows) { EXPECT_GE(multimap.statistics().super_block_count, 1U); }
  }
}

TYPED_TEST(slab_multimap_test, MixedBatchRejectsBadInputBeforeChangingAnything)
{
  typename TestFixture::multimap_type multimap(this->backend(), hash::slab_capacity{8, 0});
  oracle_multimap oracle;
  this->insert_all(multimap, {1, 1, 2, 5}, {10, 11, 20, 50}, oracle);
  const std::vector<std::uint32_t> keys{1, 2, 3, 5};
  auto device_keys = this->put(keys);
  auto values_in = this->put(std::vector<std::uint32_t>{7, 7, 7, 7});
  auto values_out = this->template poisoned<std::uint32_t>(4, poison_value);
  auto statuses = this->template poisoned<operation_status>(4, unwritten_status);
  const auto expect_rejected = [&](const std::vector<operation>& host_ops, const std::vector<std::string_view>& says,
                                   std::span<const std::uint32_t> batch_keys) {
    auto ops = this->put(host_ops);
    expect_error_mentioning<error>(
        [&] { multimap.execute(ops.span(), batch_keys, values_in.span(), values_out.span(), statuses.span()); }, says);
  };
  // Insertions run before the bad element would have added pairs: none may be there afterwards.
  expect_rejected({operation::insert, operation::insert, operation::insert_or_assign, operation::erase},
                  {"slab_multimap::execute", "element 2", "insert_or_assign", "nothing was changed"},
                  device_keys.span());
  expect_rejected({operation::insert, static_cast<operation>(hash::operation_count), operation::find, operation::erase},
                  {"slab_multimap::execute", "element 1", "operation code outside [0, 4)", "nothing was changed"},
                  device_keys.span());
  expect_rejected({operation::insert, operation::insert, operation::insert, static_cast<operation>(0xffffffffU)},
                  {"slab_multimap::execute", "element 3", "operation code"}, device_keys.span());
  for (const std::uint32_t reserved : {hash::empty_key, hash::erased_key}) {
    auto reserved_keys = this->put(std::vector<std::uint32_t>{1, 2, 3, reserved});
    expect_rejected({operation::insert, operation::insert, operation::erase, operation::insert},
                    {"slab_multimap::execute", "element 3", "reserved key", "nothing was changed"},
                    reserved_keys.span());
  }
  // Size mismatches, each naming the short span.
  auto ops = this->put(std::vector<operation>(4, operation::insert));
  auto short_ops = this->put(std::vector<operation>(3, operation::insert));
  auto short_values = this->put(std::vector<std::uint32_t>{7, 7, 7});
  auto short_statuses = this->template poisoned<operation_status>(3, unwritten_status);
  expect_error_mentioning<error>(
      [&] {
        multimap.execute(short_ops.span(), device_keys.span(), values_in.span(), values_out.span(), statuses.span());
      },
      {"slab_multimap::execute", "operations holds 3", "4 keys"});
  expect_error_mentioning<error>(
      [&] {
        multimap.execute(ops.span(), device_keys.span(), short_values.span(), values_out.span(), statuses.span());
      },
      {"slab_multimap::execute", "values_in holds 3"});
  expect_error_mentioning<error>(
      [&] { multimap.execute(ops.span(), device_keys.span(), values_in.span(), short_values.span(), statuses.span()); },
      {"slab_multimap::execute", "values_out holds 3"});
  expect_error_mentioning<error>(
      [&] {
        multimap.execute(ops.span(), device_keys.span(), values_in.span(), values_out.span(), short_statuses.span());
      },
      {"slab_multimap::execute", "statuses holds 3"});
  for (const operation_status status : statuses.to_vector()) { EXPECT_EQ(status, unwritten_status); }
  for (const std::uint32_t value : values_out.to_vector()) { EXPECT_EQ(value, poison_value); }
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  // The same table still runs a valid batch.
  const auto [valid_statuses, valid_values] = this->execute(
      multimap, {operation::insert, operation::find, operation::erase, operation::find}, keys, {7, 7, 7, 7});
  EXPECT_EQ(valid_statuses, (std::vector<operation_status>{operation_status::inserted, operation_status::found,
                                                           operation_status::not_found, operation_status::found}));
  EXPECT_EQ(valid_values[1], 20U);
  EXPECT_EQ(valid_values[3], 50U);
}

}  // namespace
