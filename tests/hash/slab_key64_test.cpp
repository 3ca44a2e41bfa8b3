// The 64-bit key tables (slab_map and slab_multimap of 64-bit keys and values, slab_set of 64-bit keys)
// on every backend against std::unordered_map / unordered_set / a multiset oracle: keys that use the
// high 32 bits (keys differing only in the high half, keys whose low halves collide, keys next to the
// reserved ones), random mixed batches with fixed and fresh seeds, repeated keys (combined into a
// sequential run, and contended), multimap duplicates, growth, reserved-key refusal, and on the cuda
// backend every result cross-checked against the host backend's.
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/hash/slab_multimap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::operation;
using hash::operation_status;
using key64 = std::uint64_t;
using oracle_map = std::unordered_map<key64, key64>;
using statuses_t = std::vector<operation_status>;

template <class Backend>
using map64 = hash::slab_map<key64, key64, Backend>;
template <class Backend>
using set64 = hash::slab_set<key64, Backend>;
template <class Backend>
using multimap64 = hash::slab_multimap<key64, key64, Backend>;

constexpr key64 poison64 = 0xa5a5a5a5a5a5a5a5ULL;

/// `count` distinct 64-bit keys that use the high half: a third random, a third sharing one low half
/// (they differ only in the high half), a third sharing one high half with low halves that collide
/// modulo small powers of two; plus the largest user keys, next to the reserved ones.
std::vector<key64> wide_keys(std::mt19937_64& random, std::size_t count)
{
  std::unordered_set<key64> seen{hash::max_user_key64, hash::max_user_key64 - 1};
  std::vector<key64> keys(seen.begin(), seen.end());
  const key64 shared_low = random() & 0xffffffffULL;
  const key64 shared_high = random() << 32;
  for (std::size_t i = 0; keys.size() < count; ++i) {
    key64 key = random();
    if (i % 3 == 1) { key = (key << 32) | shared_low; }
    if (i % 3 == 2) { key = shared_high | ((key & 0xffffULL) << 16); }
    if (hash::is_reserved_key(key)) { continue; }
    if (seen.insert(key).second) { keys.push_back(key); }
  }
  std::shuffle(keys.begin(), keys.end(), random);
  return keys;
}

template <class Backend>
class slab_key64_test : public slab_backend_test<Backend> {
 protected:
  /// Runs a mixed batch on `table` (a 64-bit map or multimap); returns statuses and values_out.
  template <class Table>
  std::pair<statuses_t, std::vector<key64>> execute(Table& table, const std::vector<operation>& ops,
                                                    const std::vector<key64>& keys,
                                                    const std::vector<key64>& values) const
  {
    auto device_ops = this->put(ops);
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    auto values_out = this->poisoned(keys.size(), poison64);
    auto statuses = this->poisoned(keys.size(), static_cast<operation_status>(0xdead));
    table.execute(device_ops.span(), device_keys.span(), device_values.span(), values_out.span(), statuses.span());
    return {statuses.to_vector(), values_out.to_vector()};
  }

  template <class Map>
  oracle_map exported(const Map& map) const
  {
    const std::uint64_t size = map.size();
    auto keys = make_buffer<key64>(this->backend(), size);
    auto values = make_buffer<key64>(this->backend(), size);
    EXPECT_EQ(map.export_pairs(keys.span(), values.span()), size);
    const auto host_keys = keys.to_vector();
    const auto host_values = values.to_vector();
    oracle_map pairs;
    for (std::size_t i = 0; i < host_keys.size(); ++i) {
      EXPECT_TRUE(pairs.emplace(host_keys[i], host_values[i]).second) << "key " << host_keys[i] << " exported twice";
    }
    return pairs;
  }

  /// Random mixed batches of distinct keys on a 64 / 64 map, each element checked exactly against the
  /// oracle and the exported pairs after each batch; on the cuda backend the same batches also run on a
  /// host map, whose results must be the same.
  void run_random_batches(std::uint64_t seed)
  {
    seeded_random random(seed);
    const auto universe = wide_keys(random, 3000);
    map64<Backend> map(this->backend(), map64<Backend>::capacity_for(400));  // grows past its sizing
    map64<host> host_map(host{}, map64<host>::capacity_for(400));
    oracle_map oracle;
    for (int round = 0; round < 6; ++round) {
      std::vector<key64> keys(universe);
      std::shuffle(keys.begin(), keys.end(), random);
      keys.resize(1500);
      std::vector<operation> ops(keys.size());
      std::vector<key64> values(keys.size());
      for (std::size_t i = 0; i < keys.size(); ++i) {
        ops[i] = static_cast<operation>(random() % hash::operation_count);
        values[i] = random();
      }
      const auto [statuses, values_out] = execute(map, ops, keys, values);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const expected_outcome64 expected = apply(oracle, ops[i], keys[i], values[i]);
        ASSERT_EQ(statuses[i], expected.status) << "round " << round << " element " << i << " key " << keys[i];
        ASSERT_EQ(values_out[i], expected.value_out) << "round " << round << " element " << i << " key " << keys[i];
      }
      ASSERT_EQ(exported(map), oracle) << "round " << round;
      if constexpr (!std::is_same_v<Backend, host>) {
        const auto host_result = host_execute(host_map, ops, keys, values);
        EXPECT_EQ(host_result.first, statuses) << "the host backend disagrees, round " << round;
        EXPECT_EQ(host_result.second, values_out) << "the host backend disagrees, round " << round;
      }
    }
  }

  struct expected_outcome64 {
    operation_status status = operation_status::not_found;
    key64 value_out = poison64;
  };
  static expected_outcome64 apply(oracle_map& oracle, operation op, key64 key, key64 value)
  {
    const auto at = oracle.find(key);
    const bool present = at != oracle.end();
    expected_outcome64 expected;
    switch (op) {
      case operation::find:
        if (present) { expected = {operation_status::found, at->second}; }
        break;
      case operation::insert:
        expected.status = present ? operation_status::already_present : operation_status::inserted;
        if (!present) { oracle.emplace(key, value); }
        break;
      case operation::insert_or_assign:
        expected.status = present ? operation_status::assigned : operation_status::inserted;
        oracle[key] = value;
        break;
      case operation::erase:
        expected.status = present ? operation_status::erased : operation_status::not_found;
        oracle.erase(key);
        break;
    }
    return expected;
  }

  static std::pair<statuses_t, std::vector<key64>> host_execute(map64<host>& map, const std::vector<operation>& ops,
                                                                const std::vector<key64>& keys,
                                                                const std::vector<key64>& values)
  {
    std::vector<key64> values_out(keys.size(), poison64);
    statuses_t statuses(keys.size());
    map.execute(ops, keys, values, values_out, statuses);
    return {statuses, values_out};
  }
};
TYPED_TEST_SUITE(slab_key64_test, all_backends, backend_names);

TYPED_TEST(slab_key64_test, MapMixedBatchesMatchTheOracleFixedSeed)
{
  this->run_random_batches(6401);
}

TYPED_TEST(slab_key64_test, MapMixedBatchesMatchTheOracleFreshSeed)
{
  this->run_random_batches(std::random_device{}());
}

TYPED_TEST(slab_key64_test, KeysDifferingOnlyInTheHighHalfAreDistinctAndSpread)
{
  // 4096 keys with one low half: a table that hashed or compared the low half alone would hold one key
  // (or one list of 4096).
  const std::size_t n = 4096;
  std::vector<key64> keys(n);
  std::vector<key64> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = (static_cast<key64>(i + 1) << 32) | 0x1234U;
    values[i] = ~keys[i];
  }
  map64<TypeParam> map(this->backend(), map64<TypeParam>::capacity_for(n));
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  map.insert(device_keys.span(), device_values.span());
  const hash::slab_statistics stats = map.statistics();
  EXPECT_EQ(stats.live, n);
  EXPECT_LE(stats.longest_chain, 4U) << "keys differing in the high half crowd into few buckets";
  auto found = this->poisoned(n, poison64);
  auto statuses = this->poisoned(n, operation_status::assigned);
  map.find(device_keys.span(), found.span(), statuses.span());
  EXPECT_EQ(found.to_vector(), values);
  EXPECT_EQ(statuses.to_vector(), statuses_t(n, operation_status::found));
  // The same low half with a high half never inserted is absent.
  std::vector<key64> absent(n);
  for (std::size_t i = 0; i < n; ++i) { absent[i] = (static_cast<key64>(n + 1 + i) << 32) | 0x1234U; }
  auto device_absent = this->put(absent);
  auto contained = this->template poisoned<std::uint8_t>(n, 2);
  map.contains(device_absent.span(), contained.span());
  EXPECT_EQ(contained.to_vector(), std::vector<std::uint8_t>(n, 0));
}

TYPED_TEST(slab_key64_test, RepeatedKeysCombinedRunSequentiallyInInputOrder)
{
  // Mixed batches over few keys, combined: each key's elements are one sequential run in input order,
  // so a std::unordered_map run in input order gives every status and value exactly.
  seeded_random random;
  const auto hot = wide_keys(random, 24);
  map64<TypeParam> map(this->backend(), map64<TypeParam>::capacity_for(64));
  map.set_batch_options({hash::tile_lanes::automatic, hash::batch_order::automatic, hash::batch_combine::always});
  oracle_map oracle;
  for (int round = 0; round < 4; ++round) {
    const std::size_t n = 20000;
    std::vector<operation> ops(n);
    std::vector<key64> keys(n), values(n);
    for (std::size_t i = 0; i < n; ++i) {
      ops[i] = static_cast<operation>(random() % hash::operation_count);
      keys[i] = hot[random() % hot.size()];
      values[i] = random();
    }
    const auto [statuses, values_out] = this->execute(map, ops, keys, values);
    for (std::size_t i = 0; i < n; ++i) {
      const auto expected = TestFixture::apply(oracle, ops[i], keys[i], values[i]);
      ASSERT_EQ(statuses[i], expected.status) << "round " << round << " element " << i;
      ASSERT_EQ(values_out[i], expected.value_out) << "round " << round << " element " << i;
    }
    ASSERT_EQ(this->exported(map), oracle);
  }
}

TYPED_TEST(slab_key64_test, ContendedInsertionsOfOneKeyInsertItOnce)
{
  // Uncombined, every element of a key races for one slot (the pending-slot protocol of a 64 / 64
  // pair): one insert reports inserted, the others already_present, and the value kept is one of
  // theirs; concurrent finds see that value or nothing; assignments leave one of theirs.
  seeded_random random;
  const auto keys_used = wide_keys(random, 8);
  map64<TypeParam> map(this->backend(), map64<TypeParam>::capacity_for(64));
  map.set_batch_options({hash::tile_lanes::automatic, hash::batch_order::automatic, hash::batch_combine::never});
  const std::size_t n = 8192;
  std::vector<operation> ops(n);
  std::vector<key64> keys(n), values(n);
  for (std::size_t i = 0; i < n; ++i) {
    ops[i] = i % 5 == 4 ? operation::find : operation::insert;  // every key gets both (5 and 8 are coprime)
    keys[i] = keys_used[i % keys_used.size()];
    values[i] = (keys[i] ^ 0x5555) + i;
  }
  const auto [statuses, values_out] = this->execute(map, ops, keys, values);
  const oracle_map held = this->exported(map);
  ASSERT_EQ(held.size(), keys_used.size());
  std::map<key64, std::size_t> inserted;
  for (std::size_t i = 0; i < n; ++i) {
    const key64 value = held.at(keys[i]);
    if (ops[i] == operation::insert) {
      ASSERT_TRUE(statuses[i] == operation_status::inserted || statuses[i] == operation_status::already_present);
      if (statuses[i] == operation_status::inserted) {
        ++inserted[keys[i]];
        EXPECT_EQ(values[i], value) << "the inserted element's value is not the one kept";
      }
    } else if (statuses[i] == operation_status::found) {
      EXPECT_EQ(values_out[i], value) << "a find saw a value the key never held";
    } else {
      ASSERT_EQ(statuses[i], operation_status::not_found);
    }
  }
  for (const key64 key : keys_used) { EXPECT_EQ(inserted[key], 1U) << "key " << key; }

  // Assignments of new values: every one reports assigned and each key ends with one of them.
  std::map<key64, std::unordered_set<key64>> assigned_values;
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = ~values[i];
    assigned_values[keys[i]].insert(values[i]);
  }
  std::vector<operation> assign(n, operation::insert_or_assign);
  EXPECT_EQ(this->execute(map, assign, keys, values).first, statuses_t(n, operation_status::assigned));
  for (const auto& [key, value] : this->exported(map)) {
    EXPECT_EQ(assigned_values[key].count(value), 1U) << "key " << key << " holds a value no assignment wrote";
  }
}

TYPED_TEST(slab_key64_test, SetMatchesTheOracle)
{
  seeded_random random;
  const auto universe = wide_keys(random, 4000);
  set64<TypeParam> set(this->backend(), set64<TypeParam>::capacity_for(1000));
  std::unordered_set<key64> oracle;
  for (int round = 0; round < 4; ++round) {
    std::vector<key64> keys(universe);
    std::shuffle(keys.begin(), keys.end(), random);
    keys.resize(2000);
    std::vector<operation> ops(keys.size());
    for (auto& op : ops) { op = static_cast<operation>(random() % hash::operation_count); }
    auto device_ops = this->put(ops);
    auto device_keys = this->put(keys);
    auto statuses = this->poisoned(keys.size(), static_cast<operation_status>(0xdead));
    set.execute(device_ops.span(), device_keys.span(), statuses.span());
    const auto host_statuses = statuses.to_vector();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const bool present = oracle.count(keys[i]) != 0;
      operation_status expected = operation_status::not_found;
      switch (ops[i]) {
        case operation::find:
          expected = present ? operation_status::found : operation_status::not_found;
          break;
        case operation::insert:
          expected = present ? operation_status::already_present : operation_status::inserted;
          oracle.insert(keys[i]);
          break;
        case operation::insert_or_assign:
          expected = present ? operation_status::assigned : operation_status::inserted;
          oracle.insert(keys[i]);
          break;
        case operation::erase:
          expected = present ? operation_status::erased : operation_status::not_found;
          oracle.erase(keys[i]);
          break;
      }
      ASSERT_EQ(host_statuses[i], expected) << "round " << round << " key " << keys[i];
    }
    auto exported = make_buffer<key64>(this->backend(), set.size());
    ASSERT_EQ(set.export_keys(exported.span()), oracle.size());
    const auto host_exported = exported.to_vector();
    EXPECT_EQ(std::unordered_set<key64>(host_exported.begin(), host_exported.end()), oracle);
  }
  set.rehash();
  EXPECT_EQ(set.size(), oracle.size());
}

TYPED_TEST(slab_key64_test, MultimapKeepsDuplicatesAndMatchesTheOracle)
{
  seeded_random random;
  const auto key_pool = wide_keys(random, 300);
  multimap64<TypeParam> multimap(this->backend(), multimap64<TypeParam>::capacity_for(2000, 0.6, 4));
  std::map<key64, std::vector<key64>> oracle;
  // Every key several times, some pairs exactly repeated.
  std::vector<key64> keys, values;
  for (std::size_t i = 0; i < 3000; ++i) {
    keys.push_back(key_pool[random() % key_pool.size()]);
    values.push_back(i % 5 == 0 ? 7 : random());
  }
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  multimap.insert(device_keys.span(), device_values.span());
  for (std::size_t i = 0; i < keys.size(); ++i) { oracle[keys[i]].push_back(values[i]); }

  // One erase of a third of the pool's keys, erase_all of another third.
  std::vector<key64> erased_once(key_pool.begin(), key_pool.begin() + 100);
  std::vector<key64> erased_all(key_pool.begin() + 100, key_pool.begin() + 200);
  auto device_once = this->put(erased_once);
  auto once_statuses = this->poisoned(erased_once.size(), operation_status::assigned);
  multimap.erase(device_once.span(), once_statuses.span());
  auto device_all = this->put(erased_all);
  auto all_statuses = this->poisoned(erased_all.size(), operation_status::assigned);
  multimap.erase_all(device_all.span(), all_statuses.span());
  const auto once = once_statuses.to_vector();
  for (std::size_t i = 0; i < erased_once.size(); ++i) {
    auto& held = oracle[erased_once[i]];
    ASSERT_EQ(once[i], held.empty() ? operation_status::not_found : operation_status::erased);
    // Which instance an erase removes is unspecified: read it from the table afterwards.
  }
  const auto all = all_statuses.to_vector();
  for (std::size_t i = 0; i < erased_all.size(); ++i) {
    ASSERT_EQ(all[i], oracle[erased_all[i]].empty() ? operation_status::not_found : operation_status::erased);
    oracle.erase(erased_all[i]);
  }

  // Counts and find_all of every pool key.
  auto queries = this->put(key_pool);
  auto offsets = make_buffer<std::uint64_t>(this->backend(), key_pool.size() + 1);
  const std::uint64_t total = multimap.find_all_offsets(queries.span(), offsets.span());
  auto found = make_buffer<key64>(this->backend(), total);
  multimap.find_all(queries.span(), offsets.span(), found.span());
  const auto host_offsets = offsets.to_vector();
  const auto host_found = found.to_vector();
  std::uint64_t expected_total = 0;
  for (std::size_t q = 0; q < key_pool.size(); ++q) {
    std::vector<key64> got(host_found.begin() + static_cast<std::ptrdiff_t>(host_offsets[q]),
                           host_found.begin() + static_cast<std::ptrdiff_t>(host_offsets[q + 1]));
    std::sort(got.begin(), got.end());
    std::vector<key64> expected = oracle.count(key_pool[q]) != 0 ? oracle[key_pool[q]] : std::vector<key64>{};
    std::sort(expected.begin(), expected.end());
    const bool erased_one = q < 100 && !expected.empty();
    if (erased_one) {
      // One instance is gone: `got` is `expected` less one value.
      ASSERT_EQ(got.size() + 1, expected.size()) << "key " << key_pool[q];
      EXPECT_TRUE(std::includes(expected.begin(), expected.end(), got.begin(), got.end())) << "key " << key_pool[q];
      expected = got;
    } else {
      EXPECT_EQ(got, expected) << "key " << key_pool[q];
    }
    expected_total += expected.size();
  }
  EXPECT_EQ(total, expected_total);
  EXPECT_EQ(multimap.size(), expected_total);
}

TYPED_TEST(slab_key64_test, ReservedKeysAreRefusedNamingTheElement)
{
  map64<TypeParam> map(this->backend(), map64<TypeParam>::capacity_for(100));
  set64<TypeParam> set(this->backend(), set64<TypeParam>::capacity_for(100));
  multimap64<TypeParam> multimap(this->backend(), multimap64<TypeParam>::capacity_for(100));
  for (const key64 reserved : {hash::empty_key64, hash::erased_key64, hash::pending_key64}) {
    const std::vector<key64> keys{1, hash::max_user_key64, reserved, 4};
    auto device_keys = this->put(keys);
    auto values = this->put(std::vector<key64>(keys.size(), 9));
    expect_error_mentioning<error>(
        [&] { map.insert(device_keys.span(), values.span()); },
        {"slab_map::insert", "element 2", "reserved", "pending_key64", "nothing was changed"});
    expect_error_mentioning<error>([&] { set.insert(device_keys.span()); }, {"slab_set::insert", "element 2"});
    expect_error_mentioning<error>([&] { multimap.insert(device_keys.span(), values.span()); },
                                   {"slab_multimap::insert", "element 2"});
    auto counts = make_buffer<std::uint64_t>(this->backend(), keys.size());
    expect_error_mentioning<error>([&] { multimap.count(device_keys.span(), counts.span()); },
                                   {"slab_multimap::count", "element 2"});
  }
  EXPECT_EQ(map.size(), 0U);
  EXPECT_EQ(set.size(), 0U);
  EXPECT_EQ(multimap.size(), 0U);
  // The largest user key is an ordinary key.
  const std::vector<key64> largest{hash::max_user_key64};
  auto device_largest = this->put(largest);
  map.insert(device_largest.span(), this->put(std::vector<key64>{5}).span());
  EXPECT_EQ(this->exported(map), (oracle_map{{hash::max_user_key64, 5}}));
}

TYPED_TEST(slab_key64_test, GrowingMapKeepsEveryPairThroughGrowthFlushAndRehash)
{
  seeded_random random;
  const auto keys = wide_keys(random, 20000);
  std::vector<key64> values(keys.size());
  for (auto& value : values) { value = random(); }
  hash::slab_capacity small = map64<TypeParam>::capacity_for(500);
  map64<TypeParam> map(this->backend(), small);
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  map.insert(device_keys.span(), device_values.span());  // far past the sizing: the pool grows
  oracle_map oracle;
  for (std::size_t i = 0; i < keys.size(); ++i) { oracle.emplace(keys[i], values[i]); }
  EXPECT_GT(map.statistics().super_block_count, 1U);
  EXPECT_EQ(this->exported(map), oracle);
  const std::vector<key64> half(keys.begin(), keys.begin() + 10000);
  auto device_half = this->put(half);
  map.erase(device_half.span());
  for (const key64 key : half) { oracle.erase(key); }
  map.flush();
  EXPECT_EQ(map.statistics().erased, 0U);
  EXPECT_EQ(this->exported(map), oracle);
  map.rehash();
  EXPECT_EQ(this->exported(map), oracle);
}

TEST(slab_key64_hash, Mix64HashSpreadsKeysThatShareAHalf)
{
  // Buckets of 1024 keys differing only in the high half, and of 1024 keys whose low halves agree
  // modulo 2^16: no bucket of 256 far above the mean of 4.
  const hash::mix64_key_hash hasher(42);
  for (const int pattern : {0, 1}) {
    std::vector<int> buckets(256, 0);
    for (key64 i = 0; i < 1024; ++i) {
      const key64 key = pattern == 0 ? (i << 32) | 77 : (i << 40) | (i << 16) | 5;
      ++buckets[hasher(key) % buckets.size()];
    }
    EXPECT_LE(*std::max_element(buckets.begin(), buckets.end()), 16) << "pattern " << pattern;
  }
  EXPECT_NE(hash::mix64_key_hash(1)(12345), hash::mix64_key_hash(2)(12345)) << "the seed changes the hash";
}

}  // namespace
