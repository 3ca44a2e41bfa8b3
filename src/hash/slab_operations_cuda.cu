// The cuda backend of find_operation (<warpdex/hash/detail/slab_table.hpp>): one thread per element,
// the first match kept with atomicMin.
#include <warpdex/hash/detail/slab_table.hpp>

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>

#include <cstdint>
#include <span>

namespace warpdex::hash::detail {
namespace {

constexpr unsigned block_threads = 256;

__global__ void find_operation_kernel(const operation* operations, std::uint64_t count, operation code,
                                      unsigned long long* first)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count && operations[i] == code) { atomicMin(first, static_cast<unsigned long long>(i)); }
}

}  // namespace

template <class Backend>
std::uint64_t find_operation(const Backend& backend, const operation* operations, std::uint64_t count, operation code)
{
  if (count == 0) { return 0; }
  const unsigned long long none = count;
  auto first = make_buffer<unsigned long long>(backend, 1);
  first.copy_from(std::span<const unsigned long long>(&none, 1));
  const auto blocks = static_cast<unsigned>((count + block_threads - 1) / block_threads);
  find_operation_kernel<<<blocks, block_threads, 0, backend.stream>>>(operations, count, code, first.data());
  WARPDEX_CHECK_LAUNCH("find_operation_kernel");
  return first.to_vector()[0];
}

template std::uint64_t find_operation<cuda>(const cuda&, const operation*, std::uint64_t, operation);

}  // namespace warpdex::hash::detail
