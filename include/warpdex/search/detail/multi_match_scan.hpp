#pragma once
// Counting several patterns in one pass, shared by the host and the cuda backend. Every pattern's first
// L = min(8, shortest pattern) bytes are its fingerprint, looked up for each window end in an
// open-addressing table (in GPU shared memory while it has at most multi_match_shared_table_slots slots,
// in global memory behind a bit filter beyond); the patterns sharing a fingerprint form one run of the
// patterns grouped by it, and each pattern of the run that fits in the text is verified byte by byte.

#include <warpdex/core/config.hpp>
#include <warpdex/core/hash.hpp>

#include <cstdint>

namespace warpdex::detail {

/// Slots of the fingerprint table at least: a power of two, at least twice the number of patterns (so that
/// probes stay short, the table at most half full). Tables of this size (up to max_patterns_per_pass
/// patterns) sit in GPU shared memory; larger ones in global memory.
inline constexpr std::uint32_t multi_match_shared_table_slots = 512;

/// Bits of the filter in front of a table in global memory (32 KiB of shared memory a block): a blocked
/// Bloom filter of two bits a fingerprint, both in the 32-bit word multi_match_filter_word picks (one
/// shared-memory read a window start); with 10^4 fingerprints about 0.5% of starts pass it.
inline constexpr std::uint32_t multi_match_filter_bits = std::uint32_t{1} << 18;

/// One fingerprint: the run [first, first + count) of the grouped patterns that begin with it.
struct multi_match_slot {
  std::uint64_t prefix = 0;
  std::uint32_t first = 0;
  std::uint32_t count = 0;  ///< 0: the slot is empty
};

/// The patterns as one thread sees them, grouped by fingerprint (`original[j]` is the caller's index of
/// grouped pattern j, whose bytes are bytes[offsets[j], offsets[j + 1])).
struct multi_match_problem {
  const std::uint8_t* text = nullptr;
  std::uint64_t text_size = 0;
  const std::uint8_t* bytes = nullptr;
  const std::uint64_t* offsets = nullptr;
  const std::uint32_t* original = nullptr;
  const multi_match_slot* table = nullptr;  ///< table_mask + 1 entries
  std::uint64_t prefix_length = 0;          ///< L
  std::uint64_t prefix_mask = 0;            ///< the low 8 L bits
  std::uint32_t table_mask = 0;             ///< slots - 1
};

/// The table slot where a fingerprint's probe starts.
WARPDEX_HOST_DEVICE inline std::uint32_t multi_match_home(std::uint64_t prefix, std::uint32_t table_mask)
{
  return static_cast<std::uint32_t>(fmix64(prefix)) & table_mask;
}

/// A fingerprint's filter hash, from its bytes as two little-endian words (bytes 0-3 and 4-7, bytes past L
/// zero): two multiplications, cheap enough to run at every window start of the text.
WARPDEX_HOST_DEVICE inline std::uint32_t multi_match_filter_hash(std::uint32_t low, std::uint32_t high)
{
  return (low ^ (high * 0x85EBCA77U)) * 0x9E3779B1U;
}

/// The filter word of a hash (its top 13 bits).
WARPDEX_HOST_DEVICE inline std::uint32_t multi_match_filter_word(std::uint32_t hash)
{
  return hash >> 19;
}

/// The two bits of a hash in its filter word (hash bits 14-18 and 9-13).
WARPDEX_HOST_DEVICE inline std::uint32_t multi_match_filter_mask(std::uint32_t hash)
{
  return (std::uint32_t{1} << ((hash >> 14) & 31)) | (std::uint32_t{1} << ((hash >> 9) & 31));
}

/// The occurrences of all patterns whose window ends lie in [end_begin, end_end), i.e. that start at
/// end - (L - 1); `sink(original_index)` receives each verified one.
template <class Sink>
WARPDEX_HOST_DEVICE void scan_multi_match(const multi_match_problem& problem, std::uint64_t end_begin,
                                          std::uint64_t end_end, Sink&& sink)
{
  const std::uint64_t k = problem.prefix_length;
  if (k > problem.text_size) { return; }
  if (end_begin < k - 1) { end_begin = k - 1; }
  if (end_end > problem.text_size) { end_end = problem.text_size; }
  if (end_begin >= end_end) { return; }
  std::uint64_t window = 0;
  for (std::uint64_t i = end_begin + 1 - k; i < end_begin; ++i) { window = (window << 8) | problem.text[i]; }
  for (std::uint64_t end = end_begin; end < end_end; ++end) {
    window = (window << 8) | problem.text[end];
    const std::uint64_t prefix = window & problem.prefix_mask;
    for (std::uint32_t slot = multi_match_home(prefix, problem.table_mask); problem.table[slot].count != 0;
         slot = (slot + 1) & problem.table_mask) {
      if (problem.table[slot].prefix != prefix) { continue; }
      const std::uint64_t start = end + 1 - k;
      const std::uint32_t last = problem.table[slot].first + problem.table[slot].count;
      for (std::uint32_t j = problem.table[slot].first; j < last; ++j) {
        const std::uint64_t m = problem.offsets[j + 1] - problem.offsets[j];
        if (start + m > problem.text_size) { continue; }
        bool equal = true;
        for (std::uint64_t i = k; i < m && equal; ++i) {
          equal = problem.text[start + i] == problem.bytes[problem.offsets[j] + i];
        }
        if (equal) { sink(problem.original[j]); }
      }
      break;
    }
  }
}

}  // namespace warpdex::detail
