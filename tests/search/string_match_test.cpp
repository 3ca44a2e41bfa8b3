// String matching against a naive matcher on every backend and algorithm: random bytes, a binary
// alphabet, DNA, natural-language-like text; pattern lengths 1..4096; occurrences at the edges of the
// text, of threads' subtexts and of misaligned text starts; bad input.
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/search/string_match.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace warpdex::testing {
namespace {

using bytes = std::vector<std::uint8_t>;
constexpr match_algorithm every_algorithm[] = {match_algorithm::automatic, match_algorithm::drk, match_algorithm::wom,
                                               match_algorithm::two_stage};

std::uint64_t fresh_seed()
{
  static std::random_device device;
  return (std::uint64_t{device()} << 32) | device();
}

std::vector<std::uint64_t> naive_matches(const bytes& text, const bytes& pattern)
{
  std::vector<std::uint64_t> positions;
  if (pattern.size() > text.size()) { return positions; }
  for (std::uint64_t p = 0; p + pattern.size() <= text.size(); ++p) {
    if (std::memcmp(text.data() + p, pattern.data(), pattern.size()) == 0) { positions.push_back(p); }
  }
  return positions;
}

enum class alphabet { random_bytes, binary, dna, words };

bytes make_text(alphabet kind, std::uint64_t size, std::mt19937_64& random)
{
  static const char* const words[] = {"the", "of", "and", "warp", "search", "a", "in", "is", "that", "thread"};
  static const char dna[] = "ACGT";
  bytes text;
  text.reserve(size + 16);
  while (text.size() < size) {
    switch (kind) {
      case alphabet::random_bytes:
        text.push_back(static_cast<std::uint8_t>(random()));
        break;
      case alphabet::binary:
        text.push_back(static_cast<std::uint8_t>('0' + random() % 2));
        break;
      case alphabet::dna:
        text.push_back(static_cast<std::uint8_t>(dna[random() % 4]));
        break;
      case alphabet::words: {
        const std::string word = words[random() % 10];
        text.insert(text.end(), word.begin(), word.end());
        text.push_back(random() % 8 == 0 ? '\n' : ' ');
        break;
      }
    }
  }
  text.resize(size);
  return text;
}

/// A pattern's first 8 bytes as one word (as the test's window table keys them).
std::uint64_t window_of(const bytes& pattern)
{
  std::uint64_t value = 0;
  std::memcpy(&value, pattern.data(), 8);
  return value;
}

/// A pattern of length m: a piece of the text (so it occurs), sometimes with its last byte changed.
bytes make_pattern(const bytes& text, std::uint64_t m, std::mt19937_64& random)
{
  const std::uint64_t from = random() % (text.size() - m + 1);
  bytes pattern(text.begin() + from, text.begin() + from + m);
  if (random() % 4 == 0) { pattern.back() = static_cast<std::uint8_t>(pattern.back() + 1); }
  return pattern;
}

template <class Backend>
class string_match : public backend_test<Backend> {
 protected:
  /// Checks every algorithm on `text` placed `misalignment` bytes into its buffer.
  void check(const bytes& text, const bytes& pattern, std::uint64_t misalignment = 0)
  {
    const auto& backend = this->backend();
    bytes padded(misalignment, 0xAB);
    padded.insert(padded.end(), text.begin(), text.end());
    const auto buffer = make_buffer_from<std::uint8_t>(backend, padded);
    const std::span<const std::uint8_t> text_span = std::span<const std::uint8_t>(buffer.span()).subspan(misalignment);
    const auto expected = naive_matches(text, pattern);
    for (const match_algorithm algorithm : every_algorithm) {
      SCOPED_TRACE(std::string(to_string(algorithm)) + ", m " + std::to_string(pattern.size()) + ", n " +
                   std::to_string(text.size()) + ", misalignment " + std::to_string(misalignment));
      EXPECT_EQ(count_matches(backend, text_span, std::span<const std::uint8_t>(pattern), algorithm), expected.size());
      EXPECT_EQ(find_matches(backend, text_span, std::span<const std::uint8_t>(pattern), algorithm).to_vector(),
                expected);
    }
  }
};

TYPED_TEST_SUITE(string_match, all_backends, backend_names);

TYPED_TEST(string_match, random_texts_and_pattern_lengths_match_naive)
{
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  for (const alphabet kind : {alphabet::random_bytes, alphabet::binary, alphabet::dna, alphabet::words}) {
    const bytes text = make_text(kind, 200000, random);
    for (const std::uint64_t m : {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100, 1000, 4096}) {
      this->check(text, make_pattern(text, m, random), random() % 16);
    }
  }
}

TYPED_TEST(string_match, occurrences_at_text_and_subtext_edges)
{
  std::mt19937_64 random(fresh_seed());
  for (const std::uint64_t m : {1, 5, 8, 9, 40}) {
    for (const std::uint64_t n : {m, m + 1, std::uint64_t{63}, std::uint64_t{64}, std::uint64_t{65},
                                  std::uint64_t{1000}, std::uint64_t{65536 + 77}}) {
      if (n < m) { continue; }
      // every byte 'a': the pattern of m 'a's occurs at every start, including across every boundary
      const bytes text(n, 'a');
      const bytes pattern(m, 'a');
      for (const std::uint64_t misalignment : {0, 1, 7, 15}) { this->check(text, pattern, misalignment); }
      bytes sparse = make_text(alphabet::dna, n, random);
      std::copy(pattern.begin(), pattern.end(), sparse.begin());
      std::copy(pattern.begin(), pattern.end(), sparse.end() - m);
      this->check(sparse, pattern, random() % 16);
    }
  }
}

// Texts that make the GPU's word filter (first two bytes, then the 8-byte prefix) find a candidate at
// every start: every byte equal to the pattern's first byte (0 too, the value the GPU reads past the
// text's ends), patterns of one repeated byte, patterns that differ from such text only in their last
// byte or their ninth, occurrences at the text's end and across threads' 128-byte ranges, every text
// start modulo 16.
TYPED_TEST(string_match, texts_of_one_repeated_byte_at_every_alignment)
{
  std::mt19937_64 random(fresh_seed());
  for (const std::uint8_t fill : {std::uint8_t{'a'}, std::uint8_t{0}}) {
    const std::uint8_t other = fill == 0 ? 1 : 'b';
    for (const std::uint64_t n : {1, 2, 7, 9, 16, 17, 127, 128, 129, 143, 144, 256 + 3, 128 * 9 + 5}) {
      const std::uint64_t misalignment = random() % 16;
      const bytes text(n, fill);
      for (const std::uint64_t m : {1, 2, 3, 8, 9, 12}) {
        if (m > n + 1) { continue; }
        this->check(text, bytes(m, fill), misalignment);
        bytes last_differs(m, fill);
        last_differs.back() = other;
        this->check(text, last_differs, misalignment);
        // the same pattern at the text's end and across a thread's range
        bytes ends = text;
        if (m <= n) {
          std::copy(last_differs.begin(), last_differs.end(), ends.end() - m);
          if (n >= 128 + m) { std::copy(last_differs.begin(), last_differs.end(), ends.begin() + 128 - m / 2); }
          this->check(ends, last_differs, misalignment);
          this->check(ends, bytes(m, fill), (misalignment + 7) % 16);
        }
      }
      if (n >= 12) {
        bytes ninth_differs(12, fill);
        ninth_differs[8] = other;
        bytes text_with_it = text;
        text_with_it[n - 4] = other;  // an occurrence ending at the text's last byte
        this->check(text_with_it, ninth_differs, misalignment);
      }
    }
  }
}

TYPED_TEST(string_match, pattern_longer_than_text_has_no_matches)
{
  this->check(bytes{'a', 'b'}, bytes{'a', 'b', 'c'});
  this->check(bytes{}, bytes{'a'});
}

TYPED_TEST(string_match, largest_byte_values_and_zero_bytes_match)
{
  const bytes text{0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00, 0xfe, 0xff,
                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00};
  for (const bytes& pattern : {bytes{0xff}, bytes{0x00}, bytes{0xff, 0xff}, bytes{0xff, 0x00}, bytes(9, 0xff),
                               bytes(8, 0xff), bytes{0x00, 0x00}}) {
    this->check(text, pattern, 3);
  }
}

TYPED_TEST(string_match, empty_pattern_is_rejected)
{
  const auto& backend = this->backend();
  const auto text = make_buffer_from<std::uint8_t>(backend, bytes{'a', 'b'});
  const std::span<const std::uint8_t> empty;
  expect_error_mentioning<error>(
      [&] { (void)count_matches(backend, std::span<const std::uint8_t>(text.span()), empty); },
      {"count_matches", "pattern is empty"});
  expect_error_mentioning<error>(
      [&] { (void)find_matches(backend, std::span<const std::uint8_t>(text.span()), empty); },
      {"find_matches", "pattern is empty"});
}

/// Counts of several patterns in one pass against the naive matcher, the text `misalignment` bytes into
/// its buffer.
template <class Backend>
void check_several(const Backend& backend, const bytes& text, const std::vector<bytes>& patterns,
                   std::uint64_t misalignment)
{
  bytes padded(misalignment, 0xAB);
  padded.insert(padded.end(), text.begin(), text.end());
  const auto buffer = make_buffer_from<std::uint8_t>(backend, padded);
  const auto text_span = std::span<const std::uint8_t>(buffer.span()).subspan(misalignment);
  std::vector<std::span<const std::uint8_t>> views;
  std::vector<std::uint64_t> expected;
  for (const bytes& pattern : patterns) {
    views.emplace_back(pattern);
    expected.push_back(naive_matches(text, pattern).size());
  }
  const auto found = count_matches(backend, text_span, std::span<const std::span<const std::uint8_t>>(views));
  ASSERT_EQ(found.size(), expected.size());
  const auto differs = std::mismatch(found.begin(), found.end(), expected.begin()).first - found.begin();
  EXPECT_EQ(differs, static_cast<std::ptrdiff_t>(found.size()))
      << "n " << text.size() << ", " << patterns.size() << " patterns, misalignment " << misalignment
      << ": first count that differs, pattern " << differs << " of " << patterns[differs].size() << " bytes \""
      << std::string(patterns[differs].begin(), patterns[differs].end()) << "\": " << found[differs] << ", expected "
      << expected[differs];
}

// Texts of several MiB: the host's literal engine (Hyperscan) cuts them into one piece per thread, and
// occurrences across the cuts must be counted once.
TYPED_TEST(string_match, texts_cut_into_pieces_match_naive)
{
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  const bytes text = make_text(alphabet::binary, (std::uint64_t{3} << 20) + random() % 4096, random);
  for (const std::uint64_t m : {1, 5, 17}) { this->check(text, make_pattern(text, m, random), random() % 16); }
  check_several(this->backend(), text, {make_pattern(text, 3, random), make_pattern(text, 9, random), bytes{'1'}},
                random() % 16);
}

TYPED_TEST(string_match, several_patterns_in_one_pass_match_naive)
{
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  for (const alphabet kind : {alphabet::random_bytes, alphabet::binary, alphabet::dna, alphabet::words}) {
    const bytes text = make_text(kind, 30000, random);
    // one length (the fingerprint covers 8 bytes or the whole pattern), mixed lengths, many patterns
    for (const std::uint64_t count : {1, 2, 7, 64, 256}) {
      for (const std::uint64_t shortest : {1, 3, 8, 12}) {
        std::vector<bytes> same_length;
        std::vector<bytes> mixed;
        for (std::uint64_t i = 0; i < count; ++i) {
          same_length.push_back(make_pattern(text, shortest, random));
          mixed.push_back(make_pattern(text, shortest + random() % 40, random));
        }
        if (count > 1) { mixed.back() = mixed.front(); }  // equal patterns are each counted
        check_several(this->backend(), text, same_length, random() % 16);
        check_several(this->backend(), text, mixed, random() % 16);
      }
    }
  }
}

TYPED_TEST(string_match, several_patterns_at_text_edges_and_longer_than_text)
{
  const bytes text(1000, 'a');
  check_several(this->backend(), text, {bytes(1, 'a'), bytes(9, 'a'), bytes(1000, 'a'), bytes(1001, 'a')}, 5);
  check_several(this->backend(), bytes{}, {bytes{'a'}, bytes{'b', 'c'}}, 0);
  bytes edges(65 * 64 + 3, 'c');
  std::copy_n("abcdefghij", 10, edges.begin());
  std::copy_n("abcdefghij", 10, edges.end() - 10);
  std::copy_n("abcdefghij", 10, edges.begin() + 64 * 9 - 5);  // across a GPU thread's window ends
  check_several(this->backend(), edges,
                {bytes{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'}, bytes{'j'}, bytes{'c', 'c'}, bytes{0xff}}, 3);
}

// More patterns than fit in shared memory: the table in global memory behind the filter, with patterns
// of one fingerprint, prefixes of one another, equal ones, absent ones and ones longer than the text.
TYPED_TEST(string_match, more_patterns_than_one_shared_table_match_naive)
{
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  for (const alphabet kind : {alphabet::dna, alphabet::words, alphabet::random_bytes}) {
    const bytes text = make_text(kind, 10000 + random() % 64, random);
    for (const std::uint64_t count : {max_patterns_per_pass + 1, std::uint64_t{2000}}) {
      // with 2000, every pattern has at least 8 bytes: 8-byte fingerprints
      const std::uint64_t shortest = count > max_patterns_per_pass + 1 ? 8 : 1;
      std::vector<bytes> patterns;
      for (std::uint64_t i = 0; i < count; ++i) {
        switch (random() % 5) {
          case 0:
            patterns.push_back(make_pattern(text, 8, random));
            break;
          case 1:
            patterns.push_back(make_pattern(text, 8 + random() % 30, random));
            break;
          case 2:
            patterns.push_back(patterns.empty() ? bytes(shortest, 'x') : patterns[random() % patterns.size()]);
            break;
          case 3: {  // a prefix of another, or one extended by a byte
            bytes other = patterns.empty() ? make_pattern(text, 12, random) : patterns[random() % patterns.size()];
            if (other.size() > shortest && random() % 2 == 0) {
              other.pop_back();
            } else {
              other.push_back(static_cast<std::uint8_t>(random()));
            }
            patterns.push_back(other);
            break;
          }
          default:
            patterns.push_back(make_pattern(text, std::max<std::uint64_t>(shortest, 3 + random() % 6), random));
            break;
        }
      }
      patterns[random() % count] = bytes(text.size() + 1, 'a');
      check_several(this->backend(), text, patterns, random() % 16);
    }
  }
}

// More patterns than a block keeps counts for in shared memory (16384 on the cuda backend): each
// occurrence adds to its pattern's count in global memory.
TYPED_TEST(string_match, more_patterns_than_shared_counts_match_naive)
{
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  const bytes text = make_text(alphabet::dna, 6000 + random() % 64, random);
  std::vector<bytes> patterns;
  for (std::uint64_t i = 0; i < 17000; ++i) {
    patterns.push_back(i % 3 == 0 ? make_pattern(text, 5 + random() % 12, random) : bytes(5 + random() % 4, 'G'));
    patterns.back().back() = "ACGT"[random() % 4];  // absent ones, and ones that occur
  }
  check_several(this->backend(), text, patterns, random() % 16);
}

// A text long enough that the cuda backend's blocks stride over it more than once, counted against a
// table of its 8-byte windows (patterns of 8 and 12 bytes).
TYPED_TEST(string_match, several_patterns_over_a_long_text_match_a_window_table)
{
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  const bytes text = make_text(alphabet::dna, (std::uint64_t{14} << 20) + random() % 4096, random);
  std::vector<bytes> patterns;
  for (std::uint64_t i = 0; i < 300; ++i) { patterns.push_back(make_pattern(text, i % 2 == 0 ? 8 : 12, random)); }
  const auto window = [&](std::uint64_t p) {
    std::uint64_t value = 0;
    std::memcpy(&value, text.data() + p, 8);
    return value;
  };
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_window;
  for (std::size_t i = 0; i < patterns.size(); ++i) { by_window[window_of(patterns[i])].push_back(i); }
  std::vector<std::uint64_t> expected(patterns.size(), 0);
  for (std::uint64_t p = 0; p + 8 <= text.size(); ++p) {
    const auto found = by_window.find(window(p));
    if (found == by_window.end()) { continue; }
    for (const std::size_t i : found->second) {
      const bytes& pattern = patterns[i];
      expected[i] += p + pattern.size() <= text.size() &&
                     std::equal(pattern.begin(), pattern.end(), text.begin() + static_cast<std::ptrdiff_t>(p));
    }
  }
  const std::uint64_t misalignment = random() % 16;
  bytes padded(misalignment, 0xAB);
  padded.insert(padded.end(), text.begin(), text.end());
  const auto buffer = make_buffer_from<std::uint8_t>(this->backend(), padded);
  std::vector<std::span<const std::uint8_t>> views(patterns.begin(), patterns.end());
  EXPECT_EQ(count_matches(this->backend(), std::span<const std::uint8_t>(buffer.span()).subspan(misalignment),
                          std::span<const std::span<const std::uint8_t>>(views)),
            expected)
      << "misalignment " << misalignment;
}

TYPED_TEST(string_match, several_patterns_reject_bad_input)
{
  const auto& backend = this->backend();
  const auto text = make_buffer_from<std::uint8_t>(backend, bytes{'a', 'b'});
  const std::span<const std::uint8_t> text_span(text.span());
  const bytes a{'a'};
  const std::vector<std::span<const std::uint8_t>> none;
  const std::vector<std::span<const std::uint8_t>> with_empty = {std::span<const std::uint8_t>(a),
                                                                 std::span<const std::uint8_t>()};
  using patterns = std::span<const std::span<const std::uint8_t>>;
  expect_error_mentioning<error>([&] { (void)count_matches(backend, text_span, patterns(none)); },
                                 {"count_matches", "no patterns"});
  expect_error_mentioning<error>([&] { (void)count_matches(backend, text_span, patterns(with_empty)); },
                                 {"count_matches", "pattern 1 is empty"});
}

TEST(match_algorithm_names, round_trip_and_reject_unknown)
{
  for (const match_algorithm algorithm : every_algorithm) {
    EXPECT_EQ(parse_match_algorithm(to_string(algorithm)), algorithm);
  }
  EXPECT_EQ(parse_match_algorithm("2s"), match_algorithm::two_stage);
  expect_error_mentioning<error>([] { (void)parse_match_algorithm("kmp"); }, {"unknown string matching", "kmp"});
}

}  // namespace
}  // namespace warpdex::testing
