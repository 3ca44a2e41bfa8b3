// String matching on the host backend: the text is cut into subtexts of window ends, each scanned by one
// OpenMP iteration with the same sequential scans the GPU threads run; with Hyperscan, the automatic
// algorithm and the several-pattern count scan one piece of the text per thread with Hyperscan instead.
#include "literal_engine.hpp"
#include "string_match_impl.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>
#include <vector>

namespace warpdex::detail {
namespace {

/// Window ends per host subtext: large enough to amortize a DRK thread's first full-pattern hash.
constexpr std::uint64_t host_subtext_bytes = std::uint64_t{1} << 16;

/// Runs `sink_for(subtext)`'s scan over each subtext: sink_for returns the sink of that subtext.
template <class SinkFor>
void scan_subtexts(const match_problem& problem, match_algorithm algorithm, std::int64_t subtexts, SinkFor&& sink_for)
{
  const prefix_fingerprint prefix = make_prefix_fingerprint(problem.pattern, problem.pattern_size);
  const rabin_karp_constants constants = make_rabin_karp_constants(problem.pattern, problem.pattern_size);
#pragma omp parallel for schedule(dynamic) if (subtexts > 1)
  for (std::int64_t subtext = 0; subtext < subtexts; ++subtext) {
    const std::uint64_t end_begin = static_cast<std::uint64_t>(subtext) * host_subtext_bytes;
    const std::uint64_t end_end = end_begin + host_subtext_bytes;
    auto sink = sink_for(subtext);
    if (algorithm == match_algorithm::drk) {
      scan_rabin_karp(problem, constants, end_begin, end_end, sink);
    } else {
      scan_prefix_bytes(problem, prefix, end_begin, end_end, sink);
    }
  }
}

std::int64_t subtext_count(const match_problem& problem)
{
  return static_cast<std::int64_t>((problem.text_size + host_subtext_bytes - 1) / host_subtext_bytes);
}

}  // namespace

template <>
struct match_backend<host> {
  static std::uint64_t count(const host&, const match_problem& problem, match_algorithm algorithm)
  {
    std::vector<std::uint64_t> counts(subtext_count(problem), 0);
    scan_subtexts(problem, algorithm, subtext_count(problem),
                  [&](std::int64_t subtext) { return [&counts, subtext](std::uint64_t) { ++counts[subtext]; }; });
    std::uint64_t total = 0;
    for (const std::uint64_t c : counts) { total += c; }
    return total;
  }

  static buffer<std::uint64_t> find(const host& backend, const match_problem& problem, match_algorithm algorithm)
  {
    const std::int64_t subtexts = subtext_count(problem);
    std::vector<std::uint64_t> offsets(subtexts + 1, 0);
    scan_subtexts(problem, algorithm, subtexts,
                  [&](std::int64_t subtext) { return [&offsets, subtext](std::uint64_t) { ++offsets[subtext + 1]; }; });
    for (std::int64_t i = 0; i < subtexts; ++i) { offsets[i + 1] += offsets[i]; }
    auto positions = make_buffer<std::uint64_t>(backend, offsets[subtexts]);
    std::uint64_t* out = positions.data();
    scan_subtexts(problem, algorithm, subtexts, [&](std::int64_t subtext) {
      return [out, next = offsets[subtext]](std::uint64_t start) mutable { out[next++] = start; };
    });
    return positions;
  }
};

template <>
struct multi_match_backend<host> {
  static std::vector<std::uint64_t> count(const host&, std::span<const std::uint8_t> text,
                                          const multi_match_patterns& patterns)
  {
    const multi_match_problem problem = patterns.problem(text, patterns.bytes.data(), patterns.offsets.data(),
                                                         patterns.original.data(), patterns.table.data());
    const std::size_t pattern_count = patterns.original.size();
    const auto subtexts = static_cast<std::int64_t>((text.size() + host_subtext_bytes - 1) / host_subtext_bytes);
    std::vector<std::uint64_t> counts(pattern_count, 0);
#pragma omp parallel if (subtexts > 1)
    {
      std::vector<std::uint64_t> own(pattern_count, 0);
#pragma omp for schedule(dynamic)
      for (std::int64_t subtext = 0; subtext < subtexts; ++subtext) {
        const std::uint64_t end_begin = static_cast<std::uint64_t>(subtext) * host_subtext_bytes;
        scan_multi_match(problem, end_begin, end_begin + host_subtext_bytes, [&own](std::uint32_t i) { ++own[i]; });
      }
#pragma omp critical
      for (std::size_t i = 0; i < pattern_count; ++i) { counts[i] += own[i]; }
    }
    return counts;
  }
};

#if WARPDEX_HAS_HYPERSCAN
namespace {

/// The least text one thread scans with the literal engine: smaller pieces spend more on starting threads.
constexpr std::uint64_t engine_piece_bytes = std::uint64_t{1} << 20;

/// Runs on_match(piece, id, start) for every occurrence of the engine's patterns (every group of them) in
/// text[0, n), the text cut into pieces scanned in parallel (each also scans the longest pattern's length
/// - 1 bytes past its end and reports the occurrences that start in it). `pieces` is what `engine_pieces` gave.
template <class OnMatch>
void scan_pieces(const hyperscan_literals& engine, const std::uint8_t* text, std::uint64_t n, std::int64_t pieces,
                 OnMatch&& on_match)
{
  std::exception_ptr error;
  const auto threads = static_cast<int>(std::min<std::int64_t>(pieces, omp_get_max_threads()));
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (pieces > 1)
  for (std::int64_t piece = 0; piece < pieces; ++piece) {
    const std::uint64_t begin = n * piece / pieces;
    const std::uint64_t end = n * (piece + 1) / pieces;
    const std::uint64_t scanned_end = std::min(n, end + engine.longest() - 1);
    auto report = [&](std::uint32_t id, std::uint64_t stop) {
      const std::uint64_t start = begin + stop - engine.length(id);
      if (start < end) { on_match(piece, id, start); }
      return true;
    };
    try {
      for (std::size_t group = 0; group < engine.group_count(); ++group) {
        engine.scan(group, text + begin, scanned_end - begin, omp_get_thread_num(), report);
      }
    } catch (...) {
#pragma omp critical(warpdex_string_match_scan_error)
      error = std::current_exception();
    }
  }
  if (error) { std::rethrow_exception(error); }
}

/// Pieces for `scan_pieces`: one per thread, none shorter than `engine_piece_bytes` (but at least one),
/// none longer than one scan takes.
std::int64_t engine_pieces(std::uint64_t n, std::uint64_t longest)
{
  const auto threads = static_cast<std::uint64_t>(std::max(omp_get_max_threads(), 1));
  const std::uint64_t longest_piece = hyperscan_scan_bytes_max - longest;
  return static_cast<std::int64_t>(
      std::max({std::uint64_t{1}, std::min(threads, n / engine_piece_bytes), (n + longest_piece - 1) / longest_piece}));
}

}  // namespace

std::optional<std::uint64_t> host_engine_count(const match_problem& problem)
{
  const std::string_view pattern(reinterpret_cast<const char*>(problem.pattern), problem.pattern_size);
  const std::int64_t pieces = engine_pieces(problem.text_size, problem.pattern_size);
  const hyperscan_literals engine(std::span<const std::string_view>(&pattern, 1), false,
                                  static_cast<int>(std::min<std::int64_t>(pieces, omp_get_max_threads())));
  std::vector<std::uint64_t> counts(pieces, 0);
  scan_pieces(engine, problem.text, problem.text_size, pieces,
              [&](std::int64_t piece, std::uint32_t, std::uint64_t) { ++counts[piece]; });
  std::uint64_t total = 0;
  for (const std::uint64_t count : counts) { total += count; }
  return total;
}

std::optional<buffer<std::uint64_t>> host_engine_find(const host& backend, const match_problem& problem)
{
  const std::string_view pattern(reinterpret_cast<const char*>(problem.pattern), problem.pattern_size);
  const std::int64_t pieces = engine_pieces(problem.text_size, problem.pattern_size);
  const hyperscan_literals engine(std::span<const std::string_view>(&pattern, 1), false,
                                  static_cast<int>(std::min<std::int64_t>(pieces, omp_get_max_threads())));
  // One pattern: its occurrences are reported in ascending order of their ends, so of their starts.
  std::vector<std::vector<std::uint64_t>> found(pieces);
  scan_pieces(engine, problem.text, problem.text_size, pieces,
              [&](std::int64_t piece, std::uint32_t, std::uint64_t start) { found[piece].push_back(start); });
  std::uint64_t total = 0;
  for (const auto& piece : found) { total += piece.size(); }
  auto positions = make_buffer<std::uint64_t>(backend, total);
  std::uint64_t* out = positions.data();
  for (const auto& piece : found) { out = std::copy(piece.begin(), piece.end(), out); }
  return positions;
}

std::optional<std::vector<std::uint64_t>> host_engine_count_each(
    std::span<const std::uint8_t> text, std::span<const std::span<const std::uint8_t>> patterns)
{
  // Patterns longer than the text occur nowhere: they are left out of the database (Hyperscan refuses
  // literals past its length limit), their counts stay 0.
  std::vector<std::string_view> views;
  std::vector<std::uint32_t> caller_index;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    if (patterns[i].size() > text.size()) { continue; }
    views.emplace_back(reinterpret_cast<const char*>(patterns[i].data()), patterns[i].size());
    caller_index.push_back(static_cast<std::uint32_t>(i));
  }
  if (views.empty()) { return std::vector<std::uint64_t>(patterns.size(), 0); }
  std::uint64_t longest = 0;
  for (const std::string_view view : views) { longest = std::max<std::uint64_t>(longest, view.size()); }
  const std::int64_t pieces = engine_pieces(text.size(), longest);
  const hyperscan_literals engine(views, false,
                                  static_cast<int>(std::min<std::int64_t>(pieces, omp_get_max_threads())));
  std::vector<std::vector<std::uint64_t>> counts(pieces, std::vector<std::uint64_t>(views.size(), 0));
  scan_pieces(engine, text.data(), text.size(), pieces,
              [&](std::int64_t piece, std::uint32_t id, std::uint64_t) { ++counts[piece][id]; });
  std::vector<std::uint64_t> total(patterns.size(), 0);
  for (std::int64_t piece = 0; piece < pieces; ++piece) {
    for (std::size_t i = 0; i < views.size(); ++i) { total[caller_index[i]] += counts[piece][i]; }
  }
  return total;
}
#else
std::optional<std::uint64_t> host_engine_count(const match_problem&)
{
  return std::nullopt;
}

std::optional<buffer<std::uint64_t>> host_engine_find(const host&, const match_problem&)
{
  return std::nullopt;
}

std::optional<std::vector<std::uint64_t>> host_engine_count_each(std::span<const std::uint8_t>,
                                                                 std::span<const std::span<const std::uint8_t>>)
{
  return std::nullopt;
}
#endif

}  // namespace warpdex::detail

namespace warpdex {
WARPDEX_INSTANTIATE_STRING_MATCH(host)
}  // namespace warpdex
