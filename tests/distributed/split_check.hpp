#pragma once
// Randomized distributed multisplits and sorts over any rank group, each checked against the single-device
// result on the concatenation of every rank's input (std::stable_sort by bucket, std::sort): a process checks its
// own ranks' parts against their slice of the global result, and, holding every rank, that the parts cover it.

#include "distributed/distributed_test_support.hpp"

#include <warpdex/distributed/distributed_split.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace warpdex::testing {

/// Every rank's keys, drawn from one seed (so every process of a group draws the same): rank r holds
/// sizes[r % sizes.size()] keys, uniform in [low, high].
inline std::vector<std::vector<std::uint32_t>> draw_rank_keys(std::uint32_t ranks,
                                                              const std::vector<std::size_t>& sizes, std::uint32_t low,
                                                              std::uint32_t high, std::uint64_t seed)
{
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<std::uint32_t> key(low, high);
  std::vector<std::vector<std::uint32_t>> keys(ranks);
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    keys[rank].resize(sizes[rank % sizes.size()]);
    for (auto& value : keys[rank]) { value = key(generator); }
  }
  return keys;
}

/// The local ranks' inputs of a group, out of every rank's.
template <class Group>
std::vector<std::vector<std::uint32_t>> local_inputs(const Group& group,
                                                     const std::vector<std::vector<std::uint32_t>>& every_rank)
{
  std::vector<std::vector<std::uint32_t>> local;
  for (std::uint32_t index = 0; index < group.local_count(); ++index) {
    local.push_back(every_rank[group.rank(index)]);
  }
  return local;
}

/// The parts read back, each on its own rank (and freed there).
template <class Group>
std::vector<std::vector<std::uint32_t>> read_parts(Group& group, std::vector<distributed::rank_part>& parts)
{
  std::vector<std::vector<std::uint32_t>> keys(parts.size());
  group.for_each_local([&](std::uint32_t local) {
    keys[local] = parts[local].keys.to_vector();
    parts[local].keys = {};
  });
  return keys;
}

/// Checks the local parts against the global result `expected`; `bucket_starts` (m + 1 entries) says where each
/// bucket of it starts, `first_bucket` (ranks + 1) the ranges the ranks must hold (empty: not checked).
template <class Group>
void check_parts(Group& group, std::vector<distributed::rank_part>& parts, const std::vector<std::uint32_t>& expected,
                 const std::vector<std::uint64_t>& bucket_starts, const std::vector<std::uint32_t>& first_bucket)
{
  ASSERT_EQ(parts.size(), group.local_count());
  const auto keys = read_parts(group, parts);
  std::uint64_t covered = 0;
  for (std::uint32_t local = 0; local < group.local_count(); ++local) {
    const std::uint32_t rank = group.rank(local);
    SCOPED_TRACE("rank " + std::to_string(rank));
    const auto& part = parts[local];
    ASSERT_LE(part.global_offset + keys[local].size(), expected.size());
    const auto slice = expected.begin() + static_cast<std::ptrdiff_t>(part.global_offset);
    EXPECT_TRUE(std::equal(keys[local].begin(), keys[local].end(), slice)) << "not the global result's slice";
    ASSERT_FALSE(part.bucket_offsets.empty());
    EXPECT_EQ(part.bucket_offsets.front(), 0U);
    EXPECT_EQ(part.bucket_offsets.back(), keys[local].size());
    if (!first_bucket.empty()) {
      EXPECT_EQ(part.first_bucket, first_bucket[rank]);
      EXPECT_EQ(part.bucket_offsets.size() - 1, first_bucket[rank + 1] - first_bucket[rank]);
    }
    if (!bucket_starts.empty()) {
      for (std::size_t i = 0; i < part.bucket_offsets.size(); ++i) {
        ASSERT_LT(part.first_bucket + i, bucket_starts.size());
        EXPECT_EQ(part.global_offset + part.bucket_offsets[i], bucket_starts[part.first_bucket + i]) << "bucket " << i;
      }
    }
    if (local > 0 && group.rank(local - 1) + 1 == rank) {  // neighbours: contiguous, in rank order
      EXPECT_EQ(parts[local - 1].global_offset + keys[local - 1].size(), part.global_offset);
      EXPECT_EQ(parts[local - 1].first_bucket + parts[local - 1].bucket_offsets.size() - 1, part.first_bucket);
    }
    covered += keys[local].size();
  }
  if (group.local_count() == group.rank_count()) { EXPECT_EQ(covered, expected.size()) << "keys lost or added"; }
}

/// One distributed multisplit of `every_rank`'s keys (identifier_of(local) gives a local rank's identifier; host
/// is the same identifier readable on the host), checked against the stable multisplit of the concatenation.
template <class Group, class Identifier, class HostIdentifier>
void check_multisplit(Group& group, const std::vector<std::vector<std::uint32_t>>& every_rank,
                      const Identifier& identifier, const HostIdentifier& host_identifier,
                      const distributed::bucket_ranges& ranges)
{
  std::vector<std::uint32_t> expected;
  for (const auto& keys : every_rank) { expected.insert(expected.end(), keys.begin(), keys.end()); }
  std::stable_sort(expected.begin(), expected.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return host_identifier(a) < host_identifier(b); });
  const std::uint32_t buckets = host_identifier.bucket_count();
  std::vector<std::uint64_t> bucket_starts(buckets + 1, 0), totals(buckets, 0);
  for (const std::uint32_t key : expected) { ++totals[host_identifier(key)]; }
  for (std::uint32_t b = 0; b < buckets; ++b) { bucket_starts[b + 1] = bucket_starts[b] + totals[b]; }
  const auto first_bucket = ranges.first_bucket.empty()
                                ? distributed::bucket_ranges::balanced(totals, group.rank_count()).first_bucket
                                : ranges.first_bucket;
  per_rank_buffers<std::uint32_t, Group> keys(group, local_inputs(group, every_rank));
  distributed::call_phases phases;
  auto parts = distributed::multisplit(group, keys.in(), identifier, ranges, &phases);
  EXPECT_GE(phases.total_ms(), 0.0);
  check_parts(group, parts, expected, bucket_starts, first_bucket);
  EXPECT_EQ(keys.read(group), local_inputs(group, every_rank)) << "the input changed";
}

/// One distributed sort, checked against std::sort of the concatenation; returns the largest part over the mean
/// (1 when perfectly balanced), for a group whose ranks are all local (else 0).
template <class Group>
double check_sort(Group& group, const std::vector<std::vector<std::uint32_t>>& every_rank,
                  const distributed::sort_options& options = {})
{
  std::vector<std::uint32_t> expected;
  for (const auto& keys : every_rank) { expected.insert(expected.end(), keys.begin(), keys.end()); }
  std::sort(expected.begin(), expected.end());
  per_rank_buffers<std::uint32_t, Group> keys(group, local_inputs(group, every_rank));
  auto parts = distributed::sort(group, keys.in(), options);
  std::uint64_t largest = 0;
  for (const auto& part : parts) {
    largest = std::max<std::uint64_t>(largest, part.keys.size());
    EXPECT_LE(part.bucket_offsets.size(), 2U) << "a sorted rank holds one range or none";
  }
  check_parts(group, parts, expected, {}, {});
  if (group.local_count() != group.rank_count() || expected.empty()) { return 0; }
  return static_cast<double>(largest) * group.rank_count() / static_cast<double>(expected.size());
}

/// A distributed multisplit (ranges balanced, then even) and sort (distinct-ish keys, then every key equal) of
/// uneven random inputs (one rank empty), checked: what the communicator's suite runs on any number of GPUs.
template <class Group>
void run_checked_split_and_sort(Group& group, std::uint64_t seed, std::size_t per_rank = 3000)
{
  const std::uint32_t ranks = group.rank_count();
  const auto keys = draw_rank_keys(ranks, {per_rank, per_rank / 3, 0, per_rank}, 0, ~0U, seed);
  const bit_field_buckets top_byte{24, 8};
  check_multisplit(group, keys, top_byte, top_byte, {});
  check_multisplit(group, keys, top_byte, top_byte, distributed::bucket_ranges::even(256, ranks));
  check_sort(group, keys);
  check_sort(group, draw_rank_keys(ranks, {per_rank}, 5, 5, seed + 1));
}

}  // namespace warpdex::testing
