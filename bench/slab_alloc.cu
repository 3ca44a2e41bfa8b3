// Allocations per second of SlabAlloc (super blocks, the slab tables' allocator), SlabAlloc-light (one
// array) and device-side malloc: one kernel makes the same number of 128-byte allocations, one per
// thread (a slab allocator is warp-collective, so a warp makes its 32 lanes' allocations one after
// another), and a second kernel frees them between repetitions. Each row is verified: every thread
// writes its own tag into all 128 bytes of its allocation, then every thread checks its allocation still
// holds only its tag, so no allocation failed and no two overlap.
#include "benchmarks.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/warp.cuh>
#include <warpdex/hash/slab_alloc.cuh>
#include <warpdex/hash/slab_alloc_light.cuh>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::bench {
namespace {

constexpr unsigned block_threads = 256;
/// Allocations per row: 128 MiB of slabs, far beyond L2, small enough that device malloc's heap holds it.
constexpr std::uint64_t allocation_count = std::uint64_t{1} << 20;
/// Slabs in the pools per allocation: room to spare, as a slab table's pool keeps.
constexpr std::uint64_t pool_slack = 2;
/// Super blocks of the full allocator's pool: several, so addresses of every super block are decoded.
constexpr std::uint32_t super_block_count = 4;
/// Bytes of one allocation: one slab.
constexpr std::uint64_t allocation_bytes = hash::default_slab_bytes;
/// The device heap for malloc: the allocations plus its own bookkeeping.
constexpr std::uint64_t malloc_heap_bytes = 4 * allocation_count * allocation_bytes;
/// Words written and checked per allocation.
constexpr std::uint32_t tag_words = allocation_bytes / sizeof(std::uint32_t);

using word = std::uint32_t;

unsigned blocks_for(std::uint64_t n)
{
  return static_cast<unsigned>((n + block_threads - 1) / block_threads);
}

/// Every warp allocates one slab per lane; lane i keeps the i-th. `Allocator` returns addresses, which
/// `pool.slab` turns into pointers.
template <class Allocator, class Pool>
__global__ void slab_allocate_kernel(Pool pool, std::uint64_t salt, std::uint32_t* addresses, word** pointers,
                                     std::uint64_t n)
{
  Allocator allocator(pool, warp::global_warp_id() ^ (salt << 40));
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint32_t own = hash::null_slab;
  for (unsigned lane = 0; lane < warp::size; ++lane) {
    const std::uint32_t address = allocator.allocate();
    if (warp::lane_id() == lane) { own = address; }
  }
  if (i >= n) {
    if (own != hash::null_slab) { allocator.free(own); }  // a partial last warp returns what it does not use
    return;
  }
  addresses[i] = own;
  pointers[i] = own == hash::null_slab ? nullptr : reinterpret_cast<word*>(pool.slab(own));
}

__global__ void full_free_kernel(hash::slab_pool_view<word> pool, const std::uint32_t* addresses, std::uint64_t n)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || addresses[i] == hash::null_slab) { return; }
  atomicAnd(pool.bitmap_word(addresses[i]), ~hash::slab_pool_view<word>::bit_of(addresses[i]));
}

__global__ void light_free_kernel(hash::light_pool_view<word> pool, const std::uint32_t* addresses, std::uint64_t n)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || addresses[i] == hash::null_slab) { return; }
  atomicAnd(pool.bitmap + addresses[i] / 32, ~(1U << (addresses[i] % 32)));
}

__global__ void malloc_kernel(word** pointers, std::uint64_t n)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) { pointers[i] = static_cast<word*>(malloc(allocation_bytes)); }
}

__global__ void malloc_free_kernel(word** pointers, std::uint64_t n)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && pointers[i] != nullptr) {
    free(pointers[i]);
    pointers[i] = nullptr;
  }
}

__global__ void write_tags(word* const* pointers, std::uint64_t n)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || pointers[i] == nullptr) { return; }
  for (std::uint32_t w = 0; w < tag_words; ++w) { pointers[i][w] = static_cast<word>(i); }
}

/// Counts allocations that failed or hold another thread's tag.
__global__ void count_bad_allocations(word* const* pointers, std::uint64_t n, unsigned long long* bad)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  bool ok = pointers[i] != nullptr;
  for (std::uint32_t w = 0; ok && w < tag_words; ++w) { ok = pointers[i][w] == static_cast<word>(i); }
  if (!ok) { atomicAdd(bad, 1ULL); }
}

/// Median time of the allocation kernel `allocate`; `release` frees what it allocated before each run
/// but the first. Afterwards one more allocation is tagged and checked.
template <class Allocate, class Release>
std::pair<double, bool> time_allocations(const context& ctx, std::uint64_t n, word** pointers, Allocate&& allocate,
                                         Release&& release)
{
  cudaEvent_t start, stop;
  WARPDEX_CUDA_TRY(cudaEventCreate(&start));
  WARPDEX_CUDA_TRY(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int run = 0; run < ctx.opts().warmup + ctx.opts().repetitions; ++run) {
    WARPDEX_CUDA_TRY(cudaEventRecord(start));
    allocate();
    WARPDEX_CUDA_TRY(cudaEventRecord(stop));
    WARPDEX_CUDA_TRY(cudaEventSynchronize(stop));
    float ms = 0;
    WARPDEX_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
    if (run >= ctx.opts().warmup) { times.push_back(ms); }
    release();
  }
  WARPDEX_CUDA_TRY(cudaEventDestroy(start));
  WARPDEX_CUDA_TRY(cudaEventDestroy(stop));
  allocate();
  write_tags<<<blocks_for(n), block_threads>>>(pointers, n);
  WARPDEX_CHECK_LAUNCH("write_tags");
  auto bad = make_device_buffer<unsigned long long>(1);
  WARPDEX_CUDA_TRY(cudaMemset(bad.data(), 0, bad.size_bytes()));
  count_bad_allocations<<<blocks_for(n), block_threads>>>(pointers, n, bad.data());
  WARPDEX_CHECK_LAUNCH("count_bad_allocations");
  const bool verified = bad.to_vector()[0] == 0;
  release();
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], verified};
}

row make_row(const std::string& name, std::uint64_t n, double ms, std::optional<double> malloc_ms, bool verified)
{
  row r;
  r.name = name;
  r.n = n;
  r.median_ms = ms;
  r.value = static_cast<double>(n) / (ms * 1e6);
  r.unit = "G allocations/s (128 B)";
  if (malloc_ms) {
    r.baseline = "device-side malloc(128) + free, one per thread (bench/slab_alloc.cu)";
    r.baseline_value = static_cast<double>(n) / (*malloc_ms * 1e6);
  }
  // Each allocation writes one bitmap word (an atomic on a 32-byte sector) and its pointer.
  r.sol_bytes_per_element = 32 + sizeof(word*);
  r.verified = verified;
  return r;
}

}  // namespace

void run_slab_alloc(context& ctx)
{
  const std::uint64_t n = std::min(ctx.n(), allocation_count);
  const std::string suffix = "/n=" + std::to_string(n);
  const char* kinds[] = {"full", "light", "device_malloc"};
  bool any = false;
  for (const char* kind : kinds) { any = any || ctx.selected(std::string("slab_alloc/") + kind + suffix); }
  if (!any) { return; }

  auto pointers = make_device_buffer<word*>(n);
  auto addresses = make_device_buffer<std::uint32_t>(n);
  const std::uint64_t pool_slabs = pool_slack * n;
  const std::uint64_t pool_blocks = (pool_slabs + hash::slabs_per_block - 1) / hash::slabs_per_block;

  // device malloc: measured first, every other row compares with it.
  std::size_t heap_bytes = 0;
  WARPDEX_CUDA_TRY(cudaDeviceGetLimit(&heap_bytes, cudaLimitMallocHeapSize));
  if (heap_bytes < malloc_heap_bytes) {
    WARPDEX_CUDA_TRY(cudaDeviceSetLimit(cudaLimitMallocHeapSize, malloc_heap_bytes));
  }
  WARPDEX_CUDA_TRY(cudaMemset(pointers.data(), 0, pointers.size_bytes()));
  const auto [malloc_ms, malloc_ok] = time_allocations(
      ctx, n, pointers.data(),
      [&] {
        malloc_kernel<<<blocks_for(n), block_threads>>>(pointers.data(), n);
        WARPDEX_CHECK_LAUNCH("malloc_kernel");
      },
      [&] {
        malloc_free_kernel<<<blocks_for(n), block_threads>>>(pointers.data(), n);
        WARPDEX_CHECK_LAUNCH("malloc_free_kernel");
      });
  if (ctx.selected("slab_alloc/device_malloc" + suffix)) {
    ctx.add(make_row("slab_alloc/device_malloc" + suffix, n, malloc_ms, std::nullopt, malloc_ok));
  }

  std::uint64_t salt = 0;
  if (ctx.selected("slab_alloc/full" + suffix)) {
    // super_block_count super blocks of equal size, laid out and described as slab_table_base does.
    const std::uint64_t super_slabs = (pool_slabs + super_block_count - 1) / super_block_count;
    const std::uint64_t super_blocks_of_memory = (super_slabs + hash::slabs_per_block - 1) / hash::slabs_per_block;
    std::vector<buffer<word>> slabs, bitmaps;
    std::vector<word*> slab_pointers, bitmap_pointers;
    std::vector<std::uint32_t> first_blocks{0};
    for (std::uint32_t super = 0; super < super_block_count; ++super) {
      slabs.push_back(make_device_buffer<word>(super_slabs * tag_words));
      bitmaps.push_back(make_device_buffer<word>(super_blocks_of_memory * hash::bitmap_words_per_block));
      slab_pointers.push_back(slabs.back().data());
      bitmap_pointers.push_back(bitmaps.back().data());
      first_blocks.push_back(first_blocks.back() + static_cast<std::uint32_t>(super_blocks_of_memory));
    }
    std::vector<word> words(super_blocks_of_memory * hash::bitmap_words_per_block);
    for (std::size_t w = 0; w < words.size(); ++w) { words[w] = hash::initial_bitmap_word(w, super_slabs); }
    for (auto& bitmap : bitmaps) { bitmap.copy_from(std::span<const word>(words)); }
    auto slab_directory = make_device_buffer<word*>(super_block_count);
    slab_directory.copy_from(std::span<word* const>(slab_pointers));
    auto bitmap_directory = make_device_buffer<word*>(super_block_count);
    bitmap_directory.copy_from(std::span<word* const>(bitmap_pointers));
    auto first_block_table = make_device_buffer<std::uint32_t>(first_blocks.size());
    first_block_table.copy_from(std::span<const std::uint32_t>(first_blocks));
    hash::slab_pool_view<word> pool;
    pool.super_blocks = slab_directory.data();
    pool.bitmaps = bitmap_directory.data();
    pool.first_blocks = first_block_table.data();
    pool.super_block_count = super_block_count;
    pool.block_count = first_blocks.back();
    const auto [ms, ok] = time_allocations(
        ctx, n, pointers.data(),
        [&] {
          slab_allocate_kernel<hash::slab_warp_allocator<word>>
              <<<blocks_for(n), block_threads>>>(pool, ++salt, addresses.data(), pointers.data(), n);
          WARPDEX_CHECK_LAUNCH("slab_allocate_kernel");
        },
        [&] {
          full_free_kernel<<<blocks_for(n), block_threads>>>(pool, addresses.data(), n);
          WARPDEX_CHECK_LAUNCH("full_free_kernel");
        });
    ctx.add(make_row("slab_alloc/full" + suffix, n, ms, malloc_ms, ok && malloc_ok));
  }

  if (ctx.selected("slab_alloc/light" + suffix)) {
    auto slabs = make_device_buffer<word>(pool_blocks * hash::slabs_per_block * tag_words);
    auto bitmap = make_device_buffer<word>(pool_blocks * hash::bitmap_words_per_block);
    WARPDEX_CUDA_TRY(cudaMemset(bitmap.data(), 0, bitmap.size_bytes()));
    const hash::light_pool_view<word> pool{slabs.data(), bitmap.data(), static_cast<std::uint32_t>(pool_blocks)};
    const auto [ms, ok] = time_allocations(
        ctx, n, pointers.data(),
        [&] {
          slab_allocate_kernel<hash::light_warp_allocator<word>>
              <<<blocks_for(n), block_threads>>>(pool, ++salt, addresses.data(), pointers.data(), n);
          WARPDEX_CHECK_LAUNCH("slab_allocate_kernel");
        },
        [&] {
          light_free_kernel<<<blocks_for(n), block_threads>>>(pool, addresses.data(), n);
          WARPDEX_CHECK_LAUNCH("light_free_kernel");
        });
    ctx.add(make_row("slab_alloc/light" + suffix, n, ms, malloc_ms, ok && malloc_ok));
  }
}

}  // namespace warpdex::bench
