// External faces against a std::map oracle on every backend of the build, for every method and hash:
// generated grids (5 and 6 tetrahedra a cube, hexahedra, mixed layers of every cell type; regular and
// randomized numbering) with their known face count, closed and outward-oriented surfaces, inverted cells,
// non-manifold faces, triangles that never match quads, hash collisions resolved (a bad hash, and the
// over-long-run path forced), and the errors on bad input.
#include "dpp_test_support.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"
#include "faces_workload.hpp"

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
          {face_method::partitioned, face_hash::fnv1a, default_collision_run_limit},
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

// ---- meshes of several cell types ----

/// VTK 9's face tables (vtkTetra, vtkHexahedron, vtkWedge, vtkPyramid::GetFace), written out here apart
/// from the library's: type, then its faces.
const std::map<int, std::vector<std::vector<int>>>& vtk_faces()
{
  static const std::map<int, std::vector<std::vector<int>>> tables{
      {10, {{0, 1, 3}, {1, 2, 3}, {2, 0, 3}, {0, 2, 1}}},
      {12, {{0, 4, 7, 3}, {1, 2, 6, 5}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 3, 2, 1}, {4, 5, 6, 7}}},
      {13, {{0, 2, 1}, {3, 4, 5}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}}},
      {14, {{0, 3, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}}}};
  return tables;
}

struct host_cell_faces {
  host_faces triangles;  // .triangles, .cells, .local_faces
  std::vector<uint32x4> quads;
  std::vector<std::uint32_t> quad_cells;
  std::vector<std::uint8_t> quad_local_faces;
};

/// The oracle for any mesh: faces counted by (size, sorted ids) in a map, those counted once kept in cell /
/// local-face order as the table writes them.
host_cell_faces oracle_cell_faces(const tet_mesh& mesh)
{
  const auto type_of = [&](std::size_t c) { return mesh.cell_types.empty() ? 10 : int{mesh.cell_types[c]}; };
  std::vector<std::size_t> first{0};
  for (std::size_t c = 0; c < mesh.cell_count(); ++c) {
    first.push_back(first.back() + (type_of(c) == 10 ? 4 : type_of(c) == 12 ? 8 : type_of(c) == 13 ? 6 : 5));
  }
  const auto face_ids = [&](std::size_t c, std::size_t k) {
    std::vector<std::uint32_t> ids;
    for (const int v : vtk_faces().at(type_of(c))[k]) { ids.push_back(mesh.connectivity[first[c] + v]); }
    return ids;
  };
  const auto sorted = [](std::vector<std::uint32_t> ids) {
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  std::map<std::vector<std::uint32_t>, int> counts;  // the size is the vector's length
  for (std::size_t c = 0; c < mesh.cell_count(); ++c) {
    for (std::size_t k = 0; k < vtk_faces().at(type_of(c)).size(); ++k) { ++counts[sorted(face_ids(c, k))]; }
  }
  host_cell_faces result;
  for (std::size_t c = 0; c < mesh.cell_count(); ++c) {
    for (std::size_t k = 0; k < vtk_faces().at(type_of(c)).size(); ++k) {
      const auto ids = face_ids(c, k);
      if (counts[sorted(ids)] != 1) { continue; }
      if (ids.size() == 3) {
        result.triangles.triangles.push_back(uint32x3{{ids[0], ids[1], ids[2]}});
        result.triangles.cells.push_back(static_cast<std::uint32_t>(c));
        result.triangles.local_faces.push_back(static_cast<std::uint8_t>(k));
      } else {
        result.quads.push_back(uint32x4{{ids[0], ids[1], ids[2], ids[3]}});
        result.quad_cells.push_back(static_cast<std::uint32_t>(c));
        result.quad_local_faces.push_back(static_cast<std::uint8_t>(k));
      }
    }
  }
  return result;
}

template <class Backend>
host_cell_faces run_cell_faces(const Backend& backend, const tet_mesh& mesh, const method_case& m, bool with_points,
                               face_stats* stats = nullptr)
{
  const auto connectivity = make_buffer_from<std::uint32_t>(backend, mesh.connectivity);
  const auto points = make_buffer_from<double>(backend, mesh.points);
  const auto types = make_buffer_from<std::uint8_t>(backend, mesh.cell_types);
  tet_mesh_view view{connectivity.span(), mesh.point_count(), {}, types.span()};
  if (with_points) { view.points = points.span(); }
  const auto faces = external_faces(backend, view, face_options{m.method, m.hash, m.run_limit});
  if (stats != nullptr) { *stats = faces.stats; }
  return {{faces.triangles.to_vector(), faces.cells.to_vector(), faces.local_faces.to_vector()},
          faces.quads.to_vector(),
          faces.quad_cells.to_vector(),
          faces.quad_local_faces.to_vector()};
}

void expect_same_faces(const host_cell_faces& got, const host_cell_faces& expected)
{
  EXPECT_EQ(got.triangles.triangles, expected.triangles.triangles);
  EXPECT_EQ(got.triangles.cells, expected.triangles.cells);
  EXPECT_EQ(got.triangles.local_faces, expected.triangles.local_faces);
  EXPECT_EQ(got.quads, expected.quads);
  EXPECT_EQ(got.quad_cells, expected.quad_cells);
  EXPECT_EQ(got.quad_local_faces, expected.quad_local_faces);
}

/// Every method's output equals the oracle's, with and without coordinates (positive-volume cells).
template <class Backend>
void expect_cells_match_oracle(const Backend& backend, const tet_mesh& mesh)
{
  const host_cell_faces expected = oracle_cell_faces(mesh);
  for (const auto& m : all_methods()) {
    SCOPED_TRACE(describe(m));
    for (const bool with_points : {false, true}) {
      expect_same_faces(run_cell_faces(backend, mesh, m, with_points), expected);
    }
  }
}

/// Each face points away from its cell: the cell's centroid lies behind the face's plane (by the face's
/// centroid and its normal, the sum of its corners' cross products); and the whole surface passes
/// check_surface (closed, consistently oriented, encloses the cells' volume).
void expect_cells_closed_outward(const tet_mesh& mesh, const host_cell_faces& faces, std::int64_t expected_count)
{
  ASSERT_EQ(check_surface(mesh, faces.triangles.triangles, faces.quads, expected_count), "");
  std::vector<std::size_t> first{0};
  for (std::size_t c = 0; c < mesh.cell_count(); ++c) {
    const int type = mesh.cell_types.empty() ? 10 : mesh.cell_types[c];
    first.push_back(first.back() + (type == 10 ? 4 : type == 12 ? 8 : type == 13 ? 6 : 5));
  }
  const auto check = [&](const std::uint32_t* ids, std::size_t size, std::uint32_t cell) {
    std::array<double, 3> normal{}, centre{}, cell_centre{};
    for (std::size_t v = 0; v < size; ++v) {
      const double* p = mesh.points.data() + 3 * std::size_t{ids[v]};
      const double* q = mesh.points.data() + 3 * std::size_t{ids[(v + 1) % size]};
      normal[0] += p[1] * q[2] - p[2] * q[1];
      normal[1] += p[2] * q[0] - p[0] * q[2];
      normal[2] += p[0] * q[1] - p[1] * q[0];
      for (int axis = 0; axis < 3; ++axis) { centre[axis] += p[axis] / static_cast<double>(size); }
    }
    const std::size_t corners = first[cell + 1] - first[cell];
    for (std::size_t v = first[cell]; v < first[cell + 1]; ++v) {
      for (int axis = 0; axis < 3; ++axis) {
        cell_centre[axis] += mesh.points[3 * std::size_t{mesh.connectivity[v]} + axis] / static_cast<double>(corners);
      }
    }
    double side = 0;
    for (int axis = 0; axis < 3; ++axis) { side += normal[axis] * (cell_centre[axis] - centre[axis]); }
    EXPECT_LT(side, 0.0) << "a face of cell " << cell << " points into its cell";
  };
  for (std::size_t i = 0; i < faces.triangles.triangles.size(); ++i) {
    check(faces.triangles.triangles[i].word, 3, faces.triangles.cells[i]);
  }
  for (std::size_t i = 0; i < faces.quads.size(); ++i) { check(faces.quads[i].word, 4, faces.quad_cells[i]); }
}

TEST(cell_shapes, are_vtk_tables)
{
  for (const auto& [type, faces] : vtk_faces()) {
    const cell_shape shape = cell_shape_of(static_cast<std::uint32_t>(type));
    ASSERT_EQ(shape.face_count, faces.size()) << type;
    int triangles = 0, quads = 0;
    for (std::size_t k = 0; k < faces.size(); ++k) {
      ASSERT_EQ(shape.face_size[k], faces[k].size());
      for (std::size_t v = 0; v < faces[k].size(); ++v) { EXPECT_EQ(shape.face[k][v], faces[k][v]); }
      if (faces[k].size() == 3) {
        EXPECT_EQ(shape.triangle_face[triangles++], k);
      } else {
        EXPECT_EQ(shape.quad_face[quads++], k);
      }
    }
    EXPECT_EQ(shape.triangle_count, triangles);
    EXPECT_EQ(shape.quad_count, quads);
  }
  for (const std::uint32_t other : {0U, 1U, 9U, 11U, 15U, 25U, 42U, 255U}) {
    EXPECT_EQ(cell_shape_of(other).points, 0);
  }
  EXPECT_EQ(vtk_cell_type_name(11), "voxel (VTK type 11)");
  EXPECT_EQ(vtk_cell_type_name(77), "cell of VTK type 77");
}

TYPED_TEST(external_faces_test, hexahedral_and_mixed_grids_have_the_known_surface)
{
  for (const std::uint32_t split : {grid_hexahedra, grid_mixed}) {
    for (const auto numbering : {grid_numbering::regular, grid_numbering::randomized}) {
      for (const auto size : {std::array<std::uint32_t, 3>{1, 1, 1}, {3, 4, 5}, {2, 3, 7}, {1, 2, 13}}) {
        const tet_grid_options options{size[0], size[1], size[2], split, numbering, case_seed(split + 20)};
        SCOPED_TRACE(tet_grid_name(options));
        const tet_mesh mesh = make_tet_grid(options);
        ASSERT_EQ(mesh.cell_types.size(), mesh.cell_count());
        ASSERT_EQ(mesh.cell_count(), tet_grid_cell_count(options));
        expect_cells_match_oracle(this->backend(), mesh);
        const host_cell_faces faces = run_cell_faces(this->backend(), mesh, all_methods()[0], true);
        expect_cells_closed_outward(mesh, faces, static_cast<std::int64_t>(tet_grid_external_face_count(options)));
        if (split == grid_hexahedra) {
          EXPECT_TRUE(faces.triangles.triangles.empty());
          EXPECT_EQ(faces.quads.size(), 2 * (size[0] * size[1] + size[1] * size[2] + size[2] * size[0]));
        }
      }
    }
  }
}

TYPED_TEST(external_faces_test, mixed_grid_holds_every_cell_type_and_a_fresh_one_matches)
{
  const tet_mesh mesh = make_tet_grid({2, 2, 6, grid_mixed, grid_numbering::regular, 1});
  for (const int type : {10, 12, 13, 14}) {
    EXPECT_NE(std::count(mesh.cell_types.begin(), mesh.cell_types.end(), type), 0) << type;
  }
  // 6 layers of 4 cubes: 1 + 6 + 5 + 6 + 2 + 5 cells a cube.
  EXPECT_EQ(mesh.cell_count(), 4U * 25U);
  const tet_grid_options fresh{4, 3, 9, grid_mixed, grid_numbering::randomized, fresh_seed()};
  const tet_mesh random = make_tet_grid(fresh);
  expect_cells_match_oracle(this->backend(), random);
  expect_cells_closed_outward(random, run_cell_faces(this->backend(), random, all_methods()[2], true),
                              static_cast<std::int64_t>(tet_grid_external_face_count(fresh)));
}

TYPED_TEST(external_faces_test, triangles_never_match_quads)
{
  // A unit hexahedron and two tetrahedra on its top square (0..3 bottom, 4..7 top, 8 above): the top
  // quad (4,5,6,7) and the triangles (4,5,6), (4,6,7) under the tetrahedra hold the same points but are
  // different faces, so all three stay external (a non-conforming mesh). A pyramid on the bottom square
  // shares its quad with the hexahedron, which hides it.
  tet_mesh mesh;
  mesh.points = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0.5, 0.5, 2, 0.5, 0.5, -1};
  mesh.connectivity = {0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 8, 4, 6, 7, 8, 0, 3, 2, 1, 9};
  mesh.cell_types = {12, 10, 10, 14};
  expect_cells_match_oracle(this->backend(), mesh);
  const host_cell_faces faces = run_cell_faces(this->backend(), mesh, all_methods()[0], true);
  // Hexahedron: 5 quads (not the bottom); tetrahedra: 3 triangles each (they share (4,6,8)); pyramid: 4
  // triangles.
  EXPECT_EQ(faces.quads.size(), 5U);
  EXPECT_EQ(faces.triangles.triangles.size(), 10U);
  EXPECT_EQ(std::count(faces.quad_local_faces.begin(), faces.quad_local_faces.end(), 5), 1) << "the top quad";
  // A quad whose sorted ids begin with a triangle's: (0,1,2,3) of a hexahedron against the tetrahedron
  // (0,1,2,x) below it stays apart too.
  tet_mesh touching;
  touching.points = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0.5, 0.5, -1};
  touching.connectivity = {0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 8};
  touching.cell_types = {12, 10};
  expect_cells_match_oracle(this->backend(), touching);
  EXPECT_EQ(run_cell_faces(this->backend(), touching, all_methods()[3], false).quads.size(), 6U);
}

TYPED_TEST(external_faces_test, tetrahedra_with_types_take_the_tetrahedral_path)
{
  const tet_mesh tets = make_tet_grid({3, 2, 4, 6, grid_numbering::randomized, case_seed(8)});
  tet_mesh typed = tets;
  typed.cell_types.assign(tets.cell_count(), 10);
  const host_faces expected = oracle_faces(tets.connectivity);
  for (const auto& m : all_methods()) {
    SCOPED_TRACE(describe(m));
    const host_cell_faces got = run_cell_faces(this->backend(), typed, m, true);
    EXPECT_EQ(got.triangles.triangles, expected.triangles);
    EXPECT_EQ(got.triangles.cells, expected.cells);
    EXPECT_TRUE(got.quads.empty());
  }
}

TYPED_TEST(external_faces_test, inverted_cells_of_every_type_are_reoriented)
{
  const tet_grid_options options{3, 2, 7, grid_mixed, grid_numbering::randomized, case_seed(5)};
  const tet_mesh mesh = make_tet_grid(options);
  tet_mesh inverted = mesh;
  std::mt19937_64 random(case_seed(6));
  std::size_t at = 0;
  std::size_t mirrored = 0;
  for (std::size_t c = 0; c < inverted.cell_count(); ++c) {
    std::uint32_t* v = inverted.connectivity.data() + at;
    const int type = inverted.cell_types[c];
    if (random() % 2 == 0) {  // a mirror image of the cell: its point order reflected
      ++mirrored;
      if (type == 12) {
        std::swap(v[1], v[3]);
        std::swap(v[5], v[7]);
      } else if (type == 13) {
        std::swap(v[1], v[2]);
        std::swap(v[4], v[5]);
      } else if (type == 14) {
        std::swap(v[1], v[3]);
      } else {
        std::swap(v[2], v[3]);
      }
    }
    at += type == 10 ? 4 : type == 12 ? 8 : type == 13 ? 6 : 5;
  }
  ASSERT_GT(mirrored, 0U);
  for (const auto& m : all_methods()) {
    SCOPED_TRACE(describe(m));
    expect_cells_closed_outward(inverted, run_cell_faces(this->backend(), inverted, m, true),
                                static_cast<std::int64_t>(tet_grid_external_face_count(options)));
  }
  // Without coordinates the mirrored cells' faces point inward.
  EXPECT_NE(
      check_surface(inverted, run_cell_faces(this->backend(), inverted, all_methods()[0], false).triangles.triangles,
                    run_cell_faces(this->backend(), inverted, all_methods()[0], false).quads, -1),
      "");
}

TYPED_TEST(external_faces_test, bad_cells_are_refused)
{
  const auto& backend = this->backend();
  // A hexahedron then a voxel (VTK type 11): the voxel is named with its cell.
  const auto ids = make_buffer_from<std::uint32_t>(backend, std::vector<std::uint32_t>(16, 0));
  const auto hex_voxel = make_buffer_from<std::uint8_t>(backend, std::vector<std::uint8_t>{12, 11});
  expect_error_mentioning<error>(
      [&] {
        (void)external_faces(backend, tet_mesh_view{ids.span(), 1, {}, hex_voxel.span()});
      },
      {"cell 1 is a voxel (VTK type 11)", "tetrahedra, hexahedra, wedges and pyramids"});
  const auto odd = make_buffer_from<std::uint8_t>(backend, std::vector<std::uint8_t>{10, 12, 200});
  expect_error_mentioning<error>(
      [&] {
        (void)external_faces(backend, tet_mesh_view{ids.span(), 1, {}, odd.span()});
      },
      {"cell 2 is a cell of VTK type 200"});
  // Types whose point counts do not add up to the connectivity's length (16 ids; 8 + 6 = 14).
  const auto hex_wedge = make_buffer_from<std::uint8_t>(backend, std::vector<std::uint8_t>{12, 13});
  expect_error_mentioning<error>(
      [&] {
        (void)external_faces(backend, tet_mesh_view{ids.span(), 1, {}, hex_wedge.span()});
      },
      {"2 cell types need 14 point ids", "holds 16"});
  // A point id out of range in a mixed mesh.
  const auto two_hexes = make_buffer_from<std::uint8_t>(backend, std::vector<std::uint8_t>{12, 12});
  std::vector<std::uint32_t> far(16, 0);
  far[11] = 9;
  const auto far_ids = make_buffer_from<std::uint32_t>(backend, far);
  expect_error_mentioning<error>(
      [&] {
        (void)external_faces(backend, tet_mesh_view{far_ids.span(), 9, {}, two_hexes.span()});
      },
      {"point id 9", "9 points"});
}

TEST(external_faces_names, parse_and_name)
{
  for (const auto method : {face_method::automatic, face_method::sort_tuple, face_method::sort_hash,
                            face_method::hash_fight, face_method::partitioned}) {
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
  EXPECT_EQ(tet_grid_name({2, 3, 4, grid_hexahedra, grid_numbering::randomized, 1}), "hex-random-2x3x4");
  EXPECT_EQ(tet_grid_name({2, 3, 4, grid_mixed, grid_numbering::regular, 1}), "mixed-regular-2x3x4");
  EXPECT_EQ(tet_grid_external_face_count({2, 3, 4, grid_hexahedra, grid_numbering::regular, 1}), 52U);
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
