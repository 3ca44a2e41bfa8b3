// The streaming fixed-string grep: chunks overlapping by m - 1 bytes are searched on the backend, and the
// host walks the lines of each chunk alongside the sorted match positions.
#include <warpdex/core/error.hpp>
#include <warpdex/search/grep.hpp>
#include <warpdex/search/string_match.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace warpdex {
namespace {

/// The per-input state of the line walk, carried from chunk to chunk.
class line_printer {
 public:
  line_printer(std::string_view name, const grep_options& options, std::FILE* output)
      : name_(name), options_(options), output_(output)
  {
  }

  /// Walks the lines of `data[0, size)` (input bytes from offset `base` on) given the sorted positions of
  /// the occurrences that start there. Returns false once nothing more needs to be read.
  bool walk(const std::uint8_t* data, std::uint64_t size, std::uint64_t base, const std::vector<std::uint64_t>& starts,
            bool has_nul)
  {
    result_.binary = result_.binary || (has_nul && result_.matching_lines == 0 && !line_has_match_);
    std::size_t next_match = 0;
    std::uint64_t position = 0;
    while (position < size) {
      const auto* newline = static_cast<const std::uint8_t*>(std::memchr(data + position, '\n', size - position));
      const std::uint64_t end = newline != nullptr ? static_cast<std::uint64_t>(newline - data) : size;
      for (; next_match < starts.size() && starts[next_match] - base < end; ++next_match) { line_has_match_ = true; }
      if (newline == nullptr) {
        if (keeps_lines()) { current_line_.append(reinterpret_cast<const char*>(data + position), size - position); }
        line_bytes_ += size - position;
        break;
      }
      if (!finish_line(reinterpret_cast<const char*>(data + position), end - position)) { return false; }
      line_start_ = base + end + 1;
      position = end + 1;
    }
    return true;
  }

  /// Ends the input: a last line without a newline is a line too. Prints the count with -c.
  grep_result finish()
  {
    if (line_bytes_ > 0) { finish_line(nullptr, 0); }
    if (options_.count_only) {
      prefix_name();
      std::fprintf(output_, "%llu\n", static_cast<unsigned long long>(result_.matching_lines));
    }
    return result_;
  }

 private:
  [[nodiscard]] bool keeps_lines() const { return !options_.count_only && !result_.binary; }

  void prefix_name()
  {
    if (options_.with_filename) {
      std::fwrite(name_.data(), 1, name_.size(), output_);
      std::fputc(':', output_);
    }
  }

  /// Completes the current line, whose last `size` bytes are at `tail`; false when the input is binary
  /// and has matched, which ends the search (its lines are not printed).
  bool finish_line(const char* tail, std::uint64_t size)
  {
    const bool matched = line_has_match_;
    line_has_match_ = false;
    ++line_number_;
    line_bytes_ = 0;
    if (matched) {
      ++result_.matching_lines;
      if (result_.binary && !options_.count_only) { return false; }  // the caller reports the binary match
      if (!options_.count_only) {
        prefix_name();
        if (options_.line_number) { std::fprintf(output_, "%llu:", static_cast<unsigned long long>(line_number_)); }
        if (options_.byte_offset) { std::fprintf(output_, "%llu:", static_cast<unsigned long long>(line_start_)); }
        std::fwrite(current_line_.data(), 1, current_line_.size(), output_);
        if (size > 0) { std::fwrite(tail, 1, size, output_); }
        std::fputc('\n', output_);
      }
    }
    current_line_.clear();
    return true;
  }

  std::string_view name_;
  const grep_options& options_;
  std::FILE* output_;
  grep_result result_;
  std::uint64_t line_number_ = 0;  ///< lines completed so far
  std::uint64_t line_start_ = 0;   ///< input offset of the current line
  std::uint64_t line_bytes_ = 0;   ///< bytes of the current line seen in earlier chunks
  bool line_has_match_ = false;
  std::string current_line_;  ///< the current line's bytes from earlier chunks, when lines are printed
};

/// Occurrences of the pattern starting in text[0, own), as offsets into the input (base + start).
template <class Backend>
std::vector<std::uint64_t> chunk_matches(const Backend& backend, std::span<const std::uint8_t> text, std::uint64_t own,
                                         std::uint64_t base, std::span<const std::uint8_t> pattern,
                                         buffer<std::uint8_t>& staging)
{
  std::span<const std::uint8_t> searched = text;
  if constexpr (!std::is_same_v<Backend, host>) {
    staging.copy_from(text);
    searched = std::span<const std::uint8_t>(staging.data(), text.size());
  }
  std::vector<std::uint64_t> starts = find_matches(backend, searched, pattern).to_vector();
  starts.erase(std::lower_bound(starts.begin(), starts.end(), own), starts.end());
  for (std::uint64_t& start : starts) { start += base; }
  return starts;
}

}  // namespace

template <class Backend>
grep_result grep_stream(const Backend& backend, std::FILE* input, std::string_view name, std::string_view pattern,
                        const grep_options& options, std::FILE* output)
{
  WARPDEX_EXPECTS(!pattern.empty(), "grep: the pattern is empty");
  WARPDEX_EXPECTS(pattern.find('\n') == std::string_view::npos,
                  "grep: the pattern contains a newline; search for one line's text at a time");
  WARPDEX_EXPECTS(options.chunk_bytes >= 1, "grep: the chunk size must be at least 1 byte");
  const std::uint64_t overlap = pattern.size() - 1;
  const std::uint64_t capacity = options.chunk_bytes + overlap;
  std::vector<std::uint8_t> data(capacity);
  auto staging = make_buffer<std::uint8_t>(backend, std::is_same_v<Backend, host> ? 0 : capacity);
  line_printer printer(name, options, output);
  std::uint64_t base = 0;    // input offset of data[0]
  std::uint64_t filled = 0;  // valid bytes in data
  bool more = true;
  while (more) {
    const std::size_t read = std::fread(data.data() + filled, 1, capacity - filled, input);
    WARPDEX_EXPECTS(!std::ferror(input), "grep: cannot read " + std::string(name) + ": " + std::strerror(errno));
    filled += read;
    const bool at_end = filled < capacity;
    const std::uint64_t own = at_end ? filled : options.chunk_bytes;
    if (own == 0) { break; }
    const auto starts = chunk_matches(backend, std::span<const std::uint8_t>(data.data(), filled), own, base,
                                      as_bytes(pattern), staging);
    const bool has_nul = std::memchr(data.data(), 0, own) != nullptr;
    more = printer.walk(data.data(), own, base, starts, has_nul) && !at_end;
    std::memmove(data.data(), data.data() + own, filled - own);
    filled -= own;
    base += own;
  }
  return printer.finish();
}

template grep_result grep_stream<host>(const host&, std::FILE*, std::string_view, std::string_view, const grep_options&,
                                       std::FILE*);
#if WARPDEX_HAS_CUDA
template grep_result grep_stream<cuda>(const cuda&, std::FILE*, std::string_view, std::string_view, const grep_options&,
                                       std::FILE*);
#endif

}  // namespace warpdex
