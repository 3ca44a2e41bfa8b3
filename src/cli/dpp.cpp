// `warpdex dedup` and `warpdex hashfight`: the dpp family's duplicate search and HashFight table on a
// file or on generated data, timed, with an oracle check on request (--check).
//
// dedup --lines counts text lines with dpp::count_lines (include/warpdex/dpp/line_dedup.hpp: what a line
// is, the streaming, the exact grouping) and prints them; WARPDEX_DEDUP_CHUNK_BYTES sets its block size.
#include "commands.hpp"
#include "dpp_workloads.hpp"
#include "hash_baseline.hpp"
#include "input.hpp"
#include "workloads.hpp"
#include "progress.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>
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
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <parallel/algorithm>
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

/// The oracle of the generated workloads' checks: the distinct keys in ascending order, each with its
/// copies' values folded by `fold` (commutative and associative), from a parallel sort of the (key,
/// value) pairs on the host's threads; lookups are read-only, so the checks run on every thread too.
template <class Key, class Value>
class sorted_oracle {
 public:
  template <class Fold>
  sorted_oracle(std::span<const Key> keys, std::span<const Value> values, Fold fold)
  {
    std::vector<std::pair<Key, Value>> pairs(keys.size());
    const auto n = static_cast<std::int64_t>(keys.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) { pairs[static_cast<std::size_t>(i)] = {keys[i], values[i]}; }
    __gnu_parallel::sort(pairs.begin(), pairs.end());
    for (const auto& [key, value] : pairs) {
      if (!keys_.empty() && keys_.back() == key) {
        values_.back() = fold(values_.back(), value);
      } else {
        keys_.push_back(key);
        values_.push_back(value);
      }
    }
  }

  /// The folded value of `key`, or nullptr when it is not a key.
  [[nodiscard]] const Value* find(Key key) const
  {
    const auto at = std::lower_bound(keys_.begin(), keys_.end(), key);
    return at != keys_.end() && *at == key ? &values_[static_cast<std::size_t>(at - keys_.begin())] : nullptr;
  }
  [[nodiscard]] const std::vector<Key>& keys() const { return keys_; }
  [[nodiscard]] const std::vector<Value>& values() const { return values_; }
  [[nodiscard]] std::uint64_t size() const { return keys_.size(); }

 private:
  std::vector<Key> keys_;
  std::vector<Value> values_;
};

std::vector<char> read_whole_file(const std::string& command, const std::string& path, const std::string& what)
{
  if (path == "-") {  // standard input, as grep and sort read it
    std::vector<char> bytes;
    char block[1 << 16];
    for (std::size_t got; (got = std::fread(block, 1, sizeof block, stdin)) > 0;) {
      bytes.insert(bytes.end(), block, block + got);
    }
    WARPDEX_EXPECTS(!std::ferror(stdin), command + ": cannot read standard input: " + std::strerror(errno));
    return bytes;
  }
  (void)input_file_status(command, path, what);  // a directory would open and fail in the middle of the read
  std::ifstream file(path, std::ios::binary);
  WARPDEX_EXPECTS(file.good(), command + ": cannot open '" + path + "'");
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// ---- generated workloads (shared with the demo tour) ----

template <class Backend>
std::vector<dpp_step> dedup_workload(const Backend& backend, std::uint64_t n, double duplicate_fraction,
                                     std::uint64_t seed, const timing_options& timing)
{
  auto keys = make_buffer<std::uint32_t>(backend, n);
  generate_keys_with_duplicates(backend, keys.span(), duplicate_fraction, seed);
  const std::vector<std::uint32_t> host_keys = keys.to_vector();
  const sorted_oracle<std::uint32_t, std::uint64_t> oracle(std::span<const std::uint32_t>(host_keys),
                                                           std::vector<std::uint64_t>(n, 1), std::plus<>{});
  const std::span<const std::uint32_t> in(keys.data(), n);
  // The baseline: sorting the keys, the first half of sort + run-length encode (so a lower bound of it).
  auto sorted = make_buffer<std::uint32_t>(backend, n);
  baselines::scratch temp;
  const double sort_seconds =
      median_ms(backend, timing, [&] { baselines::sort_by_bits(backend, in, sorted.span(), {}, {}, 0, 32, temp); }) /
      1e3;
  const std::string sort_name =
      baselines::sort_by_bits_name(choice_of<Backend>(), false, 0, 32) + " alone (a lower bound of sort + unique)";

  std::vector<dpp_step> steps;
  for (const auto method : {dpp::duplicate_method::hash_fight, dpp::duplicate_method::sort}) {
    progress shown("dedup: once-flags by " + std::string(dpp::duplicate_method_name(method)));
    dpp_step step{"dedup once (" + std::string(dpp::duplicate_method_name(method)) + ")"};
    auto once = make_buffer<std::uint8_t>(backend, n);
    step.seconds = median_ms(backend, timing, [&] { dpp::find_once(backend, in, once.span(), method); }) / 1e3;
    step.baseline = sort_name;
    step.baseline_seconds = sort_seconds;
    step.elements = n;
    const std::vector<std::uint8_t> flags = once.to_vector();
    std::uint64_t wrong = 0;
    std::uint64_t singles = 0;
#pragma omp parallel for schedule(static) reduction(+ : wrong, singles)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
      const bool expected = *oracle.find(host_keys[static_cast<std::size_t>(i)]) == 1;
      wrong += (flags[static_cast<std::size_t>(i)] != 0) != expected ? 1 : 0;
      singles += expected ? 1 : 0;
    }
    step.check = std::to_string(singles) + " of " + std::to_string(n) + " once, " + std::to_string(wrong) + " wrong";
    step.passed = wrong == 0;
    steps.push_back(step);
  }
  {
    progress shown("dedup: counts");
    dpp_step step{"dedup counts (sort)"};
    dpp::element_counts<std::uint32_t> counted;
    step.seconds = median_ms(backend, timing, [&] { counted = dpp::count_elements(backend, in); }) / 1e3;
    step.baseline = sort_name;
    step.baseline_seconds = sort_seconds;
    const auto elements = counted.elements.to_vector();
    const auto counts = counted.counts.to_vector();
    const std::uint64_t distinct = elements.size();
    // Ascending distinct elements with their counts: the oracle's own arrays.
    std::uint64_t wrong = distinct > oracle.size() ? distinct - oracle.size() : oracle.size() - distinct;
    for (std::size_t i = 0; i < std::min<std::size_t>(distinct, oracle.size()); ++i) {
      wrong += elements[i] != oracle.keys()[i] || counts[i] != oracle.values()[i] ? 1 : 0;
    }
    step.elements = n;
    step.check = std::to_string(distinct) + " distinct, " + std::to_string(wrong) + " wrong";
    step.passed = wrong == 0;
    steps.push_back(step);
  }
  return steps;
}

/// A value for key k that is never the reserved miss value.
template <class Key>
Key value_of(Key key)
{
  return static_cast<Key>(fmix64(key) % static_cast<std::uint64_t>(dpp::hashfight_map<Key, Key, host>::miss_value));
}

template <class Key, class Backend>
std::vector<dpp_step> hashfight_workload(const Backend& backend, std::span<const Key> host_keys,
                                         const key_set<Key>* generated_from, dpp::hashfight_options options, bool check,
                                         std::uint64_t* memory_bytes, std::uint64_t* rounds,
                                         const timing_options& timing)
{
  using map_type = dpp::hashfight_map<Key, Key, Backend>;
  const std::uint64_t n = host_keys.size();
  std::vector<Key> host_values(n);
  for (std::uint64_t i = 0; i < n; ++i) { host_values[i] = value_of(host_keys[i]); }
  // A key given several times keeps its largest value (hashfight_map.hpp).
  const auto oracle = check ? sorted_oracle<Key, Key>(host_keys, std::span<const Key>(host_values),
                                                       [](Key a, Key b) { return std::max(a, b); })
                            : sorted_oracle<Key, Key>({}, {}, [](Key a, Key) { return a; });
  const auto keys = to_backend<Key>(backend, host_keys);
  const auto values = to_backend<Key>(backend, host_values);
  const std::uint64_t seed = options.seed;
  std::vector<dpp_step> steps;
  std::unique_ptr<map_type> map;
  {
    progress shown("hashfight: build");
    dpp_step step{"build"};
    step.seconds = median_ms(
                       backend, timing,
                       [&] {
                         map = std::make_unique<map_type>(backend, std::span<const Key>(keys.data(), n),
                                                          std::span<const Key>(values.data(), n), options);
                       },
                       [&] { map.reset(); }) /
                   1e3;
    step.elements = n;
    step.passed = !check || map->size() == oracle.size();
    step.check = check ? std::to_string(map->size()) + " keys stored, " + std::to_string(oracle.size()) + " distinct"
                       : "not checked";
    steps.push_back(step);
  }
  if (memory_bytes != nullptr) { *memory_bytes = map->memory_bytes(); }
  if (rounds != nullptr) { *rounds = map->rounds(); }
  // The baseline table of the hash family (32-bit keys and values only): build, then the same finds.
  std::optional<decltype(make_hash_baseline(backend, n))> baseline;
  auto baseline_statuses = make_buffer<hash::operation_status>(backend, std::is_same_v<Key, std::uint32_t> ? n : 0);
  auto baseline_values = make_buffer<std::uint32_t>(backend, std::is_same_v<Key, std::uint32_t> ? n : 0);
  if constexpr (std::is_same_v<Key, std::uint32_t>) {
    baseline.emplace(n);
    steps.back().baseline = std::remove_cvref_t<decltype(*baseline)>::name();
    steps.back().baseline_seconds =
        median_ms(
            backend, timing,
            [&] {
              baseline->apply(backend, {}, hash::operation::insert, std::span<const Key>(keys.data(), n),
                              std::span<const Key>(values.data(), n), {}, baseline_statuses.span());
            },
            [&] { baseline->clear(); }) /
        1e3;
  }
  // Queries: built keys drawn at random (present), and keys outside the built set (absent: guaranteed
  // for generated keys; for a file's keys, keys of another keyed permutation, mostly absent).
  for (const bool present : {true, false}) {
    const std::string what = present ? "find present" : "find absent";
    progress shown("hashfight: " + what);
    std::vector<Key> queries(n);
    if (present) {
      for (std::uint64_t i = 0; i < n; ++i) { queries[i] = host_keys[fmix64(i ^ seed) % n]; }
    } else if (generated_from != nullptr) {
      generate_queries(host{}, *generated_from, 1.0, seed + 1, std::span<Key>(queries));
    } else {
      generate_keys(host{}, key_set<Key>{n, seed ^ 0xab5e47ULL, key_order::shuffled, static_cast<Key>(~Key{0} - 1)},
                    std::span<Key>(queries));
    }
    const auto query_buffer = to_backend<Key>(backend, queries);
    auto found = make_buffer<Key>(backend, n);
    dpp_step step{what};
    step.seconds =
        median_ms(backend, timing, [&] { map->find(std::span<const Key>(query_buffer.data(), n), found.span()); }) /
        1e3;
    step.elements = n;
    if constexpr (std::is_same_v<Key, std::uint32_t>) {
      step.baseline = std::remove_cvref_t<decltype(*baseline)>::name();
      step.baseline_seconds =
          median_ms(backend, timing,
                    [&] {
                      baseline->apply(backend, {}, hash::operation::find, std::span<const Key>(query_buffer.data(), n),
                                      {}, baseline_values.span(), baseline_statuses.span());
                    }) /
          1e3;
    }
    if (check) {
      const std::vector<Key> answers = found.to_vector();
      std::uint64_t wrong = 0;
      std::uint64_t hits = 0;
#pragma omp parallel for schedule(static) reduction(+ : wrong, hits)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
        const Key* entry = oracle.find(queries[static_cast<std::size_t>(i)]);
        const Key expected = entry == nullptr ? map_type::miss_value : *entry;
        wrong += answers[static_cast<std::size_t>(i)] != expected ? 1 : 0;
        hits += entry != nullptr ? 1 : 0;
      }
      step.check = std::to_string(hits) + " of " + std::to_string(n) + " present, " + std::to_string(wrong) + " wrong";
      step.passed = wrong == 0;
    } else {
      step.check = "not checked";
      step.passed = true;
    }
    steps.push_back(step);
  }
  return steps;
}

/// The distinct keys the generated workloads build from (the reserved all-ones key excluded).
template <class Key>
key_set<Key> generated_key_set(std::uint64_t n, std::uint64_t seed)
{
  return key_set<Key>{n, seed, key_order::shuffled, static_cast<Key>(~Key{0} - 1)};
}

template <class Key>
std::vector<Key> generated_keys(const key_set<Key>& set)
{
  std::vector<Key> keys(set.size);
  generate_keys(host{}, set, std::span<Key>(keys));
  return keys;
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
  std::fwrite(line.data(), 1, line.size(), out);
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
void dedup_records(const Backend& backend, const dedup_options& opts, const std::vector<char>& bytes)
{
  const std::uint64_t n = bytes.size() / sizeof(Element);
  std::vector<Element> records(n);
  if (n != 0) { std::memcpy(records.data(), bytes.data(), n * sizeof(Element)); }
  const auto input = to_backend<Element>(backend, records);
  const std::span<const Element> in(input.data(), n);
  const dpp::duplicate_method method = dpp::parse_duplicate_method(opts.method);
  buffer<Element> result;
  double seconds = 0;
  {
    progress shown(opts.once ? "dedup: records occurring once" : "dedup: distinct records");
    seconds = timed(backend, [&] {
      result = opts.once ? dpp::elements_occurring_once(backend, in, method)
                         : dpp::unique_elements(backend, in, dpp::element_order::first_occurrence);
    });
  }
  const std::vector<Element> kept = result.to_vector();
  std::printf(
      "%llu records of %u bytes, %llu %s, %.2f ms (%s)\n", static_cast<unsigned long long>(n), opts.record_bytes,
      static_cast<unsigned long long>(kept.size()), opts.once ? "occurring once" : "distinct", seconds * 1e3,
      opts.once ? std::string(dpp::duplicate_method_name(dpp::resolve_method<Element>(method))).c_str() : "sort");
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
  const std::vector<char> bytes = read_whole_file("dedup", opts.path, "records");
  WARPDEX_EXPECTS(bytes.size() % opts.record_bytes == 0,
                  "dedup: '" + opts.path + "' holds " + std::to_string(bytes.size()) +
                      " bytes, not a whole number of " + std::to_string(opts.record_bytes) + "-byte records (" +
                      std::to_string(bytes.size() % opts.record_bytes) + " bytes left over)");
  visit_backend(choice, [&](const auto& backend) {
    switch (opts.record_bytes) {
      case 4:
        dedup_records<std::uint32_t>(backend, opts, bytes);
        break;
      case 8:
        dedup_records<std::uint64_t>(backend, opts, bytes);
        break;
      case 12:
        dedup_records<uint32x3>(backend, opts, bytes);
        break;
      default:
        dedup_records<uint32x4>(backend, opts, bytes);
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
  std::string keys_path;
  std::uint64_t seed = 1;
  bool check = false;
};

template <class Key>
std::vector<Key> read_keys(const std::string& path)
{
  const std::vector<char> bytes = read_whole_file("hashfight --keys", path, "keys");
  expect_not_empty("hashfight --keys", path, bytes.size(), "keys");
  WARPDEX_EXPECTS(bytes.size() % sizeof(Key) == 0, "hashfight --keys: '" + path + "' holds " +
                                                       std::to_string(bytes.size()) + " bytes, not a whole number of " +
                                                       std::to_string(sizeof(Key)) + "-byte keys");
  std::vector<Key> keys(bytes.size() / sizeof(Key));
  if (!keys.empty()) { std::memcpy(keys.data(), bytes.data(), bytes.size()); }
  return keys;
}

template <class Key>
void hashfight_run(backend_choice choice, const hashfight_cli_options& opts)
{
  const auto set = generated_key_set<Key>(std::uint64_t{1} << opts.size_log2, opts.seed);
  const std::vector<Key> keys = opts.keys_path.empty() ? generated_keys(set) : read_keys<Key>(opts.keys_path);
  std::uint64_t memory = 0;
  std::uint64_t rounds = 0;
  const auto steps = visit_backend(choice, [&](const auto& backend) {
    dpp::hashfight_options options;
    options.load_factor = opts.load_factor;
    options.leftover_limit = opts.leftover_limit;
    options.chunk_bytes = opts.chunk_bytes;
    options.seed = opts.seed;
    return hashfight_workload<Key>(backend, std::span<const Key>(keys), opts.keys_path.empty() ? &set : nullptr,
                                   options, opts.check, &memory, &rounds, cli_timing);
  });
  print_steps(steps);
  std::printf("map: %llu rounds, %.1f MB, %.2f bytes per pair\n", static_cast<unsigned long long>(rounds),
              static_cast<double>(memory) / 1e6,
              keys.empty() ? 0.0 : static_cast<double>(memory) / static_cast<double>(keys.size()));
}

void hashfight_command(const global_options& globals, const hashfight_cli_options& opts)
{
  const backend_choice choice = selected_backend(globals);
  std::printf("warpdex hashfight: k%u/v%u on backend %s, %s, load factor %.2f, leftover limit %llu\n",
              opts.key_bytes * 8, opts.key_bytes * 8, choice == backend_choice::cuda ? "cuda" : "host",
              opts.keys_path.empty() ? ("2^" + std::to_string(opts.size_log2) + " generated keys").c_str()
                                     : ("keys of '" + opts.keys_path + "'").c_str(),
              opts.load_factor, static_cast<unsigned long long>(opts.leftover_limit));
  if (opts.key_bytes == 4) {
    hashfight_run<std::uint32_t>(choice, opts);
  } else {
    hashfight_run<std::uint64_t>(choice, opts);
  }
}

}  // namespace

std::vector<dpp_step> run_dedup_workload(backend_choice resolved, std::uint64_t n, double duplicate_fraction,
                                         std::uint64_t seed, const timing_options& timing)
{
  return visit_backend(
      resolved, [&](const auto& backend) { return dedup_workload(backend, n, duplicate_fraction, seed, timing); });
}

std::vector<measurement> as_measurements(const std::vector<dpp_step>& steps, const std::string& prefix,
                                         backend_choice resolved)
{
  std::vector<measurement> rows;
  for (const dpp_step& step : steps) {
    measurement m = make_measurement("dpp", prefix + step.what, resolved == backend_choice::cuda ? "cuda" : "host",
                                     step.elements, "Gelements/s");
    m.median_ms = step.seconds * 1e3;
    m.baseline = step.baseline;
    m.baseline_ms = step.baseline_seconds * 1e3;
    m.checked = step.check != "not checked";
    m.passed = step.passed;
    m.check = step.check;
    rows.push_back(std::move(m));
  }
  return rows;
}

std::vector<dpp_step> run_hashfight_workload(backend_choice resolved, std::uint64_t n, unsigned key_bytes,
                                             double load_factor, std::uint64_t seed, std::uint64_t* memory_bytes,
                                             const timing_options& timing)
{
  dpp::hashfight_options options;
  options.load_factor = load_factor;
  options.seed = seed;
  return visit_backend(resolved, [&](const auto& backend) {
    if (key_bytes == 8) {
      const auto set = generated_key_set<std::uint64_t>(n, seed);
      const auto keys = generated_keys(set);
      return hashfight_workload<std::uint64_t>(backend, std::span<const std::uint64_t>(keys), &set, options, true,
                                               memory_bytes, nullptr, timing);
    }
    const auto set = generated_key_set<std::uint32_t>(n, seed);
    const auto keys = generated_keys(set);
    return hashfight_workload<std::uint32_t>(backend, std::span<const std::uint32_t>(keys), &set, options, true,
                                             memory_bytes, nullptr, timing);
  });
}

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
                            ->check(CLI::IsMember({4, 8, 12, 16}));
  CLI::Option* lines =
      command
          ->add_flag("--lines", opts->lines,
                     "Text lines: each distinct line with its count in order of first occurrence (like sort | uniq -c, "
                     "in input order); CRLF counts as LF, a missing final newline is fine, NUL is ordinary content")
          ->excludes(record);
  CLI::Option* once = command->add_flag("--once", opts->once, "Print only the lines / records occurring exactly once");
  command->add_option("--method", opts->method, "Records with --once: auto, sort or hash (hash fighting)")
      ->check(CLI::IsMember({"auto", "sort", "hash"}))
      ->needs(once)
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
  command->add_option("--key-bytes", opts->key_bytes, "4 (k32/v32) or 8 (k64/v64)")->check(CLI::IsMember({4, 8}));
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
  command->add_option("--seed", opts->seed, "Seed of the generated keys and of the table's hash functions");
  command->add_flag("--check", opts->check, "Verify every answer against a sorted copy of the keys (a parallel std sort)");
  command->callback([opts, &globals] { hashfight_command(globals, *opts); });
}

}  // namespace warpdex::cli
