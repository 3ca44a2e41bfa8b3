#pragma once
// The bytes of a file quoted in an error message (a token, a line, an array's name), made one line of
// printable text whatever the file holds: a damaged or binary file must not split the message or end the
// C string what() returns.

#include <string>
#include <string_view>

namespace warpdex::detail {

/// `text` with NUL written \0, other control characters and DEL written \xNN, and with
/// `escape_non_ascii` the bytes past ASCII too (quoted file contents; a path keeps its UTF-8).
inline std::string printable(std::string_view text, bool escape_non_ascii)
{
  constexpr char hex[] = "0123456789abcdef";
  std::string line;
  line.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte == 0) {
      line += "\\0";
    } else if (byte < 0x20 || byte == 0x7f || (escape_non_ascii && byte >= 0x80)) {
      line += {'\\', 'x', hex[byte >> 4], hex[byte & 15]};
    } else {
      line += c;
    }
  }
  return line;
}

}  // namespace warpdex::detail
