#pragma once
/// @file Exact matching of one byte-string pattern in a byte text, on the host or the GPU: the number of
/// occurrences, or every starting position in ascending order. Overlapping occurrences all count
/// ("aa" occurs 3 times in "aaaa"). Every reported position is verified byte by byte: the fingerprint
/// filters never cause a false match.
///
/// The algorithms are the data-parallel Rabin-Karp family: the text is split into short subtexts, one
/// per thread, each scanned sequentially with a rolling fingerprint of the last bytes seen.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpdex {

enum class match_algorithm {
  automatic,  ///< `wom` for patterns of up to 8 bytes, `two_stage` for longer ones
  /// DRK: a rolling Rabin-Karp hash modulo 2^31 - 1 over the whole pattern; each hash hit is verified by
  /// the thread that found it. Every thread first hashes a full pattern's length, so long patterns cost
  /// O(m) extra per subtext.
  drk,
  /// DRK-WOM ("without modulo"): the fingerprint is the exact last 8 bytes of the text in a 64-bit
  /// register, compared with the pattern's first min(m, 8) bytes. Exact for m <= 8; longer patterns are
  /// verified from there by the thread that found the candidate.
  wom,
  /// DRK-2S: a `wom` skim on the pattern's first 8 bytes, then the whole warp verifies each candidate
  /// together, comparing 32 bytes per step (on the host the candidate's thread verifies it).
  two_stage,
};

[[nodiscard]] std::string_view to_string(match_algorithm algorithm);  ///< "automatic", "drk", "wom", "two_stage"
/// Parses the names `to_string` gives (and "2s" for two_stage); anything else throws `warpdex::error`.
[[nodiscard]] match_algorithm parse_match_algorithm(std::string_view text);

/// How many positions p have text[p, p + m) == pattern (m = pattern.size()).
/// @param backend  `warpdex::cuda` or `warpdex::host`; the work runs on it
/// @param text     in the backend's memory (device memory for cuda); may be empty
/// @param pattern  in host memory, any length >= 1; an empty pattern throws `warpdex::error` (it would
///                 match everywhere). A pattern longer than the text has no occurrences: the result is 0.
/// @param algorithm  which scan (`match_algorithm`); every one gives the same count
/// Waits for the backend. O(n + candidates * m / 32) work.
template <class Backend>
[[nodiscard]] std::uint64_t count_matches(const Backend& backend, std::span<const std::uint8_t> text,
                                          std::span<const std::uint8_t> pattern,
                                          match_algorithm algorithm = match_algorithm::automatic);

/// Every position p with text[p, p + m) == pattern, ascending, in a new buffer in the backend's memory
/// (its size is the number of matches). Arguments and errors as for `count_matches`. Scans the text twice
/// (counting, then writing).
template <class Backend>
[[nodiscard]] buffer<std::uint64_t> find_matches(const Backend& backend, std::span<const std::uint8_t> text,
                                                 std::span<const std::uint8_t> pattern,
                                                 match_algorithm algorithm = match_algorithm::automatic);

/// The most patterns whose fingerprint table (twice as many slots) sits in GPU shared memory, with the
/// per-block counts, in the several-pattern `count_matches`. More patterns are still counted in one pass
/// over the text, with the table in global memory behind a 2^18-bit filter in shared memory (slower per
/// byte: the filter's test costs more than a probe of the shared table).
inline constexpr std::size_t max_patterns_per_pass = 256;

/// For each pattern i, how many positions p have text[p, p + m_i) == patterns[i], all patterns counted in
/// one pass over the text. Each window's last L = min(8, shortest pattern) bytes are looked up in a table of
/// the patterns' first L bytes; every pattern starting with them that fits in the text is verified byte
/// by byte, so counts are exact.
/// @param backend   `warpdex::cuda` or `warpdex::host`; the work runs on it
/// @param text      in the backend's memory (device memory for cuda); may be empty
/// @param patterns  in host memory: 1 to 2^30 patterns, each non-empty, any lengths; equal patterns are
///                  each counted. Otherwise throws `warpdex::error` before any work.
/// @return the counts in the order of `patterns`. Waits for the backend. O(n + n * candidates per window
///         * their lengths) work; patterns sharing their first L bytes are all verified at each hit.
template <class Backend>
[[nodiscard]] std::vector<std::uint64_t> count_matches(const Backend& backend, std::span<const std::uint8_t> text,
                                                       std::span<const std::span<const std::uint8_t>> patterns);

/// The engine behind the host backend's fixed-string matching (`count_matches` and `find_matches` with
/// `match_algorithm::automatic`, and `grep_stream`): "hyperscan <version>" when warpdex was built with
/// Hyperscan (an optional dependency, found by CMake), otherwise "built-in" (the scans above). Results are
/// the same either way.
[[nodiscard]] std::string host_string_matcher();

/// Views of a string's bytes, for calls with text held in std::string or literals.
[[nodiscard]] inline std::span<const std::uint8_t> as_bytes(std::string_view text)
{
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

}  // namespace warpdex
