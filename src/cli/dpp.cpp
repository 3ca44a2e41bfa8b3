// `warpdex dedup` and `warpdex hashfight`: the dpp family's duplicate search and HashFight table on a
// file or on generated data, timed, with an oracle check on request (--check).
//
// dedup --lines counts text lines with dpp::count_lines (include/warpdex/dpp/line_dedup.hpp: what a line
// is, the streaming, the exact grouping) and prints them; WARPDEX_DEDUP_CHUNK_BYTES sets its block size.
#include "commands.hpp"
#include "dpp_workload.hpp"
#include "input.hpp"
#include "workloads.hpp"
#include "progress.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/duplicates.hpp>
#include <warpdex/dpp/hashfight_map.hpp>
#include <warpdex/dpp/line_dedup.hpp>
#include <warpdex/core/detail/close_output.hpp>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace warpdex::cli {
namespace {

using dpp::uint32x2;
using dpp::uint32x3;
using dpp::uint32x4;

/// Seconds `work` takes on the backend (synchronized).
template <class Backend, class Work>
double timed(const Backend& backend, Work&& work)
{
  const auto started = std::chrono::steady_clock::now();
  work();
  backend.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

/// The bytes of `path` ("-": standard input, as grep and sort read it), read in blocks into storage
/// reserved for the file's size (a file that grows or shrinks meanwhile is read as it is).
std::vector<char> read_whole_file(const std::string& command, const std::string& path, const std::string& what)
{
  constexpr std::size_t block = std::size_t{1} << 20;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> opened(nullptr, std::fclose);
  std::FILE* input = stdin;
  std::vector<char> bytes;
  if (path != "-") {
    // A directory would open and fail in the middle of the read.
    const struct stat status = input_file_status(command, path, what);
    opened.reset(std::fopen(path.c_str(), "rb"));
    WARPDEX_EXPECTS(opened != nullptr, command + ": cannot open '" + path + "'");
    input = opened.get();
    // One block more than the file: the read that finds its end fits too.
    bytes.reserve(static_cast<std::size_t>(std::max<off_t>(status.st_size, 0)) + block);
  }
  for (std::size_t got = block; got == block;) {
    const std::size_t at = bytes.size();
    bytes.resize(at + block);
    got = std::fread(bytes.data() + at, 1, block, input);
    bytes.resize(at + got);
  }
  WARPDEX_EXPECTS(
      !std::ferror(input),
      command + ": cannot read " + (path == "-" ? "standard input" : "'" + path + "'") + ": " + std::strerror(errno));
  return bytes;
}

void print_steps(const std::vector<dpp_step>& steps)
{
  std::printf("each time is the median of %d runs after %d warm-up\n", cli_timing.repetitions, cli_timing.warmup);
  std::printf("%-22s %10s %12s %14s  %s\n", "step", "ms", "Melem/s", "baseline ms", "check");
  bool all_passed = true;
  for (const dpp_step& step : steps) {
    const std::string baseline = step.baseline.empty() ? "-" : std::to_string(step.baseline_seconds * 1e3);
    std::printf("%-22s %10.2f %12.1f %14s  %s: %s\n", step.what.c_str(), step.seconds * 1e3,
                static_cast<double>(step.elements) / std::max(step.seconds, 1e-9) / 1e6, baseline.c_str(),
                step.passed ? "ok" : "FAILED", step.check.c_str());
    all_passed = all_passed && step.passed;
  }
  for (const dpp_step& step : steps) {
    if (!step.baseline.empty()) { std::printf("baseline of %s: %s\n", step.what.c_str(), step.baseline.c_str()); }
  }
  WARPDEX_EXPECTS(all_passed, "a step failed its check");
}

// ---- dedup of a file ----

struct dedup_options {
  std::string path;
  std::uint32_t generated_log2 = 0;  ///< > 0: no file; the generated workload of 2^this uint32 keys
  double duplicate_fraction = 0.5;
  std::uint64_t seed = 1;
  unsigned record_bytes = 4;
  bool lines = false;
  bool once = false;
  bool check = false;
  std::string method = "auto";
  std::string output;
};

/// The block size of dedup --lines: WARPDEX_DEDUP_CHUNK_BYTES when set (tests make it tiny), else the
/// backend's default (0).
std::uint64_t dedup_chunk_bytes()
{
  const char* text = std::getenv("WARPDEX_DEDUP_CHUNK_BYTES");
  if (text == nullptr || *text == '\0') { return 0; }
  std::uint64_t bytes = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, failure] = std::from_chars(text, end, bytes);
  if (failure != std::errc() || stop != end || bytes == 0 || bytes > dpp::max_line_chunk_bytes) {
    usage_error("dedup: WARPDEX_DEDUP_CHUNK_BYTES='" + std::string(text) + "' is not a number of bytes from 1 to " +
                std::to_string(dpp::max_line_chunk_bytes));
  }
  return bytes;
}

/// The oracle of --check: the lines of the whole text grouped by std::unordered_map, in order of first
/// occurrence (see the file comment for what a line is).
dpp::line_counts host_line_counts(std::string_view text, bool only_once)
{
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    const std::size_t length = newline - start;
    lines.push_back(text.substr(start, length > 0 && text[newline - 1] == '\r' ? length - 1 : length));
    start = newline + 1;
  }
  std::vector<std::string_view> distinct;
  std::vector<std::uint64_t> counts;
  std::unordered_map<std::string_view, std::size_t> index;
  for (const std::string_view line : lines) {
    const auto [entry, inserted] = index.try_emplace(line, distinct.size());
    if (inserted) {
      distinct.push_back(line);
      counts.push_back(0);
    }
    ++counts[entry->second];
  }
  dpp::line_counts result;
  result.lines = lines.size();
  result.offsets.push_back(0);
  for (std::size_t g = 0; g < distinct.size(); ++g) {
    if (only_once && counts[g] != 1) { continue; }
    result.bytes.insert(result.bytes.end(), distinct[g].begin(), distinct[g].end());
    result.offsets.push_back(result.bytes.size());
    result.counts.push_back(counts[g]);
  }
  return result;
}

void write_line(std::FILE* out, std::string_view line)
{
  if (!line.empty()) { std::fwrite(line.data(), 1, line.size(), out); }  // an empty line's data may be null
  std::fputc('\n', out);
}

void dedup_lines(backend_choice choice, const dedup_options& opts)
{
  const bool from_stdin = opts.path == "-";  // standard input, as grep and sort read it
  const std::string name = from_stdin ? std::string("standard input") : "'" + opts.path + "'";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> opened(nullptr, std::fclose);
  if (!from_stdin) {
    (void)input_file_status("dedup", opts.path, "lines");  // a directory would open and fail in the middle
    opened.reset(std::fopen(opts.path.c_str(), "rb"));
    WARPDEX_EXPECTS(opened != nullptr, "dedup: cannot open '" + opts.path + "'");
  }
  std::FILE* input = from_stdin ? stdin : opened.get();
  std::string kept;  // with --check, the whole input for the oracle
  const dpp::line_source read = [&](std::span<char> destination) {
    const std::size_t got = std::fread(destination.data(), 1, destination.size(), input);
    WARPDEX_EXPECTS(got > 0 || !std::ferror(input), "dedup: cannot read " + name + ": " + std::strerror(errno));
    if (opts.check) { kept.append(destination.data(), got); }
    return got;
  };
  dpp::line_dedup_options options;
  options.only_once = opts.once;
  options.chunk_bytes = dedup_chunk_bytes();
  dpp::line_counts counts;
  double seconds = 0;
  {
    progress shown("dedup: grouping lines");
    const auto started = std::chrono::steady_clock::now();
    counts = visit_backend(choice, [&](const auto& backend) { return dpp::count_lines(backend, read, options); });
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  if (counts.shared_hash_lines > 0) {
    std::fprintf(stderr,
                 "warpdex dedup: %llu distinct lines share a 64-bit hash with another, told apart byte by byte\n",
                 static_cast<unsigned long long>(counts.shared_hash_lines));
  }
  // --output takes the lines standard output would show.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, std::fclose);
  if (!opts.output.empty()) {
    file.reset(std::fopen(opts.output.c_str(), "wb"));
    WARPDEX_EXPECTS(file != nullptr, "dedup --output: cannot create '" + opts.output + "': " + std::strerror(errno));
  }
  std::FILE* out = file ? file.get() : stdout;
  for (std::size_t g = 0; g < counts.size(); ++g) {
    if (!opts.once) { std::fprintf(out, "%7llu ", static_cast<unsigned long long>(counts.counts[g])); }
    write_line(out, counts.line(g));
  }
  std::fflush(stdout);
  // The failed write (this flush or one before it) left its errno; main's own flush finds nothing left to fail on.
  if (std::ferror(stdout) && stdout_write_cause() == 0) { stdout_write_cause() = errno; }
  if (file) {
    errno = 0;
    const bool written = std::fflush(file.get()) == 0 && std::ferror(file.get()) == 0;
    const int cause = errno;
    WARPDEX_EXPECTS(written && std::fclose(file.release()) == 0,
                    "dedup --output: '" + opts.output + "': write failed" +
                        (cause != 0 ? std::string(": ") + std::strerror(cause) : std::string()));
  }
  std::fprintf(stderr, "warpdex dedup: %llu lines, %zu %s, %.2f ms\n", static_cast<unsigned long long>(counts.lines),
               counts.size(), opts.once ? "occurring once" : "distinct", seconds * 1e3);
  if (opts.check) {
    const dpp::line_counts exact = host_line_counts(kept, opts.once);
    WARPDEX_EXPECTS(exact.bytes == counts.bytes && exact.offsets == counts.offsets && exact.counts == counts.counts &&
                        exact.lines == counts.lines,
                    "dedup --check: the library's line counts differ from std::unordered_map's");
    std::fprintf(stderr, "warpdex dedup: check passed (std::unordered_map of the lines)\n");
  }
}

template <class Element, class Backend>
void dedup_records(const Backend& backend, const dedup_options& opts, std::vector<char>&& bytes)
{
  const std::uint64_t n = bytes.size() / sizeof(Element);
  std::vector<Element> records(n);
  if (n != 0) { std::memcpy(records.data(), bytes.data(), n * sizeof(Element)); }
  std::vector<char>().swap(bytes);  // the records hold the input now
  // The host backend reads the records where they are; cuda gets a copy in device memory.
  buffer<Element> input;
  if constexpr (!std::is_same_v<Backend, host>) { input = to_backend<Element>(backend, records); }
  const std::span<const Element> in(std::is_same_v<Backend, host> ? records.data() : input.data(), n);
  const dpp::duplicate_method method = dpp::parse_duplicate_method(opts.method);
  // What runs: the engine, the sort or hash fighting, as the library resolves the method for this call.
  const dpp::duplicate_method ran = opts.once ? dpp::resolve_once_method<Element, Backend>(method, n)
                                              : dpp::resolve_distinct_method<Element, Backend>(
                                                    method, n, false, dpp::element_order::first_occurrence);
  buffer<Element> result;
  double seconds = 0;
  {
    progress shown(opts.once ? "dedup: records occurring once" : "dedup: distinct records");
    seconds = timed(backend, [&] {
      result = opts.once ? dpp::elements_occurring_once(backend, in, method)
                         : dpp::unique_elements(backend, in, dpp::element_order::first_occurrence, method);
    });
  }
  // On the host the result is read where it is.
  std::vector<Element> copied;
  if constexpr (!std::is_same_v<Backend, host>) { copied = result.to_vector(); }
  const std::span<const Element> kept = std::is_same_v<Backend, host>
                                            ? std::span<const Element>(result.data(), result.size())
                                            : std::span<const Element>(copied);
  std::printf("%llu records of %u bytes, %llu %s, %.2f ms (%s)\n", static_cast<unsigned long long>(n),
              opts.record_bytes, static_cast<unsigned long long>(kept.size()),
              opts.once ? "occurring once" : "distinct", seconds * 1e3,
              std::string(dpp::duplicate_method_name(ran)).c_str());
  if (!opts.output.empty()) {
    std::ofstream out(opts.output, std::ios::binary);
    WARPDEX_EXPECTS(out.good(), "dedup --output: cannot create '" + opts.output + "'");
    out.write(reinterpret_cast<const char*>(kept.data()), static_cast<std::streamsize>(kept.size() * sizeof(Element)));
    warpdex::detail::close_output(out, "dedup --output: '" + opts.output + "'");
  }
  if (opts.check) {
    // The oracle: std::sort of the records, then runs; the kept records in input order of first
    // occurrence.
    std::vector<std::uint64_t> order(n);
    for (std::uint64_t i = 0; i < n; ++i) { order[i] = i; }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint64_t a, std::uint64_t b) { return records[a] < records[b]; });
    std::vector<std::uint64_t> expected_positions;
    for (std::uint64_t j = 0; j < n;) {
      std::uint64_t end = j + 1;
      while (end < n && records[order[end]] == records[order[j]]) { ++end; }
      if (!opts.once || end - j == 1) { expected_positions.push_back(order[j]); }
      j = end;
    }
    std::sort(expected_positions.begin(), expected_positions.end());
    bool same = expected_positions.size() == kept.size();
    for (std::size_t i = 0; same && i < kept.size(); ++i) { same = records[expected_positions[i]] == kept[i]; }
    WARPDEX_EXPECTS(same, "dedup --check: the library's records differ from the std::sort oracle's");
    std::printf("check passed (std::sort of the records)\n");
  }
}

void dedup_file(const global_options& globals, const dedup_options& opts)
{
  const backend_choice choice = selected_backend(globals);
  if (opts.generated_log2 > 0) {
    std::printf("warpdex dedup: 2^%u generated uint32 keys, duplicate fraction %.2f, backend %s\n", opts.generated_log2,
                opts.duplicate_fraction, choice == backend_choice::cuda ? "cuda" : "host");
    print_steps(
        run_dedup_workload(choice, std::uint64_t{1} << opts.generated_log2, opts.duplicate_fraction, opts.seed));
    return;
  }
  if (opts.path.empty()) { usage_error("dedup: give a FILE, or --size-log2 for generated keys"); }
  if (opts.lines) {
    dedup_lines(choice, opts);
    return;
  }
  if (opts.method == "hash" && !opts.once) {
    usage_error("dedup --method hash: hash fighting finds only the records occurring once (add --once)");
  }
  std::vector<char> bytes = read_whole_file("dedup", opts.path, "records");
  expect_not_empty("dedup", opts.path, bytes.size(), "records");  // as split and hashfight --keys say it
  WARPDEX_EXPECTS(bytes.size() % opts.record_bytes == 0,
                  "dedup: '" + opts.path + "' holds " + std::to_string(bytes.size()) +
                      " bytes, not a whole number of " + std::to_string(opts.record_bytes) + "-byte records (" +
                      std::to_string(bytes.size() % opts.record_bytes) + " bytes left over)");
  visit_backend(choice, [&](const auto& backend) {
    switch (opts.record_bytes) {
      case 4:
        dedup_records<std::uint32_t>(backend, opts, std::move(bytes));
        break;
      case 8:
        dedup_records<std::uint64_t>(backend, opts, std::move(bytes));
        break;
      case 12:
        dedup_records<uint32x3>(backend, opts, std::move(bytes));
        break;
      default:
        dedup_records<uint32x4>(backend, opts, std::move(bytes));
        break;
    }
  });
}

// ---- hashfight ----

struct hashfight_cli_options {
  std::uint32_t size_log2 = 22;
  unsigned key_bytes = 4;
  double load_factor = 1.03;
  std::uint64_t leftover_limit = dpp::hashfight_options{}.leftover_limit;
  std::uint64_t chunk_bytes = 0;
  std::uint32_t bucket_bytes = 0;
  std::string keys_path;
  std::uint64_t seed = 1;
  bool check = false;
};

/// The request of a run: the keys of --keys read and checked first, so that a bad file fails before anything
/// is printed.
hashfight_request hashfight_request_of(const hashfight_cli_options& opts)
{
  hashfight_request request;
  request.key_bytes = opts.key_bytes;
  request.generated = std::uint64_t{1} << opts.size_log2;
  if (!opts.keys_path.empty()) {
    request.file_keys = read_whole_file("hashfight --keys", opts.keys_path, "keys");
    expect_not_empty("hashfight --keys", opts.keys_path, request.file_keys.size(), "keys");
    WARPDEX_EXPECTS(request.file_keys.size() % opts.key_bytes == 0,
                    "hashfight --keys: '" + opts.keys_path + "' holds " + std::to_string(request.file_keys.size()) +
                        " bytes, not a whole number of " + std::to_string(opts.key_bytes) + "-byte keys");
  }
  request.options.load_factor = opts.load_factor;
  request.options.leftover_limit = opts.leftover_limit;
  request.options.chunk_bytes = opts.chunk_bytes;
  request.options.bucket_bytes = opts.bucket_bytes;
  request.options.seed = opts.seed;
  request.check = opts.check;
  return request;
}

void hashfight_command(const global_options& globals, const hashfight_cli_options& opts)
{
  const backend_choice choice = selected_backend(globals);
  const std::size_t entry_bytes = 2 * std::size_t{opts.key_bytes};
  const std::uint32_t bucket_bytes = dpp::hashfight_auto_bucket_bytes(entry_bytes, opts.bucket_bytes);
  if (bucket_bytes == 0) {
    usage_error("hashfight --bucket-bytes: k" + std::to_string(opts.key_bytes * 8) + "/v" +
                std::to_string(opts.key_bytes * 8) + " takes 0 (automatic), " + std::to_string(entry_bytes) +
                " (one slot a key), 32 or 64, got " +
                std::to_string(opts.bucket_bytes));
  }
  const hashfight_request request = hashfight_request_of(opts);
  const std::string bucket = bucket_bytes == entry_bytes ? "one slot a key" : std::to_string(bucket_bytes) + "-byte buckets";
  std::printf("warpdex hashfight: k%u/v%u on backend %s, %s, load factor %.2f, %s%s, leftover limit %llu\n",
              opts.key_bytes * 8, opts.key_bytes * 8, choice == backend_choice::cuda ? "cuda" : "host",
              opts.keys_path.empty() ? ("2^" + std::to_string(opts.size_log2) + " generated keys").c_str()
                                     : ("keys of '" + opts.keys_path + "'").c_str(),
              opts.load_factor, bucket.c_str(), opts.bucket_bytes == 0 ? " (automatic)" : "",
              static_cast<unsigned long long>(opts.leftover_limit));
  hashfight_totals totals;
  const auto steps = run_hashfight_workload(choice, request, cli_timing, &totals);
  print_steps(steps);
  std::printf("map: %llu rounds, %.1f MB, %.2f bytes per pair\n", static_cast<unsigned long long>(totals.rounds),
              static_cast<double>(totals.memory_bytes) / 1e6,
              totals.keys == 0 ? 0.0 : static_cast<double>(totals.memory_bytes) / static_cast<double>(totals.keys));
}

}  // namespace

void add_dedup_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<dedup_options>();
  CLI::App* command = app.add_subcommand(
      "dedup", "Duplicate search in a file: distinct records or lines with counts, or those occurring once");
  CLI::Option* file = command->add_option(
      "FILE", opts->path, "Input file: raw fixed-size records, or text with --lines; - reads standard input");
  CLI::Option* generated =
      command
          ->add_option("--size-log2", opts->generated_log2,
                       "No file: 2^N generated uint32 keys, once-flags by both methods and counts, each checked")
          ->check(CLI::Range(1, 31))
          ->excludes(file);
  command->add_option("--dup", opts->duplicate_fraction, "With --size-log2: the fraction of keys that repeat others")
      ->check(CLI::Range(0.0, 1.0))
      ->needs(generated);
  command->add_option("--seed", opts->seed, "With --size-log2: seed of the generated keys")->needs(generated);
  CLI::Option* record = command
                            ->add_option("--record-bytes", opts->record_bytes,
                                         "Record size of a raw file: 4 or 8 (integers), 12 or 16 (tuples of "
                                         "32-bit words); little-endian")
                            ->check(whole_number_in({4, 8, 12, 16}));
  CLI::Option* lines =
      command
          ->add_flag("--lines", opts->lines,
                     "Text lines: each distinct line with its count in order of first occurrence (like sort | uniq -c, "
                     "in input order); CRLF counts as LF, a missing final newline is fine, NUL is ordinary content")
          ->excludes(record);
  CLI::Option* once = command->add_flag("--once", opts->once, "Print only the lines / records occurring exactly once");
  command
      ->add_option("--method", opts->method,
                   "Records: auto, sort or partitioned (split by leading bits, then hash tables), and with --once "
                   "hash (hash fighting)")
      ->check(CLI::IsMember({"auto", "sort", "partitioned", "hash"}))
      ->excludes(lines);
  command
      ->add_option("--output", opts->output,
                   "Write the kept records (raw) or, with --lines, the lines and counts to FILE, not standard output")
      ->type_name("FILE");
  command->add_flag("--check", opts->check, "Verify against a std oracle on the host");
  command->callback([opts, &globals] { dedup_file(globals, *opts); });
}

void add_hashfight_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<hashfight_cli_options>();
  CLI::App* command = app.add_subcommand(
      "hashfight", "Build a HashFight static hash table, find present and absent keys; throughput and memory");
  CLI::Option* size = command->add_option("--size-log2", opts->size_log2, "Generated keys, as a power of two")
                          ->check(CLI::Range(0, 31));
  command->add_option("--key-bytes", opts->key_bytes, "4 (k32/v32) or 8 (k64/v64)")->check(whole_number_in({4, 8}));
  command->add_option("--load-factor", opts->load_factor, "Sub-table slots per active key, >= 1")
      ->check(CLI::Range(1.0, 64.0));
  command
      ->add_option("--keys", opts->keys_path,
                   "Build from the raw little-endian keys of FILE (repeats allowed: the largest value wins; the "
                   "all-ones key is reserved)")
      ->type_name("FILE")
      ->excludes(size);
  command->add_option("--leftover-limit", opts->leftover_limit,
                      "Keys left active when fighting stops; they are sorted and binary-searched");
  command->add_option("--chunk-bytes", opts->chunk_bytes,
                      "Sub-tables larger than this are built and probed in several passes, one range of this many "
                      "bytes each (0: automatic, 2 GiB on cuda, none on host)");
  command
      ->add_option("--bucket-bytes", opts->bucket_bytes,
                   "Bytes of a bucket of the partitioned rounds: 0 automatic (32 for k32, one slot for k64), the "
                   "size of one entry (8 for k32, 16 for k64: one slot a key), 32 or 64 (buckets with an overflow "
                   "mask)")
      ->check(whole_number_in({0, 8, 16, 32, 64}));
  command->add_option("--seed", opts->seed, "Seed of the generated keys and of the table's hash functions");
  command->add_flag("--check", opts->check, "Verify every answer against a sorted copy of the keys (a parallel std sort)");
  command->callback([opts, &globals] { hashfight_command(globals, *opts); });
}

}  // namespace warpdex::cli
