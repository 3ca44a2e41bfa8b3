#pragma once
/// @file `warpdex::buffer<T>`: an owning, uninitialized array of trivially copyable elements in the
/// memory of one `memory_resource` (host, pinned or device), freed on its stream when destroyed.

#include <warpdex/core/error.hpp>
#include <warpdex/core/memory_resource.hpp>

#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex {

namespace detail {
/// Copies `bytes` between device memory and host or device memory, ordered on `stream`
/// (cudaMemcpyAsync with cudaMemcpyDefault; a plain memcpy in host-only builds).
void copy_device_bytes(void* destination, const void* source, std::size_t bytes, stream_t stream);
/// Waits for all work on `stream` (no-op in host-only builds).
void synchronize(stream_t stream);
}  // namespace detail

template <class T>
class buffer {
  static_assert(std::is_trivially_copyable_v<T>, "buffer<T> holds raw memory: T must be trivially copyable");

 public:
  using value_type = T;

  buffer() = default;

  /// Allocates `size` uninitialized elements from `resource`, ordered on `stream`.
  buffer(std::size_t size, memory_resource* resource, stream_t stream = nullptr)
      : resource_(resource), stream_(stream), size_(size)
  {
    WARPDEX_EXPECTS(resource != nullptr, "buffer: the memory resource is null");
    WARPDEX_EXPECTS(size <= std::numeric_limits<std::size_t>::max() / sizeof(T),
                    "buffer: " + std::to_string(size) + " elements overflow the address space");
    data_ = static_cast<T*>(resource_->allocate(size * sizeof(T), stream_));
  }

  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  buffer(buffer&& other) noexcept { swap(other); }
  buffer& operator=(buffer&& other) noexcept
  {
    if (this != &other) { buffer(std::move(other)).swap(*this); }
    return *this;
  }
  ~buffer() { release(); }

  void swap(buffer& other) noexcept
  {
    std::swap(resource_, other.resource_);
    std::swap(stream_, other.stream_);
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::span<T> span() noexcept { return {data_, size_}; }
  [[nodiscard]] std::span<const T> span() const noexcept { return {data_, size_}; }
  [[nodiscard]] stream_t stream() const noexcept { return stream_; }
  [[nodiscard]] memory_kind kind() const noexcept { return resource_ ? resource_->kind() : memory_kind::host; }

  /// Copies `source` into the first `source.size()` elements, ordered on the buffer's stream. A device
  /// buffer accepts host or device memory; a host or pinned buffer accepts host memory. A device buffer
  /// copies from pinned or device memory asynchronously: keep `source` alive and unchanged until the
  /// buffer's stream is synchronized.
  void copy_from(std::span<const T> source)
  {
    WARPDEX_EXPECTS(source.size() <= size_, "buffer::copy_from: " + std::to_string(source.size()) +
                                                " elements do not fit in a buffer of " + std::to_string(size_));
    copy_bytes(data_, source.data(), source.size_bytes());
  }

  /// Copies the whole buffer into a new host vector (waits for the buffer's stream).
  [[nodiscard]] std::vector<T> to_vector() const
  {
    std::vector<T> host(size_);
    copy_bytes(host.data(), data_, size_bytes());
    if (kind() == memory_kind::device) { detail::synchronize(stream_); }
    return host;
  }

 private:
  void copy_bytes(void* destination, const void* source, std::size_t bytes) const
  {
    if (bytes == 0) { return; }
    if (kind() == memory_kind::device) {
      detail::copy_device_bytes(destination, source, bytes, stream_);
    } else {
      std::memcpy(destination, source, bytes);
    }
  }

  void release() noexcept
  {
    if (resource_ != nullptr) { resource_->deallocate(data_, size_bytes(), stream_); }
    data_ = nullptr;
    size_ = 0;
  }

  memory_resource* resource_ = nullptr;
  stream_t stream_ = nullptr;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A buffer in host memory.
template <class T>
buffer<T> make_host_buffer(std::size_t size)
{
  return buffer<T>(size, host_resource());
}

#if WARPDEX_HAS_CUDA
/// A buffer in device memory of the current device, allocated and freed in order on `stream`.
template <class T>
buffer<T> make_device_buffer(std::size_t size, stream_t stream = nullptr)
{
  return buffer<T>(size, device_resource(), stream);
}

/// A buffer in pinned host memory.
template <class T>
buffer<T> make_pinned_buffer(std::size_t size)
{
  return buffer<T>(size, pinned_resource());
}
#endif

}  // namespace warpdex
