// The radix sort and the histograms built on the multisplit, on every backend, against std::stable_sort
// and a direct count.
#include "split/multisplit_oracle.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/split/histogram.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::testing {
namespace {

constexpr std::uint32_t poison = 0xdeadbeefU;

template <class Backend>
class radix_sort_test : public backend_test<Backend> {
 protected:
  /// Sorts `keys` with their positions as values (radix_sort_pairs, outputs poisoned) against a stable sort.
  void expect_pairs_sorted(const std::vector<std::uint32_t>& keys, sort_order order) const
  {
    const std::uint64_t n = keys.size();
    std::vector<std::uint32_t> positions(n);
    std::iota(positions.begin(), positions.end(), std::uint32_t{0});
    const auto expected_positions = stable_order(keys, order);
    auto keys_in = make_buffer_from<std::uint32_t>(this->backend(), keys);
    auto values_in = make_buffer_from<std::uint32_t>(this->backend(), positions);
    auto keys_out = make_filled_buffer<std::uint32_t>(this->backend(), n, poison);
    auto values_out = make_filled_buffer<std::uint32_t>(this->backend(), n, poison);
    radix_sort_pairs(this->backend(), std::as_const(keys_in).span(), std::as_const(values_in).span(),
                     keys_out.span(), values_out.span(), order);
    EXPECT_EQ(keys_out.to_vector(), gather(keys, expected_positions));
    EXPECT_EQ(values_out.to_vector(), expected_positions);
  }
};
TYPED_TEST_SUITE(radix_sort_test, all_backends, backend_names);

TYPED_TEST(radix_sort_test, sorts_keys_and_pairs_stably_both_ways)
{
  std::uint64_t seed = 100;
  // Sanitizer-sized: 20000 keys are still 5 tiles of every pass.
  const std::uint64_t large = full_or_sanitizer_sized<std::uint64_t>(200000, 20000);
  for (const std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{4097}, large}) {
    for (const sort_order order : {sort_order::ascending, sort_order::descending}) {
      // Key bounds (0: full 32-bit keys): with keys below 1000 the two high digits are all 0, below 2^20
      // the highest, and with 1 every digit (passes whose keys share a digit may be skipped, so the
      // remaining passes are 2, 3 and none).
      for (const std::uint64_t key_bound :
           {std::uint64_t{0}, std::uint64_t{1000}, std::uint64_t{1} << 20, std::uint64_t{1}}) {
        std::mt19937_64 random(++seed);
        SCOPED_TRACE("n=" + std::to_string(n) + (order == sort_order::ascending ? " ascending" : " descending") +
                     " key bound " + std::to_string(key_bound) + " seed=" + std::to_string(seed));
        std::vector<std::uint32_t> keys(n);
        // Narrow keys repeat often: stability decides the order of their values.
        for (auto& key : keys) { key = static_cast<std::uint32_t>(key_bound != 0 ? random() % key_bound : random()); }
        auto keys_in = make_buffer_from<std::uint32_t>(this->backend(), keys);
        auto keys_out = make_filled_buffer<std::uint32_t>(this->backend(), n, poison);
        radix_sort(this->backend(), std::as_const(keys_in).span(), keys_out.span(), order);
        EXPECT_EQ(keys_out.to_vector(), gather(keys, stable_order(keys, order)));
        this->expect_pairs_sorted(keys, order);
      }
    }
  }
}

TYPED_TEST(radix_sort_test, sorts_64_bit_keys_both_ways)
{
  constexpr std::uint64_t poison64 = 0xdeadbeefdeadbeefULL;
  std::uint64_t seed = 200;
  const std::uint64_t large = full_or_sanitizer_sized<std::uint64_t>(200000, 20000);
  for (const std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{4097}, large}) {
    for (const sort_order order : {sort_order::ascending, sort_order::descending}) {
      // Full 64-bit keys; keys differing only above bit 32; few distinct keys (many duplicates).
      for (const int shape : {0, 1, 2}) {
        std::mt19937_64 random(++seed);
        SCOPED_TRACE("n=" + std::to_string(n) + (order == sort_order::ascending ? " ascending" : " descending") +
                     " shape=" + std::to_string(shape) + " seed=" + std::to_string(seed));
        std::vector<std::uint64_t> keys(n);
        for (auto& key : keys) {
          const std::uint64_t bits = random();
          key = shape == 0 ? bits : shape == 1 ? (bits << 32) | 7U : (bits % 1000) << 31;
        }
        std::vector<std::uint64_t> expected = keys;
        if (order == sort_order::ascending) {
          std::sort(expected.begin(), expected.end());
        } else {
          std::sort(expected.begin(), expected.end(), std::greater<>{});
        }
        auto keys_in = make_buffer_from<std::uint64_t>(this->backend(), keys);
        auto keys_out = make_filled_buffer<std::uint64_t>(this->backend(), n, poison64);
        radix_sort(this->backend(), std::as_const(keys_in).span(), keys_out.span(), order);
        EXPECT_EQ(keys_out.to_vector(), expected);
        EXPECT_EQ(keys_in.to_vector(), keys);  // the input is left as it was
      }
    }
  }
}

// The cuda pass writes full tiles of pairs without bounds checks (the last, ragged tile with them): inputs
// of whole tiles only, one tile and a half, and shapes whose tiles hold a single bucket's run (sorted and
// reversed keys) or a few runs (one repeated key with rare others), beside random keys.
TYPED_TEST(radix_sort_test, pairs_in_whole_tiles_sort_stably)
{
  constexpr std::uint64_t pairs_tile = 384 * 23;  // the cuda pass's tile for pairs over 8-bit digits (32-bit offsets)
  const auto sizes = sanitizer_sized() ? std::vector<std::uint64_t>{2 * pairs_tile}
                                       : std::vector<std::uint64_t>{2 * pairs_tile, 3 * pairs_tile / 2, 5 * pairs_tile};
  for (const std::uint64_t seed : fixed_and_fresh_seeds(4242)) {
    std::mt19937_64 random(seed);
    for (const std::uint64_t n : sizes) {
      for (int shape = 0; shape < 4; ++shape) {
        const sort_order order = shape % 2 == 0 ? sort_order::ascending : sort_order::descending;
        SCOPED_TRACE("n=" + std::to_string(n) + " shape=" + std::to_string(shape) +
                     (order == sort_order::ascending ? " ascending" : " descending") + " seed=" + std::to_string(seed));
        const auto key_at = [&](std::uint64_t i, std::uint32_t drawn) -> std::uint32_t {
          if (shape == 0) { return drawn; }
          if (shape == 1) { return static_cast<std::uint32_t>(i) * 40503U; }                      // sorted runs
          if (shape == 2) { return static_cast<std::uint32_t>(n - i) << 12 | (drawn & 0xfffU); }  // reversed
          return drawn % 64 == 0 ? drawn : 0x5a5a5a5aU;  // one key, rare others
        };
        std::vector<std::uint32_t> keys(n);
        for (std::uint64_t i = 0; i < n; ++i) { keys[i] = key_at(i, static_cast<std::uint32_t>(random())); }
        this->expect_pairs_sorted(keys, order);
      }
    }
  }
}

TYPED_TEST(radix_sort_test, every_digit_width_sorts_stably)
{
  // Several tiles of the single pass with a ragged end (sanitizer-sized: one past a tile).
  const std::uint64_t n = full_or_sanitizer_sized<std::uint64_t>(3 * 7680 + 1000, 7681);
  constexpr std::uint64_t poison64 = 0xdeadbeefdeadbeefULL;
  std::uint64_t seed = 300;
  // Widths that divide neither 32 nor 64: a narrower last pass and odd pass counts (11, 7, 5 passes of
  // 32-bit keys; 8 bits is the default of the other tests). Few widths: every pass is several launches.
  for (const std::uint32_t digit_bits : {3U, 5U, 7U}) {
    for (const sort_order order : {sort_order::ascending, sort_order::descending}) {
      std::mt19937_64 random(++seed);
      SCOPED_TRACE("digit_bits=" + std::to_string(digit_bits) +
                   (order == sort_order::ascending ? " ascending" : " descending") + " seed=" + std::to_string(seed));
      const auto before = [order](auto a, auto b) { return order == sort_order::ascending ? a < b : a > b; };
      std::vector<std::uint32_t> keys(n);
      for (auto& key : keys) { key = static_cast<std::uint32_t>(random() % 5000) * 859433U; }  // duplicates
      std::vector<std::uint32_t> positions(n);
      std::iota(positions.begin(), positions.end(), std::uint32_t{0});
      std::vector<std::uint32_t> expected_positions = positions;
      std::stable_sort(expected_positions.begin(), expected_positions.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return before(keys[a], keys[b]); });
      std::vector<std::uint32_t> expected_keys(n);
      for (std::uint64_t i = 0; i < n; ++i) { expected_keys[i] = keys[expected_positions[i]]; }
      auto keys_in = make_buffer_from<std::uint32_t>(this->backend(), keys);
      auto values_in = make_buffer_from<std::uint32_t>(this->backend(), positions);
      auto keys_out = make_filled_buffer<std::uint32_t>(this->backend(), n, poison);
      auto values_out = make_filled_buffer<std::uint32_t>(this->backend(), n, poison);
      radix_sort_pairs(this->backend(), std::as_const(keys_in).span(), std::as_const(values_in).span(), keys_out.span(),
                       values_out.span(), order, digit_bits);
      EXPECT_EQ(keys_out.to_vector(), expected_keys);
      EXPECT_EQ(values_out.to_vector(), expected_positions);
      keys_out = make_filled_buffer<std::uint32_t>(this->backend(), n, poison);
      radix_sort(this->backend(), std::as_const(keys_in).span(), keys_out.span(), order, digit_bits);
      EXPECT_EQ(keys_out.to_vector(), expected_keys);

      std::vector<std::uint64_t> wide_keys(n);
      for (auto& key : wide_keys) { key = random(); }
      std::vector<std::uint64_t> expected_wide = wide_keys;
      std::sort(expected_wide.begin(), expected_wide.end(), before);
      auto wide_in = make_buffer_from<std::uint64_t>(this->backend(), wide_keys);
      auto wide_out = make_filled_buffer<std::uint64_t>(this->backend(), n, poison64);
      radix_sort(this->backend(), std::as_const(wide_in).span(), wide_out.span(), order, digit_bits);
      EXPECT_EQ(wide_out.to_vector(), expected_wide);
    }
  }
}

TYPED_TEST(radix_sort_test, rejects_digit_widths_outside_1_to_8)
{
  auto keys = make_buffer_from<std::uint32_t>(this->backend(), std::vector<std::uint32_t>{3, 1, 2});
  auto out = make_filled_buffer<std::uint32_t>(this->backend(), 3, poison);
  for (const std::uint32_t digit_bits : {0U, 9U}) {
    expect_error_mentioning<error>(
        [&] { radix_sort(this->backend(), std::as_const(keys).span(), out.span(), sort_order::ascending, digit_bits); },
        {"radix_sort", "digit_bits must lie in [1, 8]", "got " + std::to_string(digit_bits)});
  }
  EXPECT_EQ(out.to_vector(), std::vector<std::uint32_t>(3, poison));
}

TYPED_TEST(radix_sort_test, rejects_mismatched_and_overlapping_64_bit_spans)
{
  auto keys = make_buffer_from<std::uint64_t>(this->backend(), std::vector<std::uint64_t>{3, 1, 2});
  auto short_out = make_filled_buffer<std::uint64_t>(this->backend(), 2, 0);
  expect_error_mentioning<error>([&] { radix_sort(this->backend(), std::as_const(keys).span(), short_out.span()); },
                                 {"radix_sort", "keys_out"});
  expect_error_mentioning<error>([&] { radix_sort(this->backend(), std::as_const(keys).span(), keys.span()); },
                                 {"radix_sort", "overlaps"});
  EXPECT_EQ(keys.to_vector(), (std::vector<std::uint64_t>{3, 1, 2}));
  EXPECT_EQ(short_out.to_vector(), (std::vector<std::uint64_t>{0, 0}));
}

TYPED_TEST(radix_sort_test, rejects_mismatched_and_overlapping_spans)
{
  auto keys = make_buffer_from<std::uint32_t>(this->backend(), std::vector<std::uint32_t>{3, 1, 2});
  auto short_out = make_filled_buffer<std::uint32_t>(this->backend(), 2, poison);
  expect_error_mentioning<error>([&] { radix_sort(this->backend(), std::as_const(keys).span(), short_out.span()); },
                                 {"radix_sort", "keys_out"});
  expect_error_mentioning<error>([&] { radix_sort(this->backend(), std::as_const(keys).span(), keys.span()); },
                                 {"overlaps"});
  EXPECT_EQ(short_out.to_vector(), std::vector<std::uint32_t>(2, poison));
}

template <class Backend>
class histogram_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(histogram_test, all_backends, backend_names);

/// Samples in [-150, 1150) with a few NaNs: some below, some above the bins [0, 1024).
std::vector<float> float_samples(std::uint64_t n, std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> value(-150.0F, 1150.0F);
  std::vector<float> samples(n);
  for (auto& sample : samples) {
    sample = random() % 50 == 0 ? std::numeric_limits<float>::quiet_NaN() : value(random);
  }
  return samples;
}

TYPED_TEST(histogram_test, even_bins_count_like_a_direct_count)
{
  constexpr float lower = 0.0F;
  constexpr float upper = 1024.0F;
  for (const std::uint32_t m : {1U, 2U, 16U, 256U, 5000U}) {
    SCOPED_TRACE("m=" + std::to_string(m));
    const auto samples = float_samples(100000, 200 + m);
    std::vector<std::uint64_t> expected(m, 0);
    std::uint64_t expected_outside = 0;
    const float scale = static_cast<float>(static_cast<double>(m) / (upper - lower));
    for (const float x : samples) {
      if (!(x >= lower && x < upper)) {
        ++expected_outside;
        continue;
      }
      ++expected[std::min(static_cast<std::uint32_t>((x - lower) * scale), m - 1)];
    }
    const auto stored = make_buffer_from<float>(this->backend(), samples);
    const auto result = histogram_even(this->backend(), std::as_const(stored).span(), m, lower, upper);
    EXPECT_EQ(result.counts, expected);
    EXPECT_EQ(result.not_counted, expected_outside);
    EXPECT_GT(expected_outside, 0U);
  }

  std::vector<std::uint32_t> integers(10000);
  std::iota(integers.begin(), integers.end(), std::uint32_t{0});
  const auto stored = make_buffer_from<std::uint32_t>(this->backend(), integers);
  const auto result = histogram_even(this->backend(), std::as_const(stored).span(), 3U, 100U, 400U);
  EXPECT_EQ(result.counts, (std::vector<std::uint64_t>{100, 100, 100}));
  EXPECT_EQ(result.not_counted, 10000U - 300U);
}

TYPED_TEST(histogram_test, even_bins_count_alike_with_every_algorithm_size_and_alignment)
{
  constexpr float lower = -3.5F;
  constexpr float upper = 1000.25F;
  const std::vector<std::pair<histogram_algorithm, const char*>> algorithms = {
      {histogram_algorithm::automatic, "automatic"},
      {histogram_algorithm::block_shared, "block_shared"},
      {histogram_algorithm::warp_privatized, "warp_privatized"}};
  for (const std::uint64_t seed : fixed_and_fresh_seeds(400)) {
    // Every sample of a 16-byte group, the groups left over after the unrolled loads, the elements past
    // the last group, and a start off the 16-byte boundary (read one by one).
    const auto samples = float_samples(70001, seed);
    const auto stored = make_buffer_from<float>(this->backend(), samples);
    int index = 0;
    for (const std::uint32_t m : {1U, 3U, 16U, 17U, 32U, 100U, 256U, 257U}) {
      for (const std::uint64_t n : {0UL, 1UL, 3UL, 5UL, 4099UL, 70000UL}) {
        const std::uint64_t skip = index++ % 3 == 0 ? 1 : 0;  // misaligned start
        SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n) + " skip=" + std::to_string(skip) +
                     " seed=" + std::to_string(seed));
        const std::span<const float> part(samples.data() + skip, n);
        const float scale = static_cast<float>(static_cast<double>(m) / (upper - lower));
        std::vector<std::uint64_t> expected(m, 0);
        std::uint64_t expected_outside = 0;
        for (const float x : part) {
          if (x >= lower && x < upper) {
            ++expected[std::min(static_cast<std::uint32_t>((x - lower) * scale), m - 1)];
          } else {
            ++expected_outside;
          }
        }
        for (const auto& [algorithm, name] : algorithms) {
          SCOPED_TRACE(name);
          const auto result = histogram_even(this->backend(), std::as_const(stored).span().subspan(skip, n), m, lower,
                                             upper, algorithm);
          EXPECT_EQ(result.counts, expected);
          EXPECT_EQ(result.not_counted, expected_outside);
        }
      }
    }
  }
  // Integer samples: one bin per 3 values, all samples in one bin, and all outside.
  std::vector<std::uint32_t> integers(12347);
  std::iota(integers.begin(), integers.end(), std::uint32_t{5});
  const auto stored = make_buffer_from<std::uint32_t>(this->backend(), integers);
  for (const auto& [algorithm, name] : algorithms) {
    SCOPED_TRACE(name);
    const auto thirds = histogram_even(this->backend(), std::as_const(stored).span(), 64U, 5U, 5U + 192U, algorithm);
    EXPECT_EQ(thirds.counts, std::vector<std::uint64_t>(64, 3));
    EXPECT_EQ(thirds.not_counted, integers.size() - 192);
    const auto one = histogram_even(this->backend(), std::as_const(stored).span(), 200U, 0U, 0xffffffffU, algorithm);
    EXPECT_EQ(one.counts[0], integers.size());
    EXPECT_EQ(one.not_counted, 0U);
    const auto none = histogram_even(this->backend(), std::as_const(stored).span(), 8U, 0U, 5U, algorithm);
    EXPECT_EQ(none.counts, std::vector<std::uint64_t>(8, 0));
    EXPECT_EQ(none.not_counted, integers.size());
  }
}

TYPED_TEST(histogram_test, range_bins_count_like_upper_bound)
{
  const std::vector<std::pair<histogram_algorithm, const char*>> algorithms = {
      {histogram_algorithm::automatic, "automatic"},
      {histogram_algorithm::block_shared, "block_shared"},
      {histogram_algorithm::warp_privatized, "warp_privatized"}};
  // Both kernels (warp_privatized up to 256 bins), boundaries in shared memory up to 4096 bins and in
  // global memory above; with an odd m the last boundary is +inf.
  for (const std::uint32_t m : {1U, 2U, 3U, 16U, 255U, 256U, 257U, 4096U, 5000U}) {
    SCOPED_TRACE("m=" + std::to_string(m));
    auto samples = float_samples(100000, 300 + m);
    std::vector<float> boundaries(m + 1);
    for (std::uint32_t b = 0; b <= m; ++b) { boundaries[b] = std::sqrt(static_cast<float>(b) / m) * 1024.0F; }
    if (m % 2 == 1) { boundaries.back() = std::numeric_limits<float>::infinity(); }
    // Samples at, just below and just above every boundary, and the infinities.
    for (const float b : boundaries) {
      samples.push_back(b);
      samples.push_back(std::nextafter(b, -std::numeric_limits<float>::infinity()));
      samples.push_back(std::nextafter(b, std::numeric_limits<float>::infinity()));
    }
    samples.push_back(std::numeric_limits<float>::infinity());
    samples.push_back(-std::numeric_limits<float>::infinity());
    std::shuffle(samples.begin(), samples.end(), std::mt19937_64(m));
    std::vector<std::uint64_t> expected(m, 0);
    std::uint64_t expected_outside = 0;
    for (const float x : samples) {
      const auto above = std::upper_bound(boundaries.begin(), boundaries.end(), x) - boundaries.begin();
      if (std::isnan(x) || above == 0 || above == static_cast<std::ptrdiff_t>(m + 1)) {
        ++expected_outside;
      } else {
        ++expected[above - 1];
      }
    }
    const auto stored_samples = make_buffer_from<float>(this->backend(), samples);
    const auto stored_boundaries = make_buffer_from<float>(this->backend(), boundaries);
    for (const auto& [algorithm, name] : algorithms) {
      SCOPED_TRACE(name);
      const auto result = histogram_range(this->backend(), std::as_const(stored_samples).span(),
                                          std::as_const(stored_boundaries).span(), algorithm);
      EXPECT_EQ(result.counts, expected);
      EXPECT_EQ(result.not_counted, expected_outside);
    }
  }

  // Integer samples up to the largest value, which is also the last boundary (outside every bin).
  const auto stored_samples = make_buffer_from<std::uint32_t>(
      this->backend(), std::vector<std::uint32_t>{0, 9, 10, 0xfffffffeU, 0xffffffffU, 5, 0xffffffffU});
  const auto stored_boundaries =
      make_buffer_from<std::uint32_t>(this->backend(), std::vector<std::uint32_t>{0, 10, 0xffffffffU});
  for (const auto& [algorithm, name] : algorithms) {
    SCOPED_TRACE(name);
    const auto result = histogram_range(this->backend(), std::as_const(stored_samples).span(),
                                        std::as_const(stored_boundaries).span(), algorithm);
    EXPECT_EQ(result.counts, (std::vector<std::uint64_t>{3, 2}));
    EXPECT_EQ(result.not_counted, 2U);
  }
}

TYPED_TEST(histogram_test, bad_bins_are_rejected)
{
  const auto samples = make_buffer_from<float>(this->backend(), std::vector<float>{1.0F, 2.0F});
  const auto span = std::as_const(samples).span();
  const auto range_with = [&](const std::vector<float>& boundaries) {
    const auto stored = make_buffer_from<float>(this->backend(), boundaries);
    (void)histogram_range(this->backend(), span, std::as_const(stored).span());
  };
  expect_error_mentioning<error>([&] { range_with({0.0F, 2.0F, 1.0F}); }, {"strictly increasing"});
  expect_error_mentioning<error>([&] { range_with({0.0F, 1.0F, 1.0F}); }, {"strictly increasing"});
  expect_error_mentioning<error>([&] { range_with({0.0F, std::numeric_limits<float>::quiet_NaN()}); }, {"NaN"});
  expect_error_mentioning<error>([&] { range_with({0.0F}); }, {"m + 1 >= 2"});
  expect_error_mentioning<error>([&] { (void)histogram_even(this->backend(), span, 0U, 0.0F, 1.0F); },
                                 {"at least one bin"});
  expect_error_mentioning<error>([&] { (void)histogram_even(this->backend(), span, 4U, 1.0F, 1.0F); },
                                 {"must be below upper"});
  expect_error_mentioning<error>(
      [&] { (void)histogram_even(this->backend(), span, 4U, 0.0F, std::numeric_limits<float>::infinity()); },
      {"finite"});
}

}  // namespace
}  // namespace warpdex::testing
