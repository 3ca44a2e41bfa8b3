// `warpdex grep`: a fixed-string grep with GNU `grep -F`'s options, output and exit statuses (C locale):
// 0 when a line was selected, 1 when none was, 2 on trouble (a file that cannot be read, a usage error,
// a write error), even when lines were selected (except with -q).
#include "commands.hpp"
#include "grep_crossover.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/search/grep.hpp>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace warpdex::cli {
namespace {

struct grep_command_options {
  std::vector<std::string> expressions;    ///< -e
  std::vector<std::string> pattern_files;  ///< -f
  std::vector<std::string> arguments;      ///< [PATTERNS] FILE...
  bool ignore_case = false;
  bool invert_match = false;
  bool word_regexp = false;
  bool line_regexp = false;
  bool count = false;
  bool files_with_matches = false;
  bool files_without_match = false;
  bool only_matching = false;
  bool quiet = false;
  bool no_messages = false;
  bool byte_offset = false;
  bool line_number = false;
  int with_filename = 0;  ///< the last of -H (1) and -h (-1) wins, as in grep; 0: neither
  bool recursive = false;
  std::string color = "never";
  std::uint64_t chunk_mib = 0;   ///< 0: the backend's default
  unsigned reader_threads = 0;   ///< 0: the backend's default
  bool fixed_strings = false;    ///< -F: accepted; patterns are always fixed strings
  bool builtin_matcher = false;  ///< --builtin-matcher
  bool map_files = true;         ///< --mmap / --no-mmap
};

/// One run of grep over its operands, with grep's exit status.
class grep_run {
 public:
  /// `choice`: host, cuda, or automatic (--backend auto: chosen per run by choose_backend)
  grep_run(backend_choice choice, const grep_command_options& opts) : choice_(choice), opts_(opts) {}

  int run()
  {
    std::vector<std::string> operands = opts_.arguments;
    if (opts_.expressions.empty() && opts_.pattern_files.empty()) {
      if (operands.empty()) { usage_error("grep: no pattern given (grep [OPTION]... PATTERNS [FILE]...)"); }
      patterns_.push_back(operands.front());
      operands.erase(operands.begin());
    }
    patterns_.insert(patterns_.end(), opts_.expressions.begin(), opts_.expressions.end());
    for (const std::string& file : opts_.pattern_files) { read_pattern_file(file); }
    // Like GNU grep, fail at once, reading no file, when no line can be selected: no patterns (grep -f
    // /dev/null) without -v, or the one empty pattern with -v and neither -x nor -w; unless files are
    // listed for having no selected line (-L, which -q overrides).
    const bool no_patterns = patterns_.empty();
    const bool one_empty = patterns_.size() == 1 && patterns_.front().empty();
    const bool lists_unselected = opts_.files_without_match && !opts_.quiet;
    if (!lists_unselected && ((no_patterns && !opts_.invert_match) ||
                              (one_empty && opts_.invert_match && !opts_.line_regexp && !opts_.word_regexp))) {
      return 1;
    }
    if (choice_ == backend_choice::automatic) { choice_ = choose_backend(operands); }
    options_ = make_options(operands);
    watch_output();
    implicit_operand_ = operands.empty();
    if (operands.empty()) { operands.push_back(opts_.recursive ? "." : "-"); }
    for (const std::string& operand : operands) {
      if (stop_) { break; }
      search_operand(operand);
    }
    if (opts_.quiet && selected_) { return 0; }
    if (trouble_) { return exit_usage; }
    return selected_ ? 0 : 1;
  }

 private:
  /// --backend auto: the host when the cuda backend would search on the host anyway (plan_grep_on_cuda:
  /// an empty pattern, several patterns with --color, -o with -v or -x), or when the
  /// host's predicted time for the regular files named is below the GPU's (grep_crossover); otherwise the
  /// GPU where one is usable. Standard input and -r go to the GPU. CUDA is asked whether a GPU is there
  /// only when the choice would be the GPU: starting it costs more than a host-bound run's search.
  [[nodiscard]] backend_choice choose_backend(const std::vector<std::string>& operands) const
  {
    const grep_cuda_plan plan = plan_grep_on_cuda(patterns_, make_options(operands));
    if (!plan.on_device) { return backend_choice::host; }
    bool all_regular = !opts_.recursive && !operands.empty();
    std::uint64_t bytes = 0;
    for (const std::string& operand : operands) {
      struct stat status {};
      if (!all_regular || operand == "-" || stat(operand.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) {
        all_regular = false;
        break;
      }
      bytes += static_cast<std::uint64_t>(status.st_size);
    }
    if (all_regular &&
        grep_crossover::host_seconds(plan.patterns, bytes) < grep_crossover::cuda_seconds_for(bytes)) {
      return backend_choice::host;
    }
    return resolve_backend(backend_choice::automatic);
  }

  void read_pattern_file(const std::string& file)
  {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> opened(file == "-" ? nullptr : std::fopen(file.c_str(), "rb"),
                                                           std::fclose);
    std::FILE* in = file == "-" ? stdin : opened.get();
    if (in == nullptr) { usage_error("grep: " + file + ": " + std::strerror(errno)); }
    std::string text;
    char block[65536];
    for (std::size_t got; (got = std::fread(block, 1, sizeof(block), in)) > 0;) { text.append(block, got); }
    if (text.empty()) { return; }  // no patterns at all
    if (text.back() == '\n') { text.pop_back(); }
    patterns_.push_back(text);  // grep_stream splits it at its newlines
  }

  grep_options make_options(const std::vector<std::string>& operands) const
  {
    grep_options options;
    options.ignore_case = opts_.ignore_case;
    options.invert_match = opts_.invert_match;
    options.word_regexp = opts_.word_regexp;
    options.line_regexp = opts_.line_regexp;
    options.only_matching = opts_.only_matching;
    options.byte_offset = opts_.byte_offset;
    options.line_number = opts_.line_number;
    options.output = opts_.quiet                 ? grep_output::quiet
                     : opts_.files_with_matches  ? grep_output::files_with_matches
                     : opts_.files_without_match ? grep_output::files_without_match
                     : opts_.count               ? grep_output::count
                                                 : grep_output::lines;
    options.with_filename = opts_.with_filename > 0 || (opts_.with_filename == 0 && operands.size() > 1);
    options.color =
        opts_.color == "always" || (opts_.color == "auto" && isatty(fileno(stdout)) != 0 &&
                                    std::getenv("TERM") != nullptr && std::string(std::getenv("TERM")) != "dumb");
    const std::uint64_t default_bytes =
        choice_ == backend_choice::cuda ? grep_default_cuda_chunk_bytes : grep_default_host_chunk_bytes;
    options.chunk_bytes = opts_.chunk_mib == 0 ? default_bytes : opts_.chunk_mib << 20;
    options.reader_threads = opts_.reader_threads;
    options.builtin_matcher = opts_.builtin_matcher;
    options.map_files = opts_.map_files;
    return options;
  }

  /// Like GNU grep: when standard output is a regular file, lines written to it must not be read back
  /// (grep pat f >> f would grow without end), unless grep writes no lines (-c, -l, -L, -q).
  void watch_output()
  {
    struct stat status {};
    output_is_file_ = !opts_.quiet && !opts_.count && !opts_.files_with_matches && !opts_.files_without_match &&
                      ::fstat(STDOUT_FILENO, &status) == 0 && S_ISREG(status.st_mode);
    if (output_is_file_) {
      output_device_ = status.st_dev;
      output_inode_ = status.st_ino;
    }
  }

  /// Whether `input` is the file standard output writes to.
  bool is_the_output(std::FILE* input) const
  {
    struct stat status {};
    return output_is_file_ && ::fstat(fileno(input), &status) == 0 && S_ISREG(status.st_mode) &&
           status.st_dev == output_device_ && status.st_ino == output_inode_;
  }

  void message(const std::string& name, const std::string& what)
  {
    trouble_ = true;
    if (opts_.no_messages) { return; }
    std::fflush(stdout);
    std::fprintf(stderr, "warpdex grep: %s: %s\n", name.c_str(), what.c_str());
  }

  /// A command-line operand: "-" (standard input), a file, or with -r a directory.
  void search_operand(const std::string& operand)
  {
    if (operand == "-") {
      search_stream(stdin, "(standard input)", options_);
      return;
    }
    struct stat status {};
    if (::stat(operand.c_str(), &status) != 0) {
      message(operand, std::strerror(errno));
      return;
    }
    if (S_ISDIR(status.st_mode)) {
      if (!opts_.recursive) {
        // GNU grep reads it as a file that fails at once: a count of 0 (-c), listed by -L.
        message(operand, "Is a directory");
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> nothing(std::fopen("/dev/null", "rb"), std::fclose);
        if (nothing) { search_stream(nothing.get(), operand, options_); }
        return;
      }
      grep_options options = options_;
      // grep -r names the files it finds when its one operand is a directory (-h aside).
      options.with_filename = options.with_filename || opts_.with_filename >= 0;
      // Without operands grep -r searches "." and names what it finds without "./".
      search_directory(operand, implicit_operand_ ? "" : operand, options);
      return;
    }
    search_file(operand, operand, options_);
  }

  /// The files under a directory, in the order the directory lists them, depth first; symbolic links and
  /// devices found there are skipped (as grep -r does).
  void search_directory(const std::string& path, const std::string& shown, const grep_options& options)
  {
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(path.c_str()), ::closedir);
    if (!dir) {
      message(shown.empty() ? path : shown, std::strerror(errno));
      return;
    }
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir.get())) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") { names.push_back(name); }
    }
    dir.reset();
    for (const std::string& name : names) {
      if (stop_) { return; }
      const std::string child = path + (path.back() == '/' ? "" : "/") + name;
      const std::string child_shown = shown.empty() ? name : shown + (shown.back() == '/' ? "" : "/") + name;
      struct stat status {};
      if (::lstat(child.c_str(), &status) != 0) {
        message(child_shown, std::strerror(errno));
        continue;
      }
      if (S_ISDIR(status.st_mode)) {
        search_directory(child, child_shown, options);
      } else if (S_ISREG(status.st_mode)) {
        search_file(child, child_shown, options);
      }
    }
  }

  void search_file(const std::string& path, const std::string& shown, const grep_options& options)
  {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> input(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!input) {
      message(shown, std::strerror(errno));
      return;
    }
    search_stream(input.get(), shown, options);
  }

  void search_stream(std::FILE* input, const std::string& shown, const grep_options& options)
  {
    if (is_the_output(input)) {
      message(shown, "input file is also the output");
      return;
    }
    grep_result result;
    try {
      result = visit_backend(choice_, [&](const auto& backend) {
        return grep_stream(backend, input, shown, std::span<const std::string>(patterns_), options, stdout);
      });
    } catch (const warpdex::error& e) {
      if (std::ferror(stdout)) {  // main reports the write error and exits with 2
        if (stdout_write_cause() == 0) { stdout_write_cause() = errno; }
        stop_ = true;
        trouble_ = true;
        return;
      }
      message(shown, e.what());
      return;
    }
    selected_ = selected_ || result.matching_lines > 0;
    if (result.binary_matches) {
      std::fflush(stdout);
      std::fprintf(stderr, "warpdex grep: %s: binary file matches\n", shown.c_str());
    }
    if (opts_.quiet && selected_) { stop_ = true; }
  }

  backend_choice choice_;
  const grep_command_options& opts_;
  std::vector<std::string> patterns_;
  bool implicit_operand_ = false;
  bool output_is_file_ = false;  ///< standard output is a regular file, and lines are written to it
  dev_t output_device_ = 0;
  ino_t output_inode_ = 0;
  grep_options options_;
  bool selected_ = false;
  bool trouble_ = false;
  bool stop_ = false;
};

}  // namespace

void add_grep_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<grep_command_options>();
  CLI::App* grep = app.add_subcommand(
      "grep",
      "Fixed-string search with GNU grep -F's options and output (C locale). Exit status: 0 a line was "
      "selected, 1 none was, 2 trouble. With --backend auto and a GPU, a run goes to the host when the host "
      "is predicted faster for its regular files' size and pattern count (measured on an H200 with 16 cores: "
      "the GPU about 0.56 s a run, the host 0.18 s per GB for 10 patterns to 5.2 s per GB for 10^5) or when "
      "its options keep several patterns' search on the host");
  grep->set_help_flag("--help", "Print this help message and exit");  // -h is grep's --no-filename
  grep->add_option("-e,--regexp", opts->expressions, "A pattern (a fixed string; newlines separate several)")
      ->type_name("PATTERNS")
      ->allow_extra_args(false);  // one value per -e, as grep
  grep->add_option("-f,--file", opts->pattern_files, "Read patterns from FILE, one a line")
      ->type_name("FILE")
      ->allow_extra_args(false);
  grep->add_flag("-F,--fixed-strings", opts->fixed_strings,
                 "Patterns are fixed strings (always so here; accepted as grep -F takes it)");
  grep->add_flag("-i,--ignore-case", opts->ignore_case, "ASCII letters match either case");
  grep->add_flag("-v,--invert-match", opts->invert_match, "Select the lines that do not match");
  grep->add_flag("-w,--word-regexp", opts->word_regexp, "Match only whole words");
  grep->add_flag("-x,--line-regexp", opts->line_regexp, "Match only whole lines");
  grep->add_flag("-c,--count", opts->count, "Print the number of selected lines per file");
  grep->add_flag("-l,--files-with-matches", opts->files_with_matches, "Print the names of files with a selected line");
  grep->add_flag("-L,--files-without-match", opts->files_without_match, "Print the names of files without one");
  grep->add_flag("-o,--only-matching", opts->only_matching, "Print each match on a line of its own");
  grep->add_flag("-q,--quiet,--silent", opts->quiet, "Print nothing; exit 0 at the first selected line");
  grep->add_flag("-s,--no-messages", opts->no_messages, "No messages about unreadable files");
  grep->add_flag("-b,--byte-offset", opts->byte_offset, "Prefix the byte offset of each line (with -o: match)");
  grep->add_flag("-n,--line-number", opts->line_number, "Prefix each line with its line number");
  grep->add_flag_callback(
          "-H,--with-filename", [opts] { opts->with_filename = 1; }, "Prefix each line with its file's name")
      ->trigger_on_parse();  // in command-line order: the last of -H and -h wins
  grep->add_flag_callback(
          "-h,--no-filename", [opts] { opts->with_filename = -1; }, "Never prefix file names")
      ->trigger_on_parse();
  grep->add_flag("-r,-R,--recursive", opts->recursive, "Search the files under each directory (default: .)");
  grep->add_flag("--color{auto},--colour{auto}", opts->color,
                 "Mark matches, names and numbers: --color=WHEN, WHEN never, always or auto (a terminal); "
                 "--color alone is auto")
      ->check(CLI::IsMember({"never", "always", "auto"}));
  grep->add_option("--chunk-mib", opts->chunk_mib,
                   "MiB of input searched per step (default: 1 on the host, 64 on "
                   "the GPU); a chunk never exceeds what a regular file needs")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 16));
  grep->add_option("--reader-threads", opts->reader_threads,
                   "Threads reading each chunk of a regular file (default: 1 on the host, one per core up to "
                   "16 on the GPU)")
      ->check(CLI::Range(1U, 256U));
  grep->add_flag("--builtin-matcher", opts->builtin_matcher,
                 "On the host backend, match with the built-in matcher even where warpdex has Hyperscan "
                 "(warpdex info names the host's matcher); the output is the same");
  grep->add_flag("--mmap,!--no-mmap", opts->map_files,
                 "On the host backend, search regular files in place, mapped into memory (the default), or "
                 "with --no-mmap read them into buffers; the output is the same, but a file that shrinks while "
                 "it is mapped ends the process (as any mapped file)");
  grep->add_option("arguments", opts->arguments,
                   "PATTERNS (unless -e or -f gives them), then the files; - or none: "
                   "standard input")
      ->type_name("[PATTERNS] [FILE...]");
  grep->callback([opts, &globals] {
    if (opts->files_with_matches && opts->files_without_match) { usage_error("grep: -l and -L exclude each other"); }
    if (!isatty(fileno(stdout))) { std::setvbuf(stdout, nullptr, _IOFBF, std::size_t{1} << 16); }
    // grep's trouble is status 2, also when the backend cannot run here (1 would read as "no line selected").
    try {
      // auto is resolved per run (choose_backend), without starting CUDA where the host is chosen anyway
      const backend_choice choice = parse_backend_choice(globals.backend) == backend_choice::automatic
                                        ? backend_choice::automatic
                                        : selected_backend(globals);
      grep_run run(choice, *opts);
      command_status() = run.run();
    } catch (const warpdex::error& e) {
      std::fflush(stdout);
      std::fprintf(stderr, "warpdex grep: error: %s\n", e.what());
      command_status() = exit_usage;
    } catch (const std::bad_alloc&) {
      std::fflush(stdout);
      std::fprintf(stderr,
                   "warpdex grep: error: out of host memory (an allocation failed); try a smaller --chunk-mib\n");
      command_status() = exit_usage;
    }
  });
}

}  // namespace warpdex::cli
