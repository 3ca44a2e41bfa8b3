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
#include <string>
#include <vector>

namespace warpdex::distributed {

/// One local rank's part of an all-to-all exchange: buffers in the rank's memory (device memory of its GPU
/// for cuda), sized by `layout` (total_sent() and total_received() elements).
struct all_to_all_buffers {
  const void* send = nullptr;
  void* receive = nullptr;
  const exchange_layout* layout = nullptr;
};

/// Where the time of the last call went, measured on the host when asked for (distributed_slab_map::measure_phases, the
/// phases argument of the distributed multisplit and sort): each phase ends with every local rank's stream
/// synchronized, so the phases add up to the call.
struct call_phases {
  double split_ms = 0;     ///< the split by owner (or bucket), the counts' all-gather, the receive buffers
  double exchange_ms = 0;  ///< the all-to-all exchanges, out (keys, values) and back (results)
  double local_ms = 0;     ///< the owners' table operations (the multisplit's segment copy, the sort's radix sort)
  double finish_ms = 0;    ///< the scatter to the caller's order (none for the multisplit and sort)
  [[nodiscard]] double total_ms() const { return split_ms + exchange_ms + local_ms + finish_ms; }
};

/// One span per local rank, each in that rank's memory (device memory of its GPU for cuda).
template <class T>
using per_rank = std::vector<std::span<T>>;

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

/// Throws warpdex::error unless `spans` holds one span per local rank (or is empty when `optional`).
template <class Span>
void check_per_rank(const std::vector<Span>& spans, std::uint32_t local_count, bool optional, const char* name,
                    const char* what)
{
  WARPDEX_EXPECTS(spans.size() == local_count || (optional && spans.empty()),
                  std::string(name) + ": " + what + " has " + std::to_string(spans.size()) + " spans for " +
                      std::to_string(local_count) + " local ranks");
}
}  // namespace detail

}  // namespace warpdex::distributed
