#pragma once
/// @file Fixed-string grep over streams larger than memory: the engine of `warpdex grep`.
///
/// The input is read in chunks; chunk k is searched for occurrences starting in its own bytes, with the
/// next m - 1 bytes appended so that occurrences across the boundary are found exactly once. The stages
/// form a pipeline: a reader thread fills a ring of host buffers (pinned with the cuda backend) while the
/// calling thread copies chunk k + 1 to the GPU on a copy stream, searches chunk k on a search stream and
/// walks chunk k's lines. The output
/// follows `grep -F` (GNU grep 3, C locale) for the supported flags: matching lines, or with `-c` the
/// number of matching lines; `-n` prefixes the line number, `-b` the byte offset of the line's start,
/// a file name prefix comes first when several files are searched.
///
/// Binary input: when a NUL byte occurs in the chunk holding the first matching line or before it, the
/// input is binary: its lines are not printed and the search stops at the first match (the result says
/// so, and `warpdex grep` then prints "NAME: binary file matches" on standard error, as GNU grep does);
/// with -c it is counted like text.
///
/// Differences from GNU grep, by design: a pattern must not contain a newline (grep would read it as
/// several patterns); GNU grep also looks for encoding errors, and may treat NUL bytes as line ends in
/// binary files, which can change counts there.

#include <warpdex/core/backend.hpp>

#include <cstdint>
#include <cstdio>
#include <string_view>

namespace warpdex {

struct grep_options {
  bool count_only = false;     ///< -c: print the number of matching lines instead of the lines
  bool byte_offset = false;    ///< -b: prefix each line with the byte offset of its start
  bool line_number = false;    ///< -n: prefix each line with its 1-based number
  bool with_filename = false;  ///< prefix each output line with the input's name (grep does for several files)
  /// Bytes of input searched per step (the overlap of m - 1 bytes comes on top); at least 1. Memory use
  /// is `grep_pipeline_slots` chunks on the host (pinned with the cuda backend) plus two on the GPU.
  std::uint64_t chunk_bytes = std::uint64_t{1} << 26;
};

/// Host buffers in the ring between the reader thread and the search: one being read, one being copied,
/// one being searched and walked, one spare so that the reader never waits for a walk to finish.
inline constexpr int grep_pipeline_slots = 4;

/// Busy seconds of each pipeline stage over one input. The stages overlap, so their sum may exceed the
/// elapsed time; the largest one bounds the throughput.
struct grep_stage_seconds {
  double read = 0;    ///< the reader thread inside fread
  double copy = 0;    ///< host-to-device copies (CUDA events on the copy stream; 0 on the host backend)
  double search = 0;  ///< finding the chunk's matches, their positions back on the host
  double output = 0;  ///< walking lines and writing the output
};

struct grep_result {
  std::uint64_t matching_lines = 0;
  bool binary = false;  ///< a NUL byte was seen by the first matching line (then lines were not printed)
  grep_stage_seconds seconds;
};

/// Searches `input` for `pattern` and writes grep's output for it to `output`, naming the input `name`.
/// Throws `warpdex::error` for an empty pattern or one with a newline, and when reading fails.
template <class Backend>
grep_result grep_stream(const Backend& backend, std::FILE* input, std::string_view name, std::string_view pattern,
                        const grep_options& options, std::FILE* output);

}  // namespace warpdex
