// distributed_slab_map over the in-process loopback group: 1, 2, 3 and 5 ranks on the host backend, and on
// the cuda backend with every rank on one GPU (skipped without one). The whole protocol runs (split by owner,
// the exchanges, the un-permutation, the agreement on failures); only the transport is a copy instead of NCCL.

#include "distributed/distributed_test_support.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/distributed/detail/rank_failures.hpp>
#include <warpdex/distributed/distributed_slab_map.hpp>
#include <warpdex/distributed/loopback_group.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace warpdex::testing {
namespace {

using distributed::distributed_slab_map;
using distributed::loopback_group;
using hash::operation;
using hash::operation_status;

template <class Backend>
class distributed_slab_map_test : public backend_test<Backend> {
 protected:
  using group_type = loopback_group<Backend>;
  using map_type = distributed_slab_map<group_type>;

  void run_workload(std::uint32_t ranks, std::uint64_t seed)
  {
    SCOPED_TRACE("ranks " + std::to_string(ranks) + ", seed " + std::to_string(seed));
    group_type group(ranks, this->backend());
    run_checked_workload(group, seed);
  }
};
TYPED_TEST_SUITE(distributed_slab_map_test, all_backends, backend_names);

TYPED_TEST(distributed_slab_map_test, RandomCallsMatchOneConcurrentBatch)
{
  for (const std::uint32_t ranks : {1U, 2U, 3U, 5U}) {
    this->run_workload(ranks, 7);
    if (this->HasFatalFailure()) { return; }
  }
  this->run_workload(4, std::random_device{}());
}

TYPED_TEST(distributed_slab_map_test, WithoutStatusesEveryKeyIsFoundAfterwards)
{
  using group_type = typename TestFixture::group_type;
  group_type group(3, this->backend());
  typename TestFixture::map_type map(group, 10000);
  const auto batches = make_random_batches(3, 4000, 1U << 30, 11);  // keys almost all distinct
  per_rank_buffers<std::uint32_t, group_type> keys(group, batches.keys);
  per_rank_buffers<std::uint32_t, group_type> values(group, batches.values);
  map.insert(keys.in(), values.in());
  per_rank_buffers<std::uint32_t, group_type> found(group, sizes_of(batches.keys), poison_value);
  per_rank_buffers<operation_status, group_type> statuses(group, sizes_of(batches.keys), operation_status::inserted);
  map.find(keys.in(), found.out(), statuses.out());
  const auto found_values = found.read(group);
  const auto found_statuses = statuses.read(group);
  std::map<std::uint32_t, std::vector<std::uint32_t>> values_of_key;
  for (std::size_t rank = 0; rank < 3; ++rank) {
    for (std::size_t i = 0; i < batches.keys[rank].size(); ++i) {
      values_of_key[batches.keys[rank][i]].push_back(batches.values[rank][i]);
    }
  }
  for (std::size_t rank = 0; rank < 3; ++rank) {
    for (std::size_t i = 0; i < batches.keys[rank].size(); ++i) {
      ASSERT_EQ(found_statuses[rank][i], operation_status::found) << "key " << batches.keys[rank][i] << " lost";
      const auto& candidates = values_of_key[batches.keys[rank][i]];
      EXPECT_NE(std::find(candidates.begin(), candidates.end(), found_values[rank][i]), candidates.end());
    }
  }
  EXPECT_EQ(map.size(), values_of_key.size());
  map.erase(keys.in());
  EXPECT_EQ(map.size(), 0U);
}

TYPED_TEST(distributed_slab_map_test, AReservedKeyOnOneRankFailsTheCallOnEveryRankChangingNothing)
{
  using group_type = typename TestFixture::group_type;
  group_type group(3, this->backend());
  typename TestFixture::map_type map(group, 100);
  std::vector<std::vector<std::uint32_t>> keys_in{{1, 2, 3}, {4, 5}, {6, hash::empty_key, 7, hash::erased_key}};
  std::vector<std::vector<std::uint32_t>> values_in{{1, 2, 3}, {4, 5}, {6, 0, 7, 0}};
  per_rank_buffers<std::uint32_t, group_type> keys(group, keys_in);
  per_rank_buffers<std::uint32_t, group_type> values(group, values_in);
  expect_error_mentioning<error>([&] { map.insert(keys.in(), values.in()); },
                                 {"distributed_slab_map::insert", "2 of the 4 keys are reserved", "max_user_key"});
  EXPECT_EQ(map.size(), 0U);
}

TYPED_TEST(distributed_slab_map_test, MismatchedSpansAreRejectedOnEveryRank)
{
  using group_type = typename TestFixture::group_type;
  group_type group(2, this->backend());
  typename TestFixture::map_type map(group, 100);
  per_rank_buffers<std::uint32_t, group_type> keys(group, {{1, 2, 3}, {4, 5}});
  per_rank_buffers<std::uint32_t, group_type> values(group, {{1, 2, 3}, {4}});
  expect_error_mentioning<error>([&] { map.insert(keys.in(), values.in()); },
                                 {"distributed_slab_map::insert", "values holds 1 elements for 2 keys"});
  auto only_one = keys.in();
  only_one.pop_back();
  expect_error_mentioning<error>([&] { map.erase(only_one); }, {"keys has 1 spans for 2 local ranks"});
  expect_error_mentioning<error>([&] { map.erase(keys.in()[0]); }, {"this process holds 2 ranks"});
  EXPECT_EQ(map.size(), 0U);
}

TYPED_TEST(distributed_slab_map_test, AnInvalidOperationOnOneRankFailsTheMixedBatchOnEveryRank)
{
  using group_type = typename TestFixture::group_type;
  group_type group(2, this->backend());
  typename TestFixture::map_type map(group, 100);
  per_rank_buffers<std::uint32_t, group_type> keys(group, {{1, 2, 3}, {4, 5}});
  per_rank_buffers<std::uint32_t, group_type> values(group, {{1, 2, 3}, {4, 5}});
  per_rank_buffers<operation, group_type> operations(
      group, {{operation::insert, operation::insert, operation::insert}, {operation::insert, operation{7}}});
  per_rank_buffers<std::uint32_t, group_type> found(group, {3, 2}, poison_value);
  per_rank_buffers<operation_status, group_type> statuses(group, {3, 2}, operation_status::found);
  expect_error_mentioning<error>(
      [&] { map.execute(operations.in(), keys.in(), values.in(), found.out(), statuses.out()); },
      {"distributed_slab_map::execute", "1 of the 2 operations are not operation codes (0-3)"});
  EXPECT_EQ(map.size(), 0U);
}

TYPED_TEST(distributed_slab_map_test, ExhaustedMemoryOnOneRankIsReportedToEveryRank)
{
  using group_type = typename TestFixture::group_type;
  constexpr std::uint32_t ranks = 3;
  group_type group(ranks, this->backend());
  // One bucket, no pool, no growth: each rank holds one slab of pairs.
  hash::slab_capacity tiny;
  tiny.bucket_count = 1;
  tiny.pool_slabs = 0;
  tiny.grows = false;
  typename TestFixture::map_type map(group, tiny);
  const std::uint32_t slab_pairs = TestFixture::map_type::local_map_type::pairs_per_slab;
  // Rank 2 receives far more than a slab; ranks 0 and 1 one key each. Every rank sends some.
  std::vector<std::vector<std::uint32_t>> keys_in(ranks), values_in(ranks);
  std::uint32_t for_rank_2 = 0;
  bool sent_to[2] = {false, false};
  for (std::uint32_t key = 0; for_rank_2 < 4 * slab_pairs || !sent_to[0] || !sent_to[1]; ++key) {
    const std::uint32_t owner = map.owner(key);
    if (owner == 2 && for_rank_2 < 4 * slab_pairs) {
      keys_in[for_rank_2 % ranks].push_back(key);
      ++for_rank_2;
    } else if (owner < 2 && !sent_to[owner]) {
      keys_in[owner].push_back(key);
      sent_to[owner] = true;
    } else {
      continue;
    }
  }
  for (std::uint32_t rank = 0; rank < ranks; ++rank) { values_in[rank] = keys_in[rank]; }
  per_rank_buffers<std::uint32_t, group_type> keys(group, keys_in);
  per_rank_buffers<std::uint32_t, group_type> values(group, values_in);
  // With statuses: per element, no throw; exactly a slab's worth fit on rank 2.
  per_rank_buffers<operation_status, group_type> statuses(group, sizes_of(keys_in), operation_status::found);
  map.insert(keys.in(), values.in(), statuses.out());
  std::uint64_t inserted = 0, exhausted = 0;
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    const auto rank_statuses = statuses.read(group)[rank];
    for (std::size_t i = 0; i < keys_in[rank].size(); ++i) {
      const operation_status status = rank_statuses[i];
      ASSERT_TRUE(status == operation_status::inserted || status == operation_status::out_of_memory);
      if (map.owner(keys_in[rank][i]) != 2) { EXPECT_EQ(status, operation_status::inserted); }
      (status == operation_status::inserted ? inserted : exhausted) += 1;
    }
  }
  EXPECT_EQ(inserted, slab_pairs + 2);
  EXPECT_EQ(exhausted, 3 * slab_pairs);
  EXPECT_EQ(map.size(), slab_pairs + 2);
  // Without statuses: warpdex::out_of_memory on every rank, after the batch (the part that fit is inserted).
  typename TestFixture::map_type fresh(group, tiny);
  EXPECT_THROW(fresh.insert(keys.in(), values.in()), out_of_memory);
  EXPECT_EQ(fresh.size(), slab_pairs + 2);
}

TEST(distributed_failures, AFailureOfAnotherProcessIsNamedOnEveryRank)
{
  struct no_local_failure {
    std::exception_ptr failure;
  };
  std::vector<no_local_failure> works(1);
  expect_error_mentioning<out_of_memory>(
      [&] {
        distributed::detail::raise_failures({0, 2, 0, 1}, works, "distributed_slab_map::find");
      },
      {"distributed_slab_map::find: rank 1, 3 of 4 ran out of memory", "abandoned on every rank"});
  expect_error_mentioning<error>(
      [&] {
        distributed::detail::raise_failures({1, 0}, works, "x");
      },
      {"x: rank 0 of 2 failed"});
  EXPECT_NO_THROW(distributed::detail::raise_failures({0, 0}, works, "x"));
}

TEST(distributed_failures, ALocalRanksOwnErrorIsRethrown)
{
  struct local_failure {
    std::exception_ptr failure;
  };
  std::vector<local_failure> works(2);
  works[1].failure = std::make_exception_ptr(out_of_memory("the pool of rank 1 is full"));
  expect_error_mentioning<out_of_memory>(
      [&] {
        distributed::detail::raise_failures({0, 2}, works, "x");
      },
      {"the pool of rank 1 is full"});
}

}  // namespace
}  // namespace warpdex::testing
