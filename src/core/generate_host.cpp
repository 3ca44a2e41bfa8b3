#include "generate_impl.hpp"

#include <cstdint>

namespace warpdex {
namespace detail {

template <class Element>
void for_each_index(const host&, std::uint64_t count, const Element& element)
{
  const auto signed_count = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < signed_count; ++i) { element(static_cast<std::uint64_t>(i)); }
}

}  // namespace detail

WARPDEX_INSTANTIATE_GENERATORS(host, std::uint32_t)
WARPDEX_INSTANTIATE_GENERATORS(host, std::uint64_t)

}  // namespace warpdex
