#pragma once
/// @file The external-faces workload shared by `warpdex faces`, the demo tour and the benchmarks: a mesh
/// read from a file or generated, its external faces on a backend, timed per stage, checked, and the
/// surface written.
///
/// ```
/// warpdex::dpp::faces_workload_options options;
/// options.grid = warpdex::dpp::tet_grid_options{20, 20, 20};
/// const auto report = warpdex::dpp::run_faces_workload(warpdex::backend_choice::host, options);
/// std::printf("%s\n", report.summary().c_str());  // counts, per-stage times, the check
/// ```

#include <warpdex/core/backend.hpp>
#include <warpdex/dpp/external_faces.hpp>
#include <warpdex/dpp/mesh_io.hpp>
#include <warpdex/dpp/tet_mesh.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace warpdex::dpp {

struct faces_workload_options {
  std::string mesh;                      ///< a .vtk or .vtu file (mesh_io.hpp); unused when `grid` is set
  std::optional<tet_grid_options> grid;  ///< generate this grid instead of reading a file
  face_options faces{};
  bool orient_by_points = true;      ///< pass the coordinates (inverted cells reoriented), see external_faces.hpp
  int repetitions = 1;               ///< timed runs of the face search after one warm-up; the median is reported
  bool verify = true;                ///< run the checks of `faces_workload_report::check`
  std::string output;                ///< when not empty: the surface file (.vtp, .vtk or .ply)
  mesh_read_progress read_progress;  ///< hears how far the mesh file is read and parsed (mesh_io.hpp)
};

struct faces_workload_report {
  std::string mesh;        ///< the file, or the grid's name
  bool generated = false;  ///< the mesh was generated (read_seconds is the generator's time)
  std::string backend;
  std::string method;  ///< e.g. "hash", "sort_hash/fnv1a"
  std::uint64_t points = 0;
  std::uint64_t cells = 0;
  std::uint64_t external_faces = 0;  ///< triangles and quads
  std::uint64_t external_quads = 0;  ///< of which quads
  face_stats stats{};
  double read_seconds = 0;    ///< reading the file, or generating the grid (host)
  double upload_seconds = 0;  ///< copying it to the backend's memory
  double faces_seconds = 0;   ///< external_faces, the median of the timed runs
  double write_seconds = 0;   ///< the surface file (0 without one)
  /// What was checked, in words: the surface is closed and consistently oriented (every directed edge
  /// once, its reverse once), it encloses the cells' total volume (outward normals), a generated grid has
  /// its known face count, and meshes of at most `cross_check_max_cells` cells give the same faces with
  /// the host backend's tuple sort.
  std::string check;
  bool verified = false;  ///< every check passed (false also when `verify` was off)

  /// One line: counts, per-stage times, cells/s and the check.
  [[nodiscard]] std::string summary() const;
};

/// Meshes up to this many cells are cross-checked against the host backend's tuple sort.
inline constexpr std::uint64_t cross_check_max_cells = std::uint64_t{1} << 22;

/// The workload on `backend` (a resolved choice). Throws `warpdex::error` on a bad file or option, on a
/// point not finite within +-1e100, and, when `orient_by_points` is on for a mesh read from a file, on a
/// flat cell (volume 0 within rounding: no outward side to orient it by), naming the cell; with
/// `orient_by_points` off such a cell is kept, its faces in its table's order, as VTK keeps it.
[[nodiscard]] faces_workload_report run_faces_workload(backend_choice backend, const faces_workload_options& options);

/// The checks of the report on a surface in host memory: "" when they pass, else what failed. The surface
/// is closed and consistently oriented (every directed edge of a triangle or quad once, its reverse once)
/// and encloses the cells' total volume (`cell_volume6`; quads split at their centroid, so the volumes of
/// the two sides of a non-planar shared quad cancel). `expected_faces` (triangles and quads) < 0: no
/// known count. O(F log F) for F faces, and O(cells).
[[nodiscard]] std::string check_surface(const tet_mesh& mesh, std::span<const uint32x3> triangles,
                                        std::span<const uint32x4> quads, std::int64_t expected_faces);
/// The same for a surface of triangles only.
[[nodiscard]] std::string check_surface(const tet_mesh& mesh, std::span<const uint32x3> triangles,
                                        std::int64_t expected_faces);

}  // namespace warpdex::dpp
