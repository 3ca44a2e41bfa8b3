// The exception types and the precondition macros: what they throw and what their messages carry.
#include "support/expect_error.hpp"

#include <warpdex/core/error.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace {

using warpdex::testing::expect_error_mentioning;

/// The line number in a message's "[file:line]" suffix, or -1 when `file` is not named.
int line_named_after(const std::string& message, const std::string& file)
{
  const std::size_t at = message.find(file + ":");
  return at == std::string::npos ? -1 : std::stoi(message.substr(at + file.size() + 1));
}

TEST(warpdex_expects, throws_error_with_the_message_and_its_location)
{
  const int first_line = __LINE__;
  std::string message;
  try {
    WARPDEX_EXPECTS(1 + 1 == 3, "arithmetic is broken: " + std::to_string(1 + 1));
  } catch (const warpdex::error& caught) {
    message = caught.what();
  }
  const int last_line = __LINE__;
  EXPECT_NE(message.find("arithmetic is broken: 2"), std::string::npos) << message;
  const int line = line_named_after(message, "error_test.cpp");
  EXPECT_GT(line, first_line) << message;
  EXPECT_LT(line, last_line) << message;
}

TEST(warpdex_expects, builds_no_message_when_the_condition_holds)
{
  int messages_built = 0;
  const auto build_message = [&messages_built] {
    ++messages_built;
    return std::string("unused");
  };
  const auto expect = [&build_message](bool condition) { WARPDEX_EXPECTS(condition, build_message()); };
  EXPECT_NO_THROW(expect(true));
  EXPECT_EQ(messages_built, 0);
  EXPECT_THROW(expect(false), warpdex::error);
  EXPECT_EQ(messages_built, 1);
}

TEST(warpdex_fail, throws_error_with_the_message_and_its_location)
{
  expect_error_mentioning<warpdex::error>([] { WARPDEX_FAIL(std::string("cannot continue")); },
                                          {"cannot continue [", "error_test.cpp:"});
}

TEST(error_types, are_all_warpdex_errors)
{
  static_assert(std::is_base_of_v<std::runtime_error, warpdex::error>);
  static_assert(std::is_base_of_v<warpdex::error, warpdex::cuda_error>);
  static_assert(std::is_base_of_v<warpdex::error, warpdex::out_of_memory>);
  const warpdex::cuda_error failure(700, "an illegal address");
  EXPECT_EQ(failure.code(), 700);
  EXPECT_STREQ(failure.what(), "an illegal address");
  EXPECT_THROW(throw warpdex::out_of_memory("full"), warpdex::error);
}

}  // namespace
