// Names of the duplicate-search methods and of the group-by reductions (backend-independent).
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/duplicates.hpp>
#include <warpdex/dpp/group_by.hpp>

#include <string>

namespace warpdex::dpp {

duplicate_method parse_duplicate_method(std::string_view text)
{
  if (text == "auto") { return duplicate_method::automatic; }
  if (text == "sort") { return duplicate_method::sort; }
  if (text == "hash" || text == "hash_fight") { return duplicate_method::hash_fight; }
  if (text == "partitioned") { return duplicate_method::partitioned; }
  WARPDEX_FAIL("unknown duplicate-search method '" + std::string(text) +
               "' (expected auto, sort, hash or partitioned)");
}

std::string_view duplicate_method_name(duplicate_method method)
{
  switch (method) {
    case duplicate_method::sort:
      return "sort";
    case duplicate_method::hash_fight:
      return "hash";
    case duplicate_method::partitioned:
      return "partitioned";
    default:
      return "auto";
  }
}

group_reduction parse_group_reduction(std::string_view text)
{
  if (text == "sum") { return group_reduction::sum; }
  if (text == "min") { return group_reduction::min; }
  if (text == "max") { return group_reduction::max; }
  WARPDEX_FAIL("unknown group-by reduction '" + std::string(text) + "' (expected sum, min or max)");
}

std::string_view group_reduction_name(group_reduction reduction)
{
  switch (reduction) {
    case group_reduction::sum:
      return "sum";
    case group_reduction::min:
      return "min";
    default:
      return "max";
  }
}

}  // namespace warpdex::dpp
