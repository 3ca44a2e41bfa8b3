// Binding of `warpdex grep`'s engine: fixed-string grep over a file or bytes, output as GNU grep -F prints it.

#include "arrays.hpp"

#include <warpdex/search/grep.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace warpdex::python {
namespace {

grep_output output_of(const std::string& output)
{
  if (output == "lines") { return grep_output::lines; }
  if (output == "count") { return grep_output::count; }
  if (output == "files_with_matches") { return grep_output::files_with_matches; }
  if (output == "files_without_match") { return grep_output::files_without_match; }
  if (output == "quiet") { return grep_output::quiet; }
  throw nb::value_error(("grep: output must be 'lines', 'count', 'files_with_matches', 'files_without_match' or "
                         "'quiet', got '" +
                         output + "'")
                            .c_str());
}

struct file_closer {
  void operator()(std::FILE* file) const noexcept { std::fclose(file); }
};
using file_handle = std::unique_ptr<std::FILE, file_closer>;

/// (output bytes, selected lines, binary input, binary matches) of grep over the file at `path`, or over
/// `data` when no path is given (bytes in memory).
nb::tuple grep_binding(const std::string& path, const nb::bytes& data, bool from_file, const std::string& name,
                       const std::vector<nb::bytes>& pattern_bytes, const std::string& output, bool ignore_case,
                       bool invert_match, bool word_regexp, bool line_regexp, bool only_matching, bool byte_offset,
                       bool line_number, bool with_filename, std::uint64_t chunk_bytes, const std::string& device)
{
  std::vector<std::string> patterns;  // bytes as they are (a str would arrive UTF-8 encoded)
  patterns.reserve(pattern_bytes.size());
  for (const nb::bytes& pattern : pattern_bytes) { patterns.emplace_back(pattern.c_str(), pattern.size()); }
  grep_options options;
  options.output = output_of(output);
  options.ignore_case = ignore_case;
  options.invert_match = invert_match;
  options.word_regexp = word_regexp;
  options.line_regexp = line_regexp;
  options.only_matching = only_matching;
  options.byte_offset = byte_offset;
  options.line_number = line_number;
  options.with_filename = with_filename;
  const placement place = placement_of(device);
  if (chunk_bytes == 0) { chunk_bytes = place.cuda ? grep_default_cuda_chunk_bytes : grep_default_host_chunk_bytes; }
  options.chunk_bytes = chunk_bytes;

  file_handle input(from_file ? std::fopen(path.c_str(), "rb")
                              : fmemopen(const_cast<char*>(data.c_str()), data.size(), "rb"));
  if (!input) {
    const int error = errno;
    throw nb::value_error(
        ("grep: cannot open " + (from_file ? path : std::string("the bytes")) + ": " + std::strerror(error)).c_str());
  }
  char* printed = nullptr;
  std::size_t printed_size = 0;
  file_handle sink(open_memstream(&printed, &printed_size));
  if (!sink) { throw std::bad_alloc(); }
  grep_result result;
  try {
    result = run_on(place, 0, [&](const auto& backend) {  // the GIL is released while it runs
      return grep_stream(backend, input.get(), name, std::span<const std::string>(patterns), options, sink.get());
    });
  } catch (...) {
    sink.reset();
    std::free(printed);
    throw;
  }
  sink.reset();  // flushes into `printed`
  nb::bytes text(printed, printed_size);
  std::free(printed);
  return nb::make_tuple(text, result.matching_lines, result.binary, result.binary_matches);
}

}  // namespace

void bind_grep(nb::module_& module)
{
  module.def("grep", &grep_binding, nb::arg("path"), nb::arg("data"), nb::arg("from_file"), nb::arg("name"),
             nb::arg("patterns"), nb::arg("output"), nb::arg("ignore_case"), nb::arg("invert_match"),
             nb::arg("word_regexp"), nb::arg("line_regexp"), nb::arg("only_matching"), nb::arg("byte_offset"),
             nb::arg("line_number"), nb::arg("with_filename"), nb::arg("chunk_bytes"), nb::arg("device"),
             "(output, matching_lines, binary, binary_matches) of a fixed-string grep, printed as GNU grep -F.");
}

}  // namespace warpdex::python
