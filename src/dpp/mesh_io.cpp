// Tetrahedral mesh files (include/warpdex/dpp/mesh_io.hpp): VTK legacy and XML unstructured grids in,
// meshes and external surfaces out. Host code; zlib for the compressed .vtu blocks.
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/external_faces.hpp>
#include <warpdex/dpp/mesh_io.hpp>

#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <vector>

namespace warpdex::dpp {
namespace {
/// .vtu compression block size, as VTK writes (32 KiB of uncompressed data a block).
constexpr std::size_t zlib_block_bytes = std::size_t{1} << 15;
/// The parsers report their progress every 2^16 values (a mask).
constexpr std::uint64_t progress_interval = (std::uint64_t{1} << 16) - 1;

/// Throws `warpdex::error` "name: what". `what` may quote the file's bytes: control characters are
/// written as \xNN, so the message stays one printable line whatever the file holds.
[[noreturn]] void fail(const std::string& name, const std::string& what)
{
  std::string line = name + ": ";
  for (const char c : what) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      constexpr char hex[] = "0123456789abcdef";
      line += {'\\', 'x', hex[byte >> 4], hex[byte & 15]};
    } else {
      line += c;
    }
  }
  WARPDEX_FAIL(line);
}

/// Cells as read: ids, offsets (cells + 1, from 0) and types, checked into the mesh's connectivity and
/// types (none when every cell is a tetrahedron).
tet_mesh checked_mesh(std::vector<double> points, const std::vector<std::uint64_t>& ids,
                      const std::vector<std::uint64_t>& offsets, const std::vector<std::uint64_t>& types,
                      const std::string& name)
{
  if (points.size() % 3 != 0) { fail(name, std::to_string(points.size()) + " coordinates are not 3 per point"); }
  const std::uint64_t point_count = points.size() / 3;
  if (offsets.empty() || offsets.front() != 0) { fail(name, "cell offsets do not start at 0"); }
  const std::uint64_t cells = offsets.size() - 1;
  if (types.size() != cells) {
    fail(name, std::to_string(types.size()) + " cell types for " + std::to_string(cells) + " cells");
  }
  if (offsets.back() != ids.size()) {
    fail(name, "the cells claim " + std::to_string(offsets.back()) + " point ids but the file holds " +
                   std::to_string(ids.size()));
  }
  if (cells > 0xfffffffeULL / 6) { fail(name, std::to_string(cells) + " cells: more than 32-bit face ids hold"); }
  tet_mesh mesh;
  mesh.points = std::move(points);
  mesh.connectivity.reserve(ids.size());
  mesh.cell_types.resize(cells);
  bool tetrahedra_only = true;
  for (std::uint64_t c = 0; c < cells; ++c) {
    const cell_shape shape = cell_shape_of(types[c] > 0xff ? 0 : static_cast<std::uint32_t>(types[c]));
    if (shape.points == 0) {
      fail(name, "cell " + std::to_string(c) + " is a " + vtk_cell_type_name(types[c]) +
                     ": external faces are computed for tetrahedra, hexahedra, wedges and pyramids (VTK types 10, "
                     "12, 13, 14) only");
    }
    if (offsets[c + 1] < offsets[c] || offsets[c + 1] - offsets[c] != shape.points) {
      fail(name, "cell " + std::to_string(c) + " is a " + vtk_cell_type_name(types[c]) + " with " +
                     (offsets[c + 1] < offsets[c] ? std::string("a decreasing offset")
                                                  : std::to_string(offsets[c + 1] - offsets[c]) + " points, not " +
                                                        std::to_string(shape.points)));
    }
    for (std::uint64_t v = offsets[c]; v < offsets[c + 1]; ++v) {
      const std::uint64_t id = ids[v];
      if (id >= point_count) {
        fail(name, "cell " + std::to_string(c) + " refers to point " + std::to_string(id) + " but there are " +
                       std::to_string(point_count) + " points");
      }
      mesh.connectivity.push_back(static_cast<std::uint32_t>(id));
    }
    mesh.cell_types[c] = static_cast<std::uint8_t>(types[c]);
    tetrahedra_only = tetrahedra_only && types[c] == vtk_tetra;
  }
  if (tetrahedra_only) { mesh.cell_types = {}; }
  return mesh;
}

/// A number type of the files: its size and kind.
struct number_type {
  std::size_t size = 0;
  char kind = 0;  // 'f' float, 'i' signed, 'u' unsigned
};

/// The value at `bytes` of `type`, byte order `big_endian`, as a double (coordinates).
double decode_double(const unsigned char* bytes, number_type type, bool big_endian)
{
  unsigned char native[8];
  const bool swap = big_endian == (std::endian::native == std::endian::little);
  for (std::size_t b = 0; b < type.size; ++b) { native[b] = swap ? bytes[type.size - 1 - b] : bytes[b]; }
  switch (type.kind) {
    case 'f':
      if (type.size == 4) {
        float value;
        std::memcpy(&value, native, 4);
        return value;
      } else {
        double value;
        std::memcpy(&value, native, 8);
        return value;
      }
    case 'i': {
      std::int64_t value = 0;
      std::memcpy(&value, native, type.size);  // little-endian host: the low bytes
      const int unused = static_cast<int>(64 - 8 * type.size);
      return static_cast<double>(unused == 0 ? value : (value << unused) >> unused);
    }
    default: {
      std::uint64_t value = 0;
      std::memcpy(&value, native, type.size);
      return static_cast<double>(value);
    }
  }
}

/// The value at `bytes` as an id: an integer type, not negative.
std::uint64_t decode_id(const unsigned char* bytes, number_type type, bool big_endian, const std::string& name)
{
  if (type.kind == 'f') { fail(name, "ids stored as floating-point numbers"); }
  unsigned char native[8] = {};
  const bool swap = big_endian == (std::endian::native == std::endian::little);
  for (std::size_t b = 0; b < type.size; ++b) { native[b] = swap ? bytes[type.size - 1 - b] : bytes[b]; }
  std::uint64_t value = 0;
  std::memcpy(&value, native, type.size);
  if (type.kind == 'i' && (native[type.size - 1] & 0x80) != 0) { fail(name, "a negative id or offset"); }
  return value;
}

template <class T>
T parse_number(std::string_view token, const std::string& name)
{
  T value{};
  const auto [end, failure] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (failure != std::errc() || end != token.data() + token.size()) {
    fail(name, "'" + std::string(token.substr(0, 40)) + "' is not a number of the expected kind");
  }
  return value;
}

// ---- legacy .vtk ----

number_type legacy_type(std::string_view text, const std::string& name)
{
  static const std::map<std::string_view, number_type> types{
      {"float", {4, 'f'}},        {"double", {8, 'f'}},         {"char", {1, 'i'}},         {"unsigned_char", {1, 'u'}},
      {"short", {2, 'i'}},        {"unsigned_short", {2, 'u'}}, {"int", {4, 'i'}},          {"unsigned_int", {4, 'u'}},
      {"long", {8, 'i'}},         {"unsigned_long", {8, 'u'}},  {"vtktypeint64", {8, 'i'}}, {"vtktypeuint64", {8, 'u'}},
      {"vtktypeint32", {4, 'i'}}, {"vtktypeuint32", {4, 'u'}}};
  const auto found = types.find(text);
  if (found == types.end()) { fail(name, "unknown data type '" + std::string(text) + "'"); }
  return found->second;
}

class legacy_reader {
 public:
  legacy_reader(std::string_view bytes, const std::string& name, const mesh_read_progress& progress)
      : bytes_(bytes), name_(name), progress_(progress)
  {
  }

  std::string_view line()
  {
    if (pos_ >= bytes_.size()) { fail(name_, "the file ends inside its header"); }
    const std::size_t end = std::min(bytes_.find('\n', pos_), bytes_.size());
    std::string_view text = bytes_.substr(pos_, end - pos_);
    pos_ = std::min(end + 1, bytes_.size());  // a last line without a newline ends at the end
    if (!text.empty() && text.back() == '\r') { text.remove_suffix(1); }
    return text;
  }

  /// The next whitespace-separated token; empty at the end of the file.
  std::string_view token()
  {
    while (pos_ < bytes_.size() && is_space(bytes_[pos_])) { ++pos_; }
    const std::size_t start = pos_;
    while (pos_ < bytes_.size() && !is_space(bytes_[pos_])) { ++pos_; }
    return bytes_.substr(start, pos_ - start);
  }

  std::string_view required_token(const char* what)
  {
    const std::string_view text = token();
    if (text.empty()) { fail(name_, std::string("the file ends where ") + what + " should be"); }
    return text;
  }

  std::uint64_t count(const char* what)
  {
    return parse_number<std::uint64_t>(required_token(what), name_ + " (" + what + ")");
  }

  /// `n` values of `type`, each passed to `store(index, bytes-or-token)`.
  template <class Decode>
  void values(std::uint64_t n, number_type type, bool binary, const char* what, Decode&& decode)
  {
    if (binary) {
      // The data starts after the keyword line's newline.
      while (pos_ < bytes_.size() && bytes_[pos_] != '\n') { ++pos_; }
      ++pos_;
      if (pos_ > bytes_.size() || (bytes_.size() - pos_) / type.size < n) {
        fail(name_, std::string("the file is truncated inside ") + what + " (" + std::to_string(n) + " values)");
      }
      for (std::uint64_t i = 0; i < n; ++i) {
        decode(i, reinterpret_cast<const unsigned char*>(bytes_.data() + pos_), std::string_view());
        pos_ += type.size;
        if ((i & progress_interval) == progress_interval) { report(); }
      }
    } else {
      for (std::uint64_t i = 0; i < n; ++i) {
        if ((i & progress_interval) == progress_interval) { report(); }
        const std::string_view text = token();
        if (text.empty()) {
          fail(name_, std::string("the file ends inside ") + what + " after " + std::to_string(i) + " of " +
                          std::to_string(n) + " values");
        }
        decode(i, nullptr, text);
      }
    }
  }

  /// Skips a METADATA block: lines up to an empty one.
  void skip_metadata()
  {
    line();  // the rest of the METADATA line
    while (pos_ < bytes_.size() && !line().empty()) {}
  }

  /// Tells the progress callback how far the parse is.
  void report() const
  {
    if (progress_) { progress_(mesh_read_stage::parsing, pos_, bytes_.size()); }
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  std::string_view bytes_;
  std::string name_;
  const mesh_read_progress& progress_;
  std::size_t pos_ = 0;
};

/// The cells of a file as read, before `checked_mesh`.
struct raw_cells {
  std::vector<double> points;
  std::vector<std::uint64_t> ids;
  std::vector<std::uint64_t> offsets;  // cells + 1, from 0
  std::vector<std::uint64_t> types;
};

}  // namespace

namespace {

raw_cells parse_legacy_cells(std::string_view bytes, const std::string& name, const mesh_read_progress& progress)
{
  legacy_reader in(bytes, name, progress);
  const std::string_view signature = in.line();
  constexpr std::string_view expected_signature = "# vtk DataFile Version ";
  if (signature.substr(0, expected_signature.size()) != expected_signature) {
    fail(name, "not a legacy VTK file (no '# vtk DataFile Version' line)");
  }
  const bool version_5 = signature.substr(expected_signature.size()).substr(0, 1) >= "5";
  in.line();  // title
  const std::string_view format = in.line();
  const bool binary = format.substr(0, 6) == "BINARY";
  if (!binary && format.substr(0, 5) != "ASCII") { fail(name, "the format line is neither ASCII nor BINARY"); }
  if (in.required_token("DATASET") != "DATASET") { fail(name, "expected DATASET"); }
  const std::string_view dataset = in.required_token("the dataset type");
  if (dataset != "UNSTRUCTURED_GRID") {
    fail(name, "the dataset is " + std::string(dataset) + ", not an UNSTRUCTURED_GRID");
  }
  std::vector<double> points;
  std::vector<std::uint64_t> ids;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint64_t> types;
  bool have_points = false, have_cells = false, have_types = false;
  const auto read_ids = [&](std::vector<std::uint64_t>& out, std::uint64_t n, number_type type, const char* what) {
    if (n > bytes.size()) { fail(name, std::string(what) + " claims more values than the file can hold"); }
    out.resize(n);
    in.values(n, type, binary, what, [&](std::uint64_t i, const unsigned char* raw, std::string_view text) {
      if (raw != nullptr) {
        out[i] = decode_id(raw, type, true, name);
      } else {
        out[i] = parse_number<std::uint64_t>(text, name + " (" + what + ")");
      }
    });
  };
  for (std::string_view keyword = in.token(); !keyword.empty(); keyword = in.token()) {
    if (keyword == "POINTS") {
      const std::uint64_t n = in.count("the point count");
      const number_type type = legacy_type(in.required_token("the point type"), name);
      if (n > bytes.size()) { fail(name, "claims " + std::to_string(n) + " points, more than the file can hold"); }
      points.resize(3 * n);
      in.values(3 * n, type, binary, "POINTS", [&](std::uint64_t i, const unsigned char* raw, std::string_view text) {
        points[i] = raw != nullptr ? decode_double(raw, type, true) : parse_number<double>(text, name + " (POINTS)");
      });
      have_points = true;
    } else if (keyword == "CELLS") {
      const std::uint64_t first = in.count("the cell count");
      const std::uint64_t second = in.count("the cell list size");
      if (first > bytes.size() || second > bytes.size()) {
        fail(name, "CELLS claims more values than the file can hold");
      }
      if (version_5) {
        // Version 5.1: OFFSETS (cells + 1 values) and CONNECTIVITY.
        if (in.required_token("OFFSETS") != "OFFSETS") { fail(name, "expected OFFSETS after CELLS"); }
        read_ids(offsets, first, legacy_type(in.required_token("the offset type"), name), "OFFSETS");
        if (in.required_token("CONNECTIVITY") != "CONNECTIVITY") { fail(name, "expected CONNECTIVITY"); }
        read_ids(ids, second, legacy_type(in.required_token("the id type"), name), "CONNECTIVITY");
      } else {
        // Classic: per cell its point count, then its ids; `second` values in all.
        std::vector<std::uint64_t> list;
        read_ids(list, second, number_type{4, 'i'}, "CELLS");
        offsets.assign(1, 0);
        std::size_t at = 0;
        for (std::uint64_t c = 0; c < first; ++c) {
          if (at >= list.size() || list[at] > list.size() - at - 1) {
            fail(name, "CELLS lists fewer values than its " + std::to_string(first) + " cells need");
          }
          ids.insert(ids.end(), list.begin() + static_cast<std::ptrdiff_t>(at + 1),
                     list.begin() + static_cast<std::ptrdiff_t>(at + 1 + list[at]));
          at += 1 + list[at];
          offsets.push_back(ids.size());
        }
        if (at != list.size()) { fail(name, "CELLS holds more values than its cells use"); }
      }
      have_cells = true;
    } else if (keyword == "CELL_TYPES") {
      read_ids(types, in.count("the cell type count"), number_type{4, 'i'}, "CELL_TYPES");
      have_types = true;
    } else if (keyword == "METADATA") {
      in.skip_metadata();
    } else if (keyword == "POINT_DATA" || keyword == "CELL_DATA" || keyword == "FIELD") {
      break;  // attributes: not needed for the surface
    } else {
      fail(name, "unexpected keyword '" + std::string(keyword.substr(0, 40)) + "'");
    }
  }
  if (!have_points || !have_cells || !have_types) {
    fail(name, std::string("the file lacks its ") + (!have_points ? "POINTS" : !have_cells ? "CELLS" : "CELL_TYPES"));
  }
  in.report();
  return {std::move(points), std::move(ids), std::move(offsets), std::move(types)};
}

}  // namespace

tet_mesh parse_legacy_vtk(std::string_view bytes, const std::string& name, const mesh_read_progress& progress)
{
  raw_cells cells = parse_legacy_cells(bytes, name, progress);
  return checked_mesh(std::move(cells.points), cells.ids, cells.offsets, cells.types, name);
}

// ---- VTK XML .vtu ----

namespace {

number_type xml_type(std::string_view text, const std::string& name)
{
  static const std::map<std::string_view, number_type> types{
      {"Int8", {1, 'i'}},   {"UInt8", {1, 'u'}}, {"Int16", {2, 'i'}},  {"UInt16", {2, 'u'}},  {"Int32", {4, 'i'}},
      {"UInt32", {4, 'u'}}, {"Int64", {8, 'i'}}, {"UInt64", {8, 'u'}}, {"Float32", {4, 'f'}}, {"Float64", {8, 'f'}}};
  const auto found = types.find(text);
  if (found == types.end()) { fail(name, "unknown DataArray type '" + std::string(text) + "'"); }
  return found->second;
}

/// An XML start tag: its attributes, and where its content begins (after '>').
struct xml_tag {
  std::map<std::string, std::string> attributes;
  std::size_t content = 0;
  bool self_closing = false;
};

/// The first `<element` at or after `from` (before `limit`), or npos.
std::size_t find_tag(std::string_view text, std::string_view element, std::size_t from, std::size_t limit)
{
  const std::string open = "<" + std::string(element);
  for (std::size_t at = text.find(open, from); at != std::string_view::npos && at < limit;
       at = text.find(open, at + 1)) {
    const char next = at + open.size() < text.size() ? text[at + open.size()] : '\0';
    if (next == ' ' || next == '>' || next == '/' || next == '\n' || next == '\t' || next == '\r') { return at; }
  }
  return std::string_view::npos;
}

xml_tag parse_tag(std::string_view text, std::size_t at, const std::string& name)
{
  xml_tag tag;
  const std::size_t end = text.find('>', at);
  if (end == std::string_view::npos) { fail(name, "an XML tag is not closed"); }
  tag.content = end + 1;
  tag.self_closing = end > at && text[end - 1] == '/';
  std::size_t pos = text.find_first_of(" \t\r\n", at);
  while (pos < end) {
    const std::size_t key_start = text.find_first_not_of(" \t\r\n", pos);
    if (key_start >= end || text[key_start] == '/') { break; }
    const std::size_t equals = text.find('=', key_start);
    if (equals >= end) { fail(name, "a malformed XML attribute"); }
    const std::size_t quote = text.find_first_of("\"'", equals);
    if (quote >= end) { fail(name, "a malformed XML attribute"); }
    const std::size_t close = text.find(text[quote], quote + 1);
    if (close >= end) { fail(name, "an XML attribute value is not closed"); }
    std::string key(text.substr(key_start, equals - key_start));
    key.erase(key.find_last_not_of(" \t\r\n") + 1);
    tag.attributes[key] = std::string(text.substr(quote + 1, close - quote - 1));
    pos = close + 1;
  }
  return tag;
}

std::string attribute(const xml_tag& tag, const std::string& key, const std::string& fallback = {})
{
  const auto found = tag.attributes.find(key);
  return found == tag.attributes.end() ? fallback : found->second;
}

int base64_value(char c)
{
  if (c >= 'A' && c <= 'Z') { return c - 'A'; }
  if (c >= 'a' && c <= 'z') { return c - 'a' + 26; }
  if (c >= '0' && c <= '9') { return c - '0' + 52; }
  if (c == '+') { return 62; }
  if (c == '/') { return 63; }
  return -1;
}

/// Bytes taken in order from raw data or from base64 text decoded quad by quad. Padding ends a quad
/// early and decoding goes on with the next, so a header and data encoded apart or together read alike.
class byte_source {
 public:
  byte_source(std::string_view data, bool base64, const std::string& name) : data_(data), base64_(base64), name_(name)
  {
  }

  std::vector<unsigned char> take(std::uint64_t n)
  {
    std::vector<unsigned char> out;
    if (!base64_) {
      if (data_.size() - pos_ < n) { truncated(n); }
      out.assign(data_.begin() + static_cast<std::ptrdiff_t>(pos_),
                 data_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
      pos_ += n;
      return out;
    }
    // Base64 yields at most 3 bytes per 4 characters: a count beyond that is a lie, refused before allocating.
    if (n > pending_.size() + (data_.size() - pos_) / 4 * 3) { truncated(n); }
    out.reserve(n);
    while (out.size() < n) {
      if (pending_.empty()) { decode_quad(n); }
      const std::size_t k = std::min<std::size_t>(pending_.size(), n - out.size());
      out.insert(out.end(), pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(k));
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(k));
    }
    return out;
  }

  /// Characters (or bytes) of the data read so far.
  [[nodiscard]] std::uint64_t consumed() const { return pos_; }

  std::uint64_t word(std::size_t size, bool big_endian)
  {
    const auto bytes = take(size);
    return decode_id(bytes.data(), number_type{size, 'u'}, big_endian, name_);
  }

 private:
  void decode_quad(std::uint64_t wanted)
  {
    int values[4];
    int got = 0;
    while (got < 4) {
      while (pos_ < data_.size() &&
             (data_[pos_] == ' ' || data_[pos_] == '\n' || data_[pos_] == '\r' || data_[pos_] == '\t')) {
        ++pos_;
      }
      if (pos_ >= data_.size()) { truncated(wanted); }
      const char c = data_[pos_++];
      if (c == '=') {
        values[got++] = -2;
        continue;
      }
      values[got] = base64_value(c);
      if (values[got] < 0) { fail(name_, "invalid base64 character in a DataArray"); }
      ++got;
    }
    const int data_chars = values[2] == -2 ? 2 : values[3] == -2 ? 3 : 4;
    if (values[0] < 0 || values[1] < 0) { fail(name_, "invalid base64 padding in a DataArray"); }
    std::uint32_t bits = 0;
    for (int i = 0; i < 4; ++i) { bits = (bits << 6) | static_cast<std::uint32_t>(i < data_chars ? values[i] : 0); }
    for (int b = 0; b < data_chars - 1; ++b) { pending_.push_back(static_cast<unsigned char>(bits >> (16 - 8 * b))); }
  }
  [[noreturn]] void truncated(std::uint64_t n)
  {
    fail(name_, "a DataArray is truncated: it claims " + std::to_string(n) + " more bytes than the file holds");
  }

  std::string_view data_;
  bool base64_;
  std::string name_;
  std::size_t pos_ = 0;
  std::vector<unsigned char> pending_;
};

struct vtu_file {
  std::string_view text;
  std::string name;
  bool big_endian = false;
  std::size_t header_size = 4;
  bool compressed = false;
  std::size_t appended = std::string_view::npos;  // the first byte after '_'
  bool appended_base64 = false;
  const mesh_read_progress* progress = nullptr;
  std::uint64_t* reported = nullptr;  // the furthest place reported (arrays may lie in any order)

  /// Tells the progress callback that the parse has reached byte `at` of the file (never less than before).
  void report(std::uint64_t at) const
  {
    if (progress == nullptr || !*progress) { return; }
    *reported = std::max(*reported, at);
    (*progress)(mesh_read_stage::parsing, *reported, text.size());
  }
};

/// A DataArray's bytes (binary or appended), decompressed, in the file's byte order; `start` is where the
/// source's data starts in the file (for the progress reports).
std::vector<unsigned char> binary_array(const vtu_file& file, byte_source& source, std::uint64_t start)
{
  if (!file.compressed) { return source.take(source.word(file.header_size, file.big_endian)); }
  const std::uint64_t blocks = source.word(file.header_size, file.big_endian);
  const std::uint64_t block_size = source.word(file.header_size, file.big_endian);
  const std::uint64_t last_size = source.word(file.header_size, file.big_endian);
  if (blocks > file.text.size()) {
    fail(file.name, "a compressed DataArray claims " + std::to_string(blocks) + " blocks");
  }
  std::vector<std::uint64_t> compressed_sizes(blocks);
  for (auto& size : compressed_sizes) { size = source.word(file.header_size, file.big_endian); }
  if (blocks > 0 &&
      (block_size == 0 || last_size > block_size || (blocks - 1) > file.text.size() * 1032 / block_size)) {
    fail(file.name, "a compressed DataArray's block sizes are inconsistent");
  }
  std::vector<unsigned char> out;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    if (b % 16 == 15) { file.report(start + source.consumed()); }
    const auto packed = source.take(compressed_sizes[b]);
    const std::uint64_t expected = (b + 1 == blocks && last_size != 0) ? last_size : block_size;
    const std::size_t at = out.size();
    out.resize(at + expected);
    uLongf produced = static_cast<uLongf>(expected);
    const int status = uncompress(out.data() + at, &produced, packed.data(), static_cast<uLong>(packed.size()));
    if (status != Z_OK || produced != expected) {
      fail(file.name, "a zlib block of a DataArray does not inflate to its " + std::to_string(expected) + " bytes");
    }
  }
  return out;
}

/// The DataArray whose tag is at `at`: each value passed to `decode(index, raw bytes or text)`; returns
/// the count.
template <class Decode>
std::uint64_t read_data_array(const vtu_file& file, std::size_t at, Decode&& decode, number_type* type_out)
{
  const xml_tag tag = parse_tag(file.text, at, file.name);
  const number_type type = xml_type(attribute(tag, "type"), file.name);
  *type_out = type;
  const std::string format = attribute(tag, "format", "ascii");
  if (format == "ascii") {
    // The values come first; child elements (VTK's InformationKey ranges) follow them.
    if (tag.self_closing) { return 0; }
    const std::size_t end = file.text.find('<', tag.content);
    if (end == std::string_view::npos) { fail(file.name, "a DataArray is not closed"); }
    std::uint64_t count = 0;
    std::size_t pos = tag.content;
    while (true) {
      pos = file.text.find_first_not_of(" \t\r\n", pos);
      if (pos >= end) { break; }
      const std::size_t stop = std::min(file.text.find_first_of(" \t\r\n<", pos), end);
      if ((count & progress_interval) == progress_interval) { file.report(pos); }
      decode(count++, nullptr, file.text.substr(pos, stop - pos));
      pos = stop;
    }
    return count;
  }
  std::vector<unsigned char> bytes;
  if (format == "binary") {
    const std::size_t end = file.text.find('<', tag.content);
    byte_source source(file.text.substr(tag.content, end - tag.content), true, file.name);
    bytes = binary_array(file, source, tag.content);
  } else if (format == "appended") {
    if (file.appended == std::string_view::npos) { fail(file.name, "appended DataArray but no AppendedData"); }
    const auto offset = parse_number<std::uint64_t>(attribute(tag, "offset"), file.name + " (offset)");
    if (offset > file.text.size() - file.appended) { fail(file.name, "a DataArray's offset is past the file's end"); }
    byte_source source(file.text.substr(file.appended + offset), file.appended_base64, file.name);
    bytes = binary_array(file, source, file.appended + offset);
  } else {
    fail(file.name, "unknown DataArray format '" + format + "'");
  }
  if (bytes.size() % type.size != 0) { fail(file.name, "a DataArray's byte count is not a whole number of values"); }
  const std::uint64_t count = bytes.size() / type.size;
  for (std::uint64_t i = 0; i < count; ++i) { decode(i, bytes.data() + i * type.size, std::string_view()); }
  return count;
}

}  // namespace

static raw_cells parse_vtu_cells(std::string_view text, const std::string& name, const mesh_read_progress& progress)
{
  vtu_file file{text, name};
  std::uint64_t reported = 0;
  file.progress = &progress;
  file.reported = &reported;
  const std::size_t root = find_tag(text, "VTKFile", 0, text.size());
  if (root == std::string_view::npos) { fail(name, "not a VTK XML file (no VTKFile element)"); }
  const xml_tag header = parse_tag(text, root, name);
  if (attribute(header, "type") != "UnstructuredGrid") {
    fail(name, "the VTK XML file holds '" + attribute(header, "type") + "', not an UnstructuredGrid");
  }
  file.big_endian = attribute(header, "byte_order", "LittleEndian") == "BigEndian";
  const std::string header_type = attribute(header, "header_type", "UInt32");
  if (header_type != "UInt32" && header_type != "UInt64") { fail(name, "unknown header_type '" + header_type + "'"); }
  file.header_size = header_type == "UInt64" ? 8 : 4;
  const std::string compressor = attribute(header, "compressor");
  if (!compressor.empty() && compressor != "vtkZLibDataCompressor") {
    fail(name, "compressor '" + compressor + "' is not supported (only vtkZLibDataCompressor)");
  }
  file.compressed = !compressor.empty();
  const std::size_t appended = find_tag(text, "AppendedData", 0, text.size());
  if (appended != std::string_view::npos) {
    const xml_tag tag = parse_tag(text, appended, name);
    file.appended_base64 = attribute(tag, "encoding", "raw") == "base64";
    const std::size_t underscore = text.find('_', tag.content);
    if (underscore == std::string_view::npos) { fail(name, "AppendedData has no '_' mark"); }
    file.appended = underscore + 1;
  }
  const std::size_t data_end = appended == std::string_view::npos ? text.size() : appended;
  const std::size_t piece = find_tag(text, "Piece", root, data_end);
  if (piece == std::string_view::npos) { fail(name, "no Piece element"); }
  const xml_tag piece_tag = parse_tag(text, piece, name);
  const auto point_count =
      parse_number<std::uint64_t>(attribute(piece_tag, "NumberOfPoints"), name + " (NumberOfPoints)");
  const auto cell_count = parse_number<std::uint64_t>(attribute(piece_tag, "NumberOfCells"), name + " (NumberOfCells)");
  if (point_count > text.size() || cell_count > text.size()) {
    fail(name, "the Piece claims more points or cells than the file can hold");
  }
  if (find_tag(text, "Piece", piece + 1, data_end) != std::string_view::npos) {
    fail(name, "several Pieces: only single-piece files are read");
  }

  const std::size_t points_at = find_tag(text, "Points", piece, data_end);
  const std::size_t points_array =
      points_at == std::string_view::npos ? std::string_view::npos : find_tag(text, "DataArray", points_at, data_end);
  if (points_array == std::string_view::npos) { fail(name, "no Points DataArray"); }
  std::vector<double> points(3 * point_count);
  number_type type;
  const std::uint64_t coordinates = read_data_array(
      file, points_array,
      [&](std::uint64_t i, const unsigned char* raw, std::string_view token) {
        if (i >= points.size()) { return; }
        points[i] = raw != nullptr ? decode_double(raw, type, file.big_endian)
                                   : parse_number<double>(token, name + " (Points)");
      },
      &type);
  if (coordinates != 3 * point_count) {
    fail(name, "Points holds " + std::to_string(coordinates) + " values, not 3 for each of " +
                   std::to_string(point_count) + " points");
  }

  const std::size_t cells_at = find_tag(text, "Cells", piece, data_end);
  if (cells_at == std::string_view::npos) { fail(name, "no Cells element"); }
  const std::size_t cells_end = std::min(text.find("</Cells>", cells_at), data_end);
  std::map<std::string, std::vector<std::uint64_t>> arrays;
  for (std::size_t at = find_tag(text, "DataArray", cells_at, cells_end); at != std::string_view::npos;
       at = find_tag(text, "DataArray", at + 1, cells_end)) {
    const std::string array_name = attribute(parse_tag(text, at, name), "Name");
    auto& values = arrays[array_name];
    number_type id_type;
    read_data_array(
        file, at,
        [&](std::uint64_t i, const unsigned char* raw, std::string_view token) {
          if (raw != nullptr) {
            values.push_back(decode_id(raw, id_type, file.big_endian, name));
          } else {
            (void)i;
            if (!token.empty() && token.front() == '-') { fail(name, "a negative id or offset"); }
            values.push_back(parse_number<std::uint64_t>(token, name + " (" + array_name + ")"));
          }
        },
        &id_type);
  }
  for (const char* required : {"connectivity", "offsets", "types"}) {
    if (arrays.count(required) == 0) { fail(name, std::string("no '") + required + "' DataArray in Cells"); }
  }
  auto& ends = arrays["offsets"];
  if (ends.size() != cell_count) {
    fail(name, "offsets holds " + std::to_string(ends.size()) + " values for " + std::to_string(cell_count) + " cells");
  }
  ends.insert(ends.begin(), 0);
  file.report(text.size());
  return {std::move(points), std::move(arrays["connectivity"]), std::move(ends), std::move(arrays["types"])};
}

tet_mesh parse_vtu(std::string_view text, const std::string& name, const mesh_read_progress& progress)
{
  raw_cells cells = parse_vtu_cells(text, name, progress);
  return checked_mesh(std::move(cells.points), cells.ids, cells.offsets, cells.types, name);
}

namespace {

/// The file's bytes in one string sized once from the file's size, read in chunks with progress reports.
std::string read_whole_file(const std::filesystem::path& path, const mesh_read_progress& progress)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) { WARPDEX_FAIL("cannot open mesh file " + path.string()); }
  std::error_code failure;
  const std::uint64_t size = std::filesystem::file_size(path, failure);
  if (failure) { WARPDEX_FAIL("cannot read the size of mesh file " + path.string() + ": " + failure.message()); }
  std::string bytes;
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    WARPDEX_FAIL("mesh file " + path.string() + " (" + std::to_string(size) + " bytes) does not fit in memory");
  }
  constexpr std::uint64_t chunk = std::uint64_t{16} << 20;
  std::uint64_t done = 0;
  while (done < size) {
    const std::uint64_t want = std::min(chunk, size - done);
    in.read(bytes.data() + done, static_cast<std::streamsize>(want));
    const auto got = static_cast<std::uint64_t>(in.gcount());
    done += got;
    if (progress) { progress(mesh_read_stage::reading, done, size); }
    if (got < want) {
      WARPDEX_FAIL("mesh file " + path.string() + ": read " + std::to_string(done) + " of its " + std::to_string(size) +
                   " bytes (the file shrank or a read failed)");
    }
  }
  return bytes;
}

std::ofstream open_for_writing(const std::filesystem::path& path)
{
  std::ofstream out(path, std::ios::binary);
  if (!out) { WARPDEX_FAIL("cannot write " + path.string()); }
  return out;
}

void finish_writing(std::ofstream& out, const std::filesystem::path& path)
{
  out.flush();
  if (!out) { WARPDEX_FAIL("writing " + path.string() + " failed"); }
}

template <class T>
void append_big_endian(std::string& out, T value)
{
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  if constexpr (std::endian::native == std::endian::little) { std::reverse(bytes, bytes + sizeof(T)); }
  out.append(reinterpret_cast<const char*>(bytes), sizeof(T));
}

template <class T>
void append_native(std::string& out, T value)
{
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

std::string base64(const std::string& bytes)
{
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t bits = 0;
    const std::size_t k = std::min<std::size_t>(3, bytes.size() - i);
    for (std::size_t b = 0; b < 3; ++b) {
      bits = (bits << 8) | (b < k ? static_cast<unsigned char>(bytes[i + b]) : 0U);
    }
    for (std::size_t c = 0; c < 4; ++c) { out.push_back(c <= k ? alphabet[(bits >> (18 - 6 * c)) & 63] : '='); }
  }
  return out;
}

/// One .vtu DataArray's header and data (compressed in blocks when asked).
struct vtu_block {
  std::string header;
  std::string data;
  /// Raw bytes, or base64 as VTK writes it: header and data encoded together when uncompressed, apart
  /// (each padded) when compressed, so a reader can decode the header before knowing the data's size.
  [[nodiscard]] std::string encoded(bool as_base64, bool compressed) const
  {
    if (!as_base64) { return header + data; }
    return compressed ? base64(header) + base64(data) : base64(header + data);
  }
};

/// The block of `data`, with 32-bit headers inline and 64-bit headers appended (so the tests read both).
vtu_block make_vtu_block(const std::string& data, bool compress, std::size_t header_size)
{
  std::string header;
  const auto put = [&](std::uint64_t value) {
    if (header_size == 8) {
      append_native(header, value);
    } else {
      append_native(header, static_cast<std::uint32_t>(value));
    }
  };
  if (!compress) {
    put(data.size());
    return {header, data};
  }
  const std::size_t blocks = (data.size() + zlib_block_bytes - 1) / zlib_block_bytes;
  std::string packed;
  std::vector<std::uint64_t> sizes;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t length = std::min(zlib_block_bytes, data.size() - b * zlib_block_bytes);
    uLongf bound = compressBound(static_cast<uLong>(length));
    std::string block(bound, '\0');
    if (compress2(reinterpret_cast<Bytef*>(block.data()), &bound,
                  reinterpret_cast<const Bytef*>(data.data() + b * zlib_block_bytes), static_cast<uLong>(length),
                  Z_DEFAULT_COMPRESSION) != Z_OK) {
      WARPDEX_FAIL("zlib failed to compress a mesh block");
    }
    block.resize(bound);
    packed += block;
    sizes.push_back(bound);
  }
  put(blocks);
  put(zlib_block_bytes);
  put(data.size() % zlib_block_bytes);
  for (const auto size : sizes) { put(size); }
  return {header, packed};
}

}  // namespace

tet_mesh read_tet_mesh(const std::filesystem::path& path, const mesh_read_progress& progress)
{
  const std::string extension = path.extension().string();
  if (extension != ".vtk" && extension != ".vtu") {
    WARPDEX_FAIL("mesh file " + path.string() + ": unknown extension '" + extension + "' (expected .vtk or .vtu)");
  }
  std::string bytes = read_whole_file(path, progress);
  raw_cells cells = extension == ".vtk" ? parse_legacy_cells(bytes, path.string(), progress)
                                        : parse_vtu_cells(bytes, path.string(), progress);
  std::string().swap(bytes);  // the file's bytes are not held beside the mesh
  return checked_mesh(std::move(cells.points), cells.ids, cells.offsets, cells.types, path.string());
}

mesh_encoding parse_mesh_encoding(std::string_view text)
{
  if (text == "ascii") { return mesh_encoding::ascii; }
  if (text == "binary") { return mesh_encoding::binary; }
  if (text == "binary-zlib") { return mesh_encoding::binary_zlib; }
  if (text == "appended") { return mesh_encoding::appended_raw; }
  if (text == "appended-zlib") { return mesh_encoding::appended_zlib; }
  if (text == "appended-base64") { return mesh_encoding::appended_base64; }
  WARPDEX_FAIL("unknown mesh encoding '" + std::string(text) +
               "' (expected ascii, binary, binary-zlib, appended, appended-zlib or appended-base64)");
}

void write_tet_mesh(const std::filesystem::path& path, const tet_mesh& mesh, mesh_encoding encoding)
{
  const std::string extension = path.extension().string();
  const std::uint64_t cells = mesh.cell_count();
  const auto type_of = [&](std::uint64_t c) { return mesh.cell_types.empty() ? vtk_tetra : mesh.cell_types[c]; };
  // Where each cell's point ids start (cells + 1 values).
  std::vector<std::uint64_t> first(cells + 1, 0);
  for (std::uint64_t c = 0; c < cells; ++c) {
    const std::uint64_t size = cell_shape_of(type_of(c)).points;
    WARPDEX_EXPECTS(size > 0, "write_tet_mesh: cell " + std::to_string(c) + " is a " + vtk_cell_type_name(type_of(c)));
    first[c + 1] = first[c] + size;
  }
  WARPDEX_EXPECTS(first[cells] == mesh.connectivity.size(),
                  "write_tet_mesh: the cell types need " + std::to_string(first[cells]) +
                      " point ids, the connectivity holds " + std::to_string(mesh.connectivity.size()));
  std::string out;
  if (extension == ".vtk") {
    WARPDEX_EXPECTS(encoding == mesh_encoding::ascii || encoding == mesh_encoding::binary,
                    "mesh file " + path.string() + ": a legacy .vtk file is ascii or binary");
    const bool binary = encoding == mesh_encoding::binary;
    out = "# vtk DataFile Version 3.0\nwarpdex tetrahedral mesh\n" + std::string(binary ? "BINARY" : "ASCII") +
          "\nDATASET UNSTRUCTURED_GRID\nPOINTS " + std::to_string(mesh.point_count()) + " double\n";
    for (std::size_t i = 0; i < mesh.points.size(); ++i) {
      if (binary) {
        append_big_endian(out, mesh.points[i]);
      } else {
        std::array<char, 32> number{};
        out.append(number.data(), std::to_chars(number.data(), number.data() + number.size(), mesh.points[i]).ptr);
        out += (i % 3 == 2) ? '\n' : ' ';
      }
    }
    out += "\nCELLS " + std::to_string(cells) + " " + std::to_string(cells + mesh.connectivity.size()) + "\n";
    for (std::uint64_t c = 0; c < cells; ++c) {
      const int size = static_cast<int>(first[c + 1] - first[c]);
      for (int v = -1; v < size; ++v) {
        const std::uint32_t value = v < 0 ? static_cast<std::uint32_t>(size) : mesh.connectivity[first[c] + v];
        if (binary) {
          append_big_endian(out, static_cast<std::int32_t>(value));
        } else {
          out += std::to_string(value) + (v == size - 1 ? "\n" : " ");
        }
      }
    }
    out += "\nCELL_TYPES " + std::to_string(cells) + "\n";
    for (std::uint64_t c = 0; c < cells; ++c) {
      if (binary) {
        append_big_endian(out, static_cast<std::int32_t>(type_of(c)));
      } else {
        out += std::to_string(type_of(c)) + "\n";
      }
    }
  } else if (extension == ".vtu") {
    WARPDEX_EXPECTS(std::endian::native == std::endian::little, "write_tet_mesh: little-endian hosts only");
    const bool appended = encoding == mesh_encoding::appended_raw || encoding == mesh_encoding::appended_zlib ||
                          encoding == mesh_encoding::appended_base64;
    const bool compress = encoding == mesh_encoding::binary_zlib || encoding == mesh_encoding::appended_zlib;
    const std::size_t header_size = appended ? 8 : 4;
    // The arrays' raw little-endian bytes (Float64 points, Int64 connectivity and offsets, UInt8 types).
    std::string arrays[4];
    for (const double p : mesh.points) { append_native(arrays[0], p); }
    for (const std::uint32_t id : mesh.connectivity) { append_native(arrays[1], static_cast<std::int64_t>(id)); }
    for (std::uint64_t c = 0; c < cells; ++c) {
      append_native(arrays[2], static_cast<std::int64_t>(first[c + 1]));
      arrays[3].push_back(static_cast<char>(type_of(c)));
    }
    const char* types[4] = {"Float64", "Int64", "Int64", "UInt8"};
    const char* names[4] = {"Points", "connectivity", "offsets", "types"};
    const char* format = encoding == mesh_encoding::ascii ? "ascii" : appended ? "appended" : "binary";
    std::string appended_data;
    const auto array_xml = [&](int a) {
      std::string xml = std::string("<DataArray type=\"") + types[a] + "\" Name=\"" + names[a] + "\"" +
                        (a == 0 ? " NumberOfComponents=\"3\"" : "") + " format=\"" + format + "\"";
      if (encoding == mesh_encoding::ascii) {
        xml += ">\n";
        const std::size_t size = a == 0 ? 8 : a == 3 ? 1 : 8;
        for (std::size_t i = 0; i < arrays[a].size() / size; ++i) {
          if (a == 0) {
            double value;
            std::memcpy(&value, arrays[a].data() + 8 * i, 8);
            std::array<char, 32> number{};
            xml.append(number.data(), std::to_chars(number.data(), number.data() + number.size(), value).ptr);
          } else if (a == 3) {
            xml += std::to_string(static_cast<unsigned char>(arrays[a][i]));
          } else {
            std::int64_t value;
            std::memcpy(&value, arrays[a].data() + 8 * i, 8);
            xml += std::to_string(value);
          }
          xml += ' ';
        }
        return xml + "\n</DataArray>\n";
      }
      const vtu_block block = make_vtu_block(arrays[a], compress, header_size);
      if (!appended) { return xml + ">" + block.encoded(true, compress) + "</DataArray>\n"; }
      xml += " offset=\"" + std::to_string(appended_data.size()) + "\"/>\n";
      appended_data += block.encoded(encoding == mesh_encoding::appended_base64, compress);
      return xml;
    };
    // One array after the other, so the appended data holds them in the document's order.
    std::string xml[4];
    for (int a = 0; a < 4; ++a) { xml[a] = array_xml(a); }
    out = std::string(
              "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
              "byte_order=\"LittleEndian\" header_type=\"") +
          (header_size == 8 ? "UInt64" : "UInt32") + "\"" + (compress ? " compressor=\"vtkZLibDataCompressor\"" : "") +
          ">\n<UnstructuredGrid>\n<Piece NumberOfPoints=\"" + std::to_string(mesh.point_count()) +
          "\" NumberOfCells=\"" + std::to_string(cells) + "\">\n<Points>\n" + xml[0] + "</Points>\n<Cells>\n" + xml[1] +
          xml[2] + xml[3] + "</Cells>\n</Piece>\n</UnstructuredGrid>\n";
    if (appended) {
      out += std::string("<AppendedData encoding=\"") +
             (encoding == mesh_encoding::appended_base64 ? "base64" : "raw") + "\">\n_" + appended_data +
             "\n</AppendedData>\n";
    }
    out += "</VTKFile>\n";
  } else {
    WARPDEX_FAIL("mesh file " + path.string() + ": unknown extension '" + extension + "' (expected .vtk or .vtu)");
  }
  auto file = open_for_writing(path);
  file.write(out.data(), static_cast<std::streamsize>(out.size()));
  finish_writing(file, path);
}

void write_surface(const std::filesystem::path& path, const tet_mesh& mesh, std::span<const uint32x3> triangles,
                   std::span<const std::uint32_t> cells, std::span<const uint32x4> quads,
                   std::span<const std::uint32_t> quad_cells)
{
  const std::string extension = path.extension().string();
  if (extension != ".vtp" && extension != ".vtk" && extension != ".ply") {
    WARPDEX_FAIL("surface file " + path.string() + ": unknown extension '" + extension +
                 "' (expected .vtp, .vtk or .ply)");
  }
  WARPDEX_EXPECTS(cells.size() == triangles.size() && quad_cells.size() == quads.size(),
                  "write_surface: one cell per face expected");
  // The faces as polygons, triangles first: (first id, size).
  const std::size_t polygons = triangles.size() + quads.size();
  const auto polygon = [&](std::size_t i) {
    return i < triangles.size() ? std::span<const std::uint32_t>(triangles[i].word, 3)
                                : std::span<const std::uint32_t>(quads[i - triangles.size()].word, 4);
  };
  const auto cell_of = [&](std::size_t i) {
    return i < triangles.size() ? cells[i] : quad_cells[i - triangles.size()];
  };
  // The used points, renumbered in order of first use.
  constexpr std::uint32_t unused = 0xffffffffU;
  std::vector<std::uint32_t> new_id(mesh.point_count(), unused);
  std::vector<std::uint32_t> original;
  std::size_t corners = 0;
  for (std::size_t i = 0; i < polygons; ++i) {
    for (const std::uint32_t id : polygon(i)) {
      WARPDEX_EXPECTS(id < new_id.size(), "write_surface: point id " + std::to_string(id) + " is out of range");
      if (new_id[id] == unused) {
        new_id[id] = static_cast<std::uint32_t>(original.size());
        original.push_back(id);
      }
      ++corners;
    }
  }
  std::ostringstream out;
  out.precision(17);
  const auto point_line = [&](std::uint32_t id, const char* separator, const char* end) {
    out << mesh.points[3 * std::size_t{id}] << separator << mesh.points[3 * std::size_t{id} + 1] << separator
        << mesh.points[3 * std::size_t{id} + 2] << end;
  };
  /// The polygon's new ids, space-separated, after its size when `with_size`.
  const auto polygon_line = [&](std::size_t i, bool with_size) {
    const auto ids = polygon(i);
    if (with_size) { out << ids.size() << ' '; }
    for (std::size_t v = 0; v < ids.size(); ++v) { out << new_id[ids[v]] << (v + 1 == ids.size() ? '\n' : ' '); }
  };
  if (extension == ".ply") {
    out << "ply\nformat ascii 1.0\ncomment warpdex external faces\nelement vertex " << original.size()
        << "\nproperty double x\nproperty double y\nproperty double z\nelement face " << polygons
        << "\nproperty list uchar uint vertex_indices\nend_header\n";
    for (const auto id : original) { point_line(id, " ", "\n"); }
    for (std::size_t i = 0; i < polygons; ++i) { polygon_line(i, true); }
  } else if (extension == ".vtk") {
    out << "# vtk DataFile Version 3.0\nwarpdex external faces\nASCII\nDATASET POLYDATA\nPOINTS " << original.size()
        << " double\n";
    for (const auto id : original) { point_line(id, " ", "\n"); }
    out << "POLYGONS " << polygons << ' ' << polygons + corners << '\n';
    for (std::size_t i = 0; i < polygons; ++i) { polygon_line(i, true); }
    out << "POINT_DATA " << original.size() << "\nSCALARS original_point_id unsigned_int 1\nLOOKUP_TABLE default\n";
    for (const auto id : original) { out << id << '\n'; }
    out << "CELL_DATA " << polygons << "\nSCALARS cell_id unsigned_int 1\nLOOKUP_TABLE default\n";
    for (std::size_t i = 0; i < polygons; ++i) { out << cell_of(i) << '\n'; }
  } else {
    out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
        << "<PolyData>\n<Piece NumberOfPoints=\"" << original.size() << "\" NumberOfPolys=\"" << polygons
        << "\">\n<PointData>\n<DataArray type=\"UInt32\" Name=\"original_point_id\" format=\"ascii\">\n";
    for (const auto id : original) { out << id << '\n'; }
    out << "</DataArray>\n</PointData>\n<CellData>\n<DataArray type=\"UInt32\" Name=\"cell_id\" format=\"ascii\">\n";
    for (std::size_t i = 0; i < polygons; ++i) { out << cell_of(i) << '\n'; }
    out << "</DataArray>\n</CellData>\n<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" "
           "format=\"ascii\">\n";
    for (const auto id : original) { point_line(id, " ", "\n"); }
    out << "</DataArray>\n</Points>\n<Polys>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
    for (std::size_t i = 0; i < polygons; ++i) { polygon_line(i, false); }
    out << "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
    std::size_t end = 0;
    for (std::size_t i = 0; i < polygons; ++i) {
      end += polygon(i).size();
      out << end << '\n';
    }
    out << "</DataArray>\n</Polys>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  }
  const std::string text = std::move(out).str();
  auto file = open_for_writing(path);
  file.write(text.data(), static_cast<std::streamsize>(text.size()));
  finish_writing(file, path);
}

}  // namespace warpdex::dpp
