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

/// The ripgrep command to run: bin/rg beside the running benchmark (tools/gpu.sh build bundles it there),
/// else `rg` on the PATH; empty when neither runs.
[[nodiscard]] std::string ripgrep_command();

/// As `time_grep`, for any command line `tool` that takes the pattern file after it: `tool` PATTERN_FILE
/// FILE... `suffix` (e.g. "rg -F -j 16 -c --no-filename -f"). The pieces are searched by one process,
/// given all of them (a tool with threads of its own, such as ripgrep).
[[nodiscard]] grep_measure time_tool(const std::string& tool, const std::filesystem::path& folder,
                                     std::span<const std::uint8_t> pattern, const std::string& suffix,
                                     const std::filesystem::path& whole,
                                     const std::vector<std::filesystem::path>& pieces, int repetitions);

/// Times `LC_ALL=C grep -F <flags> -f <pattern file> FILE <suffix>` on `whole` alone and on every piece
/// at once (one process each); the pattern goes through a file in `folder`. `suffix` ends the shell
/// pipeline of each grep (e.g. "| wc -l" or "> /dev/null"). Counts are the printed numbers, summed.
[[nodiscard]] grep_measure time_grep(const std::filesystem::path& folder, std::span<const std::uint8_t> pattern,
                                     const std::string& flags, const std::string& suffix,
                                     const std::filesystem::path& whole,
                                     const std::vector<std::filesystem::path>& pieces, int parallel_repetitions);

}  // namespace warpdex::bench
