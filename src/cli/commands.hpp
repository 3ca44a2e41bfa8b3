#pragma once
// The subcommands of `warpdex`. Each family adds its own `add_<family>_command` here and in main.cpp.

#include <warpdex/core/backend.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>

namespace warpdex::workloads {
}  // namespace warpdex::workloads

namespace warpdex::cli {

/// The workloads the commands run (src/workloads/), by their names.
using namespace warpdex::workloads;

/// Options every subcommand understands (given before or after the subcommand's name).
struct global_options {
  std::string backend = "auto";
  bool verbose = false;  ///< --verbose: errors name their source location too
};

/// The exit statuses of `warpdex` (grep's are its own: 0 selected, 1 none selected, 2 trouble).
inline constexpr int exit_success = 0;
inline constexpr int exit_failure = 1;  ///< an error while running, or a failed check
inline constexpr int exit_usage = 2;    ///< a usage error (command line), or a write error on standard output

/// The status `warpdex` exits with when the command returns normally (exit_success unless a command sets
/// another, as grep does).
[[nodiscard]] int& command_status();

/// The cause (errno) of a failed write to standard output that a command caught and left to `main` to
/// report, 0 when none was recorded: a large write that failed leaves nothing for main's last flush to fail
/// on again, so the cause is kept here.
[[nodiscard]] int& stdout_write_cause();

/// Makes every numeric option of `app` and its subcommands reject what CLI11 would take silently: NaN
/// and infinities, integers past the type's range (which strtoull saturates), a sign on an unsigned
/// value, and anything but decimal digits. Call once all commands are added.
void check_numbers_strictly(CLI::App& app);

/// A whole decimal number that must be one of `allowed`; its message says which of the two it failed.
CLI::Validator whole_number_in(std::initializer_list<std::uint64_t> allowed);

/// A usage error found after parsing (options that do not apply together): exits with exit_usage.
[[noreturn]] void usage_error(const std::string& message);

/// The backend that --backend selects on this machine; throws a clear error when it cannot run here.
[[nodiscard]] backend_choice selected_backend(const global_options& globals);

/// `warpdex info`: the build, the backend, the GPU and its measured copy bandwidth.
void add_info_command(CLI::App& app, const global_options& globals);

/// `warpdex bench`: the benchmarks and their baselines; writes the result record.
void add_bench_command(CLI::App& app, const global_options& globals);

/// `warpdex demo`: the main job on generated data, every result checked on the host.
void add_demo_command(CLI::App& app, const global_options& globals);

/// `warpdex split`: a stable multisplit of generated keys or a raw uint32 file, checked on the host.
void add_split_command(CLI::App& app, const global_options& globals);

/// `warpdex hash`: the slab hash map built, queried and updated, with throughput and utilization.
void add_hash_command(CLI::App& app, const global_options& globals);

/// `warpdex lsm`: a generated workload on the GPU LSM, throughput per operation, answers checked.
void add_lsm_command(CLI::App& app, const global_options& globals);

/// `warpdex search`: sorted-array search on generated data, every algorithm checked.
void add_search_command(CLI::App& app, const global_options& globals);

/// `warpdex grep [-c] [-b] [-n] PATTERN FILE...`: fixed-string grep with grep's output.
void add_grep_command(CLI::App& app, const global_options& globals);

/// `warpdex dedup FILE`: distinct records or text lines with counts, or those occurring once (dpp).
void add_dedup_command(CLI::App& app, const global_options& globals);

/// `warpdex hashfight`: a HashFight static table built and queried, throughput and memory (dpp).
void add_hashfight_command(CLI::App& app, const global_options& globals);

/// `warpdex faces MESH|--generate SIZE [-o SURFACE]`: external faces of a tetrahedral mesh (dpp).
void add_faces_command(CLI::App& app, const global_options& globals);

/// `warpdex sssp GRAPH --source S [-o DIST]`: shortest paths on a graph file or a generated graph.
void add_sssp_command(CLI::App& app, const global_options& globals);

/// `warpdex cliques GRAPH [--min-size K] [-o FILE]`: the maximal cliques of a graph.
void add_cliques_command(CLI::App& app, const global_options& globals);

/// `warpdex segment IMAGE -o LABELS`: MRF segmentation of an image or volume (or a generated one).
void add_segment_command(CLI::App& app, const global_options& globals);

}  // namespace warpdex::cli
