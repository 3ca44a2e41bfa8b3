#pragma once
/// @file The exception types of warpdex and the precondition macros that throw them.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace warpdex {

/// Every failure warpdex reports is a `warpdex::error` (or derived): bad input, a CUDA failure,
/// exhausted memory. `what()` is the message alone: what went wrong and, where possible, what to do about
/// it, one line fit for a user. `location()` is where in warpdex's sources it was thrown ("file:line"),
/// kept apart for library users and for `warpdex --verbose`; empty when not known.
class error : public std::runtime_error {
 public:
  explicit error(const std::string& message, std::string location = {})
      : std::runtime_error(message), location_(std::move(location))
  {
  }
  explicit error(const char* message) : std::runtime_error(message) {}

  /// "file:line" of the throw in warpdex's sources, or empty.
  [[nodiscard]] const std::string& location() const noexcept { return location_; }

 private:
  std::string location_;
};

/// A CUDA runtime call or kernel launch failed; `code()` is the `cudaError_t` value.
class cuda_error : public error {
 public:
  cuda_error(int code, const std::string& message, std::string location = {})
      : error(message, std::move(location)), code_(code)
  {
  }
  [[nodiscard]] int code() const noexcept { return code_; }

 private:
  int code_;
};

/// An allocation could not be satisfied (device, pinned or host memory, or a structure's own pool).
class out_of_memory : public error {
 public:
  using error::error;
};

namespace detail {
[[noreturn]] inline void throw_error(const std::string& message, const char* file, int line)
{
  throw error(message, std::string(file) + ":" + std::to_string(line));
}
}  // namespace detail

}  // namespace warpdex

/// Throws `warpdex::error` with `message` (anything convertible to std::string) unless `condition` holds.
#define WARPDEX_EXPECTS(condition, message)                                          \
  do {                                                                               \
    if (!(condition)) ::warpdex::detail::throw_error((message), __FILE__, __LINE__); \
  } while (0)

/// Throws `warpdex::error` with `message`.
#define WARPDEX_FAIL(message) ::warpdex::detail::throw_error((message), __FILE__, __LINE__)
