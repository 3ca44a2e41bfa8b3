#pragma once
// What the readers of tetrahedral mesh files share (mesh_io.cpp, mesh_io_vtk.cpp, mesh_io_vtu.cpp): the
// error helper, the number types of the files and their decoders, and the cells as read before they are
// checked. The decoders are inline: the readers call them once a value, on the hot path of a parse.

#include <warpdex/dpp/mesh_io.hpp>

#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace warpdex::dpp::detail {

/// The parsers report their progress every 2^16 values (a mask).
inline constexpr std::uint64_t progress_interval = (std::uint64_t{1} << 16) - 1;

/// Throws `warpdex::error` "name: what". Both may quote the file's bytes (a name can carry an array's
/// name from the file): control characters are escaped in both, and bytes past ASCII in `what`
/// (core/printable.hpp), so the message stays one printable line whatever the file holds.
[[noreturn]] void fail(const std::string& name, const std::string& what);

/// A number type of the files: its size and kind.
struct number_type {
  std::size_t size = 0;
  char kind = 0;  // 'f' float, 'i' signed, 'u' unsigned
};

/// The value at `bytes` of `type`, byte order `big_endian`, as a double (coordinates).
inline double decode_double(const unsigned char* bytes, number_type type, bool big_endian)
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
inline std::uint64_t decode_id(const unsigned char* bytes, number_type type, bool big_endian, const std::string& name)
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

/// The cells of a file as read, before `checked_mesh`.
struct raw_cells {
  std::vector<double> points;
  std::vector<std::uint64_t> ids;
  std::vector<std::uint64_t> offsets;  // cells + 1, from 0
  std::vector<std::uint64_t> types;
};

/// Cells as read: ids, offsets (cells + 1, from 0) and types, checked into the mesh's connectivity and
/// types (none when every cell is a tetrahedron).
tet_mesh checked_mesh(std::vector<double> points, const std::vector<std::uint64_t>& ids,
                      const std::vector<std::uint64_t>& offsets, const std::vector<std::uint64_t>& types,
                      const std::string& name);

/// The cells of a legacy .vtk file (mesh_io_vtk.cpp).
raw_cells parse_legacy_cells(std::string_view bytes, const std::string& name, const mesh_read_progress& progress);

/// The cells of a VTK XML .vtu file (mesh_io_vtu.cpp).
raw_cells parse_vtu_cells(std::string_view text, const std::string& name, const mesh_read_progress& progress);

}  // namespace warpdex::dpp::detail
