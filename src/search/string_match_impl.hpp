#pragma once
// The backend-independent half of string matching: validation, the automatic choice, and the dispatch to
// `match_backend<Backend>`, which each backend's translation unit specializes before instantiating.

#include <warpdex/core/error.hpp>
#include <warpdex/search/detail/match_scan.hpp>
#include <warpdex/search/string_match.hpp>

#include <cstdint>
#include <span>

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

}  // namespace warpdex::detail

namespace warpdex {

template <class Backend>
std::uint64_t count_matches(const Backend& backend, std::span<const std::uint8_t> text,
                            std::span<const std::uint8_t> pattern, match_algorithm algorithm)
{
  const detail::match_problem problem = detail::checked_match_problem(text, pattern, "count_matches");
  if (problem.pattern_size > problem.text_size) { return 0; }
  return detail::match_backend<Backend>::count(backend, problem,
                                               detail::concrete_match_algorithm(algorithm, problem.pattern_size));
}

template <class Backend>
buffer<std::uint64_t> find_matches(const Backend& backend, std::span<const std::uint8_t> text,
                                   std::span<const std::uint8_t> pattern, match_algorithm algorithm)
{
  const detail::match_problem problem = detail::checked_match_problem(text, pattern, "find_matches");
  if (problem.pattern_size > problem.text_size) { return make_buffer<std::uint64_t>(backend, 0); }
  return detail::match_backend<Backend>::find(backend, problem,
                                              detail::concrete_match_algorithm(algorithm, problem.pattern_size));
}

}  // namespace warpdex

#define WARPDEX_INSTANTIATE_STRING_MATCH(Backend)                                                     \
  template std::uint64_t count_matches<Backend>(const Backend&, std::span<const std::uint8_t>,        \
                                                std::span<const std::uint8_t>, match_algorithm);      \
  template buffer<std::uint64_t> find_matches<Backend>(const Backend&, std::span<const std::uint8_t>, \
                                                       std::span<const std::uint8_t>, match_algorithm);
