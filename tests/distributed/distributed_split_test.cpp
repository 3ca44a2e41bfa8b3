// The distributed multisplit and sort over the in-process loopback group (1-4 ranks on the host backend, and on the
// cuda backend with every rank on one GPU, skipped without one), checked against the single-device result on the
// concatenation of the ranks' inputs.

#include "distributed/split_check.hpp"
#include "support/backend_fixture.hpp"

#include <warpdex/distributed/distributed_split.hpp>
#include <warpdex/distributed/loopback_group.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace warpdex::testing {
namespace {

using distributed::bucket_ranges;
using distributed::loopback_group;

template <class Backend>
class distributed_multisplit_test : public backend_test<Backend> {
 protected:
  using group_type = loopback_group<Backend>;
  /// Splitters in the backend's memory (kept by the fixture) and the same on the host, for the oracle.
  std::pair<splitter_buckets<std::uint32_t>, splitter_buckets<std::uint32_t>> splitters(
      const std::vector<std::uint32_t>& values)
  {
    host_splitters_ = values;
    device_splitters_ = make_buffer<std::uint32_t>(this->backend(), values.size());
    device_splitters_.copy_from(values);
    const auto count = static_cast<std::uint32_t>(values.size());
    return {{device_splitters_.data(), count}, {host_splitters_.data(), count}};
  }

 private:
  std::vector<std::uint32_t> host_splitters_;
  buffer<std::uint32_t> device_splitters_;
};
TYPED_TEST_SUITE(distributed_multisplit_test, all_backends, backend_names);

// Uneven sizes: rank 1 a third of rank 0's, rank 2 empty.
const std::vector<std::size_t> uneven{3000, 1000, 0, 2500};

TYPED_TEST(distributed_multisplit_test, MultisplitEqualsTheStableMultisplitOfTheConcatenation)
{
  using group_type = typename TestFixture::group_type;
  const std::uint64_t fresh = std::random_device{}();
  for (const std::uint64_t seed : {std::uint64_t{3}, fresh}) {
    for (std::uint32_t ranks = 1; ranks <= 4; ++ranks) {
      SCOPED_TRACE("ranks " + std::to_string(ranks) + ", seed " + std::to_string(seed));
      group_type group(ranks, this->backend());
      const auto keys = draw_rank_keys(ranks, uneven, 0, 1U << 12, seed + ranks);
      const bit_field_buckets bits{3, 5};  // 32 buckets: several per rank, and ranges balanced by the counts
      check_multisplit(group, keys, bits, bits, {});
      check_multisplit(group, keys, bits, bits, bucket_ranges::even(32, ranks));
      const delta_buckets deltas{1000, 5};  // fewer buckets than some rank counts: ranks with empty ranges
      check_multisplit(group, keys, deltas, deltas, bucket_ranges::even(5, ranks));
      const auto [device, on_host] = this->splitters({10, 500, 501, 4000});
      check_multisplit(group, keys, device, on_host, {});
      if (this->HasFatalFailure()) { return; }
    }
  }
}

TYPED_TEST(distributed_multisplit_test, ExplicitRangesMayLeaveRanksEmptyAndGiveOneRankEverything)
{
  using group_type = typename TestFixture::group_type;
  group_type group(4, this->backend());
  const auto keys = draw_rank_keys(4, uneven, 0, 1U << 12, 21);
  const bit_field_buckets bits{4, 4};
  check_multisplit(group, keys, bits, bits, bucket_ranges{{0, 0, 16, 16, 16}});  // rank 1 holds every bucket
  check_multisplit(group, keys, bits, bits, bucket_ranges{{0, 3, 3, 9, 16}});
}

TYPED_TEST(distributed_multisplit_test, SkewedAndEmptyInputs)
{
  using group_type = typename TestFixture::group_type;
  for (std::uint32_t ranks = 1; ranks <= 4; ++ranks) {
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    group_type group(ranks, this->backend());
    const bit_field_buckets bits{0, 4};
    // Every key in bucket 9: balanced ranges put all of it on one rank.
    const auto one_bucket = draw_rank_keys(ranks, uneven, 9, 9, 1);
    check_multisplit(group, one_bucket, bits, bits, {});
    check_multisplit(group, one_bucket, bits, bits, bucket_ranges::even(16, ranks));
    // Every rank empty, or all keys on the last rank.
    check_multisplit(group, draw_rank_keys(ranks, {0}, 0, 15, 2), bits, bits, {});
    auto last_only = draw_rank_keys(ranks, {0}, 0, 15, 3);
    last_only.back() = draw_rank_keys(1, {5000}, 0, 15, 4)[0];
    check_multisplit(group, last_only, bits, bits, {});
    EXPECT_EQ(check_sort(group, draw_rank_keys(ranks, {0}, 0, 0, 5)), 0.0);
    check_sort(group, last_only);
    // Every key equal: one rank holds them all.
    EXPECT_DOUBLE_EQ(check_sort(group, draw_rank_keys(ranks, uneven, 77, 77, 6)), ranks);
    if (this->HasFatalFailure()) { return; }
  }
}

TYPED_TEST(distributed_multisplit_test, SortEqualsTheSortOfTheConcatenationAndIsBalanced)
{
  using group_type = typename TestFixture::group_type;
  const std::uint64_t fresh = std::random_device{}();
  for (const std::uint64_t seed : {std::uint64_t{5}, fresh}) {
    for (std::uint32_t ranks = 1; ranks <= 4; ++ranks) {
      SCOPED_TRACE("ranks " + std::to_string(ranks) + ", seed " + std::to_string(seed));
      group_type group(ranks, this->backend());
      // Every 32-bit value possible; then many repeats (keys in [0, 50)), splitters among them.
      const double imbalance = check_sort(group, draw_rank_keys(ranks, {20000}, 0, ~0U, seed));
      EXPECT_LE(imbalance, 1.25) << "the fullest rank over the mean, 4096 samples a rank";
      check_sort(group, draw_rank_keys(ranks, uneven, 0, 49, seed + 1));
      // Fewer keys than samples on a rank: all of them are the sample.
      check_sort(group, draw_rank_keys(ranks, uneven, 0, ~0U, seed + 2), {/*samples_per_rank=*/16, seed});
      if (this->HasFatalFailure()) { return; }
    }
  }
}

TEST(distributed_bucket_ranges, EvenAndBalanced)
{
  EXPECT_EQ(bucket_ranges::even(10, 4).first_bucket, (std::vector<std::uint32_t>{0, 3, 6, 8, 10}));
  EXPECT_EQ(bucket_ranges::even(2, 4).first_bucket, (std::vector<std::uint32_t>{0, 1, 2, 2, 2}));
  // Boundaries where the keys before them are nearest to r / ranks of all.
  EXPECT_EQ(bucket_ranges::balanced({10, 10, 10, 10}, 2).first_bucket, (std::vector<std::uint32_t>{0, 2, 4}));
  EXPECT_EQ(bucket_ranges::balanced({1, 100, 1, 1}, 2).first_bucket, (std::vector<std::uint32_t>{0, 2, 4}));
  EXPECT_EQ(bucket_ranges::balanced({30, 100, 1, 1}, 2).first_bucket, (std::vector<std::uint32_t>{0, 1, 4}));
  EXPECT_EQ(bucket_ranges::balanced({0, 0, 50, 0}, 3).first_bucket, (std::vector<std::uint32_t>{0, 2, 3, 4}));
  EXPECT_EQ(bucket_ranges::balanced({0, 0, 0}, 2).first_bucket, (std::vector<std::uint32_t>{0, 2, 3}));
}

}  // namespace
}  // namespace warpdex::testing
