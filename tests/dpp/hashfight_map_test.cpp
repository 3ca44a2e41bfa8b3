// hashfight_map against a std::unordered_map oracle on every backend of the build, k32/v32 and k64/v64:
// load factors, queries 0 / 50 / 90 % absent, duplicate keys (the largest value survives), 64-bit keys
// whose low words collide, reserved encodings, edge cases and a table too large for memory; the
// partitioned rounds with many partitions, a hot key whose partition outgrows a block's registers, and
// sizes that are multiples of nothing; every bucket size (one slot, 32 and 64 bytes), keys built to share
// one bucket, and Zipf-skewed keys.
#include "dpp_test_support.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/dpp/hashfight_map.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace {

using namespace warpdex::testing;
using warpdex::dpp::hashfight_map;
using warpdex::dpp::hashfight_options;

template <class Backend>
class hashfight_map_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(hashfight_map_test, all_backends, backend_names);

/// Options that make small tests fight: a leftover limit far below the pair count.
hashfight_options fighting(double load_factor, std::uint64_t leftover_limit = 16)
{
  hashfight_options options;
  options.load_factor = load_factor;
  options.leftover_limit = leftover_limit;
  return options;
}

/// The oracle of a build: the largest value of each key.
template <class Key>
std::unordered_map<Key, Key> oracle_of(const std::vector<Key>& keys, const std::vector<Key>& values)
{
  std::unordered_map<Key, Key> model;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto [entry, inserted] = model.try_emplace(keys[i], values[i]);
    if (!inserted) { entry->second = std::max(entry->second, values[i]); }
  }
  return model;
}

/// Builds from the pairs, then checks size, find and contains on `queries` against the oracle.
template <class Key, class Backend>
void expect_map_matches(const Backend& backend, const std::vector<Key>& keys, const std::vector<Key>& values,
                        const std::vector<Key>& queries, hashfight_options options)
{
  using map_type = hashfight_map<Key, Key, Backend>;
  const auto model = oracle_of(keys, values);
  const auto key_buffer = make_buffer_from<Key>(backend, keys);
  const auto value_buffer = make_buffer_from<Key>(backend, values);
  const map_type map(backend, std::span<const Key>(key_buffer.data(), keys.size()),
                     std::span<const Key>(value_buffer.data(), values.size()), options);
  EXPECT_EQ(map.size(), model.size());
  EXPECT_GT(map.memory_bytes() + (keys.empty() ? 1 : 0), 0u);
  const auto query_buffer = make_buffer_from<Key>(backend, queries);
  const std::span<const Key> query_span(query_buffer.data(), queries.size());
  auto found_values = make_filled_buffer<Key>(backend, queries.size(), Key{7});
  auto found = make_filled_buffer<std::uint8_t>(backend, queries.size(), 7);
  map.find(query_span, found_values.span());
  map.contains(query_span, found.span());
  const auto got_values = found_values.to_vector();
  const auto got_found = found.to_vector();
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto entry = model.find(queries[i]);
    const Key expected = entry == model.end() ? map_type::miss_value : entry->second;
    ASSERT_EQ(got_values[i], expected) << "query " << i << " key " << queries[i];
    ASSERT_EQ(got_found[i], entry == model.end() ? 0 : 1) << "query " << i;
  }
}

/// n distinct keys (below the reserved one) with values, and queries of which `absent` are absent.
template <class Key>
void build_and_query(std::uint64_t n, double absent, hashfight_options options, std::uint64_t seed,
                     std::vector<Key>& keys, std::vector<Key>& values, std::vector<Key>& queries)
{
  const warpdex::key_set<Key> set{n, seed, warpdex::key_order::shuffled, static_cast<Key>(~Key{0} - 1)};
  keys.resize(n);
  warpdex::generate_keys(warpdex::host{}, set, std::span<Key>(keys));
  values.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) { values[i] = static_cast<Key>(warpdex::fmix64(keys[i]) % (~Key{0})); }
  queries.resize(2 * n);
  warpdex::generate_queries(warpdex::host{}, set, absent, seed + 1, std::span<Key>(queries));
  (void)options;
}

/// `fighting` with buckets of `bucket_bytes` (0: automatic; the entry's size: one slot a key).
hashfight_options fighting_in_buckets(double load_factor, std::uint32_t bucket_bytes, std::uint64_t leftover_limit = 16)
{
  hashfight_options options = fighting(load_factor, leftover_limit);
  options.bucket_bytes = bucket_bytes;
  return options;
}

/// The bucket sizes a key width allows: one slot, 32 bytes (when it holds two entries) and 64 bytes.
template <class Key>
std::vector<std::uint32_t> bucket_sizes()
{
  if constexpr (sizeof(Key) == 4) {
    return {8, 32, 64};
  } else {
    return {16, 32, 64};
  }
}

template <class Key, class Backend>
void load_factors_and_absent_fractions(const Backend& backend, std::uint64_t seed)
{
  SCOPED_TRACE(sizeof(Key));
  for (const std::uint32_t bucket_bytes : bucket_sizes<Key>()) {
    for (const double load_factor : {1.03, 1.5, 2.0}) {
      for (const double absent : {0.0, 0.5, 0.9}) {
        SCOPED_TRACE(bucket_bytes);
        SCOPED_TRACE(load_factor);
        SCOPED_TRACE(absent);
        std::vector<Key> keys, values, queries;
        build_and_query<Key>(5000, absent, fighting(load_factor), seed, keys, values, queries);
        expect_map_matches(backend, keys, values, queries, fighting_in_buckets(load_factor, bucket_bytes));
      }
    }
  }
}

TYPED_TEST(hashfight_map_test, matches_oracle_at_load_factors_and_absent_fractions)
{
  load_factors_and_absent_fractions<std::uint32_t>(this->backend(), case_seed(1));
  load_factors_and_absent_fractions<std::uint64_t>(this->backend(), case_seed(1));
}

TYPED_TEST(hashfight_map_test, matches_oracle_with_a_fresh_seed)
{
  hashfight_options options = fighting(1.03);
  options.seed = fresh_seed();
  std::vector<std::uint64_t> keys, values, queries;
  build_and_query<std::uint64_t>(20000, 0.5, options, fresh_seed(), keys, values, queries);
  expect_map_matches(this->backend(), keys, values, queries, options);
}

TYPED_TEST(hashfight_map_test, rounds_and_leftovers)
{
  std::vector<std::uint32_t> keys, values, queries;
  build_and_query<std::uint32_t>(4000, 0.5, {}, case_seed(2), keys, values, queries);
  const auto key_buffer = make_buffer_from<std::uint32_t>(this->backend(), keys);
  const auto value_buffer = make_buffer_from<std::uint32_t>(this->backend(), values);
  const std::span<const std::uint32_t> k(key_buffer.data(), keys.size());
  const std::span<const std::uint32_t> v(value_buffer.data(), values.size());
  // The default leftover limit exceeds the pairs: no round, all sorted.
  const hashfight_map<std::uint32_t, std::uint32_t, TypeParam> sorted_only(this->backend(), k, v);
  EXPECT_EQ(sorted_only.rounds(), 0u);
  EXPECT_EQ(sorted_only.leftover_size(), keys.size());
  // No leftover limit: rounds until every key is stored, each round storing most of the rest (partitioned
  // rounds for one partition of 4000 pairs, then classic ones for the few left).
  const hashfight_map<std::uint32_t, std::uint32_t, TypeParam> all_fought(this->backend(), k, v, fighting(1.03, 0));
  EXPECT_GT(all_fought.rounds(), 1u);
  EXPECT_LT(all_fought.rounds(), 16u);
  EXPECT_EQ(all_fought.leftover_size(), 0u);
  EXPECT_EQ(all_fought.size(), keys.size());
  // One round only: the rest are leftovers.
  hashfight_options one_round = fighting(1.03, 0);
  one_round.max_rounds = 1;
  expect_map_matches(this->backend(), keys, values, queries, one_round);
  const hashfight_map<std::uint32_t, std::uint32_t, TypeParam> one(this->backend(), k, v, one_round);
  EXPECT_EQ(one.rounds(), 1u);
  EXPECT_GT(one.leftover_size(), 0u);
}

/// Options that fight in chunked passes: sub-tables of more than `chunk_bytes` bytes split into ranges.
hashfight_options chunked(double load_factor, std::uint64_t chunk_bytes)
{
  hashfight_options options = fighting(load_factor);
  options.chunk_bytes = chunk_bytes;
  return options;
}

template <class Key, class Backend>
void chunked_builds_match(const Backend& backend, std::uint64_t seed)
{
  SCOPED_TRACE(sizeof(Key));
  using map_type = hashfight_map<Key, Key, Backend>;
  for (const double load_factor : {1.03, 2.0}) {
    SCOPED_TRACE(load_factor);
    std::vector<Key> keys, values, queries;
    build_and_query<Key>(6000, 0.5, {}, seed, keys, values, queries);
    // 8 KiB ranges: the first sub-tables (6000 * lf entries of 8 or 16 bytes) take 6 to 24 passes, the
    // last ones one.
    expect_map_matches(backend, keys, values, queries, chunked(load_factor, 8192));
    const auto key_buffer = make_buffer_from<Key>(backend, keys);
    const std::span<const Key> k(key_buffer.data(), keys.size());
    const map_type map(backend, k, k, chunked(load_factor, 8192));
    EXPECT_EQ(map.chunk_bytes(), 8192u);
    EXPECT_GE(map.chunked_subtables(), 1u);  // the multi-pass probe ran
    EXPECT_EQ(map.size(), keys.size());
    // Duplicate keys (about 4 pairs a key) keep the largest value in chunked passes too.
    std::vector<Key> repeated(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) { repeated[i] = keys[i / 4]; }
    expect_map_matches(backend, repeated, values, queries, chunked(load_factor, 8192));
  }
  // 1-byte ranges: every sub-table is cut into one slot a pass (100 pairs: up to 103 passes).
  std::vector<Key> keys, values, queries;
  build_and_query<Key>(100, 0.5, {}, seed + 1, keys, values, queries);
  expect_map_matches(backend, keys, values, queries, chunked(1.03, 1));
}

TYPED_TEST(hashfight_map_test, chunked_passes_answer_as_one_pass_does)
{
  chunked_builds_match<std::uint32_t>(this->backend(), case_seed(5));
  chunked_builds_match<std::uint64_t>(this->backend(), fresh_seed());
}

/// n keys that all fight for one bucket (one slot when a bucket is one entry) of round 0's sub-table, in a
/// build of n pairs (one partition) with buckets of `bucket_entries` entries (a mask among them when more
/// than one), found by search: the bucket of key k is the high word of fmix64(k ^ round seed) * buckets,
/// as in src/dpp/hashfight_impl.hpp and the plan of include/warpdex/dpp/hashfight_map.hpp.
template <class Key>
std::vector<Key> keys_sharing_round_zero_bucket(std::uint64_t n, const hashfight_options& options,
                                                std::uint32_t bucket_entries)
{
  const std::uint64_t round_seed = warpdex::fmix64(options.seed + 0x9e3779b97f4a7c15ULL);
  const std::uint32_t lanes = bucket_entries == 1 ? 1 : bucket_entries - 1;
  const auto buckets = static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) * options.load_factor / lanes));
  const auto bucket_of = [&](Key key) {
    return static_cast<std::uint64_t>(
        (static_cast<unsigned __int128>(warpdex::fmix64(static_cast<std::uint64_t>(key) ^ round_seed)) * buckets) >>
        64);
  };
  std::vector<Key> keys;
  const std::uint64_t target = bucket_of(Key{0});
  for (Key key = 0; keys.size() < n; ++key) {
    if (bucket_of(key) == target) { keys.push_back(key); }
  }
  return keys;
}

template <class Key, class Backend>
void one_bucket_for_every_key(const Backend& backend)
{
  SCOPED_TRACE(sizeof(Key));
  constexpr std::uint64_t n = 1500;
  for (const std::uint32_t bucket_bytes : bucket_sizes<Key>()) {
    SCOPED_TRACE(bucket_bytes);
    const hashfight_options options = fighting_in_buckets(1.03, bucket_bytes);
    const std::uint32_t bucket_entries = bucket_bytes / (2 * sizeof(Key));
    const std::uint32_t lanes = bucket_entries == 1 ? 1 : bucket_entries - 1;
    const auto keys = keys_sharing_round_zero_bucket<Key>(n, options, bucket_entries);
    std::vector<Key> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) { values[i] = static_cast<Key>(i * 7); }
    std::vector<Key> queries(keys);
    for (Key q = 1; q < 200; ++q) { queries.push_back(q); }  // mostly absent
    expect_map_matches(backend, keys, values, queries, options);
    hashfight_options chunked_options = options;
    chunked_options.chunk_bytes = 512;
    expect_map_matches(backend, keys, values, queries, chunked_options);
    // Round 0 stores one key a lane; round 1's fresh seed parts the rest.
    const auto key_buffer = make_buffer_from<Key>(backend, keys);
    const std::span<const Key> k(key_buffer.data(), keys.size());
    const hashfight_map<Key, Key, Backend> map(backend, k, k, options);
    EXPECT_EQ(map.bucket_entries(), bucket_entries);
    EXPECT_GE(map.rounds(), 2u);
    EXPECT_LT(map.rounds(), 16u);
    hashfight_options one_round = options;
    one_round.max_rounds = 1;
    const hashfight_map<Key, Key, Backend> first_round_only(backend, k, k, one_round);
    EXPECT_EQ(first_round_only.leftover_size(), n - lanes);  // the keys did share one bucket
    expect_map_matches(backend, keys, values, queries, one_round);
  }
}

TYPED_TEST(hashfight_map_test, keys_built_to_share_one_bucket)
{
  one_bucket_for_every_key<std::uint32_t>(this->backend());
  one_bucket_for_every_key<std::uint64_t>(this->backend());
}

/// Zipf-skewed keys (exponent 1.1 over 20,000 keys: the hottest key about a tenth of the pairs, in one
/// partition and one bucket) with values that differ, in every bucket size.
template <class Key, class Backend>
void zipf_keys_match(const Backend& backend, std::uint64_t seed)
{
  SCOPED_TRACE(sizeof(Key));
  constexpr std::uint64_t n = 60000;
  const warpdex::key_set<Key> pool{20000, seed, warpdex::key_order::shuffled, static_cast<Key>(~Key{0} - 1)};
  std::vector<Key> keys(n);
  warpdex::generate_zipf_keys(warpdex::host{}, pool, 1.1, seed + 1, std::span<Key>(keys));
  std::vector<Key> values(n);
  for (std::uint64_t i = 0; i < n; ++i) { values[i] = static_cast<Key>(warpdex::fmix64(i ^ seed) % (~Key{0})); }
  std::vector<Key> queries(20000);
  warpdex::generate_queries(warpdex::host{}, pool, 0.5, seed + 2, std::span<Key>(queries));
  for (const std::uint32_t bucket_bytes : bucket_sizes<Key>()) {
    SCOPED_TRACE(bucket_bytes);
    expect_map_matches(backend, keys, values, queries, fighting_in_buckets(1.03, bucket_bytes, 1000));
  }
}

TYPED_TEST(hashfight_map_test, zipf_keys_in_every_bucket_size)
{
  zipf_keys_match<std::uint32_t>(this->backend(), fresh_seed());
  zipf_keys_match<std::uint64_t>(this->backend(), fresh_seed());
}

TYPED_TEST(hashfight_map_test, automatic_chunk_per_backend)
{
  const std::vector<std::uint32_t> keys = {1, 2, 3};
  const auto key_buffer = make_buffer_from<std::uint32_t>(this->backend(), keys);
  const std::span<const std::uint32_t> k(key_buffer.data(), 3);
  const hashfight_map<std::uint32_t, std::uint32_t, TypeParam> map(this->backend(), k, k, fighting(1.03, 0));
  // No chunks on either backend: the H200 showed no TLB cliff up to 12 GiB sub-tables (hashfight_map.hpp).
  EXPECT_EQ(map.chunk_bytes(), warpdex::dpp::hashfight_no_chunks);
  EXPECT_EQ(map.chunked_subtables(), 0u);
}

TEST(hashfight_chunk_count, splits_into_ranges_of_at_most_the_chunk)
{
  using warpdex::dpp::hashfight_chunk_count;
  EXPECT_EQ(hashfight_chunk_count(0, 8, 64), 1u);
  EXPECT_EQ(hashfight_chunk_count(8, 8, 64), 1u);
  EXPECT_EQ(hashfight_chunk_count(9, 8, 64), 2u);
  EXPECT_EQ(hashfight_chunk_count(17, 16, 64), 5u);
  EXPECT_EQ(hashfight_chunk_count(std::uint64_t{1} << 40, 8, warpdex::dpp::hashfight_no_chunks), 1u);
  EXPECT_EQ(hashfight_chunk_count(5, 8, 1), 5u);  // a chunk smaller than an entry: one slot a pass
  EXPECT_EQ(hashfight_chunk_count(std::uint64_t{1} << 30, 8, 64), warpdex::dpp::hashfight_max_chunks);
  // 2^30 k32 pairs at load factor 1.5: a 12 GiB first sub-table, 6 passes of 2 GiB.
  EXPECT_EQ(hashfight_chunk_count(std::uint64_t{3} << 29, 8, warpdex::dpp::hashfight_small_tlb_chunk_bytes), 6u);
}

template <class Key, class Backend>
void duplicate_keys_keep_the_largest_value(const Backend& backend, std::uint64_t seed)
{
  SCOPED_TRACE(sizeof(Key));
  std::mt19937_64 random(seed);
  std::vector<Key> keys;
  std::vector<Key> values;
  for (std::uint64_t i = 0; i < 6000; ++i) {
    keys.push_back(static_cast<Key>(random() % 1500));  // about 4 pairs per key
    values.push_back(static_cast<Key>(random() % 100000));
  }
  keys.push_back(3);  // one key many times, the largest value in the middle
  values.push_back(5);
  for (Key v : {Key{1}, Key{900000}, Key{2}}) {
    keys.push_back(11);
    values.push_back(v);
  }
  std::vector<Key> queries(keys);
  for (Key q = 1500; q < 1600; ++q) { queries.push_back(q); }
  expect_map_matches(backend, keys, values, queries, fighting(1.03));       // fought
  expect_map_matches(backend, keys, values, queries, hashfight_options{});  // all leftovers
  // Every pair one key.
  expect_map_matches(backend, std::vector<Key>(3000, Key{42}), std::vector<Key>(3000, Key{8}), {Key{42}, Key{41}},
                     fighting(1.03));
}

TYPED_TEST(hashfight_map_test, duplicate_keys_keep_the_largest_value)
{
  duplicate_keys_keep_the_largest_value<std::uint32_t>(this->backend(), case_seed(3));
  duplicate_keys_keep_the_largest_value<std::uint64_t>(this->backend(), case_seed(3));
}

/// The partitioned rounds (hashfight_map.hpp) over many partitions: distinct keys of an odd count, a hot key
/// of 12,000 pairs (its partition holds several times the pairs a GPU block keeps in registers, so it
/// fights from global memory) among distinct keys, and tiny builds.
template <class Key, class Backend>
void partitioned_rounds_match(const Backend& backend, std::uint64_t seed)
{
  SCOPED_TRACE(sizeof(Key));
  for (const double load_factor : {1.03, 2.0}) {
    SCOPED_TRACE(load_factor);
    std::vector<Key> keys, values, queries;
    build_and_query<Key>(40009, 0.5, {}, seed, keys, values, queries);
    expect_map_matches(backend, keys, values, queries, fighting(load_factor));
    const auto key_buffer = make_buffer_from<Key>(backend, keys);
    const std::span<const Key> k(key_buffer.data(), keys.size());
    const hashfight_map<Key, Key, Backend> map(backend, k, k, fighting(load_factor));
    EXPECT_GE(map.partitions(), 7u);  // 40009 pairs: at most 6144 (3072 for 64-bit keys) a partition
    EXPECT_GE(map.partitioned_rounds(), 3u);  // 32-byte k32 buckets: 3 to 6 rounds
    EXPECT_EQ(map.size(), keys.size());
  }
  if constexpr (sizeof(Key) == 8) {
    // More than 256 partitions (at most 3072 64-bit pairs each): the split runs in two digit passes.
    std::vector<Key> keys, values, queries;
    build_and_query<Key>(800011, 0.5, {}, seed + 1, keys, values, queries);
    queries.resize(100000);
    expect_map_matches(backend, keys, values, queries, fighting(1.03));
    const auto key_buffer = make_buffer_from<Key>(backend, keys);
    const std::span<const Key> k(key_buffer.data(), keys.size());
    EXPECT_GT((hashfight_map<Key, Key, Backend>(backend, k, k, fighting(1.03)).partitions()), 256u);
  }
  std::mt19937_64 random(seed + 2);
  std::vector<Key> keys, values, queries;
  build_and_query<Key>(6007, 0.3, {}, seed + 3, keys, values, queries);
  const Key hot = keys[17];
  for (std::uint64_t i = 0; i < 12000; ++i) {
    keys.push_back(hot);
    values.push_back(static_cast<Key>(random() % 1000000));
  }
  std::shuffle(keys.begin(), keys.end(), random);
  queries.push_back(hot);
  expect_map_matches(backend, keys, values, queries, fighting(1.03));
  expect_map_matches(backend, keys, values, queries, fighting(2.0));
  expect_map_matches(backend, keys, values, queries, fighting_in_buckets(1.03, 2 * sizeof(Key)));
  expect_map_matches(backend, keys, values, queries, fighting_in_buckets(1.5, 32));
  for (const std::uint64_t n : {1, 2, 3, 7, 61}) {
    build_and_query<Key>(n, 0.5, {}, seed + n, keys, values, queries);
    expect_map_matches(backend, keys, values, queries, fighting(1.03, 0));
  }
}

TYPED_TEST(hashfight_map_test, partitioned_rounds_with_a_hot_key_and_odd_sizes)
{
  partitioned_rounds_match<std::uint32_t>(this->backend(), fresh_seed());
  partitioned_rounds_match<std::uint64_t>(this->backend(), fresh_seed());
}

TEST(hashfight_plan, partitions_and_regions)
{
  using warpdex::dpp::hashfight_plan;
  // No rounds when the pairs fit the leftover limit.
  EXPECT_EQ(hashfight_plan(1000, 8, hashfight_options{}).rounds, 0u);
  for (const double load_factor : {1.03, 1.5, 2.0}) {
    for (const std::size_t entry_bytes : {std::size_t{8}, std::size_t{16}}) {
      const auto layout = hashfight_plan(std::uint64_t{1} << 24, entry_bytes,
                                         fighting_in_buckets(load_factor, static_cast<std::uint32_t>(entry_bytes)));
      SCOPED_TRACE(load_factor);
      EXPECT_LE(layout.partition_slots() * entry_bytes, warpdex::dpp::hashfight_partition_bytes);
      EXPECT_GE(layout.partitions, (std::uint64_t{1} << 24) / warpdex::dpp::hashfight_partition_pairs(entry_bytes));
      EXPECT_GE(layout.rounds, 5u);
      // The first region holds the expected pairs at the load factor; later ones shrink.
      EXPECT_GE(static_cast<double>(layout.regions[0]),
                load_factor * static_cast<double>(std::uint64_t{1} << 24) / layout.partitions);
      for (std::uint32_t r = 1; r < layout.rounds; ++r) { EXPECT_LT(layout.regions[r], layout.regions[r - 1]); }
    }
  }
  // Buckets: regions of whole buckets (their masks among the entries), fewer entries a pair than slots
  // (a bucket stores up to its lanes a round), fewer rounds; one slot a key without a mask otherwise.
  for (const double load_factor : {1.03, 1.5, 2.0}) {
    SCOPED_TRACE(load_factor);
    const auto slots = hashfight_plan(std::uint64_t{1} << 24, 8, fighting_in_buckets(load_factor, 8));
    EXPECT_EQ(slots.bucket_entries, 1u);
    for (const std::uint32_t bucket_bytes : {32U, 64U}) {
      const auto buckets = hashfight_plan(std::uint64_t{1} << 24, 8, fighting_in_buckets(load_factor, bucket_bytes));
      EXPECT_EQ(buckets.bucket_entries, bucket_bytes / 8);
      for (std::uint32_t r = 0; r < buckets.rounds; ++r) { EXPECT_EQ(buckets.regions[r] % buckets.bucket_entries, 0u); }
      EXPECT_LT(buckets.rounds, slots.rounds);
      EXPECT_GE(buckets.rounds, 2u);
      EXPECT_LE(buckets.partition_slots() * 8, warpdex::dpp::hashfight_partition_bytes);
    }
    // 64-byte buckets of 7 lanes store about 87% of a round's pairs at 1.03: fewer entries a pair than
    // the slots' 1.61.
    const auto wide = hashfight_plan(std::uint64_t{1} << 24, 8, fighting_in_buckets(load_factor, 64));
    EXPECT_LT(static_cast<double>(wide.partitions) * static_cast<double>(wide.partition_slots()),
              static_cast<double>(slots.partitions) * static_cast<double>(slots.partition_slots()));
  }
  // Automatic: 32-byte buckets for 8-byte entries, one slot for 16-byte ones (hashfight_auto_bucket_bytes).
  EXPECT_EQ(hashfight_plan(std::uint64_t{1} << 24, 8, fighting_in_buckets(1.03, 0)).bucket_entries, 4u);
  EXPECT_EQ(hashfight_plan(std::uint64_t{1} << 24, 16, fighting_in_buckets(1.03, 0)).bucket_entries, 1u);
  EXPECT_EQ(hashfight_plan(std::uint64_t{1} << 24, 8, fighting_in_buckets(1.03, 24)).rounds, 0u);  // not a size
}

TYPED_TEST(hashfight_map_test, keys_whose_low_words_collide)
{
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> values;
  for (std::uint64_t high = 0; high < 3000; ++high) {
    keys.push_back(high << 32 | 0x12345678U);
    values.push_back(high);
  }
  std::vector<std::uint64_t> queries(keys);
  for (std::uint64_t high = 3000; high < 4000; ++high) { queries.push_back(high << 32 | 0x12345678U); }
  queries.push_back(0x12345678U);
  expect_map_matches(this->backend(), keys, values, queries, fighting(1.03));
  expect_map_matches(this->backend(), keys, values, queries, hashfight_options{});
}

template <class Key, class Backend>
void edge_cases(const Backend& backend)
{
  SCOPED_TRACE(sizeof(Key));
  constexpr Key reserved = ~Key{0};
  expect_map_matches<Key>(backend, std::vector<Key>{}, std::vector<Key>{}, {Key{0}, Key{1}, reserved}, fighting(1.03));
  expect_map_matches<Key>(backend, {Key{0}}, {Key{0}}, {Key{0}, Key{1}, reserved}, fighting(1.03, 0));
  // The largest storable key and value are ordinary.
  expect_map_matches<Key>(backend, {Key(reserved - 1), Key{5}}, {Key(reserved - 1), Key{0}},
                          {Key(reserved - 1), Key{5}, reserved}, fighting(1.03, 0));
}

TYPED_TEST(hashfight_map_test, empty_one_pair_extremes)
{
  edge_cases<std::uint32_t>(this->backend());
  edge_cases<std::uint64_t>(this->backend());
}

template <class Key, class Backend>
void reserved_encodings_are_rejected(const Backend& backend)
{
  using map_type = hashfight_map<Key, Key, Backend>;
  const std::vector<Key> keys = {1, 2, map_type::empty_key, 4};
  const std::vector<Key> values = {1, map_type::miss_value, 3, 4};
  const std::vector<Key> ordinary = {1, 2, 3, 4};
  const auto bad_keys = make_buffer_from<Key>(backend, keys);
  const auto bad_values = make_buffer_from<Key>(backend, values);
  const auto good = make_buffer_from<Key>(backend, ordinary);
  const std::span<const Key> good_span(good.data(), 4);
  expect_error_mentioning<warpdex::error>(
      [&] { const map_type map(backend, std::span<const Key>(bad_keys.data(), 4), good_span); },
      {"hashfight_map: key 2 is", "reserved empty key"});
  expect_error_mentioning<warpdex::error>(
      [&] { const map_type map(backend, good_span, std::span<const Key>(bad_values.data(), 4)); },
      {"hashfight_map: value 1 is", "reserved miss value"});
  expect_error_mentioning<warpdex::error>(
      [&] { const map_type map(backend, good_span, std::span<const Key>(good.data(), 3)); }, {"4 keys but 3 values"});
  hashfight_options low;
  low.load_factor = 0.5;
  expect_error_mentioning<warpdex::error>([&] { const map_type map(backend, good_span, good_span, low); },
                                          {"load factor must be >= 1"});
  for (const std::uint32_t bucket_bytes : {4U, 24U, 128U, static_cast<std::uint32_t>(sizeof(Key))}) {
    hashfight_options odd;
    odd.bucket_bytes = bucket_bytes;
    expect_error_mentioning<warpdex::error>([&] { const map_type map(backend, good_span, good_span, odd); },
                                            {"bucket_bytes must be"});
  }
}

TYPED_TEST(hashfight_map_test, reserved_encodings_and_bad_arguments_are_rejected)
{
  reserved_encodings_are_rejected<std::uint32_t>(this->backend());
  reserved_encodings_are_rejected<std::uint64_t>(this->backend());
}

TYPED_TEST(hashfight_map_test, a_table_larger_than_memory_is_a_clear_error)
{
  using map_type = hashfight_map<std::uint64_t, std::uint64_t, TypeParam>;
  std::vector<std::uint64_t> keys, values, queries;
  build_and_query<std::uint64_t>(1000, 0.5, {}, case_seed(4), keys, values, queries);
  const auto key_buffer = make_buffer_from<std::uint64_t>(this->backend(), keys);
  const auto value_buffer = make_buffer_from<std::uint64_t>(this->backend(), values);
  const std::span<const std::uint64_t> k(key_buffer.data(), keys.size());
  const std::span<const std::uint64_t> v(value_buffer.data(), values.size());
  hashfight_options huge = fighting(1e12);  // ~10^15 slots
  expect_error_mentioning<warpdex::out_of_memory>([&] { const map_type map(this->backend(), k, v, huge); },
                                                  {"hashfight_map: building 1000 pairs", "MiB of", "use fewer pairs"});
  // Nothing was kept: an ordinary build right after works.
  expect_map_matches(this->backend(), keys, values, queries, fighting(1.03));
}

TYPED_TEST(hashfight_map_test, query_size_mismatch_is_rejected)
{
  const std::vector<std::uint32_t> keys = {1, 2, 3};
  const auto key_buffer = make_buffer_from<std::uint32_t>(this->backend(), keys);
  const std::span<const std::uint32_t> k(key_buffer.data(), 3);
  const hashfight_map<std::uint32_t, std::uint32_t, TypeParam> map(this->backend(), k, k);
  auto out = make_buffer<std::uint32_t>(this->backend(), 2);
  expect_error_mentioning<warpdex::error>([&] { map.find(k, out.span()); }, {"3 queries but 2 values"});
}

}  // namespace
