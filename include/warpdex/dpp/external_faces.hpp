#pragma once
/// @file External faces of an unstructured mesh of tetrahedra, hexahedra, wedges and pyramids (Lessley,
/// Ch. V and IX): the faces that belong to exactly one cell, each with the cell it came from, ordered so
/// that its normal points out of the mesh. On either backend with the same results. docs/dpp.md has an
/// example.
///
/// **Cells.** A mesh is tetrahedra only (`tet_mesh_view::cell_types` empty: 4 point ids a cell), or cells
/// of the VTK types named in `cell_types`, each followed by its point ids in the connectivity: tetrahedron
/// (10, 4 points), hexahedron (12, 8), wedge (13, 6), pyramid (14, 5), with VTK's point ordering. Their
/// faces are VTK's tables (`cell_shape_of`): a tetrahedron's 4 triangles, a hexahedron's 6 quads, a
/// wedge's 2 triangles and 3 quads, a pyramid's quad and 4 triangles. Cell c (tetrahedra only: point ids
/// t0..t3 = connectivity[4c .. 4c+3]) has local faces 0..3, local face k being (t0,t1,t3), (t1,t2,t3),
/// (t2,t0,t3), (t0,t2,t1); local face k of another cell is face k of its VTK table.
///
/// **Identity.** A triangle face is its three point ids sorted ascending (a `uint32x3`), a quad face its
/// four sorted ids (a `uint32x4`); two faces are the same face when they have the same kind and equal
/// sorted ids, whatever their orientation. A triangle and a quad never match (the two kinds are searched
/// apart), so a quad against two triangles (a non-conforming mesh) leaves all three external. A face that
/// occurs once is external; one that occurs twice or more (shared by two cells, or by three in a
/// non-manifold mesh) is not.
///
/// **Orientation.** The tables' faces point outward, by the right-hand rule, when the cell has positive
/// volume in VTK's sense: for a tetrahedron (p1 - p0) x (p2 - p0) . (p3 - p0) > 0, for the others the
/// volume enclosed by their outward faces (`cell_volume6`). Without point coordinates every cell is
/// assumed to be so (meshes written by VTK, Gmsh and `make_tet_grid` are). With coordinates
/// (`tet_mesh_view::points`), every face of an inverted cell (negative volume) is reversed; a flat cell
/// (zero volume) keeps the table's order. Only the external faces are oriented, so coordinates cost
/// O(external faces).
///
/// **Methods** (`face_method`), all with the same output, each run on the triangles and on the quads:
///  - `sort_tuple`: the duplicate search's sort method on the sorted id tuples (SortById in the thesis).
///  - `sort_hash`: a radix sort of one 32-bit hash per face (`face_hash`: FNV-1a, Morton sum, XOR), then
///    every run of equal hashes is resolved by comparing the tuples inside it: two faces with equal
///    hashes are the same face only when their tuples are equal. A run longer than
///    `face_options::collision_run_limit` (a bad hash on this mesh) is not scanned but handed, whole, to
///    the tuple sort, so collisions cost at most O(limit) work a face beyond the sort.
///    On the host the tuples are first gathered into hash order (12 or 16 bytes a face more), so the
///    scans read neighbours in sequence rather than across the whole key array.
///  - `hash_fight`: the duplicate search's hash fighting on the tuples (duplicates.hpp describes its
///    rounds; FNV-1a, a fresh basis each round).
///  - `partitioned`: the duplicate search's partitioned engine on the tuples (the host's: ranges of the
///    leading ids, each counted in a cache-sized hash table; on cuda, where the engine takes 32-bit
///    elements only, it is the tuple sort).
///  - `automatic`: `resolve_face_method` (the FNV-1a hash sort on the GPU, the partitioned engine on the
///    host).
///
/// **Tetrahedra only**: a mesh without `cell_types`, or whose types are all 10, takes the tetrahedral
/// path, which reads the 4 ids of face f's cell at 4 * (f / 4) and needs no cell offsets; other meshes
/// first scan the cell types into per-cell offsets (point ids, triangles, quads).
///
/// **Output order** (deterministic, equal for every method and backend): triangles and quads apart, each
/// by cell, then by local face.
///
/// Complexity: O(F log F) for the sorts, O(F) expected for hash fighting, F the faces (4 a tetrahedron).
/// Memory beside the input, tetrahedra: 13 bytes a face (the sorted triples and the once-flags) plus the
/// method's scratch, about 13 bytes a face for hash fighting, 17 for the hash sort and 32 for the tuple
/// sort (a copy of the triples with positions, and the merge sort's buffers); other meshes: 24 bytes a
/// cell of offsets, and 17 bytes a quad face plus the method's scratch on the quads.
///
/// Errors (`warpdex::error`, before anything is written): tetrahedra-only connectivity whose length is
/// not a multiple of 4; a cell type other than 10, 12, 13, 14 (named with its cell, e.g. "cell 7 is a
/// voxel (VTK type 11)"); cell types whose point counts add up to another length than the
/// connectivity's; a point id >= `point_count`; coordinates that are not 3 * `point_count` values; more
/// than 2^32 - 2 faces of a kind. Exhausted memory throws `warpdex::out_of_memory`. A cell that repeats a
/// point id is taken as written (its faces are degenerate, matched like any other).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/dpp/element.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace warpdex::dpp {

/// How `external_faces` finds the faces that occur once (see the file comment).
enum class face_method {
  automatic,    ///< per backend: see `resolve_face_method`
  sort_tuple,   ///< sort the sorted id triples
  sort_hash,    ///< radix sort a 32-bit hash per face, then resolve the runs of equal hashes
  hash_fight,   ///< hash fighting on the triples
  partitioned,  ///< the duplicate search's partitioned engine on the triples (host; the tuple sort on cuda)
};

/// The hash of `face_method::sort_hash`.
enum class face_hash {
  fnv1a,    ///< 32-bit FNV-1a of the three sorted ids (default: few collisions at every size)
  morton,   ///< the sum of each id's Morton code (its three 10-bit pieces interleaved), as in the thesis
  xor_ids,  ///< id0 ^ id1 ^ id2: cheap, and many faces of a mesh share a value
};

/// "auto", "sort" (also "sort_tuple"), "sort_hash", "hash" (also "hash_fight"), "partitioned"; else
/// `warpdex::error`.
[[nodiscard]] face_method parse_face_method(std::string_view text);
[[nodiscard]] std::string_view face_method_name(face_method method);
/// "fnv1a", "morton", "xor"; else `warpdex::error`.
[[nodiscard]] face_hash parse_face_hash(std::string_view text);
[[nodiscard]] std::string_view face_hash_name(face_hash hash);

/// The method `automatic` stands for on `Backend`: the FNV-1a hash sort on cuda, the fastest or tied on
/// every `faces/` row of an H200 (10M and 40M cells, regular and random numbering: 1.41-1.66x the tuple
/// sort, hash fighting 1.14-1.57x; docs/dpp.md), the partitioned engine on host (on 2 cores, a randomly
/// numbered grid of 1.08M cells: 91-93 ms against 152-155 for the hash sort and 252-253 for the tuple
/// sort; 5M cells regularly numbered: 0.70-0.73 s against 1.58 s for the tuple sort).
template <class Backend>
[[nodiscard]] constexpr face_method resolve_face_method(face_method method)
{
  if (method != face_method::automatic) { return method; }
  return std::is_same_v<Backend, host> ? face_method::partitioned : face_method::sort_hash;
}

/// Runs of equal hashes longer than this are resolved by the tuple sort rather than by comparing every
/// pair in the run: a face scans at most this many neighbours each way. A well-spread 32-bit hash of F
/// faces gives runs of about 2 (a shared face) and rarely 4.
inline constexpr std::uint32_t default_collision_run_limit = 16;

struct face_options {
  face_method method = face_method::automatic;
  face_hash hash = face_hash::fnv1a;                                ///< used by `sort_hash` only
  std::uint32_t collision_run_limit = default_collision_run_limit;  ///< >= 1; tests lower it
};

/// The VTK cell types `external_faces` takes.
inline constexpr std::uint8_t vtk_tetra = 10;
inline constexpr std::uint8_t vtk_hexahedron = 12;
inline constexpr std::uint8_t vtk_wedge = 13;
inline constexpr std::uint8_t vtk_pyramid = 14;

/// "tetrahedron (VTK type 10)", "voxel (VTK type 11)", ..., "cell of VTK type 99": for error messages.
[[nodiscard]] std::string vtk_cell_type_name(std::uint64_t type);

/// A cell type's faces in VTK's tables, each outward for a positive cell (see Orientation).
struct cell_shape {
  std::uint8_t points = 0;  ///< point ids a cell; 0: a type `external_faces` does not take
  std::uint8_t face_count = 0;
  std::uint8_t triangle_count = 0;     ///< faces of 3 points
  std::uint8_t quad_count = 0;         ///< faces of 4 points
  std::uint8_t face_size[6] = {};      ///< 3 or 4 per local face
  std::uint8_t face[6][4] = {};        ///< local face k: indices into the cell's point ids
  std::uint8_t triangle_face[4] = {};  ///< the local face of the cell's i-th triangle
  std::uint8_t quad_face[6] = {};      ///< the local face of the cell's i-th quad
};

/// The faces of VTK cell type `type` (vtkTetra, vtkHexahedron, vtkWedge, vtkPyramid of VTK 9), or a
/// shape of 0 points for any other type.
WARPDEX_HOST_DEVICE constexpr cell_shape cell_shape_of(std::uint32_t type)
{
  switch (type) {
    case vtk_tetra:
      return {4, 4, 4, 0, {3, 3, 3, 3}, {{0, 1, 3}, {1, 2, 3}, {2, 0, 3}, {0, 2, 1}}, {0, 1, 2, 3}, {}};
    case vtk_hexahedron:
      return {8,
              6,
              0,
              6,
              {4, 4, 4, 4, 4, 4},
              {{0, 4, 7, 3}, {1, 2, 6, 5}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 3, 2, 1}, {4, 5, 6, 7}},
              {},
              {0, 1, 2, 3, 4, 5}};
    case vtk_wedge:
      return {6,      5,        2, 3, {3, 3, 4, 4, 4}, {{0, 2, 1}, {3, 4, 5}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}},
              {0, 1}, {2, 3, 4}};
    case vtk_pyramid:
      return {5,  5, 4, 1, {4, 3, 3, 3, 3}, {{0, 3, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}}, {1, 2, 3, 4},
              {0}};
    default:
      return {};
  }
}

/// A mesh in the backend's memory (device memory for `cuda`).
struct tet_mesh_view {
  std::span<const std::uint32_t> connectivity;  ///< point ids, cell after cell (4 a cell without cell_types)
  std::uint64_t point_count = 0;                ///< every id must be below it
  std::span<const double> points;               ///< x, y, z per point, or empty (see Orientation)
  std::span<const std::uint8_t> cell_types{};   ///< a VTK type per cell, or empty: tetrahedra only
};

/// What a run did.
struct face_stats {
  std::uint64_t faces = 0;                ///< faces of the cells, triangles and quads (4 a tetrahedron)
  std::uint64_t hash_collision_runs = 0;  ///< sort_hash: runs of equal hashes holding different faces
  std::uint64_t sorted_fallback = 0;      ///< sort_hash: faces in over-long runs, resolved by the tuple sort
  std::uint32_t fight_rounds = 0;         ///< hash_fight: rounds
};

/// The external faces, in the backend's memory, in output order (see the file comment).
struct external_face_set {
  buffer<uint32x3> triangles;             ///< point ids, ordered so the normal points outward
  buffer<std::uint32_t> cells;            ///< the cell each triangle came from
  buffer<std::uint8_t> local_faces;       ///< its local face index in that cell (0..3 for a tetrahedron)
  buffer<uint32x4> quads;                 ///< the quad faces likewise (empty for tetrahedra only)
  buffer<std::uint32_t> quad_cells;       ///< the cell each quad came from
  buffer<std::uint8_t> quad_local_faces;  ///< its local face index in that cell
  face_stats stats;
};

/// The faces of `mesh` that belong to exactly one cell (see the file comment for orientation, methods
/// and errors).
template <class Backend>
[[nodiscard]] external_face_set external_faces(const Backend& backend, const tet_mesh_view& mesh,
                                               const face_options& options = {});

/// Six times the signed volume of the tetrahedron (p0, p1, p2, p3), each point x, y, z:
/// (p1 - p0) x (p2 - p0) . (p3 - p0), positive when p3 lies on the side the triangle (p0, p1, p2) faces
/// by the right-hand rule (VTK's positive orientation).
template <class T>
WARPDEX_HOST_DEVICE constexpr T tet_volume6(const T* p0, const T* p1, const T* p2, const T* p3)
{
  const T a[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  const T b[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
  const T c[3] = {p3[0] - p0[0], p3[1] - p0[1], p3[2] - p0[2]};
  return (a[1] * b[2] - a[2] * b[1]) * c[0] + (a[2] * b[0] - a[0] * b[2]) * c[1] + (a[0] * b[1] - a[1] * b[0]) * c[2];
}

/// Six times the signed volume of the cone from `apex` to the polygon of `size` (3 or 4) points
/// `corner[0..size-1]`: positive when `apex` lies behind the polygon (the polygon faces away from it). A
/// quad is split into 4 triangles at its centroid, so the value does not depend on which corner the quad
/// starts at, and a quad seen from its two sides gives opposite values exactly.
template <class T>
WARPDEX_HOST_DEVICE constexpr T polygon_volume6(const T* apex, const T* const* corner, int size)
{
  if (size == 3) { return tet_volume6(apex, corner[0], corner[1], corner[2]); }
  T center[3] = {0, 0, 0};
  for (int v = 0; v < size; ++v) {
    for (int axis = 0; axis < 3; ++axis) { center[axis] += corner[v][axis] / T(size); }
  }
  T sum = 0;
  for (int v = 0; v < size; ++v) { sum += tet_volume6(apex, corner[v], corner[(v + 1) % size], center); }
  return sum;
}

/// Six times the signed volume of a cell of `shape` (point ids `ids` into `points`, x, y, z each): the sum
/// of `polygon_volume6` from its first point over its table's faces; positive for a cell in VTK's
/// orientation. For a tetrahedron equal to `tet_volume6` of its points.
WARPDEX_HOST_DEVICE inline double cell_volume6(const cell_shape& shape, const std::uint32_t* ids, const double* points)
{
  const double* apex = points + std::uint64_t{ids[0]} * 3;
  double sum = 0;
  for (int k = 0; k < shape.face_count; ++k) {
    const double* corner[4];
    for (int v = 0; v < shape.face_size[k]; ++v) { corner[v] = points + std::uint64_t{ids[shape.face[k][v]]} * 3; }
    sum += polygon_volume6(apex, corner, shape.face_size[k]);
  }
  return sum;
}

/// The bits of `morton_code_of_id`: the low 10 bits moved to every third position.
WARPDEX_HOST_DEVICE constexpr std::uint32_t morton_spread_10(std::uint32_t bits)
{
  bits &= 0x3ffU;  // bit i goes to bit 3i

  bits = (bits | (bits << 16)) & 0x030000ffU;
  bits = (bits | (bits << 8)) & 0x0300f00fU;
  bits = (bits | (bits << 4)) & 0x030c30c3U;
  bits = (bits | (bits << 2)) & 0x09249249U;
  return bits;
}

/// An id's Morton code: its pieces of bits 0-9, 10-19 and 20-29 as x, y and z, interleaved.
WARPDEX_HOST_DEVICE constexpr std::uint32_t morton_code_of_id(std::uint32_t id)
{
  return morton_spread_10(id) | (morton_spread_10(id >> 10) << 1) | (morton_spread_10(id >> 20) << 2);
}

/// The 32-bit hash `sort_hash` gives a face whose ids (3 or 4) are sorted ascending.
template <std::size_t Arity>
WARPDEX_HOST_DEVICE constexpr std::uint32_t face_hash_value(face_hash hash, const uint32_tuple<Arity>& face)
{
  std::uint32_t value = 0;
  switch (hash) {
    case face_hash::morton:
      for (const std::uint32_t id : face.word) { value += morton_code_of_id(id); }
      return value;
    case face_hash::xor_ids:
      for (const std::uint32_t id : face.word) { value ^= id; }
      return value;
    case face_hash::fnv1a:
    default:
      return element_fnv1a(face);
  }
}

}  // namespace warpdex::dpp
