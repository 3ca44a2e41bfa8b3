// External faces against a std::map oracle on every backend of the build, for every method and hash:
// generated grids (5 and 6 tetrahedra a cube, regular and randomized numbering) with their known face
// count, closed and outward-oriented surfaces, inverted cells, non-manifold faces, hash collisions resolved
// (a bad hash, and the over-long-run path forced), and the errors on bad input.
#include "dpp_test_support.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/dpp/external_faces.hpp>
#include <warpdex/dpp/tet_mesh.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace warpdex::testing;
using namespace warpdex::dpp;
using warpdex::error;

template <class Backend>
class external_faces_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(external_faces_test, all_backends, backend_names);

/// VTK's tetrahedron faces (outward for positive volume), as the header documents them.
constexpr int face_vertices[4][3] = {{0, 1, 3}, {1, 2, 3}, {2, 0, 3}, {0, 2, 1}};

struct host_faces {
  std::vector<uint32x3> triangles;
  std::vector<std::uint32_t> cells;
  std::vector<std::uint8_t> local_faces;
};

/// The oracle: count every sorted face in a map, keep those counted once, in cell / local-face order,
/// with the table's orientation.
host_faces oracle_faces(const std::vector<std::uint32_t>& connectivity)
{
  std::map<std::array<std::uint32_t, 3>, int> counts;
  const auto sorted_face = [&](std::size_t cell, int k) {
    std::array<std::uint32_t, 3> face{};
    for (int v = 0; v < 3; ++v) { face[v] = connectivity[4 * cell + face_vertices[k][v]]; }
    std::sort(face.begin(), face.end());
    return face;
  };
  const std::size_t cells = connectivity.size() / 4;
  for (std::size_t c = 0; c < cells; ++c) {
    for (int k = 0; k < 4; ++k) { ++counts[sorted_face(c, k)]; }
  }
  host_faces result;
  for (std::size_t c = 0; c < cells; ++c) {
    for (int k = 0; k < 4; ++k) {
      if (counts[sorted_face(c, k)] != 1) { continue; }
      uint32x3 triangle{};
      for (int v = 0; v < 3; ++v) { triangle.word[v] = connectivity[4 * c + face_vertices[k][v]]; }
      result.triangles.push_back(triangle);
      result.cells.push_back(static_cast<std::uint32_t>(c));
      result.local_faces.push_back(static_cast<std::uint8_t>(k));
    }
  }
  return result;
}

struct method_case {
  face_method method;
  face_hash hash;
  std::uint32_t run_limit;
};

std::string describe(const method_case& m)
{
  return std::string(face_method_name(m.method)) + "/" + std::string(face_hash_name(m.hash)) +
         "/limit=" + std::to_string(m.run_limit);
}

/// Every method, every hash of the hash sort, and the hash sort with its over-long-run path forced.
std::vector<method_case> all_methods()
{
  return {{face_method::automatic, face_hash::fnv1a, default_collision_run_limit},
          {face_method::sort_tuple, face_hash::fnv1a, default_collision_run_limit},
          {face_method::hash_fight, face_hash::fnv1a, default_collision_run_limit},
          {face_method::sort_hash, face_hash::fnv1a, default_collision_run_limit},
          {face_method::sort_hash, face_hash::morton, default_collision_run_limit},
          {face_method::sort_hash, face_hash::xor_ids, default_collision_run_limit},
          {face_method::sort_hash, face_hash::xor_ids, 1},
          {face_method::sort_hash, face_hash::fnv1a, 1}};
}

template <class Backend>
host_faces run_external_faces(const Backend& backend, const tet_mesh& mesh, const method_case& m, bool with_points,
                              face_stats* stats = nullptr)
{
  const auto connectivity = make_buffer_from<std::uint32_t>(backend, mesh.connectivity);
  const auto points = make_buffer_from<double>(backend, mesh.points);
  tet_mesh_view view{connectivity.span(), mesh.point_count(), {}};
  if (with_points) { view.points = points.span(); }
  const auto faces = external_faces(backend, view, face_options{m.method, m.hash, m.run_limit});
  if (stats != nullptr) { *stats = faces.stats; }
  return {faces.triangles.to_vector(), faces.cells.to_vector(), faces.local_faces.to_vector()};
}

/// Every method's output equals the oracle's, with and without coordinates (positive-volume cells).
template <class Backend>
void expect_matches_oracle(const Backend& backend, const tet_mesh& mesh)
{
  const host_faces expected = oracle_faces(mesh.connectivity);
  for (const auto& m : all_methods()) {
    SCOPED_TRACE(describe(m));
    for (const bool with_points : {false, true}) {
      const host_faces got = run_external_faces(backend, mesh, m, with_points);
      EXPECT_EQ(got.triangles, expected.triangles);
      EXPECT_EQ(got.cells, expected.cells);
      EXPECT_EQ(got.local_faces, expected.local_faces);
    }
  }
}

/// The surface is closed and consistently oriented (every directed edge once, its reverse once) and each
/// face points away from its cell's fourth vertex.
void expect_closed_outward(const tet_mesh& mesh, const host_faces& faces)
{
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
  for (const auto& t : faces.triangles) {
    for (int e = 0; e < 3; ++e) { ++directed[{t.word[e], t.word[(e + 1) % 3]}]; }
  }
  for (const auto& [edge, count] : directed) {
    ASSERT_EQ(count, 1) << "edge " << edge.first << "-" << edge.second << " used twice the same way";
    ASSERT_EQ(directed.count({edge.second, edge.first}), 1U)
        << "edge " << edge.first << "-" << edge.second << " has no reverse: the surface is open";
  }
  const auto point = [&](std::uint32_t id, int axis) { return mesh.points[3 * std::size_t{id} + axis]; };
  for (std::size_t i = 0; i < faces.triangles.size(); ++i) {
    const auto& t = faces.triangles[i];
    const std::uint32_t* cell = mesh.connectivity.data() + 4 * std::size_t{faces.cells[i]};
    std::uint32_t opposite = 0;
    for (int v = 0; v < 4; ++v) {
      if (cell[v] != t.word[0] && cell[v] != t.word[1] && cell[v] != t.word[2]) { opposite = cell[v]; }
    }
    double a[3], b[3], c[3];
    for (int axis = 0; axis < 3; ++axis) {
      a[axis] = point(t.word[1], axis) - point(t.word[0], axis);
      b[axis] = point(t.word[2], axis) - point(t.word[0], axis);
      c[axis] = point(opposite, axis) - point(t.word[0], axis);
    }
    const double side =
        (a[1] * b[2] - a[2] * b[1]) * c[0] + (a[2] * b[0] - a[0] * b[2]) * c[1] + (a[0] * b[1] - a[1] * b[0]) * c[2];
    ASSERT_LT(side, 0.0) << "face " << i << " of cell " << faces.cells[i] << " points into its cell";
  }
}

TYPED_TEST(external_faces_test, generated_grids_have_the_known_surface)
{
  for (const std::uint32_t split : {5U, 6U}) {
    for (const auto numbering : {grid_numbering::regular, grid_numbering::randomized}) {
      for (const auto size : {std::array<std::uint32_t, 3>{1, 1, 1}, {3, 4, 5}, {6, 1, 2}}) {
        const tet_grid_options options{size[0], size[1], size[2], split, numbering, case_seed(split)};
        SCOPED_TRACE(tet_grid_name(options));
        const tet_mesh mesh = make_tet_grid(options);
        ASSERT_EQ(mesh.cell_count(), std::uint64_t{size[0]} * size[1] * size[2] * split);
        expect_matches_oracle(this->backend(), mesh);
        const host_faces faces = run_external_faces(this->backend(), mesh, all_methods()[0], false);
        EXPECT_EQ(faces.triangles.size(), tet_grid_external_face_count(options));
        expect_closed_outward(mesh, faces);
      }
    }
  }
}

TYPED_TEST(external_faces_test, fresh_randomized_grid)
{
  const tet_grid_options options{7, 5, 4, 5, grid_numbering::randomized, fresh_seed()};
  const tet_mesh mesh = make_tet_grid(options);
  expect_matches_oracle(this->backend(), mesh);
}

TYPED_TEST(external_faces_test, small_meshes)
{
  tet_mesh one{{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 1, 2, 3}};
  expect_matches_oracle(this->backend(), one);
  // Two cells sharing face (0,1,2): 6 external faces. The second lies below the plane z = 0.
  tet_mesh two{{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1}, {0, 1, 2, 3, 0, 2, 1, 4}};
  expect_matches_oracle(this->backend(), two);
  const host_faces faces = run_external_faces(this->backend(), two, all_methods()[0], false);
  EXPECT_EQ(faces.triangles.size(), 6U);
  expect_closed_outward(two, faces);
  // Non-manifold: face (0,1,2) shared by three cells is no one's external face.
  tet_mesh three{{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 1, 1, 1}, {0, 1, 2, 3, 0, 2, 1, 4, 0, 1, 2, 5}};
  expect_matches_oracle(this->backend(), three);
  EXPECT_EQ(run_external_faces(this->backend(), three, all_methods()[0], false).triangles.size(), 9U);
  // No cells.
  tet_mesh empty{{0, 0, 0}, {}};
  expect_matches_oracle(this->backend(), empty);
}

TYPED_TEST(external_faces_test, inverted_cells_are_reoriented_from_their_coordinates)
{
  const tet_grid_options options{3, 2, 2, 6, grid_numbering::randomized, case_seed(3)};
  const tet_mesh mesh = make_tet_grid(options);
  tet_mesh inverted = mesh;
  std::mt19937_64 random(case_seed(4));
  for (std::size_t c = 0; c < inverted.cell_count(); ++c) {
    if (random() % 2 == 0) { std::swap(inverted.connectivity[4 * c + 2], inverted.connectivity[4 * c + 3]); }
  }
  for (const auto& m : all_methods()) {
    SCOPED_TRACE(describe(m));
    const host_faces faces = run_external_faces(this->backend(), inverted, m, true);
    EXPECT_EQ(faces.triangles.size(), tet_grid_external_face_count(options));
    expect_closed_outward(inverted, faces);
  }
}

TYPED_TEST(external_faces_test, collisions_are_resolved_and_counted)
{
  // XOR of three ids: many different faces of a grid share a value.
  const tet_mesh mesh = make_tet_grid({6, 6, 6, 5, grid_numbering::regular, 1});
  face_stats stats;
  const auto faces =
      run_external_faces(this->backend(), mesh, {face_method::sort_hash, face_hash::xor_ids, 16}, false, &stats);
  EXPECT_EQ(faces.triangles, oracle_faces(mesh.connectivity).triangles);
  EXPECT_EQ(stats.faces, mesh.cell_count() * 4);
  EXPECT_GT(stats.hash_collision_runs, 0U);
  EXPECT_GT(stats.sorted_fallback, 0U) << "XOR's runs on a grid exceed 16 faces";
  // A limit of 1 sends every shared face (a run of 2 at least) to the tuple sort.
  run_external_faces(this->backend(), mesh, {face_method::sort_hash, face_hash::fnv1a, 1}, false, &stats);
  EXPECT_GE(stats.sorted_fallback, stats.faces - tet_grid_external_face_count({6, 6, 6}));
  run_external_faces(this->backend(), mesh, {face_method::hash_fight, face_hash::fnv1a, 16}, false, &stats);
  EXPECT_GE(stats.fight_rounds, 1U);
}

TYPED_TEST(external_faces_test, bad_input_is_refused)
{
  const auto& backend = this->backend();
  const std::vector<std::uint32_t> ids{0, 1, 2, 3, 4};
  const auto five = make_buffer_from<std::uint32_t>(backend, ids);
  expect_error_mentioning<error>(
      [&] {
        (void)external_faces(backend, tet_mesh_view{five.span(), 5, {}});
      },
      {"5 point ids", "4 per tetrahedron"});
  const auto four = make_buffer_from<std::uint32_t>(backend, std::vector<std::uint32_t>{0, 1, 2, 7});
  expect_error_mentioning<error>(
      [&] {
        (void)external_faces(backend, tet_mesh_view{four.span(), 7, {}});
      },
      {"point id 7", "7 points"});
  const auto coordinates = make_buffer_from<double>(backend, std::vector<double>(20, 0.0));
  expect_error_mentioning<error>(
      [&] {
        (void)external_faces(backend, tet_mesh_view{four.span(), 8, coordinates.span()});
      },
      {"20 coordinates", "8 points"});
  expect_error_mentioning<error>(
      [&] {
        (void)external_faces(backend, tet_mesh_view{four.span(), 8, {}}, {face_method::sort_hash, face_hash::fnv1a, 0});
      },
      {"collision_run_limit"});
}

TEST(external_faces_names, parse_and_name)
{
  for (const auto method :
       {face_method::automatic, face_method::sort_tuple, face_method::sort_hash, face_method::hash_fight}) {
    EXPECT_EQ(parse_face_method(face_method_name(method)), method);
  }
  for (const auto hash : {face_hash::fnv1a, face_hash::morton, face_hash::xor_ids}) {
    EXPECT_EQ(parse_face_hash(face_hash_name(hash)), hash);
  }
  expect_error_mentioning<error>([] { (void)parse_face_method("quick"); }, {"'quick'", "sort_hash"});
  expect_error_mentioning<error>([] { (void)parse_face_hash("crc"); }, {"'crc'", "morton"});
}

TEST(tet_grid, options_are_checked_and_sizes_parsed)
{
  expect_error_mentioning<error>(
      [] {
        (void)make_tet_grid({0, 1, 1, 5, grid_numbering::regular, 1});
      },
      {"at least one"});
  expect_error_mentioning<error>(
      [] {
        (void)make_tet_grid({1, 1, 1, 4, grid_numbering::regular, 1});
      },
      {"5 or 6", "not 4"});
  expect_error_mentioning<error>(
      [] {
        (void)make_tet_grid({2000, 2000, 2000, 6, grid_numbering::regular, 1});
      },
      {"grid6-regular-2000x2000x2000", "32-bit"});
  tet_grid_options options;
  parse_tet_grid_size("200", options);
  EXPECT_EQ(tet_grid_name(options), "grid5-regular-200x200x200");
  parse_tet_grid_size("3x4x5", options);
  EXPECT_EQ(options.nx * 100 + options.ny * 10 + options.nz, 345U);
  for (const char* bad : {"", "0", "3x4", "3x4x5x6", "ax2x2", "3x0x1", "3x4x"}) {
    expect_error_mentioning<error>([&] { parse_tet_grid_size(bad, options); }, {"grid size"});
  }
  EXPECT_EQ(parse_grid_numbering("random"), grid_numbering::randomized);
  expect_error_mentioning<error>([] { (void)parse_grid_numbering("shuffled"); }, {"'shuffled'"});
}

TEST(tet_grid, randomized_numbering_is_a_renumbering_with_positive_volumes)
{
  const tet_grid_options regular{4, 3, 2, 5, grid_numbering::regular, 9};
  tet_grid_options random = regular;
  random.numbering = grid_numbering::randomized;
  const tet_mesh a = make_tet_grid(regular);
  const tet_mesh b = make_tet_grid(random);
  ASSERT_EQ(a.points.size(), b.points.size());
  ASSERT_EQ(a.connectivity.size(), b.connectivity.size());
  EXPECT_NE(a.connectivity, b.connectivity);
  // The same cells as point coordinate sets, and every one positive.
  const auto cells_as_coordinates = [](const tet_mesh& mesh) {
    std::vector<std::array<double, 12>> cells;
    for (std::size_t c = 0; c < mesh.cell_count(); ++c) {
      std::array<std::array<double, 3>, 4> corners{};
      for (int v = 0; v < 4; ++v) {
        for (int axis = 0; axis < 3; ++axis) {
          corners[v][axis] = mesh.points[3 * mesh.connectivity[4 * c + v] + axis];
        }
      }
      double e[3][3];
      for (int k = 0; k < 3; ++k) {
        for (int axis = 0; axis < 3; ++axis) { e[k][axis] = corners[k + 1][axis] - corners[0][axis]; }
      }
      const double volume = (e[0][1] * e[1][2] - e[0][2] * e[1][1]) * e[2][0] +
                            (e[0][2] * e[1][0] - e[0][0] * e[1][2]) * e[2][1] +
                            (e[0][0] * e[1][1] - e[0][1] * e[1][0]) * e[2][2];
      EXPECT_GT(volume, 0.0) << "cell " << c;
      std::sort(corners.begin(), corners.end());
      std::array<double, 12> flat{};
      for (int v = 0; v < 4; ++v) { std::copy(corners[v].begin(), corners[v].end(), flat.begin() + 3 * v); }
      cells.push_back(flat);
    }
    std::sort(cells.begin(), cells.end());
    return cells;
  };
  EXPECT_EQ(cells_as_coordinates(a), cells_as_coordinates(b));
}

}  // namespace
