#pragma once
// A set of fixed strings matched on the GPU line by line: grep's -f / several -e (and -i, -w, -x) on the cuda
// backend, where only the number of matching lines or the lines themselves come back (not a position per
// occurrence).
//
// Patterns are grouped by length class: a pattern of m < 8 bytes is class m and is found by its whole m
// bytes; longer ones are class 8 and are found by their first 8 bytes, then compared in full. Each window
// is looked up once per class present, in one open-addressing table in global memory (16 bytes per distinct
// key, L2-resident for 10^5 patterns) behind a 2^18-bit filter each block keeps in shared memory.
#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/search/line_match.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace warpdex::detail {

#if WARPDEX_HAS_CUDA
/// Which occurrences select their line: any (grep -F), those with no word byte ([A-Za-z0-9_]) right before
/// or after them (-w), or those spanning their line (-x).
enum class set_occurrences : std::uint8_t { any, whole_words, whole_lines };

class device_pattern_set {
 public:
  /// @param patterns  non-empty, without '\n'; duplicates allowed. With `ignore_case` they are given with
  ///                  ASCII letters folded to lower case, and the text's letters are folded as it is read.
  device_pattern_set(const cuda& backend, std::span<const std::string> patterns, bool ignore_case,
                     set_occurrences occurrences = set_occurrences::any);

  /// How many lines of `text` (device memory, whole lines) hold an occurrence of a pattern. Waits.
  std::uint64_t count_lines(std::span<const std::uint8_t> text);

  /// Those lines, ascending, in device memory. Waits.
  buffer<line_span> find_lines(std::span<const std::uint8_t> text);

  /// grep -o's matches in those lines, ascending, in device memory: in each line from its start, the longest
  /// pattern at the leftmost place where one selects its line (-w: forms a whole word), then on from its end.
  /// Not for -x (`set_occurrences::whole_lines`). `lines` is set to the number of lines they are in. Waits.
  buffer<line_span> find_occurrences(std::span<const std::uint8_t> text, std::uint64_t& lines);

 private:
  /// Marks, per 64-byte segment, the occurrences that are the first of their line within the segment, and
  /// counts per segment the lines they open (the segment's first may continue a line opened before).
  void scan(std::span<const std::uint8_t> text);

  cuda backend_;
  bool fold_;
  set_occurrences occurrences_;
  std::uint32_t classes_ = 0;  ///< bit L - 1 set: some pattern of class L
  std::uint64_t table_mask_ = 0;
  buffer<std::uint64_t> table_;    ///< 2 words a slot: the key; class << 56 | count << 32 | first pattern
  buffer<std::uint32_t> filter_;   ///< 2^18 bits, one per hash value's top 18 bits
  buffer<std::uint8_t> bytes_;     ///< class-8 patterns, concatenated, grouped by first 8 bytes
  buffer<std::uint32_t> offsets_;  ///< where each class-8 pattern begins in bytes_, then the end
  buffer<std::uint64_t> masks_;    ///< per segment: bit i set, an occurrence at 64 * segment + i
  buffer<std::uint32_t> opened_;   ///< per segment: the lines its occurrences open
  buffer<unsigned long long> total_;
};
#endif

}  // namespace warpdex::detail
