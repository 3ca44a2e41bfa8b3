#pragma once
// line_match.hpp written once against Thrust execution policies; line_match_cuda.cu and
// line_match_host.cpp instantiate it for their backend (the host one on Thrust's OpenMP system).
//
// From the ascending occurrences p_0 < p_1 < ... (find_matches), occurrence j opens a line when a newline
// lies in [p_{j-1}, p_j): it looks back from p_j to p_{j-1} + 1 and stops at the first newline. The
// ranges looked at are disjoint, so the work is at most the text's bytes, and no pass over the text
// marks line starts. A line's end is found by looking forward from the occurrence that opens it.

#include <warpdex/core/detail/thrust_backend.hpp>

#include <warpdex/core/config.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/search/line_match.hpp>

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>

namespace warpdex::detail {

inline constexpr std::uint64_t no_line = std::numeric_limits<std::uint64_t>::max();

/// For occurrence j: its line, begin .. (the occurrence, for now) when it is the first occurrence in its
/// line, else a span whose begin is `no_line`.
struct opened_line {
  const std::uint8_t* text;
  const std::uint64_t* positions;

  WARPDEX_HOST_DEVICE line_span operator()(std::uint64_t j) const
  {
    const std::uint64_t at = positions[j];
    const std::uint64_t lower = j == 0 ? 0 : positions[j - 1] + 1;
    for (std::uint64_t q = at; q > lower; --q) {
      if (text[q - 1] == '\n') { return {q, at}; }
    }
    return {j == 0 ? 0 : no_line, at};
  }
};

struct opens_line {
  WARPDEX_HOST_DEVICE bool operator()(const line_span& line) const { return line.begin != no_line; }
};

/// Moves each line's end from its first occurrence to its newline (or the text's end).
struct line_end_finder {
  const std::uint8_t* text;
  std::uint64_t size;

  WARPDEX_HOST_DEVICE void operator()(line_span& line) const
  {
    std::uint64_t end = line.end;
    while (end < size && text[end] != '\n') { ++end; }
    line.end = end;
  }
};

/// Lines are numbered from newlines counted per block of the text (then within a line's block).
inline constexpr std::uint64_t newline_block_bytes = 4096;

/// The newlines in text[from, to), 8 bytes a step where the text is aligned for it.
WARPDEX_HOST_DEVICE inline std::uint64_t newlines_in(const std::uint8_t* text, std::uint64_t from, std::uint64_t to)
{
  std::uint64_t count = 0;
  std::uint64_t q = from;
  for (; q < to && reinterpret_cast<std::uintptr_t>(text + q) % 8 != 0; ++q) { count += text[q] == '\n' ? 1 : 0; }
  for (; q + 8 <= to; q += 8) {
    std::uint64_t word = 0;
#ifdef __CUDA_ARCH__
    word = *reinterpret_cast<const std::uint64_t*>(text + q);
#else
    std::memcpy(&word, text + q, 8);
#endif
    const std::uint64_t x = word ^ 0x0A0A0A0A0A0A0A0AULL;  // newline bytes become zero
    // The high bit of each zero byte of x, exactly (no borrow from one byte into the next).
    const std::uint64_t zero = ~(((x & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | x) & 0x8080808080808080ULL;
#ifdef __CUDA_ARCH__
    count += static_cast<std::uint64_t>(__popcll(zero));
#else
    count += static_cast<std::uint64_t>(__builtin_popcountll(zero));
#endif
  }
  for (; q < to; ++q) { count += text[q] == '\n' ? 1 : 0; }
  return count;
}

struct block_newlines {
  const std::uint8_t* text;
  std::uint64_t size;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t block) const
  {
    const std::uint64_t from = block * newline_block_bytes;
    return newlines_in(text, from, from + newline_block_bytes < size ? from + newline_block_bytes : size);
  }
};

/// A line's 1-based number in the input: the newlines before its block, then within the block.
struct line_number_of {
  const std::uint8_t* text;
  const std::uint64_t* newlines_before_block;
  std::uint64_t lines_before;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(const line_span& line) const
  {
    const std::uint64_t block = line.begin / newline_block_bytes;
    return lines_before + 1 + newlines_before_block[block] + newlines_in(text, block * newline_block_bytes, line.begin);
  }
};

WARPDEX_HOST_DEVICE inline std::uint64_t decimal_digits(std::uint64_t value)
{
  std::uint64_t digits = 1;
  for (; value >= 10; value /= 10) { ++digits; }
  return digits;
}

/// What line i of the output takes: the prefix, the fields asked for with their ':', the line, its newline
/// (0 past the last line, so that a scan over lines + 1 values ends with the total).
struct formatted_size {
  const line_span* lines;
  const std::uint64_t* numbers;  ///< the lines' numbers, or nullptr without -n
  std::uint64_t count;
  std::uint64_t prefix_size;
  bool offset;
  std::uint64_t text_offset;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t i) const
  {
    if (i == count) { return 0; }
    const line_span line = lines[i];
    std::uint64_t size = prefix_size + (line.end - line.begin) + 1;
    if (numbers != nullptr) { size += decimal_digits(numbers[i]) + 1; }
    if (offset) { size += decimal_digits(text_offset + line.begin) + 1; }
    return size;
  }
};

struct line_copier {
  const std::uint8_t* text;
  const line_span* lines;
  const std::uint64_t* offsets;
  const std::uint8_t* prefix;
  std::uint64_t prefix_size;
  const std::uint64_t* numbers;  ///< or nullptr
  bool offset;
  std::uint64_t text_offset;
  std::uint8_t* output;

  WARPDEX_HOST_DEVICE static std::uint8_t* write_field(std::uint8_t* to, std::uint64_t value)
  {
    const std::uint64_t digits = decimal_digits(value);
    for (std::uint64_t k = digits; k > 0; --k) {
      to[k - 1] = static_cast<std::uint8_t>('0' + value % 10);
      value /= 10;
    }
    to[digits] = ':';
    return to + digits + 1;
  }

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    std::uint8_t* to = output + offsets[i];
    for (std::uint64_t k = 0; k < prefix_size; ++k) { *to++ = prefix[k]; }
    if (numbers != nullptr) { to = write_field(to, numbers[i]); }
    if (offset) { to = write_field(to, text_offset + lines[i].begin); }
    for (std::uint64_t k = lines[i].begin; k < lines[i].end; ++k) { *to++ = text[k]; }
    *to = '\n';
  }
};

inline void check_line_pattern(std::span<const std::uint8_t> pattern, const char* caller)
{
  WARPDEX_EXPECTS(!pattern.empty(), std::string(caller) + ": the pattern is empty (it would match every line)");
  WARPDEX_EXPECTS(std::find(pattern.begin(), pattern.end(), std::uint8_t{'\n'}) == pattern.end(),
                  std::string(caller) + ": the pattern holds a newline, so it cannot lie within a line");
}

template <class Backend>
std::uint64_t count_matching_lines_impl(const Backend& backend, std::span<const std::uint8_t> text,
                                        std::span<const std::uint8_t> pattern, match_algorithm algorithm)
{
  check_line_pattern(pattern, "count_matching_lines");
  const buffer<std::uint64_t> positions = find_matches(backend, text, pattern, algorithm);
  const auto lines = thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0),
                                                     opened_line{text.data(), positions.data()});
  return static_cast<std::uint64_t>(thrust::count_if(policy(backend), lines, lines + positions.size(), opens_line{}));
}

template <class Backend>
buffer<line_span> find_matching_lines_impl(const Backend& backend, std::span<const std::uint8_t> text,
                                           std::span<const std::uint8_t> pattern, match_algorithm algorithm)
{
  check_line_pattern(pattern, "find_matching_lines");
  const buffer<std::uint64_t> positions = find_matches(backend, text, pattern, algorithm);
  const auto opened = thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0),
                                                      opened_line{text.data(), positions.data()});
  const auto count = static_cast<std::size_t>(
      thrust::count_if(policy(backend), opened, opened + positions.size(), opens_line{}));
  buffer<line_span> lines = make_buffer<line_span>(backend, count);
  if (count == 0) { return lines; }
  thrust::copy_if(policy_nosync(backend), opened, opened + positions.size(), lines.data(), opens_line{});
  thrust::for_each(policy_nosync(backend), lines.data(), lines.data() + count, line_end_finder{text.data(), text.size()});
  backend.synchronize();
  return lines;
}

/// Line i of a text from its newlines' positions: from after newline i - 1 to newline i (or the end).
struct line_of_newlines {
  const std::uint64_t* newlines;
  std::uint64_t count;  ///< newlines
  std::uint64_t size;   ///< the text's
  WARPDEX_HOST_DEVICE line_span operator()(std::uint64_t i) const
  {
    return {i == 0 ? 0 : newlines[i - 1] + 1, i < count ? newlines[i] : size};
  }
};

struct line_begin {
  WARPDEX_HOST_DEVICE std::uint64_t operator()(const line_span& line) const { return line.begin; }
};

struct clear_flag {
  std::uint8_t* flags;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const { flags[i] = 0; }
};

struct flag_set {
  WARPDEX_HOST_DEVICE bool operator()(std::uint8_t flag) const { return flag != 0; }
};

template <class Backend>
buffer<line_span> other_lines_impl(const Backend& backend, std::span<const std::uint8_t> text,
                                   std::span<const line_span> selected)
{
  if (text.empty()) { return make_buffer<line_span>(backend, 0); }
  const std::uint8_t newline[] = {'\n'};
  const buffer<std::uint64_t> newlines = find_matches(backend, text, std::span<const std::uint8_t>(newline));
  const std::uint64_t count = newlines.size();
  const bool unterminated = count == 0 || read_back(backend, newlines.data() + count - 1) + 1 < text.size();
  const std::uint64_t total = count + (unterminated ? 1 : 0);
  const auto lines = thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0),
                                                     line_of_newlines{newlines.data(), count, text.size()});
  buffer<std::uint8_t> keep = make_buffer<std::uint8_t>(backend, total);
  thrust::fill(policy_nosync(backend), keep.data(), keep.data() + total, std::uint8_t{1});
  if (!selected.empty()) {
    // Each selected line's index among all lines: the line beginning where it begins.
    buffer<std::uint64_t> indices = make_buffer<std::uint64_t>(backend, selected.size());
    const auto begins = thrust::make_transform_iterator(lines, line_begin{});
    const auto selected_begins = thrust::make_transform_iterator(selected.data(), line_begin{});
    thrust::lower_bound(policy_nosync(backend), begins, begins + total, selected_begins,
                        selected_begins + selected.size(), indices.data());
    thrust::for_each(policy_nosync(backend), indices.data(), indices.data() + selected.size(), clear_flag{keep.data()});
    backend.synchronize();  // indices is freed on leaving this scope
  }
  const auto kept = static_cast<std::uint64_t>(
      thrust::count_if(policy(backend), keep.data(), keep.data() + total, flag_set{}));
  buffer<line_span> others = make_buffer<line_span>(backend, kept);
  if (kept != 0) {
    thrust::copy_if(policy_nosync(backend), lines, lines + total, keep.data(), others.data(), flag_set{});
  }
  backend.synchronize();
  return others;
}

template <class Backend>
buffer<std::uint8_t> gather_lines_impl(const Backend& backend, std::span<const std::uint8_t> text,
                                       std::span<const line_span> lines, std::string_view prefix,
                                       const line_fields& fields)
{
  if constexpr (std::is_same_v<Backend, host>) {
    for (const line_span& line : lines) {
      WARPDEX_EXPECTS(line.begin <= line.end && line.end <= text.size(),
                      "gather_lines: a line [" + std::to_string(line.begin) + ", " + std::to_string(line.end) +
                          ") lies outside the text of " + std::to_string(text.size()) + " bytes");
    }
  }
  if (lines.empty()) { return make_buffer<std::uint8_t>(backend, 0); }
  // With -n: the newlines before each 4 KiB block of the text, then each line's number from its block on.
  buffer<std::uint64_t> numbers;
  if (fields.number) {
    const std::uint64_t blocks = (text.size() + newline_block_bytes - 1) / newline_block_bytes;
    buffer<std::uint64_t> before_block = make_buffer<std::uint64_t>(backend, blocks);
    const auto counts = thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0),
                                                        block_newlines{text.data(), text.size()});
    thrust::exclusive_scan(policy_nosync(backend), counts, counts + blocks, before_block.data(), std::uint64_t{0});
    numbers = make_buffer<std::uint64_t>(backend, lines.size());
    thrust::transform(policy_nosync(backend), lines.data(), lines.data() + lines.size(), numbers.data(),
                      line_number_of{text.data(), before_block.data(), fields.lines_before});
    backend.synchronize();  // before_block is freed on leaving this scope
  }
  const std::uint64_t* line_numbers = fields.number ? numbers.data() : nullptr;
  // offsets[i] is where line i's output begins; offsets[n] is the total.
  buffer<std::uint64_t> offsets = make_buffer<std::uint64_t>(backend, lines.size() + 1);
  const auto sizes = thrust::make_transform_iterator(
      thrust::counting_iterator<std::uint64_t>(0),
      formatted_size{lines.data(), line_numbers, lines.size(), prefix.size(), fields.offset, fields.text_offset});
  thrust::exclusive_scan(policy_nosync(backend), sizes, sizes + lines.size() + 1, offsets.data(), std::uint64_t{0});
  const std::uint64_t total = read_back(backend, offsets.data() + lines.size());
  buffer<std::uint8_t> prefix_bytes = make_buffer<std::uint8_t>(backend, prefix.size());
  prefix_bytes.copy_from({reinterpret_cast<const std::uint8_t*>(prefix.data()), prefix.size()});
  buffer<std::uint8_t> output = make_buffer<std::uint8_t>(backend, total);
  thrust::for_each(policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                   thrust::counting_iterator<std::uint64_t>(lines.size()),
                   line_copier{text.data(), lines.data(), offsets.data(), prefix_bytes.data(), prefix.size(),
                               line_numbers, fields.offset, fields.text_offset, output.data()});
  backend.synchronize();
  return output;
}

}  // namespace warpdex::detail

namespace warpdex {

template <class Backend>
std::uint64_t count_matching_lines(const Backend& backend, std::span<const std::uint8_t> text,
                                   std::span<const std::uint8_t> pattern, match_algorithm algorithm)
{
  return detail::count_matching_lines_impl(backend, text, pattern, algorithm);
}

template <class Backend>
buffer<line_span> find_matching_lines(const Backend& backend, std::span<const std::uint8_t> text,
                                      std::span<const std::uint8_t> pattern, match_algorithm algorithm)
{
  return detail::find_matching_lines_impl(backend, text, pattern, algorithm);
}

template <class Backend>
buffer<line_span> other_lines(const Backend& backend, std::span<const std::uint8_t> text,
                              std::span<const line_span> selected)
{
  return detail::other_lines_impl(backend, text, selected);
}

template <class Backend>
buffer<std::uint8_t> gather_lines(const Backend& backend, std::span<const std::uint8_t> text,
                                  std::span<const line_span> lines, std::string_view prefix, const line_fields& fields)
{
  return detail::gather_lines_impl(backend, text, lines, prefix, fields);
}

}  // namespace warpdex

// Instantiates the public functions for one backend (in its translation unit, at namespace scope).
#define WARPDEX_INSTANTIATE_LINE_MATCH(Backend)                                                                 \
  template std::uint64_t warpdex::count_matching_lines<Backend>(const Backend&, std::span<const std::uint8_t>, \
                                                                std::span<const std::uint8_t>, warpdex::match_algorithm); \
  template warpdex::buffer<warpdex::line_span> warpdex::find_matching_lines<Backend>(                          \
      const Backend&, std::span<const std::uint8_t>, std::span<const std::uint8_t>, warpdex::match_algorithm); \
  template warpdex::buffer<warpdex::line_span> warpdex::other_lines<Backend>(                                  \
      const Backend&, std::span<const std::uint8_t>, std::span<const warpdex::line_span>);                     \
  template warpdex::buffer<std::uint8_t> warpdex::gather_lines<Backend>(                                       \
      const Backend&, std::span<const std::uint8_t>, std::span<const warpdex::line_span>, std::string_view,      \
      const warpdex::line_fields&);
