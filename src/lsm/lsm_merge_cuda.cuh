#pragma once
// The merge of two LSM levels in one kernel launch (one more for a large merge, to find its tiles'
// starts), marking as it writes: each block merges a tile of outputs staged in shared memory, so reads
// and writes are coalesced at every size. Thrust's merge_by_key (a partition kernel, a merge kernel, a
// temporary allocation) and a separate marking pass cost 3 launches and a second read of the merged
// keys; the earlier one-launch merge, which searched the merge path per thread and wrote each thread's
// outputs side by side, took 29 us for 2^20 entries, 6x their bytes.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/lsm/detail/lsm_level.hpp>

#include <cub/block/block_reduce.cuh>

#include <cstdint>

namespace warpdex::detail {

/// What the merge writes: every entry, marked (an update's merge); or, for a cleanup's last merge, only
/// the live entries (regular after marking) in two launches: one counts each tile's, one writes them at
/// the tile's offset, so the merged level with its dead entries is never written and read back.
enum class merge_output { all, live_count, live };

inline constexpr unsigned lsm_merge_threads = 256;
inline constexpr unsigned lsm_merge_items = 8;  // outputs per thread
inline constexpr unsigned lsm_merge_tile = lsm_merge_threads * lsm_merge_items;

/// How many of the first `diagonal` outputs of the merge come from `newer` (on equal keys the newer go
/// first): a binary search along the merge path.
template <class Key, class Size>
__device__ Size newer_on_path(const Key* newer, Size newer_size, const Key* older, Size older_size, Size diagonal)
{
  Size low = diagonal > older_size ? diagonal - older_size : 0;
  Size high = diagonal < newer_size ? diagonal : newer_size;
  while (low < high) {
    const Size middle = low + (high - low) / 2;
    if (!(older[diagonal - middle - 1] < newer[middle])) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/// Where each tile of a merge starts in the newer level, all tiles side by side: path[t] for the t-th tile
/// boundary (t * lsm_merge_tile outputs, the last one the total).
template <class Key>
__global__ void merge_path_kernel(const Key* newer_keys, std::uint64_t newer_size, const Key* older_keys,
                                  std::uint64_t older_size, std::uint64_t* path, std::uint64_t boundaries)
{
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= boundaries) { return; }
  const std::uint64_t total = newer_size + older_size;
  const std::uint64_t diagonal = t * lsm_merge_tile < total ? t * lsm_merge_tile : total;
  path[t] = newer_on_path(newer_keys, newer_size, older_keys, older_size, diagonal);
}

/// One tile of lsm_merge_tile outputs a block: two threads find the tile's ends on the merge path, the
/// block stages the tile's entries of both levels in shared memory (coalesced reads), each thread merges
/// lsm_merge_items outputs there, noting each one's source, and the block writes the outputs in order
/// (coalesced writes), marking stale an older entry that follows an entry of its key.
template <class Key, class Value, merge_output Output>
__global__ void __launch_bounds__(lsm_merge_threads)
    merge_levels_kernel(const Key* newer_keys, const Value* newer_values, const std::uint8_t* newer_status,
                        std::uint64_t newer_size, const Key* older_keys, const Value* older_values,
                        const std::uint8_t* older_status, std::uint64_t older_size, Key* keys, Value* values,
                        std::uint8_t* status, std::uint64_t* counters, const std::uint64_t* path)
{
  // live_count: counters receives each tile's live entries; live: counters holds each tile's offset.
  // path: where each tile starts in the newer level (merge_path_kernel), or null for the block to search.
  // The tile's entries, newer then older, staged together: every global read of the tile is issued before
  // the first barrier, instead of the statuses and values being fetched after the merge (a second wait).
  __shared__ Key tile_keys[lsm_merge_tile];
  __shared__ Value tile_values[Output == merge_output::live_count ? 1 : lsm_merge_tile];
  __shared__ std::uint8_t tile_status[lsm_merge_tile];
  __shared__ std::uint16_t source[lsm_merge_tile];  // per output, its entry's place in the tile
  __shared__ std::uint64_t ends[2];
  const std::uint64_t total = newer_size + older_size;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * lsm_merge_tile;
  const std::uint64_t last = first + lsm_merge_tile < total ? first + lsm_merge_tile : total;
  if (threadIdx.x < 2) {
    ends[threadIdx.x] = path != nullptr ? path[blockIdx.x + threadIdx.x]
                                        : newer_on_path(newer_keys, newer_size, older_keys, older_size,
                                                        threadIdx.x == 0 ? first : last);
  }
  __syncthreads();
  const std::uint64_t newer_first = ends[0];
  const std::uint64_t older_first = first - ends[0];
  const auto newer_count = static_cast<unsigned>(ends[1] - ends[0]);
  const auto count = static_cast<unsigned>(last - first);
  const unsigned older_count = count - newer_count;
  // The key written just before the tile, if any: the larger of the last ones taken from each level.
  const bool has_before = newer_first > 0 || older_first > 0;
  Key before{};
  if (newer_first > 0) { before = newer_keys[newer_first - 1]; }
  if (older_first > 0 && (newer_first == 0 || before < older_keys[older_first - 1])) {
    before = older_keys[older_first - 1];
  }
  for (unsigned k = threadIdx.x; k < count; k += lsm_merge_threads) {
    const bool from_newer = k < newer_count;
    const std::uint64_t i = from_newer ? newer_first + k : older_first + (k - newer_count);
    tile_keys[k] = from_newer ? newer_keys[i] : older_keys[i];
    tile_status[k] = from_newer ? newer_status[i] : older_status[i];
    if constexpr (Output != merge_output::live_count) {
      tile_values[k] = from_newer ? newer_values[i] : older_values[i];
    }
  }
  __syncthreads();
  {
    const unsigned diagonal = threadIdx.x * lsm_merge_items < count ? threadIdx.x * lsm_merge_items : count;
    const Key* newer = tile_keys;
    const Key* older = tile_keys + newer_count;
    unsigned i = newer_on_path(newer, newer_count, older, older_count, diagonal);
    unsigned j = diagonal - i;
    const unsigned end = diagonal + lsm_merge_items < count ? diagonal + lsm_merge_items : count;
    for (unsigned out = diagonal; out < end; ++out) {
      const bool take_newer = j >= older_count || (i < newer_count && !(older[j] < newer[i]));
      source[out] = static_cast<std::uint16_t>(take_newer ? i : newer_count + j);
      i += take_newer ? 1 : 0;
      j += take_newer ? 0 : 1;
    }
  }
  __syncthreads();
  // Output `out` of the tile: its key, its place in the tile, and its status after marking stale an older
  // entry that follows an entry of its key.
  struct merged_entry {
    Key key;
    unsigned staged;
    std::uint8_t state;
    bool newly_stale;
  };
  const auto entry = [&](unsigned out) {
    const unsigned staged = source[out];
    merged_entry e{tile_keys[staged], staged, tile_status[staged], false};
    if (staged >= newer_count && e.state != lsm_stale) {
      e.newly_stale = out > 0 ? tile_keys[source[out - 1]] == e.key : has_before && before == e.key;
    }
    return e;
  };
  if constexpr (Output == merge_output::all) {
    int tombstones = 0;
    int stale = 0;
    for (unsigned out = threadIdx.x; out < count; out += lsm_merge_threads) {
      merged_entry e = entry(out);
      if (e.newly_stale) {
        tombstones -= e.state == lsm_tombstone ? 1 : 0;
        stale += 1;
        e.state = lsm_stale;
      }
      keys[first + out] = e.key;
      values[first + out] = tile_values[e.staged];
      status[first + out] = e.state;
    }
    if (tombstones != 0) { add_to_counter(counters + lsm_tombstone_count, tombstones); }
    if (stale != 0) { add_to_counter(counters + lsm_stale_count, stale); }
  } else if constexpr (Output == merge_output::live_count) {
    // A count needs no order: one sum over the block (eight block scans, each behind a barrier, held the
    // count to 0.92 TB/s on an H100).
    unsigned live = 0;
    for (unsigned out = threadIdx.x; out < count; out += lsm_merge_threads) {
      const merged_entry e = entry(out);
      live += !e.newly_stale && e.state == lsm_regular ? 1u : 0u;
    }
    using block_reduce = cub::BlockReduce<unsigned, lsm_merge_threads>;
    __shared__ typename block_reduce::TempStorage reduce_storage;
    const unsigned tile_live = block_reduce(reduce_storage).Sum(live);
    if (threadIdx.x == 0) { counters[blockIdx.x] = tile_live; }
  } else {
    // Each output's place among the tile's live ones, with two barriers instead of one block scan per
    // round: a ballot ranks a round's live outputs within a warp; a warp scans the (round, warp) counts,
    // which run in output order, round by round and warp by warp within a round.
    constexpr unsigned warps = lsm_merge_threads / 32;
    __shared__ unsigned round_base[lsm_merge_items * warps];
    const unsigned lane = threadIdx.x % 32;
    const unsigned warp = threadIdx.x / 32;
    unsigned live_mask[lsm_merge_items];
#pragma unroll
    for (unsigned round = 0; round < lsm_merge_items; ++round) {
      const unsigned out = round * lsm_merge_threads + threadIdx.x;
      bool live = false;
      if (out < count) {
        const merged_entry e = entry(out);
        live = !e.newly_stale && e.state == lsm_regular;
      }
      live_mask[round] = __ballot_sync(0xffffffffu, live);
      if (lane == 0) { round_base[round * warps + warp] = static_cast<unsigned>(__popc(live_mask[round])); }
    }
    __syncthreads();
    if (warp == 0) {
      static_assert(lsm_merge_items * warps <= 2 * 32, "two (round, warp) counts a lane");
      const unsigned first_count = round_base[2 * lane];
      const unsigned pair = first_count + round_base[2 * lane + 1];
      unsigned before = pair;
#pragma unroll
      for (unsigned shift = 1; shift < 32; shift *= 2) {
        const unsigned other = __shfl_up_sync(0xffffffffu, before, shift);
        if (lane >= shift) { before += other; }
      }
      before -= pair;
      round_base[2 * lane] = before;
      round_base[2 * lane + 1] = before + first_count;
    }
    __syncthreads();
    const std::uint64_t offset = counters[blockIdx.x];
    const unsigned lanes_below = (1u << lane) - 1u;
#pragma unroll
    for (unsigned round = 0; round < lsm_merge_items; ++round) {
      if ((live_mask[round] >> lane & 1u) == 0) { continue; }
      const unsigned out = round * lsm_merge_threads + threadIdx.x;
      const merged_entry e = entry(out);
      const std::uint64_t at =
          offset + round_base[round * warps + warp] + static_cast<unsigned>(__popc(live_mask[round] & lanes_below));
      keys[at] = e.key;
      values[at] = tile_values[e.staged];
      status[at] = lsm_regular;
    }
  }
}

/// Tiles of the merge of n entries.
inline std::uint64_t merge_tiles(std::uint64_t n)
{
  return (n + lsm_merge_tile - 1) / lsm_merge_tile;
}

/// Merges of this many tiles or more find their tiles' starts first, all side by side (one launch more):
/// searched by each block, a start's ~log2(n) dependent reads, during which the block does nothing else,
/// bound a merge of many waves of blocks (the cleanup's merges ran at about 25% of copy speed that way).
/// A merge whose tiles fit in about one wave (an H200 holds ~1000 of these blocks) pays that latency once
/// either way, and the launch would only add to it.
inline constexpr std::uint64_t lsm_merge_path_min_tiles = 1024;

/// The tiles' starts of a merge in `path` (tiles + 1 entries) when it is large enough to pay for the launch;
/// an empty buffer otherwise.
template <class Key, class Value>
buffer<std::uint64_t> merge_path(const cuda& backend, const lsm_level<Key, Value>& newer,
                                 const lsm_level<Key, Value>& older)
{
  const std::uint64_t tiles = merge_tiles(newer.size + older.size);
  buffer<std::uint64_t> path;
  if (tiles < lsm_merge_path_min_tiles) { return path; }
  path = make_buffer<std::uint64_t>(backend, tiles + 1);
  constexpr unsigned threads = 256;
  merge_path_kernel<<<static_cast<unsigned>((tiles + 1 + threads - 1) / threads), threads, 0, backend.stream>>>(
      newer.keys, newer.size, older.keys, older.size, path.data(), tiles + 1);
  WARPDEX_CUDA_TRY(cudaGetLastError());
  return path;
}

/// Launches the merge of `newer` and `older` in mode Output into keys / values / status (null for
/// live_count); `counters` as merge_levels_kernel takes it; `path` from merge_path.
template <merge_output Output, class Key, class Value>
void launch_merge(const cuda& backend, const lsm_level<Key, Value>& newer, const lsm_level<Key, Value>& older,
                  Key* keys, Value* values, std::uint8_t* status, std::uint64_t* counters,
                  const buffer<std::uint64_t>& path)
{
  const auto blocks = static_cast<unsigned>(merge_tiles(newer.size + older.size));
  if (blocks == 0) { return; }
  merge_levels_kernel<Key, Value, Output><<<blocks, lsm_merge_threads, 0, backend.stream>>>(
      newer.keys, newer.values, newer.status, newer.size, older.keys, older.values, older.status, older.size, keys,
      values, status, counters, path.size() > 0 ? path.data() : nullptr);
  WARPDEX_CUDA_TRY(cudaGetLastError());
}

/// An update's merge: every entry, marked, into `merged`; the dead-entry counts change in `counters`.
template <class Key, class Value>
void launch_merge_levels(const cuda& backend, const lsm_level<Key, Value>& newer, const lsm_level<Key, Value>& older,
                         lsm_level<Key, Value>& merged, std::uint64_t* counters)
{
  if (merged.size == 0) { return; }
  launch_merge<merge_output::all>(backend, newer, older, merged.keys, merged.values, merged.status, counters,
                                  merge_path(backend, newer, older));
}

/// A cleanup's last merge, first launch: each tile's count of live entries into offsets[0, tiles), which
/// the caller turns into offsets by an exclusive scan over tiles + 1 entries.
template <class Key, class Value>
void launch_count_live_merge(const cuda& backend, const lsm_level<Key, Value>& newer,
                             const lsm_level<Key, Value>& older, std::uint64_t* offsets,
                             const buffer<std::uint64_t>& path)
{
  launch_merge<merge_output::live_count>(backend, newer, older, static_cast<Key*>(nullptr),
                                         static_cast<Value*>(nullptr), nullptr, offsets, path);
}

/// Second launch: the live entries, each tile's from its offset, into `live` (sized by the scan's total).
template <class Key, class Value>
void launch_write_live_merge(const cuda& backend, const lsm_level<Key, Value>& newer,
                             const lsm_level<Key, Value>& older, std::uint64_t* offsets, const buffer<std::uint64_t>& path,
                             lsm_level<Key, Value>& live)
{
  launch_merge<merge_output::live>(backend, newer, older, live.keys, live.values, live.status, offsets, path);
}

}  // namespace warpdex::detail
