// The exception types and the precondition macros: what they throw and what their messages carry.

#include <warpdex/core/error.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace {

/// The line number in a "file:line" location, or -1 when `file` is not named.
int line_named_after(const std::string& location, const std::string& file)
{
  const std::size_t at = location.find(file + ":");
  return at == std::string::npos ? -1 : std::stoi(location.substr(at + file.size() + 1));
}

TEST(warpdex_expects, throws_error_with_the_message_and_its_location_apart)
{
  const int first_line = __LINE__;
  std::string message;
  std::string location;
  try {
    WARPDEX_EXPECTS(1 + 1 == 3, "arithmetic is broken: " + std::to_string(1 + 1));
  } catch (const warpdex::error& caught) {
    message = caught.what();
    location = caught.location();
  }
  const int last_line = __LINE__;
  // The message is the user's one line: no source location in it.
  EXPECT_EQ(message, "arithmetic is broken: 2");
  const int line = line_named_after(location, "error_test.cpp");
  EXPECT_GT(line, first_line) << location;
  EXPECT_LT(line, last_line) << location;
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

TEST(warpdex_fail, throws_error_with_the_message_and_its_location_apart)
{
  try {
    WARPDEX_FAIL(std::string("cannot continue"));
    ADD_FAILURE() << "no exception was thrown";
  } catch (const warpdex::error& caught) {
    EXPECT_STREQ(caught.what(), "cannot continue");
    EXPECT_NE(caught.location().find("error_test.cpp:"), std::string::npos) << caught.location();
  }
}

TEST(error_types, built_by_hand_have_no_location)
{
  const warpdex::error plain("plain");
  EXPECT_STREQ(plain.what(), "plain");
  EXPECT_TRUE(plain.location().empty());
  const warpdex::cuda_error located(2, "out of memory", "memory.cpp:12");
  EXPECT_STREQ(located.what(), "out of memory");
  EXPECT_EQ(located.location(), "memory.cpp:12");
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
