// warpdex: the command-line tool. Errors end the program with one line on standard error and exit 1.
#include "commands.hpp"

#include <warpdex/version.hpp>

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

namespace warpdex::cli {

backend_choice selected_backend(const global_options& globals)
{
  return resolve_backend(parse_backend_choice(globals.backend));
}

}  // namespace warpdex::cli

int main(int argc, char** argv)
{
  CLI::App app{"warpdex " WARPDEX_VERSION_STRING
               ": warp-centric GPU data structures and index-based search, on the GPU or the CPU"};
  app.require_subcommand(1);
  app.fallthrough();  // subcommands accept the global options too: `warpdex demo --backend host`
  app.set_version_flag("--version", "warpdex " WARPDEX_VERSION_STRING);

  warpdex::cli::global_options globals;
  app.add_option("--backend", globals.backend, "Where to run: auto (cuda when a GPU is present), cuda or host")
      ->check(CLI::IsMember({"auto", "cuda", "host"}));

  warpdex::cli::add_info_command(app, globals);
  warpdex::cli::add_demo_command(app, globals);
  warpdex::cli::add_bench_command(app, globals);
  warpdex::cli::add_split_command(app, globals);
  warpdex::cli::add_hash_command(app, globals);
#if WARPDEX_CLI_LSM
  warpdex::cli::add_lsm_command(app, globals);
#endif
  warpdex::cli::add_search_command(app, globals);
  warpdex::cli::add_grep_command(app, globals);
#if WARPDEX_CLI_GRAPH
  warpdex::cli::add_sssp_command(app, globals);
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "warpdex: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
