// slab_multimap batches with repeated keys (batch_combine; detail/slab_combine.hpp, multiset_outcome) on
// every backend and slab size: Zipf-skewed mixed batches (s = 0.5, 1.0, 1.5, a fixed and a fresh seed)
// against a multiset model (combined: each key's finds, then its erasures, then its insertions, exactly;
// uncombined and automatic: only allowed outcomes), one key inserted and erased 2^20 times, and an
// exhausted pool.
#include "hash/multimap_check.hpp"
#include "hash/outcome_check.hpp"
#include "hash/slab_test_support.hpp"

#include <warpdex/hash/slab_multimap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::batch_combine;
using hash::operation;
using hash::operation_status;

constexpr auto unwritten_status = static_cast<operation_status>(0xdead);

template <class Config>
class slab_combine_multimap_test : public multimap_backend_test<typename Config::backend_type> {
 protected:
  using multimap_type =
      hash::slab_multimap<std::uint32_t, std::uint32_t, typename Config::backend_type, Config::slab_bytes>;

  struct outcome {
    std::vector<operation_status> statuses;
    std::vector<std::uint32_t> values_out;
  };

  /// A multimap holding `pairs`, which `initial` mirrors.
  multimap_type filled(const hash::slab_capacity& capacity, const std::vector<std::uint32_t>& keys,
                       const std::vector<std::uint32_t>& values, value_multisets& initial) const
  {
    multimap_type multimap(this->backend(), capacity);
    if (!keys.empty()) {
      auto device_keys = this->put(keys);
      auto device_values = this->put(values);
      multimap.insert(device_keys.span(), device_values.span());
    }
    for (std::size_t i = 0; i < keys.size(); ++i) { initial[keys[i]].push_back(values[i]); }
    return multimap;
  }

  outcome execute(multimap_type& multimap, batch_combine combine, const std::vector<operation>& ops,
                  const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values) const
  {
    multimap.set_batch_options({hash::tile_lanes::automatic, hash::batch_order::automatic, combine});
    auto device_ops = this->put(ops);
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    auto values_out = this->template poisoned<std::uint32_t>(keys.size(), poison_value);
    auto statuses = this->template poisoned<operation_status>(keys.size(), unwritten_status);
    multimap.execute(device_ops.span(), device_keys.span(), device_values.span(), values_out.span(), statuses.span());
    return {statuses.to_vector(), values_out.to_vector()};
  }

  /// Expects every key's elements and pairs to be those of some sequential run (outcome_check.hpp) and
  /// untouched keys to keep their pairs.
  void expect_allowed(const multimap_type& multimap, const value_multisets& before, const std::vector<operation>& ops,
                      const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                      const outcome& got) const
  {
    const value_multisets after = this->exported(multimap);
    std::unordered_map<std::uint32_t, multiset_history> histories;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_NE(got.statuses[i], unwritten_status) << "element " << i;
      key_operation element{ops[i], values[i], got.statuses[i], std::nullopt};
      if (got.statuses[i] == operation_status::found) {
        element.value_out = got.values_out[i];
      } else {
        ASSERT_EQ(got.values_out[i], poison_value) << "element " << i;
      }
      histories[keys[i]].operations.push_back(element);
    }
    for (auto& [key, history] : histories) {
      if (const auto it = before.find(key); it != before.end()) { history.initial = it->second; }
      if (const auto it = after.find(key); it != after.end()) { history.final = it->second; }
      ASSERT_EQ(why_not_linearizable_multiset(history), "") << "key " << key;
    }
    for (const auto& [key, key_values] : after) {
      if (histories.count(key) == 0) { ASSERT_EQ(before.at(key), key_values) << "untouched key " << key; }
    }
  }

  /// Expects the statuses of a combined batch exactly: per key, finds see the instances before the batch
  /// (a found value is one of them), then the erasures remove min(erasures, instances) in input order,
  /// then every insertion adds its pair.
  static void expect_combined(const value_multisets& before, const std::vector<operation>& ops,
                              const std::vector<std::uint32_t>& keys, const outcome& got)
  {
    std::unordered_map<std::uint32_t, std::uint64_t> erasures_seen;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto it = before.find(keys[i]);
      const std::uint64_t instances = it == before.end() ? 0 : it->second.size();
      operation_status expected = operation_status::inserted;
      if (ops[i] == operation::find) {
        expected = instances > 0 ? operation_status::found : operation_status::not_found;
        if (instances > 0) {
          ASSERT_TRUE(std::binary_search(it->second.begin(), it->second.end(), got.values_out[i])) << "element " << i;
        }
      } else if (ops[i] == operation::erase) {
        expected = erasures_seen[keys[i]]++ < instances ? operation_status::erased : operation_status::not_found;
      }
      ASSERT_EQ(got.statuses[i], expected) << "element " << i << " key " << keys[i];
    }
  }
};
TYPED_TEST_SUITE(slab_combine_multimap_test, all_slab_configs, slab_config_names);

TYPED_TEST(slab_combine_multimap_test, ZipfMixedBatchesKeepEveryPair)
{
  constexpr std::size_t universe_size = 512;
  constexpr std::size_t batch = std::size_t{1} << 14;
  for (const double exponent : {0.5, 1.0, 1.5}) {
    for (const std::uint64_t seed : {std::uint64_t{2024}, std::uint64_t{std::random_device{}()}}) {
      seeded_random random(seed);
      SCOPED_TRACE("exponent " + std::to_string(exponent));
      const auto universe = distinct_keys(random, universe_size);
      // Initial pairs: 0 to 3 values for each key of the universe.
      std::vector<std::uint32_t> initial_keys, initial_values;
      for (const std::uint32_t key : universe) {
        for (std::uint64_t copies = random() % 4; copies > 0; --copies) {
          initial_keys.push_back(key);
          initial_values.push_back(static_cast<std::uint32_t>(initial_values.size()));
        }
      }
      const auto keys = zipf_draws(random, universe, batch, exponent);
      std::vector<operation> ops(batch);
      std::vector<std::uint32_t> values(batch);
      for (std::size_t i = 0; i < batch; ++i) {
        const std::uint64_t draw = random() % 3;
        ops[i] = draw == 0 ? operation::find : draw == 1 ? operation::insert : operation::erase;
        values[i] = 0x40000000U + static_cast<std::uint32_t>(i);
      }
      const auto capacity = TestFixture::multimap_type::capacity_for(initial_keys.size() + batch);
      for (const batch_combine combine : {batch_combine::always, batch_combine::automatic, batch_combine::never}) {
        SCOPED_TRACE("combine " + std::to_string(static_cast<int>(combine)));
        value_multisets before;
        auto multimap = this->filled(capacity, initial_keys, initial_values, before);
        for (auto& [key, key_values] : before) { std::sort(key_values.begin(), key_values.end()); }
        const auto got = this->execute(multimap, combine, ops, keys, values);
        this->expect_allowed(multimap, before, ops, keys, values, got);
        if (combine == batch_combine::always) { this->expect_combined(before, ops, keys, got); }
      }
    }
  }
}

TYPED_TEST(slab_combine_multimap_test, OneKeyInsertedAndErasedMillionsOfTimes)
{
  // Uncombined, each of 2^20 insertions of one key walks the key's list to its end: 2^20 * 2^16 slab
  // reads (the host took 19 s for 100K insertions).
  constexpr std::size_t batch = std::size_t{1} << 20;
  seeded_random random;
  const auto key = static_cast<std::uint32_t>(random() % hash::max_user_key);
  std::vector<std::uint32_t> keys(batch, key);
  std::vector<std::uint32_t> values(batch);
  for (std::size_t i = 0; i < batch; ++i) { values[i] = static_cast<std::uint32_t>(i); }
  typename TestFixture::multimap_type multimap(this->backend(), TestFixture::multimap_type::capacity_for(1024));
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  auto statuses = this->template poisoned<operation_status>(batch, unwritten_status);
  const auto count = [&](operation_status wanted) {
    const auto host = statuses.to_vector();
    return static_cast<std::size_t>(std::count(host.begin(), host.end(), wanted));
  };
  multimap.insert(device_keys.span(), device_values.span(), statuses.span());
  EXPECT_EQ(count(operation_status::inserted), batch);
  const value_multisets pairs = this->exported(multimap);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs.at(key), values) << "every value once";
  // One more erasure than instances: the last in input order finds none left.
  keys.push_back(key);
  auto more_keys = this->put(keys);
  auto erase_statuses = this->template poisoned<operation_status>(keys.size(), unwritten_status);
  multimap.erase(more_keys.span(), erase_statuses.span());
  const auto erased = erase_statuses.to_vector();
  EXPECT_EQ(std::count(erased.begin(), erased.end() - 1, operation_status::erased), static_cast<std::ptrdiff_t>(batch));
  EXPECT_EQ(erased.back(), operation_status::not_found);
  EXPECT_EQ(multimap.size(), 0u);
}

TYPED_TEST(slab_combine_multimap_test, ExhaustedPoolShowsOnlyAllowedOutcomes)
{
  seeded_random random;
  const hash::slab_capacity capacity{1, 0, false};  // one base slab, no pool
  const auto universe = distinct_keys(random, 8);
  value_multisets before;
  auto multimap = this->filled(capacity, {universe[0], universe[0]}, {1, 2}, before);
  const auto keys = zipf_draws(random, universe, 2048, 1.0);
  std::vector<operation> ops(keys.size());
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ops[i] = random() % 4 == 0 ? operation::erase : operation::insert;
    values[i] = 100 + static_cast<std::uint32_t>(i);
  }
  const auto got = this->execute(multimap, batch_combine::always, ops, keys, values);
  EXPECT_GT(std::count(got.statuses.begin(), got.statuses.end(), operation_status::out_of_memory), 0);
  this->expect_allowed(multimap, before, ops, keys, values, got);
}

}  // namespace
