#pragma once
// What the dpp suites share: seeds (fixed per case, plus a fresh one per run, printed), elements of every
// type made from generated 64-bit keys, and FNV-1a collisions built on purpose.

#include "support/backend_fixture.hpp"

#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/dpp/element.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace warpdex::testing {

/// A seed per case, different for every test, fixed across runs.
inline std::uint64_t case_seed(std::uint64_t salt)
{
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::hash<std::string>{}(std::string(info->test_suite_name()) + info->name()) ^ salt;
}

/// A seed drawn afresh for this process (or WARPDEX_TEST_SEED's, to replay a failure), printed and recorded
/// in the test's output so that a failure can be replayed.
inline std::uint64_t fresh_seed()
{
  static const std::uint64_t seed = [] {
    const char* given = std::getenv("WARPDEX_TEST_SEED");
    return given != nullptr ? std::stoull(given) : std::random_device{}() * 0x100000001ULL ^ std::random_device{}();
  }();
  ::testing::Test::RecordProperty("fresh_seed", std::to_string(seed));
  std::printf("fresh seed %llu (WARPDEX_TEST_SEED=%llu replays it)\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed));
  return seed;
}

/// An element of type `Element` made from key k: injective on 32-bit k (word 0 is k), so equal keys
/// give equal elements and distinct keys distinct ones; the other words vary with k.
template <class Element>
Element element_from_key(std::uint64_t k)
{
  if constexpr (std::is_integral_v<Element>) {
    return static_cast<Element>(k);
  } else {
    Element element{};
    element.word[0] = static_cast<std::uint32_t>(k);
    for (std::size_t w = 1; w < sizeof(element.word) / sizeof(std::uint32_t); ++w) {
      element.word[w] = static_cast<std::uint32_t>(fmix64(k * (w + 1)));
    }
    return element;
  }
}

/// n elements of which about `duplicate_fraction * n` repeat others (the core generator's contract).
template <class Element>
std::vector<Element> elements_with_duplicates(std::uint64_t n, double duplicate_fraction, std::uint64_t seed)
{
  std::vector<std::uint32_t> keys(n);
  generate_keys_with_duplicates(host{}, std::span<std::uint32_t>(keys), duplicate_fraction, seed);
  std::vector<Element> elements(n);
  std::transform(keys.begin(), keys.end(), elements.begin(),
                 [](std::uint32_t k) { return element_from_key<Element>(k); });
  return elements;
}

/// n Zipf-skewed draws from a pool of n / 4 distinct elements: a few very frequent, many once.
template <class Element>
std::vector<Element> zipf_elements(std::uint64_t n, double exponent, std::uint64_t seed)
{
  std::vector<std::uint32_t> keys(n);
  generate_zipf_keys(host{}, key_set<std::uint32_t>{std::max<std::uint64_t>(1, n / 4), seed}, exponent, seed + 1,
                     std::span<std::uint32_t>(keys));
  std::vector<Element> elements(n);
  std::transform(keys.begin(), keys.end(), elements.begin(),
                 [](std::uint32_t k) { return element_from_key<Element>(k); });
  return elements;
}

/// The inverse of fmix64 (core/hash.hpp): its xor-shifts by 33 undo themselves, its odd multipliers have
/// inverses modulo 2^64.
inline std::uint64_t unfmix64(std::uint64_t h)
{
  const auto inverse = [](std::uint64_t c) {
    std::uint64_t x = c;  // Newton's iteration doubles the correct low bits each step
    for (int i = 0; i < 6; ++i) { x *= 2 - c * x; }
    return x;
  };
  h ^= h >> 33;
  h *= inverse(0xc4ceb9fe1a85ec53ULL);
  h ^= h >> 33;
  h *= inverse(0xff51afd7ed558ccdULL);
  h ^= h >> 33;
  return h;
}

/// `count` distinct 64-bit values below 2^63 whose fmix64(value ^ seed) share their low 20 bits: every
/// one in the first slot of any table of up to 2^20 slots hashed so, and (below 2^63, with one value
/// above) in one range of leading bits.
inline std::vector<std::uint64_t> values_sharing_a_slot(std::size_t count, std::uint64_t seed)
{
  std::vector<std::uint64_t> values;
  for (std::uint64_t i = 1; values.size() < count; ++i) {
    const std::uint64_t value = unfmix64(i << 20) ^ seed;
    if (value >> 63 == 0) { values.push_back(value); }
  }
  return values;
}

/// 2^17 distinct small values (every fifth twice) beside 100 spread ones, shuffled: the host engine's
/// ranges of leading bits put the small ones in one partition, whose table grows past 2^16 groups.
inline std::vector<std::uint32_t> one_crowded_partition(std::mt19937_64& random)
{
  std::vector<std::uint32_t> elements;
  for (std::uint32_t v = 0; v < (1U << 17); ++v) {
    elements.push_back(v);
    if (v % 5 == 0) { elements.push_back(v); }
  }
  for (int i = 0; i < 100; ++i) { elements.push_back(static_cast<std::uint32_t>(random()) | 0x80000000U); }
  std::shuffle(elements.begin(), elements.end(), random);
  return elements;
}

/// At least `wanted` distinct 64-bit values whose 8 little-endian bytes have one and the same 32-bit
/// FNV-1a hash (so they also collide as uint32x2 {low, high}): a meet in the middle over the state after
/// the low 4 bytes, forward from the offset basis and backward from a target hash.
inline std::vector<std::uint64_t> fnv1a_colliding_keys(std::size_t wanted, std::uint64_t seed)
{
  constexpr std::uint32_t prime_inverse = 899433627U;  // fnv1a_32_prime * prime_inverse == 1 mod 2^32
  static_assert(static_cast<std::uint32_t>(fnv1a_32_prime * prime_inverse) == 1U);
  const std::uint32_t target = static_cast<std::uint32_t>(fmix64(seed));
  std::mt19937_64 random(seed);
  // Each side 2^k candidates: about 2^(2k - 32) matches.
  std::size_t side = 1U << 16;
  while (side * side / (std::uint64_t{1} << 32) < 2 * wanted) { side *= 2; }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> forward(side);   // (state, low word)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> backward(side);  // (state, high word)
  for (auto& [state, low] : forward) {
    low = static_cast<std::uint32_t>(random());
    state = fnv1a_32(reinterpret_cast<const unsigned char*>(&low), 4);
  }
  for (auto& [state, high] : backward) {
    high = static_cast<std::uint32_t>(random());
    std::uint32_t s = target;
    for (int byte = 3; byte >= 0; --byte) { s = (s * prime_inverse) ^ ((high >> (8 * byte)) & 0xffU); }
    state = s;
  }
  std::sort(forward.begin(), forward.end());
  std::sort(backward.begin(), backward.end());
  std::vector<std::uint64_t> keys;
  for (std::size_t f = 0, b = 0; f < forward.size() && b < backward.size();) {
    if (forward[f].first < backward[b].first) {
      ++f;
    } else if (backward[b].first < forward[f].first) {
      ++b;
    } else {
      keys.push_back(static_cast<std::uint64_t>(backward[b].second) << 32 | forward[f].second);
      ++f;
      ++b;
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

}  // namespace warpdex::testing
