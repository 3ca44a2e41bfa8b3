// The fixed-string matching workload of the demo tour.
#include "workloads.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/search/string_match.hpp>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string_view>

namespace warpdex::workloads {
namespace {

/// Text of lower-case words over a small alphabet (so that the pattern's prefixes recur, as in prose)
/// with the pattern planted about every 4 KiB.
std::vector<std::uint8_t> generated_text(std::uint64_t bytes, std::string_view pattern, std::uint64_t seed)
{
  constexpr std::uint64_t plant_every = 4096;
  std::vector<std::uint8_t> text(bytes);
  for (std::uint64_t i = 0; i < bytes; ++i) {
    const std::uint64_t r = fmix64(seed ^ (i * 0x9e3779b97f4a7c15ULL));
    text[i] = r % 7 == 0 ? ' ' : static_cast<std::uint8_t>('a' + (r >> 8) % 8);
  }
  for (std::uint64_t at = plant_every / 2; at + pattern.size() <= bytes; at += plant_every) {
    std::copy(pattern.begin(), pattern.end(), text.begin() + static_cast<std::ptrdiff_t>(at));
  }
  return text;
}

/// Occurrences of `pattern` in `text` with std::boyer_moore_horspool_searcher, the text cut into one
/// piece per thread (each piece searched up to its end plus m - 1 bytes, counting starts inside it).
std::uint64_t standard_count(std::span<const std::uint8_t> text, std::string_view pattern)
{
  const std::boyer_moore_horspool_searcher searcher(pattern.begin(), pattern.end());
  const auto* bytes = reinterpret_cast<const char*>(text.data());
  const std::uint64_t n = text.size();
  std::uint64_t total = 0;
#pragma omp parallel reduction(+ : total)
  {
    const auto threads = static_cast<std::uint64_t>(omp_get_num_threads());
    const auto thread = static_cast<std::uint64_t>(omp_get_thread_num());
    const std::uint64_t begin = n * thread / threads;
    const std::uint64_t end = n * (thread + 1) / threads;
    const std::uint64_t search_end = std::min(n, end + pattern.size() - 1);
    const char* at = bytes + begin;
    while (true) {
      const auto [first, last] = searcher(at, bytes + search_end);
      if (first == bytes + search_end || static_cast<std::uint64_t>(first - bytes) >= end) { break; }
      ++total;
      at = first + 1;
    }
  }
  return total;
}

template <class Backend>
std::vector<measurement> string_match_on(const Backend& backend, const string_match_request& request,
                                         const timing_options& timing)
{
  constexpr std::string_view pattern = "abcabdab";
  const std::uint64_t n = std::uint64_t{1} << request.text_log2;
  auto started = std::chrono::steady_clock::now();
  const std::vector<std::uint8_t> text = generated_text(n, pattern, request.seed);
  auto stored = make_buffer<std::uint8_t>(backend, n);
  stored.copy_from(std::span<const std::uint8_t>(text));
  backend.synchronize();
  measurement m = make_measurement("grep", "count_matches of an 8-byte pattern", Backend::name, n, "GB/s");
  m.setup_seconds = seconds_since(started);
  m.baseline = "std::boyer_moore_horspool_searcher, " + std::to_string(omp_get_max_threads()) + " host threads";
  std::uint64_t expected = 0;
  m.baseline_ms = median_ms(host{}, timing, [&] { expected = standard_count(text, pattern); });
  std::uint64_t found = 0;
  const auto text_span = std::as_const(stored).span();
  m.median_ms = median_ms(backend, timing, [&] { found = count_matches(backend, text_span, as_bytes(pattern)); });
  m.checked = true;
  m.passed = found == expected;
  m.check = std::to_string(found) + " occurrences, the baseline found " + std::to_string(expected);
  return {m};
}

}  // namespace

std::vector<measurement> measure_string_match(backend_choice backend, const string_match_request& request,
                                              const timing_options& timing)
{
  return visit_backend(backend, [&](const auto& on) { return string_match_on(on, request, timing); });
}

}  // namespace warpdex::workloads
