#pragma once
/// @file Fixed-string grep over streams larger than memory: the engine of `warpdex grep`.
///
/// The output follows GNU `grep -F` (GNU grep 3, C locale, LC_ALL=C) byte for byte for the options of
/// `grep_options`: selected lines, or with -c their number, -l / -L the file's name, -o each match; -n
/// and -b prefixes, the file name first when `with_filename`; --color's escape sequences (GNU's default
/// GREP_COLORS). Patterns are fixed strings: a pattern holding newlines is several patterns, an empty
/// pattern matches every line (with -x every empty line). -i folds ASCII letters only (the C locale).
/// -w selects a line holding an occurrence of a pattern with no word byte ([A-Za-z0-9_]) right before or
/// after it; -x a line equal to a pattern. -o prints, from left to right, the leftmost-longest occurrences
/// that do not overlap (with -w, only occurrences forming whole words).
///
/// The input is read in chunks of whole lines: a reader thread fills a ring of `grep_pipeline_slots`
/// buffers (pinned with the cuda backend) while the calling thread searches and prints the previous ones;
/// on the host backend a regular file is mapped and its chunks searched in place (`map_files`).
/// A line longer than the chunk grows its buffer to hold it (memory is bounded by the chunk size and the
/// longest line, never by the file); a chunk is never larger than a regular input file needs.
///
/// Search: on the host backend, Hyperscan's literal mode where warpdex is built with it
/// (`host_string_matcher()`), over one piece of each chunk per core: the first occurrence that selects
/// each line (checked there for -w and -x), or with -o, --color or an empty pattern every occurrence,
/// which the line walk then uses. Otherwise (and with `builtin_matcher`), one pass per chunk that jumps
/// between candidates found with memchr on the patterns' rarest bytes, verified in place, then from the
/// matching line's end on. On the cuda backend (`plan_grep_on_cuda` says which case a run is), each chunk
/// is copied to the GPU while the previous one is searched. Several patterns, or one with -i, -w, -x or
/// -o, when nothing but the selected lines (with -v, -n, -b) or their number, or -o's matches (not with -v
/// or -x) are asked for: a set of patterns on the GPU selects the lines (deciding -w and -x there) and
/// finds -o's matches (leftmost, longest). One case-sensitive pattern otherwise: when the
/// chunk holds no NUL byte and no option asks for more than the lines themselves (no -w, -x, -o, --color),
/// the GPU finds the matching lines (`find_matching_lines`, with -v `other_lines`); otherwise the
/// positions of the occurrences come back and the host walks the lines. Printed lines are formatted on the
/// GPU (`gather_lines`, with -n's numbers and -b's offsets): one copy brings back the output, or only the
/// count for -c, -l, -L and -q. --color, -o with -v or -x, and an empty pattern are searched on the host.
///
/// Binary input, as GNU grep: GNU grep reads 96 KiB at a time, and from the buffer holding the first NUL
/// byte on (from the start of the line its read began in), the input is binary: NUL bytes end lines, and
/// unless counting (-c) or listing (-l, -L, quiet), the search stops at the first selected line, which is
/// not printed; `grep_result::binary_matches` then asks the caller to report "NAME: binary file matches".
/// The reads here end where GNU grep's do, so the outputs agree on regular files for chunks of at least
/// 96 KiB when the lines around the first NUL are shorter than 4 KiB (after a longer incomplete line GNU
/// grep shortens its read by a page, at an offset set by its buffer's address), and whenever the first
/// NUL lies in the first 96 KiB.

#include <warpdex/core/backend.hpp>

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

namespace warpdex {

/// What `grep_stream` prints for one input.
enum class grep_output {
  lines,                ///< the selected lines (or with `only_matching` their matches)
  count,                ///< -c: the number of selected lines
  files_with_matches,   ///< -l: the input's name when a line is selected (the search stops there)
  files_without_match,  ///< -L: the input's name when no line is selected
  quiet,                ///< -q: nothing (the search stops at the first selected line)
};

struct grep_options {
  grep_output output = grep_output::lines;
  bool ignore_case = false;    ///< -i: ASCII letters match either case
  bool invert_match = false;   ///< -v: select the lines that do not match
  bool word_regexp = false;    ///< -w: matches must be whole words
  bool line_regexp = false;    ///< -x: matches must be whole lines
  bool only_matching = false;  ///< -o: print each match on a line of its own instead of the line
  bool byte_offset = false;    ///< -b: prefix the byte offset of the line's start (with -o: of the match)
  bool line_number = false;    ///< -n: prefix the 1-based line number
  bool with_filename = false;  ///< -H: prefix the input's name (grep does so for several files)
  bool color = false;          ///< --color=always: GNU grep's escape sequences around names, numbers, matches
  /// Bytes of input searched per step, at least 1 (a chunk holds whole lines, so a longer line makes a
  /// larger one). Memory use is `grep_pipeline_slots` chunks on the host (pinned with the cuda backend)
  /// plus, with the cuda backend, two on the GPU and the positions of one chunk's matches.
  std::uint64_t chunk_bytes = std::uint64_t{1} << 26;
  /// Threads reading each chunk of a regular file, each a disjoint range with pread (0: automatic, which
  /// is one on the host backend, whose chunks are small, and up to 16, one per core, on the cuda backend,
  /// where one thread copying from the page cache would bound the whole pipeline). Pipes and terminals
  /// are read by one thread.
  unsigned reader_threads = 0;
  /// On the host backend, search a regular file in place, mapped into memory, instead of copying its
  /// chunks into buffers (ripgrep's way): the chunks end where the copies would, so the output is the
  /// same, and the reader thread only looks each chunk over for NUL bytes ahead of the search. As with any
  /// mapped file, a file that shrinks while it is searched ends the process (SIGBUS); false reads it with
  /// pread into buffers. The cuda backend, pipes and terminals always read into buffers.
  bool map_files = true;
  /// Search with the built-in matcher on the host backend even where warpdex is built with Hyperscan
  /// (`host_string_matcher()`); the output is the same. For comparisons and tests.
  bool builtin_matcher = false;
};

/// How the cuda backend's grep_stream would search `patterns` under `options`, by the rule it applies
/// itself: for choosing a backend before searching (`warpdex grep --backend auto`).
struct grep_cuda_plan {
  /// The patterns searched: split at newlines, folded with -i, repeats next to each other in length order
  /// dropped (at most the number given, split).
  std::size_t patterns = 0;
  /// The GPU searches each chunk: several patterns, or one with -i, -w, -x or -o, when only the selected
  /// lines (with -v, -n, -b), their number or -o's matches are asked for (the set decides -w and -x on the
  /// GPU); otherwise one case-sensitive pattern too (the host walks the lines for -w, -x, --color). False
  /// when the cuda backend would search on the host anyway: an empty pattern, several patterns (or -i) with
  /// --color, or -o with -v or -x printing.
  bool on_device = false;
};

/// `grep_cuda_plan` of `patterns` under `options`; needs no GPU.
[[nodiscard]] grep_cuda_plan plan_grep_on_cuda(std::span<const std::string> patterns, const grep_options& options);

/// The chunk size `warpdex grep` uses when none is given: small on the host (the chunks stay in the
/// caches), large on the GPU (each chunk is one copy and one kernel).
inline constexpr std::uint64_t grep_default_host_chunk_bytes = std::uint64_t{1} << 20;
inline constexpr std::uint64_t grep_default_cuda_chunk_bytes = std::uint64_t{1} << 26;

/// Host buffers in the ring between the reader thread and the search: one being read, one being copied,
/// one being searched and walked, one spare so that the reader never waits for a walk to finish.
inline constexpr int grep_pipeline_slots = 4;

/// Busy seconds of each pipeline stage over one input. The stages overlap, so their sum may exceed the
/// elapsed time; the largest one bounds the throughput.
struct grep_stage_seconds {
  double read = 0;    ///< the reader thread inside fread
  double copy = 0;    ///< host-to-device copies (CUDA events on the copy stream; 0 on the host backend)
  double search = 0;  ///< finding candidates on the backend (GPU kernels and positions back; 0 on the host)
  double output = 0;  ///< the host's pass over the lines: matching on the host, printing
};

struct grep_result {
  std::uint64_t matching_lines = 0;  ///< selected lines (with -v the lines without a match); at most 1 with -l / -q
  bool binary = false;               ///< a NUL byte was read (the input was treated as binary from there on)
  bool binary_matches = false;       ///< a selected line in binary input went unprinted: report "binary file matches"
  grep_stage_seconds seconds;
};

/// Searches `input` for `patterns` and writes grep's output to `output`, naming the input `name`.
/// Each pattern is split at its newlines; an empty pattern matches every line, and no patterns at all
/// match no line (as `grep -f /dev/null`). Throws `warpdex::error` when reading or writing fails (the
/// message says which), and for a zero chunk size.
template <class Backend>
grep_result grep_stream(const Backend& backend, std::FILE* input, std::string_view name,
                        std::span<const std::string> patterns, const grep_options& options, std::FILE* output);

/// One pattern (which may hold newlines, as grep's PATTERNS do).
template <class Backend>
grep_result grep_stream(const Backend& backend, std::FILE* input, std::string_view name, std::string_view pattern,
                        const grep_options& options, std::FILE* output)
{
  const std::string patterns[] = {std::string(pattern)};
  return grep_stream(backend, input, name, std::span<const std::string>(patterns), options, output);
}

}  // namespace warpdex
