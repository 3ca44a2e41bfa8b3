// Matching lines, the others (-v) and their formatted output against a naive line-by-line search on every backend:
// words with short and long lines, lines full of overlapping occurrences, occurrences at the text's
// edges, a last line without a newline, empty lines; bad input.
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/search/line_match.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace warpdex::testing {
namespace {

std::uint64_t fresh_seed()
{
  static std::random_device device;
  return (std::uint64_t{device()} << 32) | device();
}

struct naive_lines {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  std::string formatted;  // each line as prefix + line + '\n'
};

naive_lines naive(const std::string& text, const std::string& pattern, const std::string& prefix)
{
  naive_lines result;
  std::uint64_t begin = 0;
  while (begin < text.size()) {
    std::uint64_t end = text.find('\n', begin);
    if (end == std::string::npos) { end = text.size(); }
    const std::string_view line(text.data() + begin, end - begin);
    if (line.find(pattern) != std::string_view::npos) {
      result.spans.emplace_back(begin, end);
      result.formatted += prefix;
      result.formatted += line;
      result.formatted += '\n';
    }
    begin = end + 1;
  }
  return result;
}

std::string make_text(std::uint64_t size, unsigned newline_every, std::mt19937_64& random)
{
  static const char* const words[] = {"the", "of", "an", "warp", "aa", "a", "in", "is", "that", "thread"};
  std::string text;
  while (text.size() < size) {
    text += words[random() % 10];
    text += random() % newline_every == 0 ? (random() % 4 == 0 ? "\n\n" : "\n") : " ";
  }
  text.resize(size);
  return text;
}

template <class Backend>
class line_match : public backend_test<Backend> {
 protected:
  void check(const std::string& text, const std::string& pattern, const std::string& prefix = "")
  {
    const auto& backend = this->backend();
    SCOPED_TRACE("pattern '" + pattern + "', text of " + std::to_string(text.size()) + " bytes");
    const std::vector<std::uint8_t> bytes(text.begin(), text.end());
    const auto on_backend = make_buffer_from<std::uint8_t>(backend, std::span<const std::uint8_t>(bytes));
    const std::span<const std::uint8_t> text_span(on_backend.data(), on_backend.size());
    const naive_lines expected = naive(text, pattern, prefix);
    EXPECT_EQ(count_matching_lines(backend, text_span, as_bytes(pattern)), expected.spans.size());
    const buffer<line_span> lines = find_matching_lines(backend, text_span, as_bytes(pattern));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> found;
    for (const line_span& line : lines.to_vector()) { found.emplace_back(line.begin, line.end); }
    EXPECT_EQ(found, expected.spans);
    const std::vector<std::uint8_t> formatted = gather_lines(backend, text_span, lines.span(), prefix).to_vector();
    EXPECT_EQ(std::string(formatted.begin(), formatted.end()), expected.formatted);
    // grep -v's lines: every line (split at the newlines; none after a last newline) not selected.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> others;
    for (std::uint64_t begin = 0; begin < text.size();) {
      const std::uint64_t end = std::min<std::uint64_t>(text.find('\n', begin), text.size());
      if (std::find(expected.spans.begin(), expected.spans.end(), std::make_pair(begin, end)) == expected.spans.end()) {
        others.emplace_back(begin, end);
      }
      begin = end + 1;
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> found_others;
    for (const line_span& line : other_lines(backend, text_span, lines.span()).to_vector()) {
      found_others.emplace_back(line.begin, line.end);
    }
    EXPECT_EQ(found_others, others);
    // grep's -n and -b fields, as the text were a chunk after others: numbers past lines_before, offsets
    // past text_offset (counted here with std::count over the text before each line).
    for (const line_fields fields : {line_fields{true, false, 0, 0}, line_fields{true, true, 41, 123456789012},
                                     line_fields{false, true, 0, 9}}) {
      std::string with_fields;
      for (const auto& [begin, end] : expected.spans) {
        with_fields += prefix;
        if (fields.number) {
          with_fields += std::to_string(fields.lines_before + 1 + std::count(text.begin(), text.begin() + begin, '\n'));
          with_fields += ':';
        }
        if (fields.offset) { with_fields += std::to_string(fields.text_offset + begin) + ':'; }
        with_fields += text.substr(begin, end - begin) + '\n';
      }
      SCOPED_TRACE("fields -n " + std::to_string(fields.number) + " -b " + std::to_string(fields.offset));
      const std::vector<std::uint8_t> numbered = gather_lines(backend, text_span, lines.span(), prefix, fields).to_vector();
      EXPECT_EQ(std::string(numbered.begin(), numbered.end()), with_fields);
    }
  }
};

TYPED_TEST_SUITE(line_match, all_backends, backend_names);

TYPED_TEST(line_match, random_word_texts_match_naive)
{
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  for (const unsigned newline_every : {1U, 3U, 12U, 400U}) {
    const std::string text = make_text(100000, newline_every, random);
    for (const char* pattern : {"a", "aa", "the", "warp thread", "is that", "zzz", "t"}) { this->check(text, pattern); }
    this->check(text, "the", "name:");
  }
}

TYPED_TEST(line_match, edges_overlaps_and_empty_lines)
{
  this->check("", "a");
  this->check("a", "a");
  this->check("a\n", "a");
  this->check("\n\n\n", "a");
  this->check("aaaa\naaa\n\naa", "aa", "f:");
  this->check("x\nab", "ab");
  this->check("ab\nx", "ab");
  this->check(std::string(70000, 'a') + "\nb\n" + std::string(5, 'a'), "aaa");
  this->check("no newline at the end", "end");
}

TYPED_TEST(line_match, bad_patterns_are_rejected)
{
  const auto& backend = this->backend();
  const std::vector<std::uint8_t> bytes{'a', '\n', 'b'};
  const auto text = make_buffer_from<std::uint8_t>(backend, std::span<const std::uint8_t>(bytes));
  const std::span<const std::uint8_t> span(text.data(), text.size());
  expect_error_mentioning<error>([&] { (void)count_matching_lines(backend, span, as_bytes("")); }, {"empty"});
  expect_error_mentioning<error>([&] { (void)find_matching_lines(backend, span, as_bytes("a\nb")); }, {"newline"});
}

TEST(line_match_host, gather_rejects_lines_outside_the_text)
{
  const std::vector<std::uint8_t> text{'a', 'b'};
  const std::vector<line_span> lines{{1, 3}};
  expect_error_mentioning<error>(
      [&] { (void)gather_lines(host{}, std::span<const std::uint8_t>(text), std::span<const line_span>(lines), ""); },
      {"outside the text"});
}

}  // namespace
}  // namespace warpdex::testing
