#pragma once
/// @file The arithmetic of an all-to-all exchange of variable-size buckets, on the host: from the
/// multisplit's bucket offsets to the counts a rank sends, and from every rank's counts (gathered) to where
/// each rank's data lands. Pure functions, the same for every transport (NCCL, the in-process loopback).

#include <warpdex/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace warpdex::distributed {

/// The exclusive prefix sums of `counts`, with the total appended: counts.size() + 1 values.
[[nodiscard]] inline std::vector<std::uint64_t> exclusive_offsets(std::span<const std::uint64_t> counts)
{
  std::vector<std::uint64_t> offsets(counts.size() + 1, 0);
  for (std::size_t i = 0; i < counts.size(); ++i) { offsets[i + 1] = offsets[i] + counts[i]; }
  return offsets;
}

/// The sizes of the first `ranks` buckets of a multisplit of `n` keys that returned `bucket_offsets`
/// (bucket b starts at bucket_offsets[b]; the last bucket ends at n). Throws warpdex::error when the offsets
/// are fewer than `ranks`, decrease, or pass n.
[[nodiscard]] inline std::vector<std::uint64_t> bucket_counts(std::span<const std::uint64_t> bucket_offsets,
                                                              std::uint64_t n, std::uint32_t ranks)
{
  WARPDEX_EXPECTS(bucket_offsets.size() >= ranks, "bucket_counts: " + std::to_string(bucket_offsets.size()) +
                                                      " bucket offsets for " + std::to_string(ranks) + " ranks");
  std::vector<std::uint64_t> counts(ranks);
  for (std::uint32_t b = 0; b < ranks; ++b) {
    const std::uint64_t end = b + 1 < bucket_offsets.size() ? bucket_offsets[b + 1] : n;
    WARPDEX_EXPECTS(bucket_offsets[b] <= end && end <= n, "bucket_counts: bucket offsets out of order or past n");
    counts[b] = end - bucket_offsets[b];
  }
  return counts;
}

/// One rank's side of an all-to-all exchange. Data for peer p leaves from [send_offsets[p], send_offsets[p + 1])
/// of the send buffer; data from peer p arrives at [receive_offsets[p], receive_offsets[p + 1]) of the receive
/// buffer, in the order p sent it (so the receive buffer holds the senders' buckets in rank order).
struct exchange_layout {
  std::vector<std::uint64_t> send_counts;      ///< per peer
  std::vector<std::uint64_t> send_offsets;     ///< per peer, plus the total
  std::vector<std::uint64_t> receive_counts;   ///< per peer
  std::vector<std::uint64_t> receive_offsets;  ///< per peer, plus the total

  [[nodiscard]] std::uint64_t total_sent() const { return send_offsets.back(); }
  [[nodiscard]] std::uint64_t total_received() const { return receive_offsets.back(); }
  /// The exchange that sends every received element back where it came from (the results of a batch).
  [[nodiscard]] exchange_layout reversed() const
  {
    return {receive_counts, receive_offsets, send_counts, send_offsets};
  }
};

/// The layout of `rank` from every rank's send counts, gathered rank-major: rank s's count for peer p is
/// gathered[s * row_width + p] (row_width >= ranks leaves room for other words in each row, e.g. a status).
/// Throws warpdex::error when `gathered` is shorter than ranks * row_width or rank >= ranks.
[[nodiscard]] inline exchange_layout layout_of_rank(std::uint32_t rank, std::uint32_t ranks,
                                                    std::span<const std::uint64_t> gathered, std::size_t row_width)
{
  WARPDEX_EXPECTS(rank < ranks && row_width >= ranks && gathered.size() >= std::size_t{ranks} * row_width,
                  "layout_of_rank: rank " + std::to_string(rank) + " of " + std::to_string(ranks) + ", " +
                      std::to_string(gathered.size()) + " gathered counts in rows of " + std::to_string(row_width));
  exchange_layout layout;
  layout.send_counts.assign(gathered.begin() + std::size_t{rank} * row_width,
                            gathered.begin() + std::size_t{rank} * row_width + ranks);
  layout.receive_counts.resize(ranks);
  for (std::uint32_t sender = 0; sender < ranks; ++sender) {
    layout.receive_counts[sender] = gathered[std::size_t{sender} * row_width + rank];
  }
  layout.send_offsets = exclusive_offsets(layout.send_counts);
  layout.receive_offsets = exclusive_offsets(layout.receive_counts);
  return layout;
}

}  // namespace warpdex::distributed
