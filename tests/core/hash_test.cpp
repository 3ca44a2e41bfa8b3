// The hash functions against published test vectors and statistical properties.
#include <warpdex/core/hash.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <random>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

using warpdex::fmix32;
using warpdex::fmix64;

std::uint32_t load_le32(const std::uint8_t* bytes)
{
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) { value = (value << 8) | bytes[i]; }
  return value;
}

/// The little-endian value of bytes [begin, end) of `bytes`, as MurmurHash3 reads blocks and tails.
std::uint64_t load_le(const std::uint8_t* bytes, std::size_t begin, std::size_t end)
{
  std::uint64_t value = 0;
  for (std::size_t i = end; i > begin; --i) { value = (value << 8) | bytes[i - 1]; }
  return value;
}

template <class Word>
void store_le(Word value, std::uint8_t* bytes)
{
  for (std::size_t i = 0; i < sizeof(Word); ++i) { bytes[i] = static_cast<std::uint8_t>(value >> (8 * i)); }
}

// MurmurHash3_x86_32 and MurmurHash3_x64_128 as in Appleby's reference MurmurHash3.cpp, finished with
// warpdex's finalizers. The finalizer is the only part under test; the surrounding hash exists so that
// the published test vectors and SMHasher verification values, which cover whole hashes, apply to it.

void murmur3_x86_32(const std::uint8_t* data, std::size_t length, std::uint32_t seed, std::uint8_t* out)
{
  constexpr std::uint32_t c1 = 0xcc9e2d51U;
  constexpr std::uint32_t c2 = 0x1b873593U;
  const auto scramble = [](std::uint32_t k) { return std::rotl(k * c1, 15) * c2; };
  std::uint32_t h = seed;
  const std::size_t blocks = length / 4;
  for (std::size_t block = 0; block < blocks; ++block) {
    h ^= scramble(load_le32(data + 4 * block));
    h = std::rotl(h, 13) * 5 + 0xe6546b64U;
  }
  if (length % 4 != 0) { h ^= scramble(static_cast<std::uint32_t>(load_le(data, 4 * blocks, length))); }
  h ^= static_cast<std::uint32_t>(length);
  store_le(fmix32(h), out);
}

void murmur3_x64_128(const std::uint8_t* data, std::size_t length, std::uint32_t seed, std::uint8_t* out)
{
  constexpr std::uint64_t c1 = 0x87c37b91114253d5ULL;
  constexpr std::uint64_t c2 = 0x4cf5ad432745937fULL;
  const auto scramble1 = [](std::uint64_t k) { return std::rotl(k * c1, 31) * c2; };
  const auto scramble2 = [](std::uint64_t k) { return std::rotl(k * c2, 33) * c1; };
  std::uint64_t h1 = seed;
  std::uint64_t h2 = seed;
  const std::size_t blocks = length / 16;
  for (std::size_t block = 0; block < blocks; ++block) {
    const std::size_t offset = 16 * block;
    h1 ^= scramble1(load_le(data, offset, offset + 8));
    h1 = (std::rotl(h1, 27) + h2) * 5 + 0x52dce729U;
    h2 ^= scramble2(load_le(data, offset + 8, offset + 16));
    h2 = (std::rotl(h2, 31) + h1) * 5 + 0x38495ab5U;
  }
  const std::size_t tail = 16 * blocks;
  const std::size_t tail_length = length % 16;
  if (tail_length > 8) { h2 ^= scramble2(load_le(data, tail + 8, length)); }
  if (tail_length > 0) { h1 ^= scramble1(load_le(data, tail, tail + std::min<std::size_t>(tail_length, 8))); }
  h1 ^= length;
  h2 ^= length;
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 += h2;
  h2 += h1;
  store_le(h1, out);
  store_le(h2, out + 8);
}

using murmur3_function = void (*)(const std::uint8_t*, std::size_t, std::uint32_t, std::uint8_t*);

/// SMHasher's VerificationTest: hash the prefixes key[0, i) (key[j] = j) with seed 256 - i, then hash the
/// concatenated digests with seed 0; the first four bytes of that are the published verification value.
std::uint32_t smhasher_verification_value(murmur3_function hash, std::size_t digest_bytes)
{
  std::array<std::uint8_t, 256> key{};
  std::vector<std::uint8_t> digests(256 * digest_bytes);
  for (std::size_t i = 0; i < 256; ++i) {
    key[i] = static_cast<std::uint8_t>(i);
    hash(key.data(), i, static_cast<std::uint32_t>(256 - i), digests.data() + i * digest_bytes);
  }
  std::array<std::uint8_t, 16> final_digest{};
  hash(digests.data(), digests.size(), 0, final_digest.data());
  return load_le32(final_digest.data());
}

std::uint32_t murmur3_x86_32(std::string_view text, std::uint32_t seed)
{
  std::array<std::uint8_t, 4> digest{};
  murmur3_x86_32(reinterpret_cast<const std::uint8_t*>(text.data()), text.size(), seed, digest.data());
  return load_le32(digest.data());
}

TEST(fmix32, matches_murmur3_of_the_empty_input)
{
  // MurmurHash3_x86_32 of zero bytes is fmix32(seed): its published values are fmix32's.
  EXPECT_EQ(fmix32(0), 0x00000000U);
  EXPECT_EQ(fmix32(1), 0x514e28b7U);
  EXPECT_EQ(fmix32(0xfba4c795U), 0x6a396f08U);
  EXPECT_EQ(fmix32(0xffffffffU), 0x81f16f39U);
}

TEST(fmix32, completes_murmur3_x86_32_test_vectors)
{
  EXPECT_EQ(murmur3_x86_32("test", 0), 0xba6bd213U);
  EXPECT_EQ(murmur3_x86_32("Hello, world!", 0x9747b28cU), 0x24884cbaU);
  EXPECT_EQ(murmur3_x86_32("The quick brown fox jumps over the lazy dog", 0x9747b28cU), 0x2fa826cdU);
  EXPECT_EQ(smhasher_verification_value(murmur3_x86_32, 4), 0xb0f57ee3U);
}

TEST(fmix64, completes_murmur3_x64_128_verification)
{
  EXPECT_EQ(fmix64(0), 0U);
  EXPECT_EQ(smhasher_verification_value(murmur3_x64_128, 16), 0x6384ba69U);
}

/// Every finalizer must be a bijection: distinct inputs, here a counting run and random words, never
/// share an output.
template <class Word, class Hash>
void expect_no_collisions_on_sample(Hash hash, std::uint64_t seed)
{
  constexpr std::size_t sample_size = 1 << 18;
  std::mt19937_64 random(seed);
  std::unordered_set<Word> inputs;
  std::unordered_set<Word> outputs;
  for (Word counter = 0; inputs.size() < sample_size; ++counter) {
    if (inputs.insert(counter).second) { outputs.insert(hash(counter)); }
  }
  while (inputs.size() < 2 * sample_size) {
    const auto word = static_cast<Word>(random());
    if (inputs.insert(word).second) { outputs.insert(hash(word)); }
  }
  EXPECT_EQ(outputs.size(), inputs.size());
}

TEST(fmix32, has_no_collisions_on_a_sample)
{
  expect_no_collisions_on_sample<std::uint32_t>(fmix32, 11);
}
TEST(fmix64, has_no_collisions_on_a_sample)
{
  expect_no_collisions_on_sample<std::uint64_t>(fmix64, 12);
}

/// Strict avalanche: flipping any input bit flips each output bit with probability 1/2. With 4096
/// random inputs an unbiased pair stays within 0.5 +- 0.1 with a margin of more than 12 standard
/// deviations; a finalizer with a weak bit misses it by far.
template <class Word, class Hash>
void expect_avalanche(Hash hash, std::uint64_t seed)
{
  constexpr int bits = 8 * sizeof(Word);
  constexpr int samples = 4096;
  std::mt19937_64 random(seed);
  std::vector<int> flips(bits * bits, 0);
  for (int sample = 0; sample < samples; ++sample) {
    const auto input = static_cast<Word>(random());
    const Word output = hash(input);
    for (int in_bit = 0; in_bit < bits; ++in_bit) {
      const Word difference = output ^ hash(static_cast<Word>(input ^ (Word{1} << in_bit)));
      for (int out_bit = 0; out_bit < bits; ++out_bit) {
        flips[in_bit * bits + out_bit] += (difference >> out_bit) & 1;
      }
    }
  }
  for (int in_bit = 0; in_bit < bits; ++in_bit) {
    for (int out_bit = 0; out_bit < bits; ++out_bit) {
      const double probability = static_cast<double>(flips[in_bit * bits + out_bit]) / samples;
      EXPECT_NEAR(probability, 0.5, 0.1) << "input bit " << in_bit << " -> output bit " << out_bit;
    }
  }
}

TEST(fmix32, avalanches)
{
  expect_avalanche<std::uint32_t>(fmix32, 21);
}
TEST(fmix64, avalanches)
{
  expect_avalanche<std::uint64_t>(fmix64, 22);
}

TEST(fmix, is_usable_in_constant_expressions)
{
  static_assert(fmix32(1) == 0x514e28b7U);
  static_assert(fmix64(0) == 0);
}

std::uint32_t fnv1a_32(std::string_view text)
{
  return warpdex::fnv1a_32(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

TEST(fnv1a_32, matches_the_reference_test_vectors)
{
  const std::pair<std::string_view, std::uint32_t> vectors[] = {
      {"", 0x811c9dc5U},       {"a", 0xe40c292cU},       {"b", 0xe70c2de5U},        {"f", 0xe30c2799U},
      {"fo", 0x6222e842U},     {"foo", 0xa9f37ed7U},     {"foob", 0x3f5076efU},     {"fooba", 0x39aaa18aU},
      {"foobar", 0xbf9cf968U}, {{"\0", 1}, 0x050c5d1fU}, {{"a\0", 2}, 0x2b24d044U},
  };
  for (const auto& [text, expected] : vectors) { EXPECT_EQ(fnv1a_32(text), expected) << "input '" << text << "'"; }
  EXPECT_EQ(warpdex::fnv1a_32_offset_basis, 0x811c9dc5U);
}

TEST(fnv1a_32, hashes_in_pieces_as_in_one_go)
{
  const std::string_view text = "warp-centric data structures";
  for (std::size_t split = 0; split <= text.size(); ++split) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    const std::uint32_t first_piece = warpdex::fnv1a_32(bytes, split);
    EXPECT_EQ(warpdex::fnv1a_32(bytes + split, text.size() - split, first_piece), fnv1a_32(text));
  }
}

TEST(fnv1a_32_tuple, reads_integers_as_little_endian_bytes)
{
  // The two-byte integer 0x0061 is the bytes 'a', '\0': a published vector.
  EXPECT_EQ(warpdex::fnv1a_32_tuple(std::uint16_t{0x0061}), 0x2b24d044U);
  EXPECT_EQ(warpdex::fnv1a_32_tuple(std::uint8_t{'f'}, std::uint8_t{'o'}, std::uint8_t{'o'}), 0xa9f37ed7U);
}

TEST(fnv1a_32_tuple, equals_fnv1a_32_over_the_little_endian_bytes)
{
  std::mt19937_64 random(31);
  for (int trial = 0; trial < 1000; ++trial) {
    const auto a = static_cast<std::uint32_t>(random());
    const auto b = static_cast<std::int64_t>(random());  // negative half the time: two's complement bytes
    const auto c = static_cast<std::int16_t>(random());
    const auto d = static_cast<std::uint8_t>(random());
    std::vector<unsigned char> bytes;
    const auto append = [&bytes](std::uint64_t bits, std::size_t size) {
      for (std::size_t i = 0; i < size; ++i) { bytes.push_back(static_cast<unsigned char>(bits >> (8 * i))); }
    };
    append(a, 4);
    append(static_cast<std::uint64_t>(b), 8);
    append(static_cast<std::uint16_t>(c), 2);
    append(d, 1);
    ASSERT_EQ(warpdex::fnv1a_32_tuple(a, b, c, d), warpdex::fnv1a_32(bytes.data(), bytes.size()));
  }
}

TEST(universal_hash, make_universal_hash_is_deterministic_with_parameters_in_range)
{
  for (std::uint64_t seed = 0; seed < 10000; ++seed) {
    const auto hash = warpdex::make_universal_hash(seed * 0x9e3779b97f4a7c15ULL, 1000);
    const auto again = warpdex::make_universal_hash(seed * 0x9e3779b97f4a7c15ULL, 1000);
    ASSERT_EQ(hash.a, again.a);
    ASSERT_EQ(hash.b, again.b);
    ASSERT_GE(hash.a, 1U);
    ASSERT_LT(hash.a, warpdex::universal_hash::prime);
    ASSERT_LT(hash.b, warpdex::universal_hash::prime);
    ASSERT_EQ(hash.buckets, 1000U);
  }
  const auto first = warpdex::make_universal_hash(1, 1000);
  const auto second = warpdex::make_universal_hash(2, 1000);
  EXPECT_TRUE(first.a != second.a || first.b != second.b) << "different seeds should pick different members";
}

TEST(universal_hash, stays_within_the_buckets)
{
  std::mt19937_64 random(41);
  for (const std::uint32_t buckets : {1U, 2U, 7U, 1000U, 65536U, 4294967295U}) {
    const auto hash = warpdex::make_universal_hash(buckets, buckets);
    for (const std::uint32_t key : {0U, 1U, 4294967290U, 4294967291U, 4294967295U}) {
      EXPECT_LT(hash(key), buckets) << "key " << key;
    }
    for (int trial = 0; trial < 10000; ++trial) {
      const auto key = static_cast<std::uint32_t>(random());
      ASSERT_LT(hash(key), buckets) << "key " << key << ", " << buckets << " buckets";
    }
  }
}

TEST(universal_hash, spreads_keys_evenly)
{
  // Chi-square over 64 buckets (63 degrees of freedom: mean 63, deviation 11). The bound 200 is twelve
  // deviations out, yet a hash that fills even half the buckets scores in the tens of thousands.
  constexpr std::uint32_t buckets = 64;
  constexpr int keys = 1 << 16;
  constexpr double expected_per_bucket = static_cast<double>(keys) / buckets;
  std::mt19937_64 random(51);
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    const auto hash = warpdex::make_universal_hash(seed, buckets);
    std::vector<int> counts(buckets, 0);
    const bool sequential_keys = seed % 2 == 0;
    for (int i = 0; i < keys; ++i) {
      const auto key = sequential_keys ? static_cast<std::uint32_t>(i) : static_cast<std::uint32_t>(random());
      ++counts[hash(key)];
    }
    double chi_square = 0;
    for (const int count : counts) {
      chi_square += (count - expected_per_bucket) * (count - expected_per_bucket) / expected_per_bucket;
    }
    EXPECT_LT(chi_square, 200.0) << "seed " << seed << (sequential_keys ? ", sequential keys" : ", random keys");
  }
}

}  // namespace
