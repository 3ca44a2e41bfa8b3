#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/memory_resource.hpp>

#include <cstring>
#include <new>
#include <string>

namespace warpdex {
namespace {

class host_memory_resource final : public memory_resource {
 public:
  [[nodiscard]] memory_kind kind() const noexcept override { return memory_kind::host; }

 private:
  void* do_allocate(std::size_t bytes, stream_t) override
  {
    void* pointer = ::operator new (bytes, std::align_val_t{host_memory_alignment}, std::nothrow);
    if (pointer == nullptr) {
      throw out_of_memory("host memory exhausted: could not allocate " + std::to_string(bytes) + " bytes");
    }
    return pointer;
  }
  void do_deallocate(void* pointer, std::size_t, stream_t) noexcept override
  {
    ::operator delete (pointer, std::align_val_t{host_memory_alignment});
  }
};

}  // namespace

memory_resource* host_resource()
{
  static host_memory_resource resource;
  return &resource;
}

#if !WARPDEX_HAS_CUDA
namespace detail {
void copy_device_bytes(void* destination, const void* source, std::size_t bytes, stream_t)
{
  if (bytes != 0) { std::memcpy(destination, source, bytes); }
}
void synchronize(stream_t) {}
}  // namespace detail
#endif

}  // namespace warpdex
