// Batches with repeated keys (batch_combine, detail/slab_combine.hpp) on every backend and slab size:
// Zipf-skewed keys (exponents 0.5, 1.0, 1.5, fixed and fresh seeds) and one key repeated up to 2^21
// times, against a sequential std::unordered_map model of slab_table.hpp. A combined batch runs each
// key's elements in input order, so it must equal the in-order model exactly; the direct path (never)
// and the automatic choice must show only allowed outcomes (outcome_check.hpp). Plus the exhausted
// and growing pools in a combined batch, sets, the transition algebra, the repeat estimate and the
// option's validation. Multimaps: slab_combine_multimap_test.cpp.
#include "hash/outcome_check.hpp"
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/hash/detail/slab_combine.hpp>
#include <warpdex/hash/slab_set.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::batch_combine;
using hash::operation;
using hash::operation_status;
using oracle_map = std::unordered_map<std::uint32_t, std::uint32_t>;

constexpr auto unwritten_status = static_cast<operation_status>(0xdead);

std::vector<operation> random_operations(std::mt19937_64& random, std::size_t count)
{
  std::vector<operation> ops(count);
  for (operation& op : ops) { op = static_cast<operation>(random() % hash::operation_count); }
  return ops;
}

/// Values unique per element, so a value seen names the element that wrote it.
std::vector<std::uint32_t> element_values(std::size_t count, std::uint32_t first)
{
  std::vector<std::uint32_t> values(count);
  for (std::size_t i = 0; i < count; ++i) { values[i] = first + static_cast<std::uint32_t>(i); }
  return values;
}

template <class Config>
class slab_combine_test : public slab_backend_test<typename Config::backend_type> {
 protected:
  using backend_type = typename Config::backend_type;
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, backend_type, Config::slab_bytes>;
  using set_type = hash::slab_set<std::uint32_t, backend_type, Config::slab_bytes>;

  struct outcome {
    std::vector<operation_status> statuses;
    std::vector<std::uint32_t> values_out;
  };

  /// A map holding `keys` (value = key + 1), mirrored in `oracle`.
  map_type filled_map(const hash::slab_capacity& capacity, const std::vector<std::uint32_t>& keys,
                      oracle_map& oracle) const
  {
    map_type map(this->backend(), capacity);
    if (keys.empty()) { return map; }
    std::vector<std::uint32_t> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      values[i] = keys[i] + 1;
      oracle.emplace(keys[i], values[i]);
    }
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    map.insert(device_keys.span(), device_values.span());
    return map;
  }

  outcome execute(map_type& map, batch_combine combine, const std::vector<operation>& ops,
                  const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values) const
  {
    map.set_batch_options({hash::tile_lanes::automatic, hash::batch_order::automatic, combine});
    auto device_ops = this->put(ops);
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    auto values_out = this->template poisoned<std::uint32_t>(keys.size(), poison_value);
    auto statuses = this->template poisoned<operation_status>(keys.size(), unwritten_status);
    map.execute(device_ops.span(), device_keys.span(), device_values.span(), values_out.span(), statuses.span());
    return {statuses.to_vector(), values_out.to_vector()};
  }

  /// Expects the outcome and the map to be exactly those of running the batch in input order on `oracle`.
  static void expect_in_order_run(const map_type& map, oracle_map oracle, const std::vector<operation>& ops,
                                  const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                                  const outcome& got)
  {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const expected_outcome expected = apply_to_oracle(oracle, ops[i], keys[i], values[i]);
      ASSERT_EQ(got.statuses[i], expected.status) << "element " << i << " key " << keys[i];
      ASSERT_EQ(got.values_out[i], expected.value_out) << "element " << i << " key " << keys[i];
    }
    EXPECT_EQ(export_map(map), oracle);
  }

  /// Expects every key's elements (out_of_memory ones left out: they change nothing) to be those of
  /// some sequential run from `before` to the map's state now, and no untouched key to change.
  static void expect_allowed_outcomes(const map_type& map, const oracle_map& before, const std::vector<operation>& ops,
                                      const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                                      const outcome& got)
  {
    const oracle_map after = export_map(map);
    std::unordered_map<std::uint32_t, key_history> histories;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      key_history& history = histories[keys[i]];
      ASSERT_NE(got.statuses[i], unwritten_status) << "element " << i;
      if (got.statuses[i] != operation_status::found) { ASSERT_EQ(got.values_out[i], poison_value); }
      if (got.statuses[i] == operation_status::out_of_memory) {
        ASSERT_TRUE(ops[i] == operation::insert || ops[i] == operation::insert_or_assign) << "element " << i;
        continue;
      }
      key_operation element{ops[i], values[i], got.statuses[i], std::nullopt};
      if (got.statuses[i] == operation_status::found) { element.value_out = got.values_out[i]; }
      history.operations.push_back(element);
    }
    for (auto& [key, history] : histories) {
      if (const auto it = before.find(key); it != before.end()) { history.initial = it->second; }
      if (const auto it = after.find(key); it != after.end()) { history.final = it->second; }
      ASSERT_EQ(why_not_linearizable(history), "") << "key " << key;
    }
    for (const auto& [key, value] : after) {
      if (histories.count(key) == 0) { ASSERT_EQ(before.at(key), value) << "untouched key " << key; }
    }
    for (const auto& [key, value] : before) {
      if (histories.count(key) == 0) { ASSERT_EQ(after.count(key), 1u) << "untouched key " << key << " vanished"; }
    }
  }
};
TYPED_TEST_SUITE(slab_combine_test, all_slab_configs, slab_config_names);

TYPED_TEST(slab_combine_test, ZipfMixedBatchesCombinedEqualTheInOrderRunAndOthersAreAllowed)
{
  constexpr std::size_t universe_size = 4096;
  constexpr std::size_t batch = std::size_t{1} << 15;
  for (const double exponent : {0.5, 1.0, 1.5}) {
    for (const std::uint64_t seed : {std::uint64_t{1701}, std::uint64_t{std::random_device{}()}}) {
      seeded_random random(seed);
      SCOPED_TRACE("exponent " + std::to_string(exponent));
      const auto universe = distinct_keys(random, universe_size);
      const std::vector<std::uint32_t> initial(universe.begin(), universe.begin() + universe_size / 2);
      const auto keys = zipf_draws(random, universe, batch, exponent);
      const auto batch_ops = random_operations(random, batch);
      const auto values = element_values(batch, 0x40000000U);
      const auto capacity = TestFixture::map_type::capacity_for(universe_size);
      for (const batch_combine combine : {batch_combine::always, batch_combine::automatic, batch_combine::never}) {
        SCOPED_TRACE("combine " + std::to_string(static_cast<int>(combine)));
        oracle_map before;
        auto map = this->filled_map(capacity, initial, before);
        const auto got = this->execute(map, combine, batch_ops, keys, values);
        if (combine == batch_combine::always) {
          this->expect_in_order_run(map, before, batch_ops, keys, values, got);
        } else {
          this->expect_allowed_outcomes(map, before, batch_ops, keys, values, got);
        }
      }
    }
  }
}

TYPED_TEST(slab_combine_test, LargeZipfMixedBatchesWriteTheirOutcomesInElementOrder)
{
  // 2^23 + 77 elements: a cuda batch this large writes its outcomes through a sort back by element
  // (sorted_outcomes_min_elements) instead of one random write per output. The host backend has no such
  // path, and its run of so large a batch would add seconds to every host build's tests: GPU only.
  if constexpr (std::is_same_v<typename TestFixture::backend_type, host>) {
    GTEST_SKIP() << "the host backend has no sorted outcomes; the other cases cover its combining";
  } else {
    constexpr std::size_t batch = (std::size_t{1} << 23) + 77;
    constexpr std::size_t universe_size = std::size_t{1} << 16;
    seeded_random random(8128);
    const auto universe = distinct_keys(random, universe_size);
    const std::vector<std::uint32_t> initial(universe.begin(), universe.begin() + universe_size / 2);
    const auto keys = zipf_draws(random, universe, batch, 1.0);
    const auto ops = random_operations(random, batch);
    const auto values = element_values(batch, 0x50000000U);
    {
      oracle_map before;
      auto map = this->filled_map(TestFixture::map_type::capacity_for(universe_size), initial, before);
      const auto got = this->execute(map, batch_combine::always, ops, keys, values);
      this->expect_in_order_run(map, before, ops, keys, values, got);
    }
    // From a pool that must grow: the first attempt's writes run out, the exhausted groups run again.
    oracle_map before;
    auto map = this->filled_map(hash::slab_capacity{64, 0, true}, {}, before);
    const auto got = this->execute(map, batch_combine::always, ops, keys, values);
    EXPECT_EQ(std::count(got.statuses.begin(), got.statuses.end(), operation_status::out_of_memory), 0);
    EXPECT_GT(map.statistics().super_block_count, 0u);
    this->expect_allowed_outcomes(map, before, ops, keys, values, got);
  }
}

TYPED_TEST(slab_combine_test, OneKeyMillionsOfTimesRunsLinearAndAsTheInOrderRun)
{
  // 2^21 elements on one key: uncombined, the erasures and insertions of a mixed batch would leave
  // about 2^19 tombstones in the key's list and walk them for every element (hours on two cores).
  constexpr std::size_t batch = std::size_t{1} << 21;
  seeded_random random;
  const std::uint32_t key = static_cast<std::uint32_t>(random() % hash::max_user_key);
  const std::vector<std::uint32_t> keys(batch, key);
  const auto ops = random_operations(random, batch);
  const auto values = element_values(batch, 1);
  for (const bool initially_present : {false, true}) {
    oracle_map before;
    auto map =
        this->filled_map(TestFixture::map_type::capacity_for(64),
                         initially_present ? std::vector<std::uint32_t>{key} : std::vector<std::uint32_t>{}, before);
    const auto got = this->execute(map, batch_combine::automatic, ops, keys, values);
    this->expect_in_order_run(map, before, ops, keys, values, got);
    const hash::slab_statistics stats = map.statistics();
    EXPECT_EQ(stats.longest_chain, 1u);
    EXPECT_LE(stats.erased, 1u) << "the batch reached the table as more than one write";
  }
}

TYPED_TEST(slab_combine_test, UniformBatchesOfOneKeyReportOneWinner)
{
  constexpr std::size_t batch = std::size_t{1} << 21;
  seeded_random random;
  const std::uint32_t key = static_cast<std::uint32_t>(random() % hash::max_user_key);
  const std::vector<std::uint32_t> keys(batch, key);
  const auto values = element_values(batch, 7);
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  auto statuses = this->template poisoned<operation_status>(batch, unwritten_status);
  const auto count = [&](operation_status wanted) {
    const auto host = statuses.to_vector();
    return static_cast<std::size_t>(std::count(host.begin(), host.end(), wanted));
  };
  for (const batch_combine combine : {batch_combine::automatic, batch_combine::always}) {
    SCOPED_TRACE("combine " + std::to_string(static_cast<int>(combine)));
    typename TestFixture::map_type map(this->backend(), TestFixture::map_type::capacity_for(64));
    map.set_batch_options({hash::tile_lanes::automatic, hash::batch_order::automatic, combine});
    map.insert(device_keys.span(), device_values.span(), statuses.span());
    EXPECT_EQ(count(operation_status::inserted), 1u);
    EXPECT_EQ(count(operation_status::already_present), batch - 1);
    map.insert_or_assign(device_keys.span(), device_values.span(), statuses.span());
    EXPECT_EQ(count(operation_status::assigned), batch);
    const oracle_map assigned = export_map(map);
    ASSERT_EQ(assigned.size(), 1u);
    EXPECT_GE(assigned.at(key), 7u);
    EXPECT_LT(assigned.at(key), 7u + batch);
    if (combine == batch_combine::always) { EXPECT_EQ(assigned.at(key), values.back()) << "the last in input order"; }
    map.erase(device_keys.span(), statuses.span());
    EXPECT_EQ(count(operation_status::erased), 1u);
    EXPECT_EQ(count(operation_status::not_found), batch - 1);
    EXPECT_EQ(map.size(), 0u);
  }
}

TYPED_TEST(slab_combine_test, ExhaustedPoolInACombinedBatchShowsOnlyAllowedOutcomes)
{
  for (const std::uint64_t seed : {std::uint64_t{77}, std::uint64_t{std::random_device{}()}}) {
    seeded_random random(seed);
    // One bucket and no pool: the base slab's slots fill, and every later new key runs out of memory.
    hash::slab_capacity capacity{1, 0, false};
    const auto universe = distinct_keys(random, 64);
    const std::vector<std::uint32_t> initial(universe.begin(), universe.begin() + 4);
    const auto keys = zipf_draws(random, universe, 4096, 0.8);
    const auto ops = random_operations(random, keys.size());
    const auto values = element_values(keys.size(), 0x20000000U);
    oracle_map before;
    auto map = this->filled_map(capacity, initial, before);
    const auto got = this->execute(map, batch_combine::always, ops, keys, values);
    EXPECT_GT(std::count(got.statuses.begin(), got.statuses.end(), operation_status::out_of_memory), 0);
    this->expect_allowed_outcomes(map, before, ops, keys, values, got);
  }
}

TYPED_TEST(slab_combine_test, GrowingPoolRunsExhaustedGroupsAgainWithinTheCall)
{
  seeded_random random;
  hash::slab_capacity capacity{8, 0, true};  // every overflow slab comes from growth
  const auto universe = distinct_keys(random, 20000);
  const auto keys = zipf_draws(random, universe, std::size_t{1} << 16, 0.5);
  const auto ops = random_operations(random, keys.size());
  const auto values = element_values(keys.size(), 0x30000000U);
  oracle_map before;
  auto map = this->filled_map(capacity, {}, before);
  const auto got = this->execute(map, batch_combine::always, ops, keys, values);
  EXPECT_EQ(std::count(got.statuses.begin(), got.statuses.end(), operation_status::out_of_memory), 0);
  EXPECT_GT(map.statistics().super_block_count, 0u);
  this->expect_allowed_outcomes(map, before, ops, keys, values, got);
}

TYPED_TEST(slab_combine_test, CombinedSetBatchesEqualTheInOrderRun)
{
  std::vector<std::size_t> batches{std::size_t{1} << 15};
  // On cuda also a batch past sorted_outcomes_min_elements, whose statuses are sorted back by element
  // (a set has no values to carry with them).
  if constexpr (!std::is_same_v<typename TestFixture::backend_type, host>) {
    batches.push_back((std::size_t{1} << 23) + 77);
  }
  for (const std::size_t batch : batches) {
    seeded_random random;
    const auto universe = distinct_keys(random, 2048);
    std::unordered_set<std::uint32_t> oracle(universe.begin(), universe.begin() + 1024);
    typename TestFixture::set_type set(this->backend(), TestFixture::set_type::capacity_for(universe.size()));
    const std::vector<std::uint32_t> initial(oracle.begin(), oracle.end());
    auto device_initial = this->put(initial);
    set.insert(device_initial.span());
    const auto keys = zipf_draws(random, universe, batch, 1.0);
    const auto ops = random_operations(random, keys.size());
    set.set_batch_options({hash::tile_lanes::automatic, hash::batch_order::automatic, batch_combine::always});
    auto device_ops = this->put(ops);
    auto device_keys = this->put(keys);
    auto statuses = this->template poisoned<operation_status>(keys.size(), unwritten_status);
    set.execute(device_ops.span(), device_keys.span(), statuses.span());
    const auto got = statuses.to_vector();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const bool present = oracle.count(keys[i]) == 1;
      const operation_status expected = hash::detail::status_in(
          ops[i], hash::detail::initial_target(present));  // a set's state is its presence alone
      ASSERT_EQ(got[i], expected) << "element " << i;
      if (ops[i] == operation::erase) { oracle.erase(keys[i]); }
      if (ops[i] == operation::insert || ops[i] == operation::insert_or_assign) { oracle.insert(keys[i]); }
    }
    EXPECT_EQ(export_set(set), oracle);
  }
}

TEST(slab_combine, TransitionsComposeAsTheOperationsRunInOrder)
{
  using namespace hash::detail;
  std::vector<key_transition> transitions{unchanged_transition()};
  for (std::uint32_t element = 0; element < 3; ++element) {
    for (std::uint32_t code = 0; code < hash::operation_count; ++code) {
      transitions.push_back(transition_of(static_cast<operation>(code), element));
    }
  }
  const std::uint32_t states[] = {target_absent, target_initial, 0, 1, 2};
  for (const key_transition& a : transitions) {
    for (const key_transition& b : transitions) {
      for (const std::uint32_t state : states) { ASSERT_EQ(after(then(a, b), state), after(b, after(a, state))); }
      for (const key_transition& c : transitions) {
        const key_transition left = then(then(a, b), c);
        const key_transition right = then(a, then(b, c));
        ASSERT_EQ(left.from_absent, right.from_absent);
        ASSERT_EQ(left.from_present, right.from_present);
      }
    }
  }
  // erase, then insert(4), then insert(5): present from either state with element 4's value.
  const key_transition run = then(then(transition_of(operation::erase, 3), transition_of(operation::insert, 4)),
                                  transition_of(operation::insert, 5));
  EXPECT_EQ(run.from_absent, 4u);
  EXPECT_EQ(run.from_present, 4u);
  EXPECT_EQ(write_for(true, 4, true).op, operation::insert_or_assign);
  EXPECT_FALSE(write_for(true, 4, false).needed) << "a set's present key has no value to change";
  EXPECT_EQ(write_for(false, 4, true).op, operation::insert);
  EXPECT_EQ(write_for(true, target_absent, true).op, operation::erase);
  EXPECT_FALSE(write_for(false, target_absent, true).needed);
  EXPECT_FALSE(write_for(true, target_initial, true).needed);
}

TEST(slab_combine, RepeatEstimateFromSampledKeys)
{
  using hash::detail::estimated_key_repeats;
  using hash::detail::sample_position;
  std::vector<std::uint32_t> distinct(4096);
  for (std::uint32_t i = 0; i < distinct.size(); ++i) { distinct[i] = i; }
  EXPECT_EQ(estimated_key_repeats(distinct, 1u << 20), 0.0);
  EXPECT_DOUBLE_EQ(estimated_key_repeats(std::vector<std::uint32_t>(4096, 9), 1u << 20), (1u << 20) - 1.0);
  // Half the keys one key: an element shares its key with about n / 4 others on average.
  std::vector<std::uint32_t> half = distinct;
  std::fill(half.begin(), half.begin() + 2048, 9u);
  EXPECT_NEAR(estimated_key_repeats(half, 1u << 20), (1u << 20) / 4.0, (1u << 20) / 100.0);
  EXPECT_EQ(estimated_key_repeats({}, 10), 0.0);
  for (const std::uint64_t count :
       {std::uint64_t{100}, std::uint64_t{4096}, std::uint64_t{4097}, std::uint64_t{1} << 30}) {
    std::set<std::uint64_t> positions;
    const std::uint64_t samples = std::min<std::uint64_t>(count, hash::combine_sample_keys);
    for (std::uint64_t i = 0; i < samples; ++i) {
      const std::uint64_t position = sample_position(i, count, hash::combine_sample_keys);
      ASSERT_LT(position, count);
      positions.insert(position);
    }
    EXPECT_EQ(positions.size(), samples) << "positions repeat for a batch of " << count;
  }
}

TEST(slab_combine, RejectsAnUnknownCombineChoice)
{
  hash::slab_map<std::uint32_t, std::uint32_t, host> map(host{}, hash::slab_capacity{4, 0});
  hash::batch_options bad;
  bad.combine = static_cast<batch_combine>(7);
  expect_error_mentioning<error>([&] { map.set_batch_options(bad); }, {"unknown batch_combine", "7"});
  EXPECT_EQ(map.get_batch_options().combine, batch_combine::automatic) << "the old options stay";
}

}  // namespace
