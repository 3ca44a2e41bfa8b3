// String matching on the host backend: the text is cut into subtexts of window ends, each scanned by one
// OpenMP iteration with the same sequential scans the GPU threads run.
#include "string_match_impl.hpp"

#include <algorithm>
#include <cstdint>
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

}  // namespace warpdex::detail

namespace warpdex {
WARPDEX_INSTANTIATE_STRING_MATCH(host)
}  // namespace warpdex
