// The cuda backend's asynchronous delta-stepping (sssp_async.hpp): persistent warps pull vertices from a
// device-side queue of buckets and append what they improve, with no round and no barrier.
//
// The queue: `near_rings` rings of buckets by tentative distance, a far ring beyond them, and a ring of
// chunks of the vertices of many arcs. The window (low, delta, base) maps a distance d to bucket
// i = (d - low) / delta (0 below low): ring (base + i) mod near_rings when i < near_rings, else the far
// ring. A warp takes up to 32 vertices (fewer from a small bucket) from the lowest nonempty ring of the
// window (chunks first), relaxes their arcs (those of up to heavy_arcs arcs spread over its lanes by a
// warp scan; a vertex of more is cut into chunks of chunk_arcs that any warp takes), and appends each
// vertex it improves that was in no ring by a warp-level multisplit: lanes ranked by ring with
// match_any, one atomic per ring per warp.
//
// Two ways to queue and append (flag_place, chosen by the graph's mean out-degree). Road-like graphs keep
// the queued flags apart from the distances (release / acquire between them) and publish each 32-arc
// step's appends at once with two fences. Denser graphs (R-MAT) keep the flag in the distance's word and
// publish a warp's appends once a batch: the vertices a warp queues while relaxing a batch (a take, a
// stack's 32, a chunk) wait in its shared memory with their ring, and the warp publishes them together
// (`publish`): one add to `pending` and one fence, then per ring one atomic on the tail, the slots, and
// one add to the count. A fence waits for the warp's loads and atomics in flight, so one in every
// 32-arc step (an append paid two, a lowering one) kept a step's loads from overlapping the next; on
// R-MAT a relaxation appends one time in 45 and about half the steps appended.
//
// Rings: each holds up to `capacity` entries in slots that read no_vertex when free, and counts the
// entries filled and not yet taken. An append reserves indices with an atomic on the ring's tail, fills
// each slot once it is free, then adds to the count; a take subtracts from the count what it wants (and
// gives back what the count did not hold), then reserves that many indices with an atomic on the head and
// empties their slots: atomics only, no compare-and-swap loop for thousands of warps to retry. The queued
// flags keep every vertex in at most one ring, so the entries not yet taken number at most n, and those
// reserved but not yet read at most the threads: capacity = n + threads + 64 means the slot an append
// waits for was reserved already by a take that empties it without waiting on anything.
//
// Takers in proportion to the entries: a warp that sees a near bucket hold e entries takes up to 8 of
// them (32 once the bucket holds 16 per warp of the grid) and tries only when a ticket it draws in
// 0 .. warps - 1 is below 16 times the takes the bucket holds; the others, and every warp whose take or
// look found nothing, sleep with a backoff that doubles up to ~2 ns per warp of the grid. Without this
// every waiting warp (thousands, 95% of them on a road graph) went at the two counters of a bucket of
// a few vertices as soon as it read the count, 36 empty takes for each one that got vertices.
//
// A warp's own stack: an append whose vertex falls in the bucket the warp is relaxing goes to a stack
// of up to stack_bound vertices in the warp's shared memory (no atomic, no fence), the rest and any past
// the bound to the rings; the warp relaxes its stack, 32 at a time, before it takes again, and keeps its
// take in flight and pending until the stack is empty (so the window stays and the end is not read). A
// hop of a road-like graph's wavefront then costs one warp's relaxation instead of an append, a take by
// another warp and the wait for it. While the bucket holds fewer entries than 8 per warp of the grid
// (read before each batch), the stack keeps no more than the warp's take and the rest go to the ring:
// kept whole, the stacks of the first takers ran a short bucket depth-first while the other warps found
// the rings empty (97% of a geometric graph's vertices came off the stacks, the warps idle 94%).
//
// The window moves without a barrier: a warp that finds bucket 0 empty and a later one not moves base and
// low up to it; when every near ring is empty and the far ring has been re-read since the last move, low
// jumps to the far ring's smallest distance (or past the window) and the far entries are appended again
// as they are taken. The window moves past bucket 0 only when it is empty and none of its vertices is
// still being relaxed: `inflight` counts, per near ring, the entries taken and not yet done (a vertex's
// chunks included), so warps wait on the current bucket instead of running ahead of it (a vertex taken
// early from a later bucket is relaxed again when a vertex of the current one lowers it).
//
// The width follows the wasted work: every take counts its vertices (pops) and those taken before
// (repeats: a bit of `queued` per vertex, set by the first take). At a move, once `sample` pops
// were taken since the last decision, the share of them taken for the first time (fresh) is set
// against the first decision's, taken at the first width (near-far's rule, whose own work repeats
// ~40% of its pops on a road graph and ~65% on R-MAT): delta halves when the pops per fresh vertex
// passed twice the first decision's and half of the pops were repeats, and doubles when they are
// under 4/3 of the first decision's and the near rings hold fewer entries than half the grid's
// threads (within 1/8 .. 64 times the first width): wider while the warps starve and width costs
// little beyond what the first width cost. With no repeats in the first sample this is the absolute
// rule of halving above 1/2 repeats and doubling below 1/4. An entry placed by an outdated window is
// only out of order: a vertex is relaxed again after every decrease of its distance, so any order
// ends at the same fixpoint.
//
// The end: `pending` counts the entries appended and not yet finished, raised before an entry can be
// taken and lowered after its relaxations (and their appends) are done. A warp that finds nothing and
// reads pending = 0 leaves: nothing is queued or being relaxed.
//
// The queued flag in the distance's word (flag_place::in_word, distance_word): bit 0 of (distance << 1 |
// queued), so one atomic minimum of (candidate << 1 | 1) lowers the distance and queues the vertex
// together (the old word's bit 0 says whether it was queued already), and a take clears the bit with an
// atomic AND whose result is the distance to relax from. One address, one atomic each: no order between
// two addresses to keep, so no fence on a relaxation (with the flag apart, its release after each
// lowering was 18% of the warps' stall samples on R-MAT 2^22). The words are packed before the launch
// and unpacked after it; `queued` keeps only the bit a take sets for the width rule's repeats (a count,
// not an order).

#include "sssp_async.hpp"
#include "sssp_atomics.hpp"
#include "sssp_warp_arcs.cuh"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/warp.cuh>

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace warpdex::graph::detail {
namespace {

constexpr int block_threads = 256;
constexpr std::uint32_t near_rings = 16;
constexpr std::uint32_t far_ring = near_rings;
constexpr std::uint32_t ring_count = near_rings + 1;
/// Vertices of more arcs are cut into chunks.
constexpr std::uint64_t heavy_arcs = 256;
constexpr std::uint64_t chunk_arcs = 256;
/// A warp's own stack of vertices it improved into the bucket it is relaxing (shared memory).
constexpr unsigned stack_bound = 64;
/// The vertices a warp queued for the rings and has not published yet (shared memory): a batch on R-MAT
/// queues a few (one relaxation in 45 appends); a full stage is published at once.
constexpr unsigned stage_bound = 64;
constexpr unsigned long long no_chunk = ~0ULL;
/// A chunk entry: vertex << 32 | ring << chunk_bits | chunk (the ring whose in-flight count it holds).
constexpr int chunk_bits = 27;
constexpr unsigned long long chunk_mask = (1ULL << chunk_bits) - 1;

/// A distance and its vertex's queued flag in one word: distance << 1 | queued. Words order like their
/// distances (the flag breaks ties only), so an atomic minimum on words is one on distances. A float
/// distance is >= 0 and its bit pattern fits 31 bits (+infinity too); an integer one is below 2^63 - 1
/// (at most 2^32 vertices times 2^31 - 1), and unreachable's word (all ones but the flag) unpacks to
/// unreachable.
template <class Distance>
struct distance_word {
  using type = std::conditional_t<std::is_same_v<Distance, float>, unsigned, unsigned long long>;

  __device__ static type pack(Distance distance)
  {
    if constexpr (std::is_same_v<Distance, float>) {
      return __float_as_uint(distance) << 1;
    } else {
      return static_cast<type>(distance) << 1;
    }
  }

  __device__ static Distance unpack(type word)
  {
    if constexpr (std::is_same_v<Distance, float>) {
      return __uint_as_float(word >> 1);
    } else {
      return (word >> 1) == (~type{0} >> 1) ? std::numeric_limits<Distance>::max() : static_cast<Distance>(word >> 1);
    }
  }
};

/// Where a vertex's queued flag lives, and so how a relaxation queues it and how a warp's appends reach
/// the rings (run_async_delta_stepping chooses by the graph's mean out-degree):
/// - `apart`: in `queued`. A relaxation lowers the distance, then sets the flag with release; a take clears
///   it with acquire, then reads the distance (flag_ref). Each 32-arc step publishes its appends with two
///   fences. Road-like graphs: their time is the hops' latency (the warps idle 75-85%).
/// - `in_word`: in the distance's word (distance_word), no fence on a relaxation, two arcs a lane at a time
///   (relax_in_word); a warp's appends are published once a batch (publish). R-MAT: on an H200 2^24 and 2^22 ran 1.7x
///   and 1.6x faster than `apart`, while the 4096^2 grid and the geometric graph of 2^23 points ran 29-46% and 7-12%
///   slower (docs/graph.md).
enum class flag_place { apart, in_word };

/// Counters on their own 128-byte lines (every warp hits them).
struct alignas(128) padded_counter {
  unsigned long long value;
};

template <class Distance>
struct window_state {
  unsigned long long version;  ///< even: stable; odd: being moved
  Distance low;
  Distance delta;
  std::uint32_t base;
  unsigned long long far_mark;      ///< the far ring's tail at the last move
  unsigned long long mark_pops;     ///< pops at the last width decision
  unsigned long long mark_repeats;  ///< repeats at the last width decision
  unsigned long long first_pops;    ///< the first decision's pops (0: none yet)
  unsigned long long first_fresh;   ///< of those, the vertices taken for the first time
};

struct async_totals {
  unsigned long long relaxed_arcs;
  unsigned long long appended;
  unsigned long long moves;
  unsigned long long busy_cycles;   ///< warp cycles taking and relaxing
  unsigned long long queue_cycles;  ///< of those, in appends
  unsigned long long idle_cycles;   ///< warp cycles finding nothing to take
  unsigned long long takes;         ///< near takes that got vertices
  unsigned long long empty_takes;   ///< near takes that found the ring empty after all
  unsigned long long deferred;      ///< near takes put off by the ticket
};

template <class Weight>
struct async_params {
  using distance_type = distance_t<Weight>;
  using word_type = typename distance_word<distance_type>::type;
  const std::uint64_t* row_offsets;
  const vertex_id* columns;
  const Weight* weights;
  distance_type* distances;        ///< flag_place::apart: the distances
  word_type* words;                ///< flag_place::in_word: the same memory, distances packed with their flags
  std::uint32_t* queued;           ///< apart: queued (bit 0) and taken (bit 1); in_word: taken (1)
  vertex_id* rings;                ///< ring_count x capacity slots
  unsigned long long* chunk_ring;  ///< chunk_capacity slots: vertex << 32 | chunk
  padded_counter* heads;           ///< ring_count + 1 (the last: chunks)
  padded_counter* tails;           ///< ring_count + 1
  padded_counter* counts;          ///< ring_count + 1: entries filled and not yet taken (signed)
  padded_counter* pending;         ///< 1
  padded_counter* inflight;        ///< near_rings: entries taken from the ring and not yet relaxed
  padded_counter* work;            ///< 3: pops, repeats (vertices taken, of those taken before), pops from stacks
  window_state<distance_type>* window;
  distance_type* far_min;  ///< the smallest distance appended to the far ring since the last move
  async_totals* totals;
  std::uint64_t capacity;
  std::uint64_t chunk_capacity;
  distance_type min_delta;
  distance_type max_delta;
  unsigned long long busy_low;  ///< near entries below which delta may double
  unsigned long long sample;    ///< pops between width decisions
  std::uint32_t warps;          ///< the grid's warps (tickets are drawn in 0 .. warps - 1)
  unsigned idle_sleep;          ///< the longest backoff of a warp finding no work, in nanoseconds
  unsigned stack_keep;          ///< the most vertices a warp keeps on its stack (at most stack_bound)
  /// While the bucket a warp relaxes holds fewer entries than this, its stack keeps at most the warp's
  /// take (`want`): the rest go to the ring for the waiting warps.
  unsigned long long share_below;

  __device__ Weight weight(std::uint64_t arc) const { return weights != nullptr ? __ldg(&weights[arc]) : Weight(1); }
};

template <class T>
__device__ T volatile_load(const T* address)
{
  return *static_cast<const volatile T*>(address);
}

/// A warp's copy of the window (read before each take, and again by each append).
template <class Distance>
struct window_view {
  unsigned long long version;
  Distance low;
  Distance delta;
  std::uint32_t base;
};

template <class Distance>
__device__ window_view<Distance> read_window(const window_state<Distance>* window)
{
  window_view<Distance> view;
  view.version = volatile_load(&window->version);
  view.low = volatile_load(&window->low);
  view.delta = volatile_load(&window->delta);
  view.base = volatile_load(&window->base);
  return view;
}

/// The ring of a distance under a window.
template <class Distance>
__device__ std::uint32_t ring_of(Distance distance, const window_view<Distance>& view)
{
  if (!(distance > view.low)) { return view.base; }
  const Distance steps = (distance - view.low) / view.delta;
  if (!(steps < static_cast<Distance>(near_rings))) { return far_ring; }
  return (view.base + static_cast<std::uint32_t>(steps)) % near_rings;
}

struct warp_tallies {
  unsigned long long relaxed_arcs = 0;
  unsigned long long appended = 0;
  unsigned long long queue_cycles = 0;
};

/// A warp's vertices on their way: its own stack (vertices it relaxes itself before it takes again) and
/// the stage (vertices for the rings, not yet published). Shared memory; the counts are the same on
/// every lane.
struct warp_queue {
  vertex_id* stack;
  unsigned top;
  vertex_id* staged;
  std::uint8_t* staged_ring;
  unsigned staged_count;
  bool published;  ///< since the take began (its end then orders the counts before its in-flight count)
};

/// Appends v to `ring` for each lane of `sending` (those lanes call this, converged): the lanes of one ring
/// matched, one atomic on its tail by their leader, each lane's slot claimed with a compare-and-swap once a
/// take has emptied it, then one add to the ring's count. `far_distance()` (v's distance) is read only for
/// the far ring, whose smallest distance the next jump of the window reads. `FenceSlots`: a fence between
/// the slots and the count (flag_place::apart's appends; a stage's publication has none, see publish).
template <bool FenceSlots, class Weight, class FarDistance>
__device__ void push_to_ring(const async_params<Weight>& p, unsigned sending, std::uint32_t ring, vertex_id v,
                             FarDistance far_distance)
{
  const unsigned lane = warp::lane_id();
  const unsigned peers = __match_any_sync(sending, ring);
  const int leader = __ffs(peers) - 1;
  unsigned long long at = 0;
  if (static_cast<int>(lane) == leader) {
    at = atomicAdd(&p.tails[ring].value, static_cast<unsigned long long>(__popc(peers)));
  }
  at = __shfl_sync(peers, at, leader) + __popc(peers & warp::lanemask_lt());
  vertex_id* slot = &p.rings[ring * p.capacity + at % p.capacity];
  while (atomicCAS(slot, no_vertex, v) != no_vertex) { __nanosleep(32); }
  if (ring == far_ring) { atomic_min_value(p.far_min, far_distance()); }
  if constexpr (FenceSlots) { __threadfence(); }
  __syncwarp(peers);
  if (static_cast<int>(lane) == leader) {
    atomicAdd(&p.counts[ring].value, static_cast<unsigned long long>(__popc(peers)));
  }
}

/// Publishes the stage to the rings (the whole warp calls this, converged): `pending` raised before any
/// entry can be taken (one add, one fence), then per ring one atomic on the tail, the slots, one add to
/// the count. No fence between the slots and the count: a take that reserves a slot before it is filled
/// waits for it.
template <class Weight>
__device__ void publish(const async_params<Weight>& p, warp_queue& queue, warp_tallies& tally)
{
  const unsigned count = queue.staged_count;
  if (count == 0) { return; }
  const long long started = clock64();
  const unsigned lane = warp::lane_id();
  if (lane == 0) {
    atomicAdd(&p.pending->value, static_cast<unsigned long long>(count));
    __threadfence();
  }
  __syncwarp();
  for (unsigned first = 0; first < count; first += warp::size) {
    const bool has = first + lane < count;
    const unsigned sending = __ballot_sync(warp::full_mask, has);
    if (has) {
      const vertex_id v = queue.staged[first + lane];
      const std::uint32_t ring = queue.staged_ring[first + lane];
      push_to_ring<false>(p, sending, ring, v,
                          [&] { return distance_word<distance_t<Weight>>::unpack(volatile_load(&p.words[v])); });
      ++tally.appended;
    }
  }
  __syncwarp();
  queue.staged_count = 0;
  queue.published = true;
  if (lane == 0) { tally.queue_cycles += static_cast<unsigned long long>(clock64() - started); }
}

/// Queues vertex v at distance d for every lane that wants to (the whole warp calls this, converged).
/// Entries whose ring is `local_ring` go to the warp's stack (when `use_stack`) while it holds fewer than
/// `keep`: the warp relaxes them itself before it takes again, with no trip through the ring, its counters
/// or `pending` (the warp's own take stays pending and in flight until its stack is empty). The rest:
/// `in_word`, to the stage (a full stage is published first); `apart`, to the rings at once.
template <flag_place Place, class Weight>
__device__ void append(const async_params<Weight>& p, bool want, vertex_id v, distance_t<Weight> d, warp_tallies& tally,
                       warp_queue& queue, bool use_stack = false, std::uint32_t local_ring = 0, unsigned keep = 0)
{
  const long long started = clock64();
  const unsigned wanting = __ballot_sync(warp::full_mask, want);
  if (wanting == 0) { return; }
  const unsigned lane = warp::lane_id();
  // The window as it is now, not as it was when the warp took its vertices: an entry at or below the
  // old low placed by an outdated base would land in the window's last buckets once the window moved,
  // and its improvement reach its neighbours 15 buckets late. Read once, with no fence or version check: a
  // read torn by a move in progress only puts an entry in another bucket, which orders work, not results.
  const int reader = __ffs(wanting) - 1;
  window_view<distance_t<Weight>> now{};
  if (static_cast<int>(lane) == reader) { now = read_window(p.window); }
  now.low = __shfl_sync(warp::full_mask, now.low, reader);
  now.delta = __shfl_sync(warp::full_mask, now.delta, reader);
  now.base = __shfl_sync(warp::full_mask, now.base, reader);
  __syncwarp();
  const std::uint32_t ring = want ? ring_of(d, now) : 0U;
  bool local = false;
  if (use_stack) {
    const bool fits = want && ring == local_ring;
    const unsigned fitting = __ballot_sync(warp::full_mask, fits);
    const unsigned rank = __popc(fitting & warp::lanemask_lt());
    local = fits && queue.top + rank < keep;
    if (local) { queue.stack[queue.top + rank] = v; }
    queue.top += __popc(__ballot_sync(warp::full_mask, local));
    __syncwarp();
  }
  const unsigned sending = __ballot_sync(warp::full_mask, want && !local);
  if constexpr (Place == flag_place::in_word) {
    if (sending != 0) {
      if (queue.staged_count + static_cast<unsigned>(__popc(sending)) > stage_bound) { publish(p, queue, tally); }
      if (want && !local) {
        const unsigned at = queue.staged_count + __popc(sending & warp::lanemask_lt());
        queue.staged[at] = v;
        queue.staged_ring[at] = static_cast<std::uint8_t>(ring);
      }
      queue.staged_count += __popc(sending);
    }
    __syncwarp();
  } else if (sending != 0) {
    // Counted as pending before any of them can be taken.
    if (static_cast<int>(lane) == __ffs(sending) - 1) {
      atomicAdd(&p.pending->value, static_cast<unsigned long long>(__popc(sending)));
      __threadfence();
    }
    __syncwarp();
    if (want && !local) {
      push_to_ring<true>(p, sending, ring, v, [d] { return d; });
      ++tally.appended;
    }
  }
  if (lane == 0) { tally.queue_cycles += static_cast<unsigned long long>(clock64() - started); }
}

/// A vertex's queued flag (flag_place::apart) as a device-scope atomic. A relaxation lowers the distance, then
/// sets the flag with release; a take clears the flag with acquire, then reads the distance. The flag's
/// operations are read-modify-writes, so one of the two comes first in the flag's order: the relaxation's, and
/// the take's exchange reads it and (acquire after release) the distance read after it is at least the lowered
/// one; or the take's, and the relaxation reads the flag cleared and queues the vertex again. No full fence is
/// needed.
__device__ ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device> flag_ref(std::uint32_t& flag)
{
  return ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device>(flag);
}

/// Relaxes arc `arc` from a vertex at distance `from` when `has` (flag_place::apart; relax_in_word with the flag in
/// the word); returns whether it queued the target (then target and candidate are set): whether it lowered the
/// distance of a vertex that was in no ring.
template <class Weight>
__device__ bool relax(const async_params<Weight>& p, bool has, std::uint64_t arc, distance_t<Weight> from,
                      vertex_id& target, distance_t<Weight>& candidate)
{
  if (!has) { return false; }
  target = __ldg(&p.columns[arc]);
  candidate = from + static_cast<distance_t<Weight>>(p.weight(arc));
  if (!(candidate < relaxed_load(&p.distances[target]))) { return false; }
  if (!(candidate < atomic_min_value(&p.distances[target], candidate))) { return false; }
  // Release: a take that exchanges the flag after this sees the lowered distance (see flag_ref).
  return (flag_ref(p.queued[target]).fetch_or(1U, ::cuda::memory_order_release) & 1U) == 0;
}

/// `Arcs` relaxations a lane of flag_place::in_word with their trips to L2 overlapped (one atomic minimum of
/// (candidate << 1 | 1) lowers a distance and queues its vertex; the old word says whether it was queued): the arcs'
/// columns and weights, then the targets' words, then the atomic minima, so a lane waits on each round trip
/// once for all of them. On R-MAT the kernel's warps waited on loads and atomics for 75% of their stall cycles
/// (long scoreboard; Nsight Compute, R-MAT 2^22), with 8 warps a scheduler and 0.15 eligible.
template <int Arcs, class Weight>
__device__ void relax_in_word(const async_params<Weight>& p, const bool (&has)[Arcs], const std::uint64_t (&arc)[Arcs],
                              const distance_t<Weight> (&from)[Arcs], vertex_id (&target)[Arcs],
                              distance_t<Weight> (&candidate)[Arcs], bool (&queued)[Arcs])
{
  using word = distance_word<distance_t<Weight>>;
  typename word::type offer[Arcs];
  typename word::type seen[Arcs];
  bool lower[Arcs];
#pragma unroll
  for (int i = 0; i < Arcs; ++i) {
    target[i] = has[i] ? __ldg(&p.columns[arc[i]]) : vertex_id{0};
    candidate[i] = from[i] + static_cast<distance_t<Weight>>(has[i] ? p.weight(arc[i]) : Weight(0));
  }
#pragma unroll
  for (int i = 0; i < Arcs; ++i) {
    offer[i] = word::pack(candidate[i]) | 1U;
    seen[i] = has[i] ? volatile_load(&p.words[target[i]]) : typename word::type{0};
  }
#pragma unroll
  for (int i = 0; i < Arcs; ++i) {
    lower[i] = has[i] && offer[i] < seen[i];
    seen[i] = lower[i] ? atomicMin(&p.words[target[i]], offer[i]) : typename word::type{0};
  }
#pragma unroll
  for (int i = 0; i < Arcs; ++i) { queued[i] = lower[i] && offer[i] < seen[i] && (seen[i] & 1U) == 0; }
}

/// A queued vertex's distance as it is now (any value it had will do).
template <flag_place Place, class Weight>
__device__ distance_t<Weight> current_distance(const async_params<Weight>& p, vertex_id v)
{
  if constexpr (Place == flag_place::in_word) {
    return distance_word<distance_t<Weight>>::unpack(volatile_load(&p.words[v]));
  } else {
    return relaxed_load(&p.distances[v]);
  }
}

/// Takes up to `want` filled entries of a ring (lane 0 reserves; all lanes get the first index and the
/// count taken).
__device__ unsigned take_range(padded_counter* count, padded_counter* head, unsigned want, unsigned long long& first,
                               padded_counter* inflight = nullptr)
{
  unsigned taken = 0;
  unsigned long long at = 0;
  if (warp::lane_id() == 0) {
    // In flight before the count drops, so that a ring never reads empty and idle while being taken.
    if (inflight != nullptr) { atomicAdd(&inflight->value, static_cast<unsigned long long>(want)); }
    const auto held = static_cast<long long>(
        atomicAdd(&count->value, static_cast<unsigned long long>(-static_cast<long long>(want))));
    taken = held >= static_cast<long long>(want) ? want : (held > 0 ? static_cast<unsigned>(held) : 0U);
    if (taken < want) {
      atomicAdd(&count->value, static_cast<unsigned long long>(want - taken));
      if (inflight != nullptr) { atomicAdd(&inflight->value, static_cast<unsigned long long>(taken) - want); }
    }
    if (taken != 0) { at = atomicAdd(&head->value, static_cast<unsigned long long>(taken)); }
  }
  taken = __shfl_sync(warp::full_mask, taken, 0);
  first = __shfl_sync(warp::full_mask, at, 0);
  return taken;
}

template <class Distance>
__device__ Distance exchange_distance(Distance* address, Distance value)
{
  if constexpr (std::is_same_v<Distance, float>) {
    return atomicExch(address, value);
  } else {
    return atomicExch(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
  }
}

/// Moves the window (lane 0 only): by `steps` buckets, or, when `from_far`, to the far ring's nearest
/// distance; adjusts delta by the entries the near rings hold. Returns whether this warp moved it.
template <class Weight>
__device__ bool move_window(const async_params<Weight>& p, const window_view<distance_t<Weight>>& view,
                            std::uint32_t steps, bool from_far, unsigned long long near_entries)
{
  using distance_type = distance_t<Weight>;
  if ((view.version & 1ULL) != 0 || atomicCAS(&p.window->version, view.version, view.version + 1) != view.version) {
    return false;
  }
  distance_type low = view.low;
  std::uint32_t base = view.base;
  if (from_far) {
    const distance_type nearest = exchange_distance(p.far_min, unreachable<Weight>);
    distance_type past = view.low + view.delta * static_cast<distance_type>(near_rings);
    if constexpr (std::is_floating_point_v<distance_type>) {
      if (!(past > view.low)) { past = nextafterf(view.low, unreachable<Weight>); }
    }
    low = nearest != unreachable<Weight> && nearest > past ? nearest : past;
    p.window->far_mark = volatile_load(&p.tails[far_ring].value);
  } else {
    low = view.low + view.delta * static_cast<distance_type>(steps);
    base = (view.base + steps) % near_rings;
  }
  distance_type delta = view.delta;
  const unsigned long long pops = volatile_load(&p.work[0].value);
  const unsigned long long repeats = volatile_load(&p.work[1].value);
  const unsigned long long window_pops = pops - volatile_load(&p.window->mark_pops);
  if (window_pops >= p.sample) {
    const unsigned long long window_repeats = repeats - volatile_load(&p.window->mark_repeats);
    const unsigned long long window_fresh = window_pops - window_repeats;
    if (volatile_load(&p.window->first_pops) == 0) {
      p.window->first_pops = window_pops;
      p.window->first_fresh = window_fresh > 0 ? window_fresh : 1;
    }
    // Pops per fresh vertex now against the first decision's (in doubles: the products pass 64 bits).
    const double first_work = static_cast<double>(volatile_load(&p.window->first_pops)) /
                              static_cast<double>(volatile_load(&p.window->first_fresh));
    const double work = static_cast<double>(window_pops) / static_cast<double>(window_fresh > 0 ? window_fresh : 1);
    if (work > 2 * first_work && 2 * window_repeats > window_pops) {
      delta = delta / 2 > p.min_delta ? delta / 2 : p.min_delta;
    } else if (3 * work < 4 * first_work && near_entries < p.busy_low) {
      delta = delta * 2 < p.max_delta ? delta * 2 : p.max_delta;
    }
    p.window->mark_pops = pops;
    p.window->mark_repeats = repeats;
  }
  p.window->low = low;
  p.window->delta = delta;
  p.window->base = base;
  __threadfence();
  atomicExch(&p.window->version, view.version + 2);
  return true;
}

/// Before a take's in-flight count drops (lane 0): a fence when it published, so that the counts of its
/// appends come first and no warp moves the window past a bucket that is about to hold them.
__device__ void finish_take(const warp_queue& queue)
{
  if (queue.published) { __threadfence(); }
}

/// Arcs: the arcs a lane relaxes at a time (relax_in_word with the flag in the word; 1 with the flag apart).
template <class Weight, flag_place Place, int Arcs>
__global__ void __launch_bounds__(block_threads) async_sssp_kernel(async_params<Weight> p)
{
  static_assert((Arcs == 1) == (Place == flag_place::apart));
  using distance_type = distance_t<Weight>;
  const unsigned lane = warp::lane_id();
  warp_tallies tally;
  unsigned long long busy_cycles = 0;
  unsigned long long idle_cycles = 0;
  unsigned long long moves = 0;
  unsigned backoff = 0;
  // A warp that finds no work sleeps, twice as long each time up to idle_sleep: with thousands of warps
  // waiting, one of them still looks every few nanoseconds, and the counters every warp reads are not
  // flooded while the few vertices of a road-like graph's bucket pass from warp to warp.
  const auto sleep_more = [&backoff](unsigned longest) {
    backoff = backoff == 0 ? 32 : (backoff < longest ? backoff * 2 : longest);
    __nanosleep(backoff);
  };
  // The warp's tickets (every lane draws the same): a xorshift seeded by the warp's index.
  std::uint32_t ticket_state =
      (blockIdx.x * (block_threads / warp::size) + threadIdx.x / warp::size) * 0x9E3779B9U + 0x7F4A7C15U;
  unsigned long long takes = 0;
  unsigned long long empty_takes = 0;
  unsigned long long deferred = 0;
  __shared__ vertex_id stacks[block_threads / warp::size][stack_bound];
  constexpr unsigned stage_room = Place == flag_place::in_word ? stage_bound : 1;
  __shared__ vertex_id staged[block_threads / warp::size][stage_room];
  __shared__ std::uint8_t staged_rings[block_threads / warp::size][stage_room];
  const unsigned warp_in_block = threadIdx.x / warp::size;
  warp_queue own{stacks[warp_in_block], 0, staged[warp_in_block], staged_rings[warp_in_block], 0, false};
  while (true) {
    const long long started = clock64();
    const window_view<distance_type> view = read_window(p.window);
    // Lane j < near_rings looks at ring base + j, lane near_rings at the far ring, the next at the chunks.
    unsigned long long held = 0;
    std::uint32_t ring = 0;
    if (lane < near_rings) {
      ring = (view.base + lane) % near_rings;
    } else if (lane == near_rings) {
      ring = far_ring;
    } else if (lane == near_rings + 1) {
      ring = ring_count;  // the chunks
    }
    if (lane <= near_rings + 1) {
      const auto filled = static_cast<long long>(volatile_load(&p.counts[ring].value));
      held = filled > 0 ? static_cast<unsigned long long>(filled) : 0;
    }
    const unsigned nonempty = __ballot_sync(warp::full_mask, held != 0);
    if (nonempty == 0) {
      // Nothing to take: the end, or wait for the warps still relaxing.
      if (volatile_load(&p.pending->value) == 0) {
        idle_cycles += static_cast<unsigned long long>(clock64() - started);
        break;
      }
      sleep_more(p.idle_sleep);
      idle_cycles += static_cast<unsigned long long>(clock64() - started);
      continue;
    }
    // The in-flight counts matter only when bucket 0 is empty (wait for it, or move past it).
    bool relaxing = false;
    if ((nonempty & 1U) == 0 && lane < near_rings) {
      relaxing = static_cast<long long>(volatile_load(&p.inflight[ring].value)) > 0;
    }
    const unsigned busy = __ballot_sync(warp::full_mask, relaxing);
    unsigned long long near_entries = lane < near_rings ? held : 0;
    for (int offset = warp::size / 2; offset > 0; offset /= 2) {
      near_entries += __shfl_xor_sync(warp::full_mask, near_entries, offset);
    }
    const unsigned near_mask = nonempty & ((1U << near_rings) - 1U);
    const unsigned active = near_mask | busy;
    bool took = false;
    if (((nonempty >> (near_rings + 1)) & 1U) == 0 && active != 0 && ((near_mask >> (__ffs(active) - 1)) & 1U) == 0) {
      // The lowest bucket with work is empty but still being relaxed: wait for what it appends.
      sleep_more(p.idle_sleep);
      idle_cycles += static_cast<unsigned long long>(clock64() - started);
      continue;
    }

    if ((nonempty >> (near_rings + 1)) & 1U) {
      // A chunk: 8 arcs a lane.
      unsigned long long first = 0;
      if (take_range(&p.counts[ring_count], &p.heads[ring_count], 1, first) != 0) {
        took = true;
        unsigned long long entry = no_chunk;
        unsigned long long* slot = &p.chunk_ring[first % p.chunk_capacity];
        if (lane == 0) {
          while ((entry = atomicExch(slot, no_chunk)) == no_chunk) { __nanosleep(32); }
        }
        entry = __shfl_sync(warp::full_mask, entry, 0);
        const auto v = static_cast<vertex_id>(entry >> 32);
        const auto chunk = static_cast<std::uint32_t>(entry & chunk_mask);
        const auto chunk_ring_of = static_cast<std::uint32_t>((entry >> chunk_bits) & 31U);
        const std::uint64_t row_end = __ldg(&p.row_offsets[v + 1]);
        const std::uint64_t begin = __ldg(&p.row_offsets[v]) + chunk * chunk_arcs;
        const std::uint64_t end = begin + chunk_arcs < row_end ? begin + chunk_arcs : row_end;
        const distance_type from = current_distance<Place>(p, v);
        if (lane == 0) { tally.relaxed_arcs += end - begin; }
        if constexpr (Arcs > 1) {
          for (std::uint64_t arc = begin + lane; arc - lane < end; arc += Arcs * warp::size) {
            bool has[Arcs];
            std::uint64_t arcs[Arcs];
            distance_type froms[Arcs];
            vertex_id targets[Arcs];
            distance_type candidates[Arcs];
            bool queued[Arcs];
#pragma unroll
            for (int i = 0; i < Arcs; ++i) {
              arcs[i] = arc + i * warp::size;
              has[i] = arcs[i] < end;
              froms[i] = from;
            }
            relax_in_word(p, has, arcs, froms, targets, candidates, queued);
#pragma unroll
            for (int i = 0; i < Arcs; ++i) { append<Place>(p, queued[i], targets[i], candidates[i], tally, own); }
          }
        } else {
          for (std::uint64_t arc = begin + lane; arc - lane < end; arc += warp::size) {
            vertex_id target = 0;
            distance_type candidate{};
            const bool queued = relax(p, arc < end, arc, from, target, candidate);
            append<Place>(p, queued, target, candidate, tally, own);
          }
        }
        publish(p, own, tally);
        __syncwarp();
        if (lane == 0) {  // this chunk is done
          finish_take(own);
          atomicAdd(&p.inflight[chunk_ring_of].value, ~0ULL);
          atomicAdd(&p.pending->value, ~0ULL);
        }
        own.published = false;
      }
    } else if (near_mask != 0) {
      const std::uint32_t step = static_cast<std::uint32_t>(__ffs(active) - 1);
      // Takers in proportion to the entries: a bucket of a few vertices is not taken by every waiting
      // warp at once (each failed take still passes through the ring's count and in-flight count). A
      // warp takes up to `want` entries (8 while the bucket holds under 4 per warp of the grid, so that
      // a small bucket spreads over more warps, up to 32) and tries only when its ticket, drawn in
      // 0 .. warps - 1, is under 16 times the takes the bucket holds: about one to two tries a take
      // among the warps that look while a take is on its way (the rest sleep, as when idle).
      const unsigned long long step_held = __shfl_sync(warp::full_mask, held, static_cast<int>(step));
      const unsigned long long spread = (2 * step_held + p.warps - 1) / p.warps;
      const unsigned want = static_cast<unsigned>(spread < 8 ? 8 : (spread > warp::size ? warp::size : spread));
      const unsigned long long takers = 16 * ((step_held + want - 1) / want);
      ticket_state ^= ticket_state << 13;
      ticket_state ^= ticket_state >> 17;
      ticket_state ^= ticket_state << 5;
      if (takers < p.warps && (static_cast<unsigned long long>(ticket_state) * p.warps >> 32) >= takers) {
        ++deferred;
        sleep_more(p.idle_sleep);
        idle_cycles += static_cast<unsigned long long>(clock64() - started);
        continue;
      }
      if (step != 0 && lane == 0) { moves += move_window(p, view, step, false, near_entries) ? 1 : 0; }
      const std::uint32_t source_ring = (view.base + step) % near_rings;
      unsigned long long first = 0;
      const unsigned count =
          take_range(&p.counts[source_ring], &p.heads[source_ring], want, first, &p.inflight[source_ring]);
      ++(count != 0 ? takes : empty_takes);
      if (count != 0) {
        took = true;
        // The taken vertices, then those the warp improved into the same bucket and kept on its stack
        // (up to stack_bound; the rest went to the ring for any warp): a hop of a road-like graph's
        // wavefront costs this warp's relaxation, not an append, a take and a wait for a taker.
        unsigned batch = count;
        bool from_ring = true;
        while (true) {
          // The stack keeps up to stack_keep while the bucket holds enough for the other warps, else no
          // more than the warp's take: a bucket of few entries is shared among the waiting warps instead
          // of running depth-first on a few stacks.
          long long bucket_held = 0;
          if (lane == 0) { bucket_held = static_cast<long long>(volatile_load(&p.counts[source_ring].value)); }
          vertex_id v = 0;
          distance_type from{};
          std::uint64_t begin = 0;
          std::uint64_t end = 0;
          bool repeat = false;
          if (lane < batch) {
            if (from_ring) {
              vertex_id* slot = &p.rings[source_ring * p.capacity + (first + lane) % p.capacity];
              while ((v = atomicExch(slot, no_vertex)) == no_vertex) { __nanosleep(32); }
            } else {
              v = own.stack[own.top - batch + lane];
            }
            begin = __ldg(&p.row_offsets[v]);
            end = __ldg(&p.row_offsets[v + 1]);
            if constexpr (Place == flag_place::in_word) {
              // Not queued, and the distance to relax from, in one atomic (distance_word); taken before.
              from = distance_word<distance_type>::unpack(
                  atomicAnd(&p.words[v], ~typename distance_word<distance_type>::type{1}));
              repeat = atomicExch(&p.queued[v], 1U) != 0;
            } else {
              // Not queued; taken before. Acquire: the distance read next is at least the one lowered by
              // the relaxation whose flag this exchange reads.
              repeat = (flag_ref(p.queued[v]).exchange(2U, ::cuda::memory_order_acquire) & 2U) != 0;
              from = relaxed_load(&p.distances[v]);
            }
          }
          if (!from_ring) { own.top -= batch; }
          __syncwarp();
          const unsigned repeats = __popc(__ballot_sync(warp::full_mask, repeat));
          if (lane == 0) {
            atomicAdd(&p.work[0].value, static_cast<unsigned long long>(batch));
            if (repeats != 0) { atomicAdd(&p.work[1].value, static_cast<unsigned long long>(repeats)); }
            if (!from_ring) { atomicAdd(&p.work[2].value, static_cast<unsigned long long>(batch)); }
          }
          const std::uint64_t degree = end - begin;
          tally.relaxed_arcs += degree <= heavy_arcs ? degree : 0;  // chunks count their own
          // Vertices of many arcs: their chunks to the chunk ring, the whole warp writing each vertex's.
          const std::uint32_t chunks =
              degree > heavy_arcs ? static_cast<std::uint32_t>((degree + chunk_arcs - 1) / chunk_arcs) : 0U;
          for (unsigned owners = __ballot_sync(warp::full_mask, chunks != 0); owners != 0; owners &= owners - 1) {
            const int owner = __ffs(owners) - 1;
            const std::uint32_t owner_chunks = __shfl_sync(warp::full_mask, chunks, owner);
            const vertex_id owner_vertex = __shfl_sync(warp::full_mask, v, owner);
            unsigned long long at = 0;
            if (lane == 0) {
              atomicAdd(&p.pending->value, static_cast<unsigned long long>(owner_chunks));
              atomicAdd(&p.inflight[source_ring].value, static_cast<unsigned long long>(owner_chunks));
              __threadfence();
              at = atomicAdd(&p.tails[ring_count].value, static_cast<unsigned long long>(owner_chunks));
            }
            at = __shfl_sync(warp::full_mask, at, 0);
            for (std::uint32_t c = lane; c < owner_chunks; c += warp::size) {
              const unsigned long long entry = static_cast<unsigned long long>(owner_vertex) << 32 |
                                               static_cast<unsigned long long>(source_ring) << chunk_bits | c;
              unsigned long long* slot = &p.chunk_ring[(at + c) % p.chunk_capacity];
              while (atomicCAS(slot, no_chunk, entry) != no_chunk) { __nanosleep(32); }
            }
            if constexpr (Place == flag_place::apart) { __threadfence(); }
            __syncwarp();
            if (lane == 0) { atomicAdd(&p.counts[ring_count].value, static_cast<unsigned long long>(owner_chunks)); }
          }
          bucket_held = __shfl_sync(warp::full_mask, bucket_held, 0);
          const bool starved = static_cast<unsigned long long>(bucket_held > 0 ? bucket_held : 0) < p.share_below;
          const unsigned keep = starved && want < p.stack_keep ? want : p.stack_keep;
          // Vertices of up to heavy_arcs arcs: laid end to end over the lanes (a warp scan).
          const std::uint32_t light = degree <= heavy_arcs ? static_cast<std::uint32_t>(degree) : 0U;
          if constexpr (Arcs > 1) {
            for_each_spread_arcs<Arcs>(
                light, begin, from,
                [&](const bool(&has)[Arcs], const std::uint64_t(&arcs)[Arcs], const distance_type(&froms)[Arcs]) {
                  vertex_id targets[Arcs];
                  distance_type candidates[Arcs];
                  bool queued[Arcs];
                  relax_in_word(p, has, arcs, froms, targets, candidates, queued);
#pragma unroll
                  for (int i = 0; i < Arcs; ++i) {
                    append<Place>(p, queued[i], targets[i], candidates[i], tally, own, true, source_ring, keep);
                  }
                });
          } else {
            for_each_spread_arc(light, begin, from, [&](bool has, std::uint64_t arc, distance_type arc_from) {
              vertex_id target = 0;
              distance_type candidate{};
              const bool queued = relax(p, has, arc, arc_from, target, candidate);
              append<Place>(p, queued, target, candidate, tally, own, true, source_ring, keep);
            });
          }
          // The batch's appends for the other warps go now, not after the stack: a stack can run for
          // many batches.
          publish(p, own, tally);
          __syncwarp();
          if (own.top == 0) { break; }
          batch = own.top < warp::size ? own.top : warp::size;
          from_ring = false;
        }
        if (lane == 0) {
          finish_take(own);
          atomicAdd(&p.inflight[source_ring].value, static_cast<unsigned long long>(0) - count);
          atomicAdd(&p.pending->value, static_cast<unsigned long long>(0) - count);
        }
        own.published = false;
      }
    } else {
      // Only the far ring: move the window to it once its entries were all taken since the last move,
      // then take far entries and append them again under the window.
      if (lane == 0 && volatile_load(&p.heads[far_ring].value) >= volatile_load(&p.window->far_mark)) {
        moves += move_window(p, view, 0, true, near_entries) ? 1 : 0;
      }
      unsigned long long first = 0;
      const unsigned count = take_range(&p.counts[far_ring], &p.heads[far_ring], warp::size, first);
      if (count != 0) {
        took = true;
        vertex_id v = 0;
        distance_type d{};
        if (lane < count) {
          vertex_id* slot = &p.rings[far_ring * p.capacity + (first + lane) % p.capacity];
          while ((v = atomicExch(slot, no_vertex)) == no_vertex) { __nanosleep(32); }
          d = current_distance<Place>(p, v);
        }
        append<Place>(p, lane < count, v, d, tally, own);
        publish(p, own, tally);
        tally.appended -= lane < count ? 1 : 0;  // moved, not appended
        __syncwarp();
        if (lane == 0) { atomicAdd(&p.pending->value, static_cast<unsigned long long>(0) - count); }
        own.published = false;
      }
    }
    // A take that found its ring empty after all sleeps as an idle warp does (it was one of many).
    if (took) {
      backoff = 0;
    } else {
      sleep_more(p.idle_sleep);
    }
    (took ? busy_cycles : idle_cycles) += static_cast<unsigned long long>(clock64() - started);
  }
  async_totals* totals = p.totals;
  atomicAdd(&totals->relaxed_arcs, tally.relaxed_arcs);
  atomicAdd(&totals->appended, tally.appended);
  if (lane == 0) {
    atomicAdd(&totals->moves, moves);
    atomicAdd(&totals->busy_cycles, busy_cycles);
    atomicAdd(&totals->queue_cycles, tally.queue_cycles);
    atomicAdd(&totals->idle_cycles, idle_cycles);
    atomicAdd(&totals->takes, takes);
    atomicAdd(&totals->empty_takes, empty_takes);
    atomicAdd(&totals->deferred, deferred);
  }
}

/// Before the launch: each distance packed with its queued flag (distance_word), in place, and `queued`
/// cleared to hold the taken bits.
template <class Distance>
__global__ void pack_distance_words(Distance* distances, std::uint32_t* queued, std::uint64_t n)
{
  using word = distance_word<Distance>;
  auto* words = reinterpret_cast<typename word::type*>(distances);
  for (std::uint64_t v = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; v < n;
       v += std::uint64_t{gridDim.x} * blockDim.x) {
    words[v] = word::pack(distances[v]) | (queued[v] & 1U);
    queued[v] = 0;
  }
}

/// After the kernel: the distances back from their words (every flag is clear by then).
template <class Distance>
__global__ void unpack_distance_words(Distance* distances, std::uint64_t n)
{
  using word = distance_word<Distance>;
  auto* words = reinterpret_cast<typename word::type*>(distances);
  for (std::uint64_t v = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; v < n;
       v += std::uint64_t{gridDim.x} * blockDim.x) {
    distances[v] = word::unpack(words[v]);
  }
}

std::uint64_t chunk_room(std::uint64_t arcs, std::uint64_t threads)
{
  // Every vertex of more than heavy_arcs arcs in chunks twice over, and the reserved-but-unread slack.
  return 2 * (arcs / heavy_arcs + 1) + threads + 1024;
}

/// Blocks and threads of the grid (every block resident).
std::uint64_t grid_blocks(const void* kernel)
{
  int device = 0;
  int sm_count = 0;
  int resident = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  WARPDEX_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, block_threads, 0));
  return static_cast<std::uint64_t>(sm_count) * static_cast<std::uint64_t>(std::max(resident, 1));
}

/// Where the kernel keeps the queued flags for `input` (flag_place says why): in the distances' words from
/// road_like_degree arcs per vertex on.
template <class Weight>
flag_place flag_place_for(const device_rounds_input<Weight>& input)
{
  return input.arc_count >= road_like_degree * input.vertex_count ? flag_place::in_word : flag_place::apart;
}

template <class Weight>
using async_kernel_type = void (*)(async_params<Weight>);

/// The kernel for `place`: with the flag in the word, two arcs a lane at a time (relax_in_word: on an H200 R-MAT
/// 2^24 ran 28.7 ms against one arc's 29.8, 2^22 7.86 against 8.03).
template <class Weight>
async_kernel_type<Weight> async_kernel(flag_place place)
{
  return place == flag_place::apart ? &async_sssp_kernel<Weight, flag_place::apart, 1>
                                    : &async_sssp_kernel<Weight, flag_place::in_word, 2>;
}

template <class Weight>
std::uint64_t async_bytes(const device_rounds_input<Weight>& input, std::uint64_t threads)
{
  return ring_count * (input.vertex_count + threads + 64) * sizeof(vertex_id) +
         chunk_room(input.arc_count, threads) * sizeof(unsigned long long);
}

}  // namespace

template <class Weight>
bool async_rounds_possible(const device_rounds_input<Weight>& input)
{
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  WARPDEX_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t threads =
      grid_blocks(reinterpret_cast<const void*>(async_kernel<Weight>(flag_place_for(input)))) * block_threads;
  return input.vertex_count < std::numeric_limits<std::uint32_t>::max() &&
         input.arc_count / chunk_arcs < (1ULL << chunk_bits) &&  // a chunk entry's index
         async_bytes(input, threads) <= free_bytes / 2;
}

template <class Weight>
void run_async_delta_stepping(const cuda& backend, const device_rounds_input<Weight>& input, vertex_id source,
                              sssp_statistics& statistics)
{
  using distance_type = distance_t<Weight>;
  const flag_place place = flag_place_for(input);
  const async_kernel_type<Weight> kernel = async_kernel<Weight>(place);
  const std::uint64_t blocks = grid_blocks(reinterpret_cast<const void*>(kernel));
  const std::uint64_t threads = blocks * block_threads;
  const std::uint64_t capacity = input.vertex_count + threads + 64;
  const std::uint64_t chunk_capacity = chunk_room(input.arc_count, threads);
  auto rings = make_buffer<vertex_id>(backend, ring_count * capacity);
  auto chunk_ring = make_buffer<unsigned long long>(backend, chunk_capacity);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(rings.data(), 0xff, rings.size() * sizeof(vertex_id), backend.stream));
  WARPDEX_CUDA_TRY(
      cudaMemsetAsync(chunk_ring.data(), 0xff, chunk_ring.size() * sizeof(unsigned long long), backend.stream));
  // The source in ring 0, pending.
  // heads, tails and counts of the rings, pending, the near rings' in-flight counts, pops, repeats and the
  // pops from the warps' own stacks.
  std::vector<padded_counter> counters(3 * (ring_count + 1) + 1 + near_rings + 3, padded_counter{0});
  counters[ring_count + 1].value = 1;        // tails[0]
  counters[2 * (ring_count + 1)].value = 1;  // counts[0]
  counters[3 * (ring_count + 1)].value = 1;  // pending
  auto counters_device = make_buffer<padded_counter>(backend, counters.size());
  counters_device.copy_from(std::span<const padded_counter>(counters));
  WARPDEX_CUDA_TRY(cudaMemcpyAsync(rings.data(), &source, sizeof(vertex_id), cudaMemcpyHostToDevice, backend.stream));

  const double first_delta = static_cast<double>(input.delta);
  const double largest = static_cast<double>(std::numeric_limits<Weight>::max());
  const auto width = [&](double value) {
    value = std::min(value, largest);
    if constexpr (std::is_integral_v<Weight>) { value = std::max(1.0, std::round(value)); }
    return static_cast<distance_type>(value);
  };
  window_state<distance_type> window{0, distance_type{0}, input.delta, 0U, 0ULL, 0ULL, 0ULL, 0ULL, 0ULL};
  auto window_device = make_buffer<window_state<distance_type>>(backend, 1);
  window_device.copy_from(std::span<const window_state<distance_type>>(&window, 1));
  const distance_type far_min = unreachable<Weight>;
  auto far_min_device = make_buffer<distance_type>(backend, 1);
  far_min_device.copy_from(std::span<const distance_type>(&far_min, 1));
  const async_totals zero_totals{};
  auto totals = make_buffer<async_totals>(backend, 1);
  totals.copy_from(std::span<const async_totals>(&zero_totals, 1));

  async_params<Weight> params{input.row_offsets,
                              input.columns,
                              input.weights,
                              input.distances,
                              reinterpret_cast<typename async_params<Weight>::word_type*>(input.distances),
                              input.queued,
                              rings.data(),
                              chunk_ring.data(),
                              counters_device.data(),
                              counters_device.data() + ring_count + 1,
                              counters_device.data() + 2 * (ring_count + 1),
                              counters_device.data() + 3 * (ring_count + 1),
                              counters_device.data() + 3 * (ring_count + 1) + 1,
                              counters_device.data() + 3 * (ring_count + 1) + 1 + near_rings,
                              window_device.data(),
                              far_min_device.data(),
                              totals.data(),
                              capacity,
                              chunk_capacity,
                              std::min(input.delta, width(first_delta / 8)),
                              std::max(input.delta, width(first_delta * 64)),
                              threads / 2,
                              std::max<std::uint64_t>(1024, threads / 16),
                              static_cast<std::uint32_t>(threads / warp::size),
                              static_cast<unsigned>(std::clamp<std::uint64_t>(2 * threads / warp::size, 1024, 8192)),
                              stack_bound,
                              8 * (threads / warp::size)};
  static_assert(sizeof(typename distance_word<distance_type>::type) == sizeof(distance_type));
  const auto pack_blocks = static_cast<unsigned>(std::min<std::uint64_t>(blocks, (input.vertex_count + 255) / 256));
  if (place == flag_place::in_word) {
    pack_distance_words<<<pack_blocks, 256, 0, backend.stream>>>(input.distances, input.queued, input.vertex_count);
    WARPDEX_CUDA_TRY(cudaGetLastError());
  }
  backend.synchronize();
  const auto started = std::chrono::steady_clock::now();
  kernel<<<static_cast<unsigned>(blocks), block_threads, 0, backend.stream>>>(params);
  WARPDEX_CUDA_TRY(cudaGetLastError());
  backend.synchronize();
  if (place == flag_place::in_word) {
    unpack_distance_words<<<pack_blocks, 256, 0, backend.stream>>>(input.distances, input.vertex_count);
    WARPDEX_CUDA_TRY(cudaGetLastError());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto state = totals.to_vector().front();
  const auto final_window = window_device.to_vector().front();
  statistics.rounds += state.moves;
  statistics.relaxed_arcs += state.relaxed_arcs;
  statistics.bucketed_vertices += state.appended;
  const double cycles = static_cast<double>(state.busy_cycles + state.idle_cycles);
  if (cycles > 0) {
    statistics.bucketing_seconds += seconds * static_cast<double>(state.queue_cycles) / cycles;
    statistics.idle_seconds += seconds * static_cast<double>(state.idle_cycles) / cycles;
  }
  statistics.final_delta = static_cast<double>(final_window.delta);
  statistics.takes += state.takes;
  statistics.empty_takes += state.empty_takes;
  statistics.deferred_takes += state.deferred;
  // `popped` counts the vertices taken from the near rings (the width rule also counts those from the stacks).
  const auto work = counters_device.to_vector();
  statistics.popped +=
      work[3 * (ring_count + 1) + 1 + near_rings].value - work[3 * (ring_count + 1) + 3 + near_rings].value;
}

template bool async_rounds_possible<std::int32_t>(const device_rounds_input<std::int32_t>&);
template bool async_rounds_possible<float>(const device_rounds_input<float>&);
template void run_async_delta_stepping<std::int32_t>(const cuda&, const device_rounds_input<std::int32_t>&, vertex_id,
                                                     sssp_statistics&);
template void run_async_delta_stepping<float>(const cuda&, const device_rounds_input<float>&, vertex_id,
                                              sssp_statistics&);

}  // namespace warpdex::graph::detail
