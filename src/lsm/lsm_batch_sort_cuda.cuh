#pragma once
// The stable sort of one small update batch (at most 2^16 pairs) in two kernel launches. CUB's radix
// sort spends about 50 us on 2^16 pairs on an H200 (four passes whose look-back chains are longer than
// their work); that one sort was most of an LSM insert batch. Here each block sorts a tile of 4096 pairs
// in shared memory (cub::BlockRadixSort, stable), and every pair then finds its place among the other
// tiles by binary searches in tiles the cache holds: earlier tiles' equal keys count before it, later
// tiles' after it, so the result stays stable. The searches of one pair run side by side (one step of
// each per round), so a pair waits for 12 rounds of loads rather than for 15 searches one after another
// (one after another, they made this kernel 31 us, slower than the sort it replaced).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_store.cuh>

#include <cstdint>
#include <limits>

namespace warpdex::detail {

inline constexpr unsigned lsm_tile_threads = 1024;
inline constexpr unsigned lsm_tile_items = 4;  // few items a thread: the block's passes are short
inline constexpr std::uint64_t lsm_tile_size = std::uint64_t{lsm_tile_threads} * lsm_tile_items;
/// Batches up to this size take the tile sort; larger ones CUB's radix sort (the searches per pair grow
/// with the number of tiles).
inline constexpr std::uint64_t lsm_small_sort_max = std::uint64_t{1} << 16;
inline constexpr unsigned lsm_max_tiles = static_cast<unsigned>(lsm_small_sort_max / lsm_tile_size);
inline constexpr int lsm_tile_steps = 12;  // log2(lsm_tile_size)
static_assert(lsm_tile_size == std::uint64_t{1} << lsm_tile_steps);

template <class Key, class Value>
__global__ void __launch_bounds__(lsm_tile_threads)
    sort_tiles_kernel(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::uint64_t n)
{
  using block_sort = cub::BlockRadixSort<Key, lsm_tile_threads, lsm_tile_items, Value>;
  __shared__ typename block_sort::TempStorage temp;
  const std::uint64_t start = static_cast<std::uint64_t>(blockIdx.x) * lsm_tile_size;
  const int valid = static_cast<int>(n - start < lsm_tile_size ? n - start : lsm_tile_size);
  Key keys[lsm_tile_items];
  Value values[lsm_tile_items];
  // Padding takes the largest key and sorts after every real key (the sort is stable and the padding
  // comes last in the tile), so only the first `valid` outputs are written.
  cub::LoadDirectBlocked(static_cast<int>(threadIdx.x), keys_in + start, keys, valid, std::numeric_limits<Key>::max());
  cub::LoadDirectBlocked(static_cast<int>(threadIdx.x), values_in + start, values, valid, Value{});
  block_sort(temp).Sort(keys, values);
  cub::StoreDirectBlocked(static_cast<int>(threadIdx.x), keys_out + start, keys, valid);
  cub::StoreDirectBlocked(static_cast<int>(threadIdx.x), values_out + start, values, valid);
}

template <class Key, class Value>
__global__ void merge_tiles_kernel(const Key* keys, const Value* values, Key* keys_out, Value* values_out,
                                   std::uint64_t n)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  const auto tile = static_cast<unsigned>(i / lsm_tile_size);
  const auto tiles = static_cast<unsigned>((n + lsm_tile_size - 1) / lsm_tile_size);
  const Key key = keys[i];
  // Per other tile, the number of its keys before this pair: those <= key in an earlier tile, those < key
  // in a later one. Branch-free searches over 4096 slots; slots past a short last tile count as larger.
  std::uint32_t before[lsm_max_tiles];
#pragma unroll
  for (unsigned other = 0; other < lsm_max_tiles; ++other) { before[other] = 0; }
#pragma unroll
  for (int step = lsm_tile_steps - 1; step >= 0; --step) {
    const std::uint32_t half = std::uint32_t{1} << step;
#pragma unroll
    for (unsigned other = 0; other < lsm_max_tiles; ++other) {
      if (other >= tiles || other == tile) { continue; }
      const std::uint64_t probe = other * lsm_tile_size + before[other] + half - 1;
      if (probe < n) {
        const Key entry = keys[probe];
        if (other < tile ? !(key < entry) : entry < key) { before[other] += half; }
      }
    }
  }
  // The halves add up to 4095: one more probe tells whether every slot counts.
#pragma unroll
  for (unsigned other = 0; other < lsm_max_tiles; ++other) {
    if (other >= tiles || other == tile) { continue; }
    const std::uint64_t probe = other * lsm_tile_size + before[other];
    if (probe < n) {
      const Key entry = keys[probe];
      if (other < tile ? !(key < entry) : entry < key) { before[other] += 1; }
    }
  }
  std::uint64_t place = i % lsm_tile_size;
#pragma unroll
  for (unsigned other = 0; other < lsm_max_tiles; ++other) { place += before[other]; }
  keys_out[place] = key;
  values_out[place] = values[i];
}

/// Stable sort of n <= lsm_small_sort_max pairs by key from the inputs into the outputs; `scratch` holds
/// the sorted tiles (grown when too small, kept for the next call).
template <class Key, class Value>
void small_stable_sort_pairs(const cuda& backend, const Key* keys_in, const Value* values_in, Key* keys_out,
                             Value* values_out, std::uint64_t n, buffer<std::uint8_t>& scratch)
{
  if (n == 0) { return; }
  const auto tiles = static_cast<unsigned>((n + lsm_tile_size - 1) / lsm_tile_size);
  if (tiles == 1) {
    sort_tiles_kernel<<<1, lsm_tile_threads, 0, backend.stream>>>(keys_in, values_in, keys_out, values_out, n);
    WARPDEX_CUDA_TRY(cudaGetLastError());
    return;
  }
  const std::uint64_t values_at = (n * sizeof(Key) + 255) / 256 * 256;
  const std::uint64_t bytes = values_at + n * sizeof(Value);
  if (scratch.size() < bytes) { scratch = make_buffer<std::uint8_t>(backend, bytes); }
  auto* tile_keys = reinterpret_cast<Key*>(scratch.data());
  auto* tile_values = reinterpret_cast<Value*>(scratch.data() + values_at);
  sort_tiles_kernel<<<tiles, lsm_tile_threads, 0, backend.stream>>>(keys_in, values_in, tile_keys, tile_values, n);
  WARPDEX_CUDA_TRY(cudaGetLastError());
  constexpr unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  merge_tiles_kernel<<<blocks, threads, 0, backend.stream>>>(tile_keys, tile_values, keys_out, values_out, n);
  WARPDEX_CUDA_TRY(cudaGetLastError());
}

}  // namespace warpdex::detail
