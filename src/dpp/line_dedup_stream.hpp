#pragma once
// What the line count's stream (line_dedup.cpp: reading, cut lines, the table of distinct lines) asks of a
// backend (line_dedup_impl.hpp): host memory for the blocks it reads, and the groups of a block's lines.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/dpp/line_dedup.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace warpdex::dpp::detail {

/// A line of a block with the number of lines of the block counted with it, all equal to it byte for
/// byte. A backend returns groups that count every line of the block exactly once, in the order of their
/// lines' positions (the GPU: each hash's first line with the lines equal to it, and each line unequal to
/// the first of its hash on its own; the host: each slice's distinct lines).
struct line_group {
  std::uint32_t offset = 0;  ///< where the line starts in the block
  std::uint32_t length = 0;  ///< its bytes, without '\n' and a '\r' before it
  std::uint64_t hash = 0;    ///< the grouper's hash of the line, masked
  std::uint64_t count = 0;
};

/// The hash of the host's tables (the host grouper's and the table of distinct lines): eight bytes a
/// step, four times the speed of line_hash's byte-at-a-time FNV-1a on a CPU core. The GPU hashes with
/// line_hash (a thread a line, bytes at any alignment); the two never meet, as the table hashes each line
/// it takes in itself.
inline std::uint64_t host_line_hash(const char* bytes, std::size_t length)
{
  constexpr std::uint64_t multiplier = 0x9e3779b97f4a7c15ULL;  // 2^64 / the golden ratio, odd
  std::uint64_t state = length * multiplier;
  for (; length >= sizeof(std::uint64_t); bytes += sizeof(std::uint64_t), length -= sizeof(std::uint64_t)) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes, sizeof word);
    state = (state ^ word) * multiplier;
    state ^= state >> 29;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, bytes, length);
  return fmix64((state ^ tail) * multiplier);
}

/// The part of the line count that runs on a backend.
class line_grouper {
 public:
  virtual ~line_grouper() = default;
  /// The block size when the options give none.
  [[nodiscard]] virtual std::uint64_t default_chunk_bytes() const = 0;
  /// Host memory for a block of `bytes` (pinned where the backend copies blocks to a device).
  [[nodiscard]] virtual buffer<char> allocate_block(std::size_t bytes) = 0;
  /// The groups of `lines` (whole lines, the last one ending in '\n'), in order of their line's position.
  virtual void group(std::span<const char> lines, std::uint64_t hash_mask, std::vector<line_group>& groups) = 0;
};

/// Each backend's grouper: by hand on the host's cores (line_dedup_host.cpp), over Thrust on the GPU
/// (line_dedup_impl.hpp).
[[nodiscard]] std::unique_ptr<line_grouper> make_line_grouper(const host& backend);
#if WARPDEX_HAS_CUDA
[[nodiscard]] std::unique_ptr<line_grouper> make_line_grouper(const cuda& backend);
#endif

}  // namespace warpdex::dpp::detail
