#pragma once
// Per-thread pieces of string matching shared by the host and the cuda backend: the exact 8-byte prefix
// fingerprint (WOM), the Rabin-Karp hash modulo the Mersenne prime 2^31 - 1 (DRK), byte-wise verification,
// and the sequential scans of one subtext. A subtext is a range of window ends: window end e stands for
// the occurrence starting at e - (window length - 1), so every start position belongs to exactly one
// subtext and each subtext reports its matches in ascending order.

#include <warpdex/core/config.hpp>

#include <cstdint>

namespace warpdex::detail {

/// The text and the pattern as one thread sees them.
struct match_problem {
  const std::uint8_t* text = nullptr;
  std::uint64_t text_size = 0;
  const std::uint8_t* pattern = nullptr;  ///< in the memory of the backend that scans
  std::uint64_t pattern_size = 0;
};

/// Bytes of the pattern the exact fingerprint holds: a 64-bit register.
inline constexpr std::uint64_t prefix_bytes_max = 8;

/// The pattern's first `length` = min(m, 8) bytes as they appear in a window register into which text
/// bytes are shifted from the right (the latest byte in the low 8 bits).
struct prefix_fingerprint {
  std::uint64_t value = 0;
  std::uint64_t mask = 0;
  std::uint64_t length = 0;
};

WARPDEX_HOST_DEVICE inline prefix_fingerprint make_prefix_fingerprint(const std::uint8_t* pattern, std::uint64_t m)
{
  prefix_fingerprint prefix;
  prefix.length = m < prefix_bytes_max ? m : prefix_bytes_max;
  for (std::uint64_t i = 0; i < prefix.length; ++i) { prefix.value = (prefix.value << 8) | pattern[i]; }
  prefix.mask = prefix.length == prefix_bytes_max ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * prefix.length)) - 1;
  return prefix;
}

/// Whether text[start + from, start + m) == pattern[from, m), compared one byte at a time.
WARPDEX_HOST_DEVICE inline bool verify_suffix(const match_problem& problem, std::uint64_t start, std::uint64_t from)
{
  for (std::uint64_t i = from; i < problem.pattern_size; ++i) {
    if (problem.text[start + i] != problem.pattern[i]) { return false; }
  }
  return true;
}

/// The Rabin-Karp modulus: a Mersenne prime, so reducing needs shifts and adds only, and every residue
/// times 256 plus a byte fits comfortably in 64 bits.
inline constexpr std::uint64_t rabin_karp_modulus = (std::uint64_t{1} << 31) - 1;
inline constexpr std::uint64_t rabin_karp_base = 256;

/// x mod 2^31 - 1 for x < 2^62.
WARPDEX_HOST_DEVICE inline std::uint64_t reduce_mersenne31(std::uint64_t x)
{
  x = (x & rabin_karp_modulus) + (x >> 31);
  x = (x & rabin_karp_modulus) + (x >> 31);
  return x >= rabin_karp_modulus ? x - rabin_karp_modulus : x;
}

/// The hash of the pattern and 256^m mod p, which removes the byte leaving the window.
struct rabin_karp_constants {
  std::uint64_t pattern_hash = 0;
  std::uint64_t leaving_factor = 1;
};

WARPDEX_HOST_DEVICE inline rabin_karp_constants make_rabin_karp_constants(const std::uint8_t* pattern, std::uint64_t m)
{
  rabin_karp_constants constants;
  for (std::uint64_t i = 0; i < m; ++i) {
    constants.pattern_hash = reduce_mersenne31(constants.pattern_hash * rabin_karp_base + pattern[i]);
    constants.leaving_factor = reduce_mersenne31(constants.leaving_factor * rabin_karp_base);
  }
  return constants;
}

/// DRK on one subtext: window ends [end_begin, end_end) (clipped to full windows inside the text). Hashes
/// the first window, then rolls; `sink(start)` receives each verified match in ascending order.
template <class Sink>
WARPDEX_HOST_DEVICE void scan_rabin_karp(const match_problem& problem, const rabin_karp_constants& constants,
                                         std::uint64_t end_begin, std::uint64_t end_end, Sink&& sink)
{
  const std::uint64_t m = problem.pattern_size;
  if (m > problem.text_size) { return; }
  if (end_begin < m - 1) { end_begin = m - 1; }
  if (end_end > problem.text_size) { end_end = problem.text_size; }
  if (end_begin >= end_end) { return; }
  std::uint64_t hash = 0;
  for (std::uint64_t i = end_begin + 1 - m; i <= end_begin; ++i) {
    hash = reduce_mersenne31(hash * rabin_karp_base + problem.text[i]);
  }
  for (std::uint64_t end = end_begin;;) {
    const std::uint64_t start = end + 1 - m;
    if (hash == constants.pattern_hash && verify_suffix(problem, start, 0)) { sink(start); }
    if (++end == end_end) { break; }
    const std::uint64_t leaving = reduce_mersenne31(problem.text[start] * constants.leaving_factor);
    hash = reduce_mersenne31(hash * rabin_karp_base + problem.text[end] + (rabin_karp_modulus - leaving));
  }
}

/// WOM on one subtext, one byte at a time: window ends [end_begin, end_end); each window whose last
/// `prefix.length` bytes equal the pattern's prefix is verified for the rest of the pattern on this
/// thread. `sink(start)` receives each match in ascending order.
template <class Sink>
WARPDEX_HOST_DEVICE void scan_prefix_bytes(const match_problem& problem, const prefix_fingerprint& prefix,
                                           std::uint64_t end_begin, std::uint64_t end_end, Sink&& sink)
{
  const std::uint64_t m = problem.pattern_size;
  if (m > problem.text_size) { return; }
  const std::uint64_t k = prefix.length;
  if (end_begin < k - 1) { end_begin = k - 1; }
  // the last window end whose occurrence fits in the text: start + m <= n
  const std::uint64_t end_limit = problem.text_size - m + k;
  if (end_end > end_limit) { end_end = end_limit; }
  if (end_begin >= end_end) { return; }
  std::uint64_t window = 0;
  for (std::uint64_t i = end_begin + 1 - k; i < end_begin; ++i) { window = (window << 8) | problem.text[i]; }
  for (std::uint64_t end = end_begin; end < end_end; ++end) {
    window = (window << 8) | problem.text[end];
    const std::uint64_t start = end + 1 - k;
    if ((window & prefix.mask) == prefix.value && verify_suffix(problem, start, k)) { sink(start); }
  }
}

}  // namespace warpdex::detail
