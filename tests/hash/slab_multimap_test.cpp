// slab_multimap on every backend against std::unordered_multimap: insertions with duplicate keys and
// pairs, count, find_all (count pass, offsets, fill pass; compared as multisets per query), erase of one
// instance and of all instances, many lanes inserting one key at once, exhaustion, flush and rehash, and
// bad input rejected before anything changes.
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/hash/slab_multimap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <unordered_map>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::operation_status;
using oracle_multimap = std::unordered_multimap<std::uint32_t, std::uint32_t>;
/// A multiset of values per key, order-free: what two multimaps are compared by.
using value_multisets = std::map<std::uint32_t, std::vector<std::uint32_t>>;

value_multisets by_key(const oracle_multimap& pairs)
{
  value_multisets sets;
  for (const auto& [key, value] : pairs) { sets[key].push_back(value); }
  for (auto& [key, values] : sets) { std::sort(values.begin(), values.end()); }
  return sets;
}

std::vector<std::uint32_t> sorted_values_of(const oracle_multimap& pairs, std::uint32_t key)
{
  std::vector<std::uint32_t> values;
  const auto [first, last] = pairs.equal_range(key);
  for (auto it = first; it != last; ++it) { values.push_back(it->second); }
  std::sort(values.begin(), values.end());
  return values;
}

template <class Backend>
class slab_multimap_test : public slab_backend_test<Backend> {
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

  value_multisets exported(const multimap_type& multimap) const
  {
    const std::uint64_t size = multimap.size();
    auto keys = make_buffer<std::uint32_t>(this->backend(), size);
    auto values = make_buffer<std::uint32_t>(this->backend(), size);
    EXPECT_EQ(multimap.export_pairs(keys.span(), values.span()), size);
    const auto host_keys = keys.to_vector();
    const auto host_values = values.to_vector();
    oracle_multimap pairs;
    for (std::size_t i = 0; i < host_keys.size(); ++i) { pairs.emplace(host_keys[i], host_values[i]); }
    return by_key(pairs);
  }

  /// Runs count and both passes of find_all on `queries` and checks each query against the oracle:
  /// counts, offsets, and the values of each query's range as a multiset; poison past the total stays.
  void expect_queries_match(const multimap_type& multimap, const std::vector<std::uint32_t>& queries,
                            const oracle_multimap& oracle) const
  {
    constexpr std::uint64_t poison_count = 0xdeadbeefULL;
    constexpr std::size_t spare_values = 7;
    auto device_queries = this->put(queries);
    auto counts = this->template poisoned<std::uint64_t>(queries.size(), poison_count);
    multimap.count(device_queries.span(), counts.span());
    auto offsets = this->template poisoned<std::uint64_t>(queries.size() + 1, poison_count);
    const std::uint64_t total = multimap.find_all_offsets(device_queries.span(), offsets.span());
    auto values = this->template poisoned<std::uint32_t>(total + spare_values, poison_value);
    multimap.find_all(device_queries.span(), offsets.span(), values.span());

    const auto host_counts = counts.to_vector();
    const auto host_offsets = offsets.to_vector();
    const auto host_values = values.to_vector();
    std::uint64_t expected_offset = 0;
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto expected = sorted_values_of(oracle, queries[i]);
      ASSERT_EQ(host_counts[i], expected.size()) << "query " << i << " key " << queries[i];
      ASSERT_EQ(host_offsets[i], expected_offset) << "query " << i;
      std::vector<std::uint32_t> got(
          host_values.begin() + static_cast<std::ptrdiff_t>(expected_offset),
          host_values.begin() + static_cast<std::ptrdiff_t>(expected_offset + expected.size()));
      std::sort(got.begin(), got.end());
      ASSERT_EQ(got, expected) << "query " << i << " key " << queries[i];
      expected_offset += expected.size();
    }
    ASSERT_EQ(host_offsets[queries.size()], expected_offset);
    ASSERT_EQ(total, expected_offset);
    for (std::size_t i = total; i < host_values.size(); ++i) {
      ASSERT_EQ(host_values[i], poison_value) << "find_all wrote past the total";
    }
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
  this->expect_queries_match(multimap, queries, oracle);
  // A second batch onto present keys adds to them.
  std::vector<std::uint32_t> more_values(keys.size());
  for (auto& value : more_values) { value = static_cast<std::uint32_t>(random()); }
  this->insert_all(multimap, keys, more_values, oracle);
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  this->expect_queries_match(multimap, queries, oracle);
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
  this->expect_queries_match(multimap, {contended_key, other_key, contended_key + 2}, oracle);
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
  this->expect_queries_match(multimap, distinct, oracle);

  // Flush reclaims the erased slots and keeps every pair; rehash keeps the duplicates.
  multimap.flush();
  EXPECT_EQ(multimap.statistics().erased, 0U);
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  multimap.rehash(hash::slab_capacity{64, 2048});
  EXPECT_EQ(this->exported(multimap), by_key(oracle));
  this->expect_queries_match(multimap, distinct, oracle);
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

}  // namespace
