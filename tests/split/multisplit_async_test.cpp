// The asynchronous multisplit and histograms (results in the backend's memory) on every backend: equal
// to the synchronous calls and the oracle, bad ids reported through the device count with every write
// inside the outputs, a workspace reused across calls, the argument checks; on cuda, captured into a CUDA
// graph and replayed.
#include "split/multisplit_oracle.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/split/histogram.hpp>
#include <warpdex/split/multisplit.hpp>

#if WARPDEX_HAS_CUDA
#include <warpdex/core/stream.hpp>
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::testing {
namespace {

using key32 = std::uint32_t;
using key64 = std::uint64_t;
using value32 = std::uint32_t;

constexpr key32 poison_key = 0xdeadbeefU;
constexpr value32 poison_value = 0xfeedfaceU;
constexpr std::uint64_t poison_word = 0xbadbadbadbadbadULL;

/// Every algorithm; m and the algorithm together pick the path (m > 256: super buckets or the sort).
const std::vector<std::pair<multisplit_algorithm, const char*>> algorithms = {
    {multisplit_algorithm::automatic, "automatic"},
    {multisplit_algorithm::three_pass, "three_pass"},
    {multisplit_algorithm::single_pass, "single_pass"},
    {multisplit_algorithm::super_bucket, "super_bucket"},
    {multisplit_algorithm::reduced_bit_sort, "reduced_bit_sort"},
    {multisplit_algorithm::partition, "partition"},
    {multisplit_algorithm::warp_tiles, "warp_tiles"}};

/// The results of one asynchronous call, in the backend's memory: m + 1 offsets, then the bad-id count,
/// all poisoned first so that a word left unwritten shows.
template <class Backend>
struct async_results {
  std::uint32_t m;
  buffer<std::uint64_t> words;

  async_results(const Backend& backend, std::uint32_t bucket_count)
      : m(bucket_count), words(make_filled_buffer<std::uint64_t>(backend, std::uint64_t{bucket_count} + 2, poison_word))
  {
  }
  std::span<std::uint64_t> offsets() { return words.span().first(std::uint64_t{m} + 1); }
  std::uint64_t* bad_id_count() { return words.data() + m + 1; }
  /// The offsets and the count on the host (waits for the backend's stream).
  std::pair<std::vector<std::uint64_t>, std::uint64_t> read() const
  {
    auto host = words.to_vector();
    const std::uint64_t bad = host.back();
    host.pop_back();
    return {host, bad};
  }
};

template <class Backend>
class multisplit_async_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(multisplit_async_test, all_backends, backend_names);

/// Keys of buckets drawn from `spread` for delta buckets of width `delta`.
template <class Key>
std::vector<Key> delta_keys(const std::vector<std::uint32_t>& ids, key32 delta, std::mt19937_64& random)
{
  std::vector<Key> keys(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) { keys[i] = static_cast<Key>(Key{ids[i]} * delta + random() % delta); }
  return keys;
}

/// One asynchronous call (keys or pairs) next to the synchronous one and the oracle.
template <class Backend, class Key>
void expect_async_matches_sync(const Backend& backend, const std::vector<Key>& keys,
                               const std::vector<std::uint32_t>& ids, const delta_buckets& identifier, bool pairs,
                               multisplit_algorithm algorithm, multisplit_workspace& workspace)
{
  const std::uint64_t n = keys.size();
  const std::uint32_t m = identifier.bucket_count();
  std::vector<value32> values;
  if (pairs) {
    values.resize(n);
    std::iota(values.begin(), values.end(), value32{0});
  }
  const auto expected = stable_split_oracle(keys, values, ids, m);
  const auto keys_in = make_buffer_from<Key>(backend, keys);
  const auto values_in = make_buffer_from<value32>(backend, values);
  auto sync_keys = make_filled_buffer<Key>(backend, n, static_cast<Key>(poison_key));
  auto async_keys = make_filled_buffer<Key>(backend, n, static_cast<Key>(poison_key));
  auto sync_values = make_filled_buffer<value32>(backend, pairs ? n : 0, poison_value);
  auto async_values = make_filled_buffer<value32>(backend, pairs ? n : 0, poison_value);
  async_results<Backend> results(backend, m);
  std::vector<std::uint64_t> sync_offsets;
  if (pairs) {
    sync_offsets = multisplit_pairs(backend, keys_in.span(), values_in.span(), sync_keys.span(), sync_values.span(),
                                    identifier, algorithm);
    multisplit_pairs_async(backend, keys_in.span(), values_in.span(), async_keys.span(), async_values.span(),
                           identifier, results.offsets(), results.bad_id_count(), workspace, algorithm);
  } else {
    sync_offsets = multisplit(backend, keys_in.span(), sync_keys.span(), identifier, algorithm);
    multisplit_async(backend, keys_in.span(), async_keys.span(), identifier, results.offsets(), results.bad_id_count(),
                     workspace, algorithm);
  }
  const auto [offsets, bad] = results.read();
  EXPECT_EQ(bad, 0U);
  std::vector<std::uint64_t> expected_offsets = expected.offsets;
  expected_offsets.push_back(n);
  EXPECT_EQ(offsets, expected_offsets);
  EXPECT_EQ(sync_offsets, expected.offsets);
  EXPECT_EQ(async_keys.to_vector(), expected.keys);
  EXPECT_EQ(sync_keys.to_vector(), expected.keys);
  if (pairs) {
    EXPECT_EQ(async_values.to_vector(), expected.values);
    EXPECT_EQ(sync_values.to_vector(), expected.values);
  }
}

TYPED_TEST(multisplit_async_test, equals_the_synchronous_call_for_every_algorithm)
{
  // Empty, one key, one past a tile, several tiles; m through the partition, the one-pass paths and
  // past 256 (super buckets, the sort).
  const std::vector<std::uint64_t> sizes =
      full_or_sanitizer_sized<std::vector<std::uint64_t>>({0, 1, 4097, 3 * 4096 + 1000}, {0, 3 * 4096 + 1000});
  const std::vector<std::uint32_t> bucket_counts =
      full_or_sanitizer_sized<std::vector<std::uint32_t>>({1, 2, 3, 5, 32, 256, 300}, {2, 5, 256, 300});
  const std::vector<bucket_spread> spreads = {bucket_spread::uniform, bucket_spread::one_bucket,
                                              bucket_spread::binomial, bucket_spread::quarter_skewed};
  multisplit_workspace workspace;  // one for every call: it grows and is reused
  int index = 0;
  for (const std::uint64_t seed : fixed_and_fresh_seeds(8000)) {
    std::mt19937_64 random(seed);
    for (const std::uint32_t m : bucket_counts) {
      for (const std::uint64_t n : sizes) {
        for (const auto& [algorithm, algorithm_name] : algorithms) {
          // The host backend has one algorithm: automatic stands for all of them there.
          if (std::is_same_v<TypeParam, host> && algorithm != multisplit_algorithm::automatic) { continue; }
          const bool pairs = index % 2 == 1;
          const bool wide = index % 3 == 2;
          const bucket_spread spread = spreads[index % spreads.size()];
          ++index;
          SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n) + " " + algorithm_name +
                       (pairs ? " pairs" : " keys") + (wide ? " 64-bit" : " 32-bit") +
                       " spread=" + spread_name(spread) + " seed=" + std::to_string(seed));
          const auto ids = draw_buckets(n, m, spread, random);
          const key32 delta = std::uniform_int_distribution<key32>(1, 1000)(random);
          const delta_buckets identifier{delta, m};
          if (wide) {
            expect_async_matches_sync(this->backend(), delta_keys<key64>(ids, delta, random), ids, identifier, pairs,
                                      algorithm, workspace);
          } else {
            expect_async_matches_sync(this->backend(), delta_keys<key32>(ids, delta, random), ids, identifier, pairs,
                                      algorithm, workspace);
          }
        }
      }
    }
  }
}

TYPED_TEST(multisplit_async_test, bit_fields_and_splitters_match_the_synchronous_call)
{
  constexpr std::uint64_t n = 20 * 4096 + 7;
  std::mt19937_64 random(8100);
  std::vector<key32> keys(n);
  for (auto& key : keys) { key = static_cast<key32>(random()); }
  const auto keys_in = make_buffer_from<key32>(this->backend(), keys);
  multisplit_workspace workspace;
  const auto check = [&](const auto& identifier) {
    const std::uint32_t m = identifier.bucket_count();
    auto sync_out = make_filled_buffer<key32>(this->backend(), n, poison_key);
    auto async_out = make_filled_buffer<key32>(this->backend(), n, poison_key);
    const auto expected = multisplit(this->backend(), keys_in.span(), sync_out.span(), identifier);
    async_results<TypeParam> results(this->backend(), m);
    multisplit_async(this->backend(), keys_in.span(), async_out.span(), identifier, results.offsets(),
                     results.bad_id_count(), workspace);
    const auto [offsets, bad] = results.read();
    EXPECT_EQ(bad, 0U);
    EXPECT_EQ(std::vector<std::uint64_t>(offsets.begin(), offsets.end() - 1), expected);
    EXPECT_EQ(offsets.back(), n);
    EXPECT_EQ(async_out.to_vector(), sync_out.to_vector());
  };
  for (const std::uint32_t bits : {1U, 3U, 8U, 10U}) {
    SCOPED_TRACE("bits=" + std::to_string(bits));
    check(bit_field_buckets{5, bits});
  }
  for (const std::uint32_t m : {2U, 40U}) {
    SCOPED_TRACE("splitters m=" + std::to_string(m));
    std::vector<key32> splitters(m - 1);
    for (std::uint32_t i = 0; i + 1 < m; ++i) { splitters[i] = (i + 1) * (0xffffffffU / m); }
    const auto stored = make_buffer_from<key32>(this->backend(), splitters);
    check(splitter_buckets<key32>{stored.data(), m - 1});
  }
}

TYPED_TEST(multisplit_async_test, bad_ids_are_counted_on_the_device_and_writes_stay_inside_the_outputs)
{
  // The outputs sit inside larger poisoned buffers: whatever the algorithm writes with bad ids (the
  // outputs are unspecified then), the guard words before and after must stay poisoned.
  constexpr std::uint64_t n = 5 * 4096 + 3;
  constexpr std::uint64_t guard = 4096;
  std::vector<key32> keys(n);
  std::iota(keys.begin(), keys.end(), key32{0});
  std::mt19937_64 random(8200);
  std::shuffle(keys.begin(), keys.end(), random);
  const auto keys_in = make_buffer_from<key32>(this->backend(), keys);
  const auto values_in = make_buffer_from<value32>(this->backend(), keys);
  multisplit_workspace workspace;
  for (const std::uint32_t m : {1U, 2U, 3U, 32U, 256U, 300U}) {
    for (const auto& [algorithm, algorithm_name] : algorithms) {
      if (std::is_same_v<TypeParam, host> && algorithm != multisplit_algorithm::automatic) { continue; }
      for (const bool pairs : {false, true}) {
        SCOPED_TRACE("m=" + std::to_string(m) + " " + algorithm_name + (pairs ? " pairs" : " keys"));
        const delta_buckets identifier{1, m};  // keys m .. n-1 have ids >= m
        auto keys_out = make_filled_buffer<key32>(this->backend(), n + 2 * guard, poison_key);
        auto values_out = make_filled_buffer<value32>(this->backend(), n + 2 * guard, poison_value);
        async_results<TypeParam> results(this->backend(), m);
        const auto key_span = keys_out.span().subspan(guard, n);
        if (pairs) {
          multisplit_pairs_async(this->backend(), keys_in.span(), values_in.span(), key_span,
                                 values_out.span().subspan(guard, n), identifier, results.offsets(),
                                 results.bad_id_count(), workspace, algorithm);
        } else {
          multisplit_async(this->backend(), keys_in.span(), key_span, identifier, results.offsets(),
                           results.bad_id_count(), workspace, algorithm);
        }
        EXPECT_EQ(results.read().second, n - m);
        const auto out = keys_out.to_vector();
        const auto values = values_out.to_vector();
        for (std::uint64_t i = 0; i < guard; ++i) {
          ASSERT_EQ(out[i], poison_key) << "before the output, word " << i;
          ASSERT_EQ(out[guard + n + i], poison_key) << "after the output, word " << i;
          ASSERT_EQ(values[i], poison_value) << "before the values, word " << i;
          ASSERT_EQ(values[guard + n + i], poison_value) << "after the values, word " << i;
        }
        // Inside, only input keys (or the poison) may appear.
        for (std::uint64_t i = guard; i < guard + n; ++i) { ASSERT_TRUE(out[i] == poison_key || out[i] < n) << i; }

        // The synchronous call throws and writes nothing.
        auto untouched = make_filled_buffer<key32>(this->backend(), n, poison_key);
        expect_error_mentioning<error>(
            [&] { (void)multisplit(this->backend(), keys_in.span(), untouched.span(), identifier, algorithm); },
            {std::to_string(n - m) + " of " + std::to_string(n), "outside [0, " + std::to_string(m) + ")"});
        EXPECT_EQ(untouched.to_vector(), std::vector<key32>(n, poison_key));
      }
    }
  }
}

TYPED_TEST(multisplit_async_test, a_workspace_is_reused_by_repeated_calls)
{
  constexpr std::uint64_t n = 8 * 4096 + 100;
  std::mt19937_64 random(8300);
  multisplit_workspace workspace;
  EXPECT_EQ(workspace.capacity_bytes(), 0U);
  for (const std::uint32_t m : {2U, 32U}) {
    for (const multisplit_algorithm algorithm :
         {multisplit_algorithm::automatic, multisplit_algorithm::three_pass, multisplit_algorithm::single_pass}) {
      SCOPED_TRACE("m=" + std::to_string(m) + " algorithm=" + std::to_string(static_cast<int>(algorithm)));
      const auto ids = draw_buckets(n, m, bucket_spread::uniform, random);
      const auto keys = delta_keys<key32>(ids, 16, random);
      expect_async_matches_sync(this->backend(), keys, ids, delta_buckets{16, m}, false, algorithm, workspace);
      const std::size_t held = workspace.capacity_bytes();
      // The same call again, then a smaller one: nothing is allocated, the results stay right.
      for (const std::uint64_t size : {n, n / 3}) {
        const std::vector<std::uint32_t> part_ids(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(size));
        const std::vector<key32> part(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(size));
        expect_async_matches_sync(this->backend(), part, part_ids, delta_buckets{16, m}, true, algorithm, workspace);
        EXPECT_EQ(workspace.capacity_bytes(), held);
      }
    }
  }
  workspace.release();
  EXPECT_EQ(workspace.capacity_bytes(), 0U);
}

TYPED_TEST(multisplit_async_test, empty_and_single_key_inputs)
{
  multisplit_workspace workspace;
  for (const std::uint32_t m : {1U, 3U, 17U, 1000U}) {
    SCOPED_TRACE("m=" + std::to_string(m));
    for (const std::uint64_t n : {0U, 1U}) {
      const std::vector<key32> keys(n, key32{m - 1});  // the last bucket
      const auto keys_in = make_buffer_from<key32>(this->backend(), keys);
      auto keys_out = make_filled_buffer<key32>(this->backend(), n, poison_key);
      async_results<TypeParam> results(this->backend(), m);
      multisplit_async(this->backend(), keys_in.span(), keys_out.span(), delta_buckets{1, m}, results.offsets(),
                       results.bad_id_count(), workspace);
      const auto [offsets, bad] = results.read();
      std::vector<std::uint64_t> expected(std::uint64_t{m} + 1, 0);
      expected.back() = n;
      EXPECT_EQ(offsets, expected);
      EXPECT_EQ(bad, 0U);
      EXPECT_EQ(keys_out.to_vector(), keys);
    }
  }
}

TYPED_TEST(multisplit_async_test, bad_result_memory_and_spans_are_rejected_before_anything_is_written)
{
  const std::vector<key32> keys = {5, 1, 9, 4};
  const auto keys_in = make_buffer_from<key32>(this->backend(), keys);
  auto keys_out = make_filled_buffer<key32>(this->backend(), 4, poison_key);
  auto short_out = make_filled_buffer<key32>(this->backend(), 3, poison_key);
  multisplit_workspace workspace;
  async_results<TypeParam> results(this->backend(), 4);
  auto values_out = make_filled_buffer<value32>(this->backend(), 4, poison_value);
  expect_error_mentioning<error>(
      [&] {
        multisplit_async(this->backend(), keys_in.span(), keys_out.span(), delta_buckets{4, 4},
                         results.offsets().first(4), results.bad_id_count(), workspace);
      },
      {"multisplit_async", "offsets holds 4 words, m + 1 = 5 needed"});
  expect_error_mentioning<error>(
      [&] {
        multisplit_async(this->backend(), keys_in.span(), keys_out.span(), delta_buckets{4, 4}, results.offsets(),
                         nullptr, workspace);
      },
      {"bad-id count pointer is null"});
  expect_error_mentioning<error>(
      [&] {
        multisplit_async(this->backend(), keys_in.span(), short_out.span(), delta_buckets{4, 4}, results.offsets(),
                         results.bad_id_count(), workspace);
      },
      {"keys_out holds 3 keys but keys_in holds 4"});
  expect_error_mentioning<error>(
      [&] {
        multisplit_async(this->backend(), keys_in.span(), keys_out.span(), delta_buckets{0, 4}, results.offsets(),
                         results.bad_id_count(), workspace);
      },
      {"delta >= 1"});
  expect_error_mentioning<error>(
      [&] {
        multisplit_pairs_async(this->backend(), keys_in.span(), keys_in.span().first(3), keys_out.span(),
                               values_out.span(), delta_buckets{4, 4}, results.offsets(), results.bad_id_count(),
                               workspace);
      },
      {"multisplit_pairs_async", "values_in holds 3 values"});
  EXPECT_EQ(keys_out.to_vector(), std::vector<key32>(4, poison_key));
  EXPECT_EQ(values_out.to_vector(), std::vector<value32>(4, poison_value));
  EXPECT_EQ(results.words.to_vector(), std::vector<std::uint64_t>(6, poison_word));
  EXPECT_EQ(workspace.capacity_bytes(), 0U);
}

template <class Backend>
class histogram_async_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(histogram_async_test, all_backends, backend_names);

TYPED_TEST(histogram_async_test, counts_equal_the_synchronous_call)
{
  std::mt19937_64 random(8400);
  std::uniform_real_distribution<float> value(-50.0F, 1100.0F);
  for (const std::uint64_t n : {0UL, 1UL, 5UL, 70001UL}) {
    std::vector<float> samples(n);
    for (auto& sample : samples) {
      sample = random() % 50 == 0 ? std::numeric_limits<float>::quiet_NaN() : value(random);
    }
    const auto stored = make_buffer_from<float>(this->backend(), samples);
    // Privatized (m <= 256), block-shared, and global counters (m > 4096).
    for (const std::uint32_t m : {1U, 16U, 256U, 257U, 5000U}) {
      for (const histogram_algorithm algorithm :
           {histogram_algorithm::automatic, histogram_algorithm::block_shared, histogram_algorithm::warp_privatized}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " m=" + std::to_string(m) +
                     " algorithm=" + std::to_string(static_cast<int>(algorithm)));
        const auto expected = histogram_even(this->backend(), stored.span(), m, 0.0F, 1000.0F, algorithm);
        auto counts = make_filled_buffer<std::uint64_t>(this->backend(), std::uint64_t{m} + 1, poison_word);
        histogram_even_async(this->backend(), stored.span(), m, 0.0F, 1000.0F, counts.span(), algorithm);
        auto host_counts = counts.to_vector();
        EXPECT_EQ(host_counts.back(), expected.not_counted);
        host_counts.pop_back();
        EXPECT_EQ(host_counts, expected.counts);
      }
    }
    std::vector<float> boundaries = {-10.0F, 0.5F, 3.0F, 100.0F, 999.0F};
    const auto stored_boundaries = make_buffer_from<float>(this->backend(), boundaries);
    const auto expected = histogram_range(this->backend(), stored.span(), stored_boundaries.span());
    auto counts = make_filled_buffer<std::uint64_t>(this->backend(), boundaries.size(), poison_word);
    histogram_range_async(this->backend(), stored.span(), stored_boundaries.span(), counts.span());
    auto host_counts = counts.to_vector();
    EXPECT_EQ(host_counts.back(), expected.not_counted);
    host_counts.pop_back();
    EXPECT_EQ(host_counts, expected.counts);
  }
}

TYPED_TEST(histogram_async_test, count_memory_of_the_wrong_size_is_rejected)
{
  const auto stored = make_buffer_from<std::uint32_t>(this->backend(), std::vector<std::uint32_t>{1, 2, 3});
  auto counts = make_filled_buffer<std::uint64_t>(this->backend(), 4, poison_word);
  expect_error_mentioning<error>(
      [&] { histogram_even_async(this->backend(), stored.span(), 4U, 0U, 8U, counts.span()); },
      {"counts holds 4 words, bins + 1 = 5 needed"});
  const auto boundaries = make_buffer_from<std::uint32_t>(this->backend(), std::vector<std::uint32_t>{0, 2, 4});
  expect_error_mentioning<error>(
      [&] { histogram_range_async(this->backend(), stored.span(), boundaries.span(), counts.span()); },
      {"counts holds 4 words, bins + 1 = 3 needed"});
  expect_error_mentioning<error>(
      [&] {
        histogram_range_async(this->backend(), stored.span(), boundaries.span().first(1), counts.span().first(0));
      },
      {"m + 1 >= 2 boundaries"});
  EXPECT_EQ(counts.to_vector(), std::vector<std::uint64_t>(4, poison_word));
}


#if WARPDEX_HAS_CUDA
class multisplit_graph_test : public cuda_test {};

/// One captured asynchronous split: its inputs and outputs, rewritten and read around each replay.
struct captured_split {
  std::uint32_t m;
  multisplit_algorithm algorithm;
  bool pairs;
  buffer<key32> keys_in, keys_out;
  buffer<value32> values_in, values_out;
  buffer<std::uint64_t> results;  // m + 1 offsets, the bad-id count
  multisplit_workspace workspace;

  captured_split(const cuda& backend, std::uint64_t n, std::uint32_t bucket_count, multisplit_algorithm how,
                 bool with_values)
      : m(bucket_count),
        algorithm(how),
        pairs(with_values),
        keys_in(make_buffer<key32>(backend, n)),
        keys_out(make_buffer<key32>(backend, n)),
        values_in(make_buffer<value32>(backend, with_values ? n : 0)),
        values_out(make_buffer<value32>(backend, with_values ? n : 0)),
        results(make_buffer<std::uint64_t>(backend, std::uint64_t{bucket_count} + 2))
  {
  }
  [[nodiscard]] delta_buckets identifier() const { return {(1U << 31) / m + 1, m}; }
  void enqueue(const cuda& backend)
  {
    const auto offsets = results.span().first(std::uint64_t{m} + 1);
    if (pairs) {
      multisplit_pairs_async(backend, keys_in.span(), values_in.span(), keys_out.span(), values_out.span(),
                             identifier(), offsets, results.data() + m + 1, workspace, algorithm);
    } else {
      multisplit_async(backend, keys_in.span(), keys_out.span(), identifier(), offsets, results.data() + m + 1,
                       workspace, algorithm);
    }
  }
};

// Every asynchronous split of at most 256 buckets (each algorithm) and both histograms, captured together
// into one CUDA graph (core/stream.hpp) once their workspaces have grown, then replayed on new inputs
// rewritten in place, the outputs poisoned before each replay: each replay equals the oracle. Nothing of
// theirs waits or reads device memory on the host, or the capture would throw.
TEST_F(multisplit_graph_test, asynchronous_calls_replay_from_a_graph)
{
  const owned_stream own;
  const cuda on{own.get()};
  const std::uint64_t n = sanitizer_sized() ? 5000 : (std::uint64_t{1} << 16) + 3;
  std::vector<captured_split> splits;
  splits.reserve(6);
  splits.emplace_back(on, n, 3, multisplit_algorithm::partition, true);
  splits.emplace_back(on, n, 32, multisplit_algorithm::warp_tiles, true);
  splits.emplace_back(on, n, 32, multisplit_algorithm::single_pass, false);
  splits.emplace_back(on, n, 256, multisplit_algorithm::single_pass, true);
  splits.emplace_back(on, n, 200, multisplit_algorithm::three_pass, false);
  splits.emplace_back(on, n, 64, multisplit_algorithm::automatic, false);
  auto samples = make_buffer<key32>(on, n);
  constexpr std::uint32_t bins = 16;
  auto even_counts = make_buffer<std::uint64_t>(on, bins + 1);
  const std::vector<key32> boundaries = {1U << 20, 1U << 28, 1U << 30, 3U << 30};
  const auto range_boundaries = make_buffer_from<key32>(on, boundaries);
  auto range_counts = make_buffer<std::uint64_t>(on, boundaries.size());
  const auto enqueue = [&] {
    for (auto& split : splits) { split.enqueue(on); }
    histogram_even_async<key32>(on, samples.span(), bins, 0U, 1U << 31, even_counts.span());
    histogram_range_async<key32>(on, samples.span(), range_boundaries.span(), range_counts.span());
  };
  enqueue();  // the workspaces grow here, outside the capture
  on.synchronize();
  const captured_graph graph(own.get(), enqueue);
  EXPECT_GE(graph.node_count(), splits.size() + 2);

  for (const std::uint64_t seed : fixed_and_fresh_seeds(4438)) {
    for (int replay = 0; replay < 2; ++replay) {
      SCOPED_TRACE("seed=" + std::to_string(seed) + " replay " + std::to_string(replay));
      std::mt19937_64 random(seed + static_cast<std::uint64_t>(replay));
      std::vector<key32> keys(n);
      for (auto& key : keys) { key = static_cast<key32>(random() >> 33); }  // below 2^31: every id good
      std::vector<value32> values(n);
      for (auto& value : values) { value = static_cast<value32>(random()); }
      for (auto& split : splits) {
        split.keys_in.copy_from(std::span<const key32>(keys));
        if (split.pairs) { split.values_in.copy_from(std::span<const value32>(values)); }
        split.keys_out.copy_from(std::span<const key32>(std::vector<key32>(n, poison_key)));
        if (split.pairs) { split.values_out.copy_from(std::span<const value32>(std::vector<value32>(n, poison_value))); }
        split.results.copy_from(std::span<const std::uint64_t>(std::vector<std::uint64_t>(split.m + 2, poison_word)));
      }
      samples.copy_from(std::span<const key32>(keys));
      even_counts.copy_from(std::span<const std::uint64_t>(std::vector<std::uint64_t>(bins + 1, poison_word)));
      range_counts.copy_from(std::span<const std::uint64_t>(std::vector<std::uint64_t>(boundaries.size(), poison_word)));
      on.synchronize();
      graph.launch(own.get());
      on.synchronize();
      for (const auto& split : splits) {
        SCOPED_TRACE("m=" + std::to_string(split.m) + (split.pairs ? " pairs" : " keys"));
        const delta_buckets delta = split.identifier();
        std::vector<std::uint32_t> ids(n);
        for (std::uint64_t i = 0; i < n; ++i) { ids[i] = delta(keys[i]); }
        const auto expected = stable_split_oracle(keys, split.pairs ? values : std::vector<value32>{}, ids, split.m);
        auto words = split.results.to_vector();
        EXPECT_EQ(words.back(), 0U);
        words.pop_back();
        std::vector<std::uint64_t> expected_offsets = expected.offsets;
        expected_offsets.push_back(n);
        EXPECT_EQ(words, expected_offsets);
        EXPECT_EQ(split.keys_out.to_vector(), expected.keys);
        if (split.pairs) { EXPECT_EQ(split.values_out.to_vector(), expected.values); }
      }
      std::vector<std::uint64_t> even(bins + 1, 0);
      std::vector<std::uint64_t> range(boundaries.size(), 0);
      for (const key32 key : keys) {
        ++even[key / ((1U << 31) / bins)];  // every key lies below 2^31
        const auto above = std::upper_bound(boundaries.begin(), boundaries.end(), key);
        if (above == boundaries.begin() || above == boundaries.end()) {
          ++range.back();
        } else {
          ++range[static_cast<std::size_t>(above - boundaries.begin()) - 1];
        }
      }
      EXPECT_EQ(even_counts.to_vector(), even);
      EXPECT_EQ(range_counts.to_vector(), range);
    }
  }
}
#endif

}  // namespace
}  // namespace warpdex::testing
