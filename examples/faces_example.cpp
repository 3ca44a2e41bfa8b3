// External faces of a tetrahedral mesh: a generated 4x3x2 grid of cubes, 5 tetrahedra each, randomly
// numbered; its surface by hash fighting and by sorting (the same faces, outward, in cell order), written
// as a .vtp file ParaView opens. Runs on the GPU when one is present, else on the CPU; same answers.
#include <warpdex/core/backend.hpp>
#include <warpdex/dpp/external_faces.hpp>
#include <warpdex/dpp/mesh_io.hpp>
#include <warpdex/dpp/tet_mesh.hpp>

#include <cstdio>
#include <filesystem>

int main()
{
  namespace dpp = warpdex::dpp;
  const dpp::tet_grid_options grid{4, 3, 2, 5, dpp::grid_numbering::randomized, 7};
  const dpp::tet_mesh mesh = dpp::make_tet_grid(grid);  // or dpp::read_tet_mesh("mesh.vtu")
  const auto choice = warpdex::resolve_backend(warpdex::backend_choice::automatic);
  return warpdex::visit_backend(choice, [&](const auto& backend) {
    auto connectivity = warpdex::make_buffer<std::uint32_t>(backend, mesh.connectivity.size());
    connectivity.copy_from(mesh.connectivity);
    auto points = warpdex::make_buffer<double>(backend, mesh.points.size());
    points.copy_from(mesh.points);
    // With the coordinates, faces of inverted cells are turned outward too.
    const dpp::tet_mesh_view view{connectivity.span(), mesh.point_count(), points.span()};

    const auto fought = dpp::external_faces(backend, view, {dpp::face_method::hash_fight});
    const auto sorted = dpp::external_faces(backend, view, {dpp::face_method::sort_tuple});
    const auto triangles = fought.triangles.to_vector();
    const auto cells = fought.cells.to_vector();
    std::printf("%llu cells, %zu external faces (the grid has %llu); face 0: points %u %u %u of cell %u\n",
                static_cast<unsigned long long>(mesh.cell_count()), triangles.size(),
                static_cast<unsigned long long>(dpp::tet_grid_external_face_count(grid)), triangles[0].word[0],
                triangles[0].word[1], triangles[0].word[2], cells[0]);

    const auto surface = std::filesystem::temp_directory_path() / "warpdex_faces_example.vtp";
    dpp::write_surface(surface, mesh, triangles, cells);
    std::printf("surface written to %s\n", surface.string().c_str());
    const bool same = sorted.triangles.to_vector() == triangles && sorted.cells.to_vector() == cells;
    return same && triangles.size() == dpp::tet_grid_external_face_count(grid) ? 0 : 1;
  });
}
