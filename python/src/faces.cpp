// Bindings of the dpp family's external faces of tetrahedral meshes, over flat arrays of cell point ids
// (and optional coordinates) on either backend, and the mesh files and generated grids they come from.

#include "arrays.hpp"

#include <warpdex/dpp/external_faces.hpp>
#include <warpdex/dpp/mesh_io.hpp>
#include <warpdex/dpp/tet_mesh.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>
#include <utility>

namespace warpdex::python {
namespace {

/// (triangles (m, 3), cells, local_faces, statistics) of the external faces of the mesh whose cells are
/// the flat `connectivity` (4 point ids a cell) and whose points are `points` (x, y, z each; may be empty).
nb::tuple external_faces_binding(const input_array& connectivity, const std::optional<input_array>& points,
                                 std::uint64_t point_count, const std::string& method, const std::string& hash,
                                 std::uint32_t collision_run_limit, const std::string& library, stream_handle stream)
{
  call_arrays arrays("external_faces");
  dpp::tet_mesh_view mesh;
  mesh.connectivity = arrays.span<std::uint32_t>(connectivity, "connectivity");
  if (points) { mesh.points = arrays.span<double>(*points, "points"); }
  mesh.point_count = point_count;
  dpp::face_options options;
  options.method = dpp::parse_face_method(method);
  options.hash = dpp::parse_face_hash(hash);
  options.collision_run_limit = collision_run_limit;
  auto faces = run_on(arrays.where(), stream, [&](const auto& backend) {
    auto result = dpp::external_faces(backend, mesh, options);
    backend.synchronize();
    return result;
  });
  nb::dict stats;
  stats["faces"] = faces.stats.faces;
  stats["hash_collision_runs"] = faces.stats.hash_collision_runs;
  stats["sorted_fallback"] = faces.stats.sorted_fallback;
  stats["fight_rounds"] = faces.stats.fight_rounds;
  return nb::make_tuple(
      owned_array<dpp::uint32x3, std::uint32_t>(std::move(faces.triangles), arrays.where(), library, 3),
      owned_array(std::move(faces.cells), arrays.where(), library),
      owned_array(std::move(faces.local_faces), arrays.where(), library), stats);
}

/// (points, connectivity), both flat host arrays, of a mesh.
nb::tuple mesh_arrays(dpp::tet_mesh&& mesh)
{
  return nb::make_tuple(host_array(std::move(mesh.points)), host_array(std::move(mesh.connectivity)));
}

nb::tuple make_tet_grid_binding(std::uint32_t nx, std::uint32_t ny, std::uint32_t nz, std::uint32_t tets_per_hex,
                                const std::string& numbering, std::uint64_t seed)
{
  dpp::tet_grid_options options;
  options.nx = nx;
  options.ny = ny;
  options.nz = nz;
  options.tets_per_hex = tets_per_hex;
  options.numbering = dpp::parse_grid_numbering(numbering);
  options.seed = seed;
  dpp::tet_mesh mesh;
  {
    nb::gil_scoped_release released;
    mesh = dpp::make_tet_grid(options);
  }
  return mesh_arrays(std::move(mesh));
}

nb::tuple read_tet_mesh_binding(const std::string& path)
{
  dpp::tet_mesh mesh;
  {
    nb::gil_scoped_release released;
    mesh = dpp::read_tet_mesh(path);
  }
  return mesh_arrays(std::move(mesh));
}

}  // namespace

void bind_faces(nb::module_& module)
{
  module.def("external_faces", &external_faces_binding, nb::arg("connectivity"), nb::arg("points").none(),
             nb::arg("point_count"), nb::arg("method"), nb::arg("hash"), nb::arg("collision_run_limit"),
             nb::arg("library"), nb::arg("stream"),
             "(triangles, cells, local_faces, statistics): the faces of a tetrahedral mesh that belong to one cell.");
  module.def("make_tet_grid", &make_tet_grid_binding, nb::arg("nx"), nb::arg("ny"), nb::arg("nz"),
             nb::arg("tets_per_hex"), nb::arg("numbering"), nb::arg("seed"),
             "(points, connectivity), flat: a grid of unit cubes split into tetrahedra.");
  module.def("read_tet_mesh", &read_tet_mesh_binding, nb::arg("path"),
             "(points, connectivity), flat: a tetrahedral mesh from a .vtk or .vtu file.");
  module.attr("default_collision_run_limit") = dpp::default_collision_run_limit;
}

}  // namespace warpdex::python
