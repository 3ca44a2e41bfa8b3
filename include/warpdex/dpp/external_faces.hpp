#pragma once
/// @file External faces of a tetrahedral mesh (Lessley, Ch. V and IX): the triangle faces that belong to
/// exactly one cell, each with the cell it came from, ordered so that its normal points out of the mesh.
/// On either backend with the same results. docs/dpp.md has an example.
///
/// **Faces.** Cell c (point ids t0..t3 = connectivity[4c .. 4c+3]) has four faces, local face k being
/// the triangle opposite vertex t(3-k) in VTK's table: (t0,t1,t3), (t1,t2,t3), (t2,t0,t3), (t0,t2,t1).
/// A face's identity is its three point ids sorted ascending (a `uint32x3`); two faces are the same face
/// when their sorted ids are equal, whatever their orientation. A face that occurs once is external;
/// one that occurs twice or more (shared by two cells, or by three in a non-manifold mesh) is not.
///
/// **Orientation.** The table's triangles point outward, by the right-hand rule, when the cell has
/// positive volume in VTK's sense: (p1 - p0) x (p2 - p0) . (p3 - p0) > 0. Without point coordinates every
/// cell is assumed to be so (meshes written by VTK, Gmsh and `make_tet_grid` are). With coordinates
/// (`tet_mesh_view::points`), a face of an inverted cell (negative volume) is reversed, so that it points
/// away from the cell's fourth vertex whichever way the cell was written; a flat cell (zero volume) keeps
/// the table's order. Only the external faces are oriented, so coordinates cost O(external faces).
///
/// **Methods** (`face_method`), all with the same output:
///  - `sort_tuple`: the duplicate search's sort method on the sorted id triples (SortById in the thesis).
///  - `sort_hash`: a radix sort of one 32-bit hash per face (`face_hash`: FNV-1a, Morton sum, XOR), then
///    every run of equal hashes is resolved by comparing the triples inside it: two faces with equal
///    hashes are the same face only when their triples are equal. A run longer than
///    `face_options::collision_run_limit` (a bad hash on this mesh) is not scanned but handed, whole, to
///    the tuple sort, so collisions cost at most O(limit) work a face beyond the sort.
///  - `hash_fight`: the duplicate search's hash fighting on the triples (duplicates.hpp describes its
///    rounds; FNV-1a, a fresh basis each round).
///  - `automatic`: `resolve_face_method` (the FNV-1a hash sort on the GPU, the tuple sort on the host).
///
/// **Output order** (deterministic, equal for every method and backend): by cell, then by local face.
///
/// Complexity: O(F log F) for the sorts, O(F) expected for hash fighting, F = 4 * cells. Memory beside
/// the input: 13 bytes a face (the sorted triples and the once-flags) plus the method's scratch, about
/// 13 bytes a face for hash fighting, 17 for the hash sort and 32 for the tuple sort (a copy of the
/// triples with positions, and the merge sort's buffers).
///
/// Errors (`warpdex::error`, before anything is written): connectivity whose length is not a multiple
/// of 4, a point id >= `point_count`, coordinates that are not 3 * `point_count` values, more than
/// (2^32 - 2) / 4 cells. Exhausted memory throws `warpdex::out_of_memory`. A cell that repeats a point
/// id is taken as written (its faces are degenerate triangles, matched like any other).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/dpp/element.hpp>

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

namespace warpdex::dpp {

/// How `external_faces` finds the faces that occur once (see the file comment).
enum class face_method {
  automatic,   ///< per backend: see `resolve_face_method`
  sort_tuple,  ///< sort the sorted id triples
  sort_hash,   ///< radix sort a 32-bit hash per face, then resolve the runs of equal hashes
  hash_fight,  ///< hash fighting on the triples
};

/// The hash of `face_method::sort_hash`.
enum class face_hash {
  fnv1a,    ///< 32-bit FNV-1a of the three sorted ids (default: few collisions at every size)
  morton,   ///< the sum of each id's Morton code (its three 10-bit pieces interleaved), as in the thesis
  xor_ids,  ///< id0 ^ id1 ^ id2: cheap, and many faces of a mesh share a value
};

/// "auto", "sort" (also "sort_tuple"), "sort_hash", "hash" (also "hash_fight"); else `warpdex::error`.
[[nodiscard]] face_method parse_face_method(std::string_view text);
[[nodiscard]] std::string_view face_method_name(face_method method);
/// "fnv1a", "morton", "xor"; else `warpdex::error`.
[[nodiscard]] face_hash parse_face_hash(std::string_view text);
[[nodiscard]] std::string_view face_hash_name(face_hash hash);

/// The method `automatic` stands for on `Backend`: the FNV-1a hash sort on cuda, the fastest or tied on
/// every `faces/` row of an H200 (10M and 40M cells, regular and random numbering: 1.41-1.66x the tuple
/// sort, hash fighting 1.14-1.57x; docs/dpp.md), the tuple sort on host (3x faster than hash fighting
/// there: 1.3 s against 4.1 s for 5M cells on 2 cores, whose caches the fight's random scatters miss).
template <class Backend>
[[nodiscard]] constexpr face_method resolve_face_method(face_method method)
{
  if (method != face_method::automatic) { return method; }
  return std::is_same_v<Backend, host> ? face_method::sort_tuple : face_method::sort_hash;
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

/// A tetrahedral mesh in the backend's memory (device memory for `cuda`).
struct tet_mesh_view {
  std::span<const std::uint32_t> connectivity;  ///< 4 point ids per cell
  std::uint64_t point_count = 0;                ///< every id must be below it
  std::span<const double> points;               ///< x, y, z per point, or empty (see Orientation)
};

/// What a run did.
struct face_stats {
  std::uint64_t faces = 0;                ///< 4 * cells
  std::uint64_t hash_collision_runs = 0;  ///< sort_hash: runs of equal hashes holding different faces
  std::uint64_t sorted_fallback = 0;      ///< sort_hash: faces in over-long runs, resolved by the tuple sort
  std::uint32_t fight_rounds = 0;         ///< hash_fight: rounds
};

/// The external faces, in the backend's memory, in output order (see the file comment).
struct external_face_set {
  buffer<uint32x3> triangles;        ///< point ids, ordered so the normal points outward
  buffer<std::uint32_t> cells;       ///< the cell each face came from
  buffer<std::uint8_t> local_faces;  ///< its local face index in that cell (0..3)
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

/// The 32-bit hash `sort_hash` gives a face whose ids are sorted ascending.
WARPDEX_HOST_DEVICE constexpr std::uint32_t face_hash_value(face_hash hash, const uint32x3& face)
{
  switch (hash) {
    case face_hash::morton:
      return morton_code_of_id(face.word[0]) + morton_code_of_id(face.word[1]) + morton_code_of_id(face.word[2]);
    case face_hash::xor_ids:
      return face.word[0] ^ face.word[1] ^ face.word[2];
    case face_hash::fnv1a:
    default:
      return element_fnv1a(face);
  }
}

}  // namespace warpdex::dpp
