#pragma once
// Range queries on the GPU: a group of lanes per query instead of one thread per (query, level) pair.
// The generic fill (range_fill_element) walks a level's part of a range in one thread and places each pair
// by searching every whole level (samples, then a line of keys: several dependent misses per level per
// pair), so long ranges serialize and every pair pays levels x misses. Here the count keeps where each
// range starts and ends in every level (or the group's lanes find that side by side), and the group's
// lanes share the range's entries of all levels: a short range's live keys are ranked against each other
// in shared memory; a long range's by binary searches within the range's bounds in the other levels,
// which are short and cached.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/lsm/detail/lsm_level.hpp>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>

namespace warpdex::detail {

inline constexpr unsigned lsm_range_threads = 128;
/// Ranges of at most this many candidates (entries of all levels within the bounds) are ranked in shared
/// memory, each live key against the group's other candidates, with no search at all.
inline constexpr std::uint32_t lsm_range_shared_candidates = 64;
/// Levels the grouped fill keeps in shared memory; maps with more levels use the generic fill.
inline constexpr std::uint32_t lsm_range_max_levels = 32;

template <class Key, class Value, unsigned Width>
__global__ void __launch_bounds__(lsm_range_threads)
    range_fill_kernel(const lsm_level_view<Key, Value>* levels, std::uint32_t level_count, const Key* lower,
                      const Key* upper, std::uint64_t queries, const std::uint64_t* offsets, Key* keys_out,
                      Value* values_out, const range_bounds* bounds)
{
  constexpr unsigned groups = lsm_range_threads / Width;
  __shared__ lsm_level_view<Key, Value> views[lsm_range_max_levels];
  // Per group and level: the range's first index, its end, and the live entries before its first index.
  __shared__ std::uint64_t begin_at[groups][lsm_range_max_levels];
  __shared__ std::uint64_t end_at[groups][lsm_range_max_levels];
  __shared__ std::uint64_t live_at[groups][lsm_range_max_levels];
  // Per group: where each level's part starts among the group's candidates (all levels' parts in turn).
  __shared__ std::uint64_t first_candidate[groups][lsm_range_max_levels + 1];
  // Per group, for short ranges: the candidates' keys and whether each is live.
  __shared__ Key candidate_keys[groups][lsm_range_shared_candidates];
  __shared__ std::uint8_t candidate_live[groups][lsm_range_shared_candidates];
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
      // Found by the count, or here where the count could not keep them.
      const range_bounds found = bounds != nullptr ? bounds[query * level_count + l] : bounds_in(views[l], first, last);
      begin[l] = found.begin;
      end[l] = found.end;
      live[l] = found.live;
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
    if (total <= lsm_range_shared_candidates) {
      // The rank of a live key is the number of live candidates below it (live keys are distinct).
      Key* keys = candidate_keys[group];
      std::uint8_t* alive = candidate_live[group];
      for (std::uint32_t t = lane; t < total; t += Width) {
        while (candidates[level + 1] <= t) { ++level; }
        const std::uint64_t i = begin[level] + (t - candidates[level]);
        keys[t] = views[level].keys[i];
        alive[t] = views[level].live_before[i + 1] != views[level].live_before[i] ? 1 : 0;
      }
      tile.sync();
      level = 0;
      for (std::uint32_t t = lane; t < total; t += Width) {
        while (candidates[level + 1] <= t) { ++level; }
        if (alive[t] == 0) { continue; }
        const Key key = keys[t];
        std::uint64_t rank = 0;
        for (std::uint32_t other = 0; other < total; ++other) {
          rank += alive[other] != 0 && keys[other] < key ? 1 : 0;
        }
        keys_out[base + rank] = key;
        values_out[base + rank] = views[level].values[begin[level] + (t - candidates[level])];
      }
      tile.sync();  // the group's shared candidates and bounds are rewritten for its next query
      continue;
    }
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

/// The count kernel's blocks a multiprocessor must hold, which limits it to 32 registers a thread: with 38
/// (12 blocks of 128), 2^15 queries of 8 lanes took 1.29 waves on an H100, and a latency-bound search pays
/// each wave in full.
inline constexpr unsigned lsm_range_count_min_blocks = 2048 / lsm_range_threads;

/// counts[q] = the live keys in [lower[q], upper[q]]: a group of Width lanes per query, each lane the
/// bounds of some levels, summed over the group. Where queries are few (long ranges), a thread per query
/// would leave most of the GPU idle while it searches its levels one after another.
template <class Key, class Value, unsigned Width>
__global__ void __launch_bounds__(lsm_range_threads, lsm_range_count_min_blocks)
    range_count_kernel(const lsm_level_view<Key, Value>* levels, std::uint32_t level_count, const Key* lower,
                       const Key* upper, std::uint64_t queries, std::uint64_t* counts, range_bounds* bounds)
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
        const range_bounds found = bounds_in(views[l], first, last);
        live += views[l].live_before[found.end] - found.live;
        if (bounds != nullptr) { bounds[query * level_count + l] = found; }
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
                        const Key* lower, const Key* upper, std::uint64_t queries, std::uint64_t* counts,
                        range_bounds* bounds)
{
  if (level_count > lsm_range_max_levels || level_count <= 2 || queries == 0) { return false; }
  // A thread per query keeps every multiprocessor busy once queries fill the GPU (and then runs faster:
  // no idle lanes where levels are fewer than the group's lanes); groups pay off only below that.
  int device = 0;
  int multiprocessors = 0;
  int threads_per_multiprocessor = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&threads_per_multiprocessor, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  if (queries >= static_cast<std::uint64_t>(multiprocessors) * static_cast<std::uint64_t>(threads_per_multiprocessor)) {
    return false;
  }
  if (level_count <= 8) {
    range_count_kernel<Key, Value, 8><<<range_blocks(queries, 8), lsm_range_threads, 0, backend.stream>>>(
        levels, level_count, lower, upper, queries, counts, bounds);
  } else {
    range_count_kernel<Key, Value, 32><<<range_blocks(queries, 32), lsm_range_threads, 0, backend.stream>>>(
        levels, level_count, lower, upper, queries, counts, bounds);
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
                       Key* keys_out, Value* values_out, std::uint64_t candidates_per_query, const range_bounds* bounds)
{
  if (level_count > lsm_range_max_levels || queries == 0) { return level_count <= lsm_range_max_levels; }
  if (candidates_per_query <= 64) {
    range_fill_kernel<Key, Value, 8><<<range_blocks(queries, 8), lsm_range_threads, 0, backend.stream>>>(
        levels, level_count, lower, upper, queries, offsets, keys_out, values_out, bounds);
  } else {
    range_fill_kernel<Key, Value, 32><<<range_blocks(queries, 32), lsm_range_threads, 0, backend.stream>>>(
        levels, level_count, lower, upper, queries, offsets, keys_out, values_out, bounds);
  }
  WARPDEX_CUDA_TRY(cudaGetLastError());
  return true;
}

}  // namespace warpdex::detail
