#pragma once
// The value reductions of group_by (include/warpdex/dpp/group_by.hpp), shared by the sort method's
// Thrust reduction (either backend) and the host's partitioned engine.

#include <warpdex/core/config.hpp>
#include <warpdex/dpp/group_by.hpp>

#include <type_traits>

namespace warpdex::dpp::detail {

/// a and b combined as `Reduction` says. Sums wrap around modulo 2^64 (two's complement for signed
/// values, with no undefined overflow), so every order of addition gives the same sum.
template <class Value, group_reduction Reduction>
struct reduce_values {
  WARPDEX_HOST_DEVICE Value operator()(Value a, Value b) const
  {
    if constexpr (Reduction == group_reduction::sum) {
      using unsigned_value = std::make_unsigned_t<Value>;
      return static_cast<Value>(static_cast<unsigned_value>(a) + static_cast<unsigned_value>(b));
    } else if constexpr (Reduction == group_reduction::min) {
      return b < a ? b : a;
    } else {
      return a < b ? b : a;
    }
  }
};

}  // namespace warpdex::dpp::detail
