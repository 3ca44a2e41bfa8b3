#pragma once
// Closing an output file so that a failed write is an error: a stream writes its last buffered block only when it
// is closed, so a full disk (or /dev/full) shows there and not at the writes before.

#include <warpdex/core/error.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace warpdex::detail {

/// Closes `out`; throws warpdex::error "WHAT: write failed[: the system's reason]" when a write or the close failed.
inline void close_output(std::ofstream& out, const std::string& what)
{
  errno = 0;
  out.close();
  WARPDEX_EXPECTS(!out.fail(),
                  what + ": write failed" + (errno != 0 ? std::string(": ") + std::strerror(errno) : std::string()));
}

}  // namespace warpdex::detail
