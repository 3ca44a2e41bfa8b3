// Tetrahedralized uniform grids (include/warpdex/dpp/tet_mesh.hpp) and the names of the external-face
// methods (include/warpdex/dpp/external_faces.hpp). Host code only.
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/external_faces.hpp>
#include <warpdex/dpp/tet_mesh.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace warpdex::dpp {
namespace {

/// Corner c of a cube is (c & 1, c >> 1 & 1, c >> 2 & 1).
using cube_split = std::vector<std::array<std::uint8_t, 4>>;

int corner_axis(std::uint8_t corner, int axis)
{
  return (corner >> axis) & 1;
}

/// The tetrahedron with positive volume: its last two vertices swapped when its volume is negative.
std::array<std::uint8_t, 4> positively_oriented(std::array<std::uint8_t, 4> tet)
{
  int corners[4][3];
  for (int v = 0; v < 4; ++v) {
    for (int axis = 0; axis < 3; ++axis) { corners[v][axis] = corner_axis(tet[v], axis); }
  }
  const int volume = tet_volume6<int>(corners[0], corners[1], corners[2], corners[3]);
  if (volume < 0) { std::swap(tet[2], tet[3]); }
  return tet;
}

cube_split oriented(cube_split split)
{
  for (auto& tet : split) { tet = positively_oriented(tet); }
  return split;
}

/// The 5-split of a cube whose corner 0 has even (parity 0) or odd coordinate sum: a central tetrahedron
/// on the corners of that parity's other class and four corner tetrahedra. Neighbouring cubes have
/// opposite parities, so each shared square is cut along the same diagonal from both sides.
const cube_split& five_split(int parity)
{
  static const cube_split even = oriented({{0, 3, 5, 6}, {1, 0, 3, 5}, {2, 0, 3, 6}, {4, 0, 5, 6}, {7, 3, 5, 6}});
  static const cube_split odd = oriented({{1, 2, 4, 7}, {0, 1, 2, 4}, {3, 1, 2, 7}, {5, 1, 4, 7}, {6, 2, 4, 7}});
  return parity == 0 ? even : odd;
}

/// The 6-split around the diagonal from corner 0 to corner 7 (one tetrahedron per path 0 → a → a+b → 7
/// along the axes): every square is cut along its diagonal through its lowest corner, in every cube.
const cube_split& six_split()
{
  static const cube_split split =
      oriented({{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}});
  return split;
}

std::vector<std::uint32_t> random_permutation(std::uint64_t n, std::mt19937_64& random)
{
  std::vector<std::uint32_t> permutation(n);
  std::iota(permutation.begin(), permutation.end(), std::uint32_t{0});
  std::shuffle(permutation.begin(), permutation.end(), random);
  return permutation;
}

/// The even permutations used to reorder a cell's vertices: a rotation of the first three, then
/// optionally the double swap (0 1)(2 3). Both keep the volume's sign.
void permute_vertices_evenly(std::uint32_t* cell, std::uint32_t choice)
{
  std::rotate(cell, cell + choice % 3, cell + 3);
  if (choice / 3 % 2 == 1) {
    std::swap(cell[0], cell[1]);
    std::swap(cell[2], cell[3]);
  }
}

// ---- hexahedral and mixed grids ----

/// A cell of a cube: its VTK type and its corners (0..7 as above, 8 the cube's centre) in VTK's order.
struct cube_cell {
  std::uint8_t type;
  std::vector<std::uint8_t> corners;
};

double corner_coordinate(std::uint8_t corner, int axis)
{
  return corner == 8 ? 0.5 : corner_axis(corner, axis);
}

/// The cell with positive volume: reflected (a swap that mirrors its type's point order) when negative.
cube_cell positively_oriented(cube_cell cell)
{
  double corners[9 * 3];
  for (std::uint8_t c = 0; c < 9; ++c) {
    for (int axis = 0; axis < 3; ++axis) { corners[3 * c + axis] = corner_coordinate(c, axis); }
  }
  const std::vector<std::uint32_t> ids(cell.corners.begin(), cell.corners.end());
  if (cell_volume6(cell_shape_of(cell.type), ids.data(), corners) < 0) {
    auto& v = cell.corners;
    switch (cell.type) {
      case vtk_hexahedron:
        std::swap(v[1], v[3]);
        std::swap(v[5], v[7]);
        break;
      case vtk_wedge:
        std::swap(v[1], v[2]);
        std::swap(v[4], v[5]);
        break;
      case vtk_pyramid:
        std::swap(v[1], v[3]);
        break;
      default:
        std::swap(v[2], v[3]);
        break;
    }
  }
  return cell;
}

/// The cells of a cube of layer kind `layer` (k mod 6 for grid_mixed; the hexahedron alone otherwise).
/// Squares are cut along the diagonal through their lowest corner wherever they are cut, so every layer
/// matches its neighbours (see grid_mixed).
const std::vector<cube_cell>& cube_cells(int layer)
{
  static const auto layers = [] {
    const auto tet = [](std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
      return cube_cell{vtk_tetra, {a, b, c, d}};
    };
    const cube_cell hex{vtk_hexahedron, {0, 1, 3, 2, 4, 5, 7, 6}};
    // The 6 faces of the cube, each a cycle of corners.
    const std::uint8_t squares[6][4] = {{0, 1, 3, 2}, {4, 5, 7, 6}, {0, 2, 6, 4},
                                        {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 3, 7, 6}};
    std::vector<cube_cell> pyramids6;
    for (const auto& square : squares) {
      pyramids6.push_back({vtk_pyramid, {square[0], square[1], square[2], square[3], 8}});
    }
    std::vector<std::vector<cube_cell>> all{
        {hex},
        pyramids6,
        {{vtk_pyramid, {0, 1, 3, 2, 7}}, tet(0, 2, 6, 7), tet(0, 6, 4, 7), tet(0, 1, 5, 7), tet(0, 5, 4, 7)},
        {tet(0, 1, 3, 7), tet(0, 1, 5, 7), tet(0, 2, 3, 7), tet(0, 2, 6, 7), tet(0, 4, 5, 7), tet(0, 4, 6, 7)},
        {{vtk_wedge, {0, 1, 3, 4, 5, 7}}, {vtk_wedge, {0, 3, 2, 4, 7, 6}}},
        {{vtk_pyramid, {4, 5, 7, 6, 0}}, tet(0, 1, 3, 7), tet(0, 1, 7, 5), tet(0, 2, 3, 7), tet(0, 2, 7, 6)}};
    for (auto& cells : all) {
      for (auto& cell : cells) { cell = positively_oriented(cell); }
    }
    return all;
  }();
  return layers[layer];
}

/// Layer k's kind: 0 (hexahedra) for a hexahedral grid, k mod 6 for a mixed one.
int layer_kind(const tet_grid_options& options, std::uint64_t k)
{
  return options.tets_per_hex == grid_mixed ? static_cast<int>(k % 6) : 0;
}

/// Whether the squares on a cube's sides (x and y) and on its bottom and top are whole quads.
struct layer_faces {
  bool sides_quads, bottom_quad, top_quad;
};
layer_faces faces_of_layer(int kind)
{
  static constexpr layer_faces kinds[6] = {{true, true, true},    {true, true, true},   {false, true, false},
                                           {false, false, false}, {true, false, false}, {false, false, true}};
  return kinds[kind];
}

/// A turn of the cell's vertex order that keeps its orientation (`choice` picks one of a few).
void turn_vertices(std::uint8_t type, std::uint32_t* cell, std::uint32_t choice)
{
  switch (type) {
    case vtk_hexahedron:
      std::rotate(cell, cell + choice % 4, cell + 4);
      std::rotate(cell + 4, cell + 4 + choice % 4, cell + 8);
      break;
    case vtk_wedge:
      std::rotate(cell, cell + choice % 3, cell + 3);
      std::rotate(cell + 3, cell + 3 + choice % 3, cell + 6);
      break;
    case vtk_pyramid:
      std::rotate(cell, cell + choice % 4, cell + 4);
      break;
    default:
      permute_vertices_evenly(cell, choice % 6);
      break;
  }
}

/// The cells of the grid, counted in `Count` (long double: a count past 64 bits, approximately).
template <class Count>
Count grid_cell_count(const tet_grid_options& options)
{
  const Count per_layer = static_cast<Count>(options.nx) * options.ny;
  if (options.tets_per_hex != grid_mixed) {
    return per_layer * options.nz * (options.tets_per_hex == grid_hexahedra ? 1 : options.tets_per_hex);
  }
  Count cells = 0;
  for (std::uint64_t k = 0; k < options.nz; ++k) {
    cells += per_layer * static_cast<Count>(cube_cells(layer_kind(options, k)).size());
  }
  return cells;
}

/// A grid of hexahedra or of mixed layers (tets_per_hex 1 or 0), regularly numbered.
tet_mesh make_cell_grid(const tet_grid_options& options)
{
  const std::uint64_t px = std::uint64_t{options.nx} + 1;
  const std::uint64_t py = std::uint64_t{options.ny} + 1;
  const std::uint64_t pz = std::uint64_t{options.nz} + 1;
  const std::uint64_t per_layer = std::uint64_t{options.nx} * options.ny;
  const std::uint64_t cells = tet_grid_cell_count(options);
  std::uint64_t ids = 0;
  std::uint64_t centres = 0;
  for (std::uint64_t k = 0; k < options.nz; ++k) {
    const auto& cube = cube_cells(layer_kind(options, k));
    for (const auto& cell : cube) { ids += per_layer * cell.corners.size(); }
    if (layer_kind(options, k) == 1) { centres += per_layer; }
  }
  const std::uint64_t grid_points = px * py * pz;
  WARPDEX_EXPECTS(grid_points + centres <= std::numeric_limits<std::uint32_t>::max() && 6 * cells <= 0xfffffffeULL,
                  "make_tet_grid: " + tet_grid_name(options) + " has " + std::to_string(cells) +
                      " cells: more than 32-bit face ids hold");
  tet_mesh mesh;
  mesh.points.resize(3 * (grid_points + centres));
  for (std::uint64_t p = 0; p < grid_points; ++p) {
    mesh.points[3 * p] = static_cast<double>(p % px);
    mesh.points[3 * p + 1] = static_cast<double>(p / px % py);
    mesh.points[3 * p + 2] = static_cast<double>(p / (px * py));
  }
  mesh.connectivity.resize(ids);
  mesh.cell_types.resize(cells);
  std::uint64_t cell = 0;
  std::uint64_t at = 0;
  std::uint64_t centre = grid_points;
  for (std::uint64_t k = 0; k < options.nz; ++k) {
    const int kind = layer_kind(options, k);
    const auto& cube = cube_cells(kind);
    for (std::uint64_t j = 0; j < options.ny; ++j) {
      for (std::uint64_t i = 0; i < options.nx; ++i) {
        if (kind == 1) {
          mesh.points[3 * centre] = static_cast<double>(i) + 0.5;
          mesh.points[3 * centre + 1] = static_cast<double>(j) + 0.5;
          mesh.points[3 * centre + 2] = static_cast<double>(k) + 0.5;
        }
        for (const auto& c : cube) {
          mesh.cell_types[cell++] = c.type;
          for (const std::uint8_t corner : c.corners) {
            mesh.connectivity[at++] =
                corner == 8
                    ? static_cast<std::uint32_t>(centre)
                    : static_cast<std::uint32_t>(i + corner_axis(corner, 0) +
                                                 px * (j + corner_axis(corner, 1) + py * (k + corner_axis(corner, 2))));
          }
        }
        if (kind == 1) { ++centre; }
      }
    }
  }
  return mesh;
}

/// The mesh with its points and cells in a random order and each cell's vertices turned.
tet_mesh shuffled_cells(const tet_mesh& mesh, std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  const std::uint64_t points = mesh.point_count();
  const std::uint64_t cells = mesh.cell_count();
  const auto new_point_id = random_permutation(points, random);
  tet_mesh shuffled;
  shuffled.points.resize(mesh.points.size());
  for (std::uint64_t p = 0; p < points; ++p) {
    std::copy_n(mesh.points.data() + 3 * p, 3, shuffled.points.data() + 3 * std::uint64_t{new_point_id[p]});
  }
  std::vector<std::uint64_t> first(cells + 1, 0);
  for (std::uint64_t c = 0; c < cells; ++c) { first[c + 1] = first[c] + cell_shape_of(mesh.cell_types[c]).points; }
  const auto cell_source = random_permutation(cells, random);
  shuffled.connectivity.reserve(mesh.connectivity.size());
  shuffled.cell_types.resize(cells);
  for (std::uint64_t c = 0; c < cells; ++c) {
    const std::uint64_t source = cell_source[c];
    const std::uint8_t type = mesh.cell_types[source];
    shuffled.cell_types[c] = type;
    const std::size_t at = shuffled.connectivity.size();
    for (std::uint64_t v = first[source]; v < first[source + 1]; ++v) {
      shuffled.connectivity.push_back(new_point_id[mesh.connectivity[v]]);
    }
    turn_vertices(type, shuffled.connectivity.data() + at, static_cast<std::uint32_t>(random() % 12));
  }
  return shuffled;
}

}  // namespace

std::string vtk_cell_type_name(std::uint64_t type)
{
  static const std::map<std::uint64_t, const char*> names{{1, "vertex"},
                                                          {3, "line"},
                                                          {5, "triangle"},
                                                          {7, "polygon"},
                                                          {9, "quad"},
                                                          {10, "tetrahedron"},
                                                          {11, "voxel"},
                                                          {12, "hexahedron"},
                                                          {13, "wedge"},
                                                          {14, "pyramid"},
                                                          {24, "quadratic tetrahedron"},
                                                          {25, "quadratic hexahedron"},
                                                          {42, "polyhedron"}};
  const auto found = names.find(type);
  return found == names.end() ? "cell of VTK type " + std::to_string(type)
                              : std::string(found->second) + " (VTK type " + std::to_string(type) + ")";
}

tet_mesh make_tet_grid(const tet_grid_options& options)
{
  WARPDEX_EXPECTS(options.nx >= 1 && options.ny >= 1 && options.nz >= 1,
                  "make_tet_grid: every axis needs at least one hexahedron");
  WARPDEX_EXPECTS(options.tets_per_hex == 5 || options.tets_per_hex == 6 || options.tets_per_hex == grid_hexahedra ||
                      options.tets_per_hex == grid_mixed,
                  "make_tet_grid: a hexahedron splits into 5 or 6 tetrahedra, is kept whole (1) or split by layers "
                  "(0), not " +
                      std::to_string(options.tets_per_hex));
  // The 64-bit counts below wrap for the largest sizes (4194304x4194304x1048576 would count 0 cells), so a
  // grid past 32-bit ids is refused first, with its true count.
  const long double all_cells = grid_cell_count<long double>(options);
  const long double all_points = (static_cast<long double>(options.nx) + 1) *
                                 (static_cast<long double>(options.ny) + 1) *
                                 (static_cast<long double>(options.nz) + 1);
  if (all_cells > std::numeric_limits<std::uint32_t>::max() || all_points > std::numeric_limits<std::uint32_t>::max()) {
    char count[64];
    std::snprintf(count, sizeof count, "%.0Lf", all_cells);
    WARPDEX_FAIL("generated grid " + tet_grid_name(options) + " has " + count + " cells and " +
                 std::to_string(options.nx + 1ULL) + "x" + std::to_string(options.ny + 1ULL) + "x" +
                 std::to_string(options.nz + 1ULL) + " points: more than 32-bit face ids hold");
  }
  if (options.tets_per_hex == grid_hexahedra || options.tets_per_hex == grid_mixed) {
    tet_mesh mesh = make_cell_grid(options);
    return options.numbering == grid_numbering::regular ? mesh : shuffled_cells(mesh, options.seed);
  }
  const std::uint64_t px = std::uint64_t{options.nx} + 1;
  const std::uint64_t py = std::uint64_t{options.ny} + 1;
  const std::uint64_t pz = std::uint64_t{options.nz} + 1;
  const std::uint64_t hexes = std::uint64_t{options.nx} * options.ny * options.nz;
  const std::uint64_t points = px * py * pz;
  const std::uint64_t cells = hexes * options.tets_per_hex;
  WARPDEX_EXPECTS(points <= std::numeric_limits<std::uint32_t>::max() && cells <= 0xfffffffeULL / 4,
                  "make_tet_grid: " + tet_grid_name(options) + " has " + std::to_string(cells) +
                      " cells: more than 32-bit face ids hold");

  tet_mesh mesh;
  mesh.points.resize(points * 3);
  for (std::uint64_t p = 0; p < points; ++p) {
    mesh.points[3 * p] = static_cast<double>(p % px);
    mesh.points[3 * p + 1] = static_cast<double>(p / px % py);
    mesh.points[3 * p + 2] = static_cast<double>(p / (px * py));
  }
  mesh.connectivity.resize(cells * 4);
  const auto hex_count = static_cast<std::int64_t>(hexes);
#pragma omp parallel for schedule(static)
  for (std::int64_t hex = 0; hex < hex_count; ++hex) {
    const auto h = static_cast<std::uint64_t>(hex);
    const std::uint64_t i = h % options.nx;
    const std::uint64_t j = h / options.nx % options.ny;
    const std::uint64_t k = h / (std::uint64_t{options.nx} * options.ny);
    const cube_split& split = options.tets_per_hex == 6 ? six_split() : five_split(static_cast<int>((i + j + k) % 2));
    std::uint32_t* out = mesh.connectivity.data() + h * options.tets_per_hex * 4;
    for (const auto& tet : split) {
      for (const std::uint8_t corner : tet) {
        const std::uint64_t x = i + corner_axis(corner, 0);
        const std::uint64_t y = j + corner_axis(corner, 1);
        const std::uint64_t z = k + corner_axis(corner, 2);
        *out++ = static_cast<std::uint32_t>(x + px * (y + py * z));
      }
    }
  }
  if (options.numbering == grid_numbering::regular) { return mesh; }

  std::mt19937_64 random(options.seed);
  const auto new_point_id = random_permutation(points, random);
  tet_mesh shuffled;
  shuffled.points.resize(mesh.points.size());
  for (std::uint64_t p = 0; p < points; ++p) {
    std::copy_n(mesh.points.data() + 3 * p, 3, shuffled.points.data() + 3 * std::uint64_t{new_point_id[p]});
  }
  const auto cell_source = random_permutation(cells, random);
  shuffled.connectivity.resize(mesh.connectivity.size());
  for (std::uint64_t c = 0; c < cells; ++c) {
    std::uint32_t* cell = shuffled.connectivity.data() + 4 * c;
    for (int v = 0; v < 4; ++v) { cell[v] = new_point_id[mesh.connectivity[4 * std::uint64_t{cell_source[c]} + v]]; }
    permute_vertices_evenly(cell, static_cast<std::uint32_t>(random() % 6));
  }
  return shuffled;
}

std::uint64_t tet_grid_external_face_count(const tet_grid_options& options)
{
  const std::uint64_t nx = options.nx;
  const std::uint64_t ny = options.ny;
  const std::uint64_t nz = options.nz;
  if (options.tets_per_hex == grid_hexahedra) { return 2 * (nx * ny + ny * nz + nz * nx); }
  if (options.tets_per_hex != grid_mixed) { return 2 * 2 * (nx * ny + ny * nz + nz * nx); }
  const auto per_square = [](bool quad) { return quad ? std::uint64_t{1} : std::uint64_t{2}; };
  std::uint64_t faces = nx * ny * per_square(faces_of_layer(layer_kind(options, 0)).bottom_quad) +
                        nx * ny * per_square(faces_of_layer(layer_kind(options, nz - 1)).top_quad);
  for (std::uint64_t k = 0; k < nz; ++k) {
    faces += 2 * (nx + ny) * per_square(faces_of_layer(layer_kind(options, k)).sides_quads);
  }
  return faces;
}

std::uint64_t tet_grid_cell_count(const tet_grid_options& options)
{
  return grid_cell_count<std::uint64_t>(options);
}

std::string tet_grid_name(const tet_grid_options& options)
{
  const std::string split = options.tets_per_hex == grid_hexahedra ? "hex"
                            : options.tets_per_hex == grid_mixed   ? "mixed"
                                                                   : "grid" + std::to_string(options.tets_per_hex);
  return split + "-" + std::string(grid_numbering_name(options.numbering)) + "-" + std::to_string(options.nx) + "x" +
         std::to_string(options.ny) + "x" + std::to_string(options.nz);
}

void parse_tet_grid_size(std::string_view text, tet_grid_options& options)
{
  std::uint32_t sizes[3] = {0, 0, 0};
  int count = 0;
  const char* cursor = text.data();
  const char* const end = text.data() + text.size();
  while (count < 3) {
    const auto [next, failure] = std::from_chars(cursor, end, sizes[count]);
    if (failure != std::errc() || sizes[count] == 0) {
      count = -1;
      break;
    }
    ++count;
    cursor = next;
    if (cursor == end) { break; }
    if (*cursor != 'x' || count == 3) {
      count = -1;
      break;
    }
    ++cursor;
  }
  WARPDEX_EXPECTS(count == 1 || count == 3,
                  "grid size '" + std::string(text) + "': expected N (a cube) or NXxNYxNZ, each at least 1");
  options.nx = sizes[0];
  options.ny = count == 3 ? sizes[1] : sizes[0];
  options.nz = count == 3 ? sizes[2] : sizes[0];
}

grid_numbering parse_grid_numbering(std::string_view text)
{
  if (text == "regular") { return grid_numbering::regular; }
  if (text == "random" || text == "randomized") { return grid_numbering::randomized; }
  WARPDEX_FAIL("unknown grid numbering '" + std::string(text) + "' (expected regular or random)");
}

std::string_view grid_numbering_name(grid_numbering numbering)
{
  return numbering == grid_numbering::regular ? "regular" : "random";
}

face_method parse_face_method(std::string_view text)
{
  if (text == "auto") { return face_method::automatic; }
  if (text == "sort" || text == "sort_tuple") { return face_method::sort_tuple; }
  if (text == "sort_hash") { return face_method::sort_hash; }
  if (text == "hash" || text == "hash_fight") { return face_method::hash_fight; }
  if (text == "partitioned") { return face_method::partitioned; }
  WARPDEX_FAIL("unknown external-face method '" + std::string(text) +
               "' (expected auto, sort, sort_hash, hash or partitioned)");
}

std::string_view face_method_name(face_method method)
{
  switch (method) {
    case face_method::sort_tuple:
      return "sort";
    case face_method::sort_hash:
      return "sort_hash";
    case face_method::hash_fight:
      return "hash";
    case face_method::partitioned:
      return "partitioned";
    default:
      return "auto";
  }
}

face_hash parse_face_hash(std::string_view text)
{
  if (text == "fnv1a") { return face_hash::fnv1a; }
  if (text == "morton") { return face_hash::morton; }
  if (text == "xor") { return face_hash::xor_ids; }
  WARPDEX_FAIL("unknown face hash '" + std::string(text) + "' (expected fnv1a, morton or xor)");
}

std::string_view face_hash_name(face_hash hash)
{
  switch (hash) {
    case face_hash::morton:
      return "morton";
    case face_hash::xor_ids:
      return "xor";
    default:
      return "fnv1a";
  }
}

}  // namespace warpdex::dpp
