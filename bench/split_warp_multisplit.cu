// Warp-level multisplit rows: warp_multisplit/<ballot|match>/m=<m>, m = 2 .. 256. A kernel reads 2^28
// bucket ids (uniform over m) and computes, per warp of 32 ids, each lane's local offset and the warp
// histogram with one primitive; every lane folds its results into a hash and the hashes are summed,
// which must give the same checksum for both primitives (and the histograms must add up to n). Each row's baseline is
// the other primitive, timed in the same process on the same ids.
#include "benchmarks.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/warp.cuh>
#include <warpdex/split/warp_multisplit.cuh>

#include <cstdint>
#include <string>
#include <utility>

namespace warpdex::bench {
namespace {

constexpr int warp_bench_block_threads = 256;
constexpr int warp_bench_warps = warp_bench_block_threads / warp::size;
constexpr int warp_bench_blocks_per_sm = 8;
/// The rows read the ids once: 4 bytes per id.
constexpr double warp_bench_bytes_per_id = sizeof(std::uint32_t);

__host__ __device__ std::uint64_t mix(std::uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;  // splitmix64's finalizer
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__global__ void fill_bucket_ids(std::uint32_t* ids, std::uint64_t n, std::uint32_t m)
{
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    ids[i] = static_cast<std::uint32_t>(mix(i + 1) % m);
  }
}

/// Folds a result into a lane's running hash: one multiply-add, cheap next to the primitives.
constexpr std::uint32_t fold_multiplier = 0x01000193U;  // the 32-bit FNV prime

/// results[0] += every lane's hash of its local offsets and histogram counts (in its order, the same
/// for both primitives); results[1] += the histogram counts (n when every id was counted once).
template <class Primitive>
__global__ void __launch_bounds__(warp_bench_block_threads)
    warp_multisplit_kernel(const std::uint32_t* ids, std::uint64_t n, unsigned long long* results)
{
  __shared__ typename Primitive::TempStorage storage[warp_bench_warps];
  const Primitive primitive(storage[warp::warp_in_block()]);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint32_t hash = 0;
  std::uint32_t counted = 0;
  // Whole warps iterate together (the primitives need the warp converged); lanes past n are inactive.
  const std::uint64_t warp_first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x - warp::lane_id();
  for (std::uint64_t base = warp_first; base < n; base += stride) {
    const std::uint64_t i = base + warp::lane_id();
    const bool active = i < n;
    const std::uint32_t bucket = active ? ids[i] : 0;
    std::uint32_t counts[Primitive::segments];
    hash = hash * fold_multiplier + primitive.local_offset(bucket, active);
    primitive.histogram(bucket, counts, active);
#pragma unroll
    for (int segment = 0; segment < Primitive::segments; ++segment) {
      hash = hash * fold_multiplier + counts[segment];
      counted += counts[segment];
    }
  }
  atomicAdd(&results[0], static_cast<unsigned long long>(mix(hash)));
  atomicAdd(&results[1], static_cast<unsigned long long>(counted));
}

struct warp_run {
  double ms;
  std::uint64_t checksum;
  std::uint64_t counted;
};

template <class Primitive>
warp_run time_primitive(context& ctx, const buffer<std::uint32_t>& ids, buffer<unsigned long long>& results,
                        unsigned blocks)
{
  const auto run = [&] {
    WARPDEX_CUDA_TRY(cudaMemset(results.data(), 0, results.size_bytes()));
    warp_multisplit_kernel<Primitive><<<blocks, warp_bench_block_threads>>>(ids.data(), ids.size(), results.data());
    WARPDEX_CHECK_LAUNCH("warp_multisplit_kernel");
  };
  const double ms = ctx.median_ms(nullptr, run);
  const auto sums = results.to_vector();  // the last timed run's results
  return {ms, sums[0], sums[1]};
}

void add_warp_row(context& ctx, const std::string& name, std::uint64_t n, const warp_run& mine, const warp_run& other,
                  const std::string& other_name, bool verified)
{
  row r;
  r.name = name;
  r.n = n;
  r.median_ms = mine.ms;
  r.value = static_cast<double>(n) / (mine.ms * 1e6);
  r.unit = "Gids/s";
  r.sol_bytes_per_element = warp_bench_bytes_per_id;
  r.verified = verified;
  r.baseline = other_name;
  r.baseline_value = static_cast<double>(n) / (other.ms * 1e6);
  ctx.add(std::move(r));
}

template <std::uint32_t MaxBuckets>
void run_warp_rows(context& ctx, buffer<std::uint32_t>& ids, buffer<unsigned long long>& results, unsigned blocks)
{
  const std::string suffix = "/m=" + std::to_string(MaxBuckets);
  const std::string ballot_name = "warp_multisplit/ballot" + suffix;
  const std::string match_name = "warp_multisplit/match" + suffix;
  if (!ctx.selected(ballot_name) && !ctx.selected(match_name)) { return; }
  const std::uint64_t n = ids.size();
  fill_bucket_ids<<<blocks, warp_bench_block_threads>>>(ids.data(), n, MaxBuckets);
  WARPDEX_CHECK_LAUNCH("fill_bucket_ids");
  const warp_run ballot = time_primitive<warp_multisplit_ballot<MaxBuckets>>(ctx, ids, results, blocks);
  const warp_run match = time_primitive<warp_multisplit_match<MaxBuckets>>(ctx, ids, results, blocks);
  const bool verified = ballot.checksum == match.checksum && ballot.counted == n && match.counted == n;
  if (ctx.selected(ballot_name)) { add_warp_row(ctx, ballot_name, n, ballot, match, match_name, verified); }
  if (ctx.selected(match_name)) { add_warp_row(ctx, match_name, n, match, ballot, ballot_name, verified); }
}

}  // namespace

void run_warp_multisplit(context& ctx)
{
  // Gated by the rows' own names: a filter anchored at a row's end matches no family prefix.
  bool any = false;
  for (const char* primitive : {"ballot", "match"}) {
    for (std::uint32_t m = 2; m <= 256; m *= 2) {
      any = any || ctx.selected(std::string("warp_multisplit/") + primitive + "/m=" + std::to_string(m));
    }
  }
  if (!any) { return; }
  auto ids = make_device_buffer<std::uint32_t>(ctx.n());
  auto results = make_device_buffer<unsigned long long>(2);
  int device = 0;
  int sm_count = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  const auto blocks = static_cast<unsigned>(sm_count * warp_bench_blocks_per_sm);
  run_warp_rows<2>(ctx, ids, results, blocks);
  run_warp_rows<4>(ctx, ids, results, blocks);
  run_warp_rows<8>(ctx, ids, results, blocks);
  run_warp_rows<16>(ctx, ids, results, blocks);
  run_warp_rows<32>(ctx, ids, results, blocks);
  run_warp_rows<64>(ctx, ids, results, blocks);
  run_warp_rows<128>(ctx, ids, results, blocks);
  run_warp_rows<256>(ctx, ids, results, blocks);
}

}  // namespace warpdex::bench
