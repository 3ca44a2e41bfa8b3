#pragma once
// How the ranks of a distributed call agree on failures: each rank catches what its own step throws, every
// rank learns through a collective which ranks failed, and all throw together, so that none is left waiting in a
// collective that another has left.

#include <warpdex/core/error.hpp>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace warpdex::distributed::detail {

/// What a rank reports of its part of a step: nothing wrong, an error, or exhausted memory.
enum class rank_failure : std::uint64_t { none = 0, error = 1, out_of_memory = 2 };

/// Runs `step`, recording what it throws instead of letting it leave the rank (so the rank still enters
/// the collective where every rank learns of it).
template <class Work, class Step>
void guarded(Work& work, Step&& step)
{
  if (work.failure) { return; }
  try {
    step();
  } catch (const out_of_memory&) {
    work.failure = std::current_exception();
    work.failure_kind = rank_failure::out_of_memory;
  } catch (...) {
    work.failure = std::current_exception();
    work.failure_kind = rank_failure::error;
  }
}

/// Given every rank's failure word (indexed by rank), throws on this process when any rank failed: a local
/// rank's own exception first, else an error (warpdex::out_of_memory when a rank ran out of memory) naming them.
template <class Work>
void raise_failures(const std::vector<std::uint64_t>& failure_words, std::vector<Work>& works, const char* name)
{
  std::string failed;
  bool memory = false;
  for (std::size_t rank = 0; rank < failure_words.size(); ++rank) {
    if (failure_words[rank] == 0) { continue; }
    failed += (failed.empty() ? "" : ", ") + std::to_string(rank);
    memory = memory || failure_words[rank] == static_cast<std::uint64_t>(rank_failure::out_of_memory);
  }
  if (failed.empty()) { return; }
  for (auto& work : works) {
    if (work.failure) { std::rethrow_exception(work.failure); }
  }
  const std::string message = std::string(name) + ": rank " + failed + " of " + std::to_string(failure_words.size()) +
                              (memory ? " ran out of memory" : " failed") +
                              " (its own error says why); the call was abandoned on every rank";
  if (memory) { throw out_of_memory(message); }
  throw error(message);
}

/// Every rank learns which ranks failed so far (an all-reduce of one word per rank); all throw if any did.
template <class Group, class Work>
void agree_on_failures(Group& group, std::vector<Work>& works, const char* name)
{
  std::vector<std::vector<std::uint64_t>> contributions(group.local_count(),
                                                        std::vector<std::uint64_t>(group.rank_count(), 0));
  for (std::uint32_t local = 0; local < group.local_count(); ++local) {
    contributions[local][group.rank(local)] = static_cast<std::uint64_t>(works[local].failure_kind);
  }
  raise_failures(group.all_reduce_sum(contributions), works, name);
}

}  // namespace warpdex::distributed::detail
