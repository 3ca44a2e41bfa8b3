// VTK XML unstructured grids (.vtu) in: ascii, binary (base64) or appended (raw or base64) arrays,
// zlib-compressed or not, 32- or 64-bit headers, either byte order (include/warpdex/dpp/mesh_io.hpp).
#include "mesh_io_internal.hpp"

#include <warpdex/dpp/mesh_io.hpp>

#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpdex::dpp {
namespace detail {
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
    // deflate expands at most 1032:1, so a block claiming more than that of its packed bytes is damaged: refused
    // before its bytes are allocated (a flipped size byte would otherwise ask for terabytes).
    if (expected > packed.size() * 1032 + 64) {
      fail(file.name, "a zlib block of a DataArray claims " + std::to_string(expected) + " bytes from " +
                          std::to_string(packed.size()) + " compressed ones");
    }
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

raw_cells parse_vtu_cells(std::string_view text, const std::string& name, const mesh_read_progress& progress)
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

}  // namespace detail

tet_mesh parse_vtu(std::string_view text, const std::string& name, const mesh_read_progress& progress)
{
  detail::raw_cells cells = detail::parse_vtu_cells(text, name, progress);
  return detail::checked_mesh(std::move(cells.points), cells.ids, cells.offsets, cells.types, name);
}

}  // namespace warpdex::dpp
