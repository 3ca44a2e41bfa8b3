#pragma once
/// @file A tetrahedral mesh in host memory, and a generator of tetrahedralized uniform grids with a known
/// number of external faces (the thesis's test meshes, Lessley Ch. IX): the input of
/// `dpp::external_faces` (external_faces.hpp), as read from a file (mesh_io.hpp) or generated here.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpdex::dpp {

/// Points and tetrahedra, in host memory.
struct tet_mesh {
  std::vector<double> points;               ///< x, y, z per point
  std::vector<std::uint32_t> connectivity;  ///< 4 point ids per cell, positive volume (see external_faces.hpp)

  [[nodiscard]] std::uint64_t point_count() const { return points.size() / 3; }
  [[nodiscard]] std::uint64_t cell_count() const { return connectivity.size() / 4; }
};

/// How a generated grid numbers its points and cells.
enum class grid_numbering {
  regular,     ///< points x-fastest, cells hexahedron by hexahedron in the same order
  randomized,  ///< points and cells in a random order, each cell's vertices in a random even permutation
};

struct tet_grid_options {
  std::uint32_t nx = 1, ny = 1, nz = 1;  ///< hexahedra along each axis (each >= 1)
  std::uint32_t tets_per_hex = 5;        ///< 5 (alternating, conforming) or 6 (around the main diagonal)
  grid_numbering numbering = grid_numbering::regular;
  std::uint64_t seed = 1;  ///< for the randomized numbering
};

/// The grid of nx * ny * nz unit cubes, each split into 5 or 6 positive-volume tetrahedra whose faces
/// match across cubes (the 5-split alternates between its two mirror images like a checkerboard).
/// Deterministic for given options. Throws `warpdex::error` for a size of 0, a split other than 5 or 6,
/// or more points or face ids than 32 bits hold. O(cells) time and memory.
[[nodiscard]] tet_mesh make_tet_grid(const tet_grid_options& options);

/// The grid's external faces: its boundary squares, 2 (nx ny + ny nz + nz nx), split into 2 triangles each.
[[nodiscard]] std::uint64_t tet_grid_external_face_count(const tet_grid_options& options);

/// "grid5-regular-20x20x20": the split, numbering and size (bench rows and CLI output use it).
[[nodiscard]] std::string tet_grid_name(const tet_grid_options& options);

/// Parses "NX[xNY[xNZ]]" (one number: a cube) into the size fields of `options`; `warpdex::error` else.
void parse_tet_grid_size(std::string_view text, tet_grid_options& options);

/// "regular" or "random" (also "randomized"); `warpdex::error` else.
[[nodiscard]] grid_numbering parse_grid_numbering(std::string_view text);
[[nodiscard]] std::string_view grid_numbering_name(grid_numbering numbering);

}  // namespace warpdex::dpp
