#pragma once
/// @file The lines of a text that hold a fixed string, found where the text is: the step between
/// `find_matches` (every occurrence) and grep's output. On the GPU only the lines come back (or only
/// their number), not a position per occurrence, and the selected lines can be gathered into grep's
/// output there too, so that one copy brings back what is printed.
///
/// Lines end at '\n' (not part of the line); the last line may lack it. NUL bytes are ordinary bytes here:
/// callers that treat them specially (grep's binary files) check for them first.
#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/search/string_match.hpp>

#include <cstdint>
#include <span>
#include <string_view>

namespace warpdex {

/// A line of a text: bytes [begin, end), `end` at its newline or at the end of the text.
struct line_span {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

/// How many lines of `text` hold at least one occurrence of `pattern`.
/// @param backend  `warpdex::cuda` or `warpdex::host`; the work runs on it
/// @param text     in the backend's memory; may be empty
/// @param pattern  in host memory, non-empty and without '\n' (a pattern spanning lines matches no line);
///                 otherwise throws `warpdex::error` before any work
/// @param algorithm  the scan that finds the occurrences (`match_algorithm`); every one gives the same lines
/// Waits for the backend. O(n) work beyond `count_matches`: each occurrence looks back to the previous
/// one or its line's start, whichever is nearer, so the bytes looked at add up to at most the text.
template <class Backend>
[[nodiscard]] std::uint64_t count_matching_lines(const Backend& backend, std::span<const std::uint8_t> text,
                                                 std::span<const std::uint8_t> pattern,
                                                 match_algorithm algorithm = match_algorithm::automatic);

/// The lines of `text` holding at least one occurrence of `pattern`, ascending, in a new buffer in the
/// backend's memory. Arguments and errors as for `count_matching_lines`. Each selected line is also
/// scanned from its first occurrence to its end once (again at most the text's bytes in all).
template <class Backend>
[[nodiscard]] buffer<line_span> find_matching_lines(const Backend& backend, std::span<const std::uint8_t> text,
                                                    std::span<const std::uint8_t> pattern,
                                                    match_algorithm algorithm = match_algorithm::automatic);

/// The lines of `text` that are not among `selected` (grep -v's lines), ascending, in a new buffer in the
/// backend's memory. A text ending in '\n' has no empty line after it; an empty text has no line.
/// @param backend   `warpdex::cuda` or `warpdex::host`; the work runs on it
/// @param text      in the backend's memory
/// @param selected  in the backend's memory: lines of `text` as `find_matching_lines` gives them (each
///                  begins at a line's start); others are the caller's error (unchecked)
/// Waits for the backend. O(n) work: the text's newlines are found (`find_matches`), then each selected
/// line's index by binary search among the lines.
template <class Backend>
[[nodiscard]] buffer<line_span> other_lines(const Backend& backend, std::span<const std::uint8_t> text,
                                            std::span<const line_span> selected);

/// grep's -n and -b fields, which `gather_lines` writes after the prefix, each in decimal followed by ':'.
struct line_fields {
  bool number = false;             ///< -n: the line's 1-based number in the input
  bool offset = false;             ///< -b: the input offset of the line's first byte
  std::uint64_t lines_before = 0;  ///< lines of the input before the text (its first line is lines_before + 1)
  std::uint64_t text_offset = 0;   ///< the input offset of the text's first byte
};

/// Each of `lines` of `text` as `prefix`, the fields asked for (`line_fields`), the line's bytes and '\n',
/// concatenated in the order given, in a new buffer in the backend's memory (grep's output of those lines,
/// with a file-name prefix or none, and -n / -b).
/// @param backend  `warpdex::cuda` or `warpdex::host`; the work runs on it
/// @param text     in the backend's memory: the text the lines are of
/// @param lines    in the backend's memory, each within the text (throws `warpdex::error` on the
///                 host backend when one is not; on the GPU that is the caller's precondition)
/// @param prefix   in host memory, any length
/// @param fields   with `number`, a line's number counts the newlines before it: one pass over the text in
///                 4 KiB blocks, then at most a block's bytes per line
/// Waits for the backend. One thread copies each line, so a very long line is copied serially.
template <class Backend>
[[nodiscard]] buffer<std::uint8_t> gather_lines(const Backend& backend, std::span<const std::uint8_t> text,
                                                std::span<const line_span> lines, std::string_view prefix,
                                                const line_fields& fields = {});

}  // namespace warpdex
