#include "generate_impl.hpp"

#include <warpdex/core/cuda_check.hpp>

#include <cub/device/device_for.cuh>

#include <cstdint>

namespace warpdex {
namespace detail {

template <class Element>
void for_each_index(const cuda& backend, std::uint64_t count, const Element& element)
{
  WARPDEX_CUDA_TRY(cub::DeviceFor::Bulk(count, element, backend.stream));
}

}  // namespace detail

WARPDEX_INSTANTIATE_GENERATORS(cuda, std::uint32_t)
WARPDEX_INSTANTIATE_GENERATORS(cuda, std::uint64_t)

}  // namespace warpdex
