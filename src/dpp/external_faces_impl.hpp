#pragma once
// External faces (include/warpdex/dpp/external_faces.hpp), written once against Thrust execution
// policies; external_faces_host.cpp and external_faces_cuda.cu instantiate it. Which faces occur once is
// the duplicate search's job (duplicates.hpp): the tuple sort and hash fighting are its methods, called
// here, and the hash sort hands its over-long runs to it.

#include <warpdex/core/detail/thrust_backend.hpp>
#include "dpp_common.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/dpp/duplicates.hpp>
#include <warpdex/dpp/external_faces.hpp>

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/swap.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/transform_scan.h>

#include <cstdint>
#include <new>
#include <string>
#include <type_traits>

namespace warpdex::dpp::detail {

using warpdex::detail::policy;
using warpdex::detail::policy_nosync;
using face_index = std::uint32_t;

/// Local face k of a cell: its vertices (indices 0..3 into the cell), outward for a positive-volume cell,
/// and the vertex opposite it. VTK's vtkTetra table.
struct tet_face_table {
  std::uint8_t vertex[4][3];
  std::uint8_t opposite[4];
};
WARPDEX_HOST_DEVICE constexpr tet_face_table tet_faces()
{
  return {{{0, 1, 3}, {1, 2, 3}, {2, 0, 3}, {0, 2, 1}}, {2, 0, 1, 3}};
}

/// Face f's point ids sorted ascending.
struct make_face_key {
  const std::uint32_t* connectivity;
  uint32x3* keys;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t f) const
  {
    const std::uint32_t* cell = connectivity + (f / 4) * 4;
    const auto& local = tet_faces().vertex[f % 4];
    std::uint32_t a = cell[local[0]];
    std::uint32_t b = cell[local[1]];
    std::uint32_t c = cell[local[2]];
    if (a > b) { thrust::swap(a, b); }
    if (b > c) { thrust::swap(b, c); }
    if (a > b) { thrust::swap(a, b); }
    keys[f] = uint32x3{{a, b, c}};
  }
};

struct face_hash_of {
  face_hash hash;
  template <std::size_t Arity>
  WARPDEX_HOST_DEVICE std::uint32_t operator()(const uint32_tuple<Arity>& face) const
  {
    return face_hash_value(hash, face);
  }
};

/// Verdicts of the hash sort, per face (the once-flags of the duplicate search, plus one).
inline constexpr std::uint8_t verdict_shared = 0;
inline constexpr std::uint8_t verdict_once = 1;
inline constexpr std::uint8_t verdict_unresolved = 2;  ///< in a run of equal hashes over the limit

/// Sorted position j: scans its run of equal hashes (at most `limit` neighbours each way) and decides
/// whether face order[j] occurs once in it. Every face of a run longer than `limit` runs into the limit
/// on one side or sees more than `limit` faces, so a run is resolved here wholly or not at all: the tuple
/// sort then sees every copy of the faces it decides. run_starts[j] = 1 when j starts a run holding
/// different faces (a collision), for the statistics.
template <class Key, bool Gathered = false>
struct resolve_hash_run {
  const std::uint32_t* hashes;
  const face_index* order;
  const Key* keys;  // by face index, or in sorted order when Gathered
  std::uint64_t n;
  std::uint32_t limit;
  std::uint8_t* verdicts;
  std::uint8_t* collision_starts;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t j) const
  {
    const std::uint32_t hash = hashes[j];
    std::uint64_t first = j;
    while (first > 0 && hashes[first - 1] == hash && j - first < limit) { --first; }
    std::uint64_t last = j;
    while (last + 1 < n && hashes[last + 1] == hash && last - j < limit) { ++last; }
    const bool hit_limit = (first > 0 && hashes[first - 1] == hash) || (last + 1 < n && hashes[last + 1] == hash);
    std::uint8_t verdict = verdict_unresolved;
    bool collision = false;
    if (!hit_limit && last - first + 1 <= limit) {
      const Key face = key_at(j);
      bool shared = false;
      for (std::uint64_t k = first; k <= last; ++k) {
        if (k == j) { continue; }
        const bool equal = key_at(k) == face;
        shared = shared || equal;
        collision = collision || !equal;
      }
      verdict = shared ? verdict_shared : verdict_once;
    }
    verdicts[order[j]] = verdict;
    collision_starts[j] = (collision && first == j) ? 1 : 0;
  }
  WARPDEX_HOST_DEVICE Key key_at(std::uint64_t sorted) const { return Gathered ? keys[sorted] : keys[order[sorted]]; }
};

struct is_verdict {
  const std::uint8_t* verdicts;
  std::uint8_t value;
  WARPDEX_HOST_DEVICE bool operator()(face_index f) const { return verdicts[f] == value; }
};

/// The once-flags of the faces (sorted id tuples) by the hash sort; adds to the statistics.
template <class Backend, class Key>
void hash_sorted_once(const Backend& backend, const buffer<Key>& keys, std::uint8_t* once, face_hash hash,
                      std::uint32_t limit, face_stats& stats)
{
  const std::uint64_t n = keys.size();
  auto hashes = make_buffer<std::uint32_t>(backend, n);
  auto order = make_buffer<face_index>(backend, n);
  thrust::transform(policy_nosync(backend), keys.data(), keys.data() + n, hashes.data(), face_hash_of{hash});
  thrust::sequence(policy_nosync(backend), order.data(), order.data() + n, face_index{0});
  thrust::sort_by_key(policy_nosync(backend), hashes.data(), hashes.data() + n, order.data());
  auto collision_starts = make_buffer<std::uint8_t>(backend, n);
  if constexpr (std::is_same_v<Backend, host>) {
    // On the CPU the scan's reads of keys[order[k]] are cache misses across the whole key array: gather
    // the keys into hash order once, so a run's neighbours lie side by side. (The GPU reads them where
    // they are: its measured rows use that path.)
    auto sorted_keys = make_buffer<Key>(backend, n);
    thrust::gather(policy_nosync(backend), order.data(), order.data() + n, keys.data(), sorted_keys.data());
    thrust::for_each(policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(n),
                     resolve_hash_run<Key, true>{hashes.data(), order.data(), sorted_keys.data(), n, limit, once,
                                                 collision_starts.data()});
  } else {
    thrust::for_each(
        policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
        thrust::counting_iterator<std::uint64_t>(n),
        resolve_hash_run<Key>{hashes.data(), order.data(), keys.data(), n, limit, once, collision_starts.data()});
  }
  stats.hash_collision_runs += static_cast<std::uint64_t>(
      thrust::count(policy(backend), collision_starts.data(), collision_starts.data() + n, std::uint8_t{1}));
  // The faces of over-long runs: every copy of each is among them, so the tuple sort decides them alone.
  const auto unresolved_end = thrust::copy_if(policy(backend), thrust::counting_iterator<face_index>(0),
                                              thrust::counting_iterator<face_index>(static_cast<face_index>(n)),
                                              order.data(), is_verdict{once, verdict_unresolved});
  const auto unresolved = static_cast<std::uint64_t>(unresolved_end - order.data());
  stats.sorted_fallback += unresolved;
  if (unresolved == 0) { return; }
  auto subset = make_buffer<Key>(backend, unresolved);
  thrust::gather(policy_nosync(backend), order.data(), order.data() + unresolved, keys.data(), subset.data());
  find_once<Key>(backend, std::span<const Key>(subset.data(), unresolved),
                 std::span<std::uint8_t>(collision_starts.data(), unresolved), duplicate_method::sort);
  thrust::scatter(policy_nosync(backend), collision_starts.data(), collision_starts.data() + unresolved, order.data(),
                  once);
}

/// The once-flags of the faces (sorted id tuples) by the method of `options`; adds to the statistics.
template <class Backend, class Key>
void find_once_faces(const Backend& backend, const buffer<Key>& keys, buffer<std::uint8_t>& once,
                     const face_options& options, face_stats& stats)
{
  const std::span<const Key> faces(keys.data(), keys.size());
  switch (resolve_face_method<Backend>(options.method)) {
    case face_method::sort_tuple:
      find_once<Key>(backend, faces, once.span(), duplicate_method::sort);
      break;
    case face_method::sort_hash:
      hash_sorted_once(backend, keys, once.data(), options.hash, options.collision_run_limit, stats);
      break;
    case face_method::partitioned:  // the tuple sort where no engine takes tuples (cuda)
      find_once<Key>(backend, faces, once.span(), duplicate_method::partitioned);
      break;
    case face_method::automatic:
    case face_method::hash_fight:
    default: {
      const auto rounds = find_once<Key>(backend, faces, once.span(), duplicate_method::hash_fight).rounds;
      stats.fight_rounds = rounds > stats.fight_rounds ? rounds : stats.fight_rounds;
      break;
    }
  }
}

/// The largest point id of the connectivity.
template <class Backend>
std::uint32_t max_point_id(const Backend& backend, std::span<const std::uint32_t> connectivity)
{
  return thrust::reduce(policy(backend), connectivity.data(), connectivity.data() + connectivity.size(),
                        std::uint32_t{0}, thrust::maximum<std::uint32_t>());
}

/// External face f (a face index): its triangle, outward, with its cell and local face.
struct emit_external_face {
  const std::uint32_t* connectivity;
  const double* points;  // null: cells assumed positive-volume
  const face_index* external;
  uint32x3* triangles;
  std::uint32_t* cells;
  std::uint8_t* local_faces;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const face_index f = external[i];
    const std::uint32_t cell = f / 4;
    const std::uint32_t k = f % 4;
    const std::uint32_t* ids = connectivity + std::uint64_t{cell} * 4;
    const auto table = tet_faces();
    uint32x3 triangle{{ids[table.vertex[k][0]], ids[table.vertex[k][1]], ids[table.vertex[k][2]]}};
    if (points != nullptr && inverted(ids)) { thrust::swap(triangle.word[1], triangle.word[2]); }
    triangles[i] = triangle;
    cells[i] = cell;
    local_faces[i] = static_cast<std::uint8_t>(k);
  }
  /// Negative volume (see tet_volume6).
  WARPDEX_HOST_DEVICE bool inverted(const std::uint32_t* ids) const
  {
    return tet_volume6(points + std::uint64_t{ids[0]} * 3, points + std::uint64_t{ids[1]} * 3,
                       points + std::uint64_t{ids[2]} * 3, points + std::uint64_t{ids[3]} * 3) < 0.0;
  }
};

template <class Backend>
external_face_set find_external_faces(const Backend& backend, const tet_mesh_view& mesh, const face_options& options)
{
  const std::uint64_t cells = mesh.connectivity.size() / 4;
  const std::uint64_t n = cells * 4;
  face_stats stats;
  stats.faces = n;
  auto once = make_buffer<std::uint8_t>(backend, n);
  {
    auto keys = make_buffer<uint32x3>(backend, n);
    thrust::for_each(policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(n), make_face_key{mesh.connectivity.data(), keys.data()});
    find_once_faces(backend, keys, once, options, stats);
  }
  const auto external_count =
      static_cast<std::uint64_t>(thrust::count(policy(backend), once.data(), once.data() + n, std::uint8_t{1}));
  auto external = make_buffer<face_index>(backend, external_count);
  thrust::copy_if(policy_nosync(backend), thrust::counting_iterator<face_index>(0),
                  thrust::counting_iterator<face_index>(static_cast<face_index>(n)), once.data(), external.data(),
                  is_set{});
  external_face_set result;
  result.triangles = make_buffer<uint32x3>(backend, external_count);
  result.cells = make_buffer<std::uint32_t>(backend, external_count);
  result.local_faces = make_buffer<std::uint8_t>(backend, external_count);
  result.stats = stats;
  thrust::for_each(
      policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
      thrust::counting_iterator<std::uint64_t>(external_count),
      emit_external_face{mesh.connectivity.data(), mesh.points.empty() ? nullptr : mesh.points.data(), external.data(),
                         result.triangles.data(), result.cells.data(), result.local_faces.data()});
  backend.synchronize();
  return result;
}

// ---- cells of several types (hexahedra, wedges, pyramids, tetrahedra) ----

/// Per cell: where its point ids, triangle faces and quad faces start (an exclusive scan of the counts).
struct cell_offsets {
  std::uint64_t points = 0;
  std::uint64_t triangles = 0;
  std::uint64_t quads = 0;
};

struct add_cell_offsets {
  WARPDEX_HOST_DEVICE cell_offsets operator()(const cell_offsets& a, const cell_offsets& b) const
  {
    return {a.points + b.points, a.triangles + b.triangles, a.quads + b.quads};
  }
};

struct counts_of_type {
  WARPDEX_HOST_DEVICE cell_offsets operator()(std::uint8_t type) const
  {
    const cell_shape shape = cell_shape_of(type);
    return {shape.points, shape.triangle_count, shape.quad_count};
  }
};

/// counts_of_type of cell c.
struct counts_of_cell {
  const std::uint8_t* types;
  WARPDEX_HOST_DEVICE cell_offsets operator()(std::uint64_t c) const { return counts_of_type{}(types[c]); }
};

/// Cell c's index shifted left by 8 with its type below, when the type is not taken; else all ones.
struct unsupported_cell {
  const std::uint8_t* types;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t c) const
  {
    return cell_shape_of(types[c]).points == 0 ? (c << 8) | types[c] : ~std::uint64_t{0};
  }
};

template <std::size_t Arity>
WARPDEX_HOST_DEVICE void sort_words(uint32_tuple<Arity>& tuple)
{
  for (std::size_t i = 1; i < Arity; ++i) {  // insertion sort of 3 or 4 words
    for (std::size_t j = i; j > 0 && tuple.word[j - 1] > tuple.word[j]; --j) {
      thrust::swap(tuple.word[j - 1], tuple.word[j]);
    }
  }
}

/// Cell c's sorted triangle and quad keys, at its offsets.
struct make_cell_face_keys {
  const std::uint32_t* connectivity;
  const std::uint8_t* types;
  const cell_offsets* offsets;
  uint32x3* triangles;
  uint32x4* quads;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t c) const
  {
    const cell_shape shape = cell_shape_of(types[c]);
    const cell_offsets at = offsets[c];
    const std::uint32_t* ids = connectivity + at.points;
    for (int i = 0; i < shape.triangle_count; ++i) {
      const auto& local = shape.face[shape.triangle_face[i]];
      uint32x3 key{{ids[local[0]], ids[local[1]], ids[local[2]]}};
      sort_words(key);
      triangles[at.triangles + i] = key;
    }
    for (int i = 0; i < shape.quad_count; ++i) {
      const auto& local = shape.face[shape.quad_face[i]];
      uint32x4 key{{ids[local[0]], ids[local[1]], ids[local[2]], ids[local[3]]}};
      sort_words(key);
      quads[at.quads + i] = key;
    }
  }
};

/// External face f of the kind of `Arity` (3: triangles, 4: quads) as written by its cell, outward, with
/// its cell and local face. The cell is found by a binary search of the offsets.
template <std::size_t Arity>
struct emit_cell_face {
  const std::uint32_t* connectivity;
  const std::uint8_t* types;
  const cell_offsets* offsets;
  std::uint64_t cell_count;
  const double* points;  // null: cells assumed positive-volume
  const face_index* external;
  uint32_tuple<Arity>* faces;
  std::uint32_t* cells;
  std::uint8_t* local_faces;

  WARPDEX_HOST_DEVICE static std::uint64_t first_face(const cell_offsets& at)
  {
    return Arity == 3 ? at.triangles : at.quads;
  }
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const std::uint64_t f = external[i];
    // The last cell whose first face of this kind is <= f: it has f (cells without such faces share
    // their successor's offset, so they are never the last).
    std::uint64_t low = 0;
    std::uint64_t high = cell_count;  // first_face(offsets[low]) <= f < first_face(offsets[high])
    while (high - low > 1) {
      const std::uint64_t middle = low + (high - low) / 2;
      if (first_face(offsets[middle]) <= f) {
        low = middle;
      } else {
        high = middle;
      }
    }
    const cell_shape shape = cell_shape_of(types[low]);
    const std::uint64_t ordinal = f - first_face(offsets[low]);
    const std::uint8_t k = Arity == 3 ? shape.triangle_face[ordinal] : shape.quad_face[ordinal];
    const std::uint32_t* ids = connectivity + offsets[low].points;
    uint32_tuple<Arity> face{};
    for (std::size_t v = 0; v < Arity; ++v) { face.word[v] = ids[shape.face[k][v]]; }
    if (points != nullptr && cell_volume6(shape, ids, points) < 0.0) {
      thrust::swap(face.word[1], face.word[Arity - 1]);  // (a, b, c) -> (a, c, b); (a, b, c, d) -> (a, d, c, b)
    }
    faces[i] = face;
    cells[i] = static_cast<std::uint32_t>(low);
    local_faces[i] = k;
  }
};

/// The external faces of one kind (the once-flags of its faces) into `faces`, `cells`, `local_faces`.
template <std::size_t Arity, class Backend>
void emit_cell_faces(const Backend& backend, const tet_mesh_view& mesh, const buffer<cell_offsets>& offsets,
                     const buffer<std::uint8_t>& once, buffer<uint32_tuple<Arity>>& faces, buffer<std::uint32_t>& cells,
                     buffer<std::uint8_t>& local_faces)
{
  const std::uint64_t n = once.size();
  const auto count =
      static_cast<std::uint64_t>(thrust::count(policy(backend), once.data(), once.data() + n, std::uint8_t{1}));
  auto external = make_buffer<face_index>(backend, count);
  thrust::copy_if(policy_nosync(backend), thrust::counting_iterator<face_index>(0),
                  thrust::counting_iterator<face_index>(static_cast<face_index>(n)), once.data(), external.data(),
                  is_set{});
  faces = make_buffer<uint32_tuple<Arity>>(backend, count);
  cells = make_buffer<std::uint32_t>(backend, count);
  local_faces = make_buffer<std::uint8_t>(backend, count);
  thrust::for_each(policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                   thrust::counting_iterator<std::uint64_t>(count),
                   emit_cell_face<Arity>{mesh.connectivity.data(), mesh.cell_types.data(), offsets.data(),
                                         offsets.size(), mesh.points.empty() ? nullptr : mesh.points.data(),
                                         external.data(), faces.data(), cells.data(), local_faces.data()});
}

/// The external faces of a mesh with cell types, given the totals of its counts (checked by the caller).
template <class Backend>
external_face_set find_external_cell_faces(const Backend& backend, const tet_mesh_view& mesh,
                                           const cell_offsets& totals, const face_options& options)
{
  const std::uint64_t cells = mesh.cell_types.size();
  auto offsets = make_buffer<cell_offsets>(backend, cells);
  thrust::transform_exclusive_scan(policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                                   thrust::counting_iterator<std::uint64_t>(cells), offsets.data(),
                                   counts_of_cell{mesh.cell_types.data()}, cell_offsets{}, add_cell_offsets{});
  face_stats stats;
  stats.faces = totals.triangles + totals.quads;
  auto triangle_once = make_buffer<std::uint8_t>(backend, totals.triangles);
  auto quad_once = make_buffer<std::uint8_t>(backend, totals.quads);
  {
    auto triangles = make_buffer<uint32x3>(backend, totals.triangles);
    auto quads = make_buffer<uint32x4>(backend, totals.quads);
    thrust::for_each(policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(cells),
                     make_cell_face_keys{mesh.connectivity.data(), mesh.cell_types.data(), offsets.data(),
                                         triangles.data(), quads.data()});
    if (totals.triangles > 0) { find_once_faces(backend, triangles, triangle_once, options, stats); }
    if (totals.quads > 0) { find_once_faces(backend, quads, quad_once, options, stats); }
  }
  external_face_set result;
  result.stats = stats;
  emit_cell_faces<3>(backend, mesh, offsets, triangle_once, result.triangles, result.cells, result.local_faces);
  emit_cell_faces<4>(backend, mesh, offsets, quad_once, result.quads, result.quad_cells, result.quad_local_faces);
  backend.synchronize();
  return result;
}

}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {

template <class Backend>
external_face_set external_faces(const Backend& backend, const tet_mesh_view& mesh, const face_options& options)
{
  const std::uint64_t ids = mesh.connectivity.size();
  const std::uint64_t typed_cells = mesh.cell_types.size();
  WARPDEX_EXPECTS(typed_cells > 0 || ids % 4 == 0, "dpp::external_faces: the connectivity holds " +
                                                       std::to_string(ids) + " point ids, not 4 per tetrahedron");
  WARPDEX_EXPECTS(typed_cells > 0 || ids <= max_duplicate_search_elements,
                  "dpp::external_faces: " + std::to_string(ids / 4) + " cells exceed the limit of " +
                      std::to_string(max_duplicate_search_elements / 4) + " (4 faces each)");
  WARPDEX_EXPECTS(mesh.points.empty() || mesh.points.size() == 3 * mesh.point_count,
                  "dpp::external_faces: " + std::to_string(mesh.points.size()) + " coordinates for " +
                      std::to_string(mesh.point_count) + " points (3 per point expected)");
  WARPDEX_EXPECTS(options.collision_run_limit >= 1, "dpp::external_faces: collision_run_limit must be at least 1");
  return detail::reporting_allocation_failure("external_faces", [&] {
    detail::cell_offsets totals{ids, ids, 0};  // tetrahedra only
    if (typed_cells > 0) {
      const std::uint8_t* types = mesh.cell_types.data();
      const std::uint64_t unsupported = thrust::transform_reduce(
          detail::policy(backend), thrust::counting_iterator<std::uint64_t>(0),
          thrust::counting_iterator<std::uint64_t>(typed_cells), detail::unsupported_cell{types}, ~std::uint64_t{0},
          thrust::minimum<std::uint64_t>());
      WARPDEX_EXPECTS(unsupported == ~std::uint64_t{0},
                      "dpp::external_faces: cell " + std::to_string(unsupported >> 8) + " is a " +
                          vtk_cell_type_name(unsupported & 0xffU) +
                          ": external faces are computed for tetrahedra, hexahedra, wedges and pyramids (VTK "
                          "types 10, 12, 13, 14)");
      // Over cell indices, not the type bytes: CUB's reduction of a byte array loads it 4 bytes at a time
      // at offsets that are not multiples of 4 (a misaligned address on the GPU).
      totals = thrust::transform_reduce(
          detail::policy(backend), thrust::counting_iterator<std::uint64_t>(0),
          thrust::counting_iterator<std::uint64_t>(typed_cells), detail::counts_of_cell{types}, detail::cell_offsets{},
          detail::add_cell_offsets{});
      WARPDEX_EXPECTS(totals.points == ids, "dpp::external_faces: the " + std::to_string(typed_cells) +
                                                " cell types need " + std::to_string(totals.points) +
                                                " point ids, the connectivity holds " + std::to_string(ids));
      WARPDEX_EXPECTS(
          totals.triangles <= max_duplicate_search_elements && totals.quads <= max_duplicate_search_elements,
          "dpp::external_faces: " + std::to_string(totals.triangles) + " triangle and " + std::to_string(totals.quads) +
              " quad faces exceed the limit of " + std::to_string(max_duplicate_search_elements) + " of a kind");
    }
    if (ids > 0) {
      const std::uint32_t largest = detail::max_point_id(backend, mesh.connectivity);
      WARPDEX_EXPECTS(largest < mesh.point_count, "dpp::external_faces: point id " + std::to_string(largest) +
                                                      " is out of range (the mesh has " +
                                                      std::to_string(mesh.point_count) + " points)");
    }
    // Tetrahedra only (no types, or every type 10: 4 triangles a cell and no quad): the dense path.
    if (typed_cells == 0 || (totals.quads == 0 && totals.triangles == 4 * typed_cells)) {
      return detail::find_external_faces(backend, mesh, options);
    }
    return detail::find_external_cell_faces(backend, mesh, totals, options);
  });
}

}  // namespace warpdex::dpp

#define WARPDEX_INSTANTIATE_EXTERNAL_FACES(Backend) \
  template external_face_set external_faces<Backend>(const Backend&, const tet_mesh_view&, const face_options&);
