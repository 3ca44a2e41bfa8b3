#pragma once
/// @file Device-side refs of slab_map and slab_set (cuco style): non-owning views a user kernel calls to
/// insert, find and erase, warp-cooperatively. CUDA-only.
///
/// Every member is warp-collective: all 32 lanes of a warp call it together (converged), each with its
/// own operation, and `active` false for lanes with nothing to do. The warp runs its lanes' operations
/// one at a time (the slab hash's work-queue loop): one coalesced 128-byte read per slab and ballots
/// over it. The semantics are those of a batch (slab_table.hpp): operations of every warp of every
/// kernel in flight on one table are linearizable. Do not flush, clear or destroy the table while a
/// kernel uses a ref.
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
    operation_status own_status = operation_status::not_found;
    unsigned queue;
    while ((queue = warp::ballot(active)) != 0) {
      const int source = warp::ffs(queue) - 1;
      const auto source_op = static_cast<operation>(warp::shfl(static_cast<std::uint32_t>(op), source));
      const std::uint32_t source_key = warp::shfl(key, source);
      const std::uint32_t source_value = warp::shfl(value, source);
      std::uint32_t found_value = 0;
      const operation_status status = run_one(allocator, source_op, source_key, source_value, found_value);
      if (static_cast<int>(lane) == source) {
        own_status = status;
        if (status == operation_status::found) { value_out = found_value; }
        active = false;
      }
    }
    return own_status;
  }

  /// Looks each active lane's key up; found keys' values go to `value_out`.
  __device__ operation_status find(bool active, std::uint32_t key, std::uint32_t& value_out) const
  {
    return apply(nullptr, active, operation::find, key, 0, value_out);
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
  /// Erases each active lane's key if present.
  __device__ operation_status erase(bool active, std::uint32_t key) const
  {
    std::uint32_t unused = 0;
    return apply(nullptr, active, operation::erase, key, 0, unused);
  }

 private:
  /// One operation, run by the whole warp: the protocol of slab_layout.hpp, one slab read per step.
  __device__ operation_status run_one(allocator_type* allocator, operation op, std::uint32_t key, std::uint32_t value,
                                      std::uint32_t& found_value) const
  {
    const unsigned lane = warp::lane_id();
    const bool data_lane = lane < Slots::data_slots;
    slot_type* slab = table_.head_of(key);
    for (;;) {
      const slot_type seen = lane < Slots::slots_per_slab ? detail::load_slot(slab + lane) : Slots::empty_slot;
      const std::uint32_t seen_key = Slots::key_of(seen);
      slab_summary summary;
      summary.match_slots = warp::ballot(data_lane && seen_key == key);
      summary.empty_slots = warp::ballot(data_lane && seen_key == empty_key);
      summary.next = warp::shfl(Slots::link_of(seen), Slots::link_slot);
      const step next = next_step(op, summary);
      switch (next.kind) {
        case step_kind::finish:
          found_value = warp::shfl(Slots::value_of(seen), static_cast<int>(next.slot));
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
