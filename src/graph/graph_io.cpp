// Graph file readers (graph_io.hpp): one line reader over zlib's gzFile, which reads gzip and plain files
// alike, and one parser per format.
#include "../core/printable.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/graph/graph_io.hpp>

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace warpdex::graph {
namespace {

/// Lines of a plain or gzip file, numbered from 1, with progress by compressed bytes.
class line_reader {
 public:
  line_reader(const std::string& path, std::function<void(double)> progress)
      : path_(path), progress_(std::move(progress))
  {
    std::error_code error;
    file_bytes_ = std::filesystem::file_size(path, error);
    WARPDEX_EXPECTS(!error, "cannot read the graph file " + path + ": " + error.message());
    // Every format would read an empty file as a graph of no vertices.
    if (file_bytes_ == 0) { fail("an empty file: it holds no graph"); }
    file_ = gzopen(path.c_str(), "rb");
    WARPDEX_EXPECTS(file_ != nullptr, "cannot open the graph file " + path);
    gzbuffer(file_, read_chunk_bytes);
    chunk_.resize(read_chunk_bytes);
  }
  line_reader(const line_reader&) = delete;
  line_reader& operator=(const line_reader&) = delete;
  ~line_reader() { gzclose(file_); }

  /// The next line without its end-of-line characters; false at the end of the file.
  bool next(std::string_view& line)
  {
    line_.clear();
    while (true) {
      if (position_ == filled_ && !refill()) {
        if (line_.empty()) { return false; }
        break;  // a last line without a newline
      }
      const char* begin = chunk_.data() + position_;
      const char* end = chunk_.data() + filled_;
      const char* newline = static_cast<const char*>(std::memchr(begin, '\n', static_cast<std::size_t>(end - begin)));
      if (newline == nullptr) {
        line_.append(begin, end);
        position_ = filled_;
        continue;
      }
      line_.append(begin, newline);
      position_ += static_cast<std::size_t>(newline - begin) + 1;
      break;
    }
    if (!line_.empty() && line_.back() == '\r') { line_.pop_back(); }
    ++line_number_;
    line = line_;
    return true;
  }

  [[nodiscard]] std::uint64_t line_number() const { return line_number_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  /// "FILE:LINE: message", the message (quoting the line) made one printable line (core/printable.hpp):
  /// NUL written "\0" (what() is a C string, which would end at the first), other control characters and
  /// bytes past ASCII "\xNN" (a binary or damaged file would split the message).
  [[noreturn]] void fail(const std::string& message) const
  {
    throw error(path_ + ":" + std::to_string(line_number_) + ": " + warpdex::detail::printable(message, true));
  }

 private:
  /// zlib reads in chunks of this size (1 MiB): large enough that the calls cost nothing.
  static constexpr unsigned read_chunk_bytes = 1U << 20;

  bool refill()
  {
    const int bytes = gzread(file_, chunk_.data(), read_chunk_bytes);
    if (bytes < 0) {
      int code = 0;
      const char* message = gzerror(file_, &code);
      throw error(path_ + ": cannot read past line " + std::to_string(line_number_) + ": " +
                  (message != nullptr ? message : "zlib error") + " (a corrupt or truncated gzip file?)");
    }
    if (bytes == 0) {
      // zlib returns what it could decompress of a cut gzip stream and marks the end with Z_BUF_ERROR.
      int code = Z_OK;
      (void)gzerror(file_, &code);
      if (code == Z_BUF_ERROR) {
        throw error(path_ + ": the gzip stream ends early, after line " + std::to_string(line_number_) +
                    " (a truncated gzip file)");
      }
    }
    position_ = 0;
    filled_ = static_cast<std::size_t>(bytes);
    if (progress_ && file_bytes_ > 0) {
      progress_(std::min(1.0, static_cast<double>(gzoffset(file_)) / static_cast<double>(file_bytes_)));
    }
    return filled_ > 0;
  }

  std::string path_;
  std::function<void(double)> progress_;
  std::uintmax_t file_bytes_ = 0;
  gzFile file_ = nullptr;
  std::vector<char> chunk_;
  std::size_t position_ = 0;
  std::size_t filled_ = 0;
  std::string line_;
  std::uint64_t line_number_ = 0;
};

/// Splits a line at spaces and tabs.
std::vector<std::string_view> fields_of(std::string_view line)
{
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) { ++i; }
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') { ++i; }
    if (i > start) { fields.push_back(line.substr(start, i - start)); }
  }
  return fields;
}

bool blank(std::string_view line)
{
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t'; });
}

std::uint64_t parse_count(const line_reader& reader, std::string_view field, const char* what)
{
  std::uint64_t value = 0;
  const auto [end, code] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (code != std::errc{} || end != field.data() + field.size()) {
    reader.fail(std::string(what) + " '" + std::string(field) + "' is not a non-negative integer");
  }
  return value;
}

/// A vertex id of the file, `base`-based, checked against `limit` ids (0: no limit but 32 bits).
vertex_id parse_vertex(const line_reader& reader, std::string_view field, std::uint64_t base, std::uint64_t limit)
{
  const std::uint64_t id = parse_count(reader, field, "vertex id");
  if (id < base) { reader.fail("vertex id " + std::to_string(id) + " is out of range: ids start at 1"); }
  const std::uint64_t index = id - base;
  if (limit != 0 && index >= limit) {
    reader.fail("vertex id " + std::to_string(id) + " is out of range: the header declares " + std::to_string(limit) +
                " vertices");
  }
  if (index >= no_vertex) {
    reader.fail("vertex id " + std::to_string(id) + " does not fit the 32-bit vertex ids (at most " +
                std::to_string(no_vertex - 1) + ")");
  }
  return static_cast<vertex_id>(index);
}

template <class Weight>
Weight parse_weight(const line_reader& reader, std::string_view field)
{
  double value = 0;
  const auto [end, code] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (code != std::errc{} || end != field.data() + field.size() || std::isnan(value)) {
    reader.fail("weight '" + std::string(field) + "' is not a number");
  }
  if (value < 0) { reader.fail("weight " + std::string(field) + " is negative; weights must be >= 0"); }
  if constexpr (std::is_integral_v<Weight>) {
    if (value != std::floor(value)) {
      reader.fail("weight " + std::string(field) + " is not an integer (read the graph with float weights)");
    }
    if (value > static_cast<double>(std::numeric_limits<Weight>::max())) {
      reader.fail("weight " + std::string(field) + " does not fit a 32-bit integer");
    }
  } else {
    if (std::isinf(value) || value > static_cast<double>(std::numeric_limits<Weight>::max())) {
      reader.fail("weight " + std::string(field) + " is not a finite float");
    }
  }
  return static_cast<Weight>(value);
}

template <class Weight>
void fill_generated_weights(graph_file<Weight>& file, const graph_read_options& options)
{
  if (!options.generate_weights || file.edges.weighted()) { return; }
  file.edges.weights.resize(file.edges.size());
  for (std::uint64_t i = 0; i < file.edges.size(); ++i) { file.edges.weights[i] = options.weights.draw<Weight>(i); }
}

/// The problem line of a DIMACS file, `p KIND VERTICES COUNT` with KIND one of `kinds`: sets
/// `vertex_count` and `header`, returns COUNT. `form` is the line's form for the error message.
std::uint64_t read_problem_line(const line_reader& reader, const std::vector<std::string_view>& fields, bool& header,
                                std::initializer_list<std::string_view> kinds, const std::string& form,
                                const char* count_name, std::uint64_t& vertex_count)
{
  if (header) { reader.fail("a second 'p' line"); }
  if (fields.size() != 4 || std::find(kinds.begin(), kinds.end(), fields[1]) == kinds.end()) {
    reader.fail("the problem line must read " + form);
  }
  vertex_count = parse_count(reader, fields[2], "vertex count");
  if (vertex_count >= no_vertex) { reader.fail(std::string(fields[2]) + " vertices exceed the 32-bit vertex ids"); }
  header = true;
  return parse_count(reader, fields[3], count_name);
}

template <class Weight>
void read_dimacs(line_reader& reader, graph_file<Weight>& file)
{
  file.directed = true;
  std::uint64_t declared_arcs = 0;
  bool header = false;
  std::string_view line;
  while (reader.next(line)) {
    if (blank(line) || line.front() == 'c') { continue; }
    const auto fields = fields_of(line);
    if (fields[0] == "p") {
      declared_arcs = read_problem_line(reader, fields, header, {"sp"}, "'p sp VERTICES ARCS'", "arc count",
                                        file.edges.vertex_count);
      file.edges.sources.reserve(declared_arcs);
      file.edges.targets.reserve(declared_arcs);
      file.edges.weights.reserve(declared_arcs);
    } else if (fields[0] == "a") {
      if (!header) { reader.fail("an arc before the 'p sp VERTICES ARCS' line"); }
      if (fields.size() != 4) {
        reader.fail("an arc line must read 'a FROM TO WEIGHT' (" + std::to_string(fields.size() - 1) + " fields)");
      }
      if (file.edges.size() == declared_arcs) {
        reader.fail("more arcs than the " + std::to_string(declared_arcs) + " the 'p' line declares");
      }
      file.edges.add(parse_vertex(reader, fields[1], 1, file.edges.vertex_count),
                     parse_vertex(reader, fields[2], 1, file.edges.vertex_count),
                     parse_weight<Weight>(reader, fields[3]));
    } else {
      reader.fail("unknown line type '" + std::string(fields[0]) + "' (expected c, p or a)");
    }
  }
  if (!header) { reader.fail("no 'p sp VERTICES ARCS' line: is this a DIMACS shortest-path file?"); }
  if (file.edges.size() != declared_arcs) {
    reader.fail("the file ends after " + std::to_string(file.edges.size()) + " of the " +
                std::to_string(declared_arcs) + " arcs its 'p' line declares");
  }
}

/// The distinct undirected edges of a list ((u, v) and (v, u) count once).
template <class Weight>
std::uint64_t distinct_undirected_edges(const edge_list<Weight>& edges)
{
  std::vector<std::uint64_t> keys(edges.size());
  for (std::uint64_t i = 0; i < edges.size(); ++i) {
    const std::uint64_t low = std::min(edges.sources[i], edges.targets[i]);
    const std::uint64_t high = std::max(edges.sources[i], edges.targets[i]);
    keys[i] = low << 32 | high;
  }
  std::sort(keys.begin(), keys.end());
  return static_cast<std::uint64_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

template <class Weight>
void read_dimacs_clique(line_reader& reader, graph_file<Weight>& file, bool check_edge_count)
{
  file.directed = false;
  std::uint64_t declared_edges = 0;
  bool header = false;
  std::string_view line;
  while (reader.next(line)) {
    if (blank(line) || line.front() == 'c') { continue; }
    const auto fields = fields_of(line);
    if (fields[0] == "p") {
      declared_edges = read_problem_line(reader, fields, header, {"edge", "col"},
                                         "'p edge VERTICES EDGES' (or 'p col VERTICES EDGES')", "edge count",
                                         file.edges.vertex_count);
      // The count may be wrong (see graph_io.hpp): reserve no more than a plausible amount.
      constexpr std::uint64_t reserve_limit = std::uint64_t{1} << 26;
      file.edges.sources.reserve(std::min(declared_edges, reserve_limit));
      file.edges.targets.reserve(std::min(declared_edges, reserve_limit));
    } else if (fields[0] == "e") {
      if (!header) { reader.fail("an edge before the 'p edge VERTICES EDGES' line"); }
      if (fields.size() != 3) {
        reader.fail("an edge line must read 'e U V' (" + std::to_string(fields.size() - 1) + " fields)");
      }
      file.edges.add(parse_vertex(reader, fields[1], 1, file.edges.vertex_count),
                     parse_vertex(reader, fields[2], 1, file.edges.vertex_count));
    } else if (fields[0] == "n") {
      if (!header) { reader.fail("a vertex line before the 'p edge VERTICES EDGES' line"); }
      if (fields.size() != 3) {
        reader.fail("a vertex line must read 'n ID VALUE' (" + std::to_string(fields.size() - 1) + " fields)");
      }
      (void)parse_vertex(reader, fields[1], 1, file.edges.vertex_count);  // the value is not used
    } else {
      reader.fail("unknown line type '" + std::string(fields[0]) + "' (expected c, p, e or n)");
    }
  }
  if (!header) { reader.fail("no 'p edge VERTICES EDGES' line: is this a DIMACS clique or coloring file?"); }
  const std::uint64_t listed = file.edges.size();
  if (check_edge_count && listed < declared_edges && distinct_undirected_edges(file.edges) * 2 != declared_edges) {
    reader.fail("the file ends after " + std::to_string(listed) + " of the " + std::to_string(declared_edges) +
                " edges its 'p' line declares");
  }
}

std::string lowercase(std::string_view text)
{
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) { return std::tolower(c); });
  return result;
}

template <class Weight>
void read_matrix_market(line_reader& reader, graph_file<Weight>& file)
{
  std::string_view line;
  if (!reader.next(line)) { reader.fail("an empty file: expected the %%MatrixMarket banner"); }
  const auto banner = fields_of(line);
  if (banner.size() != 5 || lowercase(banner[0]) != "%%matrixmarket" || lowercase(banner[1]) != "matrix") {
    reader.fail("expected the banner '%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
  }
  if (lowercase(banner[2]) != "coordinate") {
    reader.fail("only coordinate (sparse) matrices are graphs; this one is '" + std::string(banner[2]) + "'");
  }
  const std::string field = lowercase(banner[3]);
  if (field != "pattern" && field != "integer" && field != "real") {
    reader.fail("field '" + std::string(banner[3]) + "' is not supported (pattern, integer or real)");
  }
  const std::string symmetry = lowercase(banner[4]);
  if (symmetry != "general" && symmetry != "symmetric") {
    reader.fail("symmetry '" + std::string(banner[4]) + "' is not supported (general or symmetric)");
  }
  file.directed = symmetry == "general";
  const bool has_values = field != "pattern";
  if constexpr (std::is_integral_v<Weight>) {
    if (field == "real") { reader.fail("a real matrix: read the graph with float weights"); }
  }
  std::uint64_t entries = 0;
  bool size_read = false;
  while (reader.next(line)) {
    if (blank(line) || line.front() == '%') { continue; }
    const auto fields = fields_of(line);
    if (!size_read) {
      if (fields.size() != 3) { reader.fail("the size line must read 'ROWS COLUMNS ENTRIES'"); }
      const std::uint64_t rows = parse_count(reader, fields[0], "row count");
      const std::uint64_t columns = parse_count(reader, fields[1], "column count");
      if (rows != columns) {
        reader.fail("a " + std::to_string(rows) + " x " + std::to_string(columns) +
                    " matrix is not a graph's adjacency matrix (it must be square)");
      }
      if (rows >= no_vertex) { reader.fail(std::string(fields[0]) + " vertices exceed the 32-bit vertex ids"); }
      file.edges.vertex_count = rows;
      entries = parse_count(reader, fields[2], "entry count");
      file.edges.sources.reserve(entries);
      file.edges.targets.reserve(entries);
      if (has_values) { file.edges.weights.reserve(entries); }
      size_read = true;
      continue;
    }
    const std::size_t expected_fields = has_values ? 3 : 2;
    if (fields.size() != expected_fields) {
      reader.fail("an entry of a " + field + " matrix has " + std::to_string(expected_fields) + " fields, this one " +
                  std::to_string(fields.size()));
    }
    if (file.edges.size() == entries) {
      reader.fail("more entries than the " + std::to_string(entries) + " the size line declares");
    }
    const vertex_id row = parse_vertex(reader, fields[0], 1, file.edges.vertex_count);
    const vertex_id column = parse_vertex(reader, fields[1], 1, file.edges.vertex_count);
    if (has_values) {
      file.edges.add(row, column, parse_weight<Weight>(reader, fields[2]));
    } else {
      file.edges.add(row, column);
    }
  }
  if (!size_read) { reader.fail("no size line 'ROWS COLUMNS ENTRIES'"); }
  if (file.edges.size() != entries) {
    reader.fail("the file ends after " + std::to_string(file.edges.size()) + " of the " + std::to_string(entries) +
                " entries its size line declares");
  }
}

template <class Weight>
void read_snap(line_reader& reader, graph_file<Weight>& file, int snap_directed)
{
  file.directed = true;
  file.compact_ids = true;
  bool undirected_comment = false;
  int columns = 0;  // 2 or 3, fixed by the first edge
  std::string_view line;
  while (reader.next(line)) {
    if (blank(line)) { continue; }
    if (line.front() == '#' || line.front() == '%') {
      undirected_comment = undirected_comment || lowercase(line).find("undirected") != std::string::npos;
      continue;
    }
    const auto fields = fields_of(line);
    if (fields.size() != 2 && fields.size() != 3) {
      reader.fail("an edge line must read 'FROM TO' or 'FROM TO WEIGHT' (" + std::to_string(fields.size()) +
                  " fields)");
    }
    if (columns == 0) { columns = static_cast<int>(fields.size()); }
    if (static_cast<int>(fields.size()) != columns) {
      reader.fail("this line has " + std::to_string(fields.size()) + " fields but the first edge had " +
                  std::to_string(columns) + " (every edge has a weight, or none does)");
    }
    const vertex_id source = parse_vertex(reader, fields[0], 0, 0);
    const vertex_id target = parse_vertex(reader, fields[1], 0, 0);
    if (columns == 3) {
      file.edges.add(source, target, parse_weight<Weight>(reader, fields[2]));
    } else {
      file.edges.add(source, target);
    }
  }
  file.directed = snap_directed >= 0 ? snap_directed != 0 : !undirected_comment;
}

bool ends_with(std::string_view text, std::string_view suffix)
{
  return text.size() >= suffix.size() && lowercase(text.substr(text.size() - suffix.size())) == suffix;
}

}  // namespace

graph_format parse_graph_format(const std::string& text)
{
  if (text == "auto") { return graph_format::automatic; }
  if (text == "dimacs" || text == "gr") { return graph_format::dimacs; }
  if (text == "clq" || text == "col") { return graph_format::dimacs_clique; }
  if (text == "mtx" || text == "matrix-market") { return graph_format::matrix_market; }
  if (text == "snap") { return graph_format::snap; }
  WARPDEX_FAIL("unknown graph format '" + text + "' (auto, dimacs, clq, mtx or snap)");
}

template <class Weight>
graph_file<Weight> read_graph_file(const std::string& path, const graph_read_options& options)
{
  graph_format format = options.format;
  if (format == graph_format::automatic) {
    std::string_view name = path;
    if (ends_with(name, ".gz")) { name.remove_suffix(3); }
    WARPDEX_EXPECTS(!ends_with(name, ".clq.b") && !ends_with(name, ".col.b"),
                    "the graph file " + path +
                        " is in DIMACS's binary clique format, which is not read: convert it to the text format "
                        "(.clq) first, e.g. with DIMACS's bin2asc");
    format = ends_with(name, ".gr")                               ? graph_format::dimacs
             : ends_with(name, ".clq") || ends_with(name, ".col") ? graph_format::dimacs_clique
             : ends_with(name, ".mtx")                            ? graph_format::matrix_market
                                                                  : graph_format::snap;
  }
  graph_file<Weight> file;
  file.format = format;
  file.id_base = format == graph_format::snap ? 0 : 1;
  line_reader reader(path, options.progress);
  switch (format) {
    case graph_format::dimacs:
      read_dimacs(reader, file);
      break;
    case graph_format::dimacs_clique:
      read_dimacs_clique(reader, file, options.check_edge_count);
      break;
    case graph_format::matrix_market:
      read_matrix_market(reader, file);
      break;
    default:
      read_snap(reader, file, options.snap_directed);
      break;
  }
  fill_generated_weights(file, options);
  return file;
}

template graph_file<std::int32_t> read_graph_file<std::int32_t>(const std::string&, const graph_read_options&);
template graph_file<float> read_graph_file<float>(const std::string&, const graph_read_options&);

template <class Weight>
void write_dimacs_clique_file(const std::string& path, const edge_list<Weight>& edges, const std::string& comment)
{
  std::uint64_t vertices = edges.vertex_count;
  if (vertices == 0) {
    for (std::uint64_t i = 0; i < edges.size(); ++i) {
      vertices = std::max<std::uint64_t>(vertices, std::max(edges.sources[i], edges.targets[i]) + std::uint64_t{1});
    }
  }
  for (std::uint64_t i = 0; i < edges.size(); ++i) {
    WARPDEX_EXPECTS(edges.sources[i] < vertices && edges.targets[i] < vertices,
                    "write_dimacs_clique_file: edge " + std::to_string(i) + " names a vertex beyond the " +
                        std::to_string(vertices) + " vertices of the list");
  }
  gzFile file = gzopen(path.c_str(), ends_with(path, ".gz") ? "wb6" : "wbT");  // T: plain, no gzip stream
  WARPDEX_EXPECTS(file != nullptr, "cannot write the graph file " + path);
  std::string text;
  bool written = true;
  const auto flush = [&](bool always) {
    if (text.size() >= (1U << 20) || (always && !text.empty())) {
      written =
          written && gzwrite(file, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size());
      text.clear();
    }
  };
  std::size_t start = 0;
  while (start < comment.size()) {
    const std::size_t end = std::min(comment.find('\n', start), comment.size());
    text += "c " + comment.substr(start, end - start) + "\n";
    start = end + 1;
  }
  text += "p edge " + std::to_string(vertices) + " " + std::to_string(edges.size()) + "\n";
  for (std::uint64_t i = 0; i < edges.size(); ++i) {
    text += "e " + std::to_string(edges.sources[i] + std::uint64_t{1}) + " " +
            std::to_string(edges.targets[i] + std::uint64_t{1}) + "\n";
    flush(false);
  }
  flush(true);
  written = gzclose(file) == Z_OK && written;
  WARPDEX_EXPECTS(written, "writing the graph file " + path + " failed");
}

template void write_dimacs_clique_file<std::int32_t>(const std::string&, const edge_list<std::int32_t>&,
                                                     const std::string&);
template void write_dimacs_clique_file<float>(const std::string&, const edge_list<float>&, const std::string&);

}  // namespace warpdex::graph
