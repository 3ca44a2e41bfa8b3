// Tetrahedral meshes (.vtk, .vtu in every encoding the readers take) and external surfaces (.vtp, .vtk,
// .ply) out (include/warpdex/dpp/mesh_io.hpp). zlib for the compressed .vtu blocks.
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
#include <sstream>
#include <string>
#include <vector>

namespace warpdex::dpp {
namespace {
/// .vtu compression block size, as VTK writes (32 KiB of uncompressed data a block).
constexpr std::size_t zlib_block_bytes = std::size_t{1} << 15;

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
