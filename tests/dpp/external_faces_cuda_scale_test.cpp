// External faces on the GPU at sizes where the fights and sorts run over many thread blocks (a 2.2M-cell
// randomly numbered grid, and a regular one where XOR's long runs reach the tuple-sort fallback; a 1M-cell
// hexahedral grid and a 0.6M-cell mixed one, randomly numbered), each method cross-checked against the
// host backend's tuple sort on the same mesh: the output is deterministic, so it must be equal face for
// face. Skipped without a GPU.
#include "dpp_test_support.hpp"
#include "support/backend_fixture.hpp"

#include <warpdex/dpp/external_faces.hpp>
#include "faces_workload.hpp"
#include <warpdex/dpp/tet_mesh.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#if WARPDEX_HAS_CUDA
namespace {

using namespace warpdex::testing;
using namespace warpdex::dpp;
using warpdex::cuda;
using warpdex::host;

class external_faces_at_scale : public cuda_test {};

void methods_agree_with_the_host(const tet_grid_options& grid)
{
  SCOPED_TRACE(tet_grid_name(grid));
  const tet_mesh mesh = make_tet_grid(grid);
  const auto host_ids = make_buffer_from<std::uint32_t>(host{}, mesh.connectivity);
  const auto host_points = make_buffer_from<double>(host{}, mesh.points);
  const auto reference =
      external_faces(host{}, tet_mesh_view{host_ids.span(), mesh.point_count(), host_points.span(), mesh.cell_types},
                     {face_method::sort_tuple});
  const auto expected_triangles = reference.triangles.to_vector();
  const auto expected_cells = reference.cells.to_vector();
  const auto expected_quads = reference.quads.to_vector();
  const auto expected_quad_cells = reference.quad_cells.to_vector();
  ASSERT_EQ(check_surface(mesh, expected_triangles, expected_quads,
                          static_cast<std::int64_t>(tet_grid_external_face_count(grid))),
            "");
  const auto device_ids = make_buffer_from<std::uint32_t>(cuda{}, mesh.connectivity);
  const auto device_points = make_buffer_from<double>(cuda{}, mesh.points);
  const auto device_types = make_buffer_from<std::uint8_t>(cuda{}, mesh.cell_types);
  for (const face_options options :
       {face_options{face_method::automatic}, face_options{face_method::sort_tuple},
        face_options{face_method::hash_fight}, face_options{face_method::sort_hash, face_hash::fnv1a},
        face_options{face_method::sort_hash, face_hash::morton},
        face_options{face_method::sort_hash, face_hash::xor_ids}}) {
    SCOPED_TRACE(std::string(face_method_name(options.method)) + "/" + std::string(face_hash_name(options.hash)));
    const auto faces = external_faces(
        cuda{}, tet_mesh_view{device_ids.span(), mesh.point_count(), device_points.span(), device_types.span()},
        options);
    EXPECT_EQ(faces.triangles.to_vector(), expected_triangles);
    EXPECT_EQ(faces.cells.to_vector(), expected_cells);
    EXPECT_EQ(faces.quads.to_vector(), expected_quads);
    EXPECT_EQ(faces.quad_cells.to_vector(), expected_quad_cells);
    EXPECT_EQ(faces.quad_local_faces.to_vector(), reference.quad_local_faces.to_vector());
    EXPECT_EQ(faces.local_faces.to_vector(), reference.local_faces.to_vector());
  }
}

TEST_F(external_faces_at_scale, every_method_agrees_with_the_host_backend)
{
  methods_agree_with_the_host({76, 76, 76, 5, grid_numbering::randomized, case_seed(1)});
  methods_agree_with_the_host({40, 50, 30, 6, grid_numbering::regular, case_seed(2)});
}

TEST_F(external_faces_at_scale, hexahedral_and_mixed_grids_agree_with_the_host_backend)
{
  methods_agree_with_the_host({110, 100, 91, grid_hexahedra, grid_numbering::randomized, case_seed(3)});
  methods_agree_with_the_host({50, 48, 61, grid_mixed, grid_numbering::randomized, case_seed(4)});
  methods_agree_with_the_host({40, 40, 40, grid_mixed, grid_numbering::regular, case_seed(5)});
}

TEST_F(external_faces_at_scale, fresh_seed)
{
  methods_agree_with_the_host({33, 41, 29, 5, grid_numbering::randomized, fresh_seed()});
}

}  // namespace
#endif
