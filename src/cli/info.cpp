#include "commands.hpp"
#include "grep_crossover.hpp"

#include <warpdex/core/backend.hpp>
#include <warpdex/search/string_match.hpp>
#include <warpdex/version.hpp>

#if WARPDEX_HAS_CUDA
#include "harness.hpp"
#endif

#include <omp.h>

#include <cstdio>
#include <iostream>

namespace warpdex::cli {
namespace {

constexpr double gibibyte = 1024.0 * 1024.0 * 1024.0;
constexpr double mebibyte = 1024.0 * 1024.0;

void print_info(const global_options& globals)
{
  std::printf("warpdex %s\n", WARPDEX_VERSION_STRING);
  std::printf("build: CUDA backend %s, host backend with %d OpenMP threads\n",
              WARPDEX_HAS_CUDA ? "yes (architectures " WARPDEX_CUDA_ARCHITECTURES ")" : "no", omp_get_max_threads());
  std::printf("host string matcher: %s (grep, count_matches and find_matches on the host backend)\n",
              host_string_matcher().c_str());
  const backend_choice backend = selected_backend(globals);
  std::printf("backend: %s (asked for %s)\n", backend == backend_choice::cuda ? "cuda" : "host",
              globals.backend.c_str());
  std::string reason;
  if (!cuda_device_available(&reason)) {
    std::printf("gpu: none: %s\n", reason.c_str());
    std::printf("grep --backend auto: the host (no GPU)\n");
    return;
  }
  const device_info gpu = query_device(0);
  std::printf("gpu 0: %s, compute capability %d.%d, %d multiprocessors, %.1f GiB (%.1f GiB free), L2 %.0f MiB\n",
              gpu.name.c_str(), gpu.compute_capability_major, gpu.compute_capability_minor, gpu.multiprocessor_count,
              static_cast<double>(gpu.global_memory_bytes) / gibibyte,
              static_cast<double>(gpu.free_memory_bytes) / gibibyte,
              static_cast<double>(gpu.l2_cache_bytes) / mebibyte);
  std::printf("%s\n", grep_crossover_text().c_str());
#if WARPDEX_HAS_CUDA
  std::printf("copy bandwidth: %.0f GB/s (device to device, bytes read + written)\n",
              bench::measure_copy_bandwidth_GBps());
#endif
}

}  // namespace

void add_info_command(CLI::App& app, const global_options& globals)
{
  CLI::App* info = app.add_subcommand("info", "Show the build, the backend, the GPU and its measured bandwidth");
  info->callback([&globals] { print_info(globals); });
}

}  // namespace warpdex::cli
