// The logic of the distributed family that needs no second rank: owners, the split by owner and its
// un-permutation, the exchange arithmetic, the file bootstrap.

#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/distributed/bootstrap.hpp>
#include <warpdex/distributed/detail/batch_steps.hpp>
#include <warpdex/distributed/exchange_layout.hpp>
#include <warpdex/distributed/owner.hpp>
#include <warpdex/hash/hashers.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

namespace warpdex::testing {
namespace {

using namespace warpdex::distributed;

TEST(distributed_owner, OwnersAreBalancedAndIndependentOfTheBucketHash)
{
  for (const std::uint32_t ranks : {1U, 2U, 3U, 8U}) {
    std::vector<std::uint64_t> per_rank(ranks, 0);
    constexpr std::uint32_t keys = 1 << 18;
    for (std::uint32_t key = 0; key < keys; ++key) { ++per_rank[owner_of(key, ranks)]; }  // sequential keys
    for (const std::uint64_t count : per_rank) {
      EXPECT_NEAR(static_cast<double>(count), static_cast<double>(keys) / ranks, 0.02 * keys / ranks);
    }
  }
  // The keys one rank of two owns still spread over every bucket of an even bucket count of its table.
  const hash::universal_key_hash bucket_hash(12345);
  std::vector<std::uint64_t> buckets(64, 0);
  for (std::uint32_t key = 0; key < (1U << 16); ++key) {
    if (owner_of(key, 2) == 1) { ++buckets[bucket_hash(key) % 64]; }
  }
  EXPECT_GT(*std::min_element(buckets.begin(), buckets.end()), 0U);
}

TEST(distributed_owner, ReservedKeysGoToTheExtraBucket)
{
  const owner_buckets owners{3};
  EXPECT_EQ(owners.bucket_count(), 4U);
  EXPECT_EQ(owners(hash::empty_key), 3U);
  EXPECT_EQ(owners(hash::erased_key), 3U);
  EXPECT_LT(owners(hash::max_user_key), 3U);
  EXPECT_EQ(owners(12345), owner_of(12345, 3));
  // The seed chooses another owner for about two keys in three.
  std::uint32_t moved = 0;
  for (std::uint32_t key = 0; key < 3000; ++key) { moved += owner_buckets{3, 1}(key) != owner_buckets{3, 2}(key); }
  EXPECT_NEAR(moved, 2000, 150);
}

TEST(distributed_layout, BucketCountsFromSplitOffsets)
{
  EXPECT_EQ(bucket_counts(std::vector<std::uint64_t>{0, 3, 3, 7}, 9, 3), (std::vector<std::uint64_t>{3, 0, 4}));
  // The extra (reserved) bucket is left out.
  EXPECT_EQ(bucket_counts(std::vector<std::uint64_t>{0, 3, 3, 7}, 9, 4), (std::vector<std::uint64_t>{3, 0, 4, 2}));
  expect_error_mentioning<error>(
      [] {
        (void)bucket_counts(std::vector<std::uint64_t>{0, 5, 3}, 9, 3);
      },
      {"out of order"});
  expect_error_mentioning<error>([] { (void)bucket_counts(std::vector<std::uint64_t>{0}, 9, 3); },
                                 {"1 bucket offsets for 3 ranks"});
}

TEST(distributed_layout, EveryRanksLayoutFromTheGatheredCounts)
{
  // Rows: what ranks 0, 1, 2 send to ranks 0, 1, 2, then a status word.
  const std::vector<std::uint64_t> gathered{1, 2, 3, 0, /**/ 4, 0, 6, 0, /**/ 7, 8, 0, 0};
  const exchange_layout rank_1 = layout_of_rank(1, 3, gathered, 4);
  EXPECT_EQ(rank_1.send_counts, (std::vector<std::uint64_t>{4, 0, 6}));
  EXPECT_EQ(rank_1.send_offsets, (std::vector<std::uint64_t>{0, 4, 4, 10}));
  EXPECT_EQ(rank_1.receive_counts, (std::vector<std::uint64_t>{2, 0, 8}));
  EXPECT_EQ(rank_1.receive_offsets, (std::vector<std::uint64_t>{0, 2, 2, 10}));
  EXPECT_EQ(rank_1.total_sent(), 10U);
  EXPECT_EQ(rank_1.total_received(), 10U);
  const exchange_layout back = rank_1.reversed();
  EXPECT_EQ(back.send_counts, rank_1.receive_counts);
  EXPECT_EQ(back.receive_offsets, rank_1.send_offsets);
  // What every rank sends, some rank receives.
  std::uint64_t sent = 0, received = 0;
  for (std::uint32_t rank = 0; rank < 3; ++rank) {
    sent += layout_of_rank(rank, 3, gathered, 4).total_sent();
    received += layout_of_rank(rank, 3, gathered, 4).total_received();
  }
  EXPECT_EQ(sent, received);
  expect_error_mentioning<error>([&] { (void)layout_of_rank(3, 3, gathered, 4); }, {"rank 3 of 3"});
  expect_error_mentioning<error>([&] { (void)layout_of_rank(0, 3, gathered, 5); }, {"12 gathered counts"});
}

template <class Backend>
class distributed_split_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(distributed_split_test, all_backends, backend_names);

TYPED_TEST(distributed_split_test, SplitByOwnerIsStableAndScatterUndoesIt)
{
  const auto& on = this->backend();
  for (const std::uint32_t ranks : {1U, 2U, 5U}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{10007}}) {
      std::mt19937 generator(static_cast<std::uint32_t>(n * 7 + ranks));
      std::vector<std::uint32_t> keys(n);
      for (auto& key : keys) { key = generator() % 5000; }  // repeats
      const auto keys_in = make_buffer_from<std::uint32_t>(on, keys);
      auto keys_out = make_buffer<std::uint32_t>(on, n);
      auto positions = make_buffer<std::uint32_t>(on, n);
      const owner_buckets owners{ranks};
      const auto offsets =
          distributed::detail::split_by_owner(on, keys_in.span(), keys_out.span(), positions.span(), owners);
      ASSERT_EQ(offsets.size(), ranks + 1);
      const auto split = keys_out.to_vector();
      const auto where = positions.to_vector();
      std::vector<std::uint64_t> expected_counts(ranks, 0);
      for (const std::uint32_t key : keys) { ++expected_counts[owner_of(key, ranks)]; }
      EXPECT_EQ(bucket_counts(offsets, n, ranks), expected_counts);
      for (std::size_t j = 0; j < n; ++j) {
        ASSERT_EQ(split[j], keys[where[j]]);
        if (j > 0 && owner_of(split[j], ranks) == owner_of(split[j - 1], ranks)) {
          ASSERT_LT(where[j - 1], where[j]) << "not stable at " << j;
        } else if (j > 0) {
          ASSERT_LT(owner_of(split[j - 1], ranks), owner_of(split[j], ranks));
        }
      }
      // The values follow (gather), and results go back to the caller's order (scatter).
      std::vector<std::uint32_t> values(n);
      for (std::size_t i = 0; i < n; ++i) { values[i] = static_cast<std::uint32_t>(i * 3 + 1); }
      const auto values_in = make_buffer_from<std::uint32_t>(on, values);
      auto gathered = make_buffer<std::uint32_t>(on, n);
      distributed::detail::gather(on, values_in.span(), positions.span(), gathered.span());
      const auto gathered_values = gathered.to_vector();
      for (std::size_t j = 0; j < n; ++j) { ASSERT_EQ(gathered_values[j], values[where[j]]); }
      std::vector<hash::operation_status> statuses(n);
      for (std::size_t j = 0; j < n; ++j) {
        statuses[j] = j % 3 == 0 ? hash::operation_status::found : hash::operation_status::not_found;
      }
      const auto statuses_split = make_buffer_from<hash::operation_status>(on, statuses);
      auto statuses_back = make_filled_buffer<hash::operation_status>(on, n, hash::operation_status::inserted);
      distributed::detail::scatter(on, statuses_split.span(), positions.span(), statuses_back.span());
      auto values_back = make_filled_buffer<std::uint32_t>(on, n, 0xdeadbeefU);
      distributed::detail::scatter_found(on, gathered.span(), statuses_split.span(), positions.span(),
                                         values_back.span());
      const auto status_result = statuses_back.to_vector();
      const auto value_result = values_back.to_vector();
      for (std::size_t j = 0; j < n; ++j) {
        ASSERT_EQ(status_result[where[j]], statuses[j]);
        ASSERT_EQ(value_result[where[j]], j % 3 == 0 ? values[where[j]] : 0xdeadbeefU);
      }
    }
  }
}

TYPED_TEST(distributed_split_test, ReservedKeysAreCountedLast)
{
  const auto& on = this->backend();
  const std::vector<std::uint32_t> keys{5, hash::empty_key, 9, hash::erased_key, 1};
  const auto keys_in = make_buffer_from<std::uint32_t>(on, keys);
  auto keys_out = make_buffer<std::uint32_t>(on, keys.size());
  auto positions = make_buffer<std::uint32_t>(on, keys.size());
  const auto offsets =
      distributed::detail::split_by_owner(on, keys_in.span(), keys_out.span(), positions.span(), owner_buckets{2});
  EXPECT_EQ(keys.size() - offsets[2], 2U);
  const auto split = keys_out.to_vector();
  EXPECT_EQ(split[3], hash::empty_key);
  EXPECT_EQ(split[4], hash::erased_key);
}

class distributed_bootstrap : public ::testing::Test {
 protected:
  void SetUp() override
  {
    path_ = (std::filesystem::temp_directory_path() /
             ("warpdex_unique_id_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove(path_);
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(distributed_bootstrap, AWaitingReaderGetsTheIdWrittenLater)
{
  unique_id id;
  for (std::size_t i = 0; i < unique_id::size; ++i) { id.bytes[i] = static_cast<char>(i * 7 + 1); }
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    write_unique_id(path_, id);
  });
  const unique_id read = read_unique_id(path_, std::chrono::seconds(10));
  writer.join();
  EXPECT_EQ(read.bytes, id.bytes);
  EXPECT_FALSE(std::filesystem::exists(path_ + ".tmp"));
}

TEST_F(distributed_bootstrap, MissingOrMalformedFilesAreErrors)
{
  expect_error_mentioning<error>([&] { (void)read_unique_id(path_, std::chrono::milliseconds(20)); },
                                 {"did not appear within 20 ms", "rank 0"});
  std::ofstream(path_) << "short";
  expect_error_mentioning<error>([&] { (void)read_unique_id(path_, std::chrono::milliseconds(20)); },
                                 {"holds 5 bytes", "128"});
  expect_error_mentioning<error>([] { write_unique_id("/nonexistent-folder/id", unique_id{}); }, {"cannot create"});
}

}  // namespace
}  // namespace warpdex::testing
