#pragma once
// What the dpp family's Thrust implementations share (duplicates_impl.hpp, external_faces_impl.hpp).

#include <warpdex/core/config.hpp>
#include <warpdex/core/error.hpp>

#include <cstdint>
#include <new>
#include <string>

namespace warpdex::dpp::detail {

/// Runs `action`, reporting exhausted memory (ours, or Thrust's own) as warpdex::out_of_memory.
template <class Action>
decltype(auto) reporting_allocation_failure(const char* operation, Action&& action)
{
  try {
    return action();
  } catch (const std::bad_alloc& failure) {
    throw out_of_memory(std::string("dpp::") + operation + ": out of memory: " + failure.what());
  }
}

/// A flag that is set (stencil of the compactions).
struct is_set {
  WARPDEX_HOST_DEVICE bool operator()(std::uint8_t flag) const { return flag != 0; }
};

}  // namespace warpdex::dpp::detail
