// Strict parsing of numeric options and usage errors found after parsing.
#include "commands.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

namespace warpdex::cli {
namespace {

/// "" when `text` is a whole decimal integer of `Integer`'s range, else why not.
template <class Integer>
std::string integer_problem(const std::string& text)
{
  Integer value{};
  const char* first = text.data();
  const char* last = first + text.size();
  if (!text.empty() && text[0] == '+') { ++first; }
  const auto [end, failure] = std::from_chars(first, last, value);
  if (failure == std::errc::result_out_of_range) {
    return text + " is out of range (" + std::to_string(std::numeric_limits<Integer>::min()) + " to " +
           std::to_string(std::numeric_limits<Integer>::max()) + ")";
  }
  if (failure != std::errc{} || end != last || first == last) {
    return text + " is not a whole decimal number" + (std::is_unsigned_v<Integer> ? " >= 0" : "");
  }
  return {};
}

std::string number_problem(const std::string& text)
{
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) { return text + " is not a number"; }
  if (!std::isfinite(value)) { return text + " is not a finite number"; }
  return {};
}

void check_options(CLI::App& app)
{
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_size_max() == 0) { continue; }  // a flag
    const std::string type = option->get_type_name().substr(0, option->get_type_name().find(':'));
    if (type == "UINT") {
      option->check(CLI::Validator(integer_problem<std::uint64_t>, "", "strict unsigned"));
    } else if (type == "INT") {
      option->check(CLI::Validator(integer_problem<std::int64_t>, "", "strict integer"));
    } else if (type == "FLOAT") {
      option->check(CLI::Validator(number_problem, "", "finite number"));
    }
  }
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) { check_options(*command); }
}

}  // namespace

CLI::Validator whole_number_in(std::initializer_list<std::uint64_t> allowed)
{
  std::string listed;
  for (const std::uint64_t value : allowed) { listed += (listed.empty() ? "" : ", ") + std::to_string(value); }
  // One check for both reasons, so that "abc" is told it is not a number (CLI11's IsMember would print the
  // bare text: it runs before the strict number checks added after parsing's setup).
  const std::vector<std::uint64_t> values(allowed);
  return CLI::Validator(
      [values, listed](const std::string& text) -> std::string {
        if (std::string problem = integer_problem<std::uint64_t>(text); !problem.empty()) {
          return problem + " (one of " + listed + ")";
        }
        std::uint64_t value = 0;
        std::from_chars(text.data() + (text[0] == '+' ? 1 : 0), text.data() + text.size(), value);
        for (const std::uint64_t allowed_value : values) {
          if (value == allowed_value) { return {}; }
        }
        return text + " is not one of " + listed;
      },
      "{" + listed + "}", "whole number in a set");
}

void check_numbers_strictly(CLI::App& app)
{
  check_options(app);
}

void usage_error(const std::string& message)
{
  throw CLI::ValidationError(message);
}

}  // namespace warpdex::cli
