// The raw key file reader shared by `split --input` and `hash --input`, and the checks every input file gets.
#include "input.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/core/host_memory.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>

namespace warpdex::cli {
namespace {

constexpr std::uint64_t key_bytes = sizeof(std::uint32_t);

std::string gigabytes(double bytes)
{
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f GB", bytes / 1e9);
  return text;
}

std::string quoted(const std::string& path)
{
  return "'" + path + "'";
}

/// Throws unless `keys` keys of `bytes_per_key` bytes each fit in the host memory available.
void expect_fits(const std::string& command, const std::string& path, std::uint64_t file_bytes, std::uint64_t keys,
                 std::uint64_t bytes_per_key)
{
  const std::uint64_t available = host_memory_bytes();
  const double needed = static_cast<double>(keys) * static_cast<double>(bytes_per_key);
  WARPDEX_EXPECTS(keys <= available / bytes_per_key,
                  command + ": " + quoted(path) + ": file too large for host memory (" + std::to_string(file_bytes) +
                      " bytes): the run needs about " + gigabytes(needed) + ", " +
                      gigabytes(static_cast<double>(available)) + " are available");
}

std::uint32_t little_endian(const unsigned char* at)
{
  return static_cast<std::uint32_t>(at[0]) | static_cast<std::uint32_t>(at[1]) << 8 |
         static_cast<std::uint32_t>(at[2]) << 16 | static_cast<std::uint32_t>(at[3]) << 24;
}

}  // namespace

struct stat input_file_status(const std::string& command, const std::string& path, const std::string& what)
{
  struct stat status {};
  WARPDEX_EXPECTS(::stat(path.c_str(), &status) == 0, command + ": " + quoted(path) + ": " + std::strerror(errno));
  WARPDEX_EXPECTS(!S_ISDIR(status.st_mode), command + ": " + quoted(path) + " is a directory, not a file of " + what);
  return status;
}

void expect_not_empty(const std::string& command, const std::string& path, std::uint64_t bytes, const std::string& what)
{
  WARPDEX_EXPECTS(bytes > 0, command + ": " + quoted(path) + " is empty: it holds no " + what);
}

std::vector<std::uint32_t> read_raw_keys(const std::string& command, const std::string& path,
                                         std::uint64_t bytes_per_key)
{
  const struct stat status = input_file_status(command, path, "keys");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  WARPDEX_EXPECTS(file != nullptr, command + ": cannot open " + quoted(path) + ": " + std::strerror(errno));
  const bool regular = S_ISREG(status.st_mode);
  const auto file_bytes = static_cast<std::uint64_t>(status.st_size);
  if (regular) {
    expect_not_empty(command, path, file_bytes, "keys");
    WARPDEX_EXPECTS(file_bytes % key_bytes == 0, command + ": " + quoted(path) + " holds " +
                                                     std::to_string(file_bytes) +
                                                     " bytes, not a whole number of 4-byte keys");
    expect_fits(command, path, file_bytes, file_bytes / key_bytes, bytes_per_key);
  }
  // Read in blocks, converting from little-endian as they come: no second copy of the file.
  std::vector<std::uint32_t> keys;
  if (regular) { keys.reserve(file_bytes / key_bytes); }
  constexpr std::size_t block_bytes = std::size_t{1} << 20;
  std::vector<unsigned char> block(block_bytes);
  std::size_t pending = 0;  // bytes of an incomplete key at the block's start
  std::uint64_t total = 0;
  while (true) {
    const std::size_t got = std::fread(block.data() + pending, 1, block_bytes - pending, file.get());
    WARPDEX_EXPECTS(!std::ferror(file.get()), command + ": cannot read " + quoted(path) + ": " + std::strerror(errno));
    total += got;
    const std::size_t bytes = pending + got;
    const std::size_t whole = bytes / key_bytes;
    if (!regular && whole > 0) { expect_fits(command, path, total, keys.size() + whole, bytes_per_key); }
    for (std::size_t i = 0; i < whole; ++i) { keys.push_back(little_endian(block.data() + i * key_bytes)); }
    pending = bytes - whole * key_bytes;
    std::memmove(block.data(), block.data() + whole * key_bytes, pending);
    if (got == 0) { break; }
  }
  expect_not_empty(command, path, total, "keys");
  WARPDEX_EXPECTS(pending == 0, command + ": " + quoted(path) + " holds " + std::to_string(total) +
                                    " bytes, not a whole number of 4-byte keys");
  return keys;
}

}  // namespace warpdex::cli
