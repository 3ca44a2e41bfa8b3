// Growth of slab_map, slab_set and slab_multimap on every backend with 128- and 64-byte slabs, against
// std::unordered_map / unordered_set / unordered_multimap: tables filled far past the size they were built
// for and grown by rehash (chosen from the load, or to a given bucket count), rehashes whose new pool must
// grow, and pools that reach a small super-block limit: clear errors and statuses, nothing lost, and the
// table usable again after a rehash. Fixed seeds and a fresh one.
#include "hash/multimap_check.hpp"
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/hash/slab_multimap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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
using oracle_map = std::unordered_map<std::uint32_t, std::uint32_t>;

/// The seeds every randomized case runs with: fixed ones, then a fresh one (printed on failure).
std::vector<std::uint64_t> growth_seeds()
{
  return {20261124, 7, std::random_device{}()};
}

/// The longest list a table sized for its load may show: one base slab, and overflow into a second or
/// third for the few buckets well above the mean (Poisson tails).
constexpr std::uint64_t longest_list_at_sized_load = 4;

template <class Config>
class slab_growth_test : public multimap_backend_test<typename Config::backend_type> {
 protected:
  using backend_type = typename Config::backend_type;
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, backend_type, Config::slab_bytes>;
  using set_type = hash::slab_set<std::uint32_t, backend_type, Config::slab_bytes>;
  using multimap_type = hash::slab_multimap<std::uint32_t, std::uint32_t, backend_type, Config::slab_bytes>;

  /// Inserts (keys, values) with statuses; returns them.
  template <class Table>
  std::vector<operation_status> insert_pairs(Table& table, const std::vector<std::uint32_t>& keys,
                                             const std::vector<std::uint32_t>& values) const
  {
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    auto statuses = this->template poisoned<operation_status>(keys.size(), static_cast<operation_status>(0xdead));
    table.insert(device_keys.span(), device_values.span(), statuses.span());
    return statuses.to_vector();
  }

  /// Checks a find of every key in `queries` against `oracle` (value and status).
  void expect_finds_match(const map_type& map, const std::vector<std::uint32_t>& queries,
                          const oracle_map& oracle) const
  {
    auto device_queries = this->put(queries);
    auto values = this->template poisoned<std::uint32_t>(queries.size(), poison_value);
    auto statuses = this->template poisoned<operation_status>(queries.size(), operation_status::assigned);
    map.find(device_queries.span(), values.span(), statuses.span());
    const auto host_values = values.to_vector();
    const auto host_statuses = statuses.to_vector();
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto at = oracle.find(queries[i]);
      if (at == oracle.end()) {
        ASSERT_EQ(host_statuses[i], operation_status::not_found) << "key " << queries[i];
        ASSERT_EQ(host_values[i], poison_value);
      } else {
        ASSERT_EQ(host_statuses[i], operation_status::found) << "key " << queries[i];
        ASSERT_EQ(host_values[i], at->second) << "key " << queries[i];
      }
    }
  }
};
TYPED_TEST_SUITE(slab_growth_test, all_slab_configs, slab_config_names);

TYPED_TEST(slab_growth_test, MapFilledEightTimesPastItsSizeGrowsByRehash)
{
  using map_type = typename TestFixture::map_type;
  constexpr std::size_t rounds = 8;
  constexpr std::size_t per_round = 1500;
  for (const std::uint64_t seed : growth_seeds()) {
    seeded_random random(seed);
    const auto keys = distinct_keys(random, rounds * per_round);
    map_type map(this->backend(), map_type::capacity_for(per_round));
    const std::uint32_t first_buckets = map.capacity().bucket_count;
    oracle_map oracle;
    std::vector<std::uint32_t> touched;
    for (std::size_t round = 0; round < rounds; ++round) {
      // New keys with insert_or_assign, and a tenth of the previous round's keys erased.
      const std::vector<std::uint32_t> fresh(keys.begin() + round * per_round, keys.begin() + (round + 1) * per_round);
      std::vector<std::uint32_t> values(fresh.size());
      for (auto& value : values) { value = static_cast<std::uint32_t>(random()); }
      auto device_fresh = this->put(fresh);
      auto device_values = this->put(values);
      map.insert_or_assign(device_fresh.span(), device_values.span());
      for (std::size_t i = 0; i < fresh.size(); ++i) { oracle[fresh[i]] = values[i]; }
      if (round > 0) {
        const std::vector<std::uint32_t> doomed(keys.begin() + (round - 1) * per_round,
                                                keys.begin() + (round - 1) * per_round + per_round / 10);
        auto device_doomed = this->put(doomed);
        map.erase(device_doomed.span());
        for (const std::uint32_t key : doomed) { oracle.erase(key); }
      }
      touched.insert(touched.end(), fresh.begin(), fresh.end());
      // Every other round grows the buckets to the load; the others leave the lists to lengthen.
      if (round % 2 == 1) {
        map.rehash();
        const auto sized =
            hash::slab_capacity::for_keys(oracle.size(), map_type::pairs_per_slab, hash::default_base_fill);
        ASSERT_EQ(map.capacity().bucket_count, sized.bucket_count);
        const auto stats = map.statistics();
        EXPECT_EQ(stats.erased, 0u) << "erased slots are dropped";
        EXPECT_LE(stats.longest_chain, longest_list_at_sized_load);
      }
      ASSERT_EQ(export_map(map), oracle) << "round " << round;
    }
    EXPECT_GT(map.capacity().bucket_count, 6 * first_buckets);
    this->expect_finds_match(map, touched, oracle);
  }
}

TYPED_TEST(slab_growth_test, MapRehashToBucketCountsUpAndDown)
{
  using map_type = typename TestFixture::map_type;
  for (const std::uint64_t seed : growth_seeds()) {
    seeded_random random(seed);
    const auto keys = distinct_keys(random, 5000);
    std::vector<std::uint32_t> values(keys.size());
    for (auto& value : values) { value = static_cast<std::uint32_t>(random()); }
    map_type map(this->backend(), hash::slab_capacity{16, 0});
    for (const operation_status status : this->insert_pairs(map, keys, values)) {
      ASSERT_EQ(status, operation_status::inserted);
    }
    oracle_map oracle;
    for (std::size_t i = 0; i < keys.size(); ++i) { oracle.emplace(keys[i], values[i]); }
    // Up, down to one bucket (the new pool grows to take every pair), and up again.
    for (const std::uint32_t bucket_count : {1000U, 1U, 7U, 4096U}) {
      map.rehash(bucket_count);
      ASSERT_EQ(map.capacity().bucket_count, bucket_count);
      ASSERT_EQ(map.statistics().bucket_count, bucket_count);
      ASSERT_EQ(export_map(map), oracle) << bucket_count << " buckets";
    }
    this->expect_finds_match(map, keys, oracle);
  }
}

TYPED_TEST(slab_growth_test, RehashIntoATooSmallPoolGrowsItWithinTheLimit)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  const auto keys = distinct_keys(random, 20000);
  map_type map(this->backend(), map_type::capacity_for(keys.size()));
  this->insert_pairs(map, keys, keys);
  oracle_map oracle;
  for (const std::uint32_t key : keys) { oracle.emplace(key, key); }
  // Four buckets and no pool: every overflow slab comes from super blocks the rehash adds.
  map.rehash(hash::slab_capacity{4, 0});
  EXPECT_GE(map.statistics().super_block_count, 1u);
  EXPECT_EQ(map.capacity().bucket_count, 4u);
  EXPECT_EQ(export_map(map), oracle);
  // Limited to one super block of half a memory block, the pairs do not fit: the map is left as it was.
  const auto before = map.statistics();
  expect_error_mentioning<out_of_memory>(
      [&] {
        map.rehash(hash::slab_capacity{4, hash::slabs_per_block / 2, /*grows=*/true, /*super_block_limit=*/1});
      },
      {"slab_map::rehash", "do not fit", "limit of 1 super blocks", "left as it was"});
  EXPECT_EQ(map.statistics().super_block_count, before.super_block_count);
  EXPECT_EQ(map.statistics().pool_slabs, before.pool_slabs);
  EXPECT_EQ(export_map(map), oracle);
}

TYPED_TEST(slab_growth_test, MapAtItsSuperBlockLimitLosesNothingAndRecoversAfterRehash)
{
  using map_type = typename TestFixture::map_type;
  for (const std::uint64_t seed : growth_seeds()) {
    seeded_random random(seed);
    // 256 buckets and a pool of 2 memory blocks, already its one super block: it may not grow, and holds
    // fewer pairs than the keys. (A pool that starts empty grows once by as much as the batch's
    // exhausted insertions need, so one batch always fits.)
    const hash::slab_capacity limited{256, 2 * hash::slabs_per_block, /*grows=*/true, /*super_block_limit=*/1};
    const std::size_t n = (limited.bucket_count + 2 * hash::slabs_per_block) * map_type::pairs_per_slab + 2000;
    const auto keys = distinct_keys(random, n);
    std::vector<std::uint32_t> values(n);
    for (auto& value : values) { value = static_cast<std::uint32_t>(random()); }
    map_type map(this->backend(), limited);
    const auto statuses = this->insert_pairs(map, keys, values);
    oracle_map oracle;
    std::vector<std::uint32_t> left_out_keys, left_out_values;
    for (std::size_t i = 0; i < n; ++i) {
      if (statuses[i] == operation_status::inserted) {
        oracle.emplace(keys[i], values[i]);
      } else {
        ASSERT_EQ(statuses[i], operation_status::out_of_memory) << "element " << i;
        left_out_keys.push_back(keys[i]);
        left_out_values.push_back(values[i]);
      }
    }
    ASSERT_FALSE(left_out_keys.empty());
    const auto stats = map.statistics();
    EXPECT_EQ(stats.super_block_count, 1u) << "growth stops at the limit";
    EXPECT_EQ(export_map(map), oracle) << "every inserted pair is there, no other";
    this->expect_finds_match(map, keys, oracle);

    // The statusless insert throws, naming the limit, and changes nothing for present keys.
    auto device_left = this->put(left_out_keys);
    auto device_left_values = this->put(left_out_values);
    expect_error_mentioning<out_of_memory>([&] { map.insert(device_left.span(), device_left_values.span()); },
                                           {"slab_map::insert", "limit of 1 super blocks", "were not inserted"});
    // Whatever that insert placed is in the map now; the oracle learns it from the export.
    oracle = export_map(map);

    // Enough buckets for all n keys hold them in the base slabs: everything fits again.
    map.rehash(map_type::capacity_for(n).bucket_count);
    EXPECT_EQ(map.capacity().super_block_limit, 1u);
    EXPECT_EQ(export_map(map), oracle);
    for (const operation_status status : this->insert_pairs(map, left_out_keys, left_out_values)) {
      ASSERT_TRUE(status == operation_status::inserted || status == operation_status::already_present);
    }
    for (std::size_t i = 0; i < left_out_keys.size(); ++i) { oracle.emplace(left_out_keys[i], left_out_values[i]); }
    EXPECT_EQ(oracle.size(), n);
    EXPECT_EQ(export_map(map), oracle);
  }
}

TYPED_TEST(slab_growth_test, FixedPoolThatRanOutTakesPairsAgainAfterFlushAndClear)
{
  using map_type = typename TestFixture::map_type;
  for (const std::uint64_t seed : growth_seeds()) {
    seeded_random random(seed);
    // 64 buckets and one memory block that may not grow: about 17 slabs per list fit, the keys need more.
    const hash::slab_capacity fixed{64, hash::slabs_per_block, /*grows=*/false};
    const std::size_t n = (fixed.bucket_count + hash::slabs_per_block) * map_type::pairs_per_slab + 2000;
    const auto keys = distinct_keys(random, n);
    std::vector<std::uint32_t> values(n);
    for (auto& value : values) { value = static_cast<std::uint32_t>(random()); }
    map_type map(this->backend(), fixed);
    // Inserts the pairs; those inserted go into `oracle`, the others (out_of_memory) are returned.
    auto insert_split = [&](const std::vector<std::uint32_t>& some_keys, const std::vector<std::uint32_t>& some_values,
                            oracle_map& oracle) {
      const auto statuses = this->insert_pairs(map, some_keys, some_values);
      std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> left;
      for (std::size_t i = 0; i < statuses.size(); ++i) {
        if (statuses[i] == operation_status::inserted) {
          oracle.emplace(some_keys[i], some_values[i]);
        } else {
          EXPECT_EQ(statuses[i], operation_status::out_of_memory) << "element " << i;
          left.first.push_back(some_keys[i]);
          left.second.push_back(some_values[i]);
        }
      }
      return left;
    };
    oracle_map oracle;
    const auto [left_keys, left_values] = insert_split(keys, values, oracle);
    ASSERT_FALSE(left_keys.empty());
    EXPECT_EQ(export_map(map), oracle);
    // The pool was swept full: a later batch's insertions that need a slab report it too (a few may
    // find room in a slab another insertion appended while they looked for one).
    const std::size_t held_before = oracle.size();
    const auto [still_left, still_left_values] = insert_split(left_keys, left_values, oracle);
    EXPECT_GT(still_left.size(), left_keys.size() / 2);
    EXPECT_EQ(oracle.size() - held_before + still_left.size(), left_keys.size());
    EXPECT_EQ(export_map(map), oracle);

    // Erased and flushed, the lists return their slabs: the pairs left out all fit now.
    std::vector<std::uint32_t> held;
    for (const auto& [key, value] : oracle) { held.push_back(key); }
    auto device_held = this->put(held);
    map.erase(device_held.span());
    map.flush();
    oracle_map left_oracle;
    EXPECT_TRUE(insert_split(still_left, still_left_values, left_oracle).first.empty());
    EXPECT_EQ(left_oracle.size(), still_left.size());
    EXPECT_EQ(export_map(map), left_oracle);

    // Cleared, the map takes as many of the keys as at first, and reports the rest again.
    map.clear();
    oracle_map again;
    EXPECT_FALSE(insert_split(keys, values, again).first.empty());
    EXPECT_GE(again.size(), fixed.bucket_count * map_type::pairs_per_slab);
    EXPECT_EQ(export_map(map), again);
  }
}

TYPED_TEST(slab_growth_test, SetAtItsSuperBlockLimitThenGrownByRehash)
{
  using set_type = typename TestFixture::set_type;
  for (const std::uint64_t seed : growth_seeds()) {
    seeded_random random(seed);
    const hash::slab_capacity limited{256, 2 * hash::slabs_per_block, /*grows=*/true, /*super_block_limit=*/1};
    const std::size_t n = (limited.bucket_count + 2 * hash::slabs_per_block) * set_type::keys_per_slab + 2000;
    const auto keys = distinct_keys(random, n);
    set_type set(this->backend(), limited);
    auto device_keys = this->put(keys);
    auto statuses = this->template poisoned<operation_status>(n, operation_status::found);
    set.insert(device_keys.span(), statuses.span());
    std::unordered_set<std::uint32_t> oracle;
    std::vector<std::uint32_t> left_out;
    const auto host_statuses = statuses.to_vector();
    for (std::size_t i = 0; i < n; ++i) {
      if (host_statuses[i] == operation_status::inserted) {
        oracle.insert(keys[i]);
      } else {
        ASSERT_EQ(host_statuses[i], operation_status::out_of_memory);
        left_out.push_back(keys[i]);
      }
    }
    ASSERT_FALSE(left_out.empty());
    EXPECT_EQ(set.statistics().super_block_count, 1u);
    EXPECT_EQ(export_set(set), oracle);
    expect_error_mentioning<out_of_memory>(
        [&] {
          auto device_left = this->put(left_out);
          set.insert(device_left.span());
        },
        {"slab_set::insert", "limit of 1 super blocks"});
    oracle = export_set(set);

    // rehash() sizes the buckets for the keys held; then the rest go in, and rehash() sizes again.
    set.rehash();
    EXPECT_EQ(export_set(set), oracle);
    auto device_left = this->put(left_out);
    set.insert(device_left.span());
    oracle.insert(left_out.begin(), left_out.end());
    EXPECT_EQ(oracle.size(), n);
    set.rehash();
    EXPECT_EQ(set.capacity().bucket_count,
              hash::slab_capacity::for_keys(n, set_type::keys_per_slab, hash::default_base_fill).bucket_count);
    EXPECT_LE(set.statistics().longest_chain, longest_list_at_sized_load);
    EXPECT_EQ(export_set(set), oracle);
  }
}

TYPED_TEST(slab_growth_test, MultimapKeepsEveryDuplicateThroughGrowthAndTheLimit)
{
  using multimap_type = typename TestFixture::multimap_type;
  for (const std::uint64_t seed : growth_seeds()) {
    seeded_random random(seed);
    // Keys repeat about 4 times each: a key's pairs share one list.
    const auto universe = distinct_keys(random, 2500);
    std::vector<std::uint32_t> keys(10000), values(10000);
    std::uniform_int_distribution<std::size_t> pick(0, universe.size() - 1);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      keys[i] = universe[pick(random)];
      values[i] = static_cast<std::uint32_t>(random());
    }
    multimap_type multimap(this->backend(), multimap_type::capacity_for(keys.size() / 8));
    for (const operation_status status : this->insert_pairs(multimap, keys, values)) {
      ASSERT_EQ(status, operation_status::inserted);
    }
    value_multisets oracle;
    for (std::size_t i = 0; i < keys.size(); ++i) { oracle[keys[i]].push_back(values[i]); }
    for (auto& [key, key_values] : oracle) { std::sort(key_values.begin(), key_values.end()); }
    multimap.rehash();
    EXPECT_GT(multimap.capacity().bucket_count, 4 * multimap_type::capacity_for(keys.size() / 8).bucket_count);
    EXPECT_EQ(this->exported(multimap), oracle);
    multimap.rehash(3);
    EXPECT_EQ(this->exported(multimap), oracle);
    this->expect_queries_match(multimap, universe, oracle);

    // Into a pool limited to one super block of one memory block, the pairs do not fit: unchanged.
    expect_error_mentioning<out_of_memory>(
        [&] {
          multimap.rehash(hash::slab_capacity{2, hash::slabs_per_block / 4, /*grows=*/true, /*super_block_limit=*/1});
        },
        {"slab_multimap::rehash", "limit of 1 super blocks", "left as it was"});
    EXPECT_EQ(multimap.capacity().bucket_count, 3u);
    EXPECT_EQ(this->exported(multimap), oracle);

    // A limited multimap reports the pairs that did not fit; the others are all there.
    multimap_type limited(this->backend(),
                          hash::slab_capacity{8, hash::slabs_per_block / 4, /*grows=*/true, /*super_block_limit=*/1});
    const auto statuses = this->insert_pairs(limited, keys, values);
    value_multisets limited_oracle;
    std::size_t out_of_memory_count = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (statuses[i] == operation_status::inserted) {
        limited_oracle[keys[i]].push_back(values[i]);
      } else {
        ASSERT_EQ(statuses[i], operation_status::out_of_memory);
        ++out_of_memory_count;
      }
    }
    for (auto& [key, key_values] : limited_oracle) { std::sort(key_values.begin(), key_values.end()); }
    EXPECT_GT(out_of_memory_count, 0u);
    EXPECT_EQ(this->exported(limited), limited_oracle);
  }
}

}  // namespace
