// Duplicate search against a std::map oracle on every backend of the build, for every element type and
// method: duplicate fractions 0 / 0.01 / 0.5 / 0.99, Zipf skew, edge cases, FNV-1a collisions built on
// purpose, the sorted remainder after a bounded fight, and the partitioned engine's overflowing buckets.
#include "dpp_test_support.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/dpp/duplicates.hpp>
#if WARPDEX_HAS_CUDA
#include <warpdex/split/detail/sync_scratch.hpp>
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <type_traits>
#include <vector>

namespace {

using namespace warpdex::testing;
using namespace warpdex::dpp;

template <class Backend>
class duplicates_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(duplicates_test, all_backends, backend_names);

/// The oracle: each distinct element's count and first position.
template <class Element>
struct oracle {
  explicit oracle(const std::vector<Element>& elements)
  {
    for (std::size_t i = 0; i < elements.size(); ++i) {
      auto [entry, inserted] = runs.try_emplace(elements[i], 0, i);
      ++entry->second.first;
    }
  }
  std::map<Element, std::pair<std::uint64_t, std::uint64_t>> runs;  // element -> (count, first position)
};

/// Every output of every method on `elements`, checked against the oracle.
template <class Element, class Backend>
void expect_all_outputs_match(const Backend& backend, const std::vector<Element>& elements)
{
  const oracle<Element> expected(elements);
  const auto input = make_buffer_from<Element>(backend, elements);
  const std::span<const Element> in(input.data(), input.size());
  std::vector<std::uint8_t> expected_once(elements.size());
  std::vector<Element> expected_once_elements;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    expected_once[i] = expected.runs.at(elements[i]).first == 1 ? 1 : 0;
    if (expected_once[i] != 0) { expected_once_elements.push_back(elements[i]); }
  }
  for (const auto method : {duplicate_method::sort, duplicate_method::hash_fight, duplicate_method::automatic,
                            duplicate_method::partitioned}) {
    SCOPED_TRACE(std::string(duplicate_method_name(method)));
    auto once = make_filled_buffer<std::uint8_t>(backend, elements.size(), 7);
    find_once(backend, in, once.span(), method);
    EXPECT_EQ(once.to_vector(), expected_once);
    EXPECT_EQ(elements_occurring_once(backend, in, method).to_vector(), expected_once_elements);
  }

  std::vector<Element> ascending;
  std::vector<std::uint64_t> ascending_counts;
  std::vector<std::uint64_t> ascending_firsts;
  for (const auto& [element, run] : expected.runs) {
    ascending.push_back(element);
    ascending_counts.push_back(run.first);
    ascending_firsts.push_back(run.second);
  }
  std::vector<std::size_t> by_first(ascending.size());
  for (std::size_t i = 0; i < by_first.size(); ++i) { by_first[i] = i; }
  std::sort(by_first.begin(), by_first.end(),
            [&](std::size_t a, std::size_t b) { return ascending_firsts[a] < ascending_firsts[b]; });
  std::vector<Element> first_order;
  std::vector<std::uint64_t> first_counts;
  std::vector<std::uint64_t> first_firsts;
  for (const std::size_t i : by_first) {
    first_order.push_back(ascending[i]);
    first_counts.push_back(ascending_counts[i]);
    first_firsts.push_back(ascending_firsts[i]);
  }

  EXPECT_EQ(unique_elements(backend, in).to_vector(), ascending);
  EXPECT_EQ(unique_elements(backend, in, element_order::first_occurrence).to_vector(), first_order);
  const auto counted = count_elements(backend, in);
  EXPECT_EQ(counted.elements.to_vector(), ascending);
  EXPECT_EQ(counted.counts.to_vector(), ascending_counts);
  EXPECT_EQ(counted.first_positions.to_vector(), ascending_firsts);
  const auto counted_first = count_elements(backend, in, element_order::first_occurrence);
  EXPECT_EQ(counted_first.elements.to_vector(), first_order);
  EXPECT_EQ(counted_first.counts.to_vector(), first_counts);
  EXPECT_EQ(counted_first.first_positions.to_vector(), first_firsts);
  // Counts only: the same elements and counts from a sort of the elements alone, no positions; in order of
  // first occurrence the positions are needed and come back all the same.
  const auto counts_only = count_elements(backend, in, element_order::ascending, count_outputs::counts_only);
  EXPECT_EQ(counts_only.elements.to_vector(), ascending);
  EXPECT_EQ(counts_only.counts.to_vector(), ascending_counts);
  EXPECT_EQ(counts_only.first_positions.size(), 0u);
  const auto counts_only_first =
      count_elements(backend, in, element_order::first_occurrence, count_outputs::counts_only);
  EXPECT_EQ(counts_only_first.elements.to_vector(), first_order);
  EXPECT_EQ(counts_only_first.counts.to_vector(), first_counts);
  EXPECT_EQ(counts_only_first.first_positions.to_vector(), first_firsts);
  // Each method asked for by name (the partitioned engine where it exists, else the sort): the same.
  for (const auto method : {duplicate_method::sort, duplicate_method::partitioned}) {
    SCOPED_TRACE(std::string(duplicate_method_name(method)));
    EXPECT_EQ(unique_elements(backend, in, element_order::ascending, method).to_vector(), ascending);
    const auto by_method = count_elements(backend, in, element_order::ascending, count_outputs::counts_only, method);
    EXPECT_EQ(by_method.elements.to_vector(), ascending);
    EXPECT_EQ(by_method.counts.to_vector(), ascending_counts);
    EXPECT_EQ(by_method.first_positions.size(), 0u);
  }
}

/// The distinct elements and counts of the partitioned engine (and of `automatic`) against a sorted copy.
template <class Backend>
void expect_distinct_match(const Backend& backend, const std::vector<std::uint32_t>& elements)
{
  std::vector<std::uint32_t> sorted = elements;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::uint32_t> expected;
  std::vector<std::uint64_t> expected_counts;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i == 0 || sorted[i] != sorted[i - 1]) {
      expected.push_back(sorted[i]);
      expected_counts.push_back(0);
    }
    ++expected_counts.back();
  }
  const auto input = make_buffer_from<std::uint32_t>(backend, elements);
  const std::span<const std::uint32_t> in(input.data(), input.size());
  for (const auto method : {duplicate_method::partitioned, duplicate_method::automatic}) {
    SCOPED_TRACE(std::string(duplicate_method_name(method)));
    EXPECT_EQ(unique_elements(backend, in, element_order::ascending, method).to_vector(), expected);
    const auto counted = count_elements(backend, in, element_order::ascending, count_outputs::counts_only, method);
    EXPECT_EQ(counted.elements.to_vector(), expected);
    EXPECT_EQ(counted.counts.to_vector(), expected_counts);
  }
  // The once-flags and once-elements (input order) by the engine, against the sorted copy's counts.
  std::vector<std::uint8_t> expected_once(elements.size());
  std::vector<std::uint32_t> expected_once_elements;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const auto at = std::lower_bound(expected.begin(), expected.end(), elements[i]) - expected.begin();
    expected_once[i] = expected_counts[static_cast<std::size_t>(at)] == 1 ? 1 : 0;
    if (expected_once[i] != 0) { expected_once_elements.push_back(elements[i]); }
  }
  auto once = make_filled_buffer<std::uint8_t>(backend, elements.size(), 7);
  find_once(backend, in, once.span(), duplicate_method::partitioned);
  EXPECT_EQ(once.to_vector(), expected_once);
  EXPECT_EQ(elements_occurring_once(backend, in, duplicate_method::partitioned).to_vector(), expected_once_elements);
}

// The engine's buckets are the top 14 bits (2^18 values each); a bucket of more than 2^20 elements, or
// (counts) of more distinct elements than shared memory holds counters for, is sorted instead.
TYPED_TEST(duplicates_test, partitioned_buckets_that_overflow)
{
  // Sanitizer-sized: the counters' overflow, the scatter's tiles and one tile boundary (each call runs
  // 2^14-block kernels).
  const bool small = sanitizer_sized();
  const std::uint64_t seed = small ? case_seed(6) : fresh_seed();
  std::mt19937_64 random(seed);
  const auto shuffled = [&](std::vector<std::uint32_t> elements) {
    std::shuffle(elements.begin(), elements.end(), random);
    return elements;
  };
  {
    SCOPED_TRACE("every value of bucket 0, some twice, and random others: counters overflow");
    std::vector<std::uint32_t> elements;
    for (std::uint32_t v = 0; v < (1U << 18); ++v) { elements.push_back(v); }
    for (std::uint32_t v = 0; v < (1U << 18); v += 7) { elements.push_back(v); }
    for (int i = 0; i < (small ? 50 : 5000); ++i) { elements.push_back(static_cast<std::uint32_t>(random())); }
    expect_distinct_match(this->backend(), shuffled(elements));
  }
  {
    // The scatter's second pass tiles each super-bucket (the top 7 bits) alone, 8192 elements a tile:
    // a super-bucket of two tiles and one element, one of exactly a tile, and a hot bucket in a third.
    SCOPED_TRACE("super-buckets of 2 tiles + 1, of one tile, and with a hot bucket");
    std::vector<std::uint32_t> elements;
    for (std::uint32_t i = 0; i < 2 * 8192 + 1; ++i) {
      elements.push_back((3U << 25) | static_cast<std::uint32_t>(random() % (1U << 25)));
    }
    for (std::uint32_t i = 0; i < 8192; ++i) { elements.push_back((100U << 25) | ((i % 128) << 18) | (i / 128)); }
    for (std::uint32_t i = 0; i < 10000; ++i) {
      elements.push_back(i % 3 == 0 ? (127U << 25) | static_cast<std::uint32_t>(random() % (1U << 25)) : 0xfe123456U);
    }
    for (int i = 0; i < 100; ++i) {  // other super-buckets (5 to 94)
      const auto super = static_cast<std::uint32_t>(5 + random() % 90);
      elements.push_back((super << 25) | static_cast<std::uint32_t>(random() % (1U << 25)));
    }
    expect_distinct_match(this->backend(), shuffled(elements));
  }
  {
    // A bucket of more than 2^17 elements is split into segments of 2^17: a hot key in both segments,
    // keys of the same bucket (42) once and twice (shuffled: many pairs in two segments).
    SCOPED_TRACE("a hot bucket of two segments, with singletons and pairs beside the hot key");
    std::vector<std::uint32_t> elements((1U << 17) + 5, 0x00abcdefU);
    for (std::uint32_t v = 1; v < 400; ++v) {
      elements.push_back((42U << 18) | (v * 331));
      if (v % 2 == 0) { elements.push_back((42U << 18) | (v * 331)); }
    }
    for (int i = 0; i < (small ? 50 : 5000); ++i) { elements.push_back(static_cast<std::uint32_t>(random())); }
    expect_distinct_match(this->backend(), shuffled(elements));
  }
  {
    // The writing kernel stages 8192 distinct elements (and counts) at a time: a bucket of 20000 distinct
    // values (every third twice) counted in shared counters, and a large bucket (segments, counts in
    // global memory) of 3 x 2^16 elements over 12000 values (not sanitizer-sized), both past one window.
    SCOPED_TRACE("buckets of more distinct elements than one staging window");
    std::vector<std::uint32_t> elements;
    for (std::uint32_t v = 0; v < 20000; ++v) {
      elements.push_back((7U << 18) | ((v * 13U) % (1U << 18)));
      if (v % 3 == 0) { elements.push_back((7U << 18) | ((v * 13U) % (1U << 18))); }
    }
    for (std::uint32_t i = 0; i < (small ? 0 : 3 * (1U << 16)); ++i) {
      elements.push_back((9000U << 18) | static_cast<std::uint32_t>((random() % 12000) * 21));
    }
    for (int i = 0; i < (small ? 50 : 5000); ++i) { elements.push_back(static_cast<std::uint32_t>(random())); }
    expect_distinct_match(this->backend(), shuffled(elements));
  }
  if (!small) {
    SCOPED_TRACE("two hot keys past 2^20 copies each (two buckets), one beside small keys of its bucket");
    std::vector<std::uint32_t> elements((1U << 20) + 3, 0xdeadbeefU);
    elements.insert(elements.end(), (1U << 20) + 1, 5U);
    for (std::uint32_t v = 0; v < 3000; ++v) { elements.push_back(v * 61); }
    for (int i = 0; i < 3000; ++i) { elements.push_back(static_cast<std::uint32_t>(random())); }
    expect_distinct_match(this->backend(), shuffled(elements));
  }
  if (!small) {
    SCOPED_TRACE("all equal, past 2^20");
    expect_distinct_match(this->backend(), std::vector<std::uint32_t>((1U << 20) + 17, 0xffffffffU));
  }
  if (!small) {
    SCOPED_TRACE("both ends of every bucket");
    std::vector<std::uint32_t> elements;
    for (std::uint32_t b = 0; b < (1U << 14); ++b) {
      elements.push_back(b << 18);
      elements.push_back((b << 18) | ((1U << 18) - 1));
      if (b % 3 == 0) { elements.push_back(b << 18); }
    }
    expect_distinct_match(this->backend(), shuffled(elements));
  }
  for (const std::uint64_t n : {1ULL, 3ULL, 16383ULL, 16385ULL, 40001ULL}) {
    if (small && n != 16385) { continue; }
    SCOPED_TRACE(n);
    std::vector<std::uint32_t> elements(n);
    for (auto& element : elements) { element = static_cast<std::uint32_t>(random() % (n / 2 + 1)) * 104729U; }
    expect_distinct_match(this->backend(), elements);
  }
  for (const double exponent : {1.1, 2.0}) {
    if (small) { continue; }
    SCOPED_TRACE(exponent);
    expect_distinct_match(this->backend(), zipf_elements<std::uint32_t>(200000, exponent, seed));
  }
}

// The engine's memory is a slot of the library's scratch pool (detail/sync_scratch.hpp), kept per device: a
// second call of the same size, or a smaller one, allocates no scratch, and gives the same outputs. A hot
// bucket of two segments among other values, so that the plan's large buckets and segments run too.
TYPED_TEST(duplicates_test, partitioned_warm_calls_allocate_no_scratch)
{
#if WARPDEX_HAS_CUDA
  if constexpr (std::is_same_v<TypeParam, warpdex::cuda>) {
    const std::uint64_t seed = sanitizer_sized() ? case_seed(7) : fresh_seed();
    std::mt19937_64 random(seed);
    std::vector<std::uint32_t> elements((1U << 17) + 9, 0x0badf00dU);
    for (int i = 0; i < 60000; ++i) { elements.push_back(static_cast<std::uint32_t>(random() % 50000) * 85899U); }
    std::shuffle(elements.begin(), elements.end(), random);
    expect_distinct_match(this->backend(), elements);  // grows the slot to this size
    const std::uint64_t before = warpdex::detail::sync_scratch_now().allocations;
    expect_distinct_match(this->backend(), elements);
    expect_distinct_match(this->backend(), std::vector<std::uint32_t>(elements.begin(), elements.begin() + 70001));
    EXPECT_EQ(warpdex::detail::sync_scratch_now().allocations, before);
    return;
  }
#endif
  GTEST_SKIP() << "the scratch pool is the cuda backend's (the host engine allocates per call)";
}

// The host's engine splits by ranges of the leading 64 bits (for tuples, words 0 and 1) into partitions
// of about 2^14 elements, counted by one thread each from 2^15 elements: inputs past many partitions,
// ranges narrow and full, leading bits all equal, and one partition of more than 2^16 distinct elements
// (its table grows). Every output against the oracle, every method.
TYPED_TEST(duplicates_test, partitioned_engine_past_one_partition)
{
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  const std::uint64_t n = sanitizer_sized() ? 40000 : 150000;
  {
    SCOPED_TRACE("every type, half repeated");
    expect_all_outputs_match(this->backend(), elements_with_duplicates<std::uint32_t>(n, 0.5, seed));
    expect_all_outputs_match(this->backend(), elements_with_duplicates<std::uint64_t>(n, 0.5, seed));
    expect_all_outputs_match(this->backend(), elements_with_duplicates<uint32x2>(n, 0.5, seed));
    expect_all_outputs_match(this->backend(), elements_with_duplicates<uint32x3>(n, 0.5, seed));
    expect_all_outputs_match(this->backend(), elements_with_duplicates<uint32x4>(n, 0.5, seed));
  }
  {
    SCOPED_TRACE("64-bit elements over the full range and over a narrow one");
    std::vector<std::uint64_t> full(n);
    for (auto& element : full) { element = random() >> (random() % 64); }
    full[random() % n] = 0;
    full[random() % n] = ~std::uint64_t{0};
    for (std::uint64_t i = 0; i < n / 3; ++i) { full[random() % n] = full[random() % n]; }
    expect_all_outputs_match(this->backend(), full);
    std::vector<std::uint64_t> narrow(n);
    for (auto& element : narrow) { element = (std::uint64_t{1} << 40) + random() % 5000; }
    expect_all_outputs_match(this->backend(), narrow);
  }
  {
    SCOPED_TRACE("tuples whose leading words are all equal, or word 0 alone");
    std::vector<uint32x3> same_leading(n);
    std::vector<uint32x4> same_first(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      same_leading[i] = uint32x3{{7, 9, static_cast<std::uint32_t>(random() % (n / 2))}};
      same_first[i] = uint32x4{{3, static_cast<std::uint32_t>(random() % 1000),
                                static_cast<std::uint32_t>(random() % 50), static_cast<std::uint32_t>(random())}};
    }
    expect_all_outputs_match(this->backend(), same_leading);
    expect_all_outputs_match(this->backend(), same_first);
  }
  {
    SCOPED_TRACE("one partition of 2^17 distinct elements (some twice) beside a few spread ones");
    expect_all_outputs_match(this->backend(), one_crowded_partition(random));
  }
  {
    SCOPED_TRACE("Zipf-repeated");
    expect_all_outputs_match(this->backend(), zipf_elements<std::uint64_t>(n, 1.1, seed));
  }
}

// An algorithmic-complexity attack on the host engine's tables: values built so that fmix64(value ^ c)
// shares its low 20 bits for a fixed c (here the golden-ratio constant), all in one range of leading
// bits, some twice. Under that fixed hash every one probes one chain (quadratic work); the engine's seed
// is drawn per process, so they spread. Every output against the oracle.
TYPED_TEST(duplicates_test, elements_built_to_share_one_slot_of_a_fixed_table_hash)
{
  std::vector<std::uint64_t> elements = values_sharing_a_slot(sanitizer_sized() ? 4000 : 30000, 0x9e3779b97f4a7c15ULL);
  for (std::size_t i = 0; i < elements.size(); i += 3) { elements.push_back(elements[i]); }
  elements.push_back(~std::uint64_t{0});
  std::shuffle(elements.begin(), elements.end(), std::mt19937_64(case_seed(8)));
  expect_all_outputs_match(this->backend(), elements);
}

template <class Element, class Backend>
void duplicate_fractions(const Backend& backend, std::uint64_t seed)
{
  SCOPED_TRACE(sizeof(Element));
  for (const double fraction : {0.0, 0.01, 0.5, 0.99}) {
    SCOPED_TRACE(fraction);
    expect_all_outputs_match(backend, elements_with_duplicates<Element>(3000, fraction, seed));
  }
}

template <class Backend>
void every_type_at_duplicate_fractions(const Backend& backend, std::uint64_t seed)
{
  duplicate_fractions<std::uint32_t>(backend, seed);
  duplicate_fractions<std::uint64_t>(backend, seed);
  duplicate_fractions<uint32x2>(backend, seed);
  duplicate_fractions<uint32x3>(backend, seed);
  duplicate_fractions<uint32x4>(backend, seed);
}

TYPED_TEST(duplicates_test, matches_oracle_at_duplicate_fractions)
{
  every_type_at_duplicate_fractions(this->backend(), case_seed(1));
}

TYPED_TEST(duplicates_test, matches_oracle_with_a_fresh_seed)
{
  every_type_at_duplicate_fractions(this->backend(), fresh_seed());
}

TYPED_TEST(duplicates_test, zipf_skewed_duplicates)
{
  const std::uint64_t seed = case_seed(2);
  for (const double exponent : {0.5, 1.0, 1.5}) {
    SCOPED_TRACE(exponent);
    expect_all_outputs_match(this->backend(), zipf_elements<std::uint32_t>(4000, exponent, seed));
    expect_all_outputs_match(this->backend(), zipf_elements<uint32x3>(4000, exponent, seed));
  }
}

template <class Element, class Backend>
void edge_cases(const Backend& backend)
{
  SCOPED_TRACE(sizeof(Element));
  expect_all_outputs_match(backend, std::vector<Element>{});
  expect_all_outputs_match(backend, std::vector<Element>{element_from_key<Element>(5)});
  expect_all_outputs_match(backend, std::vector<Element>(777, element_from_key<Element>(9)));
  expect_all_outputs_match(backend, std::vector<Element>{element_from_key<Element>(0), element_from_key<Element>(0)});
  std::vector<Element> distinct;
  for (std::uint64_t k = 0; k < 1000; ++k) { distinct.push_back(element_from_key<Element>(1000 - k)); }
  expect_all_outputs_match(backend, distinct);
  // The extreme values are ordinary elements.
  const Element zero{};
  Element ones{};
  if constexpr (std::is_integral_v<Element>) {
    ones = ~Element{0};
  } else {
    for (auto& word : ones.word) { word = ~std::uint32_t{0}; }
  }
  expect_all_outputs_match(backend, std::vector<Element>{ones, zero, ones, element_from_key<Element>(3)});
}

TYPED_TEST(duplicates_test, empty_one_all_equal_all_distinct_extremes)
{
  edge_cases<std::uint32_t>(this->backend());
  edge_cases<std::uint64_t>(this->backend());
  edge_cases<uint32x2>(this->backend());
  edge_cases<uint32x3>(this->backend());
  edge_cases<uint32x4>(this->backend());
}

TYPED_TEST(duplicates_test, elements_built_to_share_one_fnv1a_hash)
{
  const auto keys = fnv1a_colliding_keys(300, case_seed(3));
  ASSERT_GE(keys.size(), 300u);
  std::vector<std::uint64_t> elements;
  std::vector<uint32x2> pairs;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    // Every third key twice, every fifth three times: duplicates hiding among collisions.
    const std::size_t copies = 1 + (i % 3 == 0 ? 1 : 0) + (i % 5 == 0 ? 2 : 0);
    for (std::size_t c = 0; c < copies; ++c) {
      elements.push_back(keys[i]);
      pairs.push_back(uint32x2{{static_cast<std::uint32_t>(keys[i]), static_cast<std::uint32_t>(keys[i] >> 32)}});
    }
  }
  std::mt19937_64 random(case_seed(4));
  std::shuffle(elements.begin(), elements.end(), random);
  std::shuffle(pairs.begin(), pairs.end(), random);
  ASSERT_EQ(element_fnv1a(elements[0]), element_fnv1a(elements[1]));
  ASSERT_EQ(element_fnv1a(pairs[0]), element_fnv1a(elements[0]));
  expect_all_outputs_match(this->backend(), elements);
  expect_all_outputs_match(this->backend(), pairs);
  // A fresh basis each round parts them: a handful of rounds, not one per distinct element.
  const auto input = make_buffer_from<std::uint64_t>(this->backend(), elements);
  auto once = make_buffer<std::uint8_t>(this->backend(), elements.size());
  const auto stats = find_once(this->backend(), std::span<const std::uint64_t>(input.data(), input.size()), once.span(),
                               duplicate_method::hash_fight);
  EXPECT_LT(stats.rounds, 20u);
  EXPECT_EQ(stats.sorted_remainder, 0u);
}

TYPED_TEST(duplicates_test, rounds_cut_short_finish_by_sorting)
{
  const auto elements = elements_with_duplicates<uint32x3>(5000, 0.5, case_seed(5));
  const oracle<uint32x3> expected(elements);
  const auto input = make_buffer_from<uint32x3>(this->backend(), elements);
  const std::span<const uint32x3> in(input.data(), input.size());
  for (const std::uint32_t max_rounds : {0u, 1u, 2u}) {
    SCOPED_TRACE(max_rounds);
    auto once = make_buffer<std::uint8_t>(this->backend(), elements.size());
    const auto stats = find_once(this->backend(), in, once.span(), duplicate_method::hash_fight, max_rounds);
    EXPECT_EQ(stats.rounds, max_rounds);
    EXPECT_GT(stats.sorted_remainder, 0u);
    const auto flags = once.to_vector();
    for (std::size_t i = 0; i < elements.size(); ++i) {
      ASSERT_EQ(flags[i], expected.runs.at(elements[i]).first == 1 ? 1 : 0) << "position " << i;
    }
  }
}

TYPED_TEST(duplicates_test, size_mismatch_is_rejected_before_writing)
{
  const std::vector<std::uint32_t> elements = {1, 2, 2};
  const auto input = make_buffer_from<std::uint32_t>(this->backend(), elements);
  auto once = make_filled_buffer<std::uint8_t>(this->backend(), 2, 7);
  expect_error_mentioning<warpdex::error>(
      [&] { find_once(this->backend(), std::span<const std::uint32_t>(input.data(), input.size()), once.span()); },
      {"dpp::find_once", "3 elements but 2 once-flags"});
  EXPECT_EQ(once.to_vector(), (std::vector<std::uint8_t>{7, 7}));
}

TEST(duplicate_method_names, parse_and_name)
{
  EXPECT_EQ(parse_duplicate_method("sort"), duplicate_method::sort);
  EXPECT_EQ(parse_duplicate_method("hash"), duplicate_method::hash_fight);
  EXPECT_EQ(parse_duplicate_method("auto"), duplicate_method::automatic);
  EXPECT_EQ(parse_duplicate_method("partitioned"), duplicate_method::partitioned);
  EXPECT_EQ(duplicate_method_name(duplicate_method::partitioned), "partitioned");
  expect_error_mentioning<warpdex::error>([] { (void)parse_duplicate_method("radix"); },
                                          {"'radix'", "auto, sort, hash or partitioned"});
  EXPECT_EQ(resolve_method<std::uint32_t>(duplicate_method::automatic), duplicate_method::sort);
  EXPECT_EQ(resolve_method<uint32x3>(duplicate_method::automatic), duplicate_method::hash_fight);
  // The host's engine serves every type, order and output; automatic runs it from its thresholds.
  using warpdex::host;
  for (const auto order : {element_order::ascending, element_order::first_occurrence}) {
    EXPECT_EQ((resolve_distinct_method<uint32x3, host>(duplicate_method::partitioned, 1ULL << 30, true, order,
                                                       count_outputs::with_first_positions)),
              duplicate_method::partitioned);
    EXPECT_EQ((resolve_distinct_method<std::uint64_t, host>(duplicate_method::automatic,
                                                            host_partitioned_automatic_from, false, order)),
              duplicate_method::partitioned);
    EXPECT_EQ((resolve_distinct_method<std::uint64_t, host>(duplicate_method::sort, 1ULL << 30, false, order)),
              duplicate_method::sort);
  }
  // The once-outputs: automatic is resolve_method's choice below the engine's threshold.
  EXPECT_EQ((resolve_once_method<std::uint32_t, host>(duplicate_method::automatic, 1ULL << 31)),
            duplicate_method::partitioned);
  EXPECT_EQ((resolve_once_method<uint32x3, host>(duplicate_method::automatic, host_partitioned_once_automatic_from)),
            duplicate_method::partitioned);
  EXPECT_EQ(
      (resolve_once_method<std::uint64_t, host>(duplicate_method::automatic, host_partitioned_once_automatic_from - 1)),
      duplicate_method::sort);
  EXPECT_EQ((resolve_once_method<uint32x3, host>(duplicate_method::automatic, 1)), duplicate_method::hash_fight);
  EXPECT_EQ((resolve_once_method<std::uint32_t, host>(duplicate_method::hash_fight, 1)), duplicate_method::hash_fight);
  EXPECT_EQ((resolve_once_method<uint32x4, host>(duplicate_method::partitioned, 1)), duplicate_method::partitioned);
#if WARPDEX_HAS_CUDA
  using warpdex::cuda;
  EXPECT_EQ(
      (resolve_once_method<std::uint32_t, cuda>(duplicate_method::automatic, partitioned_once_automatic_from - 1)),
      duplicate_method::sort);
  EXPECT_EQ((resolve_once_method<std::uint32_t, cuda>(duplicate_method::automatic, partitioned_once_automatic_from)),
            duplicate_method::partitioned);
  EXPECT_EQ((resolve_once_method<std::uint64_t, cuda>(duplicate_method::automatic, 1ULL << 31)),
            duplicate_method::sort);
  EXPECT_EQ((resolve_once_method<std::uint64_t, cuda>(duplicate_method::partitioned, 1)), duplicate_method::sort);
  EXPECT_EQ((resolve_distinct_method<std::uint32_t, cuda>(duplicate_method::partitioned, 1, false,
                                                          element_order::first_occurrence)),
            duplicate_method::sort);
  EXPECT_EQ((resolve_distinct_method<std::uint32_t, cuda>(
                duplicate_method::partitioned, 1, true, element_order::ascending, count_outputs::with_first_positions)),
            duplicate_method::sort);
  for (const bool counts : {false, true}) {
    EXPECT_EQ((resolve_distinct_method<std::uint32_t, cuda>(duplicate_method::partitioned, 1, counts)),
              duplicate_method::partitioned);
    EXPECT_EQ((resolve_distinct_method<std::uint64_t, cuda>(duplicate_method::partitioned, 1ULL << 30, counts)),
              duplicate_method::sort);
    EXPECT_EQ((resolve_distinct_method<std::uint32_t, cuda>(duplicate_method::hash_fight, 1ULL << 30, counts)),
              duplicate_method::sort);
  }
  for (const bool counts : {false, true}) {
    EXPECT_EQ(
        (resolve_distinct_method<std::uint32_t, cuda>(duplicate_method::automatic, partitioned_automatic_from, counts)),
        duplicate_method::partitioned);
    EXPECT_EQ((resolve_distinct_method<std::uint32_t, cuda>(duplicate_method::automatic, partitioned_automatic_from - 1,
                                                            counts)),
              duplicate_method::sort);
  }
#endif
}

TEST(element_hash, tuple_hash_is_fnv1a_of_the_words)
{
  const uint32x3 face{{7, 11, 0xdeadbeef}};
  EXPECT_EQ(element_fnv1a(face), warpdex::fnv1a_32_tuple(7U, 11U, 0xdeadbeefU));
  EXPECT_EQ(element_fnv1a(std::uint64_t{0x0102030405060708ULL}),
            warpdex::fnv1a_32_tuple(std::uint64_t{0x0102030405060708ULL}));
}

}  // namespace
