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

#include <cstdint>
#include <new>
#include <string>

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
  WARPDEX_HOST_DEVICE std::uint32_t operator()(const uint32x3& face) const { return face_hash_value(hash, face); }
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
struct resolve_hash_run {
  const std::uint32_t* hashes;
  const face_index* order;
  const uint32x3* keys;
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
      const uint32x3 face = keys[order[j]];
      bool shared = false;
      for (std::uint64_t k = first; k <= last; ++k) {
        if (k == j) { continue; }
        const bool equal = keys[order[k]] == face;
        shared = shared || equal;
        collision = collision || !equal;
      }
      verdict = shared ? verdict_shared : verdict_once;
    }
    verdicts[order[j]] = verdict;
    collision_starts[j] = (collision && first == j) ? 1 : 0;
  }
};

struct is_verdict {
  const std::uint8_t* verdicts;
  std::uint8_t value;
  WARPDEX_HOST_DEVICE bool operator()(face_index f) const { return verdicts[f] == value; }
};

/// The once-flags of the faces by the hash sort.
template <class Backend>
void hash_sorted_once(const Backend& backend, const buffer<uint32x3>& keys, std::uint8_t* once, face_hash hash,
                      std::uint32_t limit, face_stats& stats)
{
  const std::uint64_t n = keys.size();
  auto hashes = make_buffer<std::uint32_t>(backend, n);
  auto order = make_buffer<face_index>(backend, n);
  thrust::transform(policy_nosync(backend), keys.data(), keys.data() + n, hashes.data(), face_hash_of{hash});
  thrust::sequence(policy_nosync(backend), order.data(), order.data() + n, face_index{0});
  thrust::sort_by_key(policy_nosync(backend), hashes.data(), hashes.data() + n, order.data());
  auto collision_starts = make_buffer<std::uint8_t>(backend, n);
  thrust::for_each(policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                   thrust::counting_iterator<std::uint64_t>(n),
                   resolve_hash_run{hashes.data(), order.data(), keys.data(), n, limit, once, collision_starts.data()});
  stats.hash_collision_runs = static_cast<std::uint64_t>(
      thrust::count(policy(backend), collision_starts.data(), collision_starts.data() + n, std::uint8_t{1}));
  // The faces of over-long runs: every copy of each is among them, so the tuple sort decides them alone.
  const auto unresolved_end = thrust::copy_if(policy(backend), thrust::counting_iterator<face_index>(0),
                                              thrust::counting_iterator<face_index>(static_cast<face_index>(n)),
                                              order.data(), is_verdict{once, verdict_unresolved});
  const auto unresolved = static_cast<std::uint64_t>(unresolved_end - order.data());
  stats.sorted_fallback = unresolved;
  if (unresolved == 0) { return; }
  auto subset = make_buffer<uint32x3>(backend, unresolved);
  thrust::gather(policy_nosync(backend), order.data(), order.data() + unresolved, keys.data(), subset.data());
  find_once<uint32x3>(backend, std::span<const uint32x3>(subset.data(), unresolved),
                      std::span<std::uint8_t>(collision_starts.data(), unresolved), duplicate_method::sort);
  thrust::scatter(policy_nosync(backend), collision_starts.data(), collision_starts.data() + unresolved, order.data(),
                  once);
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
    const std::span<const uint32x3> faces(keys.data(), n);
    switch (resolve_face_method<Backend>(options.method)) {
      case face_method::sort_tuple:
        find_once<uint32x3>(backend, faces, once.span(), duplicate_method::sort);
        break;
      case face_method::sort_hash:
        hash_sorted_once(backend, keys, once.data(), options.hash, options.collision_run_limit, stats);
        break;
      case face_method::automatic:
      case face_method::hash_fight:
      default:
        stats.fight_rounds = find_once<uint32x3>(backend, faces, once.span(), duplicate_method::hash_fight).rounds;
        break;
    }
  }
  const auto external_count =
      static_cast<std::uint64_t>(thrust::count(policy(backend), once.data(), once.data() + n, std::uint8_t{1}));
  auto external = make_buffer<face_index>(backend, external_count);
  thrust::copy_if(policy_nosync(backend), thrust::counting_iterator<face_index>(0),
                  thrust::counting_iterator<face_index>(static_cast<face_index>(n)), once.data(), external.data(),
                  is_set{});
  external_face_set result{make_buffer<uint32x3>(backend, external_count),
                           make_buffer<std::uint32_t>(backend, external_count),
                           make_buffer<std::uint8_t>(backend, external_count), stats};
  thrust::for_each(
      policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
      thrust::counting_iterator<std::uint64_t>(external_count),
      emit_external_face{mesh.connectivity.data(), mesh.points.empty() ? nullptr : mesh.points.data(), external.data(),
                         result.triangles.data(), result.cells.data(), result.local_faces.data()});
  backend.synchronize();
  return result;
}

}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {

template <class Backend>
external_face_set external_faces(const Backend& backend, const tet_mesh_view& mesh, const face_options& options)
{
  const std::uint64_t ids = mesh.connectivity.size();
  WARPDEX_EXPECTS(ids % 4 == 0, "dpp::external_faces: the connectivity holds " + std::to_string(ids) +
                                    " point ids, not 4 per tetrahedron");
  WARPDEX_EXPECTS(ids <= max_duplicate_search_elements,
                  "dpp::external_faces: " + std::to_string(ids / 4) + " cells exceed the limit of " +
                      std::to_string(max_duplicate_search_elements / 4) + " (4 faces each)");
  WARPDEX_EXPECTS(mesh.points.empty() || mesh.points.size() == 3 * mesh.point_count,
                  "dpp::external_faces: " + std::to_string(mesh.points.size()) + " coordinates for " +
                      std::to_string(mesh.point_count) + " points (3 per point expected)");
  WARPDEX_EXPECTS(options.collision_run_limit >= 1, "dpp::external_faces: collision_run_limit must be at least 1");
  return detail::reporting_allocation_failure("external_faces", [&] {
    if (ids > 0) {
      const std::uint32_t largest = detail::max_point_id(backend, mesh.connectivity);
      WARPDEX_EXPECTS(largest < mesh.point_count, "dpp::external_faces: point id " + std::to_string(largest) +
                                                      " is out of range (the mesh has " +
                                                      std::to_string(mesh.point_count) + " points)");
    }
    return detail::find_external_faces(backend, mesh, options);
  });
}

}  // namespace warpdex::dpp

#define WARPDEX_INSTANTIATE_EXTERNAL_FACES(Backend) \
  template external_face_set external_faces<Backend>(const Backend&, const tet_mesh_view&, const face_options&);
