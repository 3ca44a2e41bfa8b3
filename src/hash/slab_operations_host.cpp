// The host backend of find_operation (<warpdex/hash/detail/slab_table.hpp>): one parallel pass.
#include <warpdex/hash/detail/slab_table.hpp>

#include <warpdex/core/backend.hpp>

#include <algorithm>
#include <cstdint>

namespace warpdex::hash::detail {

template <class Backend>
std::uint64_t find_operation(const Backend&, const operation* operations, std::uint64_t count, operation code)
{
  std::uint64_t first = count;
#pragma omp parallel for reduction(min : first)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i) {
    const auto index = static_cast<std::uint64_t>(i);
    if (operations[index] == code) { first = std::min(first, index); }
  }
  return first;
}

template std::uint64_t find_operation<host>(const host&, const operation*, std::uint64_t, operation);

}  // namespace warpdex::hash::detail
