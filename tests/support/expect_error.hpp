#pragma once
/// @file Checking both the type and the message of an exception: warpdex's messages are part of its
/// interface, since they tell a user what to do.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace warpdex::testing {

/// Expects `action()` to throw an `Exception` whose what() contains each of `fragments`.
template <class Exception, class Action>
void expect_error_mentioning(Action&& action, const std::vector<std::string_view>& fragments)
{
  try {
    action();
    ADD_FAILURE() << "no exception was thrown";
  } catch (const Exception& caught) {
    const std::string message = caught.what();
    for (const std::string_view fragment : fragments) {
      EXPECT_NE(message.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << message;
    }
  }
}

}  // namespace warpdex::testing
