// warpdex-bench: every benchmark of warpdex next to its baseline, written to the result record.
#include "harness.hpp"

#include <warpdex/core/error.hpp>

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

int main(int argc, char** argv)
{
  CLI::App app{"warpdex-bench: warpdex's benchmarks and their CUB/Thrust baselines, measured in one process"};
  warpdex::bench::options opts;
  warpdex::bench::add_options(app, opts);
  CLI11_PARSE(app, argc, argv);
  try {
    return warpdex::bench::run(opts);
  } catch (const std::exception& e) {
    std::cerr << "warpdex-bench: error: " << e.what() << '\n';
    return 1;
  }
}
