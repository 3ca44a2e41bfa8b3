// Legacy VTK unstructured grids (.vtk) in: ASCII or BINARY, the classic CELLS layout and version 5.1's
// OFFSETS / CONNECTIVITY (include/warpdex/dpp/mesh_io.hpp).
#include "mesh_io_internal.hpp"

#include <warpdex/dpp/mesh_io.hpp>

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

}  // namespace

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

}  // namespace detail

tet_mesh parse_legacy_vtk(std::string_view bytes, const std::string& name, const mesh_read_progress& progress)
{
  detail::raw_cells cells = detail::parse_legacy_cells(bytes, name, progress);
  return detail::checked_mesh(std::move(cells.points), cells.ids, cells.offsets, cells.types, name);
}

}  // namespace warpdex::dpp
