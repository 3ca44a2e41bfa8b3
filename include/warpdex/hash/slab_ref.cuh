#pragma once
/// @file Device-side refs of slab_map and slab_set, of 32- or 64-bit keys (cuco style): non-owning views a user kernel
/// calls to insert, find and erase, warp-cooperatively. CUDA-only.
///
/// Every member is warp-collective: all 32 lanes of a warp call it together (converged), each with its
/// own operation, and `active` false for lanes with nothing to do. Operations run from a work queue
/// (the slab hash's loop) per tile of lanes: a tile of 4 lanes by default (1, 8, 16 or 32 on request)
/// runs its lanes' operations one at a time, each lane reading its share of every slab with one or
/// two 16-byte loads, so a warp keeps 32 / tile slab reads in flight; the tiles of a warp run in
/// lockstep and decide with warp-wide votes. An insertion that reaches the end of a full list is handed to the whole
/// warp, whose allocator (one resident block, its bitmap in registers) provides the slab it appends. The bucket hash of
/// every lane's key is computed once, by its lane, before the queue starts. The semantics are those of a batch
/// (slab_table.hpp): operations of every warp of every kernel in flight on one table are linearizable. Do not flush,
/// clear or destroy the table while a kernel uses a ref. A ref of a table with a hasher or key equality
/// of the user's (hashers.hpp) is `slab_table_ref ref(table.view())`, its layout deduced from the view,
/// which carries the hasher and the equality: the ref hashes and compares with them as the bulk
/// operations do.
///
/// @code
///   __global__ void count_words(warpdex::hash::slab_map_ref ref, const std::uint32_t* words, std::size_t n)
///   {
///     auto allocator = ref.make_allocator(blockIdx.x);
///     const std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;   // launch a multiple of 32 threads
///     ref.insert(allocator, i < n, i < n ? words[i] : 0, 1);
///   }
///   count_words<<<blocks, 256>>>(warpdex::hash::slab_map_ref(map.view()), words, n);
/// @endcode

#include <warpdex/core/warp.cuh>
#include <warpdex/hash/detail/slab_table.hpp>
#include <warpdex/hash/slab_alloc.cuh>
#include <warpdex/hash/slab_layout.hpp>

#include <cstdint>
#include <type_traits>

namespace warpdex::hash {

namespace detail {

/// Slots are read through L2 (ld.global.cg): a warp that retries after a failed compare-and-swap must
/// see other SMs' writes, which L1 does not receive.
__device__ __forceinline__ std::uint64_t load_slot(const std::uint64_t* slot)
{
  return __ldcg(reinterpret_cast<const unsigned long long*>(slot));
}
__device__ __forceinline__ std::uint32_t load_slot(const std::uint32_t* slot)
{
  return __ldcg(reinterpret_cast<const unsigned int*>(slot));
}
/// A 64 / 64 pair in one 16-byte load. The key word is what the protocol decides on; a found value that
/// must be one the key held is read again after a fence (reload_value).
__device__ __forceinline__ key_value_pair64 load_slot(const key_value_pair64* slot)
{
  const ulonglong2 loaded = __ldcg(reinterpret_cast<const ulonglong2*>(slot));
  return {loaded.x, loaded.y};
}

/// How a path reads slabs.
enum class slab_reads {
  coherent,   ///< through L2 (ld.global.cg): sees other SMs' writes; any path that may run next to writers
  read_only,  ///< the non-coherent path (ld.global.nc, cached in L1): only while nothing writes the table
};

/// Whether the lanes of one call may carry different operations.
enum class lane_ops {
  mixed,    ///< each lane its own operation
  uniform,  ///< every lane the same one: no lane reads another's operation, finds and erasures no value
};

/// Lanes of the tile that runs one operation when none is asked for: 4 (a 128-byte slab is read as
/// two 16-byte loads per lane and a warp keeps eight slab reads in flight), the fastest fixed choice
/// measured (docs/hash.md).
inline constexpr unsigned read_tile_lanes = 4;

/// A tile of `Lanes` consecutive lanes (1, 4, 8, 16 or 32) that runs one operation at a time. The
/// tiles of a warp run in lockstep, every lane taking part in each warp-wide vote and shuffle (a tile
/// with nothing to do idles through the step): collectives over a full warp need no convergence
/// barrier, where collectives over a tile's lanes alone made the warp's tiles diverge and wait at
/// every step.
template <unsigned Lanes>
struct read_tile {
  static_assert(Lanes == 1 || Lanes == 4 || Lanes == 8 || Lanes == 16 || Lanes == 32, "tiles of 1, 4, 8, 16 or 32");
  static constexpr unsigned lanes = Lanes;
  static constexpr unsigned tile_mask = Lanes == unsigned{warp::size} ? ~0U : (1U << (Lanes % warp::size)) - 1U;
  unsigned rank;        ///< this lane's index in the tile
  unsigned first_lane;  ///< the warp lane of the tile's rank 0

  __device__ read_tile() : rank(warp::lane_id() % Lanes), first_lane(warp::lane_id() - warp::lane_id() % Lanes) {}
  /// Bit r: tile lane r's predicate. Warp-collective.
  __device__ unsigned ballot(bool predicate) const { return (warp::ballot(predicate) >> first_lane) & tile_mask; }
  /// `value` of tile lane `source_rank` (each tile its own). Warp-collective.
  template <class T>
  __device__ T shfl(T value, unsigned source_rank) const
  {
    return warp::shfl(value, static_cast<int>(first_lane + source_rank));
  }
};

/// The vector type that loads `Count` slots of `Slot` at once (16 bytes at most).
template <class Slot, unsigned Count>
struct slot_vector;
template <>
struct slot_vector<std::uint64_t, 1> {
  using type = unsigned long long;
};
template <>
struct slot_vector<std::uint64_t, 2> {
  using type = ulonglong2;
};
template <>
struct slot_vector<key_value_pair64, 1> {
  using type = ulonglong2;
};
template <>
struct slot_vector<std::uint32_t, 1> {
  using type = unsigned int;
};
template <>
struct slot_vector<std::uint32_t, 2> {
  using type = uint2;
};
template <>
struct slot_vector<std::uint32_t, 4> {
  using type = uint4;
};

/// Reads `Count` slots at `slots` (aligned to the load) with one vector load into `out`. The elements
/// are whole slots, so a map's key and value are read together.
template <slab_reads Reads, unsigned Count, class Slot>
__device__ __forceinline__ void load_slots(const Slot* slots, Slot (&out)[Count])
{
  using vector = typename slot_vector<Slot, Count>::type;
  const auto* source = reinterpret_cast<const vector*>(slots);
  const vector loaded = Reads == slab_reads::read_only ? __ldg(source) : __ldcg(source);
  if constexpr (std::is_same_v<Slot, key_value_pair64>) {
    out[0] = {loaded.x, loaded.y};
  } else if constexpr (Count == 4) {
    out[0] = loaded.x, out[1] = loaded.y, out[2] = loaded.z, out[3] = loaded.w;
  } else if constexpr (Count == 2) {
    out[0] = loaded.x, out[1] = loaded.y;
  } else {
    out[0] = loaded;
  }
}

__device__ __forceinline__ std::uint64_t swap_slot(std::uint64_t* slot, std::uint64_t expected, std::uint64_t desired)
{
  return atomicCAS(reinterpret_cast<unsigned long long*>(slot), expected, desired);
}
__device__ __forceinline__ std::uint32_t swap_slot(std::uint32_t* slot, std::uint32_t expected, std::uint32_t desired)
{
  return atomicCAS(reinterpret_cast<unsigned int*>(slot), expected, desired);
}

/// Swaps a data slot from `expected` (what a read showed) to `desired`, as the protocol writes it: an
/// insertion into an empty slot, an assignment or an erasure; returns whether it took. A 64 / 64 pair
/// (key_value_pair64) with 64-bit atomics: an insertion swaps the key word to pending_key64, writes the
/// value, fences and publishes the key; an assignment (same key) exchanges the value word and always
/// takes (finishes_after_failed_swap: it would finish anyway); an erasure swaps the key word.
template <class Slots>
__device__ __forceinline__ bool try_swap_slot(typename Slots::slot_type* slot,
                                              const typename Slots::slot_type& expected,
                                              const typename Slots::slot_type& desired)
{
  if constexpr (Slots::writes_value_apart) {
    auto* key = reinterpret_cast<unsigned long long*>(&slot->key);
    auto* value = reinterpret_cast<unsigned long long*>(&slot->value);
    if (expected.key == desired.key) {
      atomicExch(value, desired.value);
      return true;
    }
    const bool inserts = expected.key == Slots::empty_key;
    if (atomicCAS(key, expected.key, inserts ? pending_key64 : desired.key) != expected.key) { return false; }
    if (inserts) {
      __stcg(value, static_cast<unsigned long long>(desired.value));
      __threadfence();  // the value is visible before the key that publishes it
      atomicExch(key, desired.key);
    }
    return true;
  } else {
    return swap_slot(slot, expected, desired) == expected;
  }
}

/// The value word of a pair whose key a coherent read matched, read again after a fence: the key was
/// read first, so the value is one written while (or after) the key was published, one the key held.
/// Other layouts read key and value in one word: the value read with the key is returned.
template <class Slots>
__device__ __forceinline__ typename Slots::value_type reload_value(const typename Slots::slot_type* slot,
                                                                   const typename Slots::slot_type& seen)
{
  if constexpr (Slots::writes_value_apart) {
    __threadfence();
    return __ldcg(reinterpret_cast<const unsigned long long*>(&slot->value));
  } else {
    return Slots::value_of(seen);
  }
}

/// Links slab `fresh` into `link_slot` (a list's last link) unless another warp linked first; returns
/// the link now in place (`fresh` when this one took). One lane calls it.
template <class Slots>
__device__ __forceinline__ std::uint32_t link_fresh(typename Slots::slot_type* link_slot, std::uint32_t fresh)
{
  if constexpr (Slots::writes_value_apart) {
    const unsigned long long none = Slots::make_link(null_slab).key;
    const unsigned long long before =
        atomicCAS(reinterpret_cast<unsigned long long*>(&link_slot->key), none, Slots::make_link(fresh).key);
    return before == none ? fresh : static_cast<std::uint32_t>(before);
  } else {
    const typename Slots::slot_type before = swap_slot(link_slot, Slots::make_link(null_slab), Slots::make_link(fresh));
    return before == Slots::make_link(null_slab) ? fresh : Slots::link_of(before);
  }
}

/// Links a fresh slab from `allocator` after `slab`, the last of its list, and returns the slab that
/// follows `slab` now: the fresh one, or the one another warp linked first (the fresh one then goes
/// back); null when no slab is free after a few tries. Warp-collective.
template <class Slots, class Allocator>
__device__ typename Slots::slot_type* append_slab(const slab_table_view<Slots>& table, Allocator& allocator,
                                                  typename Slots::slot_type* slab)
{
  using slot_type = typename Slots::slot_type;
  const unsigned lane = warp::lane_id();
  // No slab free may only mean that other warps hold the last ones for a moment: one about to link it
  // to this very list, or one whose link lost and that is about to free it. So before reporting
  // out_of_memory, look for a slab appended meanwhile, wait about a microsecond (an append's few
  // writes and its fence), and try once more. Four tries with waits of up to 4 us made a pool that
  // really ran out (the growth rows) 11% slower: every warp that needed a slab waited them all.
  constexpr unsigned attempts = 2;
  constexpr unsigned wait_ns = 1000;
  std::uint32_t fresh = null_slab;
  for (unsigned attempt = 0;; ++attempt) {
    fresh = allocator.allocate();
    if (fresh != null_slab) { break; }
    std::uint32_t next = null_slab;
    if (lane == Slots::link_slot) { next = Slots::link_of(load_slot(slab + lane)); }
    next = warp::shfl(next, Slots::link_slot);
    if (next != null_slab) { return table.pool.slab(next); }
    if (attempt + 1 == attempts) { return nullptr; }
    __nanosleep(wait_ns);
  }
  slot_type* fresh_slab = table.pool.slab(fresh);
  if (lane < Slots::slots_per_slab) { fresh_slab[lane] = Slots::empty_slot; }
  __threadfence();  // the fresh slab is written before any warp can follow the link to it
  __syncwarp();
  std::uint32_t linked = fresh;
  if (lane == Slots::link_slot) { linked = link_fresh<Slots>(slab + lane, fresh); }
  linked = warp::shfl(linked, Slots::link_slot);
  if (linked != fresh && lane == 0) { allocator.free(fresh); }  // another warp linked first
  return table.pool.slab(linked);
}

}  // namespace detail

template <class Slots>
class slab_table_ref {
 public:
  using slot_type = typename Slots::slot_type;
  using key_type = typename Slots::key_type;
  using value_type = typename Slots::value_type;
  using allocator_type = slab_warp_allocator<slot_type, Slots::slab_bytes>;

  /// A ref to the table whose storage `view` describes (`map.view()` / `set.view()`).
  __host__ __device__ explicit slab_table_ref(const detail::slab_table_view<Slots>& view) : table_(view) {}

  /// An allocator for the calling warp; `salt` (e.g. a launch counter) spreads warps over the pool.
  __device__ allocator_type make_allocator(std::uint64_t salt = 0) const
  {
    return allocator_type(table_.pool, warp::global_warp_id() ^ (salt << 40));
  }

  /// Runs each active lane's operation (op, key, value). A found find writes the key's value to
  /// `value_out`. `TileLanes` (1, 4, 8, 16 or 32) lanes run each operation together; an insertion that
  /// reaches the end of a full list is handed to the whole warp, which allocates the slab it appends
  /// (with `allocator`; null: it reports out_of_memory). Returns this lane's status (not_found for
  /// inactive lanes). Keys must not be reserved. With `lane_ops::uniform`, every lane must pass the same `op`.
  template <unsigned TileLanes = detail::read_tile_lanes, detail::lane_ops Ops = detail::lane_ops::mixed>
  __device__ operation_status apply(allocator_type* allocator, bool active, operation op, key_type key,
                                    value_type value, value_type& value_out) const
  {
    bool needs_slab = false;
    operation_status status =
        apply_in_tiles<detail::slab_reads::coherent, TileLanes, Ops>(active, op, key, value, value_out, needs_slab);
    append_in_warp(allocator, needs_slab, op, key, value, status, value_out);
    return status;
  }

  /// As apply, with the warp's allocator made by `make_allocator()` (returning an allocator_type) only
  /// when one of its insertions needs a slab: a warp that never appends keeps no allocator state in
  /// registers while its tiles run.
  template <unsigned TileLanes, detail::lane_ops Ops, class MakeAllocator>
  __device__ operation_status apply_with(MakeAllocator&& make_allocator, bool active, operation op, key_type key,
                                         value_type value, value_type& value_out) const
  {
    bool needs_slab = false;
    operation_status status =
        apply_in_tiles<detail::slab_reads::coherent, TileLanes, Ops>(active, op, key, value, value_out, needs_slab);
    if (warp::ballot(needs_slab) != 0) {
      allocator_type allocator = make_allocator();
      append_in_warp(&allocator, needs_slab, op, key, value, status, value_out);
    }
    return status;
  }

  /// Looks each active lane's key up; found keys' values go to `value_out`. With `slab_reads::read_only`
  /// the slabs are read through the non-coherent cache: only while no kernel writes the table.
  /// `TileLanes` (1, 4, 8, 16 or 32) lanes run each lookup together (tile_lanes).
  template <detail::slab_reads Reads = detail::slab_reads::coherent, unsigned TileLanes = detail::read_tile_lanes>
  __device__ operation_status find(bool active, key_type key, value_type& value_out) const
  {
    bool never_set = false;
    return apply_in_tiles<Reads, TileLanes, detail::lane_ops::uniform>(active, operation::find, key, 0, value_out,
                                                                       never_set);
  }
  /// Inserts each active lane's pair if its key is absent.
  template <unsigned TileLanes = detail::read_tile_lanes>
  __device__ operation_status insert(allocator_type& allocator, bool active, key_type key, value_type value = 0) const
  {
    value_type unused = 0;
    return apply<TileLanes, detail::lane_ops::uniform>(&allocator, active, operation::insert, key, value, unused);
  }
  /// Inserts or replaces each active lane's pair.
  template <unsigned TileLanes = detail::read_tile_lanes>
  __device__ operation_status insert_or_assign(allocator_type& allocator, bool active, key_type key,
                                               value_type value = 0) const
  {
    value_type unused = 0;
    return apply<TileLanes, detail::lane_ops::uniform>(&allocator, active, operation::insert_or_assign, key, value,
                                                       unused);
  }
  /// Erases each active lane's key if present; `TileLanes` lanes run each erasure together.
  template <unsigned TileLanes = detail::read_tile_lanes>
  __device__ operation_status erase(bool active, key_type key) const
  {
    value_type unused = 0;
    bool never_set = false;
    return apply_in_tiles<detail::slab_reads::coherent, TileLanes, detail::lane_ops::uniform>(
        active, operation::erase, key, 0, unused, never_set);
  }

 private:
  /// The insertions whose lanes have `needs_slab` set run one at a time on the whole warp, which
  /// appends the slab they need; their `status` and `value_out` are replaced.
  __device__ void append_in_warp(allocator_type* allocator, bool needs_slab, operation op, key_type key,
                                 value_type value, operation_status& status, value_type& value_out) const
  {
    const unsigned lane = warp::lane_id();
    unsigned queue;
    while ((queue = warp::ballot(needs_slab)) != 0) {
      const int source = warp::ffs(queue) - 1;
      const auto source_op = static_cast<operation>(warp::shfl(static_cast<std::uint32_t>(op), source));
      const key_type source_key = warp::shfl(key, source);
      const value_type source_value = warp::shfl(value, source);
      value_type found_value = 0;
      const operation_status outcome =
          run_in_warp(allocator, source_op, source_key, source_value, table_.bucket_of(source_key), found_value);
      if (static_cast<int>(lane) == source) {
        status = outcome;
        if (outcome == operation_status::found) { value_out = found_value; }
        needs_slab = false;
      }
    }
  }

  /// The work queue of the tiles: each tile of `TileLanes` lanes runs its lanes' operations one at a
  /// time, by the protocol of slab_layout.hpp, all tiles of the warp in lockstep. Each step a tile
  /// with no operation under way takes its lowest waiting lane's, every busy tile reads its current
  /// slab (each lane its share: slots_per_slab / tile lanes slots, at least one, in vector loads of up
  /// to 16 bytes whose elements are whole slots; tiles wider than a slab's slots read with their
  /// first lanes), and the tile decides from two votes: the lanes that hold a matching slot and those
  /// that hold an empty one. The lowest such lane owns the slot the protocol picks (slots are spread
  /// over the lanes in order), so it swaps it or reports its value. An insertion that reaches the end
  /// of a full list changes nothing and sets `needs_slab` (its status is then meaningless): the caller
  /// runs it again on the whole warp, which can allocate. Warp-collective.
  template <detail::slab_reads Reads, unsigned TileLanes, detail::lane_ops Ops>
  __device__ __forceinline__ operation_status apply_in_tiles(bool active, operation op, key_type key, value_type value,
                                                             value_type& value_out, bool& needs_slab) const
  {
    constexpr unsigned lane_slots = Slots::slots_per_slab > TileLanes ? Slots::slots_per_slab / TileLanes : 1;
    constexpr unsigned reading_lanes = Slots::slots_per_slab / lane_slots;
    constexpr unsigned max_load_slots = 16 / sizeof(slot_type);
    constexpr unsigned load_slots = lane_slots < max_load_slots ? lane_slots : max_load_slots;
    constexpr unsigned no_slot = ~0U;
    constexpr bool mixed = Ops == detail::lane_ops::mixed;
    const detail::read_tile<TileLanes> tile;
    const unsigned first_slot = tile.rank * lane_slots;
    const bool reads = reading_lanes == TileLanes || tile.rank < reading_lanes;
    const bool may_insert = mixed || op == operation::insert || op == operation::insert_or_assign;
    const bool may_swap = may_insert || op == operation::erase;
    const std::uint32_t bucket = active ? table_.bucket_of(key) : 0;
    operation_status own_status = operation_status::not_found;
    // The tile's operation under way, the same in each of its lanes.
    bool busy = false;
    unsigned source = 0;
    operation current_op = op;
    key_type current_key = 0;
    value_type current_value = 0;
    slot_type* slab = nullptr;
    for (;;) {
      const unsigned waiting = tile.ballot(active);
      const bool starts = !busy && waiting != 0;
      if (starts) { source = lowest_set_bit(waiting); }
      const key_type source_key = tile.shfl(key, source);
      const std::uint32_t source_bucket = tile.shfl(bucket, source);
      const std::uint32_t source_op = mixed ? tile.shfl(static_cast<std::uint32_t>(op), source) : 0U;
      const value_type source_value = may_insert ? tile.shfl(value, source) : value_type{0};
      if (starts) {
        busy = true;
        current_key = source_key;
        current_value = source_value;
        current_op = mixed ? static_cast<operation>(source_op) : op;
        slab = table_.head(source_bucket);
      }
      if (!warp::any(busy)) { return own_status; }
      const bool inserts = current_op == operation::insert || current_op == operation::insert_or_assign;
      const bool matches_count = !inserts || table_.mode == key_mode::unique;
      unsigned first_match = no_slot, first_empty = no_slot;
      bool holds_pending = false;
      slot_type matched = Slots::empty_slot, last = Slots::empty_slot;
      if (busy && reads) {
#pragma unroll
        for (unsigned load = 0; load < lane_slots / load_slots; ++load) {
          slot_type seen[load_slots];
          detail::load_slots<Reads>(slab + first_slot + load * load_slots, seen);
#pragma unroll
          for (unsigned index = 0; index < load_slots; ++index) {
            const unsigned slot = first_slot + load * load_slots + index;
            const key_type seen_key = Slots::key_of(seen[index]);
            if (slot < Slots::data_slots && table_.holds(seen_key, current_key) && matches_count &&
                first_match == no_slot) {
              first_match = slot;
              matched = seen[index];
            }
            if (slot < Slots::data_slots && seen_key == Slots::empty_key && first_empty == no_slot) {
              first_empty = slot;
            }
            holds_pending = holds_pending || (slot < Slots::data_slots && Slots::is_pending(seen_key));
          }
          last = seen[load_slots - 1];
        }
      }
      const unsigned match_lanes = tile.ballot(first_match != no_slot);
      const unsigned empty_lanes = may_insert ? tile.ballot(inserts && first_empty != no_slot) : 0U;
      // The protocol needs the lowest matching (empty) slot: it lies in the lowest such lane.
      slab_summary summary;
      summary.match_slots = match_lanes != 0 ? 1U << (lowest_set_bit(match_lanes) * lane_slots) : 0U;
      summary.empty_slots = empty_lanes != 0 ? 1U << (lowest_set_bit(empty_lanes) * lane_slots) : 0U;
      if constexpr (Slots::writes_value_apart) {
        // Only a unique insertion looks at pending slots (next_step): which lane holds one does not matter.
        summary.pending_slots = may_insert ? tile.ballot(inserts && holds_pending) : 0U;
      }
      summary.next = tile.shfl(Slots::link_of(last), reading_lanes - 1);
      const step next = next_step(current_op, summary, table_.mode);
      const unsigned owner = next.slot / lane_slots;
      bool swapped = false;
      if (may_swap && busy && next.kind == step_kind::swap_slot && tile.rank == owner) {
        const bool into_empty = next.status == operation_status::inserted;
        const unsigned slot = into_empty ? first_empty : first_match;
        const slot_type expected = into_empty ? Slots::empty_slot : matched;
        const slot_type desired =
            next.desired_erases
                ? Slots::make_slot(Slots::erased_key, Slots::value_of(matched))
                : Slots::make_slot(table_.key_to_write(Slots::key_of(matched), current_key), current_value);
        swapped = detail::try_swap_slot<Slots>(slab + slot, expected, desired);
      }
      const bool swap_took = may_swap && tile.ballot(swapped) != 0;
      value_type matched_value = Slots::value_of(matched);
      if constexpr (Slots::writes_value_apart && Reads == detail::slab_reads::coherent) {
        const bool reports_value = busy && next.kind == step_kind::finish && next.status == operation_status::found;
        if (reports_value && tile.rank == owner) {
          matched_value = detail::reload_value<Slots>(slab + first_match, matched);
        }
      }
      const value_type owner_value = tile.shfl(matched_value, owner);
      if (!busy) { continue; }
      bool done = true;
      switch (next.kind) {
        case step_kind::finish:
          break;
        case step_kind::swap_slot:
          done = swap_took || finishes_after_failed_swap(next);  // else the slot changed: read the slab again
          break;
        case step_kind::follow:
          slab = table_.pool.slab(summary.next);
          done = false;
          break;
        case step_kind::append:
          break;
        case step_kind::reread:
          done = false;  // a pending slot: read the slab again
          break;
      }
      if (!done) { continue; }
      busy = false;
      if (tile.rank == source) {
        const bool appends = next.kind == step_kind::append;
        own_status = appends ? operation_status::out_of_memory : next.status;
        if (own_status == operation_status::found) { value_out = owner_value; }
        needs_slab = appends;
        active = false;
      }
    }
  }

  /// One operation, run by the whole warp: the protocol of slab_layout.hpp, one slab read per step.
  __device__ operation_status run_in_warp(allocator_type* allocator, operation op, key_type key, value_type value,
                                          std::uint32_t bucket, value_type& found_value) const
  {
    const unsigned lane = warp::lane_id();
    const bool data_lane = lane < Slots::data_slots;
    slot_type* slab = table_.head(bucket);
    for (;;) {
      const slot_type seen = lane < Slots::slots_per_slab ? detail::load_slot(slab + lane) : Slots::empty_slot;
      const key_type seen_key = Slots::key_of(seen);
      slab_summary summary;
      summary.match_slots = warp::ballot(data_lane && table_.holds(seen_key, key));
      summary.empty_slots = warp::ballot(data_lane && seen_key == Slots::empty_key);
      if constexpr (Slots::writes_value_apart) {
        summary.pending_slots = warp::ballot(data_lane && Slots::is_pending(seen_key));
      }
      summary.next = warp::shfl(Slots::link_of(seen), Slots::link_slot);
      const step next = next_step(op, summary, table_.mode);
      switch (next.kind) {
        case step_kind::finish:
          if (next.status == operation_status::found) {
            value_type value_seen = Slots::value_of(seen);
            if (lane == next.slot) { value_seen = detail::reload_value<Slots>(slab + lane, seen); }
            found_value = warp::shfl(value_seen, static_cast<int>(next.slot));
          }
          return next.status;
        case step_kind::swap_slot: {
          bool swapped = false;
          if (lane == next.slot) {
            const slot_type desired = next.desired_erases
                                          ? Slots::make_slot(Slots::erased_key, Slots::value_of(seen))
                                          : Slots::make_slot(table_.key_to_write(Slots::key_of(seen), key), value);
            swapped = detail::try_swap_slot<Slots>(slab + lane, seen, desired);
          }
          if (warp::shfl(swapped, static_cast<int>(next.slot)) || finishes_after_failed_swap(next)) {
            return next.status;
          }
          break;  // the slot changed: read the slab again
        }
        case step_kind::follow:
          slab = table_.pool.slab(summary.next);
          break;
        case step_kind::reread:
          break;
        case step_kind::append: {
          slot_type* const next_slab = allocator != nullptr ? detail::append_slab(table_, *allocator, slab) : nullptr;
          if (next_slab == nullptr) { return operation_status::out_of_memory; }
          slab = next_slab;
          break;
        }
      }
    }
  }

  detail::slab_table_view<Slots> table_;
};

/// The ref of a slab_map with 128-byte slabs: `slab_map_ref ref(map.view())`. Any table's ref, 64-byte slabs
/// included: `slab_table_ref ref(table.view())` (the layout is deduced).
using slab_map_ref = slab_table_ref<map_slots>;
/// The ref of a slab_set: `slab_set_ref ref(set.view())`.
using slab_set_ref = slab_table_ref<set_slots>;
/// The refs of a 64 / 64 slab_map (or slab_multimap) and of a slab_set of 64-bit keys.
using slab_map64_ref = slab_table_ref<map64_slots>;
using slab_set64_ref = slab_table_ref<set64_slots>;

}  // namespace warpdex::hash
