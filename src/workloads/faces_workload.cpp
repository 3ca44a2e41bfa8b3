// The external-faces workload (include/warpdex/dpp/faces_workload.hpp). Host code: the backends' face
// search is instantiated in external_faces_host.cpp / external_faces_cuda.cu.
#include "faces_workload.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/mesh_io.hpp>

#include "dpp_workload_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::dpp {
namespace {

using detail::format_seconds;
using detail::seconds_since;

constexpr double origin[3] = {0, 0, 0};

/// A cell whose volume is within rounding of zero: its 6x volume at most this many units in the last
/// place of the cube of its largest extent (the volume's rounding error is a few such units).
constexpr double flat_cell_ulps = 64;

const char* cell_shape_name(std::uint8_t type)
{
  switch (type) {
    case vtk_hexahedron:
      return "a hexahedron";
    case vtk_wedge:
      return "a wedge";
    case vtk_pyramid:
      return "a pyramid";
    default:
      return "a tetrahedron";
  }
}

/// Orienting by the points reverses the faces of a cell of negative volume; a flat cell (its points in
/// one plane, or repeated) has no outward side, and the sign of its rounded volume would decide at
/// random. VTK keeps such cells, facing as its table says: so does `--no-points` (orient_by_points off).
void expect_no_flat_cell(const tet_mesh& mesh, const std::string& name)
{
  std::uint64_t first = 0;
  for (std::uint64_t c = 0; c < mesh.cell_count(); ++c) {
    const std::uint8_t type = mesh.cell_types.empty() ? vtk_tetra : mesh.cell_types[c];
    const cell_shape shape = cell_shape_of(type);
    if (shape.points == 0) { return; }  // a type the face search refuses, naming it
    const std::uint32_t* ids = mesh.connectivity.data() + first;
    first += shape.points;
    double extent = 0;
    for (int axis = 0; axis < 3; ++axis) {
      double low = mesh.points[3 * std::uint64_t{ids[0]} + axis];
      double high = low;
      for (int v = 1; v < shape.points; ++v) {
        low = std::min(low, mesh.points[3 * std::uint64_t{ids[v]} + axis]);
        high = std::max(high, mesh.points[3 * std::uint64_t{ids[v]} + axis]);
      }
      extent = std::max(extent, high - low);
    }
    const double volume6 = cell_volume6(shape, ids, mesh.points.data());
    if (std::abs(volume6) <= flat_cell_ulps * std::numeric_limits<double>::epsilon() * extent * extent * extent) {
      WARPDEX_FAIL(name + ": cell " + std::to_string(c) + " (" + cell_shape_name(type) +
                   ") is flat: its points lie in one plane (volume 0 within rounding), so its faces have no "
                   "outward side. --no-points keeps it, its faces in its table's order, as VTK does");
    }
  }
}

}  // namespace

std::string check_surface(const tet_mesh& mesh, std::span<const uint32x3> triangles, std::int64_t expected_faces)
{
  return check_surface(mesh, triangles, {}, expected_faces);
}

std::string check_surface(const tet_mesh& mesh, std::span<const uint32x3> triangles, std::span<const uint32x4> quads,
                          std::int64_t expected_faces)
{
  const std::uint64_t faces = triangles.size() + quads.size();
  if (expected_faces >= 0 && faces != static_cast<std::uint64_t>(expected_faces)) {
    return std::to_string(faces) + " faces, the grid has " + std::to_string(expected_faces);
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(3 * triangles.size() + 4 * quads.size());
  for (const auto& t : triangles) {
    for (int e = 0; e < 3; ++e) { edges.emplace_back(t.word[e], t.word[(e + 1) % 3]); }
  }
  for (const auto& q : quads) {
    for (int e = 0; e < 4; ++e) { edges.emplace_back(q.word[e], q.word[(e + 1) % 4]); }
  }
  std::sort(edges.begin(), edges.end());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    if (i + 1 < edges.size() && edges[i] == edges[i + 1]) {
      return "edge " + std::to_string(edges[i].first) + "-" + std::to_string(edges[i].second) +
             " is used twice in the same direction (inconsistent orientation or a non-manifold edge)";
    }
    if (!std::binary_search(edges.begin(), edges.end(), std::make_pair(edges[i].second, edges[i].first))) {
      return "edge " + std::to_string(edges[i].first) + "-" + std::to_string(edges[i].second) +
             " has no reverse: the surface is not closed";
    }
  }
  const auto point = [&](std::uint32_t id) { return mesh.points.data() + 3 * std::size_t{id}; };
  double enclosed = 0;
  for (const auto& t : triangles) {
    enclosed += tet_volume6(origin, point(t.word[0]), point(t.word[1]), point(t.word[2]));
  }
  for (const auto& q : quads) {
    const double* corner[4] = {point(q.word[0]), point(q.word[1]), point(q.word[2]), point(q.word[3])};
    enclosed += polygon_volume6(origin, corner, 4);
  }
  double cells = 0;
  std::uint64_t first = 0;
  for (std::uint64_t c = 0; c < mesh.cell_count(); ++c) {
    const cell_shape shape = cell_shape_of(mesh.cell_types.empty() ? vtk_tetra : mesh.cell_types[c]);
    cells += std::abs(cell_volume6(shape, mesh.connectivity.data() + first, mesh.points.data()));
    first += shape.points;
  }
  if (std::abs(enclosed - cells) > 1e-9 * std::max(1.0, cells)) {
    return "the surface encloses volume " + std::to_string(enclosed / 6) + " but the cells fill " +
           std::to_string(cells / 6) + " (faces pointing inward?)";
  }
  return {};
}

std::string faces_workload_report::summary() const
{
  const double cells_per_second = faces_seconds > 0 ? static_cast<double>(cells) / faces_seconds : 0;
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.3g", cells_per_second);
  return "faces " + method + " on " + mesh + " (" + backend + "): " + std::to_string(cells) + " cells, " +
         std::to_string(points) + " points -> " + std::to_string(external_faces) + " external faces" +
         (external_quads > 0 ? " (" + std::to_string(external_quads) + " quads)" : std::string()) + "; " +
         (generated ? "generate " : "read ") + format_seconds(read_seconds) + ", upload " +
         format_seconds(upload_seconds) + ", faces " + format_seconds(faces_seconds) + " (" + rate +
         " cells/s), write " + format_seconds(write_seconds) + "; check: " + check;
}

faces_workload_report run_faces_workload(backend_choice resolved, const faces_workload_options& options)
{
  WARPDEX_EXPECTS(options.repetitions >= 1, "faces: at least one timed run");
  faces_workload_report report;
  auto started = std::chrono::steady_clock::now();
  const tet_mesh mesh =
      options.grid ? make_tet_grid(*options.grid) : read_tet_mesh(options.mesh, options.read_progress);
  report.read_seconds = seconds_since(started);
  report.mesh = options.grid ? tet_grid_name(*options.grid) : options.mesh;
  report.generated = options.grid.has_value();
  report.points = mesh.point_count();
  report.cells = mesh.cell_count();
  // Faces are oriented, and the check's volumes computed, from the points: a NaN or an infinity, or a
  // coordinate whose cubed differences overflow, would make both meaningless.
  constexpr double largest_coordinate = 1e100;
  const auto bad = std::find_if(mesh.points.begin(), mesh.points.end(),
                                [](double x) { return !(std::abs(x) <= largest_coordinate); });
  if (bad != mesh.points.end()) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", *bad);
    WARPDEX_FAIL(report.mesh + ": point " + std::to_string((bad - mesh.points.begin()) / 3) + " has the coordinate " +
                 value + ", not a finite number within +-1e100");
  }
  if (options.orient_by_points && !options.grid) { expect_no_flat_cell(mesh, report.mesh); }

  std::vector<uint32x3> triangles;
  std::vector<std::uint32_t> cells;
  std::vector<uint32x4> quads;
  std::vector<std::uint32_t> quad_cells;
  visit_backend(resolved, [&](const auto& backend) {
    report.backend = std::string(backend.name);
    using backend_type = std::decay_t<decltype(backend)>;
    const face_method method = resolve_face_method<backend_type>(options.faces.method);
    report.method =
        (options.faces.method == face_method::automatic ? "auto: " : "") + std::string(face_method_name(method));
    if (method == face_method::sort_hash) { report.method += "/" + std::string(face_hash_name(options.faces.hash)); }
    started = std::chrono::steady_clock::now();
    auto connectivity = make_buffer<std::uint32_t>(backend, mesh.connectivity.size());
    connectivity.copy_from(std::span<const std::uint32_t>(mesh.connectivity));
    auto points = make_buffer<double>(backend, options.orient_by_points ? mesh.points.size() : 0);
    points.copy_from(std::span<const double>(mesh.points.data(), points.size()));
    auto types = make_buffer<std::uint8_t>(backend, mesh.cell_types.size());
    types.copy_from(std::span<const std::uint8_t>(mesh.cell_types));
    backend.synchronize();
    report.upload_seconds = seconds_since(started);
    const tet_mesh_view view{connectivity.span(), mesh.point_count(), points.span(), types.span()};
    auto faces = external_faces(backend, view, options.faces);  // warm-up
    std::vector<double> times;
    for (int run = 0; run < options.repetitions; ++run) {
      started = std::chrono::steady_clock::now();
      faces = external_faces(backend, view, options.faces);
      times.push_back(seconds_since(started));
    }
    std::sort(times.begin(), times.end());
    report.faces_seconds = times[times.size() / 2];
    report.stats = faces.stats;
    triangles = faces.triangles.to_vector();
    cells = faces.cells.to_vector();
    quads = faces.quads.to_vector();
    quad_cells = faces.quad_cells.to_vector();
  });
  report.external_faces = triangles.size() + quads.size();
  report.external_quads = quads.size();

  if (options.verify) {
    const std::int64_t expected =
        options.grid ? static_cast<std::int64_t>(tet_grid_external_face_count(*options.grid)) : -1;
    std::string problem = check_surface(mesh, triangles, quads, expected);
    std::string checked = "closed, oriented, encloses the cells' volume";
    if (expected >= 0) { checked += ", the grid's " + std::to_string(expected) + " faces"; }
    if (problem.empty() && mesh.cell_count() <= cross_check_max_cells) {
      const host on_host;
      auto connectivity = make_buffer<std::uint32_t>(on_host, mesh.connectivity.size());
      connectivity.copy_from(std::span<const std::uint32_t>(mesh.connectivity));
      auto points = make_buffer<double>(on_host, options.orient_by_points ? mesh.points.size() : 0);
      points.copy_from(std::span<const double>(mesh.points.data(), points.size()));
      const auto reference =
          external_faces(on_host, {connectivity.span(), mesh.point_count(), points.span(), mesh.cell_types},
                         face_options{face_method::sort_tuple});
      if (reference.triangles.to_vector() != triangles || reference.cells.to_vector() != cells ||
          reference.quads.to_vector() != quads || reference.quad_cells.to_vector() != quad_cells) {
        problem = "the faces differ from the host backend's tuple sort";
      }
      checked += ", equal to the host tuple sort";
    }
    report.verified = problem.empty();
    report.check = report.verified ? "passed (" + checked + ")" : "FAILED: " + problem;
  } else {
    report.check = "skipped";
  }

  if (!options.output.empty()) {
    started = std::chrono::steady_clock::now();
    write_surface(options.output, mesh, triangles, cells, quads, quad_cells);
    report.write_seconds = seconds_since(started);
  }
  return report;
}

}  // namespace warpdex::dpp
