#pragma once
/// @file SlabAlloc-light: a pool of slabs in one contiguous array, handed out by an occupancy bitmap.
///
/// The pool is cut into memory blocks of 1024 slabs; block b owns 32 bitmap words, one per warp lane,
/// bit i of word w marking slab b * 1024 + w * 32 + i as taken. A warp keeps one resident block and its
/// 32 bitmap words in registers (one word per lane): an allocation is a ballot over those words and
/// one atomicOr by the lane with a free bit, so the common case costs a single atomic. A warp whose
/// resident block is full moves to another block chosen by hashing (warp, attempt), and after a few
/// misses sweeps every block once; a sweep that finds nothing reports exhaustion to the caller. Slab
/// addresses are 32-bit indices into the pool.

#include <warpdex/core/config.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <cstdint>

namespace warpdex::hash {

/// Slabs in a memory block: one bit for each of 32 bits of 32 lanes' bitmap words.
inline constexpr std::uint32_t slabs_per_block = 32 * 32;
/// Bitmap words per memory block: one per lane.
inline constexpr std::uint32_t bitmap_words_per_block = slabs_per_block / 32;
/// Blocks a warp tries at random before it sweeps the whole pool (enough that a pool with a few free
/// blocks left is found without a sweep; a sweep costs one read per block).
inline constexpr std::uint32_t random_block_attempts = 8;
/// The largest pool: slab indices are 32-bit and `null_slab` is reserved.
inline constexpr std::uint64_t max_pool_slabs = null_slab;

/// The pool as kernels and host threads see it.
template <class Slot>
struct slab_pool_view {
  Slot* slabs = nullptr;            ///< pool_slabs slabs, each slab_bytes long
  std::uint32_t* bitmap = nullptr;  ///< block_count * bitmap_words_per_block words; bit set: slab taken
  std::uint32_t block_count = 0;

  WARPDEX_HOST_DEVICE Slot* slab(std::uint32_t index) const
  {
    return slabs + static_cast<std::uint64_t>(index) * (slab_bytes / sizeof(Slot));
  }
};

/// The first block a warp (or host thread) numbered `worker` looks at, and the ones after a miss.
WARPDEX_HOST_DEVICE constexpr std::uint32_t candidate_block(std::uint64_t worker, std::uint32_t attempt,
                                                            std::uint32_t block_count)
{
  return static_cast<std::uint32_t>(fmix64(worker * 0x9e3779b97f4a7c15ULL + attempt) % block_count);
}

/// Bitmap words of `block_count` blocks for a pool of `pool_slabs`: word `word` has the bits of slabs
/// beyond the pool set, so they are never handed out.
WARPDEX_HOST_DEVICE constexpr std::uint32_t initial_bitmap_word(std::uint64_t word, std::uint64_t pool_slabs)
{
  const std::uint64_t first_slab = word * 32;
  if (first_slab + 32 <= pool_slabs) { return 0; }
  if (first_slab >= pool_slabs) { return 0xffffffffU; }
  return ~((1U << (pool_slabs - first_slab)) - 1U);
}

}  // namespace warpdex::hash
