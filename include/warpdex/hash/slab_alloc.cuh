#pragma once
/// @file The warp-level half of SlabAlloc (slab_alloc.hpp): a warp's resident memory block with its
/// occupancy bitmap in registers, one word per lane. CUDA-only.

#include <warpdex/core/warp.cuh>
#include <warpdex/hash/slab_alloc.hpp>

#include <cstdint>

namespace warpdex::hash {

/// One warp's allocator. Construct it and call allocate() with the whole warp converged.
template <class Slot, std::uint32_t SlabBytes = default_slab_bytes>
class slab_warp_allocator {
 public:
  /// `worker` distinguishes warps (and launches): it picks the blocks to try. Reads nothing until the
  /// first allocation, so a warp that never allocates costs nothing.
  __device__ slab_warp_allocator(const slab_pool_view<Slot, SlabBytes>& pool, std::uint64_t worker)
      : pool_(pool), worker_(worker)
  {
  }

  /// A free slab's address, the same in every lane, or null_slab when no block of any super block has
  /// a free slab (slabs held for a moment by other warps' appends count as taken), or when a sweep
  /// found them all full before (slab_pool_view::swept_full). Warp-collective. One atomicOr in the
  /// common case.
  __device__ std::uint32_t allocate()
  {
    if (pool_.block_count == 0) { return null_slab; }
    const std::uint64_t tries = std::uint64_t{random_block_attempts} + pool_.block_count;
    std::uint64_t attempt = 0;
    bool marked_full = false;  // the mark read with the last block loaded
    for (;;) {
      const unsigned lanes_with_room = warp::ballot(resident_bits_ != 0xffffffffU);
      if (lanes_with_room != 0) {
        const int lane = warp::ffs(lanes_with_room) - 1;
        std::uint32_t slab = null_slab;
        if (static_cast<int>(warp::lane_id()) == lane) {
          const std::uint32_t bit = 1U << (__ffs(~resident_bits_) - 1);
          const std::uint32_t before = atomicOr(resident_words_ + lane, bit);
          resident_bits_ = before | bit;
          if ((before & bit) == 0) {
            slab = resident_first_ + static_cast<std::uint32_t>(lane) * 32 + (__ffs(bit) - 1);
          }
        }
        slab = warp::shfl(slab, lane);
        if (slab != null_slab) { return slab; }
        continue;  // another warp took that bit: the refreshed word says what is left
      }
      if (marked_full) { return null_slab; }  // and the block loaded with the mark had no room either
      if (attempt == tries) {
        if (warp::lane_id() == 0 && pool_.swept_full != nullptr) { atomicMax(pool_.swept_full, pool_.block_count); }
        return null_slab;
      }
      marked_full = make_resident(candidate_block(worker_, attempt, pool_.block_count));
      ++attempt;
    }
  }

  /// Returns the slab at `address` to the pool. Called by one lane.
  __device__ void free(std::uint32_t address) const
  {
    atomicAnd(pool_.bitmap_word(address), ~slab_pool_view<Slot, SlabBytes>::bit_of(address));
    if (pool_.swept_full != nullptr && __ldcg(pool_.swept_full) != 0) {
      __threadfence();  // the freed bit before the cleared mark
      atomicExch(pool_.swept_full, 0U);
    }
  }

 private:
  /// Loads `block`'s bitmap words; returns whether the mark says a sweep found the pool full (read
  /// beside the words, so a move costs no extra round trip).
  __device__ bool make_resident(std::uint32_t block)
  {
    const auto located = pool_.locate(block);
    resident_words_ = located.words;
    resident_first_ = located.first_address;
    resident_bits_ = __ldcg(resident_words_ + warp::lane_id());  // L2: other warps' atomics do not update L1
    return pool_.swept_full != nullptr && pool_.swept_full_at(__ldcg(pool_.swept_full));
  }

  slab_pool_view<Slot, SlabBytes> pool_;
  std::uint64_t worker_;
  std::uint32_t* resident_words_ = nullptr;    ///< the resident block's 32 bitmap words
  std::uint32_t resident_first_ = 0;           ///< the address of its unit 0
  std::uint32_t resident_bits_ = 0xffffffffU;  ///< none resident yet: the first allocation picks a block
};

}  // namespace warpdex::hash
