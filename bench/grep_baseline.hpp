#pragma once
// GNU `grep -F` run on this machine's CPU cores over files in a temporary folder: the baseline of the
// string matching and `warpdex grep` rows.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpdex::bench {

/// A temporary folder, removed with everything in it.
class temp_folder {
 public:
  temp_folder();
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;
  ~temp_folder();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// One grep measurement: one process, and one process per CPU core over pieces of the input.
struct grep_measure {
  double single_seconds = 0;
  double parallel_seconds = 0;
  unsigned processes = 0;
  std::uint64_t single_count = 0;    ///< what the single grep printed, summed per line
  std::uint64_t parallel_count = 0;  ///< the same over the pieces
};

/// Whether `grep` runs here.
[[nodiscard]] bool grep_available();

/// Processes one per CPU core.
[[nodiscard]] unsigned cpu_cores();

/// Writes `bytes` to `path`.
void write_bytes(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

/// Writes pieces [cuts[i], cuts[i + 1] + overlap) of `bytes` (clamped to its end) as files in `folder`
/// named `stem`_i; cuts begin with 0 and end with bytes.size().
[[nodiscard]] std::vector<std::filesystem::path> write_pieces(const std::filesystem::path& folder,
                                                              const std::string& stem,
                                                              std::span<const std::uint8_t> bytes,
                                                              const std::vector<std::uint64_t>& cuts,
                                                              std::uint64_t overlap);

/// Times `LC_ALL=C grep -F <flags> -f <pattern file> FILE <suffix>` on `whole` alone and on every piece
/// at once (one process each); the pattern goes through a file in `folder`. `suffix` ends the shell
/// pipeline of each grep (e.g. "| wc -l" or "> /dev/null"). Counts are the printed numbers, summed.
[[nodiscard]] grep_measure time_grep(const std::filesystem::path& folder, std::span<const std::uint8_t> pattern,
                                     const std::string& flags, const std::string& suffix,
                                     const std::filesystem::path& whole,
                                     const std::vector<std::filesystem::path>& pieces, int parallel_repetitions);

}  // namespace warpdex::bench
