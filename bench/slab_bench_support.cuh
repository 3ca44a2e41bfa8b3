#pragma once
// What the slab_map benchmarks (slab_hash.cu, slab_hash_variants.cu) share: their key sets, output
// buffers, status counts and speed-of-light byte counts.

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <thrust/count.h>
#include <thrust/execution_policy.h>

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

}  // namespace warpdex::bench::slab
