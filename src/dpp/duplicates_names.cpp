// Names of the duplicate-search methods (backend-independent).
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/duplicates.hpp>

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

}  // namespace warpdex::dpp
