#pragma once
// A rank group of one rank per thread, on the host backend: each thread stands for a process holding one rank
// (as with one process per GPU over NCCL), so a rank sees only its own failure and must learn of the others'
// through the collectives. A collective that some rank never enters fails after a timeout instead of hanging.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/distributed/rank_group.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace warpdex::testing {

/// Where the threads of a threaded_group meet: every collective deposits one pointer per rank, waits for all,
/// reads the others', and waits again before the deposits go out of scope.
class rendezvous {
 public:
  explicit rendezvous(std::uint32_t ranks) : slots_(ranks, nullptr) {}
  [[nodiscard]] std::uint32_t ranks() const { return static_cast<std::uint32_t>(slots_.size()); }

  template <class Read>
  void meet(std::uint32_t rank, const void* deposit, Read&& read)
  {
    slots_[rank] = deposit;
    wait(rank);
    read(slots_);
    wait(rank);
  }

 private:
  void wait(std::uint32_t rank)
  {
    std::unique_lock lock(mutex_);
    const std::uint64_t generation = generation_;
    if (++arrived_ == slots_.size()) {
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
      return;
    }
    if (!changed_.wait_for(lock, std::chrono::seconds(20), [&] { return generation_ != generation; })) {
      throw error("threaded_group: rank " + std::to_string(rank) +
                  " waited 20 s in a collective that another rank never entered");
    }
  }

  std::vector<const void*> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t arrived_ = 0;
  std::uint64_t generation_ = 0;
};

class threaded_group {
 public:
  using backend_type = host;
  threaded_group(rendezvous& meeting, std::uint32_t rank) : meeting_(meeting), rank_(rank) {}

  [[nodiscard]] std::uint32_t rank_count() const { return meeting_.ranks(); }
  [[nodiscard]] std::uint32_t local_count() const { return 1; }
  [[nodiscard]] std::uint32_t rank(std::uint32_t /*local*/) const { return rank_; }
  [[nodiscard]] host backend(std::uint32_t /*local*/) const { return {}; }
  template <class Function>
  void for_each_local(Function&& function) const
  {
    function(0U);
  }

  [[nodiscard]] std::vector<std::uint64_t> all_reduce_sum(
      const std::vector<std::vector<std::uint64_t>>& contributions) const
  {
    distributed::detail::check_contributions(contributions, 1, "threaded_group::all_reduce_sum");
    std::vector<std::uint64_t> sum(contributions[0].size(), 0);
    meeting_.meet(rank_, &contributions[0], [&](const std::vector<const void*>& slots) {
      for (const void* slot : slots) {
        const auto& other = *static_cast<const std::vector<std::uint64_t>*>(slot);
        for (std::size_t i = 0; i < sum.size(); ++i) { sum[i] += other.at(i); }
      }
    });
    return sum;
  }

  [[nodiscard]] std::vector<std::uint64_t> all_gather(
      const std::vector<std::vector<std::uint64_t>>& contributions) const
  {
    distributed::detail::check_contributions(contributions, 1, "threaded_group::all_gather");
    std::vector<std::uint64_t> gathered;
    meeting_.meet(rank_, &contributions[0], [&](const std::vector<const void*>& slots) {
      for (const void* slot : slots) {
        const auto& other = *static_cast<const std::vector<std::uint64_t>*>(slot);
        gathered.insert(gathered.end(), other.begin(), other.end());
      }
    });
    return gathered;
  }

  /// Each rank copies what every sender has for it into its receive buffer.
  void all_to_all(std::span<const distributed::all_to_all_buffers> buffers, std::size_t element_bytes) const
  {
    WARPDEX_EXPECTS(buffers.size() == 1, "threaded_group::all_to_all: one buffer per rank");
    const distributed::all_to_all_buffers& mine = buffers[0];
    meeting_.meet(rank_, &mine, [&](const std::vector<const void*>& slots) {
      for (std::uint32_t sender = 0; sender < slots.size(); ++sender) {
        const auto& from = *static_cast<const distributed::all_to_all_buffers*>(slots[sender]);
        const std::uint64_t count = mine.layout->receive_counts[sender];
        WARPDEX_EXPECTS(from.layout->send_counts[rank_] == count, "threaded_group::all_to_all: counts differ");
        if (count == 0) { continue; }  // an empty rank's buffers may be null, which memcpy may not be given
        std::memcpy(static_cast<std::byte*>(mine.receive) + mine.layout->receive_offsets[sender] * element_bytes,
                    static_cast<const std::byte*>(from.send) + from.layout->send_offsets[rank_] * element_bytes,
                    count * element_bytes);
      }
    });
  }

 private:
  rendezvous& meeting_;
  std::uint32_t rank_;
};

/// Runs work(group) on `ranks` threads, one rank each; returns what each rank threw (null: nothing).
inline std::vector<std::exception_ptr> run_threaded_ranks(std::uint32_t ranks,
                                                          const std::function<void(threaded_group&)>& work)
{
  rendezvous meeting(ranks);
  std::vector<std::exception_ptr> thrown(ranks);
  std::vector<std::thread> threads;
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    threads.emplace_back([&, rank] {
      threaded_group group(meeting, rank);
      try {
        work(group);
      } catch (...) {
        thrown[rank] = std::current_exception();
      }
    });
  }
  for (auto& thread : threads) { thread.join(); }
  return thrown;
}

}  // namespace warpdex::testing
