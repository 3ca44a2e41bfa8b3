#include "benchmarks.hpp"
#include "verify.cuh"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/generate.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/sequence.h>

#include <cstdint>

namespace warpdex::bench {

namespace {
constexpr double key_bytes = sizeof(std::uint32_t);
constexpr double pair_bytes = 2 * sizeof(std::uint32_t);
}  // namespace

void run_cub_radix_sort(context& ctx)
{
  const std::string keys_name = "baseline/cub_radix_sort/keys32";
  const std::string pairs_name = "baseline/cub_radix_sort/pairs32";
  if (!ctx.selected(keys_name) && !ctx.selected(pairs_name)) { return; }

  const std::uint64_t n = ctx.n();
  const int item_count = static_cast<int>(n);
  const cuda backend{};
  auto keys_in = make_device_buffer<std::uint32_t>(n);
  auto keys_out = make_device_buffer<std::uint32_t>(n);
  generate_keys(backend, key_set<std::uint32_t>{n, 0x5eedcafe}, keys_in.span());

  if (ctx.selected(keys_name)) {
    std::size_t temp_bytes = 0;
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys_in.data(), keys_out.data(), item_count));
    auto temp = make_device_buffer<std::uint8_t>(temp_bytes);
    const double ms = ctx.median_ms(nullptr, [&] {
      WARPDEX_CUDA_TRY(
          cub::DeviceRadixSort::SortKeys(temp.data(), temp_bytes, keys_in.data(), keys_out.data(), item_count));
    });
    row r;
    r.name = keys_name;
    r.n = n;
    r.median_ms = ms;
    r.value = static_cast<double>(n) / (ms * 1e6);
    r.unit = "Gkeys/s";
    r.sol_bytes_per_element = 2 * key_bytes;  // read each key once, write it once
    r.verified = is_sorted_permutation(keys_in.data(), keys_out.data(), n, nullptr);
    ctx.add(std::move(r));
  }

  if (ctx.selected(pairs_name)) {
    auto values_in = make_device_buffer<std::uint32_t>(n);
    auto values_out = make_device_buffer<std::uint32_t>(n);
    thrust::sequence(thrust::cuda::par, values_in.data(), values_in.data() + n);  // value = input position
    std::size_t temp_bytes = 0;
    WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(),
                                                     values_in.data(), values_out.data(), item_count));
    auto temp = make_device_buffer<std::uint8_t>(temp_bytes);
    const double ms = ctx.median_ms(nullptr, [&] {
      WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys_in.data(), keys_out.data(),
                                                       values_in.data(), values_out.data(), item_count));
    });
    row r;
    r.name = pairs_name;
    r.n = n;
    r.median_ms = ms;
    r.value = static_cast<double>(n) / (ms * 1e6);
    r.unit = "Gpairs/s";
    r.sol_bytes_per_element = 2 * pair_bytes;
    r.verified = is_sorted_pair_permutation(keys_in.data(), keys_out.data(), values_out.data(), n, nullptr);
    ctx.add(std::move(r));
  }
}

}  // namespace warpdex::bench
