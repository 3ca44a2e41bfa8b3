#pragma once
// The backend-independent half of string matching: validation, the automatic choice, and the dispatch to
// `match_backend<Backend>`, which each backend's translation unit specializes before instantiating.

#include <warpdex/core/error.hpp>
#include <warpdex/search/detail/match_scan.hpp>
#include <warpdex/search/detail/multi_match_scan.hpp>
#include <warpdex/search/string_match.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace warpdex::detail {

/// Specialized per backend with static members
///   std::uint64_t count(const Backend&, const match_problem& host_problem, match_algorithm);
///   buffer<std::uint64_t> find(const Backend&, const match_problem& host_problem, match_algorithm);
/// where host_problem.pattern is in host memory and the algorithm is concrete (not automatic).
template <class Backend>
struct match_backend;

inline match_problem checked_match_problem(std::span<const std::uint8_t> text, std::span<const std::uint8_t> pattern,
                                           const char* caller)
{
  WARPDEX_EXPECTS(!pattern.empty(), std::string(caller) + ": the pattern is empty (it would match at every position)");
  return {text.data(), text.size(), pattern.data(), pattern.size()};
}

inline match_algorithm concrete_match_algorithm(match_algorithm algorithm, std::uint64_t pattern_size)
{
  if (algorithm != match_algorithm::automatic) { return algorithm; }
  return pattern_size <= prefix_bytes_max ? match_algorithm::wom : match_algorithm::two_stage;
}

/// Several patterns prepared for one pass, in host memory: grouped by fingerprint (each group in the
/// caller's order), with their table.
struct multi_match_patterns {
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint32_t> original;
  std::vector<multi_match_slot> table;  ///< a power of two slots, at least multi_match_shared_table_slots
  std::vector<std::uint32_t> filter;    ///< multi_match_filter_bits bits, where the table exceeds shared memory
  std::uint64_t prefix_length = 0;
  std::uint64_t prefix_mask = 0;

  /// The problem over `text` with these arrays (or copies of them at the given addresses).
  [[nodiscard]] multi_match_problem problem(std::span<const std::uint8_t> text, const std::uint8_t* bytes_at,
                                            const std::uint64_t* offsets_at, const std::uint32_t* original_at,
                                            const multi_match_slot* table_at) const
  {
    return {text.data(),   text.size(), bytes_at,
            offsets_at,    original_at, table_at,
            prefix_length, prefix_mask, static_cast<std::uint32_t>(table.size() - 1)};
  }
};

/// Validates the patterns and prepares them; throws `warpdex::error` for bad input.
inline multi_match_patterns make_multi_match_patterns(std::span<const std::span<const std::uint8_t>> patterns)
{
  WARPDEX_EXPECTS(!patterns.empty(), "count_matches: no patterns given");
  WARPDEX_EXPECTS(patterns.size() <= (std::size_t{1} << 30),
                  "count_matches: " + std::to_string(patterns.size()) + " patterns given, at most 2^30 are taken");
  multi_match_patterns prepared;
  prepared.prefix_length = prefix_bytes_max;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    WARPDEX_EXPECTS(!patterns[i].empty(),
                    "count_matches: pattern " + std::to_string(i) + " is empty (it would match at every position)");
    prepared.prefix_length = std::min<std::uint64_t>(prepared.prefix_length, patterns[i].size());
  }
  // Patterns are grouped by fingerprint with the table itself (no sort): each pattern's fingerprint is
  // entered once (counting the patterns that share it), the table's slots then give each fingerprint its
  // run, and the patterns are placed in their runs in the caller's order.
  prepared.table.resize(std::max<std::size_t>(multi_match_shared_table_slots, std::bit_ceil(2 * patterns.size())));
  const auto table_mask = static_cast<std::uint32_t>(prepared.table.size() - 1);
  std::vector<std::uint32_t> slot_of(patterns.size());
  for (std::uint32_t i = 0; i < patterns.size(); ++i) {
    const std::uint64_t prefix = make_prefix_fingerprint(patterns[i].data(), prepared.prefix_length).value;
    std::uint32_t slot = multi_match_home(prefix, table_mask);
    while (prepared.table[slot].count != 0 && prepared.table[slot].prefix != prefix) { slot = (slot + 1) & table_mask; }
    prepared.table[slot].prefix = prefix;
    ++prepared.table[slot].count;
    slot_of[i] = slot;
  }
  prepared.prefix_mask = make_prefix_fingerprint(patterns[0].data(), prepared.prefix_length).mask;
  std::uint32_t next_first = 0;
  for (multi_match_slot& slot : prepared.table) {
    slot.first = next_first;
    next_first += slot.count;
  }
  std::vector<std::uint32_t> placed(prepared.table.size(), 0);
  prepared.original.resize(patterns.size());
  for (std::uint32_t i = 0; i < patterns.size(); ++i) {
    const std::uint32_t slot = slot_of[i];
    prepared.original[prepared.table[slot].first + placed[slot]++] = i;
  }
  prepared.offsets.reserve(patterns.size() + 1);
  prepared.offsets.push_back(0);
  for (const std::uint32_t i : prepared.original) {
    prepared.bytes.insert(prepared.bytes.end(), patterns[i].begin(), patterns[i].end());
    prepared.offsets.push_back(prepared.bytes.size());
  }
  if (prepared.table.size() > multi_match_shared_table_slots) {
    prepared.filter.resize(multi_match_filter_bits / 32);
    for (const multi_match_slot& slot : prepared.table) {
      if (slot.count == 0) { continue; }
      std::uint32_t words[2] = {0, 0};  // the fingerprint's bytes, little-endian, as the kernel loads the text
      for (std::uint64_t i = 0; i < prepared.prefix_length; ++i) {
        words[i / 4] |= std::uint32_t{prepared.bytes[prepared.offsets[slot.first] + i]} << (8 * (i % 4));
      }
      const std::uint32_t hash = multi_match_filter_hash(words[0], words[1]);
      prepared.filter[multi_match_filter_word(hash)] |= multi_match_filter_mask(hash);
    }
  }
  return prepared;
}

/// Specialized per backend with
///   static std::vector<std::uint64_t> count(const Backend&, std::span<const std::uint8_t> text,
///                                           const multi_match_patterns&);
template <class Backend>
struct multi_match_backend;

/// The host backend's literal engine (string_match_host.cpp: Hyperscan where warpdex is built with it),
/// which serves `match_algorithm::automatic` and the several-pattern count with the same results as the
/// scans; each returns nothing where there is no such engine.
std::optional<std::uint64_t> host_engine_count(const match_problem& problem);
std::optional<buffer<std::uint64_t>> host_engine_find(const host& backend, const match_problem& problem);
std::optional<std::vector<std::uint64_t>> host_engine_count_each(
    std::span<const std::uint8_t> text, std::span<const std::span<const std::uint8_t>> patterns);

}  // namespace warpdex::detail

namespace warpdex {

template <class Backend>
std::vector<std::uint64_t> count_matches(const Backend& backend, std::span<const std::uint8_t> text,
                                         std::span<const std::span<const std::uint8_t>> patterns)
{
  detail::multi_match_patterns prepared = detail::make_multi_match_patterns(patterns);  // validates them
  if constexpr (std::is_same_v<Backend, host>) {
    if (auto counts = detail::host_engine_count_each(text, patterns)) { return std::move(*counts); }
  }
  return detail::multi_match_backend<Backend>::count(backend, text, prepared);
}

template <class Backend>
std::uint64_t count_matches(const Backend& backend, std::span<const std::uint8_t> text,
                            std::span<const std::uint8_t> pattern, match_algorithm algorithm)
{
  const detail::match_problem problem = detail::checked_match_problem(text, pattern, "count_matches");
  if (problem.pattern_size > problem.text_size) { return 0; }
  if constexpr (std::is_same_v<Backend, host>) {
    if (algorithm == match_algorithm::automatic) {
      if (const auto count = detail::host_engine_count(problem)) { return *count; }
    }
  }
  return detail::match_backend<Backend>::count(backend, problem,
                                               detail::concrete_match_algorithm(algorithm, problem.pattern_size));
}

template <class Backend>
buffer<std::uint64_t> find_matches(const Backend& backend, std::span<const std::uint8_t> text,
                                   std::span<const std::uint8_t> pattern, match_algorithm algorithm)
{
  const detail::match_problem problem = detail::checked_match_problem(text, pattern, "find_matches");
  if (problem.pattern_size > problem.text_size) { return make_buffer<std::uint64_t>(backend, 0); }
  if constexpr (std::is_same_v<Backend, host>) {
    if (algorithm == match_algorithm::automatic) {
      if (auto positions = detail::host_engine_find(backend, problem)) { return std::move(*positions); }
    }
  }
  return detail::match_backend<Backend>::find(backend, problem,
                                              detail::concrete_match_algorithm(algorithm, problem.pattern_size));
}

}  // namespace warpdex

#define WARPDEX_INSTANTIATE_STRING_MATCH(Backend)                                                           \
  template std::uint64_t count_matches<Backend>(const Backend&, std::span<const std::uint8_t>,              \
                                                std::span<const std::uint8_t>, match_algorithm);            \
  template buffer<std::uint64_t> find_matches<Backend>(const Backend&, std::span<const std::uint8_t>,       \
                                                       std::span<const std::uint8_t>, match_algorithm);     \
  template std::vector<std::uint64_t> count_matches<Backend>(const Backend&, std::span<const std::uint8_t>, \
                                                             std::span<const std::span<const std::uint8_t>>);
