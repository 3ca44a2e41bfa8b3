#pragma once
// MRF image segmentation (include/warpdex/dpp/mrf_segment.hpp), written once against Thrust execution
// policies; mrf_segment_host.cpp and mrf_segment_cuda.cu instantiate it. Both are compiled without
// floating-point contraction (src/dpp/CMakeLists.txt): the energies are then rounded the same way on both
// backends, and so are the labels.

#include <warpdex/core/detail/thrust_backend.hpp>
#include "dpp_common.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/dpp/maximal_cliques.hpp>
#include <warpdex/dpp/mrf_segment.hpp>

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::dpp::detail {

using graph::vertex_id;
using warpdex::detail::policy;
using warpdex::detail::policy_nosync;
using warpdex::detail::read_back;

/// Region means are held in fixed point with this many fraction bits (1/16 of a gray level): integer sums
/// of them are exact, whatever their order.
inline constexpr std::uint32_t mean_fraction_bits = 4;
inline constexpr double mean_scale = 1 << mean_fraction_bits;
/// Energies are capped (a label this unlikely is as good as impossible) and held in fixed point, so
/// their sums are exact and equal on both backends: a capped energy takes 28 bits, 2^35 of them sum
/// without overflow.
inline constexpr double energy_cap = 4096.0;
inline constexpr double energy_scale = 65536.0;
/// A replica's (energy, label) packed in one word, the label in the low bits: the minimum is the least
/// energy, ties going to the lower label.
inline constexpr std::uint32_t packed_label_bits = 4;
static_assert(mrf_max_labels <= (1u << packed_label_bits));
inline constexpr std::uint64_t label_mask = (1u << packed_label_bits) - 1;
inline constexpr std::uint64_t no_edge = ~std::uint64_t{0};

struct region_total {
  std::uint64_t sum = 0;
  std::uint64_t count = 0;
  std::uint64_t first_voxel = 0;  // the region's lowest voxel index: a name independent of its id
};

struct add_region_totals {
  WARPDEX_HOST_DEVICE region_total operator()(const region_total& a, const region_total& b) const
  {
    return {a.sum + b.sum, a.count + b.count, a.first_voxel < b.first_voxel ? a.first_voxel : b.first_voxel};
  }
};

/// The q-th voxel in region order.
struct voxel_total {
  const std::uint16_t* values;
  const std::uint64_t* order;
  WARPDEX_HOST_DEVICE region_total operator()(std::uint64_t q) const
  {
    const std::uint64_t i = order[q];
    return {values[i], 1, i};
  }
};

struct first_voxel_of {
  WARPDEX_HOST_DEVICE std::uint64_t operator()(const region_total& total) const { return total.first_voxel; }
};

/// 1 where a run of equal sorted ids starts.
struct run_start {
  const std::uint32_t* sorted;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t i) const
  {
    return i == 0 || sorted[i] != sorted[i - 1] ? 1 : 0;
  }
};

struct fixed_point_mean {
  WARPDEX_HOST_DEVICE std::uint32_t operator()(const region_total& total) const
  {
    return static_cast<std::uint32_t>(((total.sum << mean_fraction_bits) + total.count / 2) / total.count);
  }
};

/// Candidate k = voxel * axes + axis: the edge between the voxel's region and its +axis neighbour's, as
/// (smaller << 32 | larger), or no_edge when they are one region or there is no such neighbour.
struct voxel_edge {
  const vertex_id* dense;
  std::uint64_t width, height, depth;
  std::uint32_t axes;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t k) const
  {
    const std::uint64_t i = k / axes;
    const std::uint32_t axis = static_cast<std::uint32_t>(k % axes);
    std::uint64_t stride = 1;
    bool inside = false;
    if (axis == 0) {
      inside = i % width + 1 < width;
    } else if (axis == 1) {
      stride = width;
      inside = (i / width) % height + 1 < height;
    } else {
      stride = width * height;
      inside = i / (width * height) + 1 < depth;
    }
    if (!inside) { return no_edge; }
    const vertex_id a = dense[i];
    const vertex_id b = dense[i + stride];
    if (a == b) { return no_edge; }
    return a < b ? (std::uint64_t{a} << 32) | b : (std::uint64_t{b} << 32) | a;
  }
};

struct is_edge {
  WARPDEX_HOST_DEVICE bool operator()(std::uint64_t key) const { return key != no_edge; }
};

/// Arc k of the 2 * edges arcs: the edge (u, v) itself, then (v, u).
struct both_arcs {
  const std::uint64_t* edges;
  std::uint64_t edge_count;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t k) const
  {
    if (k < edge_count) { return edges[k]; }
    const std::uint64_t edge = edges[k - edge_count];
    return (edge << 32) | (edge >> 32);
  }
};

struct high_word {
  WARPDEX_HOST_DEVICE std::uint32_t operator()(std::uint64_t word) const
  {
    return static_cast<std::uint32_t>(word >> 32);
  }
};

/// The maximal cliques of one size: they take `size` consecutive entries each from element_start on.
struct clique_size_group {
  std::uint64_t element_start = 0;
  std::uint64_t clique_start = 0;
  std::uint64_t size = 0;
};

/// The clique that entry p of the clique vertices belongs to.
struct clique_of_entry {
  const clique_size_group* groups;
  std::uint32_t group_count;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t p) const
  {
    std::uint32_t g = 0;
    while (g + 1 < group_count && groups[g + 1].element_start <= p) { ++g; }
    return groups[g].clique_start + (p - groups[g].element_start) / groups[g].size;
  }
};

/// Entry p's candidates for its clique's neighbourhood: its vertex and the vertex's neighbours.
struct neighbourhood_candidates {
  const vertex_id* clique_vertices;
  const std::uint64_t* row_offsets;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t p) const
  {
    const vertex_id v = clique_vertices[p];
    return 1 + row_offsets[v + 1] - row_offsets[v];
  }
};

struct write_neighbourhood_candidates {
  const vertex_id* clique_vertices;
  const std::uint64_t* row_offsets;
  const vertex_id* columns;
  clique_of_entry clique_of;
  const std::uint64_t* offsets;
  std::uint64_t* keys;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t p) const
  {
    const vertex_id v = clique_vertices[p];
    const std::uint64_t hood = clique_of(p) << 32;
    std::uint64_t* out = keys + offsets[p];
    *out++ = hood | v;
    for (std::uint64_t e = row_offsets[v]; e < row_offsets[v + 1]; ++e) { *out++ = hood | columns[e]; }
  }
};

/// The neighbourhood elements are the sorted keys (hood << 32 | vertex). For element i, calls
/// visit(j) for each element j of its neighbourhood whose vertex is adjacent to i's (binary search).
struct hood_adjacency {
  const std::uint64_t* keys;
  const std::uint64_t* hood_start;
  const std::uint64_t* row_offsets;
  const vertex_id* columns;

  template <class Visit>
  WARPDEX_HOST_DEVICE void for_each_neighbour(std::uint64_t i, Visit&& visit) const
  {
    const std::uint64_t key = keys[i];
    const std::uint64_t hood = key >> 32;
    const auto v = static_cast<vertex_id>(key);
    const std::uint64_t first = hood_start[hood];
    const std::uint64_t last = hood_start[hood + 1];
    for (std::uint64_t e = row_offsets[v]; e < row_offsets[v + 1]; ++e) {
      const std::uint64_t wanted = (hood << 32) | columns[e];
      std::uint64_t low = first;
      std::uint64_t high = last;
      while (low < high) {
        const std::uint64_t middle = low + (high - low) / 2;
        if (keys[middle] < wanted) {
          low = middle + 1;
        } else {
          high = middle;
        }
      }
      if (low < last && keys[low] == wanted) { visit(low); }
    }
  }
};

struct count_hood_neighbours {
  hood_adjacency adjacency;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t i) const
  {
    std::uint64_t count = 0;
    adjacency.for_each_neighbour(i, [&](std::uint64_t) { ++count; });
    return count;
  }
};

struct write_hood_neighbours {
  hood_adjacency adjacency;
  const std::uint64_t* offsets;
  std::uint32_t* neighbours;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    std::uint32_t* out = neighbours + offsets[i];
    adjacency.for_each_neighbour(i, [&](std::uint64_t j) { *out++ = static_cast<std::uint32_t>(j); });
  }
};

/// The model's parameters, by value in the kernels.
struct label_parameters {
  std::uint32_t count = 2;
  double mu[mrf_max_labels] = {};
  double inverse_two_variance[mrf_max_labels] = {};  // 1 / (2 sigma^2)
  double log_sigma[mrf_max_labels] = {};             // computed on the host: the same on both backends
  double smoothness = 1;

  /// The data term of a region of fixed-point mean `mean` under label l.
  WARPDEX_HOST_DEVICE double data_energy(std::uint32_t mean, std::uint32_t l) const
  {
    const double difference = static_cast<double>(mean) / mean_scale - mu[l];
    return difference * difference * inverse_two_variance[l] + log_sigma[l];
  }
};

WARPDEX_HOST_DEVICE inline std::uint64_t fixed_point_energy(double energy)
{
  return static_cast<std::uint64_t>((energy < energy_cap ? energy : energy_cap) * energy_scale + 0.5);
}

/// Element i's replicas: the energy of its vertex under each label l given the labels of its
/// neighbourhood, written to replica i * labels + l; returns the least, packed with its label. (A vertex's
/// replicas are adjacent, so the thesis's SortByKey is the identity and its ReduceByKey<Min> over the
/// fixed-length segment of replicas is done in this Map.) `wants` is set where the least-energy label is
/// not the current one and the neighbourhood is still being optimized.
struct element_energies {
  label_parameters parameters;
  const std::uint64_t* keys;
  const std::uint32_t* means;
  const std::uint64_t* neighbour_offsets;
  const std::uint32_t* neighbours;
  const std::uint8_t* labels;
  const std::uint8_t* converged;
  std::uint64_t* energies;
  std::uint8_t* wants;            // null: compute every element (the vote)
  const std::uint64_t* previous;  // the last result, kept by converged neighbourhoods (frozen labels)
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t i) const
  {
    if (wants != nullptr && converged[keys[i] >> 32] != 0) {
      wants[i] = 0;
      return previous[i];
    }
    std::uint32_t agreeing[mrf_max_labels] = {};
    const std::uint64_t neighbour_count = neighbour_offsets[i + 1] - neighbour_offsets[i];
    for (std::uint64_t e = neighbour_offsets[i]; e < neighbour_offsets[i + 1]; ++e) {
      ++agreeing[labels[neighbours[e]]];
    }
    const std::uint32_t mean = means[static_cast<vertex_id>(keys[i])];
    std::uint64_t least = ~std::uint64_t{0};
    for (std::uint32_t l = 0; l < parameters.count; ++l) {
      const double energy =
          parameters.data_energy(mean, l) + parameters.smoothness * static_cast<double>(neighbour_count - agreeing[l]);
      const std::uint64_t fixed = fixed_point_energy(energy);
      energies[i * parameters.count + l] = fixed;
      const std::uint64_t packed = (fixed << packed_label_bits) | l;
      least = packed < least ? packed : least;
    }
    if (wants != nullptr) { wants[i] = (least & label_mask) != labels[i] ? 1 : 0; }
    return least;
  }
};

struct packed_energy {
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t packed) const { return packed >> packed_label_bits; }
};

/// The priority of a vertex in MAP iteration t, from its region's first voxel (so region ids are only
/// names): a hash, so that which of two neighbours moves first changes from iteration to iteration, the
/// voxel index breaking ties.
struct move_priority {
  const std::uint64_t* first_voxel;
  std::uint32_t t;
  WARPDEX_HOST_DEVICE std::uint64_t hash(std::uint64_t v) const
  {
    std::uint64_t x = first_voxel[v] ^ (std::uint64_t{t} * 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  /// Whether vertex a goes before vertex b.
  WARPDEX_HOST_DEVICE bool before(std::uint64_t a, std::uint64_t b) const
  {
    const std::uint64_t ha = hash(a);
    const std::uint64_t hb = hash(b);
    return ha != hb ? ha > hb : first_voxel[a] < first_voxel[b];
  }
};

/// Element i's next label. Updating every element at once from the same labels lets two neighbours
/// swap labels back and forth for ever; so an element that wants another label takes it only when no
/// neighbour in its neighbourhood that also wants to move has a higher priority. No two neighbours move
/// together, each move lowers the neighbourhood's energy, and the labels settle.
struct next_label {
  const std::uint64_t* keys;
  const std::uint64_t* neighbour_offsets;
  const std::uint32_t* neighbours;
  const std::uint8_t* labels;
  const std::uint8_t* wants;
  const std::uint64_t* best;
  move_priority priority;
  WARPDEX_HOST_DEVICE std::uint8_t operator()(std::uint64_t i) const
  {
    if (wants[i] == 0) { return labels[i]; }
    const auto own = static_cast<vertex_id>(keys[i]);
    for (std::uint64_t e = neighbour_offsets[i]; e < neighbour_offsets[i + 1]; ++e) {
      const std::uint32_t j = neighbours[e];
      if (wants[j] != 0 && priority.before(static_cast<vertex_id>(keys[j]), own)) { return labels[i]; }
    }
    return static_cast<std::uint8_t>(best[i] & label_mask);
  }
};

/// Records neighbourhood h's energy sum of MAP iteration t and marks it converged when the sums of the
/// last `window` iterations differ by at most `threshold` of the latest.
struct record_hood_energy {
  const std::uint64_t* sums;
  std::uint64_t* history;
  std::uint8_t* converged;
  std::uint32_t window;
  std::uint32_t t;
  double threshold;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t h) const
  {
    if (converged[h] != 0) { return; }
    std::uint64_t* own = history + h * window;
    own[t % window] = sums[h];
    if (t + 1 < window) { return; }
    std::uint64_t low = own[0];
    std::uint64_t high = own[0];
    for (std::uint32_t k = 1; k < window; ++k) {
      low = own[k] < low ? own[k] : low;
      high = own[k] > high ? own[k] : high;
    }
    if (static_cast<double>(high - low) <= threshold * static_cast<double>(high)) { converged[h] = 1; }
  }
};

struct is_zero {
  WARPDEX_HOST_DEVICE bool operator()(std::uint8_t flag) const { return flag == 0; }
};

/// Element i's label from its vertex's.
struct vertex_label_of_element {
  const std::uint64_t* keys;
  const std::uint8_t* vertex_labels;
  WARPDEX_HOST_DEVICE std::uint8_t operator()(std::uint64_t i) const
  {
    return vertex_labels[static_cast<vertex_id>(keys[i])];
  }
};

/// Vote entry j = l * elements + q (q: the q-th element in vertex order): key l * regions + vertex.
struct vote_key {
  const std::uint32_t* sorted_vertex;
  std::uint64_t elements;
  std::uint64_t regions;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t j) const
  {
    return (j / elements) * regions + sorted_vertex[j % elements];
  }
};

struct vote_energy {
  const std::uint64_t* energies;
  const std::uint32_t* by_vertex;
  std::uint64_t elements;
  std::uint32_t label_count;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t j) const
  {
    return energies[std::uint64_t{by_vertex[j % elements]} * label_count + j / elements];
  }
};

/// Vertex v's label: the least summed energy over its replicas (ties: the lower label).
struct least_vote {
  const std::uint64_t* sums;
  std::uint64_t regions;
  std::uint32_t label_count;
  WARPDEX_HOST_DEVICE std::uint8_t operator()(std::uint64_t v) const
  {
    std::uint32_t best = 0;
    for (std::uint32_t l = 1; l < label_count; ++l) {
      if (sums[l * regions + v] < sums[best * regions + v]) { best = l; }
    }
    return static_cast<std::uint8_t>(best);
  }
};

/// The label of least data energy (the initial labels).
struct least_data_energy {
  label_parameters parameters;
  const std::uint32_t* means;
  WARPDEX_HOST_DEVICE std::uint8_t operator()(std::uint64_t v) const
  {
    std::uint32_t best = 0;
    std::uint64_t best_energy = fixed_point_energy(parameters.data_energy(means[v], 0));
    for (std::uint32_t l = 1; l < parameters.count; ++l) {
      const std::uint64_t energy = fixed_point_energy(parameters.data_energy(means[v], l));
      if (energy < best_energy) { best = l, best_energy = energy; }
    }
    return static_cast<std::uint8_t>(best);
  }
};

/// Count, sum and sum of squares (128 bits) of fixed-point means: exact in any order.
struct moments {
  std::uint64_t count = 0;
  std::uint64_t sum = 0;
  std::uint64_t squares_low = 0;
  std::uint64_t squares_high = 0;
};

struct add_moments {
  WARPDEX_HOST_DEVICE moments operator()(const moments& a, const moments& b) const
  {
    moments r;
    r.count = a.count + b.count;
    r.sum = a.sum + b.sum;
    r.squares_low = a.squares_low + b.squares_low;
    r.squares_high = a.squares_high + b.squares_high + (r.squares_low < a.squares_low ? 1 : 0);
    return r;
  }
};

/// The moments of vertex v's mean if its label is `label` (every vertex with all_labels).
struct vertex_moments {
  const std::uint32_t* means;
  const std::uint8_t* labels;
  std::uint32_t label;
  bool all_labels;
  WARPDEX_HOST_DEVICE moments operator()(std::uint64_t v) const
  {
    moments m;
    if (all_labels || labels[v] == label) {
      const std::uint64_t mean = means[v];
      m.count = 1;
      m.sum = mean;
      m.squares_low = mean * mean;
    }
    return m;
  }
};

struct relabelled_voxel {
  const vertex_id* dense;
  const std::uint8_t* vertex_labels;
  std::uint8_t rank[mrf_max_labels];
  WARPDEX_HOST_DEVICE std::uint8_t operator()(std::uint64_t i) const { return rank[vertex_labels[dense[i]]]; }
};

/// Mean and standard deviation (at least 1 gray level) in gray levels of exact moments.
inline std::pair<double, double> mean_and_sigma(const moments& m)
{
  const double count = static_cast<double>(m.count);
  const double mean = static_cast<double>(m.sum) / count / mean_scale;
  const double squares = (static_cast<double>(m.squares_high) * 0x1.0p64 + static_cast<double>(m.squares_low)) / count /
                         (mean_scale * mean_scale);
  const double variance = std::max(squares - mean * mean, 0.0);
  return {mean, std::max(std::sqrt(variance), 1.0)};
}

inline label_parameters make_parameters(const std::vector<double>& mu, const std::vector<double>& sigma,
                                        double smoothness)
{
  label_parameters parameters;
  parameters.count = static_cast<std::uint32_t>(mu.size());
  parameters.smoothness = smoothness;
  for (std::size_t l = 0; l < mu.size(); ++l) {
    parameters.mu[l] = mu[l];
    parameters.inverse_two_variance[l] = 1.0 / (2.0 * sigma[l] * sigma[l]);
    parameters.log_sigma[l] = std::log(sigma[l]);
  }
  return parameters;
}

template <class Backend>
mrf_result segment(const Backend& backend, const gray_volume& image, std::span<const std::uint32_t> regions,
                   const mrf_options& options)
{
  using clock = std::chrono::steady_clock;
  const auto exec = policy(backend);
  const auto quiet = policy_nosync(backend);
  const thrust::counting_iterator<std::uint64_t> first(0);
  const std::uint32_t labels = options.label_count;
  const std::uint64_t n = image.values.size();
  mrf_result result;
  auto started = clock::now();
  const auto stage_seconds = [&] {
    backend.synchronize();
    const auto now = clock::now();
    const double seconds = std::chrono::duration<double>(now - started).count();
    started = now;
    return seconds;
  };

  // Regions: ids sorted with the intensities, made dense (0 .. R-1 in ascending id), their means.
  auto dense = make_buffer<vertex_id>(backend, n);
  buffer<std::uint32_t> means;
  buffer<std::uint64_t> first_voxel;
  std::uint64_t region_count = 0;
  {
    auto ids = make_buffer<std::uint32_t>(backend, n);
    ids.copy_from(regions);
    auto values = make_buffer<std::uint16_t>(backend, n);
    values.copy_from(std::span<const std::uint16_t>(image.values));
    // The voxels in region order (stable: a region's voxels ascend).
    auto sorted_ids = make_buffer<std::uint32_t>(backend, n);
    auto order = make_buffer<std::uint64_t>(backend, n);
    thrust::copy(quiet, ids.data(), ids.data() + n, sorted_ids.data());
    thrust::sequence(quiet, order.data(), order.data() + n, std::uint64_t{0});
    thrust::stable_sort_by_key(quiet, sorted_ids.data(), sorted_ids.data() + n, order.data());
    region_count = thrust::transform_reduce(exec, first, first + n, run_start{sorted_ids.data()}, std::uint64_t{0},
                                            thrust::plus<std::uint64_t>{});
    WARPDEX_EXPECTS(region_count < (std::uint64_t{1} << 32) - 1,
                    "dpp::mrf_segment: " + std::to_string(region_count) + " regions; at most 2^32 - 2 are supported");
    auto region_ids = make_buffer<std::uint32_t>(backend, region_count);
    auto totals = make_buffer<region_total>(backend, region_count);
    thrust::reduce_by_key(quiet, sorted_ids.data(), sorted_ids.data() + n,
                          thrust::make_transform_iterator(first, voxel_total{values.data(), order.data()}),
                          region_ids.data(), totals.data(), thrust::equal_to<std::uint32_t>{}, add_region_totals{});
    first_voxel = make_buffer<std::uint64_t>(backend, region_count);
    thrust::transform(quiet, totals.data(), totals.data() + region_count, first_voxel.data(), first_voxel_of{});
    means = make_buffer<std::uint32_t>(backend, region_count);
    thrust::transform(quiet, totals.data(), totals.data() + region_count, means.data(), fixed_point_mean{});
    thrust::lower_bound(quiet, region_ids.data(), region_ids.data() + region_count, ids.data(), ids.data() + n,
                        dense.data());
  }
  result.stats.regions = region_count;
  result.timings.regions = stage_seconds();

  // The region adjacency graph in CSR form.
  const std::uint32_t axes = image.dims.is_2d() ? 2 : 3;
  buffer<std::uint64_t> row_offsets = make_buffer<std::uint64_t>(backend, region_count + 1);
  buffer<vertex_id> columns;
  std::uint64_t edge_count = 0;
  {
    const auto candidates = thrust::make_transform_iterator(
        first, voxel_edge{dense.data(), image.dims.width, image.dims.height, image.dims.depth, axes});
    const std::uint64_t candidate_count = n * axes;
    const auto boundary =
        static_cast<std::uint64_t>(thrust::count_if(exec, candidates, candidates + candidate_count, is_edge{}));
    auto edges = make_buffer<std::uint64_t>(backend, boundary);
    thrust::copy_if(quiet, candidates, candidates + candidate_count, edges.data(), is_edge{});
    thrust::sort(quiet, edges.data(), edges.data() + boundary);
    edge_count = static_cast<std::uint64_t>(thrust::unique(exec, edges.data(), edges.data() + boundary) - edges.data());
    auto arcs = make_buffer<std::uint64_t>(backend, 2 * edge_count);
    thrust::transform(quiet, first, first + 2 * edge_count, arcs.data(), both_arcs{edges.data(), edge_count});
    edges = buffer<std::uint64_t>();
    thrust::sort(quiet, arcs.data(), arcs.data() + 2 * edge_count);
    const auto row_starts = thrust::make_transform_iterator(first, row_start{});
    thrust::lower_bound(quiet, arcs.data(), arcs.data() + 2 * edge_count, row_starts, row_starts + region_count + 1,
                        row_offsets.data());
    columns = make_buffer<vertex_id>(backend, 2 * edge_count);
    thrust::transform(quiet, arcs.data(), arcs.data() + 2 * edge_count, columns.data(), low_word{});
  }
  result.stats.region_edges = edge_count;
  result.timings.graph = stage_seconds();

  // Its maximal cliques, every size.
  clique_options clique_choice = options.cliques;
  clique_choice.min_size = 1;
  clique_choice.count_only = false;
  const clique_set cliques =
      maximal_cliques(backend, clique_graph_view{region_count, row_offsets.span(), columns.span()}, clique_choice);
  const std::uint64_t clique_count = cliques.count();
  result.stats.cliques = clique_count;
  result.stats.clique_number = cliques.clique_number();
  WARPDEX_EXPECTS(clique_count < (std::uint64_t{1} << 32),
                  "dpp::mrf_segment: " + std::to_string(clique_count) + " maximal cliques; at most 2^32 - 1 supported");
  result.timings.cliques = stage_seconds();

  // Neighbourhoods: each clique's vertices and their neighbours, as sorted unique (clique << 32 | vertex)
  // keys; and, for each element, the elements of its neighbourhood adjacent to it.
  buffer<std::uint64_t> keys;
  auto hood_start = make_buffer<std::uint64_t>(backend, clique_count + 1);
  buffer<std::uint64_t> neighbour_offsets;
  buffer<std::uint32_t> neighbours;
  std::uint64_t element_count = 0;
  {
    std::vector<clique_size_group> host_groups;
    std::uint64_t clique_start = 0;
    for (std::uint32_t s = 1; s < cliques.size_histogram.size(); ++s) {
      if (cliques.size_histogram[s] == 0) { continue; }
      host_groups.push_back({cliques.offset_of_size(s), clique_start, s});
      clique_start += cliques.size_histogram[s];
    }
    auto groups = make_buffer<clique_size_group>(backend, host_groups.size());
    groups.copy_from(host_groups);
    const clique_of_entry clique_of{groups.data(), static_cast<std::uint32_t>(host_groups.size())};
    const std::uint64_t entries = cliques.vertices.size();
    auto offsets = make_buffer<std::uint64_t>(backend, entries + 1);
    thrust::transform(quiet, first, first + entries, offsets.data(),
                      neighbourhood_candidates{cliques.vertices.data(), row_offsets.data()});
    thrust::fill(quiet, offsets.data() + entries, offsets.data() + entries + 1, std::uint64_t{0});
    thrust::exclusive_scan(quiet, offsets.data(), offsets.data() + entries + 1, offsets.data());
    const std::uint64_t candidate_count = read_back(backend, offsets.data() + entries);
    keys = make_buffer<std::uint64_t>(backend, candidate_count);
    thrust::for_each(quiet, first, first + entries,
                     write_neighbourhood_candidates{cliques.vertices.data(), row_offsets.data(), columns.data(),
                                                    clique_of, offsets.data(), keys.data()});
    thrust::sort(quiet, keys.data(), keys.data() + candidate_count);
    element_count =
        static_cast<std::uint64_t>(thrust::unique(exec, keys.data(), keys.data() + candidate_count) - keys.data());
    WARPDEX_EXPECTS(
        element_count < (std::uint64_t{1} << 32),
        "dpp::mrf_segment: " + std::to_string(element_count) + " neighbourhood elements; at most 2^32 - 1 supported");
    const auto hood_starts = thrust::make_transform_iterator(first, row_start{});
    thrust::lower_bound(quiet, keys.data(), keys.data() + element_count, hood_starts, hood_starts + clique_count + 1,
                        hood_start.data());

    const hood_adjacency adjacency{keys.data(), hood_start.data(), row_offsets.data(), columns.data()};
    neighbour_offsets = make_buffer<std::uint64_t>(backend, element_count + 1);
    thrust::transform(quiet, first, first + element_count, neighbour_offsets.data(), count_hood_neighbours{adjacency});
    thrust::fill(quiet, neighbour_offsets.data() + element_count, neighbour_offsets.data() + element_count + 1,
                 std::uint64_t{0});
    thrust::exclusive_scan(quiet, neighbour_offsets.data(), neighbour_offsets.data() + element_count + 1,
                           neighbour_offsets.data());
    const std::uint64_t neighbour_count = read_back(backend, neighbour_offsets.data() + element_count);
    neighbours = make_buffer<std::uint32_t>(backend, neighbour_count);
    thrust::for_each(quiet, first, first + element_count,
                     write_hood_neighbours{adjacency, neighbour_offsets.data(), neighbours.data()});
  }
  result.stats.neighbourhood_elements = element_count;
  result.timings.neighbourhoods = stage_seconds();

  // EM. The elements in vertex order, for the vote.
  auto by_vertex = make_buffer<std::uint32_t>(backend, element_count);
  auto sorted_vertex = make_buffer<std::uint32_t>(backend, element_count);
  thrust::transform(quiet, keys.data(), keys.data() + element_count, sorted_vertex.data(), low_word{});
  thrust::sequence(quiet, by_vertex.data(), by_vertex.data() + element_count, std::uint32_t{0});
  thrust::stable_sort_by_key(quiet, sorted_vertex.data(), sorted_vertex.data() + element_count, by_vertex.data());

  // Initial parameters from the quantiles and the spread of the region means; labels of least data energy.
  std::vector<double> mu(labels);
  std::vector<double> sigma(labels);
  {
    auto sorted_means = make_buffer<std::uint32_t>(backend, region_count);
    thrust::copy(quiet, means.data(), means.data() + region_count, sorted_means.data());
    thrust::sort(quiet, sorted_means.data(), sorted_means.data() + region_count);
    const moments all = thrust::transform_reduce(
        exec, first, first + region_count, vertex_moments{means.data(), nullptr, 0, true}, moments{}, add_moments{});
    const double spread = mean_and_sigma(all).second;
    for (std::uint32_t l = 0; l < labels; ++l) {
      const auto at = static_cast<std::uint64_t>((l + 0.5) / labels * static_cast<double>(region_count));
      mu[l] = read_back(backend, sorted_means.data() + std::min(at, region_count - 1)) / mean_scale;
      sigma[l] = std::max(spread / labels, 1.0);
    }
  }
  auto vertex_labels = make_buffer<std::uint8_t>(backend, region_count);
  thrust::transform(quiet, first, first + region_count, vertex_labels.data(),
                    least_data_energy{make_parameters(mu, sigma, options.smoothness), means.data()});

  auto local_labels = make_buffer<std::uint8_t>(backend, element_count);
  auto next_labels = make_buffer<std::uint8_t>(backend, element_count);
  auto wants = make_buffer<std::uint8_t>(backend, element_count);
  auto energies = make_buffer<std::uint64_t>(backend, element_count * labels);
  auto best = make_buffer<std::uint64_t>(backend, element_count);
  auto hood_sums = make_buffer<std::uint64_t>(backend, clique_count);
  auto history = make_buffer<std::uint64_t>(backend, clique_count * options.convergence_window);
  auto converged = make_buffer<std::uint8_t>(backend, clique_count);
  auto vote_sums = make_buffer<std::uint64_t>(backend, region_count * labels);
  const auto hood_of = thrust::make_transform_iterator(keys.data(), high_word{});
  std::vector<std::uint64_t> em_energies;
  for (std::uint32_t em = 0; em < options.em_iterations; ++em) {
    const label_parameters parameters = make_parameters(mu, sigma, options.smoothness);
    const auto compute_energies = [&](std::uint8_t* wanted) {
      thrust::transform(
          quiet, first, first + element_count, best.data(),
          element_energies{parameters, keys.data(), means.data(), neighbour_offsets.data(), neighbours.data(),
                           local_labels.data(), converged.data(), energies.data(), wanted, best.data()});
    };
    thrust::transform(quiet, first, first + element_count, local_labels.data(),
                      vertex_label_of_element{keys.data(), vertex_labels.data()});
    thrust::fill(quiet, converged.data(), converged.data() + clique_count, std::uint8_t{0});
    for (std::uint32_t t = 0; t < options.map_iterations; ++t) {
      compute_energies(wants.data());
      thrust::transform(quiet, first, first + element_count, next_labels.data(),
                        next_label{keys.data(), neighbour_offsets.data(), neighbours.data(), local_labels.data(),
                                   wants.data(), best.data(), move_priority{first_voxel.data(), t}});
      thrust::reduce_by_key(quiet, hood_of, hood_of + element_count,
                            thrust::make_transform_iterator(best.data(), packed_energy{}),
                            thrust::make_discard_iterator(), hood_sums.data());
      thrust::for_each(quiet, first, first + clique_count,
                       record_hood_energy{hood_sums.data(), history.data(), converged.data(),
                                          options.convergence_window, t, options.convergence_threshold});
      std::swap(local_labels, next_labels);
      ++result.stats.map_iterations;
      if (thrust::count_if(exec, converged.data(), converged.data() + clique_count, is_zero{}) == 0) { break; }
    }
    // Each vertex takes the label of least energy summed over its replicas (under the final labels).
    compute_energies(nullptr);
    const auto vote_keys =
        thrust::make_transform_iterator(first, vote_key{sorted_vertex.data(), element_count, region_count});
    const auto vote_values =
        thrust::make_transform_iterator(first, vote_energy{energies.data(), by_vertex.data(), element_count, labels});
    thrust::reduce_by_key(quiet, vote_keys, vote_keys + element_count * labels, vote_values,
                          thrust::make_discard_iterator(), vote_sums.data());
    thrust::transform(quiet, first, first + region_count, vertex_labels.data(),
                      least_vote{vote_sums.data(), region_count, labels});
    // Parameters from the labelled regions.
    for (std::uint32_t l = 0; l < labels; ++l) {
      const moments m = thrust::transform_reduce(exec, first, first + region_count,
                                                 vertex_moments{means.data(), vertex_labels.data(), l, false},
                                                 moments{}, add_moments{});
      if (m.count != 0) { std::tie(mu[l], sigma[l]) = mean_and_sigma(m); }
    }
    ++result.stats.em_iterations;
    em_energies.push_back(thrust::reduce(exec, hood_sums.data(), hood_sums.data() + clique_count, std::uint64_t{0}));
    if (em_energies.size() >= options.convergence_window) {
      const auto window_begin = em_energies.end() - options.convergence_window;
      const auto [low, high] = std::minmax_element(window_begin, em_energies.end());
      if (static_cast<double>(*high - *low) <= options.convergence_threshold * static_cast<double>(*high)) {
        result.stats.converged = true;
        break;
      }
    }
  }
  result.stats.energy = em_energies.empty() ? 0.0 : static_cast<double>(em_energies.back()) / energy_scale;
  result.timings.em = stage_seconds();

  // Labels by ascending mu, to the voxels.
  std::vector<std::uint32_t> order(labels);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return mu[a] < mu[b]; });
  relabelled_voxel relabel{dense.data(), vertex_labels.data(), {}};
  for (std::uint32_t rank = 0; rank < labels; ++rank) {
    relabel.rank[order[rank]] = static_cast<std::uint8_t>(rank);
    result.mu.push_back(mu[order[rank]]);
    result.sigma.push_back(sigma[order[rank]]);
  }
  auto voxel_labels = make_buffer<std::uint8_t>(backend, n);
  thrust::transform(quiet, first, first + n, voxel_labels.data(), relabel);
  result.labels = voxel_labels.to_vector();
  result.timings.output = stage_seconds();
  return result;
}

}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {

template <class Backend>
mrf_result mrf_segment(const Backend& backend, const gray_volume& image, std::span<const std::uint32_t> regions,
                       const mrf_options& options)
{
  WARPDEX_EXPECTS(image.values.size() == image.dims.voxels() && !image.values.empty(),
                  "dpp::mrf_segment: the image holds " + std::to_string(image.values.size()) +
                      " values for dimensions " + image.dims.to_string());
  WARPDEX_EXPECTS(regions.size() == image.values.size(), "dpp::mrf_segment: " + std::to_string(regions.size()) +
                                                             " region ids for " + std::to_string(image.values.size()) +
                                                             " voxels (one per voxel expected)");
  WARPDEX_EXPECTS(options.label_count >= 2 && options.label_count <= mrf_max_labels,
                  "dpp::mrf_segment: label_count " + std::to_string(options.label_count) + " is not in 2 .. " +
                      std::to_string(mrf_max_labels));
  WARPDEX_EXPECTS(options.em_iterations >= 1 && options.map_iterations >= 1 && options.convergence_window >= 1,
                  "dpp::mrf_segment: em_iterations, map_iterations and convergence_window must be at least 1");
  WARPDEX_EXPECTS(options.smoothness >= 0 && options.convergence_threshold >= 0,
                  "dpp::mrf_segment: smoothness and convergence_threshold must not be negative");
  return detail::reporting_allocation_failure("mrf_segment",
                                              [&] { return detail::segment(backend, image, regions, options); });
}

}  // namespace warpdex::dpp

#define WARPDEX_INSTANTIATE_MRF_SEGMENT(Backend)                                                               \
  template mrf_result mrf_segment<Backend>(const Backend&, const gray_volume&, std::span<const std::uint32_t>, \
                                           const mrf_options&);
