#pragma once
/// @file SlabAlloc-light: a pool of slabs in one contiguous array, handed out by an occupancy bitmap.
///
/// The pool is cut into memory blocks of 1024 slabs with the bitmap of SlabAlloc (slab_alloc.hpp): block b
/// owns 32 bitmap words, one per warp lane, bit i of word w marking slab b * 1024 + w * 32 + i as taken.
/// A warp keeps one resident block and its 32 bitmap words in registers (slab_alloc_light.cuh), one
/// atomicOr per allocation in the common case, and moves to other blocks as SlabAlloc does. Slab
/// addresses are plain 32-bit indices into the array, so decoding one needs no lookup, but the pool
/// cannot grow: the slab tables use the full SlabAlloc, and this variant stays for the allocator
/// benchmark (bench/slab_alloc.cu) and for kernels that want a fixed pool of their own.

#include <warpdex/core/config.hpp>
#include <warpdex/hash/slab_alloc.hpp>

#include <cstdint>

namespace warpdex::hash {

/// The largest light pool: slab indices are 32-bit and `null_slab` is reserved.
inline constexpr std::uint64_t max_light_pool_slabs = null_slab;

/// A light pool as kernels see it.
template <class Slot, std::uint32_t SlabBytes = default_slab_bytes>
struct light_pool_view {
  Slot* slabs = nullptr;            ///< the pool's slabs, each SlabBytes long
  std::uint32_t* bitmap = nullptr;  ///< block_count * bitmap_words_per_block words (initial_bitmap_word)
  std::uint32_t block_count = 0;

  WARPDEX_HOST_DEVICE Slot* slab(std::uint32_t index) const
  {
    return slabs + static_cast<std::uint64_t>(index) * (SlabBytes / sizeof(Slot));
  }
};

}  // namespace warpdex::hash
