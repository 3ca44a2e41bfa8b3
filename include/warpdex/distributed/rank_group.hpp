#pragma once
/// @file What the distributed structures need from the ranks they span: a *rank group*. Two kinds exist:
/// `communicator` (communicator.hpp: NCCL, GPUs of one or several processes and nodes) and `loopback_group`
/// (loopback_group.hpp: several ranks emulated in one process on one backend, for tests and for machines
/// without NCCL). A process holds one or more of the group's ranks, its *local* ranks, numbered 0 ..
/// local_count() - 1; every collective takes one contribution per local rank and is entered by every
/// process of the group with the same sequence of collectives (as NCCL requires).
///
/// A rank group G provides:
/// - `G::backend_type`: the backend of every rank (`host` or `cuda`);
/// - `rank_count()`, `local_count()`, `rank(local)` (the global rank of a local rank), `backend(local)`;
/// - `for_each_local(function)`: calls function(local) for every local rank, with that rank's GPU current
///   (concurrently when one process drives several GPUs); the first exception is rethrown after all return;
/// - `all_reduce_sum(contributions)`: contributions[local] (equal lengths on every rank); returns the
///   element-wise sum over all ranks;
/// - `all_gather(contributions)`: returns every rank's contribution, rank after rank (equal lengths);
/// - `all_to_all(buffers, element_bytes)`: buffers[local] sends and receives variable-size buckets as its
///   exchange_layout says (exchange_layout.hpp), elements of `element_bytes` bytes in the rank's memory.

#include <warpdex/distributed/exchange_layout.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace warpdex::distributed {

/// One local rank's part of an all-to-all exchange: buffers in the rank's memory (device memory of its GPU
/// for cuda), sized by `layout` (total_sent() and total_received() elements).
struct all_to_all_buffers {
  const void* send = nullptr;
  void* receive = nullptr;
  const exchange_layout* layout = nullptr;
};

/// The requirements above, as a concept.
template <class Group>
concept rank_group = requires(Group& group, const std::vector<std::vector<std::uint64_t>>& contributions,
                              std::span<const all_to_all_buffers> buffers, std::uint32_t local)
{
  typename Group::backend_type;
  {
    group.rank_count()
    } -> std::convertible_to<std::uint32_t>;
  {
    group.local_count()
    } -> std::convertible_to<std::uint32_t>;
  {
    group.rank(local)
    } -> std::convertible_to<std::uint32_t>;
  {
    group.backend(local)
    } -> std::convertible_to<typename Group::backend_type>;
  {
    group.all_reduce_sum(contributions)
    } -> std::same_as<std::vector<std::uint64_t>>;
  {
    group.all_gather(contributions)
    } -> std::same_as<std::vector<std::uint64_t>>;
  group.all_to_all(buffers, std::size_t{4});
};

namespace detail {
/// Throws warpdex::error unless there is one contribution per local rank, all of one length.
inline void check_contributions(const std::vector<std::vector<std::uint64_t>>& contributions, std::uint32_t local_count,
                                const char* collective)
{
  WARPDEX_EXPECTS(contributions.size() == local_count,
                  std::string(collective) + ": " + std::to_string(contributions.size()) + " contributions for " +
                      std::to_string(local_count) + " local ranks");
  for (const auto& contribution : contributions) {
    WARPDEX_EXPECTS(contribution.size() == contributions.front().size(),
                    std::string(collective) + ": the local ranks' contributions differ in length");
  }
}
}  // namespace detail

}  // namespace warpdex::distributed
