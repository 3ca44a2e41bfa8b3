// SSSP's rounds on the device: one cooperative kernel runs every round of delta-stepping, near-far and
// Bellman-Ford (sssp_rounds.hpp).
//
// The pending vertices live in buckets by tentative distance: bucket b holds [low + b delta,
// low + (b + 1) delta), the last bucket everything further (near-far: 2 buckets, the near queue and the
// far pile; Bellman-Ford: everything in bucket 0). A round takes the lowest nonempty bucket below the
// last as its frontier and relaxes its arcs; each improved vertex that was in no bucket is appended to
// the bucket of its new distance by a warp-level multisplit (lanes ranked by bucket with match_any,
// one atomic per bucket per warp). When only the last bucket holds vertices, `low` moves to their
// smallest distance and they are split over the buckets again. Each bucket has its own array of n
// entries: the `queued` flags keep every vertex in at most one bucket, and the bucket taken as the
// frontier swaps its array with a spare one, so appends never touch the array being read.
//
// One grid barrier a round: every block keeps its own copy of the buckets' arrays and sizes in shared
// memory and updates it the same way from the same counts, so no block waits for another to choose the
// round. The appends of round r count in counters[r % 3]: read by every block after round r's barrier,
// zeroed during round r + 2, reused in round r + 3.
//
// Load balance: a warp takes 32 frontier vertices; the arcs of those of up to 32 arcs are spread over the
// lanes (a warp scan), and the others are cut into chunks of chunk_arcs that every warp of the grid
// shares in the next round, before its frontier.
//
// Ordering: the vertex a round relaxes has its flag cleared before its distance is read (with a fence
// between), and a relaxation lowers the distance before it sets the flag (fence between): either the
// reader sees the lower distance or the relaxation finds the flag clear and queues the vertex again. A
// chunk reads its vertex's distance when it runs, after the flag was cleared, which is as good.

#include "sssp_atomics.hpp"
#include "sssp_rounds.hpp"
#include "sssp_warp_arcs.cuh"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/warp.cuh>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <vector>

namespace warpdex::graph::detail {
namespace {

namespace cg = cooperative_groups;

constexpr int block_threads = 256;
constexpr std::uint32_t max_buckets = 256;
/// Arcs of a chunk of a vertex of more than 32 arcs (a warp's two steps).
constexpr std::uint64_t chunk_arcs = 64;
/// Rounds of at most this many frontier vertices (a chunk counting as 4) relax with an atomic minimum at
/// once, without reading the target's distance first.
constexpr std::uint64_t small_round = 16384;

enum : std::uint32_t { mode_relax = 0, mode_rebucket = 1, mode_done = 2 };

/// What the rounds report, added up once at the end.
struct rounds_totals {
  unsigned long long rounds;
  unsigned long long relaxed_arcs;
  unsigned long long bucketed;
  unsigned long long bucketing_cycles;  ///< warp cycles in appends and splits (lane 0 of each warp)
  unsigned long long warp_cycles;       ///< warp cycles in all
};

template <class Weight>
struct rounds_params {
  using distance_type = distance_t<Weight>;
  const std::uint64_t* row_offsets;
  const vertex_id* columns;
  const Weight* weights;
  distance_type* distances;
  std::uint32_t* queued;
  vertex_id* const* arrays;     ///< buckets + 1 arrays of n entries; bucket b starts in array b
  std::uint32_t pending_count;  ///< the pending vertices, in the last bucket's array at the start
  std::uint32_t* counters;      ///< 3 x buckets append counters (round r uses counters + (r % 3) x buckets)
  std::uint32_t* chunk_counts;  ///< 3: the chunks round r made
  distance_type* far_mins;      ///< 3: the smallest distance of the last bucket, in a round that splits it
  uint2* chunks[2];             ///< (vertex, chunk index) made in round r: chunks[r % 2]
  rounds_totals* totals;
  distance_type delta;
  std::uint32_t bucket_count;
  bool single_bucket;  ///< Bellman-Ford: every vertex in bucket 0

  __device__ std::uint32_t bucket_of(distance_type distance, distance_type low) const
  {
    const std::uint32_t last = bucket_count - 1;
    if (single_bucket || !(distance > low)) { return 0; }
    const distance_type steps = (distance - low) / delta;
    return steps < static_cast<distance_type>(last) ? static_cast<std::uint32_t>(steps) : last;
  }

  __device__ Weight weight(std::uint64_t arc) const { return weights != nullptr ? __ldg(&weights[arc]) : Weight(1); }
};

/// Each block's copy of the buckets (identical in every block).
template <class Distance>
struct block_buckets {
  vertex_id* arrays[max_buckets];      ///< the array bucket b appends to
  std::uint32_t slots[max_buckets];    ///< its index in rounds_params::arrays
  std::uint32_t sizes[max_buckets];    ///< its entries before this round's counters
  std::uint32_t spare;                 ///< the array index no bucket uses
  std::uint32_t mode;
  const vertex_id* frontier;
  std::uint32_t frontier_count;
  std::uint32_t pending_chunks;  ///< made by the previous round, run in this one
  Distance low;
};

template <class T>
__device__ T volatile_load(const T* address)
{
  return *static_cast<const volatile T*>(address);
}

/// Per-thread tallies, added to the totals once at the end.
struct tallies {
  unsigned long long relaxed_arcs = 0;
  unsigned long long bucketed = 0;
  unsigned long long bucketing_cycles = 0;
};

/// Appends, for every lane that wants to, vertex v to bucket b: a warp-level multisplit (called by the
/// whole warp, converged). `counters` are this round's; positions start after the block's sizes.
template <class Distance>
__device__ void append(const block_buckets<Distance>& buckets, std::uint32_t* counters, bool want, vertex_id v,
                       std::uint32_t bucket, tallies& tally)
{
  const long long started = clock64();
  const unsigned wanting = __ballot_sync(warp::full_mask, want);
  if (want) {
    const unsigned peers = __match_any_sync(wanting, bucket);
    const int leader = __ffs(peers) - 1;
    std::uint32_t at = 0;
    if (static_cast<int>(warp::lane_id()) == leader) { at = atomicAdd(&counters[bucket], __popc(peers)); }
    at = __shfl_sync(peers, at, leader);
    buckets.arrays[bucket][buckets.sizes[bucket] + at + __popc(peers & warp::lanemask_lt())] = v;
    ++tally.bucketed;
  }
  if (warp::lane_id() == 0 && wanting != 0) { tally.bucketing_cycles += static_cast<unsigned long long>(clock64() - started); }
}

/// Relaxes `arcs` arcs per lane, arc k at first + k x stride when below end, from a vertex at distance
/// `from`, then appends what they queued (the whole warp calls this, converged). The loads of all the
/// lane's arcs are issued before the first is used.
template <int arcs, class Weight>
__device__ void relax_arcs(const rounds_params<Weight>& p, const block_buckets<distance_t<Weight>>& buckets,
                           std::uint32_t* counters, std::uint64_t first, std::uint64_t stride, std::uint64_t end,
                           distance_t<Weight> from, bool read_first, tallies& tally)
{
  using distance_type = distance_t<Weight>;
  vertex_id targets[arcs];
  distance_type candidates[arcs];
  distance_type known[arcs];
#pragma unroll
  for (int k = 0; k < arcs; ++k) {
    const std::uint64_t arc = first + k * stride;
    targets[k] = arc < end ? __ldg(&p.columns[arc]) : 0;
    candidates[k] = arc < end ? from + static_cast<distance_type>(p.weight(arc)) : distance_type{};
  }
#pragma unroll
  for (int k = 0; k < arcs; ++k) {
    // A read first where atomics are many (most relaxations do not improve, and a read is cheaper than an
    // atomic); in small rounds it would only lengthen the chain of round trips.
    known[k] = first + k * stride < end ? (read_first ? relaxed_load(&p.distances[targets[k]]) : unreachable<Weight>)
                                        : distance_type{};
  }
#pragma unroll
  for (int k = 0; k < arcs; ++k) {
    bool queue = false;
    std::uint32_t bucket = 0;
    if (first + k * stride < end && candidates[k] < known[k] &&
        candidates[k] < atomic_min_value(&p.distances[targets[k]], candidates[k])) {
      __threadfence();
      if (atomicExch(&p.queued[targets[k]], 1U) == 0) {
        queue = true;
        bucket = p.bucket_of(candidates[k], buckets.low);
      }
    }
    append(buckets, counters, queue, targets[k], bucket, tally);
  }
}

template <class Weight>
__global__ void __launch_bounds__(block_threads) sssp_rounds_kernel(rounds_params<Weight> p)
{
  using distance_type = distance_t<Weight>;
  constexpr distance_type infinity = unreachable<Weight>;
  const cg::grid_group grid = cg::this_grid();
  __shared__ block_buckets<distance_type> buckets;
  const unsigned lane = warp::lane_id();
  const std::uint64_t warp_index = warp::global_warp_id();
  const std::uint64_t warp_count = static_cast<std::uint64_t>(gridDim.x) * blockDim.x / warp::size;
  const long long started = clock64();
  tallies tally;
  unsigned long long rounds = 0;
  const std::uint32_t bucket_count = p.bucket_count;
  const std::uint32_t last = bucket_count - 1;
  for (std::uint32_t b = threadIdx.x; b < bucket_count; b += blockDim.x) {
    buckets.arrays[b] = p.arrays[b];
    buckets.slots[b] = b;
    buckets.sizes[b] = b == last ? p.pending_count : 0U;  // split in the first round
  }
  if (threadIdx.x == 0) {
    buckets.spare = bucket_count;
    buckets.low = distance_type{0};
  }

  for (std::uint32_t round = 0;; ++round) {
    const std::uint32_t current = round % 3;
    const std::uint32_t previous = (round + 2) % 3;
    const std::uint32_t following = (round + 1) % 3;
    std::uint32_t* const counters = p.counters + current * bucket_count;
    __syncthreads();
    // The previous round's appends, final since its barrier.
    for (std::uint32_t b = threadIdx.x; b < bucket_count; b += blockDim.x) {
      buckets.sizes[b] += volatile_load(&p.counters[previous * bucket_count + b]);
    }
    if (threadIdx.x == 0) { buckets.pending_chunks = round == 0 ? 0U : volatile_load(&p.chunk_counts[previous]); }
    // The counters of the next round: their last readers passed this round's barrier.
    if (blockIdx.x == 0) {
      for (std::uint32_t b = threadIdx.x; b < bucket_count; b += blockDim.x) {
        p.counters[following * bucket_count + b] = 0;
      }
      if (threadIdx.x == 0) {
        p.chunk_counts[following] = 0;
        p.far_mins[following] = infinity;
      }
    }
    __syncthreads();
    // Choose: the lowest nonempty bucket below the last; else the chunks left; else split the last.
    if (threadIdx.x < warp::size) {
      std::uint32_t bucket = last;
      for (std::uint32_t first = 0; first < last; first += warp::size) {
        const unsigned nonempty = __ballot_sync(warp::full_mask, first + lane < last && buckets.sizes[first + lane] != 0);
        if (nonempty != 0) {
          bucket = first + static_cast<std::uint32_t>(__ffs(nonempty) - 1);
          break;
        }
      }
      if (lane == 0) {
        buckets.frontier_count = 0;
        if (bucket < last || (buckets.pending_chunks == 0 && buckets.sizes[last] != 0)) {
          // Take the bucket: it appends to the spare array from now on.
          buckets.mode = bucket < last ? mode_relax : mode_rebucket;
          buckets.frontier = buckets.arrays[bucket];
          buckets.frontier_count = buckets.sizes[bucket];
          const std::uint32_t taken = buckets.slots[bucket];
          buckets.slots[bucket] = buckets.spare;
          buckets.arrays[bucket] = p.arrays[buckets.spare];
          buckets.sizes[bucket] = 0;
          buckets.spare = taken;
        } else {
          buckets.mode = buckets.pending_chunks != 0 ? mode_relax : mode_done;
        }
      }
    }
    __syncthreads();
    const std::uint32_t mode = buckets.mode;
    if (mode == mode_done) { break; }
    const vertex_id* const frontier = buckets.frontier;
    const std::uint32_t frontier_count = buckets.frontier_count;

    if (mode == mode_rebucket) {
      // The last bucket alone is left: low moves to its nearest vertex and it is split again.
      const long long split_started = clock64();
      distance_type nearest = infinity;
      for (std::uint64_t i = grid.thread_rank(); i < frontier_count; i += grid.size()) {
        const distance_type d = relaxed_load(&p.distances[__ldcg(&frontier[i])]);
        nearest = d < nearest ? d : nearest;
      }
      for (int offset = warp::size / 2; offset > 0; offset /= 2) {
        const distance_type other = __shfl_xor_sync(warp::full_mask, nearest, offset);
        nearest = other < nearest ? other : nearest;
      }
      if (lane == 0) { atomic_min_value(&p.far_mins[current], nearest); }
      grid.sync();
      if (threadIdx.x == 0) { buckets.low = volatile_load(&p.far_mins[current]); }
      __syncthreads();
      for (std::uint64_t base = warp_index * warp::size; base < frontier_count; base += warp_count * warp::size) {
        const std::uint64_t i = base + lane;
        const bool has = i < frontier_count;
        const vertex_id v = has ? __ldcg(&frontier[i]) : 0;
        const std::uint32_t bucket = has ? p.bucket_of(relaxed_load(&p.distances[v]), buckets.low) : 0;
        append(buckets, counters, has, v, bucket, tally);
      }
      if (lane == 0) { tally.bucketing_cycles += static_cast<unsigned long long>(clock64() - split_started); }
      grid.sync();
      continue;
    }

    if (frontier_count != 0 && blockIdx.x == 0 && threadIdx.x == 0) { ++rounds; }
    const bool read_first = frontier_count + static_cast<std::uint64_t>(buckets.pending_chunks) * 4 > small_round;
    // The chunks of the previous round's vertices of more than 32 arcs: a warp per chunk.
    const uint2* const chunks_in = p.chunks[(round + 1) % 2];
    for (std::uint64_t c = warp_index; c < buckets.pending_chunks; c += warp_count) {
      const uint2 chunk = __ldcg(&chunks_in[c]);
      const std::uint64_t row_end = __ldg(&p.row_offsets[chunk.x + 1]);
      const std::uint64_t begin = __ldg(&p.row_offsets[chunk.x]) + chunk.y * chunk_arcs;
      const std::uint64_t end = begin + chunk_arcs < row_end ? begin + chunk_arcs : row_end;
      relax_arcs<chunk_arcs / warp::size>(p, buckets, counters, begin + lane, warp::size, end,
                                          relaxed_load(&p.distances[chunk.x]), read_first, tally);
    }
    uint2* const chunks_out = p.chunks[round % 2];
    for (std::uint64_t base = warp_index * warp::size; base < frontier_count; base += warp_count * warp::size) {
      const std::uint64_t i = base + lane;
      vertex_id v = 0;
      distance_type from{};
      std::uint64_t begin = 0;
      std::uint64_t end = 0;
      if (i < frontier_count) {
        v = __ldcg(&frontier[i]);
        begin = __ldg(&p.row_offsets[v]);
        end = __ldg(&p.row_offsets[v + 1]);
        atomicExch(&p.queued[v], 0U);
        __threadfence();
        from = relaxed_load(&p.distances[v]);
        tally.relaxed_arcs += end - begin;
      }
      // Vertices of more than 32 arcs: cut into chunks for the next round (the warp writes each vertex's
      // chunks together).
      const std::uint64_t degree = end - begin;
      const std::uint32_t chunks =
          degree > warp::size ? static_cast<std::uint32_t>((degree + chunk_arcs - 1) / chunk_arcs) : 0U;
      const unsigned chunked = __ballot_sync(warp::full_mask, chunks != 0);
      if (chunked != 0) {
        std::uint32_t chunks_through = chunks;
        for (int offset = 1; offset < warp::size; offset *= 2) {
          const std::uint32_t below = __shfl_up_sync(warp::full_mask, chunks_through, offset);
          if (static_cast<int>(lane) >= offset) { chunks_through += below; }
        }
        std::uint32_t at = 0;
        if (lane == warp::size - 1) { at = atomicAdd(&p.chunk_counts[current], chunks_through); }
        at = __shfl_sync(warp::full_mask, at, warp::size - 1) + chunks_through - chunks;
        for (unsigned owners = chunked; owners != 0; owners &= owners - 1) {
          const int owner = __ffs(owners) - 1;
          const std::uint32_t owner_at = __shfl_sync(warp::full_mask, at, owner);
          const std::uint32_t owner_chunks = __shfl_sync(warp::full_mask, chunks, owner);
          const vertex_id owner_vertex = __shfl_sync(warp::full_mask, v, owner);
          for (std::uint32_t c = lane; c < owner_chunks; c += warp::size) {
            chunks_out[owner_at + c] = make_uint2(owner_vertex, c);
          }
        }
      }
      // Vertices of up to 32 arcs: their arcs laid end to end over the lanes (a warp scan).
      const std::uint32_t light = degree <= warp::size ? static_cast<std::uint32_t>(degree) : 0U;
      for_each_spread_arc(light, begin, from, [&](bool has, std::uint64_t arc, distance_type arc_from) {
        relax_arcs<1>(p, buckets, counters, arc, 0, has ? arc + 1 : arc, arc_from, read_first, tally);
      });
    }
    grid.sync();
  }
  rounds_totals* totals = p.totals;
  atomicAdd(&totals->relaxed_arcs, tally.relaxed_arcs);
  atomicAdd(&totals->bucketed, tally.bucketed);
  if (blockIdx.x == 0 && threadIdx.x == 0) { atomicAdd(&totals->rounds, rounds); }
  if (lane == 0) {
    atomicAdd(&totals->bucketing_cycles, tally.bucketing_cycles);
    atomicAdd(&totals->warp_cycles, static_cast<unsigned long long>(clock64() - started));
  }
}

std::uint64_t chunk_capacity(std::uint64_t arcs)
{
  // A vertex of d > 32 arcs makes ceil(d / chunk_arcs) <= 1 + d / chunk_arcs <= 2 d / 33 chunks (as
  // d / 33 >= 1 and chunk_arcs >= 33), and a round's frontier holds each vertex once.
  static_assert(chunk_arcs >= 33);
  return 2 * arcs / 33 + 1;
}

template <class Weight>
std::uint64_t device_rounds_bytes(const device_rounds_input<Weight>& input)
{
  const std::uint64_t buckets = device_round_buckets(input);
  return (buckets + 1) * input.vertex_count * sizeof(vertex_id) + 2 * chunk_capacity(input.arc_count) * sizeof(uint2);
}

}  // namespace

template <class Weight>
bool device_rounds_possible(const device_rounds_input<Weight>& input)
{
  int device = 0;
  int cooperative = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  WARPDEX_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  return cooperative != 0 && device_round_buckets(input) <= max_buckets &&
         input.vertex_count < std::numeric_limits<std::uint32_t>::max() &&
         device_rounds_bytes(input) <= free_bytes / 2;
}

template <class Weight>
void run_device_rounds(const cuda& backend, const device_rounds_input<Weight>& input, sssp_statistics& statistics)
{
  using distance_type = distance_t<Weight>;
  const std::uint32_t buckets = device_round_buckets(input);
  const std::uint64_t n = input.vertex_count;
  const std::uint64_t chunk_room = chunk_capacity(input.arc_count);
  auto storage = make_buffer<vertex_id>(backend, (static_cast<std::uint64_t>(buckets) + 1) * n);
  auto chunks = make_buffer<uint2>(backend, 2 * chunk_room);
  std::vector<vertex_id*> array_table(buckets + 1);
  for (std::uint32_t b = 0; b <= buckets; ++b) { array_table[b] = storage.data() + b * n; }
  auto array_table_device = make_buffer<vertex_id*>(backend, array_table.size());
  array_table_device.copy_from(std::span<vertex_id* const>(array_table));
  const std::vector<std::uint32_t> zero_counters(3 * static_cast<std::size_t>(buckets) + 3, 0);
  auto counters = make_buffer<std::uint32_t>(backend, zero_counters.size());  // then the 3 chunk counts
  counters.copy_from(std::span<const std::uint32_t>(zero_counters));
  const distance_type far_mins[3] = {unreachable<Weight>, unreachable<Weight>, unreachable<Weight>};
  auto far_mins_device = make_buffer<distance_type>(backend, 3);
  far_mins_device.copy_from(std::span<const distance_type>(far_mins));
  const rounds_totals zero_totals{};
  auto totals = make_buffer<rounds_totals>(backend, 1);
  totals.copy_from(std::span<const rounds_totals>(&zero_totals, 1));
  WARPDEX_CUDA_TRY(cudaMemcpyAsync(array_table[buckets - 1], input.pending, input.pending_count * sizeof(vertex_id),
                                   cudaMemcpyDeviceToDevice, backend.stream));

  rounds_params<Weight> params{input.row_offsets,
                               input.columns,
                               input.weights,
                               input.distances,
                               input.queued,
                               array_table_device.data(),
                               static_cast<std::uint32_t>(input.pending_count),
                               counters.data(),
                               counters.data() + 3 * static_cast<std::size_t>(buckets),
                               far_mins_device.data(),
                               {chunks.data(), chunks.data() + chunk_room},
                               totals.data(),
                               input.algorithm == sssp_algorithm::bellman_ford ? distance_type{1} : input.delta,
                               buckets,
                               input.algorithm == sssp_algorithm::bellman_ford};
  const void* kernel = reinterpret_cast<const void*>(&sssp_rounds_kernel<Weight>);
  int device = 0;
  int sm_count = 0;
  int resident = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  WARPDEX_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, block_threads, 0));
  // Every block must be resident at once for the grid barriers. Two per multiprocessor: a barrier costs
  // more the more blocks arrive at it, and fewer warps hide less latency. On an H200, 2 of the 6 that fit
  // ran the 4096 x 4096 grid 1.5x faster (14 instead of 21 us a round) and R-MAT 2^24 6% slower; 1 ran
  // the grid 1.7x faster and R-MAT 26% slower.
  const unsigned blocks = static_cast<unsigned>(sm_count * std::clamp(resident, 1, 2));
  void* arguments[] = {&params};
  backend.synchronize();  // the copies above (and the distances' initialization) before the clock starts
  const auto started = std::chrono::steady_clock::now();
  WARPDEX_CUDA_TRY(
      cudaLaunchCooperativeKernel(kernel, dim3(blocks), dim3(block_threads), arguments, 0, backend.stream));
  backend.synchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto state = totals.to_vector().front();
  statistics.rounds += state.rounds;
  statistics.relaxed_arcs += state.relaxed_arcs;
  statistics.bucketed_vertices += state.bucketed;
  const double share =
      state.warp_cycles > 0 ? static_cast<double>(state.bucketing_cycles) / static_cast<double>(state.warp_cycles) : 0.0;
  statistics.bucketing_seconds += share * seconds;
}

template bool device_rounds_possible<std::int32_t>(const device_rounds_input<std::int32_t>&);
template bool device_rounds_possible<float>(const device_rounds_input<float>&);
template void run_device_rounds<std::int32_t>(const cuda&, const device_rounds_input<std::int32_t>&, sssp_statistics&);
template void run_device_rounds<float>(const cuda&, const device_rounds_input<float>&, sssp_statistics&);

}  // namespace warpdex::graph::detail
