// External faces of tetrahedralized, hexahedral and mixed grids (dpp/external_faces.hpp), every method next
// to the tuple sort (the thesis's SortById) measured in the same run on the same mesh:
//   faces/<method>/<mesh>/cells=<n>        on the GPU (dpp/faces)
//   faces_host/<method>/<mesh>/cells=<n>   on the host backend, all the machine's threads (dpp/faces_host)
// <method>: sort (the baseline's own row), sort_hash-fnv1a, sort_hash-morton, sort_hash-xor, hash (hash
// fighting), partitioned (the host's partitioned engine; on the GPU the tuple sort again). <mesh>: tet_grid_name, e.g. grid5-random-200x200x200, hex-regular-200x200x200,
// mixed-random-126x126x126. The GPU's tetrahedral meshes are the two targets, a 10M-cell grid
// (126^3 cubes) and the 200^3 grid (40M cells); its hexahedral meshes the same cubes unsplit (2.0M and 8M
// hexahedra, 6 quads each), and a mixed grid of 126^3 cubes in layers of every cell type (8.3M cells);
// each numbered regularly and randomly. The host rows use the 126^3 tetrahedral and hexahedral grids only
// (seconds a run). File reading is excluded: the mesh is generated on the host and copied once; a run is
// external_faces on the device-resident mesh (coordinates passed, so faces of inverted cells would be
// reoriented). The tetrahedral rows pass no cell types, so they run the tetrahedral path as before.
//
// Speed of light: the fewest bytes any external-faces method must move is reading each cell's ids once
// (and its type byte when it has one): 16 bytes a tetrahedron, 33 a hexahedron, the mesh's average for
// the mixed grids (the external faces written are O(cells^(2/3)), a few per cent at these sizes, and
// neglected). The rows are in Gcells/s; sol_fraction = those bytes x cells/s over the measured copy
// bandwidth.
//
// Verified: the method's faces (triangles and quads) and cells equal the tuple sort's, which has the
// grid's known face count and passes dpp::check_surface (closed, consistently oriented, encloses the
// cells' volume).
#include "dpp_benchmarks.hpp"
#include "throughput_row.hpp"
#include "faces_workload.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/timing.hpp>
#include <warpdex/dpp/external_faces.hpp>
#include <warpdex/dpp/tet_mesh.hpp>

#include <omp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace warpdex::bench {
namespace {

constexpr std::uint64_t mesh_seed = 0xfacefaceULL;

struct mesh_kind {
  std::uint32_t split;  // tet_grid_options::tets_per_hex
  std::uint32_t side;
};
/// 126^3 cubes x 5 = 10.0M cells; 200^3 x 5 = 40M cells; the same cubes as hexahedra; 126^3 mixed.
constexpr mesh_kind gpu_meshes[] = {
    {5, 126}, {5, 200}, {dpp::grid_hexahedra, 126}, {dpp::grid_hexahedra, 200}, {dpp::grid_mixed, 126}};
constexpr mesh_kind host_meshes[] = {{5, 126}, {dpp::grid_hexahedra, 126}};
/// Host runs take seconds: fewer of them.
constexpr timing_options host_timing{1, 3};

struct method_row {
  const char* label;
  dpp::face_options options;
};

const std::vector<method_row>& methods()
{
  static const std::vector<method_row> all{{"sort", {dpp::face_method::sort_tuple}},
                                           {"sort_hash-fnv1a", {dpp::face_method::sort_hash, dpp::face_hash::fnv1a}},
                                           {"sort_hash-morton", {dpp::face_method::sort_hash, dpp::face_hash::morton}},
                                           {"sort_hash-xor", {dpp::face_method::sort_hash, dpp::face_hash::xor_ids}},
                                           {"hash", {dpp::face_method::hash_fight}},
                                           {"partitioned", {dpp::face_method::partitioned}}};
  return all;
}

std::string row_name(const char* prefix, const char* method, const dpp::tet_grid_options& grid, std::uint64_t cells)
{
  return std::string(prefix) + "/" + method + "/" + dpp::tet_grid_name(grid) + "/cells=" + std::to_string(cells);
}

/// Every method's rows on one generated mesh, on `backend`, timed by `time_ms(work)`.
template <class Backend, class TimeMs>
void run_mesh(context& ctx, const Backend& backend, const char* prefix, const dpp::tet_grid_options& grid,
              TimeMs&& time_ms, const std::string& unit)
{
  const std::uint64_t cells = dpp::tet_grid_cell_count(grid);
  bool any = false;
  for (const auto& m : methods()) { any = any || ctx.selected(row_name(prefix, m.label, grid, cells)); }
  if (!any) { return; }
  const dpp::tet_mesh mesh = dpp::make_tet_grid(grid);
  auto connectivity = make_buffer<std::uint32_t>(backend, mesh.connectivity.size());
  connectivity.copy_from(std::span<const std::uint32_t>(mesh.connectivity));
  auto points = make_buffer<double>(backend, mesh.points.size());
  points.copy_from(std::span<const double>(mesh.points));
  auto types = make_buffer<std::uint8_t>(backend, mesh.cell_types.size());  // none for tetrahedra
  types.copy_from(std::span<const std::uint8_t>(mesh.cell_types));
  backend.synchronize();
  const dpp::tet_mesh_view view{connectivity.span(), mesh.point_count(), points.span(), types.span()};
  const double sol_bytes_per_cell =
      static_cast<double>(4 * mesh.connectivity.size() + mesh.cell_types.size()) / static_cast<double>(cells);

  // The baseline first: its faces are the reference of every row.
  dpp::external_face_set reference;
  const double sort_ms = time_ms([&] { reference = dpp::external_faces(backend, view, methods()[0].options); });
  const auto reference_triangles = reference.triangles.to_vector();
  const auto reference_cells = reference.cells.to_vector();
  const auto reference_quads = reference.quads.to_vector();
  const auto reference_quad_cells = reference.quad_cells.to_vector();
  const bool reference_ok =
      dpp::check_surface(mesh, reference_triangles, reference_quads,
                         static_cast<std::int64_t>(dpp::tet_grid_external_face_count(grid))) == std::string();
  const std::string baseline = std::string("external_faces sort (sorted id triples, SortById), same ") +
                               std::string(Backend::name) + " backend, same mesh";
  for (const auto& m : methods()) {
    const std::string name = row_name(prefix, m.label, grid, cells);
    if (!ctx.selected(name)) { continue; }
    dpp::external_face_set faces;
    const double ms =
        &m == &methods()[0] ? sort_ms : time_ms([&] { faces = dpp::external_faces(backend, view, m.options); });
    const bool same =
        &m == &methods()[0] ||
        (faces.triangles.to_vector() == reference_triangles && faces.cells.to_vector() == reference_cells &&
         faces.quads.to_vector() == reference_quads && faces.quad_cells.to_vector() == reference_quad_cells);
    ctx.add(throughput_row(name, cells, ms, unit, baseline, sort_ms,
                           Backend::name == std::string_view("cuda") ? sol_bytes_per_cell : 0.0, reference_ok && same));
  }
}

}  // namespace

void run_dpp_faces(context& ctx)
{
  const cuda backend{};
  for (const auto [split, side] : gpu_meshes) {
    for (const auto numbering : {dpp::grid_numbering::regular, dpp::grid_numbering::randomized}) {
      run_mesh(
          ctx, backend, "faces", {side, side, side, split, numbering, mesh_seed},
          [&](const auto& work) { return ctx.median_ms(backend.stream, work); }, "Gcells/s");
    }
  }
}

void run_dpp_faces_host(context& ctx)
{
  const host backend{};
  const std::string unit = "Gcells/s (host, " + std::to_string(omp_get_max_threads()) + " threads)";
  for (const auto [split, side] : host_meshes) {
    for (const auto numbering : {dpp::grid_numbering::regular, dpp::grid_numbering::randomized}) {
      run_mesh(
          ctx, backend, "faces_host", {side, side, side, split, numbering, mesh_seed},
          [&](const auto& work) { return median_ms(backend, host_timing, work); }, unit);
    }
  }
}

}  // namespace warpdex::bench
