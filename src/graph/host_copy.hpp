#pragma once
// A copy of backend memory (host or device) into a host vector, shared by the graph family's host code.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>

#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

namespace warpdex::graph::detail {

template <class T, class Backend>
std::vector<T> to_host(std::span<const T> values, const Backend& backend)
{
  std::vector<T> result(values.size());
  if (values.empty()) { return result; }
  if constexpr (std::is_same_v<Backend, host>) {
    std::memcpy(result.data(), values.data(), values.size_bytes());  // no CUDA call: works without a driver
  } else {
    warpdex::detail::copy_device_bytes(result.data(), values.data(), values.size_bytes(), backend.stream);
    warpdex::detail::synchronize(backend.stream);
  }
  return result;
}

}  // namespace warpdex::graph::detail
