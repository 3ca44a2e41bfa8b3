#pragma once
/// @file The exception types of warpdex and the precondition macros that throw them.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace warpdex {

/// Every failure warpdex reports is a `warpdex::error` (or derived): bad input, a CUDA failure,
/// exhausted memory. The message says what went wrong and, where possible, what to do about it.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A CUDA runtime call or kernel launch failed; `code()` is the `cudaError_t` value.
class cuda_error : public error {
 public:
  cuda_error(int code, const std::string& message) : error(message), code_(code) {}
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
  throw error(message + " [" + file + ":" + std::to_string(line) + "]");
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
