// Failures of the distributed multisplit and sort over ranks that are threads, each seeing only its own error (as
// processes do): every rank must throw, and none wait forever in a collective another has left. Also one call of
// each that succeeds, as the loopback group's suite checks it.

#include "distributed/split_check.hpp"
#include "distributed/threaded_group.hpp"
#include "support/expect_error.hpp"

#include <warpdex/distributed/detail/distributed_split_impl.hpp>
#include <warpdex/distributed/distributed_split.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace warpdex::testing {
namespace {

using distributed::bucket_ranges;

// Uneven sizes: rank 1 a third of rank 0's, rank 2 empty.
const std::vector<std::size_t> uneven{3000, 1000, 0, 2500};

/// Every rank threw: `failing` its own error (mentioning `own`), the others one naming it (of type Exception).
template <class Exception = error>
void expect_every_rank_threw(const std::vector<std::exception_ptr>& thrown, std::uint32_t failing,
                             const std::vector<std::string_view>& own)
{
  for (std::uint32_t rank = 0; rank < thrown.size(); ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    ASSERT_TRUE(thrown[rank] != nullptr) << "this rank did not throw";
    if (rank == failing) {
      expect_error_mentioning<Exception>([&] { std::rethrow_exception(thrown[rank]); }, own);
    } else {
      expect_error_mentioning<Exception>([&] { std::rethrow_exception(thrown[rank]); },
                                         {"rank " + std::to_string(failing) + " of", "abandoned on every rank"});
    }
  }
}

TEST(distributed_split_failures, BadBucketIdsOnOneRankFailEveryRankBeforeAnythingIsSent)
{
  constexpr std::uint32_t ranks = 3;
  const auto thrown = run_threaded_ranks(ranks, [](threaded_group& group) {
    // Rank 1 holds a key past the last delta bucket (90: id 4 of 4).
    std::vector<std::uint32_t> keys{1, 2, 3, 50, 60};
    if (group.rank(0) == 1) { keys.push_back(90); }
    auto parts = distributed::multisplit(group, {std::span<const std::uint32_t>(keys)}, delta_buckets{20, 4});
  });
  expect_every_rank_threw(thrown, 1, {"1 of 6 keys have a bucket id outside [0, 4)"});
}

TEST(distributed_split_failures, DisagreeingIdentifiersAndRangesFailEveryRank)
{
  // Rank 2 splits into other buckets: every rank learns it from the gathered bucket counts.
  auto thrown = run_threaded_ranks(3, [](threaded_group& group) {
    const std::vector<std::uint32_t> keys{1, 2, 3};
    const bit_field_buckets bits{0, group.rank(0) == 2 ? 3U : 2U};
    auto parts = distributed::multisplit(group, {std::span<const std::uint32_t>(keys)}, bits);
  });
  for (const auto& each : thrown) {
    expect_error_mentioning<error>([&] { std::rethrow_exception(each); },
                                   {"rank 2 splits into 8 buckets, rank 0 into 4", "the same identifier"});
  }
  // Rank 0 passes other ranges than the others.
  thrown = run_threaded_ranks(2, [](threaded_group& group) {
    const std::vector<std::uint32_t> keys{1, 2, 3};
    const bucket_ranges ranges{group.rank(0) == 0 ? std::vector<std::uint32_t>{0, 1, 4}
                                                  : std::vector<std::uint32_t>{0, 2, 4}};
    auto parts =
        distributed::multisplit(group, {std::span<const std::uint32_t>(keys)}, bit_field_buckets{0, 2}, ranges);
  });
  for (const auto& each : thrown) {
    expect_error_mentioning<error>([&] { std::rethrow_exception(each); }, {"rank 1 passed other bucket ranges"});
  }
  // Invalid ranges (on every rank): each rank's own error.
  thrown = run_threaded_ranks(2, [](threaded_group& group) {
    const std::vector<std::uint32_t> keys{1, 2, 3};
    auto parts = distributed::multisplit(group, {std::span<const std::uint32_t>(keys)}, bit_field_buckets{0, 2},
                                         bucket_ranges{{0, 3, 2}});
  });
  for (const auto& each : thrown) {
    expect_error_mentioning<error>([&] { std::rethrow_exception(each); },
                                   {"distributed::multisplit: bucket ranges must rise from 0 to the bucket count 4"});
  }
}

TEST(distributed_split_failures, AMissingSpanOnOneRankFailsTheSortOnEveryRank)
{
  const auto thrown = run_threaded_ranks(4, [](threaded_group& group) {
    const std::vector<std::uint32_t> keys{5, 4, 3};
    distributed::per_rank<const std::uint32_t> spans{std::span<const std::uint32_t>(keys)};
    if (group.rank(0) == 3) { spans.clear(); }
    auto parts = distributed::sort(group, spans);
  });
  expect_every_rank_threw(thrown, 3, {"distributed::sort: keys has 0 spans for 1 local ranks"});
}

TEST(distributed_split_failures, ThreadedRanksSortAndSplitLikeTheLoopbackGroup)
{
  constexpr std::uint32_t ranks = 3;
  const auto every_rank = draw_rank_keys(ranks, uneven, 0, 1U << 10, 8);
  const auto thrown = run_threaded_ranks(ranks, [&](threaded_group& group) {
    check_sort(group, every_rank);
    const bit_field_buckets bits{2, 4};
    check_multisplit(group, every_rank, bits, bits, {});
  });
  for (const auto& each : thrown) { EXPECT_TRUE(each == nullptr); }
}

}  // namespace
}  // namespace warpdex::testing
