// lsm_map against a std::map replaying the same batches, on every backend of the build, for both key
// types: every query after every batch, random batch sizes and mixes, cleanup at random points.
#include "lsm_model.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/lsm/lsm_map.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace warpdex::testing;
using warpdex::lsm_map;
using warpdex::lsm_operation;
using warpdex::lsm_options;

template <class Backend>
class lsm_map_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(lsm_map_test, all_backends, backend_names);

/// A seed per case, different for every test and key type, fixed across runs.
std::uint64_t case_seed(std::uint64_t salt)
{
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::hash<std::string>{}(std::string(info->test_suite_name()) + info->name()) ^ salt;
}

template <class Key, class Backend>
void empty_map_answers_nothing(const Backend& backend)
{
  lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{4});
  std::mt19937_64 random(case_seed(sizeof(Key)));
  const std::map<Key, lsm_value> model;
  expect_matches_model(backend, map, model, random, std::numeric_limits<Key>::max(), 64);
  EXPECT_EQ(map.resident_entries(), 0u);
  EXPECT_EQ(map.occupied_levels(), 0u);
}

TYPED_TEST(lsm_map_test, empty_map_answers_nothing)
{
  empty_map_answers_nothing<std::uint32_t>(this->backend());
  empty_map_answers_nothing<std::uint64_t>(this->backend());
}

template <class Key, class Backend>
void extreme_keys_are_ordinary_keys(const Backend& backend)
{
  constexpr Key max_key = std::numeric_limits<Key>::max();
  lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{2});
  std::map<Key, lsm_value> model;
  std::mt19937_64 random(case_seed(sizeof(Key)));
  const std::vector<lsm_batch<Key>> batches = {
      {{max_key}, {7}, {lsm_operation::insert}},
      {{0}, {9}, {lsm_operation::insert}},
      {{max_key, 1}, {0, 3}, {lsm_operation::erase, lsm_operation::insert}},
      {{max_key - 1, max_key, 0}, {4, 5, 6}, {lsm_operation::insert, lsm_operation::insert, lsm_operation::erase}},
  };
  for (const auto& batch : batches) {
    apply_to_model(model, batch, map.options().batch_size);
    apply_to_map(backend, map, batch);
    expect_matches_model(backend, map, model, random, max_key, 32);
  }
}

TYPED_TEST(lsm_map_test, extreme_keys_are_ordinary_keys)
{
  extreme_keys_are_ordinary_keys<std::uint32_t>(this->backend());
  extreme_keys_are_ordinary_keys<std::uint64_t>(this->backend());
}

template <class Key, class Backend>
void duplicates_inside_a_batch_follow_the_rule(const Backend& backend)
{
  // One chunk: key 1 inserted twice (the last wins), key 2 inserted then erased, key 3 erased then
  // inserted (any erase erases), key 4 inserted, erased and inserted.
  lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{16});
  const lsm_batch<Key> earlier = {
      {2, 3, 4}, {20, 30, 40}, {lsm_operation::insert, lsm_operation::insert, lsm_operation::insert}};
  const lsm_batch<Key> batch = {
      {1, 2, 3, 1, 4, 2, 3, 4, 4},
      {10, 21, 0, 11, 41, 0, 31, 0, 42},
      {lsm_operation::insert, lsm_operation::insert, lsm_operation::erase, lsm_operation::insert, lsm_operation::insert,
       lsm_operation::erase, lsm_operation::insert, lsm_operation::erase, lsm_operation::insert}};
  apply_to_map(backend, map, earlier);
  apply_to_map(backend, map, batch);
  std::mt19937_64 random(case_seed(sizeof(Key)));
  const std::map<Key, lsm_value> expected = {{1, 11}};
  expect_matches_model(backend, map, expected, random, Key{8}, 32);

  // Split into chunks of 2, the same batch means: chunk {1, 2}, {3, 1}, {4, 2}, {3, 4}, {4}.
  lsm_map<Key, lsm_value, Backend> chunked(backend, lsm_options{2});
  apply_to_map(backend, chunked, earlier);
  apply_to_map(backend, chunked, batch);
  std::map<Key, lsm_value> model;
  apply_to_model(model, earlier, 2);
  apply_to_model(model, batch, 2);
  EXPECT_EQ(model, (std::map<Key, lsm_value>{{1, 11}, {3, 31}, {4, 42}}));
  expect_matches_model(backend, chunked, model, random, Key{8}, 32);
}

TYPED_TEST(lsm_map_test, duplicates_inside_a_batch_follow_the_rule)
{
  duplicates_inside_a_batch_follow_the_rule<std::uint32_t>(this->backend());
  duplicates_inside_a_batch_follow_the_rule<std::uint64_t>(this->backend());
}

/// Long random sequences: batch sizes from 1 to three times b, insert-heavy and erase-heavy phases,
/// cleanup at random points, automatic cleanup on or off; every query checked after every batch.
template <class Key, class Backend>
void random_sequences_match_the_model(const Backend& backend, std::uint64_t salt)
{
  std::mt19937_64 random(case_seed(salt));
  const std::uint64_t batch_size = std::uint64_t{1} << (random() % 7);  // 1 .. 64
  const double threshold = random() % 2 == 0 ? 0.0 : 0.5;
  const Key universe = static_cast<Key>(64 + random() % 2048);
  lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{batch_size, threshold});
  std::map<Key, lsm_value> model;
  constexpr int batch_count = 40;
  SCOPED_TRACE("batch size " + std::to_string(batch_size) + ", threshold " + std::to_string(threshold) + ", universe " +
               std::to_string(universe));
  for (int step = 0; step < batch_count; ++step) {
    const bool erase_heavy = (step / 10) % 2 == 1;
    const std::size_t size = 1 + random() % (3 * batch_size);
    const auto batch = random_batch<Key>(random, size, erase_heavy ? 0.8 : 0.2, universe);
    apply_to_model(model, batch, batch_size);
    apply_to_map(backend, map, batch);
    if (random() % 8 == 0) {
      map.cleanup();
      EXPECT_EQ(map.resident_tombstones(), 0u);
      EXPECT_EQ(map.resident_stale(), 0u);
      EXPECT_EQ(map.resident_entries(), model.size());
    }
    if (threshold > 0) {  // apply_to_map updates, and every update checks the policy
      EXPECT_LE(static_cast<double>(map.resident_tombstones() + map.resident_stale()),
                threshold * static_cast<double>(map.resident_entries()));
    }
    expect_matches_model(backend, map, model, random, universe, 128);
    if (::testing::Test::HasFatalFailure()) { return; }
  }
}

TYPED_TEST(lsm_map_test, random_sequences_match_the_model_32)
{
  for (std::uint64_t salt = 0; salt < 6; ++salt) {
    random_sequences_match_the_model<std::uint32_t>(this->backend(), salt);
  }
}

TYPED_TEST(lsm_map_test, random_sequences_match_the_model_64)
{
  for (std::uint64_t salt = 0; salt < 6; ++salt) {
    random_sequences_match_the_model<std::uint64_t>(this->backend(), salt);
  }
}

/// Larger maps with keys over the whole key space (few repeats, deep levels), then erase most of them.
template <class Key, class Backend>
void large_sparse_sequence_matches_the_model(const Backend& backend)
{
  std::mt19937_64 random(case_seed(sizeof(Key)));
  constexpr std::uint64_t batch_size = 1024;
  constexpr Key universe = std::numeric_limits<Key>::max();
  lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{batch_size, 0.0});
  std::map<Key, lsm_value> model;
  std::vector<Key> inserted;
  for (int step = 0; step < 40; ++step) {
    auto batch = random_batch<Key>(random, batch_size - step, 0.05, universe);
    inserted.insert(inserted.end(), batch.keys.begin(), batch.keys.end());
    apply_to_model(model, batch, batch_size);
    apply_to_map(backend, map, batch);
  }
  expect_matches_model(backend, map, model, random, universe, 64);
  lsm_batch<Key> erase_most;
  for (std::size_t i = 0; i < inserted.size(); i += 8) {
    for (std::size_t j = i; j < std::min(inserted.size(), i + 7); ++j) {
      erase_most.keys.push_back(inserted[j]);
      erase_most.values.push_back(0);
      erase_most.operations.push_back(lsm_operation::erase);
    }
  }
  apply_to_model(model, erase_most, batch_size);
  apply_to_map(backend, map, erase_most);
  expect_matches_model(backend, map, model, random, universe, 64);
  map.cleanup();
  EXPECT_EQ(map.resident_entries(), model.size());
  expect_matches_model(backend, map, model, random, universe, 64);
}

TYPED_TEST(lsm_map_test, large_sparse_sequence_matches_the_model)
{
  large_sparse_sequence_matches_the_model<std::uint32_t>(this->backend());
  large_sparse_sequence_matches_the_model<std::uint64_t>(this->backend());
}

/// Short and long ranges over a map of many levels (small batches): ranges whose parts lie in every level,
/// searched and filled level by level side by side on the GPU (a group of lanes per query), short ranges
/// by groups of a few lanes, long ones by whole warps.
template <class Key, class Backend>
void ranges_over_many_levels_match_the_model(const Backend& backend)
{
  std::mt19937_64 random(case_seed(sizeof(Key)));
  constexpr std::uint64_t batch_size = 4;
  constexpr Key universe = 20000;
  lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{batch_size, 0.0});
  std::map<Key, lsm_value> model;
  for (int step = 0; step < 1023; ++step) {  // 1023 batches: ten occupied levels
    const auto batch = random_batch<Key>(random, batch_size, 0.1, universe);
    apply_to_model(model, batch, batch_size);
    apply_to_map(backend, map, batch);
  }
  ASSERT_GT(map.occupied_levels(), 8u);
  for (const Key width : {Key{0}, Key{16}, Key{200}, Key{3000}}) {
    std::vector<Key> lower = random_queries(random, model, 700, universe);
    std::vector<Key> upper(lower.size());
    std::uniform_int_distribution<std::uint64_t> extra(0, width);
    for (std::size_t i = 0; i < lower.size(); ++i) { upper[i] = static_cast<Key>(lower[i] + extra(random)); }
    expect_count_and_range_match(backend, map, model, lower, upper);
  }
}

TYPED_TEST(lsm_map_test, ranges_over_many_levels_match_the_model)
{
  ranges_over_many_levels_match_the_model<std::uint32_t>(this->backend());
}

/// Cleanup over levels that repeat keys: a few times each (the GPU's partitioned merge), and one key
/// thousands of times in one level (more than a partition holds: the GPU merges pairwise instead); with
/// keys that differ only in their high half for 64-bit keys.
template <class Key, class Backend>
void cleanup_keeps_the_newest_pair_of_repeated_keys(const Backend& backend)
{
  std::mt19937_64 random(case_seed(sizeof(Key)));
  constexpr Key universe = 3000;
  const Key high = sizeof(Key) == 8 ? static_cast<Key>(std::uint64_t{1} << 40) : Key{0};
  for (const std::size_t repeats : {std::size_t{3}, std::size_t{9000}}) {
    lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{256, 0.0});
    std::map<Key, lsm_value> model;
    auto built = random_batch<Key>(random, 4000, 0.0, universe);
    for (std::size_t r = 0; r < repeats; ++r) {
      built.keys.push_back(Key{7});
      built.values.push_back(static_cast<lsm_value>(r));
      built.operations.push_back(lsm_operation::insert);
    }
    for (std::size_t i = 0; i < built.keys.size(); i += 5) { built.keys[i] += high; }
    apply_to_model(model, built, built.keys.size() + 1);
    const auto keys = make_buffer_from<Key>(backend, built.keys);
    const auto values = make_buffer_from<lsm_value>(backend, built.values);
    map.bulk_build(keys.span(), values.span());
    for (int step = 0; step < 13; ++step) {  // levels of 256 .. 2048 entries over the built one
      auto batch = random_batch<Key>(random, 256, 0.3, universe);
      for (std::size_t i = 0; i < batch.keys.size(); i += 3) { batch.keys[i] += high; }
      apply_to_model(model, batch, 256);
      apply_to_map(backend, map, batch);
    }
    map.cleanup();
    EXPECT_EQ(map.resident_entries(), model.size()) << repeats << " repeats";
    EXPECT_EQ(map.resident_stale(), 0u);
    EXPECT_EQ(map.resident_tombstones(), 0u);
    expect_matches_model(backend, map, model, random, static_cast<Key>(universe + high), 256);
  }
}

TYPED_TEST(lsm_map_test, cleanup_keeps_the_newest_pair_of_repeated_keys)
{
  cleanup_keeps_the_newest_pair_of_repeated_keys<std::uint32_t>(this->backend());
  cleanup_keeps_the_newest_pair_of_repeated_keys<std::uint64_t>(this->backend());
}

template <class Key, class Backend>
void bulk_build_keeps_the_last_pair(const Backend& backend)
{
  std::mt19937_64 random(case_seed(sizeof(Key)));
  constexpr Key universe = 5000;
  lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{64});
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{777}, std::size_t{20000}}) {
    auto batch = random_batch<Key>(random, size, 0.0, universe);
    std::map<Key, lsm_value> model;
    apply_to_model(model, batch, size + 1);
    const auto keys = make_buffer_from<Key>(backend, batch.keys);
    const auto values = make_buffer_from<lsm_value>(backend, batch.values);
    map.bulk_build(keys.span(), values.span());
    EXPECT_LE(map.occupied_levels(), 1u);
    expect_matches_model(backend, map, model, random, universe, 64);
    // Updates go on from the built state.
    const auto more = random_batch<Key>(random, 100, 0.5, universe);
    apply_to_model(model, more, map.options().batch_size);
    apply_to_map(backend, map, more);
    expect_matches_model(backend, map, model, random, universe, 64);
  }
}

TYPED_TEST(lsm_map_test, bulk_build_keeps_the_last_pair)
{
  bulk_build_keeps_the_last_pair<std::uint32_t>(this->backend());
  bulk_build_keeps_the_last_pair<std::uint64_t>(this->backend());
}

TYPED_TEST(lsm_map_test, insert_and_erase_are_updates)
{
  using Key = std::uint32_t;
  const auto& backend = this->backend();
  lsm_map<Key, lsm_value, TypeParam> map(backend, lsm_options{8, 0.0});
  const std::vector<Key> keys = {5, 1, 9, 5};
  const std::vector<lsm_value> values = {50, 10, 90, 51};
  const auto key_buffer = make_buffer_from<Key>(backend, keys);
  const auto value_buffer = make_buffer_from<lsm_value>(backend, values);
  map.insert(key_buffer.span(), value_buffer.span());
  const std::vector<Key> erased = {1, 7};
  const auto erased_buffer = make_buffer_from<Key>(backend, erased);
  map.erase(erased_buffer.span());
  std::mt19937_64 random(case_seed(0));
  const std::map<Key, lsm_value> model{{5, 51}, {9, 90}};
  expect_matches_model(backend, map, model, random, Key{16}, 32);
  // Level 1 holds 1 (tombstone), 1 (stale), 5, 5 (stale, the batch's earlier insert), 7 (tombstone), 9.
  EXPECT_EQ(map.resident_entries(), 6u);
  EXPECT_EQ(map.resident_tombstones(), 2u);
  EXPECT_EQ(map.resident_stale(), 2u);
  map.cleanup();
  EXPECT_EQ(map.resident_entries(), 2u);
  EXPECT_EQ(map.resident_tombstones(), 0u);
  EXPECT_EQ(map.resident_stale(), 0u);
  expect_matches_model(backend, map, model, random, Key{16}, 32);
}

/// Lookups, counts and ranges of 2^20 queries or more are sorted first on the GPU and answered in the
/// caller's order: repeated queries, present and absent ones, empty ranges, both key widths.
template <class Key, class Backend>
void many_lookups_answer_in_query_order(const Backend& backend)
{
  std::mt19937_64 random(case_seed(sizeof(Key) + 7));
  constexpr std::uint64_t batch_size = 4096;
  constexpr Key universe = 200000;
  lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{batch_size, 0.0});
  std::map<Key, lsm_value> model;
  for (int step = 0; step < 20; ++step) {
    const auto batch = random_batch<Key>(random, batch_size, 0.1, universe);
    apply_to_model(model, batch, batch_size);
    apply_to_map(backend, map, batch);
  }
  const std::vector<Key> queries = random_queries(random, model, (std::size_t{1} << 20) + 3, universe);
  expect_lookup_matches(backend, map, model, queries);
  // Counts and ranges likewise, with some empty ranges (lower > upper).
  std::vector<Key> upper(queries.size());
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const bool empty = i % 17 == 5 && queries[i] > 0;
    const Key widened = static_cast<Key>(queries[i] + i % 40);
    upper[i] = empty ? static_cast<Key>(queries[i] - 1) : widened < queries[i] ? queries[i] : widened;
  }
  expect_count_and_range_match(backend, map, model, queries, upper);
}

TYPED_TEST(lsm_map_test, many_lookups_answer_in_query_order)
{
  many_lookups_answer_in_query_order<std::uint32_t>(this->backend());
  many_lookups_answer_in_query_order<std::uint64_t>(this->backend());
}

/// Batches of several thousand entries over few keys: a key's entries are spread over many of the
/// GPU's sort tiles, and the last insert still wins (the batch sort must be stable across tiles), for
/// update and for insert, with a partial last tile.
TYPED_TEST(lsm_map_test, large_batches_over_few_keys_keep_batch_order)
{
  using Key = std::uint32_t;
  const auto& backend = this->backend();
  std::mt19937_64 random(case_seed(0));
  constexpr std::uint64_t batch_size = (std::uint64_t{1} << 15) + 123;
  lsm_map<Key, lsm_value, TypeParam> map(backend, lsm_options{batch_size, 0.0});
  std::map<Key, lsm_value> model;
  for (int step = 0; step < 3; ++step) {
    const auto batch = random_batch<Key>(random, batch_size, 0.3, Key{500});
    apply_to_model(model, batch, batch_size);
    apply_to_map(backend, map, batch);
    expect_matches_model(backend, map, model, random, Key{510}, 256);
    // Every resident entry is live, a tombstone, stale, or hidden by a newer level not yet merged with
    // its own: the merges' marks (many per tile of a merge here) never count an entry twice.
    EXPECT_LE(map.size() + map.resident_tombstones() + map.resident_stale(), map.resident_entries());
  }
  auto inserts = random_batch<Key>(random, batch_size - 7, 0.0, Key{300});
  apply_to_model(model, inserts, batch_size);
  const auto keys = make_buffer_from<Key>(backend, inserts.keys);
  const auto values = make_buffer_from<lsm_value>(backend, inserts.values);
  map.insert(keys.span(), values.span());
  expect_matches_model(backend, map, model, random, Key{510}, 256);
  EXPECT_LE(map.size() + map.resident_tombstones() + map.resident_stale(), map.resident_entries());
  // After a cleanup nothing is dead: the live-only merge kept exactly the live entries.
  const std::uint64_t live = map.size();
  map.cleanup();
  EXPECT_EQ(map.resident_entries(), live);
  EXPECT_EQ(map.resident_tombstones() + map.resident_stale(), 0u);
  expect_matches_model(backend, map, model, random, Key{510}, 256);
}

/// Batches of 2^14 to 2^18 elements, which the GPU sorts by a split on the top bits in which the batch's
/// keys differ and a sort of each bucket, drawn so that the split is uneven: one hot key, two clusters at
/// the ends of the key space, a narrow range, a single key, three keys. Buckets then exceed what one block
/// sorts in shared memory, and the order of a key's repeats (which decides the winner) must survive.
template <class Key>
lsm_batch<Key> skewed_batch(std::mt19937_64& random, std::size_t size, int shape, double erase_fraction)
{
  constexpr Key max_key = std::numeric_limits<Key>::max();
  std::uniform_int_distribution<Key> any(0, max_key);
  const Key hot = any(random);
  const Key base = any(random) / 2;
  lsm_batch<Key> batch;
  std::bernoulli_distribution erase(erase_fraction);
  for (std::size_t i = 0; i < size; ++i) {
    Key key = 0;
    switch (shape) {
      case 0: key = random() % 10 < 7 ? hot : any(random); break;                          // one hot key
      case 1: key = random() % 2 == 0 ? any(random) % 5000 : max_key - any(random) % 5000; break;  // two clusters
      case 2: key = base + any(random) % 4096; break;                                       // a narrow range
      case 3: key = hot; break;                                                             // one key
      default: key = std::array<Key, 3>{Key{0}, Key{1}, max_key}[random() % 3]; break;      // three keys
    }
    batch.keys.push_back(key);
    batch.values.push_back(static_cast<lsm_value>(random()));
    batch.operations.push_back(erase(random) ? lsm_operation::erase : lsm_operation::insert);
  }
  return batch;
}

template <class Key, class Backend>
void skewed_batches_match_the_model(const Backend& backend, std::size_t batch_size)
{
  std::mt19937_64 random(case_seed(sizeof(Key) * 1000003 + batch_size));
  for (int shape = 0; shape < 5; ++shape) {
    lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{batch_size, 0.0});
    std::map<Key, lsm_value> model;
    const auto update = skewed_batch<Key>(random, batch_size, shape, 0.2);  // erases: the sort of positions
    apply_to_model(model, update, batch_size);
    apply_to_map(backend, map, update);
    const auto inserts = skewed_batch<Key>(random, batch_size, shape, 0.0);  // the sort of pairs
    apply_to_model(model, inserts, batch_size);
    const auto keys = make_buffer_from<Key>(backend, inserts.keys);
    const auto values = make_buffer_from<lsm_value>(backend, inserts.values);
    map.insert(keys.span(), values.span());
    SCOPED_TRACE("shape " + std::to_string(shape) + ", batch " + std::to_string(batch_size));
    expect_matches_model(backend, map, model, random, std::numeric_limits<Key>::max(), 256);
  }
}

TYPED_TEST(lsm_map_test, skewed_batches_match_the_model)
{
  for (const std::size_t batch_size : {(std::size_t{1} << 14) - 1, std::size_t{1} << 14, std::size_t{1} << 16,
                                       (std::size_t{1} << 17) + 777}) {
    skewed_batches_match_the_model<std::uint32_t>(this->backend(), batch_size);
    skewed_batches_match_the_model<std::uint64_t>(this->backend(), batch_size);
  }
}

/// Inserts that overwrite the same keys leave stale entries behind; the automatic cleanup, checked every
/// 8th insert chunk, keeps them bounded, and bulk_build counts a repeated key's older pairs as stale.
TYPED_TEST(lsm_map_test, overwriting_inserts_stay_bounded)
{
  using Key = std::uint32_t;
  const auto& backend = this->backend();
  constexpr std::uint64_t batch_size = 16;
  std::mt19937_64 random(case_seed(0));
  lsm_map<Key, lsm_value, TypeParam> map(backend, lsm_options{batch_size, 0.5});
  std::map<Key, lsm_value> model;
  for (int step = 0; step < 200; ++step) {
    const auto batch = random_batch<Key>(random, batch_size, 0.0, Key{20});
    apply_to_model(model, batch, batch_size);
    const auto keys = make_buffer_from<Key>(backend, batch.keys);
    const auto values = make_buffer_from<lsm_value>(backend, batch.values);
    map.insert(keys.span(), values.span());
    EXPECT_EQ(map.resident_tombstones(), 0u);
    // At most 7 unchecked chunks since the last cleanup could have run, and half of the rest dead.
    EXPECT_LE(map.resident_entries(), 2 * 21 + 8 * batch_size);
  }
  expect_matches_model(backend, map, model, random, Key{24}, 64);

  const auto repeated = random_batch<Key>(random, 1000, 0.0, Key{99});
  std::map<Key, lsm_value> built;
  apply_to_model(built, repeated, repeated.keys.size());
  const auto keys = make_buffer_from<Key>(backend, repeated.keys);
  const auto values = make_buffer_from<lsm_value>(backend, repeated.values);
  map.bulk_build(keys.span(), values.span());
  EXPECT_EQ(map.resident_entries(), repeated.keys.size());
  EXPECT_EQ(map.resident_stale(), repeated.keys.size() - built.size());
  expect_matches_model(backend, map, built, random, Key{100}, 64);
}

TYPED_TEST(lsm_map_test, automatic_cleanup_bounds_tombstones)
{
  using Key = std::uint32_t;
  const auto& backend = this->backend();
  std::mt19937_64 random(case_seed(0));
  for (const double threshold : {0.0, 0.25}) {
    lsm_map<Key, lsm_value, TypeParam> map(backend, lsm_options{32, threshold});
    std::map<Key, lsm_value> model;
    for (int step = 0; step < 30; ++step) {
      const auto batch = random_batch<Key>(random, 32, step < 10 ? 0.0 : 0.9, Key{4000});
      apply_to_model(model, batch, 32);
      apply_to_map(backend, map, batch);
    }
    if (threshold > 0) {
      EXPECT_LE(static_cast<double>(map.resident_tombstones()),
                threshold * static_cast<double>(map.resident_entries()));
    } else {
      EXPECT_GT(map.resident_tombstones(), 0u) << "with cleanup off, tombstones stay until a cleanup";
    }
    expect_matches_model(backend, map, model, random, Key{4000}, 128);
  }
}

TYPED_TEST(lsm_map_test, bad_input_is_rejected_before_anything_changes)
{
  using Key = std::uint32_t;
  using map_type = lsm_map<Key, lsm_value, TypeParam>;
  const auto& backend = this->backend();
  expect_error_mentioning<warpdex::error>([&] { map_type(backend, lsm_options{0}); }, {"batch size"});
  expect_error_mentioning<warpdex::error>([&] { map_type(backend, lsm_options{4, 1.5}); }, {"threshold"});
  expect_error_mentioning<warpdex::error>([&] { map_type(backend, lsm_options{4, -0.1}); }, {"threshold"});

  map_type map(backend, lsm_options{2});
  const lsm_batch<Key> first = {
      {1, 2, 3}, {10, 20, 30}, {lsm_operation::insert, lsm_operation::insert, lsm_operation::insert}};
  apply_to_map(backend, map, first);
  std::map<Key, lsm_value> model;
  apply_to_model(model, first, 2);

  // An unknown operation in the last chunk: no chunk is applied.
  lsm_batch<Key> bad = {{4, 5, 1, 6, 7}, {1, 1, 1, 1, 1}, {}};
  bad.operations = {lsm_operation::insert, lsm_operation::insert, lsm_operation::erase, lsm_operation::insert,
                    static_cast<lsm_operation>(7)};
  expect_error_mentioning<warpdex::error>([&] { apply_to_map(backend, map, bad); },
                                          {"lsm_map::update", "1 operations"});

  const auto keys = make_buffer_from<Key>(backend, std::vector<Key>{1, 2});
  const auto one_value = make_buffer_from<lsm_value>(backend, std::vector<lsm_value>{1});
  const auto two_operations =
      make_buffer_from<lsm_operation>(backend, std::vector<lsm_operation>{lsm_operation::insert, lsm_operation::erase});
  expect_error_mentioning<warpdex::error>([&] { map.update(keys.span(), one_value.span(), two_operations.span()); },
                                          {"lsm_map::update", "sizes must agree"});
  expect_error_mentioning<warpdex::error>([&] { map.insert(keys.span(), one_value.span()); }, {"lsm_map::insert"});
  expect_error_mentioning<warpdex::error>([&] { map.bulk_build(keys.span(), one_value.span()); },
                                          {"lsm_map::bulk_build"});

  auto values = make_buffer<lsm_value>(backend, 1);
  auto found = make_buffer<std::uint8_t>(backend, 2);
  auto counts = make_buffer<std::uint64_t>(backend, 1);
  auto neighbor_keys = make_buffer<Key>(backend, 2);
  expect_error_mentioning<warpdex::error>([&] { map.lookup(keys.span(), values.span(), found.span()); },
                                          {"lsm_map::lookup"});
  expect_error_mentioning<warpdex::error>([&] { map.count(keys.span(), keys.span(), counts.span()); },
                                          {"lsm_map::count"});
  expect_error_mentioning<warpdex::error>([&] { (void)map.range(keys.span(), std::span<const Key>(keys.data(), 1)); },
                                          {"lsm_map::range"});
  expect_error_mentioning<warpdex::error>(
      [&] { map.successor(keys.span(), neighbor_keys.span(), values.span(), found.span()); }, {"lsm_map::successor"});
  expect_error_mentioning<warpdex::error>(
      [&] { map.predecessor(keys.span(), neighbor_keys.span(), values.span(), found.span()); },
      {"lsm_map::predecessor"});
  expect_error_mentioning<warpdex::error>([&] { map.set_cleanup_threshold(2.0); }, {"threshold"});

  std::mt19937_64 random(case_seed(0));
  expect_matches_model(backend, map, model, random, Key{16}, 32);
}

}  // namespace
