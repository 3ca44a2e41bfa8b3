// The warp-level multisplit primitives (both variants) against a per-warp count on the host, and the
// cuda multisplit with a user functor (which needs the definitions in multisplit.cuh).
#include "split/multisplit_oracle.hpp"
#include "support/backend_fixture.hpp"

#include <warpdex/split/multisplit.cuh>
#include <warpdex/split/multisplit_host.hpp>
#include <warpdex/split/warp_multisplit.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::testing {
namespace {

constexpr int warps_per_block = 4;
constexpr int block_threads = warps_per_block * warp::size;

/// Per lane: the local offset and the ceil(MaxBuckets / 32) histogram counts that the lane holds.
template <class Primitive, std::uint32_t MaxBuckets>
__global__ void warp_primitive_kernel(const std::uint32_t* buckets, const std::uint8_t* active, std::uint32_t* offsets,
                                      std::uint32_t* counts)
{
  __shared__ typename Primitive::TempStorage storage[warps_per_block];
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  Primitive primitive(storage[warp::warp_in_block()]);
  const bool is_active = active[thread] != 0;
  offsets[thread] = primitive.local_offset(buckets[thread], is_active);
  std::uint32_t lane_counts[Primitive::segments];
  primitive.histogram(buckets[thread], lane_counts, is_active);
  for (int segment = 0; segment < Primitive::segments; ++segment) {
    counts[thread * Primitive::segments + segment] = lane_counts[segment];
  }
}

template <class Primitive, std::uint32_t MaxBuckets>
void expect_warp_primitive_matches_counting()
{
  constexpr int blocks = 8;
  constexpr int threads = blocks * block_threads;
  constexpr int segments = Primitive::segments;
  std::mt19937_64 random(MaxBuckets * 7919);
  std::vector<std::uint32_t> buckets(threads);
  std::vector<std::uint8_t> active(threads);
  for (int i = 0; i < threads; ++i) {
    // Few distinct buckets in some warps, all of them in others; a tenth of the lanes inactive.
    const std::uint32_t range = (i / warp::size) % 2 == 0 ? MaxBuckets : std::min<std::uint32_t>(3, MaxBuckets);
    buckets[i] = std::uniform_int_distribution<std::uint32_t>(0, range - 1)(random);
    active[i] = std::bernoulli_distribution(0.9)(random) ? 1 : 0;
  }
  auto device_buckets = make_buffer_from<std::uint32_t>(cuda{}, buckets);
  auto device_active = make_buffer_from<std::uint8_t>(cuda{}, active);
  auto device_offsets = make_filled_buffer<std::uint32_t>(cuda{}, threads, 0xffffffffU);
  auto device_counts = make_filled_buffer<std::uint32_t>(cuda{}, threads * segments, 0xffffffffU);
  warp_primitive_kernel<Primitive, MaxBuckets><<<blocks, block_threads>>>(device_buckets.data(), device_active.data(),
                                                                          device_offsets.data(), device_counts.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto offsets = device_offsets.to_vector();
  const auto counts = device_counts.to_vector();

  for (int warp_begin = 0; warp_begin < threads; warp_begin += warp::size) {
    std::vector<std::uint32_t> histogram(segments * warp::size, 0);
    for (int lane = 0; lane < warp::size; ++lane) {
      const int i = warp_begin + lane;
      if (!active[i]) { continue; }
      std::uint32_t earlier = 0;
      for (int lower = warp_begin; lower < i; ++lower) { earlier += active[lower] && buckets[lower] == buckets[i]; }
      EXPECT_EQ(offsets[i], earlier) << "thread " << i;
      ++histogram[buckets[i]];
    }
    for (int lane = 0; lane < warp::size; ++lane) {
      for (int segment = 0; segment < segments; ++segment) {
        EXPECT_EQ(counts[(warp_begin + lane) * segments + segment], histogram[segment * warp::size + lane])
            << "thread " << warp_begin + lane << " segment " << segment;
      }
    }
  }
}

class warp_multisplit_test : public cuda_test {};

TEST_F(warp_multisplit_test, ballot_variant_counts_and_ranks)
{
  expect_warp_primitive_matches_counting<warp_multisplit_ballot<1>, 1>();
  expect_warp_primitive_matches_counting<warp_multisplit_ballot<2>, 2>();
  expect_warp_primitive_matches_counting<warp_multisplit_ballot<32>, 32>();
  expect_warp_primitive_matches_counting<warp_multisplit_ballot<100>, 100>();
}

TEST_F(warp_multisplit_test, match_variant_counts_and_ranks)
{
  expect_warp_primitive_matches_counting<warp_multisplit_match<1>, 1>();
  expect_warp_primitive_matches_counting<warp_multisplit_match<2>, 2>();
  expect_warp_primitive_matches_counting<warp_multisplit_match<32>, 32>();
  expect_warp_primitive_matches_counting<warp_multisplit_match<100>, 100>();
}

TEST_F(warp_multisplit_test, chosen_variant_counts_and_ranks)
{
  static_assert(std::is_same_v<warp_multisplit<2>, warp_multisplit_ballot<2>>);
  static_assert(std::is_same_v<warp_multisplit<256>, warp_multisplit_ballot<256>>);  // measured faster at every m
  expect_warp_primitive_matches_counting<warp_multisplit<4>, 4>();
  expect_warp_primitive_matches_counting<warp_multisplit<64>, 64>();
  expect_warp_primitive_matches_counting<warp_multisplit<256>, 256>();
}

/// A stateful user identifier: buckets by the key's residue modulo `modulus`.
struct residue_buckets {
  std::uint32_t modulus;
  __host__ __device__ std::uint32_t bucket_count() const { return modulus; }
  __host__ __device__ std::uint32_t operator()(std::uint32_t key) const { return key % modulus; }
};

TEST_F(warp_multisplit_test, user_functors_split_like_the_host)
{
  std::mt19937_64 random(7000);
  constexpr std::uint64_t n = 100000;
  for (const std::uint32_t m : {7U, 300U}) {
    SCOPED_TRACE("m=" + std::to_string(m));
    std::vector<std::uint32_t> keys(n);
    for (auto& key : keys) { key = static_cast<std::uint32_t>(random()); }
    std::vector<std::uint32_t> expected(n);
    const auto expected_offsets = multisplit(host{}, std::span<const std::uint32_t>(keys),
                                             std::span<std::uint32_t>(expected), residue_buckets{m});
    auto keys_in = make_buffer_from<std::uint32_t>(cuda{}, keys);
    auto keys_out = make_filled_buffer<std::uint32_t>(cuda{}, n, 0);
    const auto offsets = multisplit(cuda{}, std::as_const(keys_in).span(), keys_out.span(), residue_buckets{m});
    EXPECT_EQ(keys_out.to_vector(), expected);
    EXPECT_EQ(offsets, expected_offsets);
  }
}

/// A stateful user identifier of 64-bit keys that reads only the high word: the residue of key / 2^32.
struct high_word_buckets {
  std::uint32_t modulus;
  std::uint32_t count;  ///< m; ids reach modulus - 1, so count < modulus makes bad ids
  __host__ __device__ std::uint32_t bucket_count() const { return count; }
  __host__ __device__ std::uint32_t operator()(std::uint64_t key) const
  {
    return static_cast<std::uint32_t>((key >> 32) % modulus);
  }
};

TEST_F(warp_multisplit_test, user_functors_split_64_bit_keys_and_pairs_stably)
{
  constexpr std::uint64_t n = 3 * 4096 + 1000;  // several tiles and a ragged end
  constexpr std::uint64_t poison_key = 0xdeadbeefdeadbeefULL;
  constexpr std::uint32_t poison_value = 0xfeedfaceU;
  // The partition takes m = 3 (and m - 1 = 2 for the bad ids); with more buckets it is automatic.
  const std::pair<multisplit_algorithm, const char*> algorithms[] = {{multisplit_algorithm::three_pass, "three_pass"},
                                                                     {multisplit_algorithm::single_pass, "single_pass"},
                                                                     {multisplit_algorithm::partition, "partition"}};
  std::mt19937_64 random(7100);
  for (const std::uint32_t m : {3U, 7U, 100U, 300U}) {
    const high_word_buckets identifier{m, m};
    std::vector<std::uint64_t> keys(n);
    std::vector<std::uint32_t> ids(n);
    std::vector<std::uint32_t> positions(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      keys[i] = random() % 3 == 0 ? random() % 64 : random();  // some keys share their bucket and high word
      ids[i] = identifier(keys[i]);
      positions[i] = static_cast<std::uint32_t>(i);
    }
    const auto expected = stable_split_oracle(keys, positions, ids, m);
    auto keys_in = make_buffer_from<std::uint64_t>(cuda{}, keys);
    auto values_in = make_buffer_from<std::uint32_t>(cuda{}, positions);
    for (const auto& [algorithm, algorithm_name] : algorithms) {
      SCOPED_TRACE("m=" + std::to_string(m) + " " + algorithm_name);
      auto keys_out = make_filled_buffer<std::uint64_t>(cuda{}, n, poison_key);
      auto values_out = make_filled_buffer<std::uint32_t>(cuda{}, n, poison_value);
      EXPECT_EQ(multisplit(cuda{}, std::as_const(keys_in).span(), keys_out.span(), identifier, algorithm),
                expected.offsets);
      EXPECT_EQ(keys_out.to_vector(), expected.keys);
      keys_out = make_filled_buffer<std::uint64_t>(cuda{}, n, poison_key);
      EXPECT_EQ(multisplit_pairs(cuda{}, std::as_const(keys_in).span(), std::as_const(values_in).span(),
                                 keys_out.span(), values_out.span(), identifier, algorithm),
                expected.offsets);
      EXPECT_EQ(keys_out.to_vector(), expected.keys);
      EXPECT_EQ(values_out.to_vector(), expected.values);

      // Ids up to m when the identifier claims m - 1 buckets: the call throws and writes nothing.
      auto untouched = make_filled_buffer<std::uint64_t>(cuda{}, n, poison_key);
      EXPECT_THROW((void)multisplit(cuda{}, std::as_const(keys_in).span(), untouched.span(),
                                    high_word_buckets{m, m - 1}, algorithm),
                   error);
      EXPECT_EQ(untouched.to_vector(), std::vector<std::uint64_t>(n, poison_key));
    }
  }
}

}  // namespace
}  // namespace warpdex::testing
