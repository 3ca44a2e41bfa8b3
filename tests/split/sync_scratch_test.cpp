// The synchronous multisplit, histogram and radix sort at small sizes, where the cuda backend runs the
// asynchronous paths into scratch memory the library keeps (detail/sync_scratch.hpp): equal to the
// oracles at 2^10 .. 2^16 on every backend, sizes growing and shrinking in one process; on cuda also the
// radix sort on both sides of radix_sort_host_read_from, two host threads calling at once on their own
// streams, no allocation once warm, a throwing call giving its slot back, and everything freed on release.
#include "multisplit_oracle.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/split/histogram.hpp>
#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/radix_sort.hpp>

#if WARPDEX_HAS_CUDA
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/split/detail/sync_scratch.hpp>

#include <cuda_runtime_api.h>
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace warpdex::testing {
namespace {

constexpr std::uint32_t poison = 0xdeadbeefU;

/// Keys of a shape: 0 full-width random, 1 below 1000 (repeats: stability orders their values), 2 one
/// value in the top byte only (the passes over the low bytes see one digit).
template <class Key>
std::vector<Key> shaped_keys(std::uint64_t n, int shape, std::mt19937_64& random)
{
  std::vector<Key> keys(n);
  for (auto& key : keys) {
    const std::uint64_t bits = random();
    key = shape == 0   ? static_cast<Key>(bits)
          : shape == 1 ? static_cast<Key>(bits % 1000)
                       : static_cast<Key>(bits >> 56);
    if (shape == 2) { key = static_cast<Key>(key << (sizeof(Key) * 8 - 8)); }
  }
  return keys;
}

/// One round of every synchronous call at size n on `backend`, each against its oracle: multisplit keys
/// (bit field, 32 buckets) and pairs (delta, 256 buckets), an even histogram of 16 bins, the radix sort
/// of 32-bit keys, pairs and 64-bit keys. Returns a description of the first mismatch, empty if none
/// (callable from any thread).
template <class Backend>
std::string check_round(const Backend& backend, std::uint64_t n, std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  const std::string where = " (n=" + std::to_string(n) + " seed=" + std::to_string(seed) + ")";
  const auto keys = shaped_keys<std::uint32_t>(n, static_cast<int>(seed % 3), random);
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), std::uint32_t{0});
  const auto keys_in = make_buffer_from<std::uint32_t>(backend, keys);
  const auto values_in = make_buffer_from<std::uint32_t>(backend, values);
  auto keys_out = make_filled_buffer<std::uint32_t>(backend, n, poison);
  auto values_out = make_filled_buffer<std::uint32_t>(backend, n, poison);

  // Multisplit: keys by bits [3, 8), pairs by delta buckets over the keys' range (every id good).
  const bit_field_buckets bits{3, 5};
  std::vector<std::uint32_t> ids(n);
  for (std::uint64_t i = 0; i < n; ++i) { ids[i] = (keys[i] >> 3) & 31U; }
  auto expected = stable_split_oracle(keys, std::vector<std::uint32_t>{}, ids, 32);
  auto offsets = multisplit<std::uint32_t>(backend, keys_in.span(), keys_out.span(), bits);
  if (offsets != expected.offsets) { return "multisplit keys: offsets" + where; }
  if (keys_out.to_vector() != expected.keys) { return "multisplit keys: order" + where; }

  const std::uint32_t largest = n == 0 ? 0 : *std::max_element(keys.begin(), keys.end());
  const delta_buckets delta{largest / 256 + 1, 256};
  for (std::uint64_t i = 0; i < n; ++i) { ids[i] = keys[i] / delta.delta; }
  expected = stable_split_oracle(keys, values, ids, 256);
  offsets = multisplit_pairs<std::uint32_t, std::uint32_t>(backend, keys_in.span(), values_in.span(), keys_out.span(),
                                                           values_out.span(), delta);
  if (offsets != expected.offsets) { return "multisplit pairs: offsets" + where; }
  if (keys_out.to_vector() != expected.keys || values_out.to_vector() != expected.values) {
    return "multisplit pairs: order" + where;
  }

  // Even histogram of 16 bins over [0, 2^31): the keys above are not counted.
  constexpr std::uint32_t bins = 16;
  constexpr std::uint32_t upper = 1U << 31;
  std::vector<std::uint64_t> counts(bins, 0);
  std::uint64_t outside = 0;
  for (const std::uint32_t key : keys) {
    if (key < upper) {
      ++counts[key / (upper / bins)];
    } else {
      ++outside;
    }
  }
  const auto histogram = histogram_even<std::uint32_t>(backend, keys_in.span(), bins, 0U, upper);
  if (histogram.counts != counts || histogram.not_counted != outside) { return "histogram_even" + where; }

  // Radix sorts: keys, pairs (values are input positions: stability), 64-bit keys.
  const auto positions = stable_order(keys);
  const auto sorted = gather(keys, positions);
  radix_sort(backend, keys_in.span(), keys_out.span());
  if (keys_out.to_vector() != sorted) { return "radix_sort keys32" + where; }
  radix_sort_pairs(backend, keys_in.span(), values_in.span(), keys_out.span(), values_out.span());
  if (keys_out.to_vector() != sorted || values_out.to_vector() != positions) { return "radix_sort_pairs" + where; }
  const auto wide = shaped_keys<std::uint64_t>(n, static_cast<int>((seed + 1) % 3), random);
  const auto wide_in = make_buffer_from<std::uint64_t>(backend, wide);
  auto wide_out = make_filled_buffer<std::uint64_t>(backend, n, std::uint64_t{poison});
  radix_sort(backend, wide_in.span(), wide_out.span());
  if (wide_out.to_vector() != gather(wide, stable_order(wide))) { return "radix_sort keys64" + where; }
  return {};
}

template <class Backend>
class sync_scratch_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(sync_scratch_test, all_backends, backend_names);

// Sizes up and down in one process: the slots grow, then serve smaller calls with what they hold.
TYPED_TEST(sync_scratch_test, small_synchronous_calls_equal_the_oracles)
{
  const std::vector<std::uint64_t> sizes = sanitizer_sized()
                                               ? std::vector<std::uint64_t>{1024, 9001, 2048}
                                               : std::vector<std::uint64_t>{1024, 65536, 4096, 16384, 3001, 1};
  for (const std::uint64_t seed : fixed_and_fresh_seeds(4431)) {
    for (std::size_t s = 0; s < sizes.size(); ++s) { EXPECT_EQ(check_round(this->backend(), sizes[s], seed + s), ""); }
  }
}

#if WARPDEX_HAS_CUDA
class sync_scratch_cuda_test : public cuda_test {};

/// Counting sort of keys below `range`: the stable order of the positions, in O(n + range).
std::vector<std::uint32_t> counting_order(const std::vector<std::uint32_t>& keys, std::uint32_t range)
{
  std::vector<std::uint64_t> starts(std::uint64_t{range} + 1, 0);
  for (const std::uint32_t key : keys) { ++starts[key + 1]; }
  std::partial_sum(starts.begin(), starts.end(), starts.begin());
  std::vector<std::uint32_t> order(keys.size());
  for (std::uint32_t i = 0; i < keys.size(); ++i) { order[starts[keys[i]]++] = i; }
  return order;
}

// One key below and at radix_sort_host_read_from: the asynchronous sort and the host-read sort (keys
// below 2^20: the top byte's pass is skipped there), keys and pairs against a counting sort.
TEST_F(sync_scratch_cuda_test, radix_sort_on_both_sides_of_the_host_read)
{
  if (sanitizer_sized() || under_compute_sanitizer()) { GTEST_SKIP() << "2^24 keys: too large for a sanitizer run"; }
  const cuda backend{};
  constexpr std::uint32_t range = 1U << 20;
  for (const std::uint64_t n : {radix_sort_host_read_from - 1, radix_sort_host_read_from}) {
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE("n=" + std::to_string(n) + " seed=" + std::to_string(seed));
    std::mt19937_64 random(seed);
    std::vector<std::uint32_t> keys(n);
    for (auto& key : keys) { key = static_cast<std::uint32_t>(random() % range); }
    const auto order = counting_order(keys, range);
    std::vector<std::uint32_t> values(n);
    std::iota(values.begin(), values.end(), std::uint32_t{0});
    const auto keys_in = make_buffer_from<std::uint32_t>(backend, keys);
    const auto values_in = make_buffer_from<std::uint32_t>(backend, values);
    auto keys_out = make_filled_buffer<std::uint32_t>(backend, n, poison);
    auto values_out = make_filled_buffer<std::uint32_t>(backend, n, poison);
    radix_sort_pairs(backend, keys_in.span(), values_in.span(), keys_out.span(), values_out.span());
    EXPECT_TRUE(values_out.to_vector() == order);
    EXPECT_TRUE(keys_out.to_vector() == gather(keys, order));
    keys_out = make_filled_buffer<std::uint32_t>(backend, n, poison);
    radix_sort(backend, keys_in.span(), keys_out.span());
    EXPECT_TRUE(keys_out.to_vector() == gather(keys, order));
  }
}

// Two host threads, each on a stream of its own, calling the synchronous forms at once: each result
// equals its oracle, and afterwards no slot is leased.
TEST_F(sync_scratch_cuda_test, two_host_threads_at_once)
{
  const int rounds = sanitizer_sized() ? 2 : 12;
  const std::uint64_t base_seed = sanitizer_sized() ? 4432 : std::random_device{}();
  std::vector<std::string> failures(2);
  std::atomic<int> ready{0};
  const auto work = [&](int thread) {
    cudaStream_t stream = nullptr;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
      failures[thread] = "cudaStreamCreateWithFlags failed";
      return;
    }
    {
      const cuda backend{stream};
      ready.fetch_add(1);
      while (ready.load() < 2) { std::this_thread::yield(); }  // start together
      try {
        for (int round = 0; round < rounds && failures[thread].empty(); ++round) {
          const std::uint64_t seed = base_seed + 1000 * thread + round;
          const std::uint64_t n = sanitizer_sized() ? 3000 + 1000 * thread : 1024 + seed % 65536;
          failures[thread] = check_round(backend, n, seed);
        }
      } catch (const std::exception& failure) {
        failures[thread] = failure.what();
      }
    }
    (void)cudaStreamDestroy(stream);
  };
  std::thread first(work, 0);
  std::thread second(work, 1);
  first.join();
  second.join();
  EXPECT_EQ(failures[0], "") << "seed base " << base_seed;
  EXPECT_EQ(failures[1], "") << "seed base " << base_seed;
  EXPECT_EQ(detail::sync_scratch_now().leased, 0U);
}

// The synchronous histograms' counts are written home by the last block of their kernel to finish (the
// blocks count themselves in a word of the slot zeroed with the counts): every kernel (warp-privatized up
// to 256 bins, shared counters up to 4096, global atomics past that) over grids of many blocks, each
// call after a multisplit that left other words in the slot's device memory, against a direct count.
TEST_F(sync_scratch_cuda_test, histograms_written_home_by_the_last_block)
{
  const cuda backend{};
  const std::uint64_t n = sanitizer_sized() ? 20000 : (std::uint64_t{1} << 20) + 7;
  for (const std::uint64_t seed : fixed_and_fresh_seeds(4436)) {
    std::mt19937_64 random(seed);
    const auto keys = shaped_keys<std::uint32_t>(n, 0, random);
    const auto keys_in = make_buffer_from<std::uint32_t>(backend, keys);
    auto keys_out = make_filled_buffer<std::uint32_t>(backend, n, poison);
    for (const std::uint32_t m : {16U, 300U, 5000U}) {
      for (const auto algorithm : {histogram_algorithm::automatic, histogram_algorithm::block_shared}) {
        SCOPED_TRACE("m=" + std::to_string(m) + " seed=" + std::to_string(seed));
        (void)multisplit<std::uint32_t>(backend, keys_in.span(), keys_out.span(), bit_field_buckets{0, 8});
        // Bins over [2^28, 2^31 + 2^28): about a sixteenth of the keys below, seven sixteenths above.
        constexpr std::uint32_t lower = 1U << 28;
        constexpr std::uint32_t upper = (1U << 31) + lower;
        std::vector<std::uint64_t> expected(m, 0);
        std::uint64_t outside = 0;
        for (const std::uint32_t key : keys) {
          if (key < lower || key >= upper) {
            ++outside;
          } else {
            ++expected[static_cast<std::uint64_t>(key - lower) * m / (upper - lower)];
          }
        }
        const auto result = histogram_even<std::uint32_t>(backend, keys_in.span(), m, lower, upper, algorithm);
        EXPECT_EQ(result.counts, expected);
        EXPECT_EQ(result.not_counted, outside);
      }
    }
  }
  EXPECT_EQ(detail::sync_scratch_now().leased, 0U);
}

// The synchronous single pass's offsets and bad-id count are written home by the last block of its
// histogram kernel (which also scans the totals into the bucket starts the split reads): grids of many
// blocks, m from 4 to 256, each call after a histogram that left its own counts in the slot's pinned
// words, against the oracle; with ids past m the call throws and writes nothing.
TEST_F(sync_scratch_cuda_test, single_pass_results_written_home_by_the_histogram)
{
  const cuda backend{};
  const std::uint64_t n = sanitizer_sized() ? 20000 : (std::uint64_t{1} << 20) + 7;
  for (const std::uint64_t seed : fixed_and_fresh_seeds(4437)) {
    std::mt19937_64 random(seed);
    const auto keys = shaped_keys<std::uint32_t>(n, 0, random);
    const auto keys_in = make_buffer_from<std::uint32_t>(backend, keys);
    auto keys_out = make_filled_buffer<std::uint32_t>(backend, n, poison);
    for (const std::uint32_t m : {4U, 32U, 200U, 256U}) {
      SCOPED_TRACE("m=" + std::to_string(m) + " seed=" + std::to_string(seed));
      (void)histogram_even<std::uint32_t>(backend, keys_in.span(), 64, 0U, 1U << 31);
      const delta_buckets delta{static_cast<std::uint32_t>((std::uint64_t{1} << 32) / m + 1), m};
      std::vector<std::uint32_t> ids(n);
      for (std::uint64_t i = 0; i < n; ++i) { ids[i] = keys[i] / delta.delta; }
      const auto expected = stable_split_oracle(keys, std::vector<std::uint32_t>{}, ids, m);
      const auto offsets = multisplit<std::uint32_t>(backend, keys_in.span(), keys_out.span(), delta,
                                                     multisplit_algorithm::single_pass);
      EXPECT_EQ(offsets, expected.offsets);
      EXPECT_EQ(keys_out.to_vector(), expected.keys);
    }
    // Ids up to 2m - 1: about half the keys lie past the last bucket.
    auto untouched = make_filled_buffer<std::uint32_t>(backend, n, poison);
    expect_error_mentioning<error>(
        [&] {
          (void)multisplit<std::uint32_t>(backend, keys_in.span(), untouched.span(),
                                          delta_buckets{(1U << 31) / 32 + 1, 32}, multisplit_algorithm::single_pass);
        },
        {"multisplit"});
    EXPECT_EQ(untouched.to_vector(), std::vector<std::uint32_t>(n, poison));
  }
  EXPECT_EQ(detail::sync_scratch_now().leased, 0U);
}

// Once a slot has grown, calls of the same or smaller sizes allocate nothing; a call that throws (bad
// ids) gives its slot back; release frees every byte.
TEST_F(sync_scratch_cuda_test, warm_calls_allocate_nothing_and_release_frees_everything)
{
  detail::release_sync_scratch();
  const auto empty = detail::sync_scratch_now();
  EXPECT_EQ(empty.slots, 0U);
  EXPECT_EQ(empty.bytes, 0U);
  const cuda backend{};
  const std::uint64_t largest = sanitizer_sized() ? 8192 : 65536;
  EXPECT_EQ(check_round(backend, largest, 4433), "");
  const auto warm = detail::sync_scratch_now();
  EXPECT_EQ(warm.slots, 1U);
  EXPECT_GT(warm.bytes, 0U);
  EXPECT_GT(warm.allocations, empty.allocations);
  for (const std::uint64_t n : {largest, largest / 4, std::uint64_t{1000}}) {
    EXPECT_EQ(check_round(backend, n, 4434 + n), "");
  }
  auto after = detail::sync_scratch_now();
  EXPECT_EQ(after.allocations, warm.allocations);
  EXPECT_EQ(after.bytes, warm.bytes);
  EXPECT_EQ(after.slots, 1U);

  // Keys past delta * m: bad ids, the call throws; the slot is back and serves the next call.
  const std::vector<std::uint32_t> keys = {1, 2, 300, 4};
  const auto keys_in = make_buffer_from<std::uint32_t>(backend, keys);
  auto keys_out = make_filled_buffer<std::uint32_t>(backend, keys.size(), poison);
  expect_error_mentioning<error>(
      [&] {
        (void)multisplit<std::uint32_t>(backend, keys_in.span(), keys_out.span(), delta_buckets{10, 4});
      },
      {"multisplit"});
  after = detail::sync_scratch_now();
  EXPECT_EQ(after.leased, 0U);
  EXPECT_EQ(after.slots, 1U);
  EXPECT_EQ(keys_out.to_vector(), std::vector<std::uint32_t>(keys.size(), poison));
  EXPECT_EQ(check_round(backend, 2048, 4435), "");
  EXPECT_EQ(detail::sync_scratch_now().allocations, warm.allocations);

  detail::release_sync_scratch();
  const auto released = detail::sync_scratch_now();
  EXPECT_EQ(released.slots, 0U);
  EXPECT_EQ(released.bytes, 0U);
}
#endif

}  // namespace
}  // namespace warpdex::testing
