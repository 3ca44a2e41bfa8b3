// The per-rank steps of a distributed batch on the cuda backend: one thread per element, grid-strided over
// one wave of blocks.

#include <warpdex/core/launch.cuh>
#include <warpdex/distributed/detail/batch_steps.hpp>
#include <warpdex/split/multisplit.cuh>

#include <cstdint>

namespace warpdex::distributed::detail {

namespace {

// Threads per block of the element-wise kernels (memory-bound: any multiple of a warp that fills the SMs).
constexpr int step_block_threads = 256;

__global__ void iota_kernel(std::uint32_t* out, std::uint64_t count)
{
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    out[j] = static_cast<std::uint32_t>(j);
  }
}

template <class T>
__global__ void gather_kernel(const T* source, const std::uint32_t* positions, T* out, std::uint64_t count)
{
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    out[j] = source[positions[j]];
  }
}

__global__ void count_invalid_kernel(const hash::operation* operations, std::uint64_t count,
                                     unsigned long long* invalid)
{
  unsigned long long mine = 0;
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    mine += static_cast<std::uint32_t>(operations[j]) >= hash::operation_count ? 1 : 0;
  }
  if (mine > 0) { atomicAdd(invalid, mine); }
}

template <class T>
void gather_on_device(const cuda& backend, std::span<const T> source, std::span<const std::uint32_t> positions,
                      std::span<T> out)
{
  if (out.empty()) { return; }
  gather_kernel<T><<<warpdex::detail::one_wave_blocks(gather_kernel<T>, step_block_threads, out.size()),
                     step_block_threads, 0, backend.stream>>>(source.data(), positions.data(), out.data(), out.size());
  WARPDEX_CHECK_LAUNCH("gather_kernel");
}

__global__ void scatter_kernel(const hash::operation_status* source, const std::uint32_t* positions,
                               hash::operation_status* out, std::uint64_t count)
{
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    out[positions[j]] = source[j];
  }
}

__global__ void scatter_found_kernel(const std::uint32_t* values, const hash::operation_status* statuses,
                                     const std::uint32_t* positions, std::uint32_t* out,
                                     hash::operation_status* statuses_out, std::uint64_t count)
{
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    const hash::operation_status status = statuses[j];
    const std::uint32_t position = positions[j];
    if (statuses_out != nullptr) { statuses_out[position] = status; }
    if (status == hash::operation_status::found) { out[position] = values[j]; }
  }
}

__global__ void copy_segments_kernel(const std::uint32_t* source, std::uint32_t* out, const std::uint64_t* out_starts,
                                     const std::uint64_t* source_starts, std::uint32_t segments, std::uint64_t count)
{
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint32_t low = 0;  // the last segment starting at or before j (segment 0 starts at 0)
    std::uint32_t high = segments - 1;
    while (low < high) {
      const std::uint32_t middle = (low + high + 1) / 2;
      if (out_starts[middle] <= j) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    out[j] = source[source_starts[low] + (j - out_starts[low])];
  }
}

}  // namespace

std::vector<std::uint64_t> split_by_owner(const cuda& backend, std::span<const std::uint32_t> keys,
                                          std::span<std::uint32_t> keys_out, std::span<std::uint32_t> positions_out,
                                          owner_buckets owners)
{
  auto positions = make_buffer<std::uint32_t>(backend, keys.size());
  if (!keys.empty()) {
    iota_kernel<<<warpdex::detail::one_wave_blocks(iota_kernel, step_block_threads, keys.size()), step_block_threads, 0,
                  backend.stream>>>(positions.data(), keys.size());
    WARPDEX_CHECK_LAUNCH("iota_kernel");
  }
  return multisplit_pairs<std::uint32_t, std::uint32_t>(backend, keys, positions.span(), keys_out, positions_out,
                                                        owners);
}

std::vector<std::uint64_t> split_pairs_by_owner(const cuda& backend, std::span<const std::uint32_t> keys,
                                                std::span<const std::uint32_t> values,
                                                std::span<std::uint32_t> keys_out, std::span<std::uint32_t> values_out,
                                                owner_buckets owners)
{
  return multisplit_pairs<std::uint32_t, std::uint32_t>(backend, keys, values, keys_out, values_out, owners);
}

void gather(const cuda& backend, std::span<const std::uint32_t> source, std::span<const std::uint32_t> positions,
            std::span<std::uint32_t> out)
{
  gather_on_device(backend, source, positions, out);
}

void gather(const cuda& backend, std::span<const hash::operation> source, std::span<const std::uint32_t> positions,
            std::span<hash::operation> out)
{
  gather_on_device(backend, source, positions, out);
}

std::uint64_t count_invalid_operations(const cuda& backend, std::span<const hash::operation> operations)
{
  auto invalid = make_buffer<unsigned long long>(backend, 1);
  const std::vector<unsigned long long> zero{0};
  invalid.copy_from(zero);
  if (!operations.empty()) {
    count_invalid_kernel<<<warpdex::detail::one_wave_blocks(count_invalid_kernel, step_block_threads,
                                                            operations.size()),
                           step_block_threads, 0, backend.stream>>>(operations.data(), operations.size(),
                                                                    invalid.data());
    WARPDEX_CHECK_LAUNCH("count_invalid_kernel");
  }
  return invalid.to_vector()[0];
}

void scatter(const cuda& backend, std::span<const hash::operation_status> source,
             std::span<const std::uint32_t> positions, std::span<hash::operation_status> out)
{
  if (source.empty()) { return; }
  scatter_kernel<<<warpdex::detail::one_wave_blocks(scatter_kernel, step_block_threads, source.size()),
                   step_block_threads, 0, backend.stream>>>(source.data(), positions.data(), out.data(), source.size());
  WARPDEX_CHECK_LAUNCH("scatter_kernel");
}

void scatter_found(const cuda& backend, std::span<const std::uint32_t> values,
                   std::span<const hash::operation_status> statuses, std::span<const std::uint32_t> positions,
                   std::span<std::uint32_t> out, std::span<hash::operation_status> statuses_out)
{
  if (values.empty()) { return; }
  scatter_found_kernel<<<warpdex::detail::one_wave_blocks(scatter_found_kernel, step_block_threads, values.size()),
                         step_block_threads, 0, backend.stream>>>(
      values.data(), statuses.data(), positions.data(), out.data(),
      statuses_out.empty() ? nullptr : statuses_out.data(), values.size());
  WARPDEX_CHECK_LAUNCH("scatter_found_kernel");
}

void copy_segments(const cuda& backend, std::span<const std::uint32_t> source, std::span<std::uint32_t> out,
                   const std::vector<std::uint64_t>& out_starts, const std::vector<std::uint64_t>& source_starts)
{
  if (out.empty()) { return; }
  auto out_table = make_buffer<std::uint64_t>(backend, out_starts.size());
  auto source_table = make_buffer<std::uint64_t>(backend, source_starts.size());
  out_table.copy_from(out_starts);
  source_table.copy_from(source_starts);
  copy_segments_kernel<<<warpdex::detail::one_wave_blocks(copy_segments_kernel, step_block_threads, out.size()),
                         step_block_threads, 0, backend.stream>>>(
      source.data(), out.data(), out_table.data(), source_table.data(), static_cast<std::uint32_t>(out_starts.size()),
      out.size());
  WARPDEX_CHECK_LAUNCH("copy_segments_kernel");
}

}  // namespace warpdex::distributed::detail
