#pragma once
// The subcommands of `warpdex`. Each family adds its own `add_<family>_command` here and in main.cpp.

#include <warpdex/core/backend.hpp>

#include <CLI/CLI.hpp>

#include <string>

namespace warpdex::cli {

/// Options every subcommand understands (given before or after the subcommand's name).
struct global_options {
  std::string backend = "auto";
};

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

/// `warpdex sssp GRAPH --source S [-o DIST]`: shortest paths on a graph file or a generated graph.
void add_sssp_command(CLI::App& app, const global_options& globals);

}  // namespace warpdex::cli
