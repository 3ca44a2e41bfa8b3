#pragma once
/// @file Device-side refs of slab_map and slab_set (cuco style): non-owning views a user kernel calls to
/// insert, find and erase, warp-cooperatively. CUDA-only.
///
/// Every member is warp-collective: all 32 lanes of a warp call it together (converged), each with its
/// own operation, and `active` false for lanes with nothing to do. Operations run from a work queue
/// (the slab hash's loop): insertions one at a time per warp, the 32 lanes reading a slab with one
/// coalesced 128-byte load and deciding with ballots; finds and erasures, which never allocate, one at a
/// time per tile of lanes (8 by default, reading the slab as 16 bytes each, so a warp has four slab
/// reads in flight; 1, 4, 16 or 32 on request). The bucket hash of every lane's key is computed once, by its lane,
/// before the queue starts. The semantics are those of a batch (slab_table.hpp): operations of every warp of every
/// kernel in flight on one table are linearizable. Do not flush, clear or destroy the table while a kernel uses a ref.
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

/// How a path reads slabs.
enum class slab_reads {
  coherent,   ///< through L2 (ld.global.cg): sees other SMs' writes; any path that may run next to writers
  read_only,  ///< the non-coherent path (ld.global.nc, cached in L1): only while nothing writes the table
};

/// Lanes of the tile that reads one slab in the paths that never allocate (find, erase) when none is
/// asked for: 16 bytes per lane, one vector load, four slab reads in flight per warp.
inline constexpr unsigned read_tile_lanes = 8;

/// A tile of `Lanes` consecutive lanes (1, 4, 8, 16 or 32): its lanes synchronize only with each
/// other, so the tiles of a warp may run different steps.
template <unsigned Lanes>
struct read_tile {
  static_assert(Lanes == 1 || Lanes == 4 || Lanes == 8 || Lanes == 16 || Lanes == 32, "tiles of 1, 4, 8, 16 or 32");
  static constexpr unsigned lanes = Lanes;
  unsigned rank;     ///< this lane's index in the tile
  unsigned members;  ///< the tile's lanes as a warp lane mask

  __device__ read_tile()
      : rank(warp::lane_id() % Lanes),
        members((Lanes == unsigned{warp::size} ? ~0U : (1U << (Lanes % unsigned{warp::size})) - 1U)
                << (warp::lane_id() - warp::lane_id() % Lanes))
  {
  }
  /// Bit r: tile lane r's predicate.
  __device__ unsigned ballot(bool predicate) const
  {
    return (__ballot_sync(members, predicate) & members) >> (warp::lane_id() - rank);
  }
  template <class T>
  __device__ T shfl(T value, unsigned source_rank) const
  {
    return __shfl_sync(members, value, static_cast<int>(source_rank), static_cast<int>(Lanes));
  }
  __device__ std::uint32_t reduce_or(std::uint32_t value) const { return __reduce_or_sync(members, value); }
};

/// A slab as 32-bit words: a map's slot s is words 2s (key) and 2s + 1 (value), a set's slot s is
/// word s; the link is the last word in both layouts.
inline constexpr unsigned link_word = slab_words - 1;
static_assert(map_slots::link_slot * 2 + 1 == link_word && set_slots::link_slot == link_word,
              "the link is the last word of a slab");

template <unsigned Words>
using word_load = std::conditional_t<Words == 4, uint4, std::conditional_t<Words == 2, uint2, unsigned int>>;

/// Reads `Words` words at `words` (aligned to their size) with one vector load into `out`.
template <slab_reads Reads, unsigned Words>
__device__ __forceinline__ void load_words(const std::uint32_t* words, std::uint32_t (&out)[Words])
{
  const auto* source = reinterpret_cast<const word_load<Words>*>(words);
  const word_load<Words> loaded = Reads == slab_reads::read_only ? __ldg(source) : __ldcg(source);
  if constexpr (Words == 4) {
    out[0] = loaded.x, out[1] = loaded.y, out[2] = loaded.z, out[3] = loaded.w;
  } else if constexpr (Words == 2) {
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

}  // namespace detail

template <class Slots>
class slab_table_ref {
 public:
  using slot_type = typename Slots::slot_type;
  using allocator_type = slab_warp_allocator<slot_type>;

  /// A ref to the table whose storage `view` describes (`map.view()` / `set.view()`).
  __host__ __device__ explicit slab_table_ref(const detail::slab_table_view<Slots>& view) : table_(view) {}

  /// An allocator for the calling warp; `salt` (e.g. a launch counter) spreads warps over the pool.
  __device__ allocator_type make_allocator(std::uint64_t salt = 0) const
  {
    return allocator_type(table_.pool, warp::global_warp_id() ^ (salt << 40));
  }

  /// Runs each active lane's operation (op, key, value). A found find writes the key's value to
  /// `value_out`. Insertions need `allocator` (null: they report out_of_memory when their list is full).
  /// Returns this lane's status (not_found for inactive lanes). Keys must not be reserved.
  __device__ operation_status apply(allocator_type* allocator, bool active, operation op, std::uint32_t key,
                                    std::uint32_t value, std::uint32_t& value_out) const
  {
    const unsigned lane = warp::lane_id();
    const std::uint32_t bucket = active ? table_.bucket_of(key) : 0;
    operation_status own_status = operation_status::not_found;
    unsigned queue;
    while ((queue = warp::ballot(active)) != 0) {
      const int source = warp::ffs(queue) - 1;
      const auto source_op = static_cast<operation>(warp::shfl(static_cast<std::uint32_t>(op), source));
      const std::uint32_t source_key = warp::shfl(key, source);
      const std::uint32_t source_value = warp::shfl(value, source);
      const std::uint32_t source_bucket = warp::shfl(bucket, source);
      std::uint32_t found_value = 0;
      const operation_status status =
          run_in_warp(allocator, source_op, source_key, source_value, source_bucket, found_value);
      if (static_cast<int>(lane) == source) {
        own_status = status;
        if (status == operation_status::found) { value_out = found_value; }
        active = false;
      }
    }
    return own_status;
  }

  /// Looks each active lane's key up; found keys' values go to `value_out`. With `slab_reads::read_only`
  /// the slabs are read through the non-coherent cache: only while no kernel writes the table.
  /// `TileLanes` (1, 4, 8, 16 or 32) lanes run each lookup together (tile_lanes).
  template <detail::slab_reads Reads = detail::slab_reads::coherent, unsigned TileLanes = detail::read_tile_lanes>
  __device__ operation_status find(bool active, std::uint32_t key, std::uint32_t& value_out) const
  {
    return apply_in_tiles<operation::find, Reads, TileLanes>(active, key, value_out);
  }
  /// Inserts each active lane's pair if its key is absent.
  __device__ operation_status insert(allocator_type& allocator, bool active, std::uint32_t key,
                                     std::uint32_t value = 0) const
  {
    std::uint32_t unused = 0;
    return apply(&allocator, active, operation::insert, key, value, unused);
  }
  /// Inserts or replaces each active lane's pair.
  __device__ operation_status insert_or_assign(allocator_type& allocator, bool active, std::uint32_t key,
                                               std::uint32_t value = 0) const
  {
    std::uint32_t unused = 0;
    return apply(&allocator, active, operation::insert_or_assign, key, value, unused);
  }
  /// Erases each active lane's key if present; `TileLanes` lanes run each erasure together.
  template <unsigned TileLanes = detail::read_tile_lanes>
  __device__ operation_status erase(bool active, std::uint32_t key) const
  {
    std::uint32_t unused = 0;
    return apply_in_tiles<operation::erase, detail::slab_reads::coherent, TileLanes>(active, key, unused);
  }

 private:
  static constexpr unsigned words_per_slot = sizeof(slot_type) / sizeof(std::uint32_t);

  /// The work queue of the operations that never allocate (find, erase): each tile of `TileLanes`
  /// lanes runs its lanes' operations one at a time.
  template <operation Op, detail::slab_reads Reads, unsigned TileLanes>
  __device__ operation_status apply_in_tiles(bool active, std::uint32_t key, std::uint32_t& value_out) const
  {
    static_assert(Op == operation::find || Op == operation::erase, "tiles run the operations that never allocate");
    const detail::read_tile<TileLanes> tile;
    const std::uint32_t bucket = active ? table_.bucket_of(key) : 0;
    operation_status own_status = operation_status::not_found;
    unsigned queue;
    while ((queue = tile.ballot(active)) != 0) {
      const unsigned source = lowest_set_bit(queue);
      const std::uint32_t source_key = tile.shfl(key, source);
      const std::uint32_t source_bucket = tile.shfl(bucket, source);
      std::uint32_t found_value = 0;
      const operation_status status = run_in_tile<Op, Reads>(tile, source_key, source_bucket, found_value);
      if (tile.rank == source) {
        own_status = status;
        if (status == operation_status::found) { value_out = found_value; }
        active = false;
      }
    }
    return own_status;
  }

  /// One find or erase, run by a tile: the protocol of slab_layout.hpp, each lane reading its share of
  /// every slab (32 / tile lanes words, at least one whole slot, in loads of up to 16 bytes: every slot
  /// is read with one load, as slab_layout.hpp requires), the tile combining its lanes' matches with one
  /// reduction. Each lane keeps the value of the first slot it matched, so the lane owning the slot the
  /// protocol picks can report or erase it. A map in tiles of 32 reads with lanes 0-15 only.
  template <operation Op, detail::slab_reads Reads, unsigned TileLanes>
  __device__ operation_status run_in_tile(const detail::read_tile<TileLanes>& tile, std::uint32_t key,
                                          std::uint32_t bucket, std::uint32_t& found_value) const
  {
    constexpr unsigned lane_words = slab_words / TileLanes > words_per_slot ? slab_words / TileLanes : words_per_slot;
    constexpr unsigned reading_lanes = slab_words / lane_words;
    constexpr unsigned load_words = lane_words < 4 ? lane_words : 4;
    const unsigned rank = tile.rank;
    const unsigned first_word = rank * lane_words;
    const bool reads = reading_lanes == TileLanes || rank < reading_lanes;
    slot_type* slab = table_.head(bucket);
    for (;;) {
      const auto* words = reinterpret_cast<const std::uint32_t*>(slab) + first_word;
      std::uint32_t matches = 0;
      std::uint32_t matched_value = 0;
      std::uint32_t last_word = 0;
#pragma unroll
      for (unsigned load = 0; load < lane_words / load_words; ++load) {
        std::uint32_t seen[load_words];
        if (reads) {
          detail::load_words<Reads>(words + load * load_words, seen);
        } else {
#pragma unroll
          for (unsigned index = 0; index < load_words; ++index) { seen[index] = empty_key; }
        }
#pragma unroll
        for (unsigned index = 0; index < load_words; ++index) {
          const unsigned word = first_word + load * load_words + index;
          const unsigned slot = word / words_per_slot;
          const bool key_word = word % words_per_slot == 0 && slot < Slots::data_slots;
          if (key_word && seen[index] == key) {
            // A map slot's value is the next word, in the same load (loads hold whole slots).
            if (matches == 0 && words_per_slot == 2) { matched_value = seen[(index + 1) % load_words]; }
            matches |= 1U << slot;
          }
        }
        last_word = seen[load_words - 1];
      }
      slab_summary summary;  // empty_slots stays 0: only insertions look at it
      summary.match_slots = tile.reduce_or(matches);
      summary.next = tile.shfl(last_word, reading_lanes - 1);
      const step next = next_step(Op, summary);
      const unsigned owner = next.slot * words_per_slot / lane_words;
      switch (next.kind) {
        case step_kind::finish:
          if (next.status == operation_status::found) { found_value = tile.shfl(matched_value, owner); }
          return next.status;
        case step_kind::swap_slot: {
          bool swapped = false;
          if (rank == owner) {
            const slot_type owned = Slots::make_slot(key, matched_value);
            const slot_type desired = Slots::make_slot(erased_key, matched_value);
            swapped = detail::swap_slot(slab + next.slot, owned, desired) == owned;
          }
          if (tile.shfl(swapped, owner)) { return next.status; }
          break;  // the slot changed: read the slab again
        }
        case step_kind::follow:
          slab = table_.pool.slab(summary.next);
          break;
        case step_kind::append:  // not a step of find or erase
          __trap();
      }
    }
  }

  /// One operation, run by the whole warp: the protocol of slab_layout.hpp, one slab read per step.
  __device__ operation_status run_in_warp(allocator_type* allocator, operation op, std::uint32_t key,
                                          std::uint32_t value, std::uint32_t bucket, std::uint32_t& found_value) const
  {
    const unsigned lane = warp::lane_id();
    const bool data_lane = lane < Slots::data_slots;
    slot_type* slab = table_.head(bucket);
    for (;;) {
      const slot_type seen = lane < Slots::slots_per_slab ? detail::load_slot(slab + lane) : Slots::empty_slot;
      const std::uint32_t seen_key = Slots::key_of(seen);
      slab_summary summary;
      summary.match_slots = warp::ballot(data_lane && seen_key == key);
      summary.empty_slots = warp::ballot(data_lane && seen_key == empty_key);
      summary.next = warp::shfl(Slots::link_of(seen), Slots::link_slot);
      const step next = next_step(op, summary, table_.mode);
      switch (next.kind) {
        case step_kind::finish:
          if (next.status == operation_status::found) {
            found_value = warp::shfl(Slots::value_of(seen), static_cast<int>(next.slot));
          }
          return next.status;
        case step_kind::swap_slot: {
          bool swapped = false;
          if (lane == next.slot) {
            const slot_type desired = next.desired_erases ? Slots::make_slot(erased_key, Slots::value_of(seen))
                                                          : Slots::make_slot(key, value);
            swapped = detail::swap_slot(slab + lane, seen, desired) == seen;
          }
          if (warp::shfl(swapped, static_cast<int>(next.slot))) { return next.status; }
          break;  // the slot changed: read the slab again
        }
        case step_kind::follow:
          slab = table_.pool.slab(summary.next);
          break;
        case step_kind::append: {
          const std::uint32_t fresh = allocator != nullptr ? allocator->allocate() : null_slab;
          if (fresh == null_slab) { return operation_status::out_of_memory; }
          slot_type* fresh_slab = table_.pool.slab(fresh);
          if (lane < Slots::slots_per_slab) { fresh_slab[lane] = Slots::empty_slot; }
          __threadfence();  // the fresh slab is written before any warp can follow the link to it
          __syncwarp();
          std::uint32_t linked = fresh;
          if (lane == Slots::link_slot) {
            const slot_type before =
                detail::swap_slot(slab + lane, Slots::make_link(null_slab), Slots::make_link(fresh));
            if (Slots::link_of(before) != null_slab) { linked = Slots::link_of(before); }
          }
          linked = warp::shfl(linked, Slots::link_slot);
          if (linked != fresh && lane == 0) { allocator->free(fresh); }  // another warp linked first
          slab = table_.pool.slab(linked);
          break;
        }
      }
    }
  }

  detail::slab_table_view<Slots> table_;
};

/// The ref of a slab_map: `slab_map_ref ref(map.view())`.
using slab_map_ref = slab_table_ref<map_slots>;
/// The ref of a slab_set: `slab_set_ref ref(set.view())`.
using slab_set_ref = slab_table_ref<set_slots>;

}  // namespace warpdex::hash
