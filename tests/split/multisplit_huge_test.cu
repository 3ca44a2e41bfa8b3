// The cuda multisplit past 2^31 keys (64-bit offsets and tile indices), with every algorithm, checked
// on the device: every input key must sit at the position that a stable split gives it, and the
// returned offsets must equal an independent count. Needs about 17.5 GB of device memory; skipped
// below that (and excluded from sanitizer runs by the `Huge` in its name).
#include "support/backend_fixture.hpp"

#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/warp.cuh>
#include <warpdex/split/multisplit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace warpdex::testing {
namespace {

/// Past 2^31 by a ragged tile end, so 32-bit index arithmetic anywhere would go wrong.
constexpr std::uint64_t huge_n = (std::uint64_t{1} << 31) + 4099;
/// Bit-field buckets [0, 2): m = 4 (three_pass, single_pass), and [0, 1): m = 2 (partition). The
/// checking kernels hold up to huge_m buckets; bucket = key mod m.
constexpr std::uint32_t huge_bits = 2;
constexpr std::uint32_t huge_m = 1U << huge_bits;
/// Keys per block of the checking kernels.
constexpr std::uint64_t check_chunk_keys = std::uint64_t{1} << 16;
constexpr int check_threads = 256;
constexpr int check_warps = check_threads / warp::size;
/// Beyond the two key arrays: the algorithms' tables and look-back words, CUB's scan storage.
constexpr std::uint64_t huge_headroom_bytes = std::uint64_t{512} << 20;
constexpr int poison_byte = 0xa5;

__device__ std::uint32_t huge_key(std::uint64_t i)
{
  std::uint64_t z = i * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;  // a splitmix64 step
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<std::uint32_t>(z ^ (z >> 31));
}

__global__ void fill_huge_keys(std::uint32_t* keys, std::uint64_t n)
{
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = huge_key(i);
  }
}

/// chunk_counts[chunk * huge_m + b] = keys of bucket b (key mod m) in the chunk's check_chunk_keys keys.
__global__ void count_chunk_buckets(const std::uint32_t* keys, std::uint64_t n, std::uint32_t m,
                                    std::uint32_t* chunk_counts)
{
  __shared__ std::uint32_t counts[huge_m];
  if (threadIdx.x < huge_m) { counts[threadIdx.x] = 0; }
  __syncthreads();
  const std::uint64_t begin = blockIdx.x * check_chunk_keys;
  const std::uint64_t end = n - begin < check_chunk_keys ? n : begin + check_chunk_keys;
  for (std::uint64_t i = begin + threadIdx.x; i < end; i += check_threads) { atomicAdd(&counts[keys[i] % m], 1U); }
  __syncthreads();
  if (threadIdx.x < huge_m) { chunk_counts[blockIdx.x * huge_m + threadIdx.x] = counts[threadIdx.x]; }
}

/// Walks the chunk in input order, ranking each key among the keys of its bucket (ballots per warp, then
/// earlier warps, then earlier rounds), and counts the keys not found where a stable split puts them:
/// out[chunk_first[chunk * huge_m + b] + rank], bucket b = key mod m.
__global__ void count_misplaced(const std::uint32_t* keys, const std::uint32_t* out, std::uint64_t n, std::uint32_t m,
                                const std::uint64_t* chunk_first, unsigned long long* misplaced)
{
  __shared__ std::uint32_t warp_counts[check_warps][huge_m];
  __shared__ std::uint64_t next[huge_m];
  if (threadIdx.x < huge_m) { next[threadIdx.x] = chunk_first[blockIdx.x * huge_m + threadIdx.x]; }
  const std::uint64_t begin = blockIdx.x * check_chunk_keys;
  const std::uint64_t end = n - begin < check_chunk_keys ? n : begin + check_chunk_keys;
  const unsigned warp_index = warp::warp_in_block();
  std::uint32_t wrong = 0;
  for (std::uint64_t round = begin; round < end; round += check_threads) {
    const std::uint64_t i = round + threadIdx.x;
    const bool valid = i < end;
    const std::uint32_t key = valid ? keys[i] : 0;
    const std::uint32_t bucket = key % m;
    std::uint32_t rank = 0;
    for (std::uint32_t b = 0; b < huge_m; ++b) {
      const unsigned members = warp::ballot(valid && bucket == b);
      if (bucket == b) { rank = warp::popc(members & warp::lanemask_lt()); }
      if (warp::lane_id() == 0) { warp_counts[warp_index][b] = warp::popc(members); }
    }
    __syncthreads();
    for (unsigned w = 0; w < warp_index; ++w) { rank += warp_counts[w][bucket]; }
    if (valid && out[next[bucket] + rank] != key) { ++wrong; }
    __syncthreads();
    if (threadIdx.x < huge_m) {
      for (int w = 0; w < check_warps; ++w) { next[threadIdx.x] += warp_counts[w][threadIdx.x]; }
    }
    __syncthreads();
  }
  if (wrong != 0) { atomicAdd(misplaced, static_cast<unsigned long long>(wrong)); }
}

class multisplit_huge_test : public cuda_test {};

TEST_F(multisplit_huge_test, HugeInputsPast2To31KeysSplitStably)
{
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  WARPDEX_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t needed = 2 * huge_n * sizeof(std::uint32_t) + huge_headroom_bytes;
  if (free_bytes < needed) {
    GTEST_SKIP() << "needs " << needed << " bytes of device memory, " << free_bytes << " are free";
  }
  const cuda backend{};
  auto keys = make_buffer<std::uint32_t>(backend, huge_n);
  auto out = make_buffer<std::uint32_t>(backend, huge_n);
  constexpr unsigned fill_blocks = 4096;
  fill_huge_keys<<<fill_blocks, check_threads>>>(keys.data(), huge_n);
  WARPDEX_CHECK_LAUNCH("fill_huge_keys");

  const auto chunks = static_cast<unsigned>((huge_n + check_chunk_keys - 1) / check_chunk_keys);
  auto chunk_counts = make_buffer<std::uint32_t>(backend, std::uint64_t{chunks} * huge_m);
  auto chunk_first = make_buffer<std::uint64_t>(backend, std::uint64_t{chunks} * huge_m);
  auto misplaced = make_buffer<unsigned long long>(backend, 1);
  const std::vector<std::tuple<multisplit_algorithm, const char*, std::uint32_t>> runs = {
      {multisplit_algorithm::three_pass, "three_pass", huge_bits},
      {multisplit_algorithm::single_pass, "single_pass", huge_bits},
      {multisplit_algorithm::partition, "partition", 1}};
  for (const auto& [algorithm, name, bits] : runs) {
    SCOPED_TRACE(name);
    const std::uint32_t m = 1U << bits;
    // The independent count: per chunk, then the bucket offsets and each chunk's first slot per bucket.
    count_chunk_buckets<<<chunks, check_threads>>>(keys.data(), huge_n, m, chunk_counts.data());
    WARPDEX_CHECK_LAUNCH("count_chunk_buckets");
    const std::vector<std::uint32_t> counts = chunk_counts.to_vector();
    std::vector<std::uint64_t> expected_offsets(m, 0);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      for (std::uint32_t b = 0; b + 1 < m; ++b) { expected_offsets[b + 1] += counts[c * huge_m + b]; }
    }
    for (std::uint32_t b = 1; b < m; ++b) { expected_offsets[b] += expected_offsets[b - 1]; }
    std::vector<std::uint64_t> first(counts.size());
    std::vector<std::uint64_t> running = expected_offsets;
    for (std::uint64_t c = 0; c < chunks; ++c) {
      for (std::uint32_t b = 0; b < m; ++b) {
        first[c * huge_m + b] = running[b];
        running[b] += counts[c * huge_m + b];
      }
    }
    ASSERT_EQ(running[m - 1], huge_n);
    chunk_first.copy_from(first);

    WARPDEX_CUDA_TRY(cudaMemset(out.data(), poison_byte, out.size_bytes()));
    WARPDEX_CUDA_TRY(cudaMemset(misplaced.data(), 0, misplaced.size_bytes()));
    const auto offsets =
        multisplit(backend, std::as_const(keys).span(), out.span(), bit_field_buckets{0, bits}, algorithm);
    EXPECT_EQ(offsets, expected_offsets);
    count_misplaced<<<chunks, check_threads>>>(keys.data(), out.data(), huge_n, m, chunk_first.data(),
                                               misplaced.data());
    WARPDEX_CHECK_LAUNCH("count_misplaced");
    EXPECT_EQ(misplaced.to_vector().front(), 0U);
  }
}

}  // namespace
}  // namespace warpdex::testing
