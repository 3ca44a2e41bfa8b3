// count_lines against a std::unordered_map oracle on every backend of the build: fixed texts (CRLF, NUL,
// empty lines, no final newline, empty input), random texts from fixed and fresh seeds (all equal, all
// distinct, Zipf, lines longer than the block) at block sizes from 1 byte, a weak hash injected so that
// many distinct lines share one (the exact comparison alone keeps them apart), a source that hands out a
// few bytes at a time, and a source that fails.
#include "dpp_test_support.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/dpp/line_dedup.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

using namespace warpdex::testing;
using namespace warpdex::dpp;

template <class Backend>
class line_dedup_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(line_dedup_test, all_backends, backend_names);

/// The oracle: the text's lines (a '\r' before '\n' dropped, a last line without '\n' kept as it is)
/// with their counts, in order of first occurrence, each as (line, count).
std::vector<std::pair<std::string, std::uint64_t>> oracle_counts(std::string_view text, bool only_once,
                                                                 std::uint64_t* lines_read = nullptr)
{
  std::vector<std::pair<std::string, std::uint64_t>> distinct;
  std::unordered_map<std::string_view, std::size_t> index;
  std::uint64_t lines = 0;
  for (std::size_t start = 0; start < text.size(); ++lines) {
    std::size_t newline = text.find('\n', start);
    std::string_view line;
    if (newline == std::string_view::npos) {
      line = text.substr(start);
      newline = text.size();
    } else {
      line = text.substr(start, newline - start);
      if (!line.empty() && line.back() == '\r') { line.remove_suffix(1); }
    }
    const auto [entry, inserted] = index.try_emplace(line, distinct.size());
    if (inserted) { distinct.emplace_back(std::string(line), 0); }
    ++distinct[entry->second].second;
    start = newline + 1;
  }
  if (lines_read != nullptr) { *lines_read = lines; }
  if (!only_once) { return distinct; }
  std::vector<std::pair<std::string, std::uint64_t>> once;
  for (const auto& entry : distinct) {
    if (entry.second == 1) { once.push_back(entry); }
  }
  return once;
}

std::vector<std::pair<std::string, std::uint64_t>> as_pairs(const line_counts& counts)
{
  std::vector<std::pair<std::string, std::uint64_t>> pairs;
  for (std::size_t g = 0; g < counts.size(); ++g) { pairs.emplace_back(std::string(counts.line(g)), counts.counts[g]); }
  return pairs;
}

/// count_lines of `text` equals the oracle, with and without only_once.
template <class Backend>
void expect_counts_match(const Backend& backend, std::string_view text, line_dedup_options options)
{
  for (const bool only_once : {false, true}) {
    SCOPED_TRACE("chunk " + std::to_string(options.chunk_bytes) + (only_once ? ", once" : ""));
    options.only_once = only_once;
    std::uint64_t lines = 0;
    const auto expected = oracle_counts(text, only_once, &lines);
    const line_counts counted = count_lines(backend, text, options);
    EXPECT_EQ(counted.lines, lines);
    ASSERT_EQ(counted.offsets.size(), counted.counts.size() + 1);
    EXPECT_EQ(as_pairs(counted), expected);
  }
}

/// Random text of `lines` lines drawn from `distinct` distinct lines (uniformly, or Zipf-skewed), each of
/// up to `max_length` random bytes from `alphabet` (which may hold '\r' and NUL), some ending in CRLF.
std::string random_text(std::uint64_t lines, std::uint64_t distinct, std::size_t max_length, std::string_view alphabet,
                        bool zipf, std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  std::vector<std::string> pool(distinct);
  for (std::string& line : pool) {
    line.resize(random() % (max_length + 1));
    for (char& byte : line) { byte = alphabet[random() % alphabet.size()]; }
  }
  std::vector<std::uint32_t> picks(lines);
  if (zipf) {
    warpdex::generate_zipf_keys(warpdex::host{}, warpdex::key_set<std::uint32_t>{distinct, seed}, 1.1, seed + 1,
                                std::span<std::uint32_t>(picks));
    for (std::uint32_t& pick : picks) { pick %= static_cast<std::uint32_t>(distinct); }
  } else {
    for (std::uint32_t& pick : picks) { pick = static_cast<std::uint32_t>(random() % distinct); }
  }
  std::string text;
  for (const std::uint32_t pick : picks) {
    text += pool[pick];
    text += random() % 8 == 0 ? "\r\n" : "\n";
  }
  if (random() % 2 == 0 && !text.empty()) { text.pop_back(); }  // no final newline (or a bare '\r' at the end)
  return text;
}

TYPED_TEST(line_dedup_test, fixed_texts_at_every_small_block_size)
{
  const std::vector<std::string> texts = {
      "",
      "\n",
      "\r",
      "\r\n",
      "a",
      "a\nb\na\nb\nc",
      "alpha\r\nbeta\r\nalpha\nbeta\r\n\r\n\nx\ry\r\nlast\r",
      std::string("a\0b\na\0b\n\0\n\0\nz\0", 14),
      "\n\n\n\r\n\n",
      "same\nsame\nsame\nsame",
      "\r\r\n\r\n\r\r\r\n",
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE("text of " + std::to_string(text.size()) + " bytes");
    // Under a sanitizer every block is a dozen kernels: fewer block sizes.
    for (const std::uint64_t chunk :
         full_or_sanitizer_sized<std::vector<std::uint64_t>>({1, 2, 3, 5, 8, 64, 0}, {3, 0})) {
      line_dedup_options options;
      options.chunk_bytes = chunk;
      expect_counts_match(this->backend(), text, options);
    }
  }
}

TYPED_TEST(line_dedup_test, random_texts_all_equal_all_distinct_and_zipf)
{
  for (const std::uint64_t seed : fixed_and_fresh_seeds(case_seed(1))) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    struct shape {
      std::uint64_t lines, distinct;
      std::size_t max_length;
      bool zipf;
    };
    for (const shape& s : {shape{1500, 1, 40, false}, shape{1500, 1500, 24, false}, shape{3000, 400, 60, true},
                           shape{1000, 50, 300, false}}) {
      SCOPED_TRACE(std::to_string(s.lines) + " lines of " + std::to_string(s.distinct));
      const std::string text =
          random_text(s.lines, s.distinct, s.max_length, std::string_view("ab\r\0c\tz", 7), s.zipf, random());
      // Blocks shorter than most lines (lines cross them; not under a sanitizer), a few lines each, and
      // larger than the text.
      const std::uint64_t few_lines = 97 + random() % 400;
      for (const std::uint64_t chunk : full_or_sanitizer_sized<std::vector<std::uint64_t>>(
               {13, few_lines, std::uint64_t{1} << 20}, {few_lines, std::uint64_t{1} << 20})) {
        line_dedup_options options;
        options.chunk_bytes = chunk;
        expect_counts_match(this->backend(), text, options);
      }
    }
  }
}

TYPED_TEST(line_dedup_test, blocks_grouped_by_several_threads)
{
  // Blocks of 256 KiB: past the size the host groups on all of its threads, several per text.
  const std::uint64_t seed = fixed_and_fresh_seeds(case_seed(2)).back();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::string text = random_text(60000, 2000, 40, "abcdefgh", true, seed);
  line_dedup_options options;
  options.chunk_bytes = 1 << 18;
  expect_counts_match(this->backend(), text, options);
}

TYPED_TEST(line_dedup_test, a_weak_hash_leaves_the_counts_exact)
{
  // With 0 or 2 bits of hash, hundreds of distinct lines share each hash: only the byte-by-byte
  // comparisons tell them apart, in the blocks and in the table of distinct lines.
  for (const std::uint64_t seed : fixed_and_fresh_seeds(case_seed(3))) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string text = random_text(5000, 600, 12, "xyz\r", true, seed);
    for (const std::uint64_t mask : {std::uint64_t{0}, std::uint64_t{3}}) {
      for (const std::uint64_t chunk : full_or_sanitizer_sized<std::vector<std::uint64_t>>({13, 4096, 0}, {4096, 0})) {
        SCOPED_TRACE("hash mask " + std::to_string(mask));
        line_dedup_options options;
        options.chunk_bytes = chunk;
        options.hash_mask = mask;
        expect_counts_match(this->backend(), text, options);
        EXPECT_GT(count_lines(this->backend(), text, options).shared_hash_lines, 100U);
      }
    }
  }
}

TYPED_TEST(line_dedup_test, a_source_giving_few_bytes_at_a_time)
{
  const std::string text = random_text(4000, 300, 30, "pq\r\n", false, case_seed(4));
  std::size_t offset = 0;
  const line_source trickle = [&](std::span<char> destination) {
    const std::size_t taken = std::min<std::size_t>({destination.size(), text.size() - offset, 3});
    std::copy_n(text.data() + offset, taken, destination.data());
    offset += taken;
    return taken;
  };
  line_dedup_options options;
  options.chunk_bytes = 1000;
  EXPECT_EQ(as_pairs(count_lines(this->backend(), trickle, options)), oracle_counts(text, false));
}

TYPED_TEST(line_dedup_test, a_failing_source_and_a_block_too_large_are_errors)
{
  std::size_t calls = 0;
  const line_source failing = [&](std::span<char> destination) -> std::size_t {
    if (++calls == 3) { throw warpdex::error("disk on fire"); }
    std::fill(destination.begin(), destination.end(), 'a');
    destination.back() = '\n';
    return destination.size();
  };
  line_dedup_options options;
  options.chunk_bytes = 64;
  expect_error_mentioning<warpdex::error>([&] { (void)count_lines(this->backend(), failing, options); },
                                          {"disk on fire"});
  options.chunk_bytes = max_line_chunk_bytes + 1;
  expect_error_mentioning<warpdex::error>([&] { (void)count_lines(this->backend(), std::string_view("a\n"), options); },
                                          {"chunk of 2147483649 bytes"});
}

}  // namespace
