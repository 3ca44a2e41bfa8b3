#pragma once
/// @file The warp-level half of SlabAlloc-light (slab_alloc_light.hpp): a warp's resident memory block
/// with its occupancy bitmap in registers, one word per lane. CUDA-only.

#include <warpdex/core/warp.cuh>
#include <warpdex/hash/slab_alloc_light.hpp>

#include <cstdint>

namespace warpdex::hash {

/// One warp's light allocator. Construct it and call allocate() with the whole warp converged.
template <class Slot>
class light_warp_allocator {
 public:
  /// `worker` distinguishes warps (and launches): it picks the blocks to try. Reads nothing until the
  /// first allocation, so a warp that never allocates costs nothing.
  __device__ light_warp_allocator(const light_pool_view<Slot>& pool, std::uint64_t worker)
      : pool_(pool), worker_(worker)
  {
  }

  /// A free slab's index, the same in every lane, or null_slab when no block has a free slab.
  /// Warp-collective. One atomicOr in the common case.
  __device__ std::uint32_t allocate()
  {
    if (pool_.block_count == 0) { return null_slab; }
    const std::uint64_t tries = std::uint64_t{random_block_attempts} + pool_.block_count;
    std::uint64_t attempt = 0;
    for (;;) {
      const unsigned lanes_with_room = warp::ballot(resident_bits_ != 0xffffffffU);
      if (lanes_with_room != 0) {
        const int lane = warp::ffs(lanes_with_room) - 1;
        std::uint32_t slab = null_slab;
        if (static_cast<int>(warp::lane_id()) == lane) {
          const std::uint32_t bit = 1U << (__ffs(~resident_bits_) - 1);
          const std::uint32_t before = atomicOr(word_address(), bit);
          resident_bits_ = before | bit;
          if ((before & bit) == 0) {
            slab = resident_block_ * slabs_per_block + static_cast<std::uint32_t>(lane) * 32 + (__ffs(bit) - 1);
          }
        }
        slab = warp::shfl(slab, lane);
        if (slab != null_slab) { return slab; }
        continue;  // another warp took that bit: the refreshed word says what is left
      }
      if (attempt == tries) { return null_slab; }
      make_resident(candidate_block(worker_, attempt, pool_.block_count));
      ++attempt;
    }
  }

  /// Returns `slab` to the pool. Called by one lane.
  __device__ void free(std::uint32_t slab) const { atomicAnd(pool_.bitmap + slab / 32, ~(1U << (slab % 32))); }

 private:
  __device__ std::uint32_t* word_address() const
  {
    return pool_.bitmap + static_cast<std::uint64_t>(resident_block_) * bitmap_words_per_block + warp::lane_id();
  }
  __device__ void make_resident(std::uint32_t block)
  {
    resident_block_ = block;
    resident_bits_ = __ldcg(word_address());  // L2: other warps' atomics do not update L1
  }

  light_pool_view<Slot> pool_;
  std::uint64_t worker_;
  std::uint32_t resident_block_ = 0;
  std::uint32_t resident_bits_ = 0xffffffffU;  ///< none resident yet: the first allocation picks a block
};

}  // namespace warpdex::hash
