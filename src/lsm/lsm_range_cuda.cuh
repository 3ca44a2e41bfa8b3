#pragma once
// The fill of range queries on the GPU: a group of lanes per query instead of one thread per (query,
// level) pair. The generic fill (range_fill_element) walks a level's part of a range in one thread and
// places each pair by searching every whole level (samples, then a line of keys: several dependent
// misses per level per pair), so long ranges serialize and every pair pays levels x misses. Here the
// group's lanes first find, side by side, where the range starts and ends in each level (the bounds a
// count finds); every pair is then placed by binary searches within those bounds only, which are short
// and cached, and the group's lanes share the range's pairs of all levels.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/lsm/detail/lsm_level.hpp>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>

namespace warpdex::detail {

inline constexpr unsigned lsm_range_threads = 256;
/// Levels the grouped fill keeps in shared memory; maps with more levels use the generic fill.
inline constexpr std::uint32_t lsm_range_max_levels = 32;

template <class Key, class Value, unsigned Width>
__global__ void __launch_bounds__(lsm_range_threads)
    range_fill_kernel(const lsm_level_view<Key, Value>* levels, std::uint32_t level_count, const Key* lower,
                      const Key* upper, std::uint64_t queries, const std::uint64_t* offsets, Key* keys_out,
                      Value* values_out)
{
  constexpr unsigned groups = lsm_range_threads / Width;
  __shared__ lsm_level_view<Key, Value> views[lsm_range_max_levels];
  // Per group and level: the range's first index, its end, and the live entries before its first index.
  __shared__ std::uint64_t begin_at[groups][lsm_range_max_levels];
  __shared__ std::uint64_t end_at[groups][lsm_range_max_levels];
  __shared__ std::uint64_t live_at[groups][lsm_range_max_levels];
  // Per group: where each level's part starts among the group's candidates (all levels' parts in turn).
  __shared__ std::uint64_t first_candidate[groups][lsm_range_max_levels + 1];
  for (std::uint32_t l = threadIdx.x; l < level_count; l += blockDim.x) { views[l] = levels[l]; }
  __syncthreads();

  auto tile = cooperative_groups::tiled_partition<Width>(cooperative_groups::this_thread_block());
  const unsigned group = threadIdx.x / Width;
  const unsigned lane = threadIdx.x % Width;
  std::uint64_t* begin = begin_at[group];
  std::uint64_t* end = end_at[group];
  std::uint64_t* live = live_at[group];
  std::uint64_t* candidates = first_candidate[group];
  for (std::uint64_t query = static_cast<std::uint64_t>(blockIdx.x) * groups + group; query < queries;
       query += static_cast<std::uint64_t>(gridDim.x) * groups) {
    const Key first = lower[query];
    const Key last = upper[query];
    if (first > last) { continue; }  // the same for the whole group
    for (std::uint32_t l = lane; l < level_count; l += Width) {
      const std::uint64_t at = lower_index(views[l], first);
      begin[l] = at;
      end[l] = upper_index(views[l], last);
      live[l] = views[l].live_before[at];
    }
    tile.sync();
    if (lane == 0) {
      candidates[0] = 0;
      for (std::uint32_t l = 0; l < level_count; ++l) { candidates[l + 1] = candidates[l] + (end[l] - begin[l]); }
    }
    tile.sync();
    const std::uint64_t total = candidates[level_count];
    const std::uint64_t base = offsets[query];
    std::uint32_t level = 0;
    for (std::uint64_t t = lane; t < total; t += Width) {
      while (candidates[level + 1] <= t) { ++level; }
      const lsm_level_view<Key, Value>& view = views[level];
      const std::uint64_t i = begin[level] + (t - candidates[level]);
      const std::uint64_t live_before = view.live_before[i];
      if (view.live_before[i + 1] == live_before) { continue; }
      const Key key = view.keys[i];
      // The live keys of the range below `key`: its own level's by the prefix count, the others' by a
      // search within the range's bounds in that level.
      std::uint64_t rank = live_before - live[level];
      for (std::uint32_t other = 0; other < level_count; ++other) {
        if (other == level) { continue; }
        const std::uint64_t from = begin[other];
        const std::uint64_t at =
            from + binary_search_bound<bound_kind::lower>(views[other].keys + from, end[other] - from, key);
        rank += views[other].live_before[at] - live[other];
      }
      keys_out[base + rank] = key;
      values_out[base + rank] = view.values[i];
    }
    tile.sync();  // the group's shared bounds are rewritten for its next query
  }
}

/// counts[q] = the live keys in [lower[q], upper[q]]: a group of Width lanes per query, each lane the
/// bounds of some levels, summed over the group. Where queries are few (long ranges), a thread per query
/// would leave most of the GPU idle while it searches its levels one after another.
template <class Key, class Value, unsigned Width>
__global__ void __launch_bounds__(lsm_range_threads)
    range_count_kernel(const lsm_level_view<Key, Value>* levels, std::uint32_t level_count, const Key* lower,
                       const Key* upper, std::uint64_t queries, std::uint64_t* counts)
{
  constexpr unsigned groups = lsm_range_threads / Width;
  __shared__ lsm_level_view<Key, Value> views[lsm_range_max_levels];
  for (std::uint32_t l = threadIdx.x; l < level_count; l += blockDim.x) { views[l] = levels[l]; }
  __syncthreads();
  auto tile = cooperative_groups::tiled_partition<Width>(cooperative_groups::this_thread_block());
  const unsigned lane = threadIdx.x % Width;
  for (std::uint64_t query = static_cast<std::uint64_t>(blockIdx.x) * groups + threadIdx.x / Width; query < queries;
       query += static_cast<std::uint64_t>(gridDim.x) * groups) {
    const Key first = lower[query];
    const Key last = upper[query];
    std::uint64_t live = 0;
    if (first <= last) {
      for (std::uint32_t l = lane; l < level_count; l += Width) {
        live += live_up_to(views[l], last) - live_below(views[l], first);
      }
    }
    live = cooperative_groups::reduce(tile, live, cooperative_groups::plus<std::uint64_t>());
    if (lane == 0) { counts[query] = live; }
  }
}

/// A grid of at most 2^16 blocks for groups of `width` lanes; each group takes queries in a grid-stride loop.
inline unsigned range_blocks(std::uint64_t queries, unsigned width)
{
  const std::uint64_t groups = lsm_range_threads / width;
  const std::uint64_t needed = (queries + groups - 1) / groups;
  return static_cast<unsigned>(needed < (1u << 16) ? needed : (1u << 16));
}

/// Counts with groups of lanes sized to the levels; false (nothing launched) when the map has more levels
/// than the kernel holds or so few that a thread per query searches them as fast.
template <class Key, class Value>
bool launch_range_count(const cuda& backend, const lsm_level_view<Key, Value>* levels, std::uint32_t level_count,
                        const Key* lower, const Key* upper, std::uint64_t queries, std::uint64_t* counts)
{
  if (level_count > lsm_range_max_levels || level_count <= 2 || queries == 0) { return false; }
  if (level_count <= 8) {
    range_count_kernel<Key, Value, 8><<<range_blocks(queries, 8), lsm_range_threads, 0, backend.stream>>>(
        levels, level_count, lower, upper, queries, counts);
  } else {
    range_count_kernel<Key, Value, 32><<<range_blocks(queries, 32), lsm_range_threads, 0, backend.stream>>>(
        levels, level_count, lower, upper, queries, counts);
  }
  WARPDEX_CUDA_TRY(cudaGetLastError());
  return true;
}

/// Fills the ranges; false (nothing launched) when the map has more levels than the kernel holds.
/// `candidates_per_query` (the mean range length) picks the group width: 8 lanes for short ranges, a warp
/// for long ones.
template <class Key, class Value>
bool launch_range_fill(const cuda& backend, const lsm_level_view<Key, Value>* levels, std::uint32_t level_count,
                       const Key* lower, const Key* upper, std::uint64_t queries, const std::uint64_t* offsets,
                       Key* keys_out, Value* values_out, std::uint64_t candidates_per_query)
{
  if (level_count > lsm_range_max_levels || queries == 0) { return level_count <= lsm_range_max_levels; }
  if (candidates_per_query <= 64) {
    range_fill_kernel<Key, Value, 8><<<range_blocks(queries, 8), lsm_range_threads, 0, backend.stream>>>(
        levels, level_count, lower, upper, queries, offsets, keys_out, values_out);
  } else {
    range_fill_kernel<Key, Value, 32><<<range_blocks(queries, 32), lsm_range_threads, 0, backend.stream>>>(
        levels, level_count, lower, upper, queries, offsets, keys_out, values_out);
  }
  WARPDEX_CUDA_TRY(cudaGetLastError());
  return true;
}

}  // namespace warpdex::detail
