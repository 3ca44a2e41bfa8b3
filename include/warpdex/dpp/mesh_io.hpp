#pragma once
/// @file Meshes of tetrahedra, hexahedra, wedges and pyramids from and to the files ParaView and VTK users
/// have, and external surfaces to .vtp / legacy .vtk / .ply (docs/dpp.md, "Mesh files").
///
/// Read: VTK legacy unstructured grids (`.vtk`, ASCII or BINARY, the classic CELLS layout and version
/// 5.1's OFFSETS / CONNECTIVITY) and VTK XML unstructured grids (`.vtu`: ascii, binary (base64), appended
/// (raw or base64), each optionally zlib-compressed with vtkZLibDataCompressor; UInt32 or UInt64 headers;
/// little- or big-endian). Point coordinates of any float or integer type become doubles; ids of any
/// integer type become 32-bit ids. Every cell must be a tetrahedron, hexahedron, wedge or pyramid (VTK
/// types 10, 12, 13, 14) with its type's number of points; a mesh of tetrahedra only is read without
/// cell types (`tet_mesh::cell_types` empty).
///
/// Every reader checks what a file claims against what it holds: a truncated file, a count or size that
/// disagrees with the data, an id outside the point range, a cell of another type or size, bad base64 or
/// zlib data all throw `warpdex::error` naming the file and the place, never read past the data.
/// A file is read into one buffer of its size (no second copy), in 16 MiB chunks, then parsed into the
/// cells' arrays; the buffer is released before the mesh is built, so the peak is the file plus its
/// parsed arrays (8 bytes an id), not the file twice. A `mesh_read_progress` callback hears how far
/// each stage is.

#include <warpdex/dpp/element.hpp>
#include <warpdex/dpp/tet_mesh.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace warpdex::dpp {

/// The stages of reading a mesh file, for `mesh_read_progress`.
enum class mesh_read_stage {
  reading,  ///< bytes read from the file, of its size
  parsing,  ///< the parser's position in the file's bytes, of its size (reported every 2^16 values)
};

/// Called on the reading thread as a file is read and parsed: `done` of `total` bytes in `stage`, `done`
/// not decreasing within a stage. Keep it cheap (an atomic store); an exception it throws ends the read.
using mesh_read_progress = std::function<void(mesh_read_stage stage, std::uint64_t done, std::uint64_t total)>;

/// The mesh in `path`, by its extension (.vtk or .vtu). `warpdex::error` on any other extension, on an
/// unreadable file (or one that shrinks while read), and on the malformed files described above.
[[nodiscard]] tet_mesh read_tet_mesh(const std::filesystem::path& path, const mesh_read_progress& progress = {});

/// Parses a legacy .vtk file's bytes; `name` names it in errors.
[[nodiscard]] tet_mesh parse_legacy_vtk(std::string_view bytes, const std::string& name,
                                        const mesh_read_progress& progress = {});

/// Parses a .vtu file's bytes; `name` names it in errors.
[[nodiscard]] tet_mesh parse_vtu(std::string_view bytes, const std::string& name,
                                 const mesh_read_progress& progress = {});

/// How a mesh file is written (for tests, and to hand generated meshes to other tools).
enum class mesh_encoding {
  ascii,            ///< .vtk ASCII or .vtu format="ascii"
  binary,           ///< .vtk BINARY (big-endian) or .vtu format="binary" (base64)
  binary_zlib,      ///< .vtu: base64 of zlib-compressed blocks
  appended_raw,     ///< .vtu: raw appended data
  appended_zlib,    ///< .vtu: raw appended data, zlib-compressed blocks
  appended_base64,  ///< .vtu: base64 appended data
};

/// "ascii", "binary", "binary-zlib", "appended", "appended-zlib", "appended-base64"; else `warpdex::error`.
[[nodiscard]] mesh_encoding parse_mesh_encoding(std::string_view text);

/// Writes `mesh` (any of the cell types above) to `path` (.vtk: ascii or binary only; .vtu: every
/// encoding). `warpdex::error` on another extension or encoding, or when the file cannot be written.
void write_tet_mesh(const std::filesystem::path& path, const tet_mesh& mesh, mesh_encoding encoding);

/// Writes the surface (triangles, then quads, of point ids of `mesh`, each with its cell) to `path` by its
/// extension: .vtp (VTK XML polydata, ascii), .vtk (legacy POLYDATA, ascii) or .ply (ascii). Only the
/// points the faces use are written, renumbered in order of first use; .vtp and .vtk carry the original
/// point ids as point data `original_point_id` and each face's cell as cell data `cell_id`.
/// `warpdex::error` on another extension or a write failure.
void write_surface(const std::filesystem::path& path, const tet_mesh& mesh, std::span<const uint32x3> triangles,
                   std::span<const std::uint32_t> cells, std::span<const uint32x4> quads = {},
                   std::span<const std::uint32_t> quad_cells = {});

}  // namespace warpdex::dpp
