// warpdex: the command-line tool. Exit status: 0 when the command did its work and every check passed;
// 1 when it failed (a warpdex::error, exhausted memory, a failed check); 2 for a usage error (an unknown
// command or option, a bad option value) or a write error on standard output, as grep. `warpdex grep`
// keeps grep's statuses: 0 a line was selected, 1 none was, 2 trouble. Errors are one line on standard
// error; --verbose adds where in warpdex's sources the error was raised.
#include "commands.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/version.hpp>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

namespace warpdex::cli {

backend_choice selected_backend(const global_options& globals)
{
  return resolve_backend(parse_backend_choice(globals.backend));
}

int& command_status()
{
  static int status = exit_success;
  return status;
}

int& stdout_write_cause()
{
  static int cause = 0;
  return cause;
}

namespace {

/// The subcommand names, comma-separated, for messages.
std::string command_names(const CLI::App& app)
{
  std::string names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + command->get_name();
  }
  return names;
}

/// The first word of the command line that is neither an option nor an option's value: the command's name
/// (only --backend takes a separate value before it).
std::string first_word(int argc, char** argv)
{
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--backend") {
      ++i;
      continue;
    }
    if (arg.empty() || arg[0] != '-') { return arg; }
  }
  return {};
}

/// Flushes standard output; false (and errno set) when what was written could not be.
bool flushed_stdout()
{
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int cause = errno;
  std::cout.flush();  // synchronized with stdio: flushes stdout again, which may clear errno
  errno = cause;
  return flushed && !std::ferror(stdout) && std::cout.good();
}

int write_error()
{
  const int cause = errno != 0 ? errno : stdout_write_cause();
  std::fprintf(stderr, "warpdex: write error%s%s\n", cause != 0 ? ": " : "", cause != 0 ? std::strerror(cause) : "");
  return exit_usage;
}

}  // namespace

}  // namespace warpdex::cli

int main(int argc, char** argv)
{
  using namespace warpdex::cli;
  CLI::App app{"warpdex " WARPDEX_VERSION_STRING
               ": warp-centric GPU data structures and index-based search, on the GPU or the CPU\n"
               "Exit status: 0 done and checked, 1 failed, 2 usage or write error (grep: 0 selected, 1 none, "
               "2 trouble)."};
  app.require_subcommand(1);
  app.fallthrough();  // subcommands accept the global options too: `warpdex demo --backend host`
  app.set_version_flag("--version", "warpdex " WARPDEX_VERSION_STRING);

  global_options globals;
  app.add_option("--backend", globals.backend, "Where to run: auto (cuda when a GPU is present), cuda or host")
      ->check(CLI::IsMember({"auto", "cuda", "host"}));
  app.add_flag("--verbose", globals.verbose, "Name the source location of an error after its message");

  add_info_command(app, globals);
  add_demo_command(app, globals);
  add_bench_command(app, globals);
  add_split_command(app, globals);
  add_hash_command(app, globals);
#if WARPDEX_CLI_LSM
  add_lsm_command(app, globals);
#endif
#if WARPDEX_CLI_DPP
  add_dedup_command(app, globals);
  add_hashfight_command(app, globals);
  add_faces_command(app, globals);
  add_segment_command(app, globals);
#endif
  add_search_command(app, globals);
  add_grep_command(app, globals);
#if WARPDEX_CLI_GRAPH
  add_sssp_command(app, globals);
  add_cliques_command(app, globals);
#endif
  check_numbers_strictly(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    app.exit(e);
    return flushed_stdout() ? exit_success : write_error();
  } catch (const CLI::ParseError& e) {
    const std::string word = first_word(argc, argv);
    const auto commands = app.get_subcommands([](const CLI::App*) { return true; });
    const bool known = word.empty() || std::any_of(commands.begin(), commands.end(),
                                                   [&](const CLI::App* c) { return c->check_name(word); });
    if (!known) {
      std::fprintf(stderr, "warpdex: unknown command '%s' (commands: %s; see warpdex --help)\n", word.c_str(),
                   command_names(app).c_str());
    } else {
      std::string help = "warpdex --help";
      for (const CLI::App* parsed : app.get_subcommands()) { help = "warpdex " + parsed->get_name() + " --help"; }
      std::fprintf(stderr, "warpdex: %s (see %s)\n", e.what(), help.c_str());
    }
    return exit_usage;
  } catch (const warpdex::error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "warpdex: error: %s", e.what());
    if (globals.verbose && !e.location().empty()) { std::fprintf(stderr, " [%s]", e.location().c_str()); }
    std::fputc('\n', stderr);
    return exit_failure;
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::fprintf(stderr, "warpdex: error: out of host memory (an allocation failed); try a smaller input\n");
    return exit_failure;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "warpdex: error: %s\n", e.what());
    return exit_failure;
  }
  if (!flushed_stdout()) { return write_error(); }
  return command_status();
}
