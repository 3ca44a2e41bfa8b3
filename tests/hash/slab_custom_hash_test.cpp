// Slab tables with a hasher and key equality of the user's (hash/hashers.hpp), on every backend,
// instantiated as a user would (hash/instantiate.hpp: here for the host backend, in
// slab_custom_hash_instances.cu for cuda): a key equality that equates keys with equal low halves
// (map: mixed batches against an oracle of key classes, stored keys included; multimap: count, find_all
// and erase_all by any key of a class), an adversarial hasher that puts every key in one list (set,
// through growth and rehash), and a seeded 64-bit hasher whose collisions the table must follow, with
// combined batches of repeated keys. Fixed seeds and a fresh one.
#include "hash/custom_hashers.hpp"
#include "hash/multimap_check.hpp"
#include "hash/slab_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>


namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::operation;
using hash::operation_status;

std::vector<std::uint64_t> custom_seeds()
{
  return {17, 20261124, std::random_device{}()};
}

constexpr operation all_operations[] = {operation::find, operation::insert, operation::insert_or_assign,
                                        operation::erase};

/// A key of class `key_class` with random high bits.
std::uint32_t key_in_class(std::mt19937_64& random, std::uint32_t key_class)
{
  // High halves below 0xffff keep every key below the reserved ones.
  return (static_cast<std::uint32_t>(random() % key_class_mask) << 16) | key_class;
}

template <class Backend>
class slab_custom_hash_test : public multimap_backend_test<Backend> {
 protected:
  /// Every pair of `map`, exported, by key.
  template <class Map>
  std::unordered_map<std::uint32_t, std::uint32_t> exported_pairs(const Map& map) const
  {
    const std::uint64_t size = map.size();
    auto keys = make_buffer<std::uint32_t>(this->backend(), size);
    auto values = make_buffer<std::uint32_t>(this->backend(), size);
    EXPECT_EQ(map.export_pairs(keys.span(), values.span()), size);
    const auto host_keys = keys.to_vector();
    const auto host_values = values.to_vector();
    std::unordered_map<std::uint32_t, std::uint32_t> pairs;
    for (std::size_t i = 0; i < size; ++i) { EXPECT_TRUE(pairs.emplace(host_keys[i], host_values[i]).second); }
    return pairs;
  }
};
TYPED_TEST_SUITE(slab_custom_hash_test, all_backends, backend_names);

TYPED_TEST(slab_custom_hash_test, KeyEqualityMakesEqualKeysOneKey)
{
  using map_type = class_map<TypeParam>;
  constexpr std::size_t rounds = 6;
  constexpr std::size_t batch = 3000;
  constexpr std::uint32_t classes = 4000;  // fewer than rounds * batch: later rounds meet earlier classes
  for (const std::uint64_t seed : custom_seeds()) {
    seeded_random random(seed);
    map_type map(this->backend(), map_type::capacity_for(classes / 4));
    // Class -> (the key stored for it, its value): what export must show.
    std::unordered_map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> oracle;
    for (std::size_t round = 0; round < rounds; ++round) {
      if (round == 3) {
        // Combining would group keys by their bits; with this equality the table never combines.
        hash::batch_options always;
        always.combine = hash::batch_combine::always;
        map.set_batch_options(always);
      }
      // Distinct classes within the batch, so each element's outcome is exact.
      std::vector<std::uint32_t> batch_classes(classes);
      for (std::uint32_t c = 0; c < classes; ++c) { batch_classes[c] = c * 13 + 5; }
      std::shuffle(batch_classes.begin(), batch_classes.end(), random);
      std::vector<operation> ops(batch);
      std::vector<std::uint32_t> keys(batch), values(batch);
      for (std::size_t i = 0; i < batch; ++i) {
        ops[i] = all_operations[random() % 4];
        keys[i] = key_in_class(random, batch_classes[i]);
        values[i] = static_cast<std::uint32_t>(random());
      }
      const auto [statuses, values_out] = this->execute(map, ops, keys, values);
      for (std::size_t i = 0; i < batch; ++i) {
        const std::uint32_t key_class = keys[i] & key_class_mask;
        const auto at = oracle.find(key_class);
        const bool present = at != oracle.end();
        operation_status expected = operation_status::not_found;
        std::uint32_t expected_out = poison_value;
        switch (ops[i]) {
          case operation::find:
            if (present) {
              expected = operation_status::found;
              expected_out = at->second.second;
            }
            break;
          case operation::insert:
            expected = present ? operation_status::already_present : operation_status::inserted;
            if (!present) { oracle.emplace(key_class, std::pair{keys[i], values[i]}); }
            break;
          case operation::insert_or_assign:
            expected = present ? operation_status::assigned : operation_status::inserted;
            if (present) {
              at->second.second = values[i];  // the stored key stays
            } else {
              oracle.emplace(key_class, std::pair{keys[i], values[i]});
            }
            break;
          case operation::erase:
            expected = present ? operation_status::erased : operation_status::not_found;
            if (present) { oracle.erase(at); }
            break;
        }
        ASSERT_EQ(statuses[i], expected) << "round " << round << " element " << i << " key " << keys[i];
        ASSERT_EQ(values_out[i], expected_out) << "round " << round << " element " << i;
      }
      std::unordered_map<std::uint32_t, std::uint32_t> expected_pairs;
      for (const auto& [key_class, stored] : oracle) { expected_pairs.emplace(stored.first, stored.second); }
      ASSERT_EQ(this->exported_pairs(map), expected_pairs) << "round " << round;
      if (round == 4) {
        map.rehash(map.capacity().bucket_count * 3);
        ASSERT_EQ(this->exported_pairs(map), expected_pairs) << "after rehash";
      }
    }
  }
}

TYPED_TEST(slab_custom_hash_test, MultimapFindsEveryInstanceOfAKeyClass)
{
  using multimap_type = class_multimap<TypeParam>;
  for (const std::uint64_t seed : custom_seeds()) {
    seeded_random random(seed);
    multimap_type multimap(this->backend(), multimap_type::capacity_for(6000, hash::default_base_fill, 4));
    // 1500 classes, about 4 pairs each, every pair under a key with its own high bits.
    std::vector<std::uint32_t> keys(6000), values(6000);
    std::map<std::uint32_t, std::vector<std::uint32_t>> by_class;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto key_class = static_cast<std::uint32_t>(random() % 1500);
      keys[i] = key_in_class(random, key_class);
      values[i] = static_cast<std::uint32_t>(random());
      by_class[key_class].push_back(values[i]);
    }
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    multimap.insert(device_keys.span(), device_values.span());
    EXPECT_EQ(multimap.size(), keys.size());
    // Query each class (and 500 absent ones) by a key that was never inserted.
    std::vector<std::uint32_t> queries;
    value_multisets oracle;
    for (std::uint32_t key_class = 0; key_class < 2000; ++key_class) {
      const std::uint32_t query = key_in_class(random, key_class);
      queries.push_back(query);
      const auto at = by_class.find(key_class);
      if (at == by_class.end()) { continue; }
      std::vector<std::uint32_t> class_values = at->second;
      std::sort(class_values.begin(), class_values.end());
      oracle[query] = class_values;
    }
    this->expect_queries_match(multimap, queries, oracle);
    // erase_all by other keys of the first 700 classes removes every instance of those classes.
    std::vector<std::uint32_t> doomed(queries.begin(), queries.begin() + 700);
    for (std::uint32_t& key : doomed) { key = key_in_class(random, key & key_class_mask); }
    auto device_doomed = this->put(doomed);
    auto statuses = this->template poisoned<operation_status>(doomed.size(), operation_status::found);
    multimap.erase_all(device_doomed.span(), statuses.span());
    const auto host_statuses = statuses.to_vector();
    std::uint64_t left = keys.size();
    for (std::size_t i = 0; i < doomed.size(); ++i) {
      const auto at = by_class.find(doomed[i] & key_class_mask);
      ASSERT_EQ(host_statuses[i], at == by_class.end() ? operation_status::not_found : operation_status::erased);
      if (at != by_class.end()) { left -= at->second.size(); }
      oracle.erase(queries[i]);
    }
    EXPECT_EQ(multimap.size(), left);
    this->expect_queries_match(multimap, queries, oracle);
  }
}

TYPED_TEST(slab_custom_hash_test, AdversarialHasherPutsEveryKeyInOneList)
{
  using set_type = constant_set<TypeParam>;
  for (const std::uint64_t seed : custom_seeds()) {
    seeded_random random(seed);
    const auto keys = distinct_keys(random, 3000);
    set_type set(this->backend(), hash::slab_capacity{64, 0});
    auto device_keys = this->put(keys);
    set.insert(device_keys.span());
    const std::unordered_set<std::uint32_t> oracle(keys.begin(), keys.end());
    EXPECT_EQ(export_set(set), oracle);
    const auto stats = set.statistics();
    // Bucket 7 of 64 holds every key: one list of ceil(3000 / 31) slabs, the others one empty base slab.
    const std::uint64_t list_slabs = (keys.size() + set_type::keys_per_slab - 1) / set_type::keys_per_slab;
    EXPECT_EQ(stats.longest_chain, list_slabs);
    EXPECT_EQ(stats.slabs_in_use, list_slabs + 63);
    auto found = make_filled_buffer<std::uint8_t>(this->backend(), keys.size(), 2);
    set.contains(device_keys.span(), found.span());
    for (const std::uint8_t each : found.to_vector()) { ASSERT_EQ(each, 1u); }
    // Growth and rehash go through the same hasher: one list again, every key kept.
    set.rehash(1000);
    EXPECT_EQ(export_set(set), oracle);
    EXPECT_EQ(set.statistics().longest_chain, list_slabs);
  }
}

TYPED_TEST(slab_custom_hash_test, SeededHasherDecidesTheBuckets)
{
  using map_type = multiply_map<TypeParam>;
  constexpr std::uint32_t buckets = 64;
  for (const std::uint64_t seed : custom_seeds()) {
    seeded_random random(seed);
    const multiply_shift_hash expected_hasher(seed);
    // A pool the batches never exhaust: a combined batch whose insertion runs out and is retried after
    // a growth no longer reports its key's later elements in input order.
    map_type map(this->backend(), hash::slab_capacity{buckets, 2 * hash::slabs_per_block}, seed);
    ASSERT_EQ(map.hash_function().multiplier, expected_hasher.multiplier);
    // Keys this hasher sends to bucket 0: one list of them, whatever another hasher would do.
    std::vector<std::uint32_t> colliding;
    std::unordered_set<std::uint32_t> seen;
    while (colliding.size() < 700) {
      const auto key = static_cast<std::uint32_t>(random() % hash::max_user_key);
      if (expected_hasher(key) % buckets == 0 && seen.insert(key).second) { colliding.push_back(key); }
    }
    // Mixed batches over those keys, repeated (a Zipf draw), combined so each key's elements run in
    // input order: the oracle is the sequential run of the batch.
    hash::batch_options always;
    always.combine = hash::batch_combine::always;
    map.set_batch_options(always);
    std::unordered_map<std::uint32_t, std::uint32_t> oracle;
    for (int round = 0; round < 4; ++round) {
      const auto keys = zipf_draws(random, colliding, 4000, 1.0);
      std::vector<operation> ops(keys.size());
      std::vector<std::uint32_t> values(keys.size());
      for (std::size_t i = 0; i < keys.size(); ++i) {
        ops[i] = all_operations[random() % 4];
        values[i] = static_cast<std::uint32_t>(random());
      }
      const auto [statuses, values_out] = this->execute(map, ops, keys, values);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const expected_outcome expected = apply_to_oracle(oracle, ops[i], keys[i], values[i]);
        ASSERT_EQ(statuses[i], expected.status) << "round " << round << " element " << i;
        ASSERT_EQ(values_out[i], expected.value_out) << "round " << round << " element " << i;
      }
      ASSERT_EQ(this->exported_pairs(map), oracle);
    }
    const auto stats = map.statistics();
    const std::uint64_t list_slabs = (oracle.size() + map_type::pairs_per_slab - 1) / map_type::pairs_per_slab;
    EXPECT_GE(stats.longest_chain, list_slabs) << "every key in bucket 0's list";
  }
}

}  // namespace
