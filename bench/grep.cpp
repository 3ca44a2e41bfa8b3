// `warpdex grep` end to end on a generated file of several GB, next to GNU grep on the CPU cores, with
// the busy time of each pipeline stage; and the GNU grep baseline shared with the string matching rows.
#include "benchmarks.hpp"
#include "grep_baseline.hpp"
#include "throughput_row.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/search/grep.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>
#include <string>
#include <thread>
#include <vector>

namespace warpdex::bench {

namespace fs = std::filesystem;

temp_folder::temp_folder() : path_(fs::temp_directory_path() / ("warpdex_bench_grep_" + std::to_string(::getpid())))
{
  fs::create_directories(path_);
}

temp_folder::~temp_folder()
{
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

bool grep_available()
{
  return std::system("grep -F -q x /dev/null 2>/dev/null; test $? -le 1") == 0;
}

unsigned cpu_cores()
{
  return std::max(1U, std::thread::hardware_concurrency());
}

void write_bytes(const fs::path& path, std::span<const std::uint8_t> bytes)
{
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  WARPDEX_EXPECTS(file.good(), "bench: cannot write " + path.string());
}

std::vector<fs::path> write_pieces(const fs::path& folder, const std::string& stem, std::span<const std::uint8_t> bytes,
                                   const std::vector<std::uint64_t>& cuts, std::uint64_t overlap)
{
  std::vector<fs::path> pieces;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const std::uint64_t end = std::min<std::uint64_t>(bytes.size(), cuts[i + 1] + overlap);
    pieces.push_back(folder / (stem + "_" + std::to_string(i)));
    write_bytes(pieces.back(), bytes.subspan(cuts[i], end - cuts[i]));
  }
  return pieces;
}

namespace {

using clock_type = std::chrono::steady_clock;

/// Runs a shell command; returns the sum of the numbers it printed (one per line) and the seconds it took.
std::pair<std::uint64_t, double> run_counted(const std::string& command)
{
  const auto start = clock_type::now();
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  WARPDEX_EXPECTS(pipe != nullptr, "bench: cannot run " + command);
  std::string text;
  char block[4096];
  for (std::size_t got; (got = std::fread(block, 1, sizeof(block), pipe.get())) > 0;) { text.append(block, got); }
  pipe.reset();
  const double seconds = std::chrono::duration<double>(clock_type::now() - start).count();
  std::istringstream lines(text);
  std::uint64_t total = 0;
  for (std::uint64_t value = 0; lines >> value;) { total += value; }
  return {total, seconds};
}

/// Writes the pattern, newline-terminated, to a file in `folder` for the tools' -f; returns its quoted path.
std::string quoted_pattern_file(const fs::path& folder, std::span<const std::uint8_t> pattern)
{
  const fs::path pattern_file = folder / "pattern.txt";
  std::vector<std::uint8_t> pattern_line(pattern.begin(), pattern.end());
  pattern_line.push_back('\n');
  write_bytes(pattern_file, pattern_line);
  return "'" + pattern_file.string() + "'";
}

/// Times `whole` `whole_repetitions` times and `all` (the pieces) `repetitions` times, the medians kept.
grep_measure measure_commands(const std::string& whole, const std::string& all, int repetitions,
                              int whole_repetitions = 1)
{
  grep_measure measure;
  std::vector<double> whole_seconds;
  for (int i = 0; i < whole_repetitions; ++i) {
    double elapsed = 0;
    std::tie(measure.single_count, elapsed) = run_counted(whole);
    whole_seconds.push_back(elapsed);
  }
  std::sort(whole_seconds.begin(), whole_seconds.end());
  measure.single_seconds = whole_seconds[whole_seconds.size() / 2];
  std::vector<double> seconds;
  for (int i = 0; i < repetitions; ++i) {
    const auto [count, elapsed] = run_counted(all);
    measure.parallel_count = count;
    seconds.push_back(elapsed);
  }
  std::sort(seconds.begin(), seconds.end());
  measure.parallel_seconds = seconds[seconds.size() / 2];
  return measure;
}

}  // namespace

grep_measure time_grep(const fs::path& folder, std::span<const std::uint8_t> pattern, const std::string& flags,
                       const std::string& suffix, const fs::path& whole, const std::vector<fs::path>& pieces,
                       int parallel_repetitions)
{
  const std::string grep = "LC_ALL=C grep -F " + flags + " -f " + quoted_pattern_file(folder, pattern) + " ";
  std::string all = "{ ";
  for (const fs::path& piece : pieces) { all += grep + "'" + piece.string() + "' " + suffix + " & "; }
  all += "wait; }";
  grep_measure measure = measure_commands(grep + "'" + whole.string() + "' " + suffix, all, parallel_repetitions);
  measure.processes = static_cast<unsigned>(pieces.size());
  return measure;
}

std::string ripgrep_command()
{
  std::error_code failed;
  const fs::path beside = fs::read_symlink("/proc/self/exe", failed).parent_path() / "bin" / "rg";
  if (!failed && fs::exists(beside, failed) &&
      std::system(("'" + beside.string() + "' --version > /dev/null 2>&1").c_str()) == 0) {
    return "'" + beside.string() + "'";
  }
  return std::system("rg --version > /dev/null 2>&1") == 0 ? "rg" : "";
}

grep_measure time_tool(const std::string& tool, const fs::path& folder, std::span<const std::uint8_t> pattern,
                       const std::string& suffix, const fs::path& whole, const std::vector<fs::path>& pieces,
                       int repetitions)
{
  const std::string command = "LC_ALL=C " + tool + " " + quoted_pattern_file(folder, pattern) + " ";
  std::string all = command;
  for (const fs::path& piece : pieces) { all += "'" + piece.string() + "' "; }
  grep_measure measure =
      measure_commands(command + "'" + whole.string() + "' " + suffix, all + suffix, repetitions, repetitions);
  measure.processes = 1;
  return measure;
}

namespace {

constexpr std::uint64_t file_bytes = std::uint64_t{1} << 32;
constexpr std::uint64_t generator_pieces = 64;  // generated in parallel, each ending with a newline
constexpr std::uint64_t grep_seed = 0x97e9;
constexpr int warpdex_repetitions = 3;  // after one warm-up run; the median is reported
constexpr int grep_parallel_repetitions = 3;

/// Common English words, most frequent first; word r is drawn with weight 1 / (r + 1) (Zipf).
constexpr const char* vocabulary[] = {
    "the",   "of",    "and",   "to",    "a",       "in",    "is",     "that",   "for",     "it",     "as",
    "was",   "with",  "be",    "by",    "on",      "not",   "he",     "this",   "are",     "or",     "his",
    "from",  "at",    "which", "but",   "have",    "an",    "had",    "they",   "you",     "were",   "their",
    "one",   "all",   "we",    "can",   "her",     "has",   "there",  "been",   "if",      "more",   "when",
    "will",  "would", "who",   "so",    "no",      "time",  "people", "water",  "words",   "number", "world",
    "house", "point", "river", "light", "country", "stone", "garden", "window", "question"};
constexpr std::uint64_t vocabulary_size = sizeof(vocabulary) / sizeof(vocabulary[0]);
constexpr std::uint64_t words_per_line = 11;    // on average: lines of about 60 bytes
constexpr std::uint64_t rare_one_in = 1 << 20;  // words replaced by the rare phrase
constexpr const char* rare_pattern = "quartz nebula";
constexpr const char* frequent_pattern = "the";

/// Fills `out` with lines of Zipf-distributed words, the rare phrase now and then; the last byte is '\n'.
void generate_text(std::span<std::uint8_t> out, std::uint64_t seed)
{
  std::vector<double> cumulative;
  double total = 0;
  for (std::uint64_t r = 0; r < vocabulary_size; ++r) {
    cumulative.push_back(total += 1.0 / static_cast<double>(r + 1));
  }
  std::uint64_t state = seed;
  std::uint64_t at = 0;
  while (at < out.size()) {
    const std::uint64_t draw = fmix64(++state + seed * 0x9e3779b97f4a7c15ULL);
    const double u = static_cast<double>(draw >> 11) * 0x1p-53 * total;
    const char* word = (draw & (rare_one_in - 1)) == 0
                           ? rare_pattern
                           : vocabulary[std::lower_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin()];
    for (const char* c = word; *c != 0 && at < out.size(); ++c) { out[at++] = static_cast<std::uint8_t>(*c); }
    if (at < out.size()) { out[at++] = (draw >> 3) % words_per_line == 0 ? '\n' : ' '; }
  }
  out.back() = '\n';
}

/// Cut points after a newline near each multiple of size / pieces, so that line counts add up.
std::vector<std::uint64_t> line_cuts(std::span<const std::uint8_t> text, unsigned pieces)
{
  std::vector<std::uint64_t> cuts = {0};
  for (unsigned i = 1; i < pieces; ++i) {
    const std::uint64_t near = text.size() / pieces * i;
    const auto newline = std::find(text.begin() + static_cast<std::ptrdiff_t>(near), text.end(), '\n');
    cuts.push_back(std::min<std::uint64_t>(text.size(), newline - text.begin() + 1));
  }
  cuts.push_back(text.size());
  return cuts;
}

struct warpdex_run {
  double seconds = 0;
  grep_result result;
};

warpdex_run run_warpdex_grep(const fs::path& file, const std::string& pattern, bool count_only)
{
  grep_options options;
  options.output = count_only ? grep_output::count : grep_output::lines;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> input(std::fopen(file.string().c_str(), "rb"), std::fclose);
  // Printed lines go through a pipe, as the baselines' do.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> output(
      count_only ? std::fopen("/dev/null", "w") : popen("cat > /dev/null", "w"), count_only ? std::fclose : pclose);
  WARPDEX_EXPECTS(input && output, "bench: cannot open " + file.string());
  warpdex_run run;
  const auto start = clock_type::now();
  run.result = grep_stream(cuda{}, input.get(), file.string(), pattern, options, output.get());
  output.reset();  // waits for the pipe's reader, as the baselines' times do
  run.seconds = std::chrono::duration<double>(clock_type::now() - start).count();
  return run;
}

double median_seconds(std::vector<double> seconds)
{
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

/// The two ceilings of grep from a file on the GPU, measured beside it: the pinned host-to-device copy,
/// which every byte crosses, and reading the file from the page cache with a thread per core into pinned
/// buffers, as the grep reader does.
void add_ceiling_rows(context& ctx, const fs::path& file, unsigned threads)
{
  const std::string copy_name = "grep/ceiling/host_to_device_pinned";
  if (ctx.selected(copy_name)) {
    constexpr std::uint64_t bytes = std::uint64_t{1} << 28;
    buffer<std::uint8_t> pinned = make_pinned_buffer<std::uint8_t>(bytes);
    buffer<std::uint8_t> device = make_device_buffer<std::uint8_t>(bytes);
    std::fill(pinned.data(), pinned.data() + bytes, std::uint8_t{0x5a});
    const double ms = ctx.median_ms(nullptr, [&] {
      WARPDEX_CUDA_TRY(cudaMemcpyAsync(device.data(), pinned.data(), bytes, cudaMemcpyHostToDevice, nullptr));
    });
    std::vector<std::uint8_t> back(4096);
    WARPDEX_CUDA_TRY(cudaMemcpy(back.data(), device.data() + bytes - back.size(), back.size(), cudaMemcpyDeviceToHost));
    row r;
    r.name = copy_name;
    r.n = bytes;
    r.median_ms = ms;
    r.value = static_cast<double>(bytes) / (ms * 1e6);
    r.unit = "GB/s";
    r.verified = std::all_of(back.begin(), back.end(), [](std::uint8_t b) { return b == 0x5a; });
    ctx.add(std::move(r));
  }
  const std::string read_name = "grep/ceiling/page_cache_read/threads=" + std::to_string(threads);
  if (ctx.selected(read_name)) {
    const int descriptor = ::open(file.c_str(), O_RDONLY);
    WARPDEX_EXPECTS(descriptor >= 0, "bench: cannot open " + file.string());
    constexpr std::uint64_t step = std::uint64_t{64} << 20;
    std::vector<buffer<std::uint8_t>> buffers;
    for (unsigned t = 0; t < threads; ++t) { buffers.push_back(make_pinned_buffer<std::uint8_t>(step)); }
    std::vector<double> seconds;
    std::uint64_t read_total = 0;
    for (int repetition = 0; repetition < 4; ++repetition) {  // the first is a warm-up
      std::atomic<std::uint64_t> read{0};
      const auto start = clock_type::now();
      std::vector<std::thread> readers;
      for (unsigned t = 0; t < threads; ++t) {
        readers.emplace_back([&, t] {
          const std::uint64_t begin = file_bytes * t / threads;
          const std::uint64_t end = file_bytes * (t + 1) / threads;
          for (std::uint64_t at = begin; at < end;) {
            const ssize_t got = ::pread(descriptor, buffers[t].data(), std::min(step, end - at), static_cast<off_t>(at));
            if (got <= 0) { break; }
            at += static_cast<std::uint64_t>(got);
            read += static_cast<std::uint64_t>(got);
          }
        });
      }
      for (std::thread& reader : readers) { reader.join(); }
      if (repetition > 0) { seconds.push_back(std::chrono::duration<double>(clock_type::now() - start).count()); }
      read_total = read;
    }
    ::close(descriptor);
    row r;
    r.name = read_name;
    r.n = file_bytes;
    r.median_ms = median_seconds(seconds) * 1e3;
    r.value = static_cast<double>(file_bytes) / (r.median_ms * 1e6);
    r.unit = "GB/s";
    r.verified = read_total == file_bytes;
    ctx.add(std::move(r));
  }
}

/// `warpdex grep -c` run as a process, as the baselines are: the library call's row plus the process's
/// start, CUDA's initialization and the pinning of fresh staging buffers.
void add_process_row(context& ctx, const std::string& row_name, const fs::path& folder,
                     std::span<const std::uint8_t> pattern, const fs::path& file, const grep_measure& ripgrep,
                     std::uint64_t expected)
{
  const std::string name = "grep/process/" + row_name.substr(std::string("grep/").size());
  std::error_code failed;
  const fs::path cli = fs::read_symlink("/proc/self/exe", failed).parent_path() / "warpdex";
  if (failed || !fs::exists(cli, failed) || !ctx.selected(name)) { return; }
  const std::string command = "'" + cli.string() + "' --backend cuda grep -F -c -f " +
                              quoted_pattern_file(folder, pattern) + " '" + file.string() + "'";
  std::vector<double> seconds;
  bool agrees = true;
  for (int i = 0; i < grep_parallel_repetitions; ++i) {
    const auto [count, elapsed] = run_counted(command);
    agrees = agrees && count == expected;
    seconds.push_back(elapsed);
  }
  ctx.add(throughput_row(name, file_bytes, median_seconds(seconds) * 1e3, "GB/s of file",
                         "ripgrep (rg -F -j " + std::to_string(cpu_cores()) + " -c) on the file, same run",
                         ripgrep.single_seconds * 1e3, 0, agrees));
}

}  // namespace

void run_grep_benchmarks(context& ctx)
{
  const std::string size = "/size=" + std::to_string(file_bytes);
  const char* modes[] = {"count", "lines"};
  const std::pair<const char*, const char*> patterns[] = {{"rare", rare_pattern}, {"frequent", frequent_pattern}};
  bool any = ctx.selected("grep/ceiling/host_to_device_pinned") || ctx.selected("grep/ceiling/page_cache_read");
  for (const char* mode : modes) {
    for (const auto& [kind, text] : patterns) {
      any = any || ctx.selected(std::string("grep/") + mode + size + "/pattern=" + kind);
    }
  }
  if (!any) { return; }
  const temp_folder folder;
  const fs::path file = folder.path() / "text.txt";
  const bool have_grep = grep_available();
  const std::string ripgrep = ripgrep_command();
  const unsigned cores = cpu_cores();
  std::vector<fs::path> pieces;
  {
    std::vector<std::uint8_t> text(file_bytes);
    std::vector<std::thread> generators;
    const std::uint64_t piece = file_bytes / generator_pieces;
    for (std::uint64_t i = 0; i < generator_pieces; ++i) {
      generators.emplace_back(
          [&text, piece, i] { generate_text(std::span<std::uint8_t>(text.data() + i * piece, piece), grep_seed + i); });
    }
    for (std::thread& generator : generators) { generator.join(); }
    write_bytes(file, text);
    if (have_grep || !ripgrep.empty()) {
      pieces = write_pieces(folder.path(), "piece", text, line_cuts(text, cores), 0);
    }
  }
  add_ceiling_rows(ctx, file, std::min(cores, 16U));
  for (const auto& [kind, pattern] : patterns) {
    std::uint64_t grep_count = 0;
    bool grep_counted = false;
    for (const char* mode : modes) {
      const std::string name = std::string("grep/") + mode + size + "/pattern=" + kind;
      if (!ctx.selected(name)) { continue; }
      const bool count_only = std::string(mode) == "count";
      run_warpdex_grep(file, pattern, count_only);  // warm-up
      std::vector<warpdex_run> runs;
      for (int i = 0; i < warpdex_repetitions; ++i) { runs.push_back(run_warpdex_grep(file, pattern, count_only)); }
      std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.seconds < b.seconds; });
      const warpdex_run& median = runs[runs.size() / 2];
      row r;
      r.name = name;
      r.n = file_bytes;
      r.median_ms = median.seconds * 1e3;
      r.value = static_cast<double>(file_bytes) / median.seconds * 1e-9;
      r.unit = "GB/s of file";
      r.sol_bytes_per_element = 1;  // every byte of the file crosses to the GPU once
      const grep_stage_seconds& busy = median.result.seconds;
      std::printf("%s: %.3f s; busy seconds: read %.3f, copy %.3f, search %.3f, output %.3f; %llu matching lines\n",
                  name.c_str(), median.seconds, busy.read, busy.copy, busy.search, busy.output,
                  static_cast<unsigned long long>(median.result.matching_lines));
      const std::span<const std::uint8_t> pattern_bytes(reinterpret_cast<const std::uint8_t*>(pattern),
                                                        std::char_traits<char>::length(pattern));
      std::string grep_text = "grep not found on this machine";
      std::optional<double> grep_value;
      if (have_grep) {
        const grep_measure measure =
            // Lines go through a pipe: GNU grep writing straight to /dev/null stops at the first match.
            time_grep(folder.path(), pattern_bytes, count_only ? "-c" : "", count_only ? "" : "| cat > /dev/null", file,
                      pieces, grep_parallel_repetitions);
        if (count_only) {
          grep_count = measure.single_count;
          grep_counted = measure.single_count == measure.parallel_count;
        }
        grep_text = std::string("grep -F ") + (count_only ? "-c" : "(lines through a pipe to /dev/null)") + ", " +
                    std::to_string(measure.processes) + " processes over line-aligned pieces (1 process: " +
                    std::to_string(static_cast<double>(file_bytes) / measure.single_seconds * 1e-9) + " GB/s)";
        grep_value = static_cast<double>(file_bytes) / measure.parallel_seconds * 1e-9;
      }
      r.baseline = grep_text;
      r.baseline_value = grep_value;
      bool ripgrep_agrees = true;
      if (!ripgrep.empty()) {
        // The baseline is what a user runs: ripgrep with a thread per core on the file (one file alone is
        // searched by one of its threads). ripgrep over line-aligned pieces, one per core, which a user
        // would have to cut, and GNU grep are named beside it.
        const std::string threads = std::to_string(cores);
        const grep_measure rg = time_tool(
            ripgrep + " --no-config -F -j " + threads + (count_only ? " -c --no-filename" : "") + " -f", folder.path(),
            pattern_bytes, count_only ? "" : "| cat > /dev/null", file, pieces, grep_parallel_repetitions);
        if (count_only) {
          ripgrep_agrees = rg.single_count == grep_count && rg.parallel_count == grep_count;
          std::printf("%s: rg -c counted %llu (whole file) and %llu (pieces)\n", name.c_str(),
                      static_cast<unsigned long long>(rg.single_count),
                      static_cast<unsigned long long>(rg.parallel_count));
        }
        const double pieces_GBps = static_cast<double>(file_bytes) / rg.parallel_seconds * 1e-9;
        r.baseline = "ripgrep (rg -F -j " + threads + (count_only ? " -c" : ", lines through a pipe to /dev/null") +
                     ") on the file; over " + std::to_string(pieces.size()) +
                     " line-aligned pieces: " + std::to_string(pieces_GBps) + " GB/s (" +
                     std::to_string(r.value / pieces_GBps) + "x); " + grep_text +
                     (grep_value ? ": " + std::to_string(*grep_value) + " GB/s" : "");
        r.baseline_value = static_cast<double>(file_bytes) / rg.single_seconds * 1e-9;
        if (count_only) { add_process_row(ctx, name, folder.path(), pattern_bytes, file, rg, grep_count); }
      }
      r.verified = grep_counted && ripgrep_agrees && median.result.matching_lines == grep_count &&
                   std::all_of(runs.begin(), runs.end(),
                               [&](const auto& run) { return run.result.matching_lines == grep_count; });
      ctx.add(std::move(r));
    }
  }
}

}  // namespace warpdex::bench
