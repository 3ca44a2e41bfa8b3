#pragma once
// Reading the raw key files of `split --input` and `hash --input`: every check a user's file can fail is
// made before the keys are allocated, with a message naming the file.

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

namespace warpdex::cli {

/// Checks the input file `path` of `command` (named in messages, e.g. "dedup") before it is read: throws
/// warpdex::error naming the file when it does not exist or is a directory ("'PATH' is a directory, not a
/// file of WHAT"). Returns its status.
[[nodiscard]] struct stat input_file_status(const std::string& command, const std::string& path,
                                            const std::string& what);

/// Throws "COMMAND: 'PATH' is empty: it holds no WHAT" when the file held no bytes.
void expect_not_empty(const std::string& command, const std::string& path, std::uint64_t bytes,
                      const std::string& what);

/// Reads `path` as raw little-endian 32-bit keys for `command` (named in messages, e.g. "hash --input").
/// `bytes_per_key` is the host memory the command needs per key of the file, all its copies together:
/// a file whose keys would need more than `warpdex::host_memory_bytes()` is rejected before any is read
/// ("file too large for host memory"). Throws warpdex::error when the path does not exist or cannot be
/// opened, is a directory, holds no bytes, or not a whole number of keys, and when reading fails.
/// Pipes and devices are read up to the same memory limit.
[[nodiscard]] std::vector<std::uint32_t> read_raw_keys(const std::string& command, const std::string& path,
                                                       std::uint64_t bytes_per_key);

}  // namespace warpdex::cli
