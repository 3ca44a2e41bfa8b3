#pragma once
// The host backend's fixed-string engine where warpdex is built with Hyperscan (WARPDEX_HAS_HYPERSCAN): a
// set of patterns compiled once in Hyperscan's literal mode (every byte literal, no regular-expression
// syntax), scanned by many threads at once, each with a scratch space of its own. It reports every
// occurrence of every pattern, overlapping ones included, as (pattern id, end offset); the callers turn
// these into counts, positions or grep's lines. Without Hyperscan only `host_literal_engine` is defined.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#if WARPDEX_HAS_HYPERSCAN
#include <hs.h>
#endif

namespace warpdex::detail {

/// "hyperscan <version>" when the host backend matches with Hyperscan, otherwise "built-in".
[[nodiscard]] std::string host_literal_engine();

#if WARPDEX_HAS_HYPERSCAN
/// The most patterns compiled into one Hyperscan database. Compiling grows faster than the pattern count
/// (measured on the 2-core CI machine with strings of 6 to 12 letters: 0.46 s for 10^4 patterns, 2.2 s
/// for 3 * 10^4, 8.0 s for 10^5 in one database), so larger sets are cut into groups of this size,
/// compiled in parallel and scanned one after the other.
inline constexpr std::size_t hyperscan_group_patterns = 10000;

/// The longest text one `hs_scan` takes (its length is an unsigned int); callers cut longer texts.
inline constexpr std::uint64_t hyperscan_scan_bytes_max = std::uint64_t{1} << 30;

class hyperscan_literals {
 public:
  /// Compiles `patterns` (each non-empty; pattern i is reported as id i; equal patterns are each
  /// reported), folding ASCII letters when `caseless`, with a scratch space for each of `threads`
  /// threads. Throws `warpdex::error` when Hyperscan refuses (the message says why).
  hyperscan_literals(std::span<const std::string_view> patterns, bool caseless, int threads);
  ~hyperscan_literals();
  hyperscan_literals(const hyperscan_literals&) = delete;
  hyperscan_literals& operator=(const hyperscan_literals&) = delete;

  [[nodiscard]] std::size_t group_count() const { return databases_.size(); }
  [[nodiscard]] std::uint32_t length(std::uint32_t id) const { return lengths_[id]; }
  [[nodiscard]] std::uint64_t longest() const { return longest_; }

  /// Scans data[0, size) (size at most `hyperscan_scan_bytes_max`) with group `group`'s patterns on the
  /// scratch space of `thread`: on_match(id, end) for each occurrence, `end` one past its last byte, in
  /// ascending order of `end`. on_match returns false to stop; `scan` then returns false.
  template <class OnMatch>
  bool scan(std::size_t group, const std::uint8_t* data, std::uint64_t size, int thread, OnMatch& on_match) const
  {
    if (size == 0) { return true; }  // nothing occurs (and Hyperscan refuses a null text)
    const hs_error_t status = hs_scan(databases_[group], reinterpret_cast<const char*>(data),
                                      static_cast<unsigned>(size), 0, scratch_[thread], &report<OnMatch>, &on_match);
    if (status == HS_SCAN_TERMINATED) { return false; }
    if (status != HS_SUCCESS) { fail_scan(status); }
    return true;
  }

 private:
  template <class OnMatch>
  static int report(unsigned id, unsigned long long, unsigned long long to, unsigned, void* context)
  {
    return (*static_cast<OnMatch*>(context))(id, static_cast<std::uint64_t>(to)) ? 0 : 1;
  }

  [[noreturn]] static void fail_scan(hs_error_t status);

  std::vector<hs_database_t*> databases_;
  std::vector<hs_scratch_t*> scratch_;  ///< one per thread, each large enough for every group
  std::vector<std::uint32_t> lengths_;
  std::uint64_t longest_ = 0;
};
#endif

}  // namespace warpdex::detail
