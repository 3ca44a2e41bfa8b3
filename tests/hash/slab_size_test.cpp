// The slab size and the tile together, on every backend against std:: oracles: slab_multimap with
// 64-byte slabs (insert, count, find_all, erase of one and of all instances), and mixed batches with
// insertions on long lists of 128- and 64-byte maps under every tile size, which must all give the
// oracle's results (the cuda backend runs each operation on a tile, handing appends to the whole warp;
// the host backend ignores the tile).
#include "hash/multimap_check.hpp"
#include "hash/outcome_check.hpp"
#include "hash/slab_test_support.hpp"

#include <warpdex/hash/batch_options.hpp>
#include <warpdex/hash/slab_multimap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::batch_order;
using hash::operation;
using hash::operation_status;
using hash::tile_lanes;

constexpr tile_lanes every_fixed_tile[] = {tile_lanes::one, tile_lanes::four, tile_lanes::eight, tile_lanes::sixteen,
                                           tile_lanes::warp};
/// Keys per base-slab data slot of the long-list tables: lists about 3.5 slabs long, so many
/// insertions reach the end of a full list and append.
constexpr std::uint32_t keys_per_base_slot = 3;

/// Buckets for `keys` keys at keys_per_base_slot keys per data slot of their base slab, and no pool:
/// every overflow slab comes from growth.
hash::slab_capacity long_lists(std::uint64_t keys, std::uint32_t data_slots)
{
  return {static_cast<std::uint32_t>(std::max<std::uint64_t>(1, keys / (keys_per_base_slot * data_slots))), 0};
}

std::string describe(tile_lanes tile)
{
  return "tile " + std::to_string(static_cast<unsigned>(tile));
}

// ---- slab_multimap with 64-byte slabs. ----

constexpr std::uint32_t small_slab_bytes = 64;
/// Each key holds 1 to this many pairs; some pairs repeat exactly.
constexpr std::uint32_t most_values_per_key = 5;

template <class Backend>
class slab_small_multimap_test : public multimap_backend_test<Backend> {
 protected:
  using multimap_type = hash::slab_multimap<std::uint32_t, std::uint32_t, Backend, small_slab_bytes>;
};
TYPED_TEST_SUITE(slab_small_multimap_test, all_backends, backend_names);

TYPED_TEST(slab_small_multimap_test, EveryOperationMatchesTheOracleUnderEveryTile)
{
  using multimap_type = typename TestFixture::multimap_type;
  static_assert(multimap_type::pairs_per_slab == 7 && multimap_type::slab_bytes == small_slab_bytes);
  seeded_random random;
  const std::size_t key_count = 700;
  for (const tile_lanes tile : every_fixed_tile) {
    SCOPED_TRACE(describe(tile));
    const auto universe = distinct_keys(random, 2 * key_count);
    const std::vector<std::uint32_t> keys(universe.begin(), universe.begin() + key_count);
    // Key j holds 1 to most_values_per_key pairs, the first value twice when it holds three or more.
    std::vector<std::uint32_t> pair_keys, pair_values;
    value_multisets oracle;
    for (const std::uint32_t key : keys) {
      const auto held = static_cast<std::uint32_t>(1 + random() % most_values_per_key);
      const auto first = static_cast<std::uint32_t>(random());
      for (std::uint32_t copy = 0; copy < held; ++copy) {
        pair_keys.push_back(key);
        pair_values.push_back(copy == 1 && held >= 3 ? first : first + copy);
        oracle[key].push_back(pair_values.back());
      }
    }
    for (auto& [key, values] : oracle) { std::sort(values.begin(), values.end()); }
    // Interleave the keys' pairs so one batch holds many insertions of each key at once.
    std::vector<std::size_t> order(pair_keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) { order[i] = i; }
    std::shuffle(order.begin(), order.end(), random);
    std::vector<std::uint32_t> shuffled_keys, shuffled_values;
    for (const std::size_t i : order) {
      shuffled_keys.push_back(pair_keys[i]);
      shuffled_values.push_back(pair_values[i]);
    }
    multimap_type multimap(this->backend(), long_lists(pair_keys.size(), multimap_type::pairs_per_slab));
    multimap.set_batch_options({tile, batch_order::input});
    auto device_keys = this->put(shuffled_keys);
    auto device_values = this->put(shuffled_values);
    auto statuses = this->template poisoned<operation_status>(shuffled_keys.size(), operation_status::found);
    multimap.insert(device_keys.span(), device_values.span(), statuses.span());
    for (const operation_status status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::inserted); }
    ASSERT_EQ(this->exported(multimap), oracle);
    EXPECT_EQ(multimap.statistics().reserved_bytes % small_slab_bytes, 0U);
    std::vector<std::uint32_t> queries = universe;
    std::shuffle(queries.begin(), queries.end(), random);
    this->expect_queries_match(multimap, queries, oracle);

    // Erase key j 0 to 3 times (absent keys too): min(requests, held) report erased, the rest not_found,
    // and each erasure removes one of the key's values.
    std::vector<std::uint32_t> erase_keys;
    std::map<std::uint32_t, std::uint32_t> requests;
    for (const std::uint32_t key : universe) {
      const auto times = static_cast<std::uint32_t>(random() % 4);
      requests[key] = times;
      for (std::uint32_t copy = 0; copy < times; ++copy) { erase_keys.push_back(key); }
    }
    std::shuffle(erase_keys.begin(), erase_keys.end(), random);
    auto device_erase_keys = this->put(erase_keys);
    auto erase_statuses = this->template poisoned<operation_status>(erase_keys.size(), operation_status::found);
    multimap.erase(device_erase_keys.span(), erase_statuses.span());
    const auto host_erase_statuses = erase_statuses.to_vector();
    std::map<std::uint32_t, std::uint32_t> erased;
    for (std::size_t i = 0; i < erase_keys.size(); ++i) {
      if (host_erase_statuses[i] == operation_status::erased) {
        ++erased[erase_keys[i]];
      } else {
        ASSERT_EQ(host_erase_statuses[i], operation_status::not_found) << "key " << erase_keys[i];
      }
    }
    const value_multisets after = this->exported(multimap);
    for (const auto& [key, times] : requests) {
      const auto held = oracle.find(key);
      const std::size_t before = held == oracle.end() ? 0 : held->second.size();
      const std::size_t removed = std::min<std::size_t>(times, before);
      ASSERT_EQ(erased[key], removed) << "key " << key;
      const auto left = after.find(key);
      const std::size_t remaining = left == after.end() ? 0 : left->second.size();
      ASSERT_EQ(remaining, before - removed) << "key " << key;
      if (remaining > 0) {
        ASSERT_TRUE(std::includes(held->second.begin(), held->second.end(), left->second.begin(), left->second.end()))
            << "key " << key << " holds a value it never had";
      }
    }
    for (const auto& [key, values] : after) { ASSERT_EQ(requests.count(key), 1U) << "key " << key << " appeared"; }
    oracle = after;

    // erase_all of every other key of the universe: erased exactly for the keys that held a value.
    std::vector<std::uint32_t> doomed;
    for (std::size_t i = 0; i < universe.size(); i += 2) { doomed.push_back(universe[i]); }
    auto device_doomed = this->put(doomed);
    auto all_statuses = this->template poisoned<operation_status>(doomed.size(), operation_status::found);
    multimap.erase_all(device_doomed.span(), all_statuses.span());
    const auto host_all_statuses = all_statuses.to_vector();
    for (std::size_t i = 0; i < doomed.size(); ++i) {
      const bool held = oracle.erase(doomed[i]) == 1;
      ASSERT_EQ(host_all_statuses[i], held ? operation_status::erased : operation_status::not_found)
          << "key " << doomed[i];
    }
    ASSERT_EQ(this->exported(multimap), oracle);
    this->expect_queries_match(multimap, queries, oracle);
  }
}

// ---- Mixed batches with insertions under every tile, 128- and 64-byte slabs. ----

using oracle_map = std::unordered_map<std::uint32_t, std::uint32_t>;

template <class Config>
class slab_tile_test : public slab_backend_test<typename Config::backend_type> {
 protected:
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, typename Config::backend_type, Config::slab_bytes>;

  struct outcome {
    std::vector<operation_status> statuses;
    std::vector<std::uint32_t> values_out;
    oracle_map pairs;
    bool operator==(const outcome&) const = default;
  };

  /// Builds a long-list map from `initial` (value = key) with `tile`, runs the mixed batch and returns
  /// what it reported and the pairs it left.
  outcome run(tile_lanes tile, const std::vector<std::uint32_t>& initial, const std::vector<operation>& ops,
              const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values) const
  {
    map_type map(this->backend(), long_lists(initial.size(), map_type::pairs_per_slab));
    map.set_batch_options({tile, batch_order::input});
    auto device_initial = this->put(initial);
    auto initial_statuses = this->template poisoned<operation_status>(initial.size(), operation_status::found);
    map.insert(device_initial.span(), device_initial.span(), initial_statuses.span());
    for (const operation_status status : initial_statuses.to_vector()) {
      EXPECT_EQ(status, operation_status::inserted);
    }
    auto device_ops = this->put(ops);
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    auto values_out = this->template poisoned<std::uint32_t>(keys.size(), poison_value);
    auto statuses = this->template poisoned<operation_status>(keys.size(), static_cast<operation_status>(0xdead));
    map.execute(device_ops.span(), device_keys.span(), device_values.span(), values_out.span(), statuses.span());
    return {statuses.to_vector(), values_out.to_vector(), export_map(map)};
  }
};
TYPED_TEST_SUITE(slab_tile_test, all_slab_configs, slab_config_names);

TYPED_TEST(slab_tile_test, MixedBatchWithInsertionsOnLongListsMatchesTheOracleUnderEveryTile)
{
  seeded_random random;
  const std::size_t n = 3000;
  const auto universe = distinct_keys(random, 3 * n);
  const std::vector<std::uint32_t> initial(universe.begin(), universe.begin() + n);
  // Each key once: finds, insertions and assignments of present and absent keys, erasures; the absent
  // two thirds of the universe make the insertions append to lists of about 3.5 slabs.
  std::vector<std::uint32_t> keys = universe;
  std::shuffle(keys.begin(), keys.end(), random);
  std::vector<operation> ops(keys.size());
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ops[i] = static_cast<operation>(random() % hash::operation_count);
    values[i] = static_cast<std::uint32_t>(random());
  }
  oracle_map oracle;
  for (const std::uint32_t key : initial) { oracle.emplace(key, key); }
  typename TestFixture::outcome expected;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const expected_outcome outcome = apply_to_oracle(oracle, ops[i], keys[i], values[i]);
    expected.statuses.push_back(outcome.status);
    expected.values_out.push_back(outcome.value_out);
  }
  expected.pairs = oracle;
  for (const tile_lanes tile : every_fixed_tile) {
    SCOPED_TRACE(describe(tile));
    const auto got = this->run(tile, initial, ops, keys, values);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(got.statuses[i], expected.statuses[i]) << "element " << i << " key " << keys[i];
      ASSERT_EQ(got.values_out[i], expected.values_out[i]) << "element " << i << " key " << keys[i];
    }
    ASSERT_EQ(got.pairs, expected.pairs);
  }
}

TYPED_TEST(slab_tile_test, SameKeyContentionShowsOnlyAllowedOutcomesUnderEveryTile)
{
  seeded_random random;
  constexpr std::size_t hot_key_count = 40;
  constexpr std::size_t batch_size = 4096;  // ~100 operations per key
  for (const tile_lanes tile : every_fixed_tile) {
    SCOPED_TRACE(describe(tile));
    const auto hot_keys = distinct_keys(random, hot_key_count);
    const std::vector<std::uint32_t> initial(hot_keys.begin(), hot_keys.begin() + hot_key_count / 2);
    std::vector<operation> ops(batch_size);
    std::vector<std::uint32_t> keys(batch_size), values(batch_size);
    for (std::size_t i = 0; i < batch_size; ++i) {
      ops[i] = static_cast<operation>(random() % hash::operation_count);
      keys[i] = hot_keys[random() % hot_keys.size()];
      values[i] = static_cast<std::uint32_t>(i);  // unique, so a seen value names its writer
    }
    const auto got = this->run(tile, initial, ops, keys, values);
    std::unordered_map<std::uint32_t, key_history> histories;
    for (const std::uint32_t key : initial) { histories[key].initial = key; }
    for (const auto& [key, value] : got.pairs) {
      ASSERT_EQ(std::count(hot_keys.begin(), hot_keys.end(), key), 1) << "a key no operation touched appeared";
      histories[key].final = value;
    }
    for (std::size_t i = 0; i < batch_size; ++i) {
      key_operation element{ops[i], values[i], got.statuses[i], std::nullopt};
      if (got.statuses[i] == operation_status::found) {
        element.value_out = got.values_out[i];
      } else {
        ASSERT_EQ(got.values_out[i], poison_value) << "element " << i;
      }
      histories[keys[i]].operations.push_back(element);
    }
    for (const auto& [key, history] : histories) { EXPECT_EQ(why_not_linearizable(history), "") << "key " << key; }
  }
}

}  // namespace
