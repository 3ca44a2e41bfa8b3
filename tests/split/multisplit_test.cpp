// Stable multisplit on every backend against the stable-partition oracle, for every identifier kind,
// bucket counts on both sides of the direct path's limit, every bucket spread, keys and pairs.
#include "split/multisplit_oracle.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/multisplit_host.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::testing {
namespace {

using key32 = std::uint32_t;
using value32 = std::uint32_t;

constexpr key32 poison_key = 0xdeadbeefU;
constexpr value32 poison_value = 0xfeedfaceU;
/// Bucket counts of the issue: both sides of 32 (one warp) and of 256 (the direct path's limit).
/// Sanitizer-sized (backend_fixture.hpp): one of each path: the partition (2, 3), one pass with fewer
/// and more than 32 buckets (5, 256), super buckets and the sort (1000).
const std::vector<std::uint32_t> bucket_counts = full_or_sanitizer_sized<std::vector<std::uint32_t>>(
    {1, 2, 3, 5, 32, 33, 100, 256, 257, 1000}, {2, 3, 5, 256, 1000});
/// The most buckets one multisplit pass handles; more take the super-bucket passes or the sort.
constexpr std::uint32_t one_pass_max_buckets = 256;
/// Sizes: empty, one key, one past a tile (4096 keys in the three passes and in the single pass of 64-bit
/// keys, two warp tiles of 2048 and eight of the partition's 512; 5760 in the single pass of 64-bit keys
/// alone split by bit fields; 7680 in the single pass of 32-bit keys, 7296 where it ranks them by the keys:
/// bit fields and delta buckets, with or without 32-bit values, and 8832 for pairs with bit fields over
/// 129-256 buckets), two full tiles of 5760, 7296 and 8832 (no ragged last tile), and several tiles of each
/// with a ragged end (sanitizer-sized: one key, one past each single-pass tile of 32-bit keys, two full tiles
/// and the ragged tiles).
const std::vector<std::uint64_t> sizes = full_or_sanitizer_sized<std::vector<std::uint64_t>>(
    {0, 1, 4097, 5761, 7297, 7681, 8833, 2 * 5760, 2 * 7296, 2 * 8832, 3 * 7680 + 1000},
    {1, 7297, 7681, 8833, 2 * 5760, 2 * 7296, 2 * 8832, 3 * 7680 + 1000});
const std::vector<bucket_spread> spreads = {bucket_spread::uniform, bucket_spread::one_bucket, bucket_spread::binomial,
                                            bucket_spread::quarter_skewed};

using key64 = std::uint64_t;
constexpr key64 poison_key64 = 0xdeadbeefdeadbeefULL;

/// The unsigned integer of a key's width: keys compare by bit pattern (float NaN included).
template <class T>
using bits_of = std::conditional_t<sizeof(T) == sizeof(std::uint64_t), std::uint64_t, std::uint32_t>;

template <class T>
std::vector<bits_of<T>> bit_patterns(const std::vector<T>& values)
{
  std::vector<bits_of<T>> bits(values.size());
  std::transform(values.begin(), values.end(), bits.begin(), [](T v) { return std::bit_cast<bits_of<T>>(v); });
  return bits;
}

template <class Key>
Key poison_for()
{
  if constexpr (sizeof(Key) == sizeof(key64)) {
    return poison_key64;
  } else {
    return std::bit_cast<Key>(poison_key);
  }
}

/// Every algorithm of the cuda backend (the host backend runs its one algorithm for each): with m > 256
/// three_pass and single_pass run the super-bucket passes with that algorithm, super_bucket picks
/// per pass, and reduced_bit_sort sorts labels for any m; partition takes m <= 3 (automatic above).
const std::vector<std::pair<multisplit_algorithm, const char*>> algorithms = {
    {multisplit_algorithm::automatic, "automatic"},
    {multisplit_algorithm::three_pass, "three_pass"},
    {multisplit_algorithm::single_pass, "single_pass"},
    {multisplit_algorithm::super_bucket, "super_bucket"},
    {multisplit_algorithm::reduced_bit_sort, "reduced_bit_sort"},
    {multisplit_algorithm::partition, "partition"},
    {multisplit_algorithm::warp_tiles, "warp_tiles"}};
/// The most buckets of the partition algorithm; with more it is automatic, which the others cover.
constexpr std::uint32_t partition_max_buckets = 3;
/// The most buckets of the warp tiles; with more they are automatic.
constexpr std::uint32_t warp_tiles_max_buckets = 32;

/// Runs the multisplit of `keys` with every algorithm (with input positions as values when `pairs`) and
/// compares everything with the oracle built from `ids`, the independently computed bucket of every key.
template <class Backend, class Key, class Identifier>
void expect_stable_split(const Backend& backend, const std::vector<Key>& keys, const std::vector<std::uint32_t>& ids,
                         const Identifier& identifier, bool pairs)
{
  const std::uint64_t n = keys.size();
  const std::uint32_t m = identifier.bucket_count();
  std::vector<value32> values;
  if (pairs) {
    values.resize(n);
    std::iota(values.begin(), values.end(), value32{0});  // a value is its key's input position: checks stability
  }
  const auto expected = stable_split_oracle(keys, values, ids, m);

  auto keys_in = make_buffer_from<Key>(backend, keys);
  auto values_in = make_buffer_from<value32>(backend, values);
  for (const auto& [algorithm, algorithm_name] : algorithms) {
    // With m <= 256 super_bucket is one pass of three_pass or single_pass: both are run already.
    if (algorithm == multisplit_algorithm::super_bucket && m <= one_pass_max_buckets) { continue; }
    if (algorithm == multisplit_algorithm::partition && m > partition_max_buckets) { continue; }
    if (algorithm == multisplit_algorithm::warp_tiles && m > warp_tiles_max_buckets) { continue; }
    // The host backend has one algorithm: the newest names need not run it once more. Under a sanitizer
    // automatic is one of the others run again.
    if ((std::is_same_v<Backend, host> || sanitizer_sized()) && algorithm == multisplit_algorithm::automatic) {
      continue;
    }
    if (std::is_same_v<Backend, host> && algorithm == multisplit_algorithm::warp_tiles) { continue; }
    SCOPED_TRACE(algorithm_name);
    auto keys_out = make_filled_buffer<Key>(backend, n, poison_for<Key>());
    std::vector<std::uint64_t> offsets;
    if (pairs) {
      auto values_out = make_filled_buffer<value32>(backend, n, poison_value);
      offsets = multisplit_pairs(backend, std::as_const(keys_in).span(), std::as_const(values_in).span(),
                                 keys_out.span(), values_out.span(), identifier, algorithm);
      EXPECT_EQ(values_out.to_vector(), expected.values);
    } else {
      offsets = multisplit(backend, std::as_const(keys_in).span(), keys_out.span(), identifier, algorithm);
    }
    EXPECT_EQ(bit_patterns(keys_out.to_vector()), bit_patterns(expected.keys));
    EXPECT_EQ(offsets, expected.offsets);
  }
}

/// A key whose field [shift, shift + bits) holds `bucket`, other bits random.
template <class Key = key32>
Key key_with_field(std::uint32_t bucket, const bit_field_buckets& field, std::mt19937_64& random)
{
  const std::uint64_t mask = ((std::uint64_t{1} << field.bits) - 1) << field.shift;
  const auto noise = static_cast<std::uint64_t>(random());
  return static_cast<Key>((noise & ~mask) | ((std::uint64_t{bucket} << field.shift) & mask));
}

/// Splitters for m buckets: m - 1 distinct sorted values in [1, max], so every bucket has keys.
template <class Key = key32>
std::vector<Key> draw_splitters(std::uint32_t m, std::mt19937_64& random)
{
  std::uniform_int_distribution<Key> value(1, std::numeric_limits<Key>::max());
  std::set<Key> chosen;
  while (chosen.size() + 1 < m) { chosen.insert(value(random)); }
  return {chosen.begin(), chosen.end()};
}

/// A uniform key in bucket b of `splitters` (bucket b holds [s_{b-1}, s_b)).
template <class Key>
Key key_in_range(std::uint32_t bucket, const std::vector<Key>& splitters, std::mt19937_64& random)
{
  const Key low = bucket == 0 ? 0 : splitters[bucket - 1];
  const Key high = bucket == splitters.size() ? std::numeric_limits<Key>::max() : splitters[bucket] - 1;
  return std::uniform_int_distribution<Key>(low, high)(random);
}

struct split_case {
  std::uint32_t m;
  std::uint64_t n;
  bucket_spread spread;
  bool pairs;
  std::uint64_t seed;
};

/// Every (m, n) with a spread and keys/pairs rotating, so all combinations of each pair appear.
template <class Check>
void for_each_case(std::uint64_t family_seed, Check&& check)
{
  int index = 0;
  for (const std::uint32_t m : bucket_counts) {
    for (const std::uint64_t n : sizes) {
      for (const bool pairs : {false, true}) {
        const split_case c{m, n, spreads[index % spreads.size()], pairs, family_seed * 1000003 + index};
        ++index;
        SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n) + " spread=" + spread_name(c.spread) +
                     (pairs ? " pairs" : " keys") + " seed=" + std::to_string(c.seed));
        check(c);
      }
    }
  }
}

template <class Backend>
class multisplit_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(multisplit_test, all_backends, backend_names);

TYPED_TEST(multisplit_test, delta_buckets_match_the_stable_oracle)
{
  for_each_case(1, [&](const split_case& c) {
    std::mt19937_64 random(c.seed);
    const key32 delta = std::uniform_int_distribution<key32>(1, std::numeric_limits<key32>::max() / c.m)(random);
    const delta_buckets identifier{delta, c.m};
    const auto ids = draw_buckets(c.n, c.m, c.spread, random);
    std::vector<key32> keys(c.n);
    for (std::uint64_t i = 0; i < c.n; ++i) {
      keys[i] = ids[i] * delta + std::uniform_int_distribution<key32>(0, delta - 1)(random);
    }
    expect_stable_split(this->backend(), keys, ids, identifier, c.pairs);
  });
}

TYPED_TEST(multisplit_test, splitter_buckets_match_the_stable_oracle)
{
  for_each_case(2, [&](const split_case& c) {
    std::mt19937_64 random(c.seed);
    const auto splitters = draw_splitters(c.m, random);
    const auto ids = draw_buckets(c.n, c.m, c.spread, random);
    std::vector<key32> keys(c.n);
    for (std::uint64_t i = 0; i < c.n; ++i) { keys[i] = key_in_range(ids[i], splitters, random); }
    const auto stored = make_buffer_from<key32>(this->backend(), splitters);
    const splitter_buckets<key32> identifier{stored.data(), static_cast<std::uint32_t>(splitters.size())};
    expect_stable_split(this->backend(), keys, ids, identifier, c.pairs);
  });
}

TYPED_TEST(multisplit_test, delta_buckets_of_64_bit_keys_match_the_stable_oracle)
{
  for_each_case(6, [&](const split_case& c) {
    std::mt19937_64 random(c.seed);
    // Wide buckets, so most keys lie above 2^32 and the quotient needs 64 bits.
    const key32 delta = std::uniform_int_distribution<key32>(std::numeric_limits<key32>::max() / 2,
                                                             std::numeric_limits<key32>::max())(random);
    const delta_buckets identifier{delta, c.m};
    const auto ids = draw_buckets(c.n, c.m, c.spread, random);
    std::vector<key64> keys(c.n);
    for (std::uint64_t i = 0; i < c.n; ++i) {
      keys[i] = key64{ids[i]} * delta + std::uniform_int_distribution<key64>(0, delta - 1)(random);
    }
    expect_stable_split(this->backend(), keys, ids, identifier, c.pairs);
  });
}

TYPED_TEST(multisplit_test, splitter_buckets_of_64_bit_keys_match_the_stable_oracle)
{
  for_each_case(7, [&](const split_case& c) {
    std::mt19937_64 random(c.seed);
    const auto splitters = draw_splitters<key64>(c.m, random);
    const auto ids = draw_buckets(c.n, c.m, c.spread, random);
    std::vector<key64> keys(c.n);
    for (std::uint64_t i = 0; i < c.n; ++i) { keys[i] = key_in_range(ids[i], splitters, random); }
    const auto stored = make_buffer_from<key64>(this->backend(), splitters);
    const splitter_buckets<key64> identifier{stored.data(), static_cast<std::uint32_t>(splitters.size())};
    expect_stable_split(this->backend(), keys, ids, identifier, c.pairs);
  });
}

TYPED_TEST(multisplit_test, delta_quotients_of_64_bit_keys_past_32_bits_are_outside_the_buckets)
{
  // floor(key / 1) = 2^32 + 3: an id that a 32-bit truncation would turn into bucket 3 of 5.
  const std::vector<key64> keys = {1, (key64{1} << 32) + 3, 2, ~key64{0}};
  auto keys_in = make_buffer_from<key64>(this->backend(), keys);
  auto keys_out = make_filled_buffer<key64>(this->backend(), keys.size(), poison_key64);
  for (const auto& [algorithm, algorithm_name] : algorithms) {
    SCOPED_TRACE(algorithm_name);
    for (const std::uint32_t m : {3U, 5U, 300U}) {
      expect_error_mentioning<error>(
          [&] {
            (void)multisplit(this->backend(), std::as_const(keys_in).span(), keys_out.span(), delta_buckets{1, m},
                             algorithm);
          },
          {"2 of 4", "outside [0, " + std::to_string(m) + ")"});
    }
  }
  EXPECT_EQ(keys_out.to_vector(), std::vector<key64>(keys.size(), poison_key64));
}

TYPED_TEST(multisplit_test, float_splitter_buckets_match_upper_bound)
{
  for_each_case(3, [&](const split_case& c) {
    std::mt19937_64 random(c.seed);
    std::uniform_real_distribution<float> value(-1000.0F, 1000.0F);
    std::set<float> chosen;
    while (chosen.size() + 1 < c.m) { chosen.insert(value(random)); }
    const std::vector<float> splitters(chosen.begin(), chosen.end());
    std::vector<float> keys(c.n);
    std::vector<std::uint32_t> ids(c.n);
    for (std::uint64_t i = 0; i < c.n; ++i) {
      keys[i] = c.spread == bucket_spread::one_bucket ? 1500.0F : 1.1F * value(random);
      ids[i] =
          static_cast<std::uint32_t>(std::upper_bound(splitters.begin(), splitters.end(), keys[i]) - splitters.begin());
    }
    const auto stored = make_buffer_from<float>(this->backend(), splitters);
    const splitter_buckets<float> identifier{stored.data(), static_cast<std::uint32_t>(splitters.size())};
    expect_stable_split(this->backend(), keys, ids, identifier, c.pairs);
  });
}

/// Keys at, just below and just above every splitter, the ends of the key space (and for floats the
/// infinities and NaN), then random keys; with the largest key (or +inf) as the last splitter when
/// `top_splitter`. The cuda kernels search a padded tree (splitter_tree.cuh): these are its edges.
template <class Key, class Backend>
void expect_edge_keys_split(const Backend& backend, std::uint32_t m, bool top_splitter, bool pairs, std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  std::vector<Key> splitters;
  if constexpr (std::is_floating_point_v<Key>) {
    std::uniform_real_distribution<Key> value(-1000, 1000);
    std::set<Key> chosen;
    if (top_splitter) { chosen.insert(std::numeric_limits<Key>::infinity()); }
    while (chosen.size() + 1 < m) { chosen.insert(value(random)); }
    splitters.assign(chosen.begin(), chosen.end());
  } else {
    if (!top_splitter) {
      splitters = draw_splitters<Key>(m, random);
    } else {
      do {
        splitters = draw_splitters<Key>(m - 1, random);
      } while (!splitters.empty() && splitters.back() == std::numeric_limits<Key>::max());
      splitters.push_back(std::numeric_limits<Key>::max());
    }
  }
  std::vector<Key> keys = {std::numeric_limits<Key>::lowest(), Key{0}, std::numeric_limits<Key>::max()};
  if constexpr (std::is_floating_point_v<Key>) {
    keys.push_back(std::numeric_limits<Key>::infinity());
    keys.push_back(-std::numeric_limits<Key>::infinity());
    keys.push_back(std::numeric_limits<Key>::quiet_NaN());
  }
  for (const Key s : splitters) {
    keys.push_back(s);
    if constexpr (std::is_floating_point_v<Key>) {
      keys.push_back(std::nextafter(s, -std::numeric_limits<Key>::infinity()));
      keys.push_back(std::nextafter(s, std::numeric_limits<Key>::infinity()));
    } else {
      keys.push_back(s - 1);  // splitters are at least 1
      keys.push_back(s + 1);  // wraps to 0 past the largest key
    }
  }
  std::shuffle(keys.begin(), keys.end(), random);
  const std::size_t edges = keys.size();
  keys.resize(std::max<std::size_t>(edges, 7681 + 500));  // past one tile of every algorithm
  for (std::size_t i = edges; i < keys.size(); ++i) { keys[i] = keys[random() % edges]; }
  std::vector<std::uint32_t> ids(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    // NaN compares false with every splitter: bucket 0 (upper_bound would not say so).
    bool nan = false;
    if constexpr (std::is_floating_point_v<Key>) { nan = std::isnan(keys[i]); }
    ids[i] = nan ? 0U
                 : static_cast<std::uint32_t>(std::upper_bound(splitters.begin(), splitters.end(), keys[i]) -
                                              splitters.begin());
  }
  const auto stored = make_buffer_from<Key>(backend, splitters);
  const splitter_buckets<Key> identifier{stored.data(), static_cast<std::uint32_t>(splitters.size())};
  expect_stable_split(backend, keys, ids, identifier, pairs);
}

TYPED_TEST(multisplit_test, splitter_buckets_place_keys_at_the_splitters_edges)
{
  const auto counts =
      full_or_sanitizer_sized<std::vector<std::uint32_t>>({2, 3, 4, 5, 31, 32, 33, 129, 255, 256, 257}, {3, 33, 256});
  std::uint64_t seed = 9000;
  for (const std::uint32_t m : counts) {
    for (const bool top_splitter : {false, true}) {
      SCOPED_TRACE("m=" + std::to_string(m) + (top_splitter ? " with the largest key as a splitter" : ""));
      const bool pairs = (++seed % 2) == 0;
      {
        SCOPED_TRACE("uint32");
        expect_edge_keys_split<key32>(this->backend(), m, top_splitter, pairs, seed);
      }
      {
        SCOPED_TRACE("uint64");
        expect_edge_keys_split<key64>(this->backend(), m, top_splitter, !pairs, seed);
      }
      {
        SCOPED_TRACE("float");
        expect_edge_keys_split<float>(this->backend(), m, top_splitter, pairs, seed);
      }
    }
  }
}

TYPED_TEST(multisplit_test, bit_field_buckets_match_the_stable_oracle)
{
  std::uint64_t seed = 4000;
  for (const std::uint32_t bits : {0U, 1U, 2U, 5U, 8U, 9U, 10U}) {
    for (const std::uint64_t n : sizes) {
      for (const bool pairs : {false, true}) {
        std::mt19937_64 random(++seed);
        const bit_field_buckets field{std::uniform_int_distribution<std::uint32_t>(0, 32 - bits)(random), bits};
        const bucket_spread spread = spreads[seed % spreads.size()];
        SCOPED_TRACE("bits=" + std::to_string(bits) + " shift=" + std::to_string(field.shift) +
                     " n=" + std::to_string(n) + " spread=" + spread_name(spread) + " seed=" + std::to_string(seed));
        const auto ids = draw_buckets(n, field.bucket_count(), spread, random);
        std::vector<key32> keys(n);
        for (std::uint64_t i = 0; i < n; ++i) { keys[i] = key_with_field(ids[i], field, random); }
        expect_stable_split(this->backend(), keys, ids, field, pairs);
      }
    }
  }
}

TYPED_TEST(multisplit_test, bit_fields_of_64_bit_keys_match_the_stable_oracle)
{
  std::uint64_t seed = 4500;
  for (const std::uint32_t bits : {0U, 1U, 3U, 5U, 8U, 9U}) {
    // Fields in the low word, across bit 32, in the high word and at the top of the key.
    for (const std::uint32_t shift : {0U, 30U, 40U, 64U - std::max(bits, 1U)}) {
      for (const std::uint64_t n : sizes) {
        const bool pairs = (++seed) % 2 == 0;
        std::mt19937_64 random(seed);
        const bit_field_buckets field{shift, bits};
        const bucket_spread spread = spreads[seed % spreads.size()];
        SCOPED_TRACE("bits=" + std::to_string(bits) + " shift=" + std::to_string(shift) + " n=" + std::to_string(n) +
                     " spread=" + spread_name(spread) + (pairs ? " pairs" : " keys") + " seed=" + std::to_string(seed));
        const auto ids = draw_buckets(n, field.bucket_count(), spread, random);
        std::vector<key64> keys(n);
        for (std::uint64_t i = 0; i < n; ++i) { keys[i] = key_with_field<key64>(ids[i], field, random); }
        expect_stable_split(this->backend(), keys, ids, field, pairs);
      }
    }
  }
}

TYPED_TEST(multisplit_test, descending_fields_of_large_64_bit_keys_split_stably)
{
  const std::uint64_t n = full_or_sanitizer_sized(std::uint64_t{1} << 18, std::uint64_t{1} << 14);
  constexpr key64 above_32_bits = key64{1} << 32;
  for (const bool pairs : {false, true}) {
    std::mt19937_64 random(4600 + (pairs ? 1 : 0));
    SCOPED_TRACE(pairs ? "pairs" : "keys");
    // Few distinct keys, all above 2^32: many equal keys per bucket, so stability shows in the values.
    const bit_field_buckets field{33, 8, true};
    std::vector<key64> keys(n);
    std::vector<std::uint32_t> ids(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      keys[i] = above_32_bits + (random() % 4096) * (key64{1} << 30);
      ids[i] = 255U - static_cast<std::uint32_t>((keys[i] >> 33) & 255U);
    }
    expect_stable_split(this->backend(), keys, ids, field, pairs);
  }
}

TYPED_TEST(multisplit_test, bit_fields_outside_64_bit_keys_are_rejected)
{
  const auto backend = this->backend();
  auto keys_in = make_buffer_from<key64>(backend, std::vector<key64>{5, key64{1} << 40, 9});
  auto keys_out = make_filled_buffer<key64>(backend, 3, poison_key64);
  auto values_in = make_buffer_from<value32>(backend, std::vector<value32>{0, 1, 2});
  auto values_out = make_filled_buffer<value32>(backend, 3, poison_value);
  const auto in = std::as_const(keys_in).span();
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, in, keys_out.span(), bit_field_buckets{60, 5});
      },
      {"[60, 65)", "does not fit in a 64-bit key"});
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, in, keys_out.span(), bit_field_buckets{64, 0});
      },
      {"does not fit in a 64-bit key"});
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, in, keys_out.span(), bit_field_buckets{32, 32});
      },
      {"bit field of 32 bits"});
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit_pairs(backend, in, std::as_const(values_in).span(), keys_out.span(), values_out.span(),
                               bit_field_buckets{57, 8});
      },
      {"multisplit_pairs", "does not fit in a 64-bit key"});
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, in, keys_in.span().subspan(1, 2), bit_field_buckets{32, 4});
      },
      {"keys_out holds 2 keys but keys_in holds 3"});
  EXPECT_EQ(keys_out.to_vector(), std::vector<key64>(3, poison_key64));
  EXPECT_EQ(values_out.to_vector(), std::vector<value32>(3, poison_value));
}

TYPED_TEST(multisplit_test, a_million_keys_split_stably)
{
  // Many tiles (sanitizer-sized: 9 to 16 block tiles, past every single-tile shortcut); from 2^20 keys
  // `automatic` takes the warp tiles for 4 to 32 buckets. m = 64: the single pass between one warp's
  // buckets and the ranking's widest digits, over 144 tiles at 2^20, most of them in flight together.
  const std::uint64_t n = full_or_sanitizer_sized(std::uint64_t{1} << 20, std::uint64_t{1} << 16);
  for (const std::uint32_t m :
       full_or_sanitizer_sized<std::vector<std::uint32_t>>({2, 5, 16, 32, 64, 256, 1000}, {2, 16, 64, 256, 1000})) {
    std::mt19937_64 random(5000 + m);
    SCOPED_TRACE("m=" + std::to_string(m));
    const auto ids = draw_buckets(n, m, bucket_spread::uniform, random);
    std::vector<key32> keys(ids.begin(), ids.end());
    expect_stable_split(this->backend(), keys, ids, delta_buckets{1, m}, true);
  }
}

/// Bucket ids of the partition tests: patterns that stress the tile boundaries and the tables of counts.
enum class partition_pattern {
  uniform,
  one_bucket,
  alternating,
  reverse_alternating,
  tile_runs,
  odd_runs,
  no_first,
  no_last
};

std::vector<std::uint32_t> partition_ids(partition_pattern pattern, std::uint64_t n, std::uint32_t m,
                                         std::mt19937_64& random)
{
  std::vector<std::uint32_t> ids(n);
  std::uniform_int_distribution<std::uint32_t> any(0, m - 1);
  const std::uint32_t chosen = any(random);
  for (std::uint64_t i = 0; i < n; ++i) {
    switch (pattern) {
      case partition_pattern::uniform:
        ids[i] = any(random);
        break;
      case partition_pattern::one_bucket:
        ids[i] = chosen;
        break;
      case partition_pattern::alternating:  // every warp's ballots split, every tile holds every bucket
        ids[i] = static_cast<std::uint32_t>(i % m);
        break;
      case partition_pattern::reverse_alternating:
        ids[i] = m - 1 - static_cast<std::uint32_t>(i % m);
        break;
      case partition_pattern::tile_runs:  // whole 4096-key tiles of one bucket: counts of 0 in the tables
        ids[i] = static_cast<std::uint32_t>((i / 4096) % m);
        break;
      case partition_pattern::odd_runs:  // runs that straddle warps and tiles
        ids[i] = static_cast<std::uint32_t>((i / 1031) % m);
        break;
      case partition_pattern::no_first:  // bucket 0 empty (the later buckets start at 0)
        ids[i] = m == 1 ? 0 : 1 + static_cast<std::uint32_t>(random() % (m - 1));
        break;
      case partition_pattern::no_last:  // the last bucket empty
        ids[i] = m == 1 ? 0 : static_cast<std::uint32_t>(random() % (m - 1));
        break;
    }
  }
  return ids;
}

TYPED_TEST(multisplit_test, partitions_of_few_buckets_match_the_stable_oracle)
{
  // Around one 512-key warp tile of the partition and one 4096-key tile of the three passes, and many
  // tiles with a ragged end.
  const std::vector<std::uint64_t> partition_sizes = full_or_sanitizer_sized<std::vector<std::uint64_t>>(
      {0, 1, 2, 31, 33, 511, 512, 513, 4095, 4096, 4097, 2 * 4096 + 17, 34 * 4096 + 123},
      {1, 33, 513, 4097, 2 * 4096 + 17});
  const std::vector<partition_pattern> patterns = {
      partition_pattern::uniform,     partition_pattern::one_bucket,
      partition_pattern::alternating, partition_pattern::reverse_alternating,
      partition_pattern::tile_runs,   partition_pattern::odd_runs,
      partition_pattern::no_first,    partition_pattern::no_last};
  for (const std::uint64_t seed : fixed_and_fresh_seeds(7000)) {
    std::mt19937_64 random(seed);
    int index = 0;
    // m = 4 and 5: the partition falls back to automatic.
    for (const std::uint32_t m : {1U, 2U, 3U, 4U, 5U}) {
      for (const std::uint64_t n : partition_sizes) {
        const partition_pattern pattern = patterns[index % patterns.size()];
        const bool pairs = index % 2 == 1;
        const bool wide = index % 3 == 2;  // 64-bit keys
        ++index;
        SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n) +
                     " pattern=" + std::to_string(static_cast<int>(pattern)) + (pairs ? " pairs" : " keys") +
                     (wide ? " 64-bit" : " 32-bit") + " seed=" + std::to_string(seed));
        const auto ids = partition_ids(pattern, n, m, random);
        const key32 delta = std::uniform_int_distribution<key32>(1, 1000)(random);
        const delta_buckets identifier{delta, m};
        const auto key_of = [&](std::uint32_t id) { return id * delta + static_cast<key32>(random() % delta); };
        if (wide) {
          std::vector<key64> keys(n);
          for (std::uint64_t i = 0; i < n; ++i) { keys[i] = key_of(ids[i]); }
          expect_stable_split(this->backend(), keys, ids, identifier, pairs);
        } else {
          std::vector<key32> keys(n);
          for (std::uint64_t i = 0; i < n; ++i) { keys[i] = key_of(ids[i]); }
          expect_stable_split(this->backend(), keys, ids, identifier, pairs);
        }
        if (m > partition_max_buckets) {  // expect_stable_split skips it there: check the fallback once
          std::vector<key32> keys(n);
          for (std::uint64_t i = 0; i < n; ++i) { keys[i] = key_of(ids[i]); }
          const auto expected = stable_split_oracle(keys, std::vector<value32>{}, ids, m);
          auto keys_in = make_buffer_from<key32>(this->backend(), keys);
          auto keys_out = make_filled_buffer<key32>(this->backend(), n, poison_key);
          const auto offsets = multisplit(this->backend(), std::as_const(keys_in).span(), keys_out.span(), identifier,
                                          multisplit_algorithm::partition);
          EXPECT_EQ(keys_out.to_vector(), expected.keys);
          EXPECT_EQ(offsets, expected.offsets);
        }
      }
    }
  }
}

TYPED_TEST(multisplit_test, partitions_on_both_sides_of_the_scanned_table_match_the_stable_oracle)
{
  // Up to 2048 warp tiles of 512 keys the scatter's blocks sum the table of counts themselves; past it
  // the table is scanned first: the last size of the first way, one key past it, and one tile more.
  constexpr std::uint64_t block_prefix_keys = 2048 * 512;
  constexpr key32 delta = 1000;
  for (const std::uint64_t seed : fixed_and_fresh_seeds(7020)) {
    std::mt19937_64 random(seed);
    for (const std::uint64_t n : {block_prefix_keys, block_prefix_keys + 1, block_prefix_keys + 512 + 7}) {
      for (const std::uint32_t m : full_or_sanitizer_sized<std::vector<std::uint32_t>>({1, 2, 3}, {3})) {
        const bool pairs = (n + m) % 2 == 1;
        SCOPED_TRACE("n=" + std::to_string(n) + " m=" + std::to_string(m) + (pairs ? " pairs" : " keys") +
                     " seed=" + std::to_string(seed));
        const auto ids = partition_ids(partition_pattern::uniform, n, m, random);
        std::vector<key32> keys(n);
        for (std::uint64_t i = 0; i < n; ++i) { keys[i] = ids[i] * delta + static_cast<key32>(random() % delta); }
        std::vector<value32> values;
        if (pairs) {
          values.resize(n);
          std::iota(values.begin(), values.end(), value32{0});
        }
        const auto expected = stable_split_oracle(keys, values, ids, m);
        auto keys_in = make_buffer_from<key32>(this->backend(), keys);
        auto values_in = make_buffer_from<value32>(this->backend(), values);
        auto keys_out = make_filled_buffer<key32>(this->backend(), n, poison_key);
        auto values_out = make_filled_buffer<value32>(this->backend(), pairs ? n : 0, poison_value);
        const auto offsets = pairs
                                 ? multisplit_pairs(this->backend(), std::as_const(keys_in).span(),
                                                    std::as_const(values_in).span(), keys_out.span(), values_out.span(),
                                                    delta_buckets{delta, m}, multisplit_algorithm::partition)
                                 : multisplit(this->backend(), std::as_const(keys_in).span(), keys_out.span(),
                                              delta_buckets{delta, m}, multisplit_algorithm::partition);
        EXPECT_EQ(keys_out.to_vector(), expected.keys);
        EXPECT_EQ(values_out.to_vector(), expected.values);
        EXPECT_EQ(offsets, expected.offsets);
      }
    }
  }
}

TYPED_TEST(multisplit_test, partitions_of_keys_off_the_16_byte_boundary_match_the_stable_oracle)
{
  // The counting pass of the partition and of the warp tiles reads whole rounds with 16-byte loads when
  // the keys start on a 16-byte boundary and one key at a time otherwise: every start offset within 16
  // bytes, whole and ragged tiles (512 keys for the partition, 2048 in rounds of 512 for the warp tiles).
  std::mt19937_64 random(7050);
  constexpr key32 delta = 1000;
  const std::vector<std::pair<multisplit_algorithm, std::vector<std::uint32_t>>> cases = {
      {multisplit_algorithm::partition, {2, 3}}, {multisplit_algorithm::warp_tiles, {2, 17, 32}}};
  for (const auto& [algorithm, bucket_counts_of_it] : cases) {
    for (const std::uint64_t n : {std::uint64_t{3 * 512}, std::uint64_t{5 * 512 + 77}, std::uint64_t{2 * 2048 + 513}}) {
      for (const std::uint32_t m : bucket_counts_of_it) {
        const auto check = [&](auto key_type, std::uint64_t skip) {
          using Key = decltype(key_type);
          SCOPED_TRACE("n=" + std::to_string(n) + " m=" + std::to_string(m) +
                       " key bytes=" + std::to_string(sizeof(Key)) + " skip=" + std::to_string(skip) +
                       (algorithm == multisplit_algorithm::partition ? " partition" : " warp_tiles"));
          std::vector<Key> stored(skip + n);
          std::vector<std::uint32_t> ids(n);
          for (std::uint64_t i = 0; i < skip + n; ++i) {
            const auto id = static_cast<std::uint32_t>(random() % m);
            stored[i] = static_cast<Key>(id * delta + random() % delta);
            if (i >= skip) { ids[i - skip] = id; }
          }
          const std::vector<Key> keys(stored.begin() + static_cast<std::ptrdiff_t>(skip), stored.end());
          const auto expected = stable_split_oracle(keys, std::vector<value32>{}, ids, m);
          auto keys_in = make_buffer_from<Key>(this->backend(), stored);
          auto keys_out = make_filled_buffer<Key>(this->backend(), n, poison_for<Key>());
          const auto offsets = multisplit(this->backend(), std::as_const(keys_in).span().subspan(skip, n),
                                          keys_out.span(), delta_buckets{delta, m}, algorithm);
          EXPECT_EQ(keys_out.to_vector(), expected.keys);
          EXPECT_EQ(offsets, expected.offsets);
        };
        const std::uint64_t skips = full_or_sanitizer_sized(4, 2);  // sanitizer-sized: aligned and one off
        for (std::uint64_t skip = 0; skip < skips; ++skip) { check(key32{}, skip); }
        for (std::uint64_t skip = 0; skip < 2; ++skip) { check(key64{}, skip); }
      }
    }
  }
}

TYPED_TEST(multisplit_test, partitions_by_bit_fields_and_splitters_match_the_stable_oracle)
{
  constexpr std::uint64_t n = 50 * 4096 + 1;
  std::mt19937_64 random(7100);
  for (const bool pairs : {false, true}) {
    SCOPED_TRACE(pairs ? "pairs" : "keys");
    const bit_field_buckets field{std::uniform_int_distribution<std::uint32_t>(0, 31)(random), 1};
    const auto field_ids = draw_buckets(n, 2, bucket_spread::quarter_skewed, random);
    std::vector<key32> keys(n);
    for (std::uint64_t i = 0; i < n; ++i) { keys[i] = key_with_field(field_ids[i], field, random); }
    expect_stable_split(this->backend(), keys, field_ids, field, pairs);

    const auto splitters = draw_splitters(3, random);
    const auto splitter_ids = draw_buckets(n, 3, bucket_spread::binomial, random);
    for (std::uint64_t i = 0; i < n; ++i) { keys[i] = key_in_range(splitter_ids[i], splitters, random); }
    const auto stored = make_buffer_from<key32>(this->backend(), splitters);
    expect_stable_split(this->backend(), keys, splitter_ids, splitter_buckets<key32>{stored.data(), 2}, pairs);
  }
}

TYPED_TEST(multisplit_test, ids_outside_the_buckets_throw_and_write_nothing)
{
  constexpr std::uint64_t n = 10000;
  for (const std::uint32_t m : {1U, 2U, 3U, 32U, 300U}) {
    SCOPED_TRACE("m=" + std::to_string(m));
    std::vector<key32> keys(n);
    std::iota(keys.begin(), keys.end(), key32{0});
    const std::uint64_t bad = n - m;  // delta 1: keys m .. n-1 have ids >= m
    auto keys_in = make_buffer_from<key32>(this->backend(), keys);
    auto keys_out = make_filled_buffer<key32>(this->backend(), n, poison_key);
    auto values_in = make_buffer_from<value32>(this->backend(), keys);
    auto values_out = make_filled_buffer<value32>(this->backend(), n, poison_value);
    for (const auto& [algorithm, algorithm_name] : algorithms) {
      SCOPED_TRACE(algorithm_name);
      expect_error_mentioning<error>(
          [&] {
            (void)multisplit(this->backend(), std::as_const(keys_in).span(), keys_out.span(), delta_buckets{1, m},
                             algorithm);
          },
          {"multisplit", std::to_string(bad) + " of " + std::to_string(n), "outside [0, " + std::to_string(m) + ")"});
      expect_error_mentioning<error>(
          [&] {
            (void)multisplit_pairs(this->backend(), std::as_const(keys_in).span(), std::as_const(values_in).span(),
                                   keys_out.span(), values_out.span(), delta_buckets{1, m}, algorithm);
          },
          {"multisplit_pairs", std::to_string(bad) + " of "});
    }
    EXPECT_EQ(keys_out.to_vector(), std::vector<key32>(n, poison_key));
    EXPECT_EQ(values_out.to_vector(), std::vector<value32>(n, poison_value));
  }
}

TYPED_TEST(multisplit_test, bad_splitters_are_rejected)
{
  const auto backend = this->backend();
  auto keys_in = make_buffer_from<key32>(backend, std::vector<key32>{5, 1, 9});
  auto keys_out = make_filled_buffer<key32>(backend, 3, poison_key);
  const auto split_with = [&](const std::vector<key32>& splitters) {
    const auto stored = make_buffer_from<key32>(backend, splitters);
    (void)multisplit(backend, std::as_const(keys_in).span(), keys_out.span(),
                     splitter_buckets<key32>{stored.data(), static_cast<std::uint32_t>(splitters.size())});
  };
  expect_error_mentioning<error>([&] { split_with({1, 7, 3}); }, {"strictly increasing", "splitter 2"});
  expect_error_mentioning<error>([&] { split_with({1, 4, 4, 8}); }, {"strictly increasing", "splitter 2"});

  auto float_in = make_buffer_from<float>(backend, std::vector<float>{0.5F, 2.0F});
  auto float_out = make_filled_buffer<float>(backend, 2, 0.0F);
  const std::vector<float> with_nan = {0.0F, std::numeric_limits<float>::quiet_NaN(), 1.0F};
  const auto stored = make_buffer_from<float>(backend, with_nan);
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, std::as_const(float_in).span(), float_out.span(),
                         splitter_buckets<float>{stored.data(), 3});
      },
      {"splitter 1 is NaN"});
  EXPECT_EQ(keys_out.to_vector(), std::vector<key32>(3, poison_key));
  EXPECT_EQ(float_out.to_vector(), std::vector<float>(2, 0.0F));
}

TYPED_TEST(multisplit_test, bad_identifiers_and_spans_are_rejected)
{
  const auto backend = this->backend();
  auto keys_in = make_buffer_from<key32>(backend, std::vector<key32>{5, 1, 9, 4});
  auto keys_out = make_filled_buffer<key32>(backend, 4, poison_key);
  auto short_out = make_filled_buffer<key32>(backend, 3, poison_key);
  auto values_in = make_buffer_from<value32>(backend, std::vector<value32>{0, 1, 2});
  auto values_out = make_filled_buffer<value32>(backend, 4, poison_value);
  const auto in = std::as_const(keys_in).span();

  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, in, keys_out.span(), bit_field_buckets{0, 32});
      },
      {"bit field of 32 bits"});
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, in, keys_out.span(), bit_field_buckets{30, 4});
      },
      {"does not fit in a 32-bit key"});
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, in, keys_out.span(), delta_buckets{0, 4});
      },
      {"delta >= 1"});
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, in, keys_out.span(), delta_buckets{1, 0});
      },
      {"at least 1"});
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, in, short_out.span(), delta_buckets{4, 4});
      },
      {"keys_out holds 3 keys but keys_in holds 4"});
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(backend, in, keys_in.span().subspan(0, 4), delta_buckets{4, 4});
      },
      {"overlaps"});
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit_pairs(backend, in, std::as_const(values_in).span(), keys_out.span(), values_out.span(),
                               delta_buckets{4, 4});
      },
      {"values_in holds 3 values"});
  EXPECT_EQ(keys_out.to_vector(), std::vector<key32>(4, poison_key));
  EXPECT_EQ(values_out.to_vector(), std::vector<value32>(4, poison_value));
}

TEST(multisplit_host, custom_functors_split_stably)
{
  std::mt19937_64 random(6000);
  constexpr std::uint64_t n = 50000;
  constexpr std::uint32_t m = 7;
  std::vector<key32> keys(n);
  for (auto& key : keys) { key = static_cast<key32>(random()); }
  std::vector<std::uint32_t> ids(n);
  std::transform(keys.begin(), keys.end(), ids.begin(), [](key32 key) { return key % m; });
  expect_stable_split(host{}, keys, ids, make_custom_buckets([](key32 key) { return key % m; }, m), true);

  auto out = std::vector<key32>(n, poison_key);
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit(host{}, std::span<const key32>(keys), std::span<key32>(out),
                         make_custom_buckets([](key32 key) { return key % (m + 1); }, m));
      },
      {"outside [0, 7)"});
  EXPECT_EQ(out, std::vector<key32>(n, poison_key));
}

TEST(multisplit_host, custom_functors_split_64_bit_keys_stably)
{
  std::mt19937_64 random(6100);
  constexpr std::uint64_t n = 50000;
  const auto high_word_residue = [](std::uint32_t m) { return [m](key64 key) { return (key >> 32) % m; }; };
  for (const std::uint32_t m : {7U, 300U}) {
    SCOPED_TRACE("m=" + std::to_string(m));
    std::vector<key64> keys(n);
    for (auto& key : keys) { key = random(); }
    std::vector<std::uint32_t> ids(n);
    std::transform(keys.begin(), keys.end(), ids.begin(),
                   [&](key64 key) { return static_cast<std::uint32_t>(high_word_residue(m)(key)); });
    for (const bool pairs : {false, true}) {
      expect_stable_split(host{}, keys, ids, make_custom_buckets(high_word_residue(m), m), pairs);
    }
    auto out = std::vector<key64>(n, poison_key64);
    expect_error_mentioning<error>(
        [&] {
          (void)multisplit(host{}, std::span<const key64>(keys), std::span<key64>(out),
                           make_custom_buckets(high_word_residue(m + 1), m));
        },
        {"outside [0, " + std::to_string(m) + ")"});
    EXPECT_EQ(out, std::vector<key64>(n, poison_key64));
  }
}

}  // namespace
}  // namespace warpdex::testing
