#pragma once
/// @file The warp-level half of SlabAlloc (slab_alloc.hpp): a warp's resident memory block with its
/// occupancy bitmap in registers, one word per lane. CUDA-only.

#include <warpdex/core/hash.hpp>
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
  ///
  /// A full resident block is replaced by one random block (its 32 words, one per lane, read with the
  /// mark); when that is full too, by the first with room among 32 blocks read side by side, one per
  /// lane (each lane its block's 32 words in eight 16-byte loads): 32 random blocks, then the sweep, 32
  /// blocks a step from the newest super block down (next_with_room). One block a step made a sweep of a
  /// few hundred blocks as many dependent reads.
  __device__ std::uint32_t allocate()
  {
    if (pool_.block_count == 0) { return null_slab; }
    search state{};
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
      if (!state.moved) {
        state.moved = true;
        marked_full = make_resident(candidate_block(worker_, 0, pool_.block_count));
        continue;
      }
      state = next_with_room(state);
      if (state.block == no_block) {
        if (warp::lane_id() == 0 && pool_.swept_full != nullptr) { atomicMax(pool_.swept_full, pool_.block_count); }
        return null_slab;
      }
      marked_full = make_resident(state.block);
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

  static constexpr std::uint32_t no_block = 0xffffffffU;

  /// Where an allocation's search for a block with room stands.
  struct search {
    bool moved = false;       ///< one random block tried
    bool drew = false;        ///< 32 random blocks read
    std::uint32_t swept = 0;  ///< blocks of the sweep's order (newest first) looked at
    std::uint32_t block = 0;  ///< the block found, or no_block
  };

  /// The next block with room after `state`: the first of 32 random blocks, or of the sweep's next
  /// steps; no_block when the sweep is done.
  __device__ search next_with_room(search state) const
  {
    state.block = no_block;
    if (!state.drew) {
      state.drew = true;
      const std::uint64_t draw = fmix64(worker_ * 0x9e3779b97f4a7c15ULL + 1 + warp::lane_id());
      state.block = first_with_room(static_cast<std::uint32_t>(draw % pool_.block_count), true);
    }
    while (state.block == no_block && state.swept < pool_.block_count) {
      const std::uint32_t index = state.swept + warp::lane_id();
      const bool inside = index < pool_.block_count;
      state.block = first_with_room(inside ? pool_.block_count - 1 - index : 0, inside);
      // on after the block found, or past the 32 looked at
      state.swept = state.block == no_block ? state.swept + warp::size : pool_.block_count - state.block;
    }
    return state;
  }

  /// Each lane's `block` (where `valid`) read whole: the first lane's in lane order with a free unit, or
  /// no_block. Warp-collective.
  __device__ std::uint32_t first_with_room(std::uint32_t block, bool valid) const
  {
    bool room = false;
    if (valid) {
      static_assert(bitmap_words_per_block % 4 == 0);
      const auto* words = reinterpret_cast<const uint4*>(pool_.locate(block).words);  // 128-byte aligned
      // Not unrolled: the batch kernels that inline this run at 32 registers, and the eight loads in
      // flight at once made them spill four times as much, which cost a 2^26-key build 7% and a mixed
      // batch 10% (H200). Out of line (__noinline__) spilled more still.
#pragma unroll 1
      for (std::uint32_t part = 0; part < bitmap_words_per_block / 4; ++part) {
        const uint4 four = __ldcg(words + part);  // L2: other warps' atomics do not update L1
        room = room || (four.x & four.y & four.z & four.w) != 0xffffffffU;
      }
    }
    const unsigned with_room = warp::ballot(room);
    return with_room == 0 ? no_block : warp::shfl(block, warp::ffs(with_room) - 1);
  }

  slab_pool_view<Slot, SlabBytes> pool_;
  std::uint64_t worker_;
  std::uint32_t* resident_words_ = nullptr;    ///< the resident block's 32 bitmap words
  std::uint32_t resident_first_ = 0;           ///< the address of its unit 0
  std::uint32_t resident_bits_ = 0xffffffffU;  ///< none resident yet: the first allocation picks a block
};

}  // namespace warpdex::hash
