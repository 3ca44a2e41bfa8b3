#pragma once
/// @file A mesh of tetrahedra (or of tetrahedra, hexahedra, wedges and pyramids) in host memory, and a
/// generator of uniform grids with a known number of external faces: tetrahedralized (the thesis's test
/// meshes, Lessley Ch. IX), hexahedral, or layers of every cell type. The input of
/// `dpp::external_faces` (external_faces.hpp), as read from a file (mesh_io.hpp) or generated here.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpdex::dpp {

/// Points and cells, in host memory: tetrahedra only (no `cell_types`), or cells of the VTK types that
/// `external_faces` takes (tetrahedron 10, hexahedron 12, wedge 13, pyramid 14), VTK's point ordering.
struct tet_mesh {
  std::vector<double> points;               ///< x, y, z per point
  std::vector<std::uint32_t> connectivity;  ///< point ids, cell after cell, positive volume (external_faces.hpp)
  std::vector<std::uint8_t> cell_types{};   ///< a VTK type per cell, or empty: tetrahedra only, 4 ids a cell

  [[nodiscard]] std::uint64_t point_count() const { return points.size() / 3; }
  [[nodiscard]] std::uint64_t cell_count() const
  {
    return cell_types.empty() ? connectivity.size() / 4 : cell_types.size();
  }
};

/// `tet_grid_options::tets_per_hex` for a grid of the hexahedra themselves, unsplit (VTK type 12).
inline constexpr std::uint32_t grid_hexahedra = 1;
/// `tet_grid_options::tets_per_hex` for a conforming grid of every cell type, by layers of cubes along z
/// (k mod 6): hexahedra; 6 pyramids around the cube's centre (a point added a cube); a pyramid on the
/// bottom square and 4 tetrahedra; 6 tetrahedra; 2 wedges; 4 tetrahedra and a pyramid under the top
/// square. Squares between cubes are whole quads or cut along the same diagonal from both sides.
inline constexpr std::uint32_t grid_mixed = 0;

/// How a generated grid numbers its points and cells.
enum class grid_numbering {
  regular,     ///< points x-fastest, cells hexahedron by hexahedron in the same order
  randomized,  ///< points and cells in a random order, each cell's vertices in a random even permutation
};

struct tet_grid_options {
  std::uint32_t nx = 1, ny = 1, nz = 1;  ///< hexahedra along each axis (each >= 1)
  /// 5 (alternating, conforming) or 6 (around the main diagonal) tetrahedra a cube, or `grid_hexahedra`
  /// (1), or `grid_mixed` (0)
  std::uint32_t tets_per_hex = 5;
  grid_numbering numbering = grid_numbering::regular;
  std::uint64_t seed = 1;  ///< for the randomized numbering
};

/// The grid of nx * ny * nz unit cubes, each split into 5 or 6 positive-volume tetrahedra whose faces
/// match across cubes (the 5-split alternates between its two mirror images like a checkerboard), or
/// kept as hexahedra, or split by layers into every cell type (`grid_mixed`); every cell has positive
/// volume. The randomized numbering also rotates each cell's vertex order (an even permutation of a
/// tetrahedron's, a turn about the cell's axis for the others). Deterministic for given options. Throws
/// `warpdex::error` for a size of 0, a split other than 5, 6, 1 or 0, or more points or face ids than 32
/// bits hold. O(cells) time and memory.
[[nodiscard]] tet_mesh make_tet_grid(const tet_grid_options& options);

/// The grid's external faces, triangles and quads: its boundary squares, 2 (nx ny + ny nz + nz nx), split
/// into 2 triangles each (tetrahedra), or whole (hexahedra); for `grid_mixed`, by the layer of each square.
[[nodiscard]] std::uint64_t tet_grid_external_face_count(const tet_grid_options& options);

/// The number of cells `make_tet_grid(options)` makes (O(nz)).
[[nodiscard]] std::uint64_t tet_grid_cell_count(const tet_grid_options& options);

/// "grid5-regular-20x20x20", "hex-random-20x20x20", "mixed-regular-6x6x12": the split, numbering and size
/// (bench rows and CLI output use it).
[[nodiscard]] std::string tet_grid_name(const tet_grid_options& options);

/// Parses "NX[xNY[xNZ]]" (one number: a cube) into the size fields of `options`; `warpdex::error` else.
void parse_tet_grid_size(std::string_view text, tet_grid_options& options);

/// "regular" or "random" (also "randomized"); `warpdex::error` else.
[[nodiscard]] grid_numbering parse_grid_numbering(std::string_view text);
[[nodiscard]] std::string_view grid_numbering_name(grid_numbering numbering);

}  // namespace warpdex::dpp
