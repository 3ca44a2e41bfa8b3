// `grep_stream` against `grep -F` on generated files: every supported flag combination, chunk sizes that
// put occurrences and lines across chunk boundaries, several files, a last line without a newline,
// binary files, empty and multi-line patterns, no patterns, write errors.
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/search/grep.hpp>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace warpdex::testing {
namespace {

namespace fs = std::filesystem;

std::string read_all(std::FILE* file)
{
  std::string text;
  std::rewind(file);
  char block[4096];
  for (std::size_t got; (got = std::fread(block, 1, sizeof(block), file)) > 0;) { text.append(block, got); }
  return text;
}

/// What `grep -F` prints for these flags (the pattern is passed through a file: no shell quoting).
std::string reference_grep(const std::string& flags, const std::string& pattern, const std::vector<fs::path>& files,
                           const fs::path& folder)
{
  const fs::path pattern_file = folder / "pattern.txt";
  std::ofstream(pattern_file) << pattern << '\n';
  std::string command = "LC_ALL=C grep -F " + flags + " -f '" + pattern_file.string() + "'";
  for (const fs::path& file : files) { command += " '" + file.string() + "'"; }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) { return "popen failed"; }
  std::string text;
  char block[4096];
  for (std::size_t got; (got = std::fread(block, 1, sizeof(block), pipe.get())) > 0;) { text.append(block, got); }
  return text;
}

template <class Backend>
std::string warpdex_grep(const Backend& backend, grep_options options, const std::string& pattern,
                         const std::vector<fs::path>& files)
{
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> output(std::tmpfile(), std::fclose);
  options.with_filename = files.size() > 1;
  for (const fs::path& file : files) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> input(std::fopen(file.string().c_str(), "rb"), std::fclose);
    grep_stream(backend, input.get(), file.string(), pattern, options, output.get());
  }
  std::fflush(output.get());
  return read_all(output.get());
}

template <class Backend>
class grep_test : public backend_test<Backend> {
 protected:
  void SetUp() override
  {
    backend_test<Backend>::SetUp();
    if (std::system("grep -F -q x /dev/null 2>/dev/null; test $? -le 1") != 0) { GTEST_SKIP() << "no grep here"; }
    folder_ = fs::temp_directory_path() / ("warpdex_grep_test_" + std::to_string(std::random_device{}()));
    fs::create_directories(folder_);
  }
  void TearDown() override
  {
    if (!folder_.empty()) { fs::remove_all(folder_); }
  }

  fs::path write_file(const std::string& name, const std::string& content)
  {
    const fs::path path = folder_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  /// Chunk sizes for `compare`: fewer on the GPU, where each chunk is a transfer and three kernels.
  static std::vector<std::uint64_t> default_chunks()
  {
    std::vector<std::uint64_t> chunks = {4093, std::uint64_t{1} << 26};
    if constexpr (std::is_same_v<Backend, host>) { chunks.insert(chunks.end(), {7, 61}); }
    return chunks;
  }

  /// Compares the output for every combination of -c, -b and -n, then for -i, -v, -w, -x, -o, -l and -L
  /// (each with -n), at each chunk size.
  void compare(const std::string& pattern, const std::vector<fs::path>& files,
               const std::vector<std::uint64_t>& chunks = default_chunks())
  {
    for (int flags = 0; flags < 15; ++flags) {
      grep_options options;
      std::string flag_text;
      if (flags < 8) {
        options.output = (flags & 1) != 0 ? grep_output::count : grep_output::lines;
        options.byte_offset = (flags & 2) != 0;
        options.line_number = (flags & 4) != 0;
        flag_text = std::string((flags & 1) != 0 ? " -c" : "") + (options.byte_offset ? " -b" : "") +
                    (options.line_number ? " -n" : "");
      } else {
        options.line_number = true;
        static const char* const names[] = {" -i", " -v", " -w", " -x", " -o", " -l", " -L"};
        flag_text = std::string(" -n") + names[flags - 8];
        options.ignore_case = flags == 8;
        options.invert_match = flags == 9;
        options.word_regexp = flags == 10;
        options.line_regexp = flags == 11;
        options.only_matching = flags == 12;
        if (flags == 13) { options.output = grep_output::files_with_matches; }
        if (flags == 14) { options.output = grep_output::files_without_match; }
      }
      const std::string expected = reference_grep(flag_text, pattern, files, folder_);
      for (const std::uint64_t chunk : chunks) {
        options.chunk_bytes = chunk;
        SCOPED_TRACE("pattern '" + pattern + "', chunk " + std::to_string(chunk) + ", flags" + flag_text);
        ASSERT_EQ(warpdex_grep(this->backend(), options, pattern, files), expected);
      }
    }
  }

  fs::path folder_;
};

TYPED_TEST_SUITE(grep_test, all_backends, backend_names);

std::string words_text(std::uint64_t words, std::mt19937_64& random)
{
  static const char* const vocabulary[] = {"alpha", "beta", "warp", "search", "warpdex", "the", "a", "grep", "lane"};
  std::string text;
  for (std::uint64_t i = 0; i < words; ++i) {
    text += vocabulary[random() % 9];
    text += random() % 6 == 0 ? '\n' : ' ';
  }
  return text;
}

TYPED_TEST(grep_test, output_matches_grep_for_every_flag_and_chunk_size)
{
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  const auto first = this->write_file("first.txt", words_text(3000, random));
  const auto second = this->write_file("second.txt", words_text(500, random) + "warp at the end, no newline");
  const auto empty = this->write_file("empty.txt", "");
  for (const std::string pattern :
       {"warp", "a", "warpdex lane", "e\tx", "no newline", "never there", "WARP", "", "beta\nlane", "the\nthe a"}) {
    this->compare(pattern, {first});
    this->compare(pattern, {first, second, empty});
  }
}

TYPED_TEST(grep_test, long_lines_and_long_patterns_across_chunks)
{
  std::mt19937_64 random(std::random_device{}());
  std::string line(20000, 'x');
  line.replace(9000, 3000, std::string(3000, 'y'));
  const auto file = this->write_file("long.txt", "short\n" + line + "\n" + line + "tail");
  this->compare(std::string(1500, 'y'), {file});
  this->compare("xy", {file});
  this->compare("tail", {file});
}

TYPED_TEST(grep_test, many_chunks_wrap_the_pipeline_with_matches_across_every_boundary)
{
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  const std::string pattern = "boundary word";
  // Dozens to hundreds of chunks, so the ring of chunks wraps many times; fewer on the GPU, where each chunk
  // is a transfer and three kernels. The host also takes chunks shorter than the pattern.
  std::vector<std::uint64_t> chunks = {251};
  if constexpr (std::is_same_v<TypeParam, host>) { chunks.insert(chunks.end(), {97, 98, pattern.size() / 2}); }
  for (const std::uint64_t chunk : chunks) {
    std::string text = words_text(2500, random);
    // One occurrence across every chunk boundary k * chunk, starting 1 to m - 1 bytes before it.
    for (std::uint64_t boundary = std::max(chunk, pattern.size()); boundary + pattern.size() < text.size();
         boundary += std::max(chunk, pattern.size())) {
      const std::uint64_t before = 1 + (boundary / chunk) % (pattern.size() - 1);
      text.replace(boundary - before, pattern.size(), pattern);
    }
    const auto file = this->write_file("boundaries.txt", text);
    const auto last_line_open = this->write_file("open.txt", text + pattern);
    ASSERT_GT(text.size() / chunk, std::uint64_t{8} * grep_pipeline_slots);
    ASSERT_NE(reference_grep("-c", pattern, {file}, this->folder_), "0\n");
    this->compare(pattern, {file}, {chunk});
    this->compare(pattern, {last_line_open, file}, {chunk});
    this->compare("e", {file}, {chunk});
  }
}

TYPED_TEST(grep_test, binary_file_prints_no_lines_but_counts_with_nul_ending_lines)
{
  const std::string content = std::string("text\n") + '\0' + "more text" + '\0' + "text\nand text again\n";
  const auto file = this->write_file("binary.bin", content);
  grep_options options;
  EXPECT_EQ(warpdex_grep(this->backend(), options, "text", {file}), "");  // grep says so on stderr
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> input(std::fopen(file.string().c_str(), "rb"), std::fclose);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> output(std::tmpfile(), std::fclose);
  const grep_result result = grep_stream(this->backend(), input.get(), "binary.bin", "text", options, output.get());
  EXPECT_TRUE(result.binary);
  EXPECT_TRUE(result.binary_matches);
  EXPECT_EQ(result.matching_lines, 1U);  // the search stops at the first selected line
  EXPECT_EQ(warpdex_grep(this->backend(), options, "absent", {file}), "");
  options.output = grep_output::count;
  // NUL bytes end lines in binary input, as in GNU grep: 4 lines hold "text".
  EXPECT_EQ(warpdex_grep(this->backend(), options, "text", {file}),
            reference_grep("-c", "text", {file}, this->folder_));
  EXPECT_EQ(warpdex_grep(this->backend(), options, "text", {file}), "4\n");
}

TYPED_TEST(grep_test, no_patterns_select_no_line_and_inverted_every_line)
{
  const auto file = this->write_file("some.txt", "abc\n\nxyz");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> output(std::tmpfile(), std::fclose);
  for (const bool invert : {false, true}) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> input(std::fopen(file.string().c_str(), "rb"), std::fclose);
    grep_options options;
    options.invert_match = invert;
    const grep_result result =
        grep_stream(this->backend(), input.get(), "some.txt", std::span<const std::string>(), options, output.get());
    EXPECT_EQ(result.matching_lines, invert ? 3U : 0U);
  }
  EXPECT_EQ(read_all(output.get()), "abc\n\nxyz\n");
}

TYPED_TEST(grep_test, a_buffer_reused_at_the_same_size_is_searched_afresh)
{
  // Chunks of exactly 10 lines: chunk 4 lands in chunk 0's buffer, at the same size; chunk 0 has no
  // match, chunk 4 has ten (with one pattern and several, so that the host's search runs either way).
  std::string text;
  for (int line = 0; line < 80; ++line) { text += line >= 40 && line < 50 ? "zzzzzzzzz\n" : "aaaaaaaaa\n"; }
  const auto file = this->write_file("same_size.txt", text);
  grep_options options;
  options.output = grep_output::count;
  options.chunk_bytes = 100;
  EXPECT_EQ(warpdex_grep(this->backend(), options, "zzz", {file}), "10\n");
  EXPECT_EQ(warpdex_grep(this->backend(), options, "zzz\nyyy", {file}), "10\n");
  options.ignore_case = true;
  EXPECT_EQ(warpdex_grep(this->backend(), options, "ZZZ", {file}), "10\n");
}

TYPED_TEST(grep_test, a_zero_chunk_is_rejected)
{
  const auto file = this->write_file("some.txt", "abc\n");
  grep_options zero_chunk;
  zero_chunk.chunk_bytes = 0;
  expect_error_mentioning<error>([&] { warpdex_grep(this->backend(), zero_chunk, "a", {file}); }, {"chunk size"});
}

TYPED_TEST(grep_test, a_write_error_is_reported)
{
  const auto file = this->write_file("lines.txt", std::string(1 << 20, 'a') + "\n");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> full(std::fopen("/dev/full", "wb"), std::fclose);
  ASSERT_TRUE(full);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> input(std::fopen(file.string().c_str(), "rb"), std::fclose);
  expect_error_mentioning<error>(
      [&] { (void)grep_stream(this->backend(), input.get(), "lines.txt", "a", grep_options{}, full.get()); },
      {"write error", "No space left on device"});
}

TYPED_TEST(grep_test, a_file_read_by_several_threads_gives_grep_output)
{
  // Pieces of at least 4 MiB each: 13 MiB make three pieces a chunk, one shorter than the others, and
  // a 9 MiB chunk makes the file two chunks, the first a pread over two threads.
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  std::string text;
  while (text.size() < (std::uint64_t{13} << 20)) { text += words_text(4096, random); }
  const auto file = this->write_file("large.txt", text + "warp without newline");
  for (const std::uint64_t chunk : {std::uint64_t{64} << 20, std::uint64_t{9} << 20}) {
    for (const grep_output output : {grep_output::count, grep_output::lines, grep_output::files_with_matches}) {
      grep_options options;
      options.output = output;
      options.chunk_bytes = chunk;
      options.reader_threads = 3;
      const std::string flag = output == grep_output::count ? "-c" : output == grep_output::lines ? "" : "-l";
      SCOPED_TRACE("chunk " + std::to_string(chunk) + ", flag " + flag);
      EXPECT_EQ(warpdex_grep(this->backend(), options, "warpdex lane", {file}),
                reference_grep(flag, "warpdex lane", {file}, this->folder_));
      EXPECT_EQ(warpdex_grep(this->backend(), options, "warp", {file}),
                reference_grep(flag, "warp", {file}, this->folder_));
    }
  }
}

TYPED_TEST(grep_test, a_nul_byte_after_chunks_of_text_makes_the_rest_binary)
{
  // Chunks of text searched (on the GPU: lines formatted there) before the chunk holding the NUL byte.
  std::mt19937_64 random(std::random_device{}());
  std::string text = words_text(60000, random);
  text.insert(text.size() * 3 / 4, std::string(1, '\0'));
  const auto file = this->write_file("late_binary.bin", text);
  for (const char* flag : {"", "-c", "-l", "-L"}) {
    grep_options options;
    options.output = std::string(flag) == "-c"   ? grep_output::count
                     : std::string(flag) == "-l" ? grep_output::files_with_matches
                     : std::string(flag) == "-L" ? grep_output::files_without_match
                                                 : grep_output::lines;
    options.chunk_bytes = 1 << 16;
    SCOPED_TRACE(std::string("flag ") + flag);
    EXPECT_EQ(warpdex_grep(this->backend(), options, "warp", {file}),
              reference_grep(flag, "warp", {file}, this->folder_));
  }
}

// Several patterns (or -i) with -w or -x: on the GPU, the pattern set decides the bounds of each occurrence
// in its kernel (no line walk); a pattern inside a word, one at a line's edge, and -x before -w; -n and -b
// formatted there too, numbered across chunks; -o's matches found there (overlapping and nested patterns).
TYPED_TEST(grep_test, whole_words_and_lines_of_several_patterns_like_grep)
{
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  const auto file = this->write_file(
      "words.txt", words_text(20000, random) + "\nwarp\na\nwarp_9 xwarp warpdex-lane (beta)\nWarp\nbeta.\nlane alpha beta");
  struct flags_case {
    const char* text;
    bool count, invert, word, line, fold;
    bool number = false, offset = false;  // -n, -b: formatted with the lines on the GPU
    bool only = false;                    // -o: the matches found by the set on the GPU
  };
  const flags_case cases[] = {{" -w", false, false, true, false, false},    {" -x", false, false, false, true, false},
                              {" -c -w", true, false, true, false, false},  {" -c -x", true, false, false, true, false},
                              {" -c -v -w", true, true, true, false, false}, {" -c -w -x", true, false, true, true, false},
                              {" -i -w", false, false, true, false, true},  {" -c -i -x", true, false, false, true, true},
                              {" -n", false, false, false, false, false, true, false},
                              {" -n -b -w", false, false, true, false, false, true, true},
                              {" -b -i", false, false, false, false, true, false, true},
                              {" -n -x", false, false, false, true, false, true, false},
                              {" -v -n", false, true, false, false, false, true, false},
                              {" -v -w -b", false, true, true, false, false, false, true},
                              {" -o", false, false, false, false, false, false, false, true},
                              {" -o -b -n -w", false, false, true, false, false, true, true, true},
                              {" -o -i", false, false, false, false, true, false, false, true}};
  for (const std::string pattern :
       {"warp\nthe", "warp\nwarpdex lane", "a\nbeta", "lane alpha beta\nbeta.", "WARP\nBeta", "a\nal\nalpha beta"}) {
    for (const flags_case& c : cases) {
      grep_options options;
      options.output = c.count ? grep_output::count : grep_output::lines;
      options.invert_match = c.invert;
      options.word_regexp = c.word;
      options.line_regexp = c.line;
      options.ignore_case = c.fold;
      options.line_number = c.number;
      options.byte_offset = c.offset;
      options.only_matching = c.only;
      const std::string expected = reference_grep(c.text, pattern, {file}, this->folder_);
      for (const std::uint64_t chunk : {std::uint64_t{4093}, std::uint64_t{1} << 26}) {
        options.chunk_bytes = chunk;
        SCOPED_TRACE("pattern '" + pattern + "', chunk " + std::to_string(chunk) + ", flags" + c.text);
        ASSERT_EQ(warpdex_grep(this->backend(), options, pattern, {file}), expected);
      }
    }
  }
}

// An empty pattern beside patterns found nowhere: every line is selected though the search reports no
// occurrence of the others (a chunk without occurrences is not walked only when no pattern is empty).
TYPED_TEST(grep_test, an_empty_pattern_beside_absent_ones_selects_every_line)
{
  const auto file = this->write_file("lines.txt", "alpha\nbeta\n\ngamma\n");
  for (const char* flags : {"-L", "-l", "-c", "-o -n", "-n", "-n -b"}) {
    grep_options options;
    const std::string f = flags;
    options.output = f == "-L" ? grep_output::files_without_match
                     : f == "-l" ? grep_output::files_with_matches
                     : f == "-c" ? grep_output::count
                                 : grep_output::lines;
    options.only_matching = f.find("-o") != std::string::npos;
    options.line_number = f.find("-n") != std::string::npos;
    options.byte_offset = f.find("-b") != std::string::npos;
    SCOPED_TRACE(std::string("flags ") + flags);
    const std::string patterns = "never there\n\nzzz";
    EXPECT_EQ(warpdex_grep(this->backend(), options, patterns, {file}),
              reference_grep(std::string(" ") + flags, patterns, {file}, this->folder_));
  }
}

// A regular file is mapped on the host backend (`map_files`, the default) and read into buffers otherwise:
// the chunks end in the same places, so both give GNU grep's output, with long lines, NUL bytes (binary
// from the buffer of the first one) and an input that starts at an offset (standard input left there).
TYPED_TEST(grep_test, a_mapped_file_gives_the_output_of_a_file_read_into_buffers)
{
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  std::string text = words_text(20000, random);
  text.insert(text.size() / 3, std::string(300000, 'w') + " warp");  // a line longer than the chunks
  text.insert(text.size() * 5 / 6 + random() % 1000, std::string(1, '\0'));
  const auto file = this->write_file("mapped.bin", text + "warp, no newline");
  const std::uint64_t skip = random() % 5000;
  const auto tail = this->write_file("tail.bin", text.substr(skip) + "warp, no newline");
  for (const char* flags : {"-c", "-n -b", "-o -b", "-v -c"}) {
    const std::string f = flags;
    grep_options options;
    options.output = f == "-c" || f == "-v -c" ? grep_output::count : grep_output::lines;
    options.line_number = f.find("-n") != std::string::npos;
    options.byte_offset = f.find("-b") != std::string::npos;
    options.only_matching = f.find("-o") != std::string::npos;
    options.invert_match = f.find("-v") != std::string::npos;
    const std::string expected = reference_grep(std::string(" ") + flags, "warp", {tail}, this->folder_);
    for (const std::uint64_t chunk : {std::uint64_t{4093}, std::uint64_t{200} << 10}) {
      for (const bool map : {true, false}) {
        options.chunk_bytes = chunk;
        options.map_files = map;
        SCOPED_TRACE(std::string("flags ") + flags + ", chunk " + std::to_string(chunk) + (map ? ", mapped" : ", read"));
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> input(std::fopen(file.string().c_str(), "rb"), std::fclose);
        ASSERT_EQ(std::fseek(input.get(), static_cast<long>(skip), SEEK_SET), 0);
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> output(std::tmpfile(), std::fclose);
        grep_stream(this->backend(), input.get(), tail.string(), "warp", options, output.get());
        std::fflush(output.get());
        EXPECT_EQ(read_all(output.get()), expected);
      }
    }
  }
}

// The plan `warpdex grep --backend auto` asks for is the rule the cuda backend follows: checked here against
// the cases the rule names (its effect on output is checked by the GPU runs of the tests above).
TEST(grep_cuda_plan_test, counts_split_patterns_and_says_where_the_cuda_backend_searches)
{
  const auto plan = [](std::vector<std::string> patterns, auto&& set) {
    grep_options options;
    set(options);
    return plan_grep_on_cuda(patterns, options);
  };
  const auto count = [](grep_options& o) { o.output = grep_output::count; };
  const auto lines = [](grep_options&) {};
  // Split at newlines; a repeat next to its equal in length order is one pattern.
  EXPECT_EQ(plan({"ab\ncd", "efg"}, count).patterns, 3U);
  EXPECT_EQ(plan({"ab", "ab"}, count).patterns, 1U);
  EXPECT_EQ(plan({}, count).patterns, 0U);
  EXPECT_FALSE(plan({}, count).on_device);
  // One case-sensitive pattern: always the GPU (the host walks the lines for the other options).
  for (auto set : {+[](grep_options& o) { o.word_regexp = true; }, +[](grep_options& o) { o.line_number = true; },
                   +[](grep_options& o) { o.only_matching = true; }, +[](grep_options& o) { o.invert_match = true; }}) {
    EXPECT_TRUE(plan({"ab"}, set).on_device);
  }
  // Several patterns, -i, -w or -x: the GPU only for the selected lines or their number.
  EXPECT_TRUE(plan({"ab", "cd"}, count).on_device);
  EXPECT_TRUE(plan({"ab", "cd"}, lines).on_device);
  EXPECT_TRUE(plan({"ab"}, [](grep_options& o) { o.ignore_case = true; }).on_device);
  EXPECT_TRUE(plan({"ab", "cd"}, [](grep_options& o) { o.word_regexp = true; }).on_device);
  EXPECT_TRUE(plan({"ab", "cd"}, [](grep_options& o) {
                o.line_regexp = true;
                o.output = grep_output::count;
              }).on_device);
  EXPECT_TRUE(plan({"ab", "cd"}, [](grep_options& o) {
                o.invert_match = true;
                o.output = grep_output::count;
              }).on_device);
  // -v, -n and -b: the lines (or the others) are found and formatted on the GPU.
  EXPECT_TRUE(plan({"ab", "cd"}, [](grep_options& o) { o.invert_match = true; }).on_device);
  EXPECT_TRUE(plan({"ab", "cd"}, [](grep_options& o) {
                o.word_regexp = true;
                o.line_number = true;
              }).on_device);
  for (auto set : {+[](grep_options& o) { o.line_number = true; }, +[](grep_options& o) { o.byte_offset = true; }}) {
    EXPECT_TRUE(plan({"ab", "cd"}, set).on_device);
    EXPECT_TRUE(plan({"AB"}, [&](grep_options& o) {
                  set(o);
                  o.ignore_case = true;
                }).on_device);
  }
  // -o: the matches are found by the set on the GPU (one pattern too), except with -v or -x.
  EXPECT_TRUE(plan({"ab", "cd"}, [](grep_options& o) { o.only_matching = true; }).on_device);
  EXPECT_TRUE(plan({"ab"}, [](grep_options& o) {
                o.only_matching = true;
                o.word_regexp = true;
              }).on_device);
  for (auto set : {+[](grep_options& o) { o.invert_match = true; }, +[](grep_options& o) { o.line_regexp = true; }}) {
    EXPECT_FALSE(plan({"ab", "cd"}, [&](grep_options& o) {
                   set(o);
                   o.only_matching = true;
                 }).on_device);
  }
  for (auto set : {+[](grep_options& o) { o.color = true; }}) {
    EXPECT_FALSE(plan({"ab", "cd"}, set).on_device);
    EXPECT_FALSE(plan({"AB"}, [&](grep_options& o) {
                   set(o);
                   o.ignore_case = true;
                 }).on_device);
  }
  // An empty pattern: the host, alone or among others.
  EXPECT_FALSE(plan({""}, count).on_device);
  EXPECT_FALSE(plan({"ab\n", "cd"}, count).on_device);
}

}  // namespace
}  // namespace warpdex::testing
