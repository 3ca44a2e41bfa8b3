#pragma once
/// @file SlabAlloc: the allocator of the slab tables' overflow slabs (Ashkiani's dissertation, §4).
///
/// Memory is organized as super blocks -> memory blocks -> units (slabs):
/// - a unit is one slab (128 bytes, or 64 with the smaller nodes);
/// - a memory block is `slabs_per_block` (1024) units with 32 bitmap words, one per warp lane, bit i of
///   lane w's word marking unit w * 32 + i as taken;
/// - a super block is one allocation of up to `blocks_per_super_block` memory blocks with its bitmap.
/// A slab address is 32 bits: (super block : 6, memory block : 16, unit : 10). Super blocks are added by
/// the host between batches (`slab_table_base` grows the table when an insertion batch runs out), so
/// the pool grows without moving a slab and without rebuilding the table; addresses already handed out
/// stay valid, and so do views taken before a growth (they only do not allocate from the new super
/// blocks).
///
/// A warp keeps one resident memory block with its 32 bitmap words in registers (slab_alloc.cuh): an
/// allocation is a ballot over those words and one atomicOr by a lane with a free bit, so the common
/// case costs a single atomic. A full resident block is replaced by a block chosen by hashing (warp,
/// attempt) over all blocks of all super blocks; after `random_block_attempts` misses the warp sweeps
/// every block once, newest super block first (after a growth the free units are there), and a sweep
/// that finds nothing reports exhaustion (null_slab) to the caller. That sweep also marks the pool as
/// swept full (`swept_full`), so the other warps' allocations, and the same warp's next ones, give up
/// after one read instead of sweeping every block again: without the mark, a batch that ran out swept
/// the whole pool once per operation still needing a slab (a 2^20-key batch took 1.7-4 ms instead of
/// 0.1-0.3). A free clears the mark; so do clear and flush, and a growth outdates it.
///
/// The light variant (slab_alloc_light.hpp) is one contiguous array with the same per-block bitmap; it
/// cannot grow.

#include <warpdex/core/config.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <cstdint>

namespace warpdex::hash {

/// Units (slabs) in a memory block: one bit for each of 32 bits of 32 lanes' bitmap words.
inline constexpr std::uint32_t slabs_per_block = 32 * 32;
/// Bitmap words per memory block: one per lane.
inline constexpr std::uint32_t bitmap_words_per_block = slabs_per_block / 32;
/// Blocks a warp tries at random before it sweeps the whole pool (enough that a pool with a few free
/// blocks left is found without a sweep; a sweep costs one read per block).
inline constexpr std::uint32_t random_block_attempts = 8;

/// Bits of a slab address that number the unit in its memory block.
inline constexpr std::uint32_t unit_address_bits = 10;
/// Bits of a slab address that number the memory block in its super block.
inline constexpr std::uint32_t block_address_bits = 16;
/// Bits of a slab address below the super block number.
inline constexpr std::uint32_t super_block_shift = unit_address_bits + block_address_bits;
static_assert(slabs_per_block == 1U << unit_address_bits, "a unit number addresses one block's slabs");
/// The most memory blocks in one super block (8 GiB of slabs).
inline constexpr std::uint32_t blocks_per_super_block = 1U << block_address_bits;
/// The most slabs in one super block.
inline constexpr std::uint64_t slabs_per_super_block = std::uint64_t{blocks_per_super_block} * slabs_per_block;
/// The most super blocks of a pool: the 6 address bits give 64, the last is left out so that no slab
/// address equals `null_slab`.
inline constexpr std::uint32_t max_super_blocks = (1U << (32 - super_block_shift)) - 1;
/// The largest pool.
inline constexpr std::uint64_t max_pool_slabs = std::uint64_t{max_super_blocks} * slabs_per_super_block;

/// The compact address of unit `unit` of memory block `block` of super block `super_block`.
WARPDEX_HOST_DEVICE constexpr std::uint32_t slab_address(std::uint32_t super_block, std::uint32_t block,
                                                         std::uint32_t unit)
{
  return (super_block << super_block_shift) | (block << unit_address_bits) | unit;
}

/// The pool as kernels and host threads see it. The arrays live in the backend's memory and have room
/// for max_super_blocks entries, so a growth only appends to them.
template <class Slot, std::uint32_t SlabBytes = default_slab_bytes>
struct slab_pool_view {
  Slot* const* super_blocks = nullptr;      ///< each super block's slabs, each SlabBytes long
  std::uint32_t* const* bitmaps = nullptr;  ///< each super block's bitmap: bitmap_words_per_block per block
  /// super_block_count + 1 entries: the global number of each super block's first memory block, then
  /// block_count. Global block numbers run over all super blocks in order.
  const std::uint32_t* first_blocks = nullptr;
  std::uint32_t super_block_count = 0;
  std::uint32_t block_count = 0;  ///< memory blocks of all super blocks
  /// One word in the same memory, or null (no mark): 0, or the block_count of a pool in which a sweep
  /// found no free slab. A view of no more blocks than that is full (swept_full_at); a view that has
  /// seen a growth since has more blocks and ignores it. A slab freed while a sweep runs may stay
  /// unseen until the next free, clear or flush, as slabs held for a moment by appends do.
  std::uint32_t* swept_full = nullptr;

  /// Whether a sweep found this view's blocks full, given the mark's value `mark`.
  WARPDEX_HOST_DEVICE bool swept_full_at(std::uint32_t mark) const { return mark != 0 && mark >= block_count; }

  /// The slab at `address`.
  WARPDEX_HOST_DEVICE Slot* slab(std::uint32_t address) const
  {
    constexpr std::uint32_t in_super_mask = (1U << super_block_shift) - 1;
    return super_blocks[address >> super_block_shift] +
           static_cast<std::uint64_t>(address & in_super_mask) * (SlabBytes / sizeof(Slot));
  }

  /// The bitmap word holding `address`'s bit, and the bit.
  WARPDEX_HOST_DEVICE std::uint32_t* bitmap_word(std::uint32_t address) const
  {
    constexpr std::uint32_t in_super_mask = (1U << super_block_shift) - 1;
    return bitmaps[address >> super_block_shift] + (address & in_super_mask) / 32;
  }
  WARPDEX_HOST_DEVICE static constexpr std::uint32_t bit_of(std::uint32_t address) { return 1U << (address % 32); }

  /// The super block holding global memory block `block` (< block_count): a binary search over
  /// first_blocks (at most 6 reads, only when a warp changes blocks).
  WARPDEX_HOST_DEVICE std::uint32_t super_block_of(std::uint32_t block) const
  {
    std::uint32_t low = 0, high = super_block_count;  // first_blocks[low] <= block < first_blocks[high]
    while (high - low > 1) {
      const std::uint32_t middle = (low + high) / 2;
      if (first_blocks[middle] <= block) {
        low = middle;
      } else {
        high = middle;
      }
    }
    return low;
  }

  /// Where global memory block `block` lives: its first bitmap word and the address of its unit 0.
  struct located_block {
    std::uint32_t* words;
    std::uint32_t first_address;
  };
  WARPDEX_HOST_DEVICE located_block locate(std::uint32_t block) const
  {
    const std::uint32_t super_block = super_block_of(block);
    const std::uint32_t in_super = block - first_blocks[super_block];
    return {bitmaps[super_block] + static_cast<std::uint64_t>(in_super) * bitmap_words_per_block,
            slab_address(super_block, in_super, 0)};
  }
};

/// The block a warp (or host thread) numbered `worker` tries at its `attempt`-th move: random for the
/// first random_block_attempts, then every block once, from the last (the newest super block) down.
/// `attempt` < random_block_attempts + block_count.
WARPDEX_HOST_DEVICE constexpr std::uint32_t candidate_block(std::uint64_t worker, std::uint64_t attempt,
                                                            std::uint32_t block_count)
{
  if (attempt < random_block_attempts) {
    return static_cast<std::uint32_t>(fmix64(worker * 0x9e3779b97f4a7c15ULL + attempt) % block_count);
  }
  return static_cast<std::uint32_t>(block_count - 1 - (attempt - random_block_attempts));
}

/// Bitmap word `word` of a super block of `slabs` units: the bits of units beyond them are set, so they
/// are never handed out.
WARPDEX_HOST_DEVICE constexpr std::uint32_t initial_bitmap_word(std::uint64_t word, std::uint64_t slabs)
{
  const std::uint64_t first_slab = word * 32;
  if (first_slab + 32 <= slabs) { return 0; }
  if (first_slab >= slabs) { return 0xffffffffU; }
  return ~((1U << (slabs - first_slab)) - 1U);
}

}  // namespace warpdex::hash
