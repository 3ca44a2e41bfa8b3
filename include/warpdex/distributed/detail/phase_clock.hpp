#pragma once
// The phase times of a distributed call (call_phases, rank_group.hpp), measured on the host.

#include <warpdex/distributed/rank_group.hpp>

#include <chrono>
#include <cstdint>

namespace warpdex::distributed::detail {

/// Times the phases of a call when `phases` is given: each phase ends with every local stream synchronized.
template <class Group>
class phase_clock {
 public:
  phase_clock(const Group& group, call_phases* phases) : group_(group), phases_(phases)
  {
    if (phases_ != nullptr) { *phases_ = {}; }
  }
  void end(double call_phases::*phase)
  {
    if (phases_ == nullptr) { return; }
    group_.for_each_local([&](std::uint32_t local) { group_.backend(local).synchronize(); });
    const auto now = std::chrono::steady_clock::now();
    phases_->*phase += std::chrono::duration<double, std::milli>(now - start_).count();
    start_ = now;
  }

 private:
  const Group& group_;
  call_phases* phases_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace warpdex::distributed::detail
