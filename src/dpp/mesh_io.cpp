// Tetrahedral mesh files (include/warpdex/dpp/mesh_io.hpp): reading a file whole and checking the cells
// its reader returns. The readers are mesh_io_vtk.cpp (legacy .vtk) and mesh_io_vtu.cpp (XML .vtu), the
// writers mesh_io_write.cpp; what they share is in mesh_io_internal.hpp.
#include "mesh_io_internal.hpp"
#include "../core/printable.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/dpp/external_faces.hpp>
#include <warpdex/dpp/mesh_io.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace warpdex::dpp {
namespace detail {

/// Throws `warpdex::error` "name: what". Both may quote the file's bytes (a name can carry an array's
/// name from the file): control characters are escaped in both, and bytes past ASCII in `what`, so the
/// message stays one printable line whatever the file holds.
[[noreturn]] void fail(const std::string& name, const std::string& what)
{
  WARPDEX_FAIL(warpdex::detail::printable(name, false) + ": " + warpdex::detail::printable(what, true));
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

}  // namespace detail

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

}  // namespace

tet_mesh read_tet_mesh(const std::filesystem::path& path, const mesh_read_progress& progress)
{
  const std::string extension = path.extension().string();
  if (extension != ".vtk" && extension != ".vtu") {
    WARPDEX_FAIL("mesh file " + path.string() + ": unknown extension '" + extension + "' (expected .vtk or .vtu)");
  }
  std::string bytes = read_whole_file(path, progress);
  detail::raw_cells cells = extension == ".vtk" ? detail::parse_legacy_cells(bytes, path.string(), progress)
                                                : detail::parse_vtu_cells(bytes, path.string(), progress);
  std::string().swap(bytes);  // the file's bytes are not held beside the mesh
  return detail::checked_mesh(std::move(cells.points), cells.ids, cells.offsets, cells.types, path.string());
}

}  // namespace warpdex::dpp
