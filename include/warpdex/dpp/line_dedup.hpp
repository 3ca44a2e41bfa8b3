#pragma once
/// @file Distinct text lines with their counts, in order of first occurrence, over a stream of any size:
/// the engine of `warpdex dedup --lines` (docs/dpp.md). Built only with the CCCL headers.
///
/// **Lines.** A line ends at '\n'; a '\\r' just before that '\n' is not part of the line (CRLF text counts
/// like LF text, and `"a\r\n"` equals "a\n"); a last line without a final newline is a line (its bytes kept
/// as they are, a trailing '\\r' included); NUL and every other byte are ordinary content. Empty input has
/// no lines. The result equals awk's first-occurrence count `awk 'BEGIN { RS = "\r?\n" } !($0 in c) {
/// o[n++] = $0 } { c[$0]++ }'` byte for byte.
///
/// **Streaming.** The input is read in blocks of `chunk_bytes` by a reader thread, which fills the next
/// block while the calling thread groups the current one (blocks in pinned memory with the cuda backend).
/// The whole lines of a block are hashed and grouped by the backend. On the GPU: one 64-bit hash a line
/// (`line_hash`), a stable sort of the hashes with the line positions, and every line compared byte by
/// byte with the first line of its hash in the block; back come each hash's first line with the count of
/// lines equal to it, and any line unequal to the first of its hash (a collision), counted on its own. On
/// the host: a slice of the block per thread, grouped exactly in the thread's own hash table (hash, then
/// bytes). Either way the groups are merged, in the order of their positions, into a table of the distinct
/// lines on the host, again by hash and a byte-by-byte comparison; the line that a block boundary cuts is
/// joined on the host. So the grouping is exact whatever the hash, and memory is bounded by the block size
/// (and the longest line) plus the distinct lines, never by the input: standard input and files larger
/// than memory work.
///
/// Errors: a failed read throws what the source throws; exhausted memory throws `warpdex::out_of_memory`.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/config.hpp>
#include <warpdex/core/hash.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

namespace warpdex::dpp {

/// The 64-bit hash that groups lines: two 32-bit FNV-1a states over the line's bytes, the second started
/// from the mixed offset basis (the same on both backends; `line_dedup_options::hash_mask` weakens it).
WARPDEX_HOST_DEVICE constexpr std::uint64_t line_hash(const unsigned char* bytes, std::size_t length)
{
  std::uint32_t low = fnv1a_32_offset_basis;
  std::uint32_t high = fmix32(fnv1a_32_offset_basis);
  for (std::size_t i = 0; i < length; ++i) {  // one loop, two independent multiply chains
    low = (low ^ bytes[i]) * fnv1a_32_prime;
    high = (high ^ bytes[i]) * fnv1a_32_prime;
  }
  return static_cast<std::uint64_t>(high) << 32 | low;
}

/// How `count_lines` reads and groups.
struct line_dedup_options {
  /// Bytes read and grouped per step, at least 1 and at most `max_line_chunk_bytes` (0: the backend's
  /// default). A line longer than a block is carried over until its end arrives.
  std::uint64_t chunk_bytes = 0;
  /// Only the lines occurring exactly once are kept (`warpdex dedup --lines --once`).
  bool only_once = false;
  /// Every hash that groups lines (`line_hash` on the GPU, the host tables' own) is masked with this. Only
  /// tests lower it: a weak hash makes many distinct lines share a hash, which must not change the result.
  std::uint64_t hash_mask = ~std::uint64_t{0};
};

/// The block size `count_lines` uses when none is given: 64 MiB on the GPU (each block is one copy and
/// a few device-wide passes), 8 MiB on the host (its per-line arrays stay near the caches).
inline constexpr std::uint64_t line_dedup_default_cuda_chunk_bytes = std::uint64_t{1} << 26;
inline constexpr std::uint64_t line_dedup_default_host_chunk_bytes = std::uint64_t{1} << 23;
/// The largest block: positions inside a block are 32-bit.
inline constexpr std::uint64_t max_line_chunk_bytes = std::uint64_t{1} << 31;

/// The distinct lines (in order of first occurrence) with their counts.
struct line_counts {
  std::vector<char> bytes;             ///< the distinct lines, one after another
  std::vector<std::uint64_t> offsets;  ///< line g is bytes [offsets[g], offsets[g + 1]); size() + 1 entries
  std::vector<std::uint64_t> counts;   ///< how often line g occurs
  std::uint64_t lines = 0;             ///< lines read
  /// Distinct lines whose hash another distinct line shares (told apart byte by byte).
  std::uint64_t shared_hash_lines = 0;

  [[nodiscard]] std::size_t size() const { return counts.size(); }
  [[nodiscard]] std::string_view line(std::size_t g) const
  {
    return {bytes.data() + offsets[g], static_cast<std::size_t>(offsets[g + 1] - offsets[g])};
  }
};

/// Fills the front of a span with the input's next bytes and returns how many; 0 at the end.
using line_source = std::function<std::size_t(std::span<char>)>;

/// The distinct lines of the stream `read` with their counts, in order of first occurrence (only those
/// occurring once with `only_once`). `read` is called from a reader thread, one call at a time.
template <class Backend>
[[nodiscard]] line_counts count_lines(const Backend& backend, const line_source& read,
                                      const line_dedup_options& options = {});

/// The same over text in memory.
template <class Backend>
[[nodiscard]] line_counts count_lines(const Backend& backend, std::string_view text,
                                      const line_dedup_options& options = {})
{
  std::size_t offset = 0;
  return count_lines(backend, line_source([text, offset](std::span<char> destination) mutable {
                       const std::size_t taken = std::min(destination.size(), text.size() - offset);
                       std::copy_n(text.data() + offset, taken, destination.data());
                       offset += taken;
                       return taken;
                     }),
                     options);
}

}  // namespace warpdex::dpp
