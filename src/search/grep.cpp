// The streaming fixed-string grep: a reader thread (with helpers for a regular file) fills a ring of
// chunks of whole lines; the calling thread finds each chunk's candidates (memchr on the patterns' rarest
// bytes on the host, `find_matches` on the GPU for one case-sensitive pattern) and walks its lines with
// grep's rules for -v, -w, -x, -o, -c, -l, -L, -q and binary input, or, when nothing but the lines is
// asked for, takes the matching lines (or their number) formatted by the GPU (found there by
// `find_matching_lines` for one pattern, by a `device_pattern_set` for several or -i).
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/search/grep.hpp>
#include <warpdex/search/line_match.hpp>
#include <warpdex/search/string_match.hpp>

#if WARPDEX_HAS_CUDA
#include <warpdex/core/cuda_check.hpp>
#endif

#include "literal_engine.hpp"
#include "pattern_set.hpp"

#include <omp.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex {
namespace {

using byte = std::uint8_t;

/// GNU grep's reads: 96 KiB at a time (grep 3, a line that fits). Its binary input begins with the
/// buffer of its first NUL byte.
constexpr std::uint64_t grep_gnu_read_bytes = std::uint64_t{96} << 10;
/// The least bytes one reader thread reads with pread in a step (smaller reads spend more on the calls).
constexpr std::uint64_t parallel_read_piece = std::uint64_t{4} << 20;

byte fold(byte c)
{
  return c >= 'A' && c <= 'Z' ? static_cast<byte>(c + ('a' - 'A')) : c;
}

bool is_word_byte(byte c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// How common a byte is in text, higher is more common: the search looks for each pattern's rarest byte.
int byte_rank(byte c)
{
  static constexpr std::string_view by_frequency = " etaoinsrhldcumfpgwybvkxjqz\nETAOINSRHLDCUMFPGWYBVKXJQZ0123456789";
  const std::size_t at = by_frequency.find(static_cast<char>(c));
  return at == std::string_view::npos ? 0 : static_cast<int>(by_frequency.size() - at);
}

/// The newlines in [from, to). std::count over bytes compiles to a byte a step; counting into 64 byte-wide
/// lanes (at most 255 steps before they are summed) lets the compiler compare 16-64 bytes an instruction:
/// -n and -v -c count every newline of the input.
std::uint64_t count_newlines(const byte* from, const byte* to)
{
  constexpr std::size_t lanes = 64;
  std::uint64_t total = 0;
  while (to - from >= static_cast<std::ptrdiff_t>(4 * lanes)) {  // shorter ranges (between matches): bytewise
    const auto steps = static_cast<std::size_t>(std::min<std::ptrdiff_t>((to - from) / lanes, 255));
    std::array<std::uint8_t, lanes> counts{};
    for (std::size_t step = 0; step < steps; ++step, from += lanes) {
      for (std::size_t lane = 0; lane < lanes; ++lane) { counts[lane] += from[lane] == '\n' ? 1 : 0; }
    }
    for (const std::uint8_t count : counts) { total += count; }
  }
  for (; from < to; ++from) { total += *from == '\n' ? 1 : 0; }
  return total;
}

/// An occurrence: its first byte and its length.
struct occurrence {
  const byte* at = nullptr;
  std::size_t size = 0;
};

/// The patterns as grep_stream searches them: split at newlines, folded with -i, longest first (so that
/// the first pattern found at a position is the longest there), neighbouring duplicates dropped.
std::vector<std::string> split_patterns(std::span<const std::string> given, bool ignore_case)
{
  std::vector<std::string> patterns;
  for (const std::string& text : given) {
    std::size_t begin = 0;
    while (true) {
      const std::size_t end = std::min(text.find('\n', begin), text.size());
      std::string pattern = text.substr(begin, end - begin);
      if (ignore_case) {
        for (char& c : pattern) { c = static_cast<char>(fold(static_cast<byte>(c))); }
      }
      patterns.push_back(std::move(pattern));
      if (end == text.size()) { break; }
      begin = end + 1;
    }
  }
  std::stable_sort(patterns.begin(), patterns.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  patterns.erase(std::unique(patterns.begin(), patterns.end()), patterns.end());
  return patterns;
}

/// The cuda backend's rule (grep_cuda_plan): a `device_pattern_set` selects the lines of several
/// patterns, or of one with -i, -w or -x, when nothing but the lines (or their number, or with -v the number
/// of the others) is asked for; one case-sensitive pattern is otherwise found on the GPU too (the host
/// walking the lines for -v, -w, -x, -o, -n, -b, --color); an empty pattern, or several patterns with -o,
/// -n, -b, --color or -v printing lines, stay on the host.
bool set_searched_on_device(std::size_t patterns, bool ignore_case, bool has_empty, const grep_options& options)
{
  // -o's printed matches are found by the set, one pattern too; not with -v (nothing is printed) or -x.
  const bool prints_matches = options.only_matching && options.output == grep_output::lines;
  if (prints_matches && (options.invert_match || options.line_regexp)) { return false; }
  return (patterns > 1 || ignore_case || options.word_regexp || options.line_regexp || prints_matches) &&
         patterns > 0 && !has_empty && !options.color;
}

bool searched_on_device(std::size_t patterns, bool ignore_case, bool has_empty, const grep_options& options)
{
  return set_searched_on_device(patterns, ignore_case, has_empty, options) ||
         (patterns == 1 && !ignore_case && !has_empty);
}

/// The patterns, split at newlines (folded with -i), and the leftmost-longest search over them.
class pattern_set {
 public:
  pattern_set(std::span<const std::string> given, bool ignore_case)
      : ignore_case_(ignore_case), patterns_(split_patterns(given, ignore_case))
  {
    has_empty_ = !patterns_.empty() && patterns_.back().empty();
    for (std::size_t i = 0; i < patterns_.size() && !patterns_[i].empty(); ++i) {
      const auto first = static_cast<byte>(patterns_[i][0]);
      by_first_byte_[first].push_back(static_cast<std::uint32_t>(i));
      if (ignore_case_ && first >= 'a' && first <= 'z') {
        by_first_byte_[first - ('a' - 'A')].push_back(static_cast<std::uint32_t>(i));
      }
    }
    if (!has_empty_) { make_cursors(); }
  }

  [[nodiscard]] bool has_empty() const { return has_empty_; }
  [[nodiscard]] bool ignore_case() const { return ignore_case_; }
  [[nodiscard]] const std::vector<std::string>& patterns() const { return patterns_; }

  /// Whether `pattern` occurs at `at` (with `end` the end of the searched bytes).
  [[nodiscard]] bool matches_at(const std::string& pattern, const byte* at, const byte* end) const
  {
    if (static_cast<std::size_t>(end - at) < pattern.size()) { return false; }
    if (!ignore_case_) { return std::memcmp(at, pattern.data(), pattern.size()) == 0; }
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      if (fold(at[i]) != static_cast<byte>(pattern[i])) { return false; }
    }
    return true;
  }

  /// The longest pattern at `at`, or an occurrence with a null `at`.
  [[nodiscard]] occurrence longest_at(const byte* at, const byte* end) const
  {
    if (at < end) {
      for (const std::uint32_t i : by_first_byte_[*at]) {  // longest first
        if (matches_at(patterns_[i], at, end)) { return {at, patterns_[i].size()}; }
      }
    }
    return has_empty_ ? occurrence{at, 0} : occurrence{};
  }

  /// The longest pattern shorter than `found` that occurs where it does, or an occurrence with a null `at`
  /// (with -w, a shorter pattern at the same place may form a whole word).
  [[nodiscard]] occurrence shorter(occurrence found, const byte* end) const
  {
    if (found.size == 0) { return {}; }
    for (const std::uint32_t i : by_first_byte_[*found.at]) {
      if (patterns_[i].size() < found.size && matches_at(patterns_[i], found.at, end)) {
        return {found.at, patterns_[i].size()};
      }
    }
    return has_empty_ ? occurrence{found.at, 0} : occurrence{};
  }

  /// A pattern equal to the line [from, end), or an occurrence with a null `at` (-x).
  [[nodiscard]] occurrence whole_line(const byte* from, const byte* end) const
  {
    const auto size = static_cast<std::size_t>(end - from);
    if (size == 0) { return has_empty_ ? occurrence{from, 0} : occurrence{}; }
    for (const std::uint32_t i : by_first_byte_[*from]) {
      if (patterns_[i].size() == size && matches_at(patterns_[i], from, end)) { return {from, size}; }
    }
    return {};
  }

  /// Forgets the positions found so far: the bytes searched next are new (a chunk read into a buffer).
  void forget() const { searched_end_ = nullptr; }

  /// The leftmost-longest occurrence in [from, end), or one with a null `at`. Occurrences never hold a
  /// newline, so one found in a range of whole lines lies within a line.
  [[nodiscard]] occurrence find(const byte* from, const byte* end) const
  {
    if (patterns_.empty()) { return {}; }
    if (has_empty_) { return longest_at(from, end); }  // never null: the empty pattern occurs everywhere
    if (cursors_.empty()) {  // too many patterns for a cursor each: a byte-by-byte scan over a table
      for (const byte* at = from; at < end; ++at) {
        for (const std::uint32_t i : by_first_byte_[*at]) {  // longest first
          if (matches_at(patterns_[i], at, end)) { return {at, patterns_[i].size()}; }
        }
      }
      return {};
    }
    if (end != searched_end_ || from < searched_from_) {  // the positions found stay valid for later starts
      for (cursor& c : cursors_) { c.next = nullptr; }
    }
    searched_end_ = end;
    searched_from_ = from;
    const byte* start = from;
    while (true) {
      const byte* candidate = nullptr;
      for (cursor& c : cursors_) {
        if (c.next == nullptr || c.next < start + c.offset) {
          const byte* scan = start + c.offset;
          const byte* hit = scan < end ? static_cast<const byte*>(std::memchr(scan, c.value, end - scan)) : nullptr;
          c.next = hit != nullptr ? hit : end + c.offset;  // past every candidate
        }
        const byte* begins = c.next - c.offset;
        if (candidate == nullptr || begins < candidate) { candidate = begins; }
      }
      if (candidate >= end) { return {}; }
      const occurrence found = longest_at(candidate, end);
      if (found.at != nullptr) { return found; }
      start = candidate + 1;
    }
  }

 private:
  /// A pattern's rarest byte at `offset`: candidates start `offset` bytes before each of its occurrences.
  struct cursor {
    byte value = 0;
    std::size_t offset = 0;
    const byte* next = nullptr;  ///< the value's next position found, or end + offset for none
  };

  void make_cursors()
  {
    constexpr std::size_t max_cursors = 16;
    for (const std::string& pattern : patterns_) {
      std::size_t rarest = 0;
      for (std::size_t i = 1; i < pattern.size(); ++i) {
        if (byte_rank(static_cast<byte>(pattern[i])) < byte_rank(static_cast<byte>(pattern[rarest]))) { rarest = i; }
      }
      const auto value = static_cast<byte>(pattern[rarest]);
      cursors_.push_back({value, rarest});
      if (ignore_case_ && value >= 'a' && value <= 'z') {
        cursors_.push_back({static_cast<byte>(value - ('a' - 'A')), rarest});
      }
    }
    if (cursors_.size() > max_cursors) { cursors_.clear(); }
  }

  bool ignore_case_;
  bool has_empty_ = false;
  std::vector<std::string> patterns_;
  mutable std::vector<cursor> cursors_;
  mutable const byte* searched_from_ = nullptr;  ///< the last search's range, for which cursors_ hold
  mutable const byte* searched_end_ = nullptr;
  std::array<std::vector<std::uint32_t>, 256> by_first_byte_;  ///< patterns by first byte, longest first
};

/// Occurrences of the single pattern found on the backend, as chunk offsets in ascending order: the
/// leftmost at or after a position is a binary search away.
class position_list {
 public:
  position_list(const byte* data, std::vector<std::uint64_t> positions, std::size_t pattern_size)
      : data_(data), positions_(std::move(positions)), pattern_size_(pattern_size)
  {
  }

  [[nodiscard]] occurrence find(const byte* from, const byte* end) const
  {
    const auto next = std::lower_bound(positions_.begin(), positions_.end(), static_cast<std::uint64_t>(from - data_));
    if (next == positions_.end() || data_ + *next + pattern_size_ > end) { return {}; }
    return {data_ + *next, pattern_size_};
  }

  /// One pattern: nothing shorter occurs anywhere.
  [[nodiscard]] occurrence shorter(occurrence, const byte*) const { return {}; }

  [[nodiscard]] occurrence whole_line(const byte* from, const byte* end) const
  {
    const occurrence found = find(from, end);
    return found.at == from && found.size == static_cast<std::size_t>(end - from) ? found : occurrence{};
  }

 private:
  const byte* data_;
  std::vector<std::uint64_t> positions_;
  std::size_t pattern_size_;
};

constexpr std::string_view sgr_end = "\33[m\33[K";
constexpr std::string_view match_color = "\33[01;31m\33[K";
constexpr std::string_view name_color = "\33[35m\33[K";
constexpr std::string_view number_color = "\33[32m\33[K";
constexpr std::string_view separator_color = "\33[36m\33[K";

/// The per-input state of the line walk, carried from chunk to chunk, and grep's output.
class line_walker {
 public:
  line_walker(const pattern_set& patterns, std::string_view name, const grep_options& options, std::FILE* output)
      : patterns_(patterns), name_(name), options_(options), output_(output)
  {
  }

  /// Whether the rest of the input changes nothing (-l, -q after a selected line; binary after one).
  [[nodiscard]] bool done() const { return done_; }
  [[nodiscard]] grep_result& result() { return result_; }
  [[nodiscard]] bool binary() const { return result_.binary; }

  /// Takes `count` selected lines of a chunk without NUL bytes whose output, when lines are printed, is
  /// `formatted` (made by the backend from options that add nothing but the file name).
  void take_lines(std::uint64_t count, std::span<const byte> formatted)
  {
    result_.matching_lines += count;
    if (count == 0) { return; }
    switch (options_.output) {
      case grep_output::count:
        return;
      case grep_output::files_with_matches:
        print_name_line();
        [[fallthrough]];
      case grep_output::files_without_match:
      case grep_output::quiet:
        result_.matching_lines = 1;
        done_ = true;
        break;
      case grep_output::lines:
        write(formatted.data(), formatted.size());
        break;
    }
    if (std::ferror(output_)) { WARPDEX_FAIL("write error: " + std::string(std::strerror(errno))); }
  }

  /// Walks the whole lines in data[0, size) (input bytes from offset `base` on; the last line may lack
  /// its newline only at the end of the input), with `finder` giving leftmost-longest occurrences.
  /// NUL bytes make the input binary: they are turned into newlines first, as GNU grep does.
  template <class Finder>
  void walk(byte* data, std::size_t size, std::uint64_t base, const Finder& finder)
  {
    walk_prepared(data, size, base, prepare(data, size, base), finder);
  }

  /// The first step of `walk`: where binary input begins in data[0, size) (`size` when it does not), and
  /// NUL bytes from there on turned into newlines, so that a search of the chunk finds them as lines.
  std::size_t prepare(byte* data, std::size_t size, std::uint64_t base)
  {
    std::size_t binary_from = result_.binary ? 0 : size;
    if (const auto* nul = static_cast<const byte*>(result_.binary ? nullptr : std::memchr(data, 0, size))) {
      binary_from = gnu_buffer_start(data, nul - data, base);
    }
    std::replace(data + binary_from, data + size, byte{0}, byte{'\n'});
    patterns_.forget();
    return binary_from;
  }

  /// `prepare` of a chunk known to hold no NUL byte, the input not binary: nothing to look at or change.
  std::size_t prepare_text(std::size_t size)
  {
    patterns_.forget();
    return size;
  }

  /// The second step of `walk`, over a chunk `prepare` returned `binary_from` for.
  template <class Finder>
  void walk_prepared(const byte* data, std::size_t size, std::uint64_t base, std::size_t binary_from,
                     const Finder& finder)
  {
    walk_lines(data, 0, binary_from, base, finder);
    if (binary_from < size && !done_) {
      result_.binary = true;
      patterns_.forget();
      walk_lines(data, binary_from, size, base, finder);
    }
    if (std::ferror(output_)) { WARPDEX_FAIL("write error: " + std::string(std::strerror(errno))); }
  }

  /// Lines of the input before the chunk being searched (for -n).
  [[nodiscard]] std::uint64_t lines_before() const { return line_number_; }

  /// What begins each printed line before its fields without --color: the input's name and ':' with -H.
  [[nodiscard]] std::string name_prefix() const
  {
    return options_.with_filename ? std::string(name_) + ":" : std::string();
  }

  /// Passes over a prepared chunk in which no line is selected (without -v), or whose selected lines
  /// `take_lines` took: only the line numbers go on, by the chunk's `newlines`; `binary` when the chunk
  /// holds binary input.
  void skip_chunk(std::uint64_t newlines, bool binary)
  {
    result_.binary = result_.binary || binary;
    line_number_ += newlines;
  }

  /// Takes the number of selected lines of a prepared chunk when nothing but that number matters (-c, -l,
  /// -L, -q): `binary` when the chunk holds binary input.
  void take_count(std::uint64_t count, bool binary)
  {
    result_.binary = result_.binary || binary;
    take_lines(count, {});
  }

  /// Ends the input: prints the count (-c) or the name (-L).
  void finish()
  {
    if (options_.output == grep_output::count) {
      prefix_name();
      std::fprintf(output_, "%llu\n", static_cast<unsigned long long>(result_.matching_lines));
    } else if (options_.output == grep_output::files_without_match && result_.matching_lines == 0) {
      print_name_line();
    }
    if (std::ferror(output_)) { WARPDEX_FAIL("write error: " + std::string(std::strerror(errno))); }
  }

 private:
  /// Where GNU grep's buffer holding the NUL byte at data[nul] begins: GNU grep reads 96 KiB at a time, a
  /// buffer beginning with the incomplete line its previous read ended in. (0 when that lies before the
  /// chunk, which only chunks shorter than GNU grep's reads allow.)
  static std::size_t gnu_buffer_start(const byte* data, std::size_t nul, std::uint64_t base)
  {
    const std::uint64_t read_start = (base + nul) / grep_gnu_read_bytes * grep_gnu_read_bytes;
    if (read_start <= base) { return 0; }
    const std::size_t at = read_start - base;
    const auto* newline = static_cast<const byte*>(memrchr(data, '\n', at));
    return newline != nullptr ? newline + 1 - data : 0;
  }

  /// Walks the lines in data[begin, stop), at a line start.
  template <class Finder>
  void walk_lines(const byte* data, std::size_t begin, std::size_t stop, std::uint64_t base, const Finder& finder)
  {
    const byte* end = data + stop;
    const byte* line = data + begin;
    // With -v, -x or an empty pattern every line is tested; otherwise the search jumps to the next match.
    const bool every_line = options_.invert_match || options_.line_regexp || patterns_.has_empty();
    while (line < end && !done_) {
      if (every_line) {
        const byte* line_end = find_newline(line, end);
        const occurrence first = first_match(finder, line, line_end);
        if ((first.at != nullptr) != options_.invert_match) { select(line, line_end, base + (line - data), finder); }
        ++line_number_;
        line = line_end + 1;
        continue;
      }
      const occurrence first = first_match(finder, line, end);
      if (first.at == nullptr) {
        if (options_.line_number) { line_number_ += count_newlines(line, end); }
        break;
      }
      const byte* newline_before = static_cast<const byte*>(memrchr(line, '\n', first.at - line));
      const byte* line_start = newline_before != nullptr ? newline_before + 1 : line;
      if (options_.line_number) { line_number_ += count_newlines(line, line_start); }
      const byte* line_end = find_newline(first.at, end);
      select(line_start, line_end, base + (line_start - data), finder);
      ++line_number_;
      line = line_end + 1;
    }
  }

  static const byte* find_newline(const byte* from, const byte* end)
  {
    const auto* newline = static_cast<const byte*>(std::memchr(from, '\n', end - from));
    return newline != nullptr ? newline : end;
  }

  [[nodiscard]] bool whole_word(occurrence found, const byte* line, const byte* line_end) const
  {
    return (found.at == line || !is_word_byte(found.at[-1])) &&
           (found.at + found.size == line_end || !is_word_byte(found.at[found.size]));
  }

  /// The leftmost occurrence in [from, end) that -w and -x allow (the line of each starts at or before
  /// `from` only when `from` is a line start).
  template <class Finder>
  occurrence first_match(const Finder& finder, const byte* from, const byte* end) const
  {
    if (options_.line_regexp) { return finder.whole_line(from, end); }  // from is a line start, end its end
    for (const byte* start = from; start <= end;) {
      const occurrence found = finder.find(start, end);
      if (found.at == nullptr || !options_.word_regexp) { return found; }
      const byte* line = found.at;
      while (line > from && line[-1] != '\n') { --line; }
      const byte* line_end = find_newline(found.at, end);
      if (whole_word(found, line, line_end)) { return found; }
      // A shorter pattern at the same place may form a whole word.
      for (occurrence shorter = finder.shorter(found, line_end); shorter.at != nullptr;
           shorter = finder.shorter(shorter, line_end)) {
        if (whole_word(shorter, line, line_end)) { return shorter; }
      }
      start = found.at + 1;
    }
    return {};
  }

  /// A selected line [line, line_end) starting at input offset `offset`.
  template <class Finder>
  void select(const byte* line, const byte* line_end, std::uint64_t offset, const Finder& finder)
  {
    ++result_.matching_lines;
    switch (options_.output) {
      case grep_output::count:
        return;
      case grep_output::files_without_match:
        done_ = true;
        return;
      case grep_output::quiet:
        done_ = true;
        return;
      case grep_output::files_with_matches:
        print_name_line();
        done_ = true;
        return;
      case grep_output::lines:
        break;
    }
    if (result_.binary) {
      result_.binary_matches = true;
      done_ = true;
      return;
    }
    const bool marks_matches = !options_.invert_match && (options_.only_matching || options_.color);
    if (!marks_matches) {
      if (options_.only_matching) { return; }  // -o -v prints nothing
      prefix(offset);
      write(line, line_end - line);
      put('\n');
      return;
    }
    if (!options_.only_matching) { prefix(offset); }
    // GNU grep -F's quirk: with -w and -x and one pattern, a match holds its line's newline.
    const bool newline_in_match = options_.line_regexp && options_.word_regexp && patterns_.patterns().size() == 1;
    const byte* printed = line;
    for (const byte* from = line; from <= line_end;) {
      const occurrence found =
          options_.line_regexp ? first_match(finder, line, line_end) : first_match(finder, from, line_end);
      if (found.at == nullptr || found.at < from) { break; }
      if (found.size == 0 && !newline_in_match) {  // empty matches are not printed
        from = found.at + 1;
        continue;
      }
      if (options_.only_matching) {
        prefix(offset + (found.at - line));
      } else {
        write(printed, found.at - printed);
      }
      if (options_.color) { write_text(match_color); }
      write(found.at, found.size);
      if (newline_in_match) { put('\n'); }
      if (options_.color) { write_text(sgr_end); }
      if (options_.only_matching) { put('\n'); }
      printed = found.at + found.size;
      from = printed;
      if (options_.line_regexp) { break; }
    }
    if (!options_.only_matching) {
      write(printed, line_end - printed);
      if (!newline_in_match) { put('\n'); }
    }
  }

  // Only the calling thread writes: the unlocked stdio calls skip a lock per call (millions of lines).
  void write(const byte* bytes, std::size_t size) { fwrite_unlocked(bytes, 1, size, output_); }
  void write_text(std::string_view text) { fwrite_unlocked(text.data(), 1, text.size(), output_); }
  void put(char c) { putc_unlocked(c, output_); }

  void separator()
  {
    if (options_.color) {
      write_text(separator_color);
      put(':');
      write_text(sgr_end);
    } else {
      put(':');
    }
  }

  void prefix_name()
  {
    if (!options_.with_filename) { return; }
    print_name();
    separator();
  }

  void print_name()
  {
    if (options_.color) { write_text(name_color); }
    write_text(name_);
    if (options_.color) { write_text(sgr_end); }
  }

  void print_name_line()
  {
    print_name();
    put('\n');
  }

  void print_number(std::uint64_t number)
  {
    if (options_.color) { write_text(number_color); }
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof(digits), number).ptr;
    write_text(std::string_view(digits, static_cast<std::size_t>(end - digits)));
    if (options_.color) { write_text(sgr_end); }
    separator();
  }

  /// File name, line number and byte offset, as requested.
  void prefix(std::uint64_t offset)
  {
    prefix_name();
    if (options_.line_number) { print_number(line_number_ + 1); }
    if (options_.byte_offset) { print_number(offset); }
  }

  const pattern_set& patterns_;
  std::string_view name_;
  const grep_options& options_;
  std::FILE* output_;
  grep_result result_;
  std::uint64_t line_number_ = 0;  ///< lines before the current one
  bool done_ = false;
};

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// Slot numbers handed between the reader thread and the search; closing the queue wakes every waiter.
class slot_queue {
 public:
  void push(int slot)
  {
    {
      const std::lock_guard lock(mutex_);
      slots_.push_back(slot);
    }
    ready_.notify_one();
  }

  /// The next slot, or nothing once the queue is closed and empty.
  std::optional<int> pop()
  {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return closed_ || !slots_.empty(); });
    if (slots_.empty()) { return std::nullopt; }
    const int slot = slots_.front();
    slots_.pop_front();
    return slot;
  }

  void close()
  {
    {
      const std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<int> slots_;
  bool closed_ = false;
};

/// One chunk of whole lines: input bytes [base, base + size) at `data`, which is `bytes` or, for a mapped
/// file, a place in the mapping.
struct chunk {
  buffer<byte> bytes;
  byte* data = nullptr;
  std::uint64_t base = 0;
  std::uint64_t size = 0;
};

/// A regular file mapped privately and writable: NUL bytes turned into newlines (binary input) are copied
/// on write, the file is never changed. Empty when mapping fails (the caller reads instead).
class mapped_file {
 public:
  mapped_file() = default;
  mapped_file(int descriptor, std::uint64_t size)
  {
    void* at = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0);
    if (at == MAP_FAILED) { return; }
    data_ = static_cast<byte*>(at);
    size_ = size;
    ::madvise(at, size, MADV_SEQUENTIAL);  // read ahead, drop behind
  }
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  mapped_file(mapped_file&& other) noexcept : data_(std::exchange(other.data_, nullptr)), size_(other.size_) {}
  mapped_file& operator=(mapped_file&& other) noexcept
  {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~mapped_file()
  {
    if (data_ != nullptr) { ::munmap(data_, size_); }
  }

  [[nodiscard]] byte* data() const { return data_; }
  [[nodiscard]] std::uint64_t size() const { return size_; }

  /// Gives back the pages wholly inside [from, to) (offsets into the file; nothing past `to` needed
  /// later is on them), so that memory stays bounded by the chunks in use, not by the file.
  void release(std::uint64_t from, std::uint64_t to) const
  {
    static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t first = from / page * page;
    const std::uint64_t last = to / page * page;
    if (first < last) { ::madvise(data_ + first, last - first, MADV_DONTNEED); }
  }

 private:
  byte* data_ = nullptr;
  std::uint64_t size_ = 0;
};

/// A reader thread filling a ring of `grep_pipeline_slots` chunks of whole lines, in input order. A
/// buffer is allocated when first used, at the chunk size or, for a regular file, no more than the file
/// needs; it grows while a line does not fit. A regular file with several reader threads is read with
/// pread from where the stream stands, each thread a disjoint range of the chunk (the stream's own
/// buffer is then never used: nothing has been read through it yet when `grep_stream` starts). With
/// `map`, a regular file (not pinned) is mapped instead and its chunks point into the mapping, cut where
/// the reads would have cut them.
class chunk_reader {
 public:
  chunk_reader(std::FILE* input, std::string_view name, std::uint64_t chunk_bytes, bool pinned, unsigned threads,
               bool map)
      : input_(input), name_(name), capacity_(chunk_bytes), pinned_(pinned)
  {
    struct stat status {};
    if (::fstat(fileno(input), &status) == 0 && S_ISREG(status.st_mode)) {
      const off_t at = ::ftello(input);
      const auto left = static_cast<std::uint64_t>(std::max<off_t>(status.st_size - at, 0));
      capacity_ = std::min<std::uint64_t>(capacity_, std::max<std::uint64_t>(left + 1, 4096));
      if (threads > 1 && at >= 0) {
        threads_ = threads;
        offset_ = static_cast<std::uint64_t>(at);
      }
      if (map && !pinned && at >= 0 && left > 0) {
        mapping_ = mapped_file(fileno(input), static_cast<std::uint64_t>(status.st_size));
        offset_ = static_cast<std::uint64_t>(at);
      }
    }
    for (int slot = 0; slot < grep_pipeline_slots; ++slot) { free_.push(slot); }
    thread_ = std::thread([this] { mapping_.data() != nullptr ? map_all() : read_all(); });
  }

  chunk_reader(const chunk_reader&) = delete;
  chunk_reader& operator=(const chunk_reader&) = delete;

  /// Stops reading (when the search ends early) and waits for the thread.
  ~chunk_reader()
  {
    free_.close();
    thread_.join();
  }

  /// The next chunk, waiting for it to be read; nullptr after the last one. Rethrows a read error.
  chunk* next()
  {
    const std::optional<int> slot = filled_.pop();
    if (slot) { return &chunks_[*slot]; }
    if (error_) { std::rethrow_exception(error_); }
    return nullptr;
  }

  /// Gives a chunk from `next` back to the reader.
  void release(const chunk& done) { free_.push(static_cast<int>(&done - chunks_.data())); }

  [[nodiscard]] double read_seconds() const { return static_cast<double>(read_nanoseconds_.load()) * 1e-9; }

 private:
  buffer<byte> allocate(std::uint64_t bytes) const
  {
#if WARPDEX_HAS_CUDA
    if (pinned_) { return make_pinned_buffer<byte>(bytes); }
#endif
    return make_host_buffer<byte>(bytes);
  }

  /// Reads into `into` from `filled` on until it is full or the input ends; returns the new fill. A read
  /// longer than GNU grep's ends where one of its reads does, so that binary input begins where it does
  /// for GNU grep.
  std::uint64_t fill(buffer<byte>& into, std::uint64_t filled, bool& at_end)
  {
    const auto start = clock_type::now();
    std::uint64_t want = into.size() - filled;
    if (want > grep_gnu_read_bytes) { want -= (read_ + want) % grep_gnu_read_bytes; }
    const std::uint64_t target = filled + want;
    if (threads_ > 1) {
      filled = read_in_parallel(into.data(), filled, target, at_end);
      read_nanoseconds_ += std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - start).count();
      return filled;
    }
    while (filled < target) {
      const std::size_t got = std::fread(into.data() + filled, 1, target - filled, input_);
      filled += got;
      read_ += got;
      if (got == 0) {
        WARPDEX_EXPECTS(!std::ferror(input_), "cannot read " + std::string(name_) + ": " + std::strerror(errno));
        at_end = true;
        break;
      }
    }
    read_nanoseconds_ += std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - start).count();
    return filled;
  }

  /// pread of into[filled, target) from the file offset reached so far, in pieces of at least
  /// `parallel_read_piece` bytes over up to `threads_` threads. The input ends at the first piece that
  /// comes back short; the returned fill stops there.
  std::uint64_t read_in_parallel(byte* into, std::uint64_t filled, std::uint64_t target, bool& at_end)
  {
    const std::uint64_t want = target - filled;
    const auto pieces = static_cast<int>(std::clamp<std::uint64_t>(want / parallel_read_piece, 1, threads_));
    std::vector<std::uint64_t> got(pieces, 0);
    std::vector<int> errors(pieces, 0);
    const int descriptor = fileno(input_);
    const std::uint64_t offset = offset_;
#pragma omp parallel for num_threads(pieces) schedule(static, 1)
    for (int piece = 0; piece < pieces; ++piece) {
      const std::uint64_t begin = want * piece / pieces;
      const std::uint64_t end = want * (piece + 1) / pieces;
      while (begin + got[piece] < end) {
        const ssize_t n = ::pread(descriptor, into + filled + begin + got[piece], end - begin - got[piece],
                                  static_cast<off_t>(offset + begin + got[piece]));
        if (n < 0 && errno == EINTR) { continue; }
        if (n <= 0) {
          errors[piece] = n < 0 ? errno : 0;
          break;
        }
        got[piece] += static_cast<std::uint64_t>(n);
      }
    }
    std::uint64_t read = 0;
    for (int piece = 0; piece < pieces; ++piece) {
      WARPDEX_EXPECTS(errors[piece] == 0, "cannot read " + std::string(name_) + ": " + std::strerror(errors[piece]));
      read += got[piece];
      if (got[piece] < want * (piece + 1) / pieces - want * piece / pieces) {
        at_end = true;
        break;
      }
    }
    offset_ += read;
    read_ += read;
    return filled + read;
  }

  void read_all()
  {
    try {
      std::vector<byte> carry;  // the previous chunk's incomplete last line begins the next one
      std::uint64_t base = 0;
      bool at_end = false;
      for (std::optional<int> slot = free_.pop(); slot; slot = free_.pop()) {
        chunk& next = chunks_[*slot];
        if (next.bytes.size() < std::max<std::uint64_t>(capacity_, carry.size() + 1)) {
          next.bytes = allocate(std::max<std::uint64_t>(capacity_, 2 * carry.size()));
        }
        std::copy(carry.begin(), carry.end(), next.bytes.data());
        std::uint64_t filled = at_end ? carry.size() : fill(next.bytes, carry.size(), at_end);
        std::uint64_t whole = filled;  // bytes up to the last newline, or all at the end of the input
        while (!at_end) {
          const auto* newline = static_cast<const byte*>(memrchr(next.bytes.data(), '\n', filled));
          if (newline != nullptr) {
            whole = newline + 1 - next.bytes.data();
            break;
          }
          buffer<byte> larger = allocate(2 * next.bytes.size());  // a line longer than the chunk
          std::copy(next.bytes.data(), next.bytes.data() + filled, larger.data());
          next.bytes = std::move(larger);
          filled = fill(next.bytes, filled, at_end);
          whole = filled;
        }
        carry.assign(next.bytes.data() + whole, next.bytes.data() + filled);
        next.data = next.bytes.data();
        next.base = base;
        next.size = whole;
        base += whole;
        filled_.push(*slot);
        if (at_end && carry.empty()) { break; }
      }
    } catch (...) {
      error_ = std::current_exception();  // published to next() by closing the queue
    }
    filled_.close();
  }

  /// `read_all` over the mapping: each slot's chunk ends where a read into the slot's buffer would have
  /// ended (the same sizes, grown the same way by long lines, cut at the last newline), so binary input
  /// begins where it does when reading; nothing is copied.
  void map_all()
  {
    std::array<std::uint64_t, grep_pipeline_slots> sizes{};  // what each slot's buffer would hold
    std::array<std::uint64_t, grep_pipeline_slots> ends{};   // file offset where each slot's chunk ended
    const std::uint64_t file_end = mapping_.size();
    std::uint64_t start = offset_;     // file offset of the next chunk's first byte
    std::uint64_t released = offset_;  // pages before this offset were given back
    std::uint64_t read_to = offset_;   // file offset up to which a read would have gone
    std::uint64_t base = 0;
    bool at_end = false;
    // A read of want bytes into a buffer `filled` full: shortened to end where GNU grep's reads do, as
    // `fill` does, and short at the end of the file.
    auto read_more = [&](std::uint64_t size, std::uint64_t filled) {
      std::uint64_t want = size - filled;
      if (want > grep_gnu_read_bytes) { want -= (read_ + want) % grep_gnu_read_bytes; }
      const std::uint64_t got = std::min(want, file_end - read_to);
      read_to += got;
      read_ += got;
      at_end = at_end || got < want;
      return filled + got;
    };
    for (std::optional<int> slot = free_.pop(); slot; slot = free_.pop()) {
      const auto start_time = clock_type::now();
      chunk& next = chunks_[*slot];
      // The slot's last chunk was searched, and so were all chunks before it (they are released in order).
      if (ends[*slot] > released) {
        mapping_.release(released, ends[*slot]);
        released = ends[*slot];
      }
      const std::uint64_t carried = read_to - start;
      std::uint64_t& size = sizes[*slot];
      if (size < std::max<std::uint64_t>(capacity_, carried + 1)) {
        size = std::max<std::uint64_t>(capacity_, 2 * carried);
      }
      byte* data = mapping_.data() + start;
      std::uint64_t filled = at_end ? carried : read_more(size, carried);
      std::uint64_t whole = filled;
      while (!at_end) {
        const auto* newline = static_cast<const byte*>(memrchr(data, '\n', filled));
        if (newline != nullptr) {
          whole = newline + 1 - data;
          break;
        }
        size *= 2;  // a line longer than the chunk
        filled = read_more(size, filled);
        whole = filled;
      }
      next.data = data;
      next.base = base;
      next.size = whole;
      start += whole;
      ends[*slot] = start;
      base += whole;
      read_nanoseconds_ += std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - start_time).count();
      filled_.push(*slot);
      if (at_end && start == read_to) { break; }
    }
    filled_.close();
  }

  std::FILE* input_;
  std::string_view name_;
  std::uint64_t capacity_;
  std::uint64_t read_ = 0;  ///< bytes read from the input so far
  bool pinned_;
  unsigned threads_ = 1;      ///< more than one: a regular file read with pread
  std::uint64_t offset_ = 0;  ///< with pread: the file offset of the next byte to read; mapped: of the first
  std::array<chunk, grep_pipeline_slots> chunks_;
  slot_queue free_;
  slot_queue filled_;
  std::exception_ptr error_;
  std::atomic<std::int64_t> read_nanoseconds_ = 0;
  mapped_file mapping_;
  std::thread thread_;
};

/// Finds candidates of a chunk on the backend: `stage` starts moving a chunk to where the backend searches
/// it (device slot 0 or 1); `walk` searches it and walks its lines. Stage chunk k + 1 before walking k.
template <class Backend>
class chunk_searcher;

#if WARPDEX_HAS_HYPERSCAN
/// An occurrence found in a chunk: its first byte's offset and its length.
struct found_entry {
  std::uint64_t start = 0;
  std::uint32_t length = 0;

  /// By start, then longest first: the leftmost-longest occurrence at or after a position comes first.
  friend bool operator<(const found_entry& a, const found_entry& b)
  {
    return a.start != b.start ? a.start < b.start : a.length > b.length;
  }
  friend bool operator==(const found_entry& a, const found_entry& b) = default;
};

/// The occurrences a matcher found in a chunk, in `found_entry` order, as the line walk asks for them: the
/// leftmost-longest one at or after a position, shorter ones at the same place, a whole line. With an
/// empty pattern among the patterns, it also occurs (empty) at every position. Either every occurrence
/// (-o, --color, an empty pattern) or the first that selects each line.
class occurrence_list {
 public:
  occurrence_list(const byte* data, std::vector<found_entry> entries, bool has_empty)
      : data_(data), entries_(std::move(entries)), has_empty_(has_empty)
  {
  }

  [[nodiscard]] occurrence find(const byte* from, const byte* end) const
  {
    const auto next = first_at_or_after(from);
    if (next != entries_.end() && data_ + next->start == from) { return {from, next->length}; }
    if (has_empty_) { return {from, 0}; }
    if (next == entries_.end() || data_ + next->start + next->length > end) { return {}; }
    return {data_ + next->start, next->length};
  }

  [[nodiscard]] occurrence shorter(occurrence found, const byte*) const
  {
    const found_entry key{static_cast<std::uint64_t>(found.at - data_), static_cast<std::uint32_t>(found.size)};
    const auto next = std::upper_bound(entries_.begin(), entries_.end(), key);
    if (next != entries_.end() && next->start == key.start) { return {found.at, next->length}; }
    return has_empty_ && found.size > 0 ? occurrence{found.at, 0} : occurrence{};
  }

  [[nodiscard]] occurrence whole_line(const byte* from, const byte* end) const
  {
    const auto size = static_cast<std::size_t>(end - from);
    if (has_empty_ && size == 0) { return {from, 0}; }
    for (auto at = first_at_or_after(from); at != entries_.end() && data_ + at->start == from; ++at) {
      if (at->length == size) { return {from, size}; }
    }
    return {};
  }

 private:
  [[nodiscard]] std::vector<found_entry>::const_iterator first_at_or_after(const byte* from) const
  {
    return std::lower_bound(entries_.begin(), entries_.end(),
                            found_entry{static_cast<std::uint64_t>(from - data_), ~std::uint32_t{0}});
  }

  const byte* data_;
  std::vector<found_entry> entries_;
  bool has_empty_;
};

/// The least bytes one thread scans of a chunk: smaller pieces would spend more on starting threads.
constexpr std::uint64_t host_scan_piece_bytes = std::uint64_t{64} << 10;
/// Threads that scan the pieces of each chunk. They block between chunks: OpenMP's threads would spin
/// there (its default wait policy), taking the cores from the reader thread; on the 2-core CI machine
/// `-c the` over 200 MB took 1.6 s of CPU instead of 0.25 s.
class piece_workers {
 public:
  /// `threads` - 1 threads of its own; the calling thread is the last one.
  explicit piece_workers(int threads)
  {
    for (int worker = 1; worker < threads; ++worker) {
      threads_.emplace_back([this, worker] { serve(worker); });
    }
  }

  piece_workers(const piece_workers&) = delete;
  piece_workers& operator=(const piece_workers&) = delete;

  ~piece_workers()
  {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& thread : threads_) { thread.join(); }
  }

  /// Runs task(piece, thread) for each piece in [0, pieces), piece p on thread p % threads (thread 0 is
  /// the caller), and waits for all of them; rethrows the first exception a task threw.
  void run(int pieces, const std::function<void(int, int)>& task)
  {
    const int threads = static_cast<int>(threads_.size()) + 1;
    {
      const std::lock_guard lock(mutex_);
      task_ = &task;
      pieces_ = pieces;
      busy_ = static_cast<int>(threads_.size());
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    work(0, threads);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    task_ = nullptr;
    if (error_) { std::rethrow_exception(error_); }
  }

 private:
  void work(int thread, int threads)
  {
    for (int piece = thread; piece < pieces_; piece += threads) {
      try {
        (*task_)(piece, thread);
      } catch (...) {
        const std::lock_guard lock(mutex_);
        if (!error_) { error_ = std::current_exception(); }
      }
    }
  }

  void serve(int worker)
  {
    std::uint64_t seen = 0;
    while (true) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) { return; }
        seen = generation_;
      }
      work(worker, static_cast<int>(threads_.size()) + 1);
      {
        const std::lock_guard lock(mutex_);
        --busy_;
      }
      done_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int, int)>* task_ = nullptr;
  int pieces_ = 0;
  int busy_ = 0;  ///< workers still running the current task
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

/// A chunk searched with Hyperscan on all cores: cut at line starts into one piece per thread, each
/// scanned with every group of the patterns on the thread's own scratch space; the pieces' occurrences
/// are joined in order. Where only lines are selected (no -o, --color or empty pattern), each line keeps
/// only the first occurrence that selects it, checked for -w and -x where it is reported (both are
/// decided by the bytes right around it), and the number of selected lines is known without a line walk.
class hyperscan_chunk_search {
 public:
  hyperscan_chunk_search(const pattern_set& patterns, const grep_options& options)
      : patterns_(patterns),
        options_(options),
        every_occurrence_(options.only_matching || options.color || patterns.has_empty()),
        formats_pieces_(options.output == grep_output::lines && !every_occurrence_ && !options.invert_match &&
                        !options.line_regexp),
        threads_(std::max(omp_get_max_threads(), 1)),
        engine_(views(patterns), patterns.ignore_case(), threads_),
        workers_(threads_)
  {
  }

  /// Whether Hyperscan can search for these patterns: at least one of them is not empty.
  static bool applies(const pattern_set& patterns)
  {
    return std::any_of(patterns.patterns().begin(), patterns.patterns().end(),
                       [](const std::string& pattern) { return !pattern.empty(); });
  }

  /// Searches a prepared chunk (`line_walker::prepare`) and walks it, or counts its selected lines.
  void walk(const byte* data, std::size_t size, std::uint64_t base, std::size_t binary_from, line_walker& walker)
  {
    search_and_walk(data, size, base, binary_from, false, walker);
  }

  /// `walk` of a chunk `prepare` has not looked at, the input not binary so far: each piece's thread looks
  /// its piece over for NUL bytes before scanning it (no pass of one thread over the chunk first; on a
  /// mapped file these threads are the first to read it). False, nothing taken, when a piece holds one:
  /// then the chunk is prepared and walked.
  bool walk_text(const byte* data, std::size_t size, std::uint64_t base, line_walker& walker)
  {
    return search_and_walk(data, size, base, size, true, walker);
  }

 private:
  bool search_and_walk(const byte* data, std::size_t size, std::uint64_t base, std::size_t binary_from, bool check_nul,
                       line_walker& walker)
  {
    std::vector<std::size_t> starts{0};
    const auto pieces = static_cast<int>(std::clamp<std::uint64_t>(size / host_scan_piece_bytes, 1, threads_));
    for (int piece = 1; piece < pieces; ++piece) {
      const std::size_t nominal = std::max(starts.back(), size * piece / pieces);
      const auto* newline = static_cast<const byte*>(std::memchr(data + nominal, '\n', size - nominal));
      if (newline == nullptr) { break; }
      starts.push_back(newline + 1 - data);
    }
    starts.push_back(size);
    // Pieces longer than one scan takes are cut further (at line starts, or anywhere in a longer line,
    // where occurrences crossing the cut are found by the overlap of `scan_range`).
    const auto count = static_cast<int>(starts.size() - 1);
    std::vector<piece_result> results(count);
    std::atomic<bool> holds_nul = false;
    workers_.run(count, [&](int piece, int thread) {
      if (check_nul && std::memchr(data + starts[piece], 0, starts[piece + 1] - starts[piece]) != nullptr) {
        holds_nul = true;
        return;
      }
      search_piece(data, starts[piece], starts[piece + 1], thread, results[piece]);
    });
    if (holds_nul) { return false; }
    if (check_nul) { binary_from = walker.prepare_text(size); }
    const bool counting = !every_occurrence_ && options_.output != grep_output::lines;
    if (counting) {
      std::uint64_t selected = 0;
      for (const piece_result& result : results) { selected += result.selected; }
      if (options_.invert_match) {
        std::uint64_t lines = 0;
        for (const piece_result& result : results) { lines += result.lines; }
        selected = lines - selected;
      }
      walker.take_count(selected, binary_from < size);
      return true;
    }
    // An empty pattern matches every line without an entry here (the walk finds it), so it is walked.
    if (!options_.invert_match && !patterns_.has_empty() &&
        std::all_of(results.begin(), results.end(), [](const piece_result& r) { return r.entries.empty(); })) {
      // Nothing selected: no line walk, only the line numbers carried on (counted by the pieces' threads).
      std::uint64_t newlines = 0;
      for (const piece_result& result : results) { newlines += result.newlines; }
      walker.skip_chunk(newlines, binary_from < size);
      return true;
    }
    if (formats_pieces_ && binary_from == size) {
      format_pieces(data, base, starts, results, walker);
      return true;
    }
    std::vector<found_entry> entries;
    if (count == 1) {
      entries = std::move(results.front().entries);
    } else {
      for (const piece_result& result : results) {
        entries.insert(entries.end(), result.entries.begin(), result.entries.end());
      }
    }
    walker.walk_prepared(data, size, base, binary_from,
                         occurrence_list(data, std::move(entries), patterns_.has_empty()));
    return true;
  }

  struct piece_result {
    std::vector<found_entry> entries;
    std::uint64_t selected = 0;  ///< lines with an occurrence that selects them (without every_occurrence_)
    std::uint64_t lines = 0;     ///< lines in the piece (counted for -v -c)
    std::uint64_t newlines = 0;  ///< newlines in the piece (counted for -n)
  };

  /// Prints the selected lines of a text chunk (each piece's first occurrence a line), each piece formatted
  /// by its own thread (name, -n's number, -b's offset, the line), written in order by this one. As the
  /// walk prints them; the line numbers go on by the chunk's newlines.
  void format_pieces(const byte* data, std::uint64_t base, const std::vector<std::size_t>& starts,
                     const std::vector<piece_result>& results, line_walker& walker)
  {
    const auto count = static_cast<int>(results.size());
    std::vector<std::uint64_t> lines_before(count);  // lines of the input before each piece
    std::uint64_t lines = walker.lines_before();
    for (int piece = 0; piece < count; ++piece) {
      lines_before[piece] = lines;
      lines += results[piece].newlines;
    }
    const std::string prefix = walker.name_prefix();
    std::vector<std::string> texts(count);
    workers_.run(count, [&](int piece, int) {
      std::string& text = texts[piece];
      const std::size_t end = starts[piece + 1];
      std::size_t counted = starts[piece];  // a line start: the lines before it are counted in `number`
      std::uint64_t number = lines_before[piece];
      char digits[24];
      const auto field = [&](std::uint64_t value) {
        text.append(digits, std::to_chars(digits, digits + sizeof(digits), value).ptr);
        text += ':';
      };
      for (const found_entry& entry : results[piece].entries) {
        const auto* newline = static_cast<const byte*>(memrchr(data + counted, '\n', entry.start - counted));
        const std::size_t line = newline != nullptr ? static_cast<std::size_t>(newline + 1 - data) : counted;
        if (options_.line_number) { number += count_newlines(data + counted, data + line); }
        const auto* after = static_cast<const byte*>(std::memchr(data + entry.start, '\n', end - entry.start));
        const std::size_t line_end = after != nullptr ? static_cast<std::size_t>(after - data) : end;
        text += prefix;
        if (options_.line_number) { field(number + 1); }
        if (options_.byte_offset) { field(base + line); }
        text.append(reinterpret_cast<const char*>(data + line), line_end - line);
        text += '\n';
        ++number;
        counted = std::min(line_end + 1, end);
      }
    });
    for (int piece = 0; piece < count; ++piece) {
      walker.take_lines(results[piece].selected,
                        std::span<const byte>(reinterpret_cast<const byte*>(texts[piece].data()), texts[piece].size()));
    }
    walker.skip_chunk(lines - walker.lines_before(), false);
  }

  static std::vector<std::string_view> views(const pattern_set& patterns)
  {
    std::vector<std::string_view> nonempty;
    for (const std::string& pattern : patterns.patterns()) {
      if (!pattern.empty()) { nonempty.emplace_back(pattern); }
    }
    return nonempty;
  }

  /// Whether the occurrence data[start, stop) in the piece [begin, end) of whole lines selects its line:
  /// always, or with -x when it is its line, with -w when no word byte touches it.
  [[nodiscard]] bool selects(const byte* data, std::size_t begin, std::size_t end, std::size_t start,
                             std::size_t stop) const
  {
    if (options_.line_regexp) {
      return (start == begin || data[start - 1] == '\n') && (stop == end || data[stop] == '\n');
    }
    if (options_.word_regexp) {
      return (start == begin || !is_word_byte(data[start - 1])) && (stop == end || !is_word_byte(data[stop]));
    }
    return true;
  }

  void search_piece(const byte* data, std::size_t begin, std::size_t end, int thread, piece_result& result) const
  {
    const std::size_t before = result.entries.size();
    for (std::size_t group = 0; group < engine_.group_count(); ++group) {
      if (every_occurrence_) {
        scan_range(group, data, begin, end, thread, [&](std::size_t start, std::uint32_t length) {
          result.entries.push_back({start, length});
          return true;
        });
        continue;
      }
      // The first occurrence selecting each line: the scan stops there and starts again at the next line,
      // so a line with many occurrences (-c e, or many patterns) costs one report, not one per occurrence.
      for (std::size_t from = begin; from < end;) {
        std::size_t next = end;
        scan_range(group, data, from, end, thread, [&](std::size_t start, std::uint32_t length) {
          if (!selects(data, begin, end, start, start + length)) { return true; }
          const auto* newline =
              static_cast<const byte*>(std::memchr(data + start + length, '\n', end - start - length));
          next = newline != nullptr ? newline + 1 - data : end;
          result.entries.push_back({start, length});
          return false;
        });
        from = next;
      }
    }
    if (engine_.group_count() > 1 || every_occurrence_) {  // in order; without -o, one occurrence a line
      std::sort(result.entries.begin() + before, result.entries.end());
      result.entries.erase(std::unique(result.entries.begin() + before, result.entries.end()), result.entries.end());
      if (!every_occurrence_) { keep_first_per_line(data, end, result.entries); }
    }
    result.selected = result.entries.size() - before;
    if (options_.invert_match && !every_occurrence_ && options_.output != grep_output::lines) {
      // Every piece but the chunk's last ends after a newline; the last line of the input may lack one.
      result.lines = count_newlines(data + begin, data + end) +
                     (end > begin && data[end - 1] != '\n' ? 1 : 0);
    }
    // For the line numbers of a chunk with nothing selected, or of lines formatted by pieces.
    if (options_.line_number && (result.entries.size() == before || formats_pieces_)) {
      result.newlines = count_newlines(data + begin, data + end);
    }
  }

  /// Of entries in order, keeps the first of each line.
  static void keep_first_per_line(const byte* data, std::size_t end, std::vector<found_entry>& entries)
  {
    std::size_t kept = 0;
    std::size_t line_end = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (kept > 0 && entries[i].start < line_end) { continue; }
      const auto* newline =
          static_cast<const byte*>(std::memchr(data + entries[i].start, '\n', end - entries[i].start));
      line_end = newline != nullptr ? newline - data : end;
      entries[kept++] = entries[i];
    }
    entries.resize(kept);
  }

  /// Scans data[begin, end) with one group, calling on_match(start, length) for each occurrence in
  /// ascending order of its end until it returns false; ranges longer than one scan takes are scanned in
  /// overlapping parts (each part reports the occurrences that start in it).
  template <class OnMatch>
  void scan_range(std::size_t group, const byte* data, std::size_t begin, std::size_t end, int thread,
                  OnMatch&& on_match) const
  {
    for (std::size_t part = begin; part < end; part += detail::hyperscan_scan_bytes_max) {
      const std::size_t part_end = std::min<std::size_t>(end, part + detail::hyperscan_scan_bytes_max);
      const std::size_t scanned_end = std::min<std::size_t>(end, part_end + engine_.longest() - 1);
      bool go_on = true;
      auto report = [&](std::uint32_t id, std::uint64_t stop) {
        const std::uint32_t length = engine_.length(id);
        const std::size_t start = part + stop - length;
        if (start >= part_end) { return true; }
        go_on = on_match(start, length);
        return go_on;
      };
      engine_.scan(group, data + part, scanned_end - part, thread, report);
      if (!go_on) { return; }
    }
  }

  const pattern_set& patterns_;
  const grep_options& options_;
  bool every_occurrence_;
  bool formats_pieces_;  ///< printed lines are formatted by the pieces' threads (format_pieces)
  int threads_;
  detail::hyperscan_literals engine_;
  piece_workers workers_;
};
#endif

template <>
class chunk_searcher<host> {
 public:
  chunk_searcher(const host&, const pattern_set& patterns, const grep_options& options, std::string_view)
      : patterns_(patterns)
  {
#if WARPDEX_HAS_HYPERSCAN
    if (!options.builtin_matcher && hyperscan_chunk_search::applies(patterns)) {
      hyperscan_.emplace(patterns, options);
    }
#else
    static_cast<void>(options);
#endif
  }

  void stage(const chunk&, int) {}

  void walk(chunk& searched, int, line_walker& walker, grep_stage_seconds&)
  {
#if WARPDEX_HAS_HYPERSCAN
    if (hyperscan_) {
      byte* data = searched.data;
      if (!walker.binary() && hyperscan_->walk_text(data, searched.size, searched.base, walker)) { return; }
      hyperscan_->walk(data, searched.size, searched.base, walker.prepare(data, searched.size, searched.base), walker);
      return;
    }
#endif
    walker.walk(searched.data, searched.size, searched.base, patterns_);
  }

  [[nodiscard]] double copy_seconds() const
  {
    return 0;
  }

 private:
  const pattern_set& patterns_;
#if WARPDEX_HAS_HYPERSCAN
  std::optional<hyperscan_chunk_search> hyperscan_;
#endif
};

#if WARPDEX_HAS_CUDA
/// A CUDA stream of its own, not ordered with the legacy default stream.
struct owned_stream {
  cudaStream_t stream = nullptr;
  owned_stream() { WARPDEX_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  ~owned_stream() { cudaStreamDestroy(stream); }
};

struct owned_event {
  cudaEvent_t event = nullptr;
  owned_event() { WARPDEX_CUDA_TRY(cudaEventCreate(&event)); }
  owned_event(const owned_event&) = delete;
  owned_event& operator=(const owned_event&) = delete;
  ~owned_event() { cudaEventDestroy(event); }
};

/// One case-sensitive pattern: two device buffers used in turn; chunk k + 1 is copied into one on a copy
/// stream while chunk k is searched in the other on the backend's stream, which waits for the copy's
/// event. Several patterns or -i: a `device_pattern_set` selects the lines there when nothing but them
/// (or their number) is asked for. Otherwise (an empty pattern, or several patterns with -w, -x, -o, -n,
/// -b, --color or -v printing lines) the host searches.
template <>
class chunk_searcher<cuda> {
 public:
  chunk_searcher(const cuda& backend, const pattern_set& patterns, const grep_options& options, std::string_view name)
      : backend_(backend),
        patterns_(patterns),
        printing_(options.output == grep_output::lines),
        // Several patterns or -i: the lines are found on the GPU when nothing but them (or their number, or
        // with -v the number of the others) is asked for; otherwise the host walks the lines, as for an
        // empty pattern.
        set_on_device_(
            set_searched_on_device(patterns.patterns().size(), patterns.ignore_case(), patterns.has_empty(), options)),
        on_device_(searched_on_device(patterns.patterns().size(), patterns.ignore_case(), patterns.has_empty(), options)),
        lines_on_device_(on_device_ && !options.word_regexp && !options.line_regexp && !options.only_matching &&
                         !options.color),
        line_number_(options.line_number),
        byte_offset_(options.byte_offset),
        only_matching_(options.only_matching),
        invert_(options.invert_match),
        prefix_(options.with_filename ? std::string(name) + ":" : std::string())
  {
    if (set_on_device_) {
      // -x before -w, as the host's walk decides
      set_.emplace(backend, std::span<const std::string>(patterns.patterns()), patterns.ignore_case(),
                   options.line_regexp   ? detail::set_occurrences::whole_lines
                   : options.word_regexp ? detail::set_occurrences::whole_words
                                         : detail::set_occurrences::any);
    }
  }

  chunk_searcher(const chunk_searcher&) = delete;
  chunk_searcher& operator=(const chunk_searcher&) = delete;

  /// A copy may still be in flight when the search ends early: it must land before its device buffer is
  /// freed (on the backend's stream) and before its host chunk is.
  ~chunk_searcher() { cudaStreamSynchronize(copy_.stream); }

  void stage(const chunk& next, int slot)
  {
    if (!on_device_) { return; }
    if (device_[slot].size() < next.size) {  // the first chunk, or a chunk grown by a long line
      WARPDEX_CUDA_TRY(cudaStreamSynchronize(copy_.stream));
      backend_.synchronize();
      device_[slot] = make_device_buffer<byte>(next.bytes.size(), backend_.stream);
      backend_.synchronize();
    }
    WARPDEX_CUDA_TRY(cudaEventRecord(copy_started_[slot].event, copy_.stream));
    WARPDEX_CUDA_TRY(
        cudaMemcpyAsync(device_[slot].data(), next.data, next.size, cudaMemcpyHostToDevice, copy_.stream));
    WARPDEX_CUDA_TRY(cudaEventRecord(copied_[slot].event, copy_.stream));
  }

  void walk(chunk& searched, int slot, line_walker& walker, grep_stage_seconds& seconds)
  {
    if (!on_device_) {
      walker.walk(searched.data, searched.size, searched.base, patterns_);
      return;
    }
    const auto search_start = clock_type::now();
    WARPDEX_CUDA_TRY(cudaStreamWaitEvent(backend_.stream, copied_[slot].event, 0));
    const std::string& pattern = patterns_.patterns().front();
    const std::span<const byte> text(device_[slot].data(), searched.size);
    const auto add_copy_time = [&] {
      // Not every path below waits on the device (a binary chunk walked on the host, a walker already
      // done): the copy's events must have completed before their time can be read.
      WARPDEX_CUDA_TRY(cudaEventSynchronize(copied_[slot].event));
      float copy_ms = 0;
      WARPDEX_CUDA_TRY(cudaEventElapsedTime(&copy_ms, copy_started_[slot].event, copied_[slot].event));
      copy_seconds_ += copy_ms * 1e-3;
    };
    if (set_on_device_) {
      // A chunk with a NUL byte makes the input binary from a place only the host walk finds.
      if (!walker.binary() && count_matches(backend_, text, as_bytes(std::string_view("\0", 1))) == 0) {
        take_set_lines(text, searched, walker);
        add_copy_time();
        seconds.search += seconds_since(search_start);
        return;
      }
      add_copy_time();
      seconds.search += seconds_since(search_start);
      walker.walk(searched.data, searched.size, searched.base, patterns_);
      return;
    }
    // A chunk with a NUL byte makes the input binary from a place only the host walk finds.
    if (lines_on_device_ && !walker.binary() &&
        count_matches(backend_, text, as_bytes(std::string_view("\0", 1))) == 0) {
      take_device_lines(text, searched, as_bytes(pattern), walker);
      add_copy_time();
      seconds.search += seconds_since(search_start);
      return;
    }
    std::vector<std::uint64_t> found = find_matches(backend_, text, as_bytes(pattern)).to_vector();
    add_copy_time();
    seconds.search += seconds_since(search_start);
    walker.walk(searched.data, searched.size, searched.base,
                position_list(searched.data, std::move(found), pattern.size()));
  }

  [[nodiscard]] double copy_seconds() const { return copy_seconds_; }

 private:
  /// The lines of a chunk without NUL bytes selected by the pattern set, counted or formatted on the GPU
  /// (with -v the chunk's lines less those with an occurrence).
  void take_set_lines(std::span<const byte> text, const chunk& searched, line_walker& walker)
  {
    if (walker.done()) { return; }
    if (!printing_) {
      take_count(set_->count_lines(text), text, searched, walker);
      return;
    }
    if (only_matching_) {
      std::uint64_t selected = 0;
      const buffer<line_span> matches = set_->find_occurrences(text, selected);
      take_formatted(text, searched.base, matches, walker, selected);
      return;
    }
    buffer<line_span> lines = set_->find_lines(text);
    if (invert_) { lines = other_lines(backend_, text, lines.span()); }
    take_formatted(text, searched.base, lines, walker);
  }

  /// Takes the number of selected lines of a chunk (`text` on the GPU) from the number of lines with an
  /// occurrence: with -v the chunk's lines less those.
  void take_count(std::uint64_t matching, std::span<const byte> text, const chunk& searched, line_walker& walker)
  {
    if (!invert_) {
      walker.take_lines(matching, {});
      return;
    }
    std::uint64_t lines = count_matches(backend_, text, as_bytes(std::string_view("\n")));
    if (searched.size != 0 && searched.data[searched.size - 1] != '\n') { ++lines; }
    walker.take_lines(lines - matching, {});
  }

  /// Brings `lines` of `text` (input bytes from `base` on; with -o the matches) back formatted by the GPU,
  /// with -n and -b, and hands them to the walker as `selected` lines (all of them unless told); with -n the
  /// walker's line count then moves past the chunk.
  void take_formatted(std::span<const byte> text, std::uint64_t base, const buffer<line_span>& lines,
                      line_walker& walker, std::optional<std::uint64_t> selected = std::nullopt)
  {
    if (!lines.empty()) {
      const line_fields fields{line_number_, byte_offset_, walker.lines_before(), base};
      const buffer<byte> formatted = gather_lines(backend_, text, lines.span(), prefix_, fields);
      if (output_.size() < formatted.size()) { output_ = make_pinned_buffer<byte>(formatted.size()); }
      WARPDEX_CUDA_TRY(cudaMemcpyAsync(output_.data(), formatted.data(), formatted.size(), cudaMemcpyDeviceToHost,
                                       backend_.stream));
      backend_.synchronize();
      walker.take_lines(selected.value_or(lines.size()), std::span<const byte>(output_.data(), formatted.size()));
    }
    if (line_number_) { walker.skip_chunk(count_matches(backend_, text, as_bytes(std::string_view("\n"))), false); }
  }

  /// The matching lines of a chunk without NUL bytes (with -v the others), counted or formatted on the GPU.
  void take_device_lines(std::span<const byte> text, const chunk& searched, std::span<const byte> pattern,
                         line_walker& walker)
  {
    if (walker.done()) { return; }
    if (!printing_) {
      take_count(count_matching_lines(backend_, text, pattern), text, searched, walker);
      return;
    }
    buffer<line_span> lines = find_matching_lines(backend_, text, pattern);
    if (invert_) { lines = other_lines(backend_, text, lines.span()); }
    take_formatted(text, searched.base, lines, walker);
  }

  cuda backend_;
  const pattern_set& patterns_;
  bool printing_;       ///< lines are printed (not only counted)
  bool set_on_device_;  ///< several patterns or -i, and the options ask for nothing but the selected lines
  bool on_device_;
  bool lines_on_device_;  ///< the options ask for nothing but the matching lines (with -v, -n, -b)
  bool line_number_;      ///< -n
  bool byte_offset_;      ///< -b
  bool only_matching_;    ///< -o
  bool invert_;           ///< -v
  std::optional<detail::device_pattern_set> set_;
  std::string prefix_;   ///< each printed line's: the file name and ':', or nothing
  buffer<byte> output_;  ///< pinned: the formatted lines of the last chunk
  owned_stream copy_;    // declared before the buffers and events, so that it outlives them
  std::array<owned_event, 2> copy_started_;
  std::array<owned_event, 2> copied_;
  std::array<buffer<byte>, 2> device_;
  double copy_seconds_ = 0;
};
#endif

}  // namespace

grep_cuda_plan plan_grep_on_cuda(std::span<const std::string> patterns, const grep_options& options)
{
  const std::vector<std::string> split = split_patterns(patterns, options.ignore_case);
  const bool has_empty = !split.empty() && split.back().empty();
  return {split.size(), searched_on_device(split.size(), options.ignore_case, has_empty, options)};
}

template <class Backend>
grep_result grep_stream(const Backend& backend, std::FILE* input, std::string_view name,
                        std::span<const std::string> patterns, const grep_options& options, std::FILE* output)
{
  WARPDEX_EXPECTS(options.chunk_bytes >= 1, "grep: the chunk size must be at least 1 byte");
  constexpr bool on_host = std::is_same_v<Backend, host>;
  const unsigned threads = options.reader_threads != 0 ? options.reader_threads
                           : on_host                   ? 1U
                                                       : std::clamp(std::thread::hardware_concurrency(), 1U, 16U);
  // The reader starts before the patterns are prepared: the first chunks are read (on the cuda backend
  // its first pinned buffer brings CUDA's context up) while this thread builds the pattern set and matcher.
  std::optional<chunk_reader> reader(std::in_place, input, name, options.chunk_bytes, !on_host, threads,
                                     options.map_files);
  const pattern_set set(patterns, options.ignore_case);
  line_walker walker(set, name, options, output);
  grep_stage_seconds seconds;
  {
    chunk_searcher<Backend> searcher(backend, set, options, name);
    int slot = 0;
    chunk* current = reader->next();
    if (current != nullptr) { searcher.stage(*current, slot); }
    while (current != nullptr && !walker.done()) {
      chunk* following = reader->next();
      if (following != nullptr) { searcher.stage(*following, 1 - slot); }
      const auto walk_start = clock_type::now();
      const double searched_before = seconds.search;
      searcher.walk(*current, slot, walker, seconds);
      seconds.output += seconds_since(walk_start) - (seconds.search - searched_before);
      reader->release(*current);
      current = following;
      slot = 1 - slot;
    }
    seconds.read = reader->read_seconds();
    seconds.copy = searcher.copy_seconds();
  }
  reader.reset();  // after the searcher, whose copies from its buffers have landed
  walker.finish();
  grep_result result = walker.result();
  result.seconds = seconds;
  return result;
}

template grep_result grep_stream<host>(const host&, std::FILE*, std::string_view, std::span<const std::string>,
                                       const grep_options&, std::FILE*);
#if WARPDEX_HAS_CUDA
template grep_result grep_stream<cuda>(const cuda&, std::FILE*, std::string_view, std::span<const std::string>,
                                       const grep_options&, std::FILE*);
#endif

}  // namespace warpdex
