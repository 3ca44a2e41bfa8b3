#pragma once
// A copy of backend memory (host or device) into a host vector, shared by the graph family's host code.

#include <warpdex/core/buffer.hpp>

#include <span>
#include <vector>

namespace warpdex::graph::detail {

template <class T, class Backend>
std::vector<T> to_host(std::span<const T> values, const Backend& backend)
{
  std::vector<T> result(values.size());
  if (!values.empty()) {
    stream_t stream = nullptr;
    if constexpr (requires { backend.stream; }) { stream = backend.stream; }
    warpdex::detail::copy_device_bytes(result.data(), values.data(), values.size_bytes(), stream);
    warpdex::detail::synchronize(stream);
  }
  return result;
}

}  // namespace warpdex::graph::detail
