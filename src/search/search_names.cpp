// The names of the search and matching algorithms, shared by the API, the CLI and the benchmarks.
#include <warpdex/core/error.hpp>
#include <warpdex/search/sorted_search.hpp>
#include <warpdex/search/string_match.hpp>

#include <array>
#include <string>
#include <utility>

namespace warpdex {
namespace {
constexpr std::array<std::pair<search_algorithm, std::string_view>, 5> search_algorithm_names{{
    {search_algorithm::automatic, "automatic"},
    {search_algorithm::binary, "binary"},
    {search_algorithm::btree, "btree"},
    {search_algorithm::kary, "kary"},
    {search_algorithm::sorted_queries, "sorted_queries"},
}};
constexpr std::array<std::pair<match_algorithm, std::string_view>, 5> match_algorithm_names{{
    {match_algorithm::automatic, "automatic"},
    {match_algorithm::drk, "drk"},
    {match_algorithm::wom, "wom"},
    {match_algorithm::two_stage, "two_stage"},
    {match_algorithm::two_stage, "2s"},
}};
}  // namespace

std::string_view to_string(search_algorithm algorithm)
{
  for (const auto& [value, name] : search_algorithm_names) {
    if (value == algorithm) { return name; }
  }
  WARPDEX_FAIL("to_string: not a search_algorithm");
}

search_algorithm parse_search_algorithm(std::string_view text)
{
  for (const auto& [value, name] : search_algorithm_names) {
    if (name == text) { return value; }
  }
  WARPDEX_FAIL("unknown search algorithm '" + std::string(text) +
               "': use automatic, binary, btree, kary or sorted_queries");
}

std::string_view to_string(match_algorithm algorithm)
{
  for (const auto& [value, name] : match_algorithm_names) {
    if (value == algorithm) { return name; }
  }
  WARPDEX_FAIL("to_string: not a match_algorithm");
}

match_algorithm parse_match_algorithm(std::string_view text)
{
  for (const auto& [value, name] : match_algorithm_names) {
    if (name == text) { return value; }
  }
  WARPDEX_FAIL("unknown string matching algorithm '" + std::string(text) +
               "': use automatic, drk, wom or two_stage (2s)");
}

}  // namespace warpdex
