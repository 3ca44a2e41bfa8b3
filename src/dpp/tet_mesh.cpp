// Tetrahedralized uniform grids (include/warpdex/dpp/tet_mesh.hpp) and the names of the external-face
// methods (include/warpdex/dpp/external_faces.hpp). Host code only.
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/external_faces.hpp>
#include <warpdex/dpp/tet_mesh.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>

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

}  // namespace

tet_mesh make_tet_grid(const tet_grid_options& options)
{
  WARPDEX_EXPECTS(options.nx >= 1 && options.ny >= 1 && options.nz >= 1,
                  "make_tet_grid: every axis needs at least one hexahedron");
  WARPDEX_EXPECTS(
      options.tets_per_hex == 5 || options.tets_per_hex == 6,
      "make_tet_grid: a hexahedron splits into 5 or 6 tetrahedra, not " + std::to_string(options.tets_per_hex));
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
  return 2 * 2 * (nx * ny + ny * nz + nz * nx);
}

std::string tet_grid_name(const tet_grid_options& options)
{
  return "grid" + std::to_string(options.tets_per_hex) + "-" + std::string(grid_numbering_name(options.numbering)) +
         "-" + std::to_string(options.nx) + "x" + std::to_string(options.ny) + "x" + std::to_string(options.nz);
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
  WARPDEX_FAIL("unknown external-face method '" + std::string(text) + "' (expected auto, sort, sort_hash or hash)");
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
