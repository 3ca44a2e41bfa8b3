#pragma once
// What the slab_map benchmarks (slab_hash.cu, slab_hash_variants.cu, slab_hash_grow.cu) share: their key
// sets, output buffers, the mixed batch and its check, the export check, status counts and speed-of-light
// byte counts.

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <thrust/count.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cstdint>
#include <span>

namespace warpdex::bench::slab {

/// Bytes of one DRAM sector: the least a random access into a table larger than L2 moves.
inline constexpr double sector_bytes = 32;
/// Keys, values and statuses streamed per element (4 bytes each).
inline constexpr double word_bytes = 4;
/// Speed-of-light bytes per find: streamed words plus one sector read at random.
inline constexpr double find_sol_bytes = 3 * word_bytes + sector_bytes;
/// ... and per update: the sector is read and written back.
inline constexpr double update_sol_bytes = 3 * word_bytes + 2 * sector_bytes;

/// Shares of the mixed batch in percent: insert, erase, find present (the rest finds absent keys).
inline constexpr unsigned mixed_insert_percent = 20;
inline constexpr unsigned mixed_erase_percent = 20;
inline constexpr unsigned mixed_find_present_percent = 30;
/// Speed-of-light bytes per element of the mixed batch: the mean of updates and finds by their shares.
inline constexpr double mixed_sol_bytes = (mixed_insert_percent + mixed_erase_percent) / 100.0 * update_sol_bytes +
                                          (1 - (mixed_insert_percent + mixed_erase_percent) / 100.0) * find_sol_bytes;

/// 2n distinct user keys in random order (the first n to build from, the other n absent from the
/// table) and per-element outputs for batches of n.
struct key_data {
  key_data(std::uint64_t n, std::uint64_t seed)
      : n(n),
        all_keys(make_device_buffer<std::uint32_t>(2 * n)),
        statuses(make_device_buffer<hash::operation_status>(n)),
        values_out(make_device_buffer<std::uint32_t>(n))
  {
    generate_keys(cuda{}, key_set<std::uint32_t>{2 * n, seed, key_order::shuffled, hash::max_user_key},
                  all_keys.span());
  }
  [[nodiscard]] std::span<const std::uint32_t> keys() const { return {all_keys.data(), n}; }
  [[nodiscard]] std::span<const std::uint32_t> absent_keys() const { return {all_keys.data() + n, n}; }

  std::uint64_t n;
  buffer<std::uint32_t> all_keys;
  buffer<hash::operation_status> statuses;
  buffer<std::uint32_t> values_out;
};

struct status_is {
  hash::operation_status wanted;
  __host__ __device__ bool operator()(hash::operation_status status) const { return status == wanted; }
};

/// How many of the first n statuses are `wanted`.
inline std::uint64_t count_status(const buffer<hash::operation_status>& statuses, std::uint64_t n,
                                  hash::operation_status wanted)
{
  return static_cast<std::uint64_t>(
      thrust::count_if(thrust::cuda::par, statuses.data(), statuses.data() + n, status_is{wanted}));
}

/// The mixed batch of the slab hash paper's Γ1 over 2n keys (the first n built): element i inserts key
/// n + i (absent), erases key i (built), finds a built key, or finds key n + i (absent: no insertion
/// uses it); `seed` draws each element's operation.
__global__ inline void make_mixed_batch(const std::uint32_t* keys, std::uint64_t n, std::uint64_t seed,
                                        hash::operation* ops, std::uint32_t* batch_keys)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  const std::uint64_t draw = fmix64(i ^ seed);
  const auto percent = static_cast<unsigned>(draw % 100);
  if (percent < mixed_insert_percent) {
    ops[i] = hash::operation::insert;
    batch_keys[i] = keys[n + i];
  } else if (percent < mixed_insert_percent + mixed_erase_percent) {
    ops[i] = hash::operation::erase;
    batch_keys[i] = keys[i];
  } else if (percent < mixed_insert_percent + mixed_erase_percent + mixed_find_present_percent) {
    ops[i] = hash::operation::find;
    batch_keys[i] = keys[(draw >> 32) % n];
  } else {
    ops[i] = hash::operation::find;
    batch_keys[i] = keys[n + i];
  }
}

/// The mixed batch of `data` in device memory: operations and keys, n each (values = keys).
struct mixed_batch {
  mixed_batch(const key_data& data, std::uint64_t seed)
      : ops(make_device_buffer<hash::operation>(data.n)), keys(make_device_buffer<std::uint32_t>(data.n))
  {
    constexpr unsigned block_threads = 256;
    const auto blocks = static_cast<unsigned>((data.n + block_threads - 1) / block_threads);
    make_mixed_batch<<<blocks, block_threads>>>(data.all_keys.data(), data.n, seed, ops.data(), keys.data());
    WARPDEX_CHECK_LAUNCH("make_mixed_batch");
  }
  [[nodiscard]] std::span<const hash::operation> op_span() const { return {ops.data(), ops.size()}; }
  [[nodiscard]] std::span<const std::uint32_t> key_span() const { return {keys.data(), keys.size()}; }

  buffer<hash::operation> ops;
  buffer<std::uint32_t> keys;
};

/// Whether a mixed batch of n elements on a map built from n keys reported consistently: inserted keys
/// were absent and erased keys present whatever the interleaving, so the map holds n + inserted -
/// erased keys, and nothing ran out of memory.
template <class Map>
bool mixed_batch_verified(const Map& map, const buffer<hash::operation_status>& statuses, std::uint64_t n)
{
  const std::uint64_t inserted = count_status(statuses, n, hash::operation_status::inserted);
  const std::uint64_t erased = count_status(statuses, n, hash::operation_status::erased);
  return map.size() == n + inserted - erased && count_status(statuses, n, hash::operation_status::out_of_memory) == 0;
}

/// Whether `map` (a slab_map on cuda) holds exactly `keys`, each with itself as value (export, sort,
/// compare).
template <class Map>
bool export_matches(const Map& map, std::span<const std::uint32_t> keys)
{
  auto exported_keys = make_device_buffer<std::uint32_t>(keys.size());
  auto exported_values = make_device_buffer<std::uint32_t>(keys.size());
  if (map.export_pairs(exported_keys.span(), exported_values.span()) != keys.size()) { return false; }
  if (!thrust::equal(thrust::cuda::par, exported_keys.data(), exported_keys.data() + keys.size(),
                     exported_values.data())) {
    return false;
  }
  auto expected = make_device_buffer<std::uint32_t>(keys.size());
  WARPDEX_CUDA_TRY(cudaMemcpy(expected.data(), keys.data(), keys.size_bytes(), cudaMemcpyDeviceToDevice));
  thrust::sort(thrust::cuda::par, expected.data(), expected.data() + keys.size());
  thrust::sort(thrust::cuda::par, exported_keys.data(), exported_keys.data() + keys.size());
  return thrust::equal(thrust::cuda::par, expected.data(), expected.data() + keys.size(), exported_keys.data());
}

}  // namespace warpdex::bench::slab
