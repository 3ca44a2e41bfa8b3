#pragma once
// Maximal clique enumeration (include/warpdex/dpp/maximal_cliques.hpp), written once against Thrust
// execution policies; maximal_cliques_host.cpp and maximal_cliques_cuda.cu instantiate it.

#include <warpdex/core/detail/thrust_backend.hpp>
#include "dpp_common.hpp"
#include "maximal_cliques_estimate.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/core/host_memory.hpp>
#include <warpdex/dpp/detail/relaxed_atomic.hpp>
#include <warpdex/dpp/maximal_cliques.hpp>

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::dpp::detail {

using graph::vertex_id;
using warpdex::detail::policy;
using warpdex::detail::policy_nosync;
using warpdex::detail::read_back;

/// Vertex v's rank key: its degree in the high word, its index in the low one, so sorting the keys ranks
/// the vertices by (degree, id).
struct degree_rank_key {
  const std::uint64_t* row_offsets;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t v) const
  {
    return ((row_offsets[v + 1] - row_offsets[v]) << 32) | v;
  }
};

inline constexpr std::uint64_t no_arc = ~std::uint64_t{0};

/// Arc e as the oriented arc (rank of source, rank of target) in one word, or no_arc when the source
/// ranks above the target (the edge is kept from its other end).
struct oriented_arc {
  const vertex_id* sources;
  const vertex_id* columns;
  const vertex_id* rank_of;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t e) const
  {
    const std::uint64_t from = rank_of[sources[e]];
    const std::uint64_t to = rank_of[columns[e]];
    return from < to ? (from << 32) | to : no_arc;
  }
};

struct is_arc {
  WARPDEX_HOST_DEVICE bool operator()(std::uint64_t word) const { return word != no_arc; }
};

struct row_length {
  const std::uint64_t* offsets;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t v) const { return offsets[v + 1] - offsets[v]; }
};

/// The 2-cliques: oriented arc e as the pair (from, to), its bucket the arcs leaving `from`.
struct edge_clique {
  const std::uint64_t* arcs;
  const std::uint64_t* out_offsets;
  vertex_id* level;
  std::uint64_t* bucket_end;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t e) const
  {
    const auto from = static_cast<vertex_id>(arcs[e] >> 32);
    level[2 * e] = from;
    level[2 * e + 1] = static_cast<vertex_id>(arcs[e]);
    bucket_end[e] = out_offsets[from + 1];
  }
};

/// The k-cliques of one round and the oriented graph they extend in: clique i is level[i*k .. i*k+k),
/// ranks ascending; the cliques after it sharing its first k - 1 vertices run to bucket_end[i].
struct clique_round {
  const vertex_id* level;
  std::uint32_t k;
  const std::uint64_t* bucket_end;
  const std::uint64_t* out_offsets;
  const vertex_id* out_columns;

  /// Calls visit(j, y) for every later clique j = (P, y) of clique i's bucket whose last vertex y is an
  /// oriented neighbour of i's last vertex x, in ascending j: both x's neighbours and the bucket's last
  /// vertices ascend, so one merge finds them.
  template <class Visit>
  WARPDEX_HOST_DEVICE void for_each_extension(std::uint64_t i, Visit&& visit) const
  {
    const vertex_id x = level[i * k + k - 1];
    const vertex_id* neighbour = out_columns + out_offsets[x];
    const vertex_id* const neighbours_end = out_columns + out_offsets[x + 1];
    const std::uint64_t end = bucket_end[i];
    for (std::uint64_t j = i + 1; j < end && neighbour != neighbours_end; ++j) {
      const vertex_id y = level[j * k + k - 1];
      while (neighbour != neighbours_end && *neighbour < y) { ++neighbour; }
      if (neighbour != neighbours_end && *neighbour == y) { visit(j, y); }
    }
  }
};

struct count_extensions {
  clique_round round;
  std::uint64_t* counts;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    std::uint64_t count = 0;
    round.for_each_extension(i, [&](std::uint64_t, vertex_id) { ++count; });
    counts[i] = count;
  }
};

/// Writes clique i's (k+1)-clique extensions from offsets[i] on, each followed by its bucket (the
/// children of i), and marks i and every partner j not maximal.
struct write_extensions {
  clique_round round;
  const std::uint64_t* offsets;
  vertex_id* next;
  std::uint64_t* next_bucket_end;
  std::uint8_t* not_maximal;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const std::uint32_t k = round.k;
    std::uint64_t place = offsets[i];
    const std::uint64_t children_end = offsets[i + 1];
    if (place == children_end) { return; }
    relaxed_store(not_maximal + i, std::uint8_t{1});
    const vertex_id* clique = round.level + i * k;
    round.for_each_extension(i, [&](std::uint64_t j, vertex_id y) {
      vertex_id* out = next + place * (k + 1);
      for (std::uint32_t t = 0; t < k; ++t) { out[t] = clique[t]; }
      out[k] = y;
      next_bucket_end[place] = children_end;
      relaxed_store(not_maximal + j, std::uint8_t{1});
      ++place;
    });
  }
};

/// Marks, for each (k+1)-clique q, its k-subsets without one of q's first k - 1 vertices not maximal
/// (the two without its last or second-to-last vertex are the parents, marked when q was written). Each
/// is found by binary search among the lexicographically sorted k-cliques.
struct mark_subsets {
  const vertex_id* level;
  std::uint64_t count;
  std::uint32_t k;
  const vertex_id* next;
  std::uint8_t* not_maximal;

  /// Lexicographic comparison of clique r with q less its vertex `skip`: negative, 0 or positive.
  WARPDEX_HOST_DEVICE int compare(std::uint64_t r, const vertex_id* q, std::uint32_t skip) const
  {
    const vertex_id* clique = level + r * k;
    for (std::uint32_t t = 0; t < k; ++t) {
      const vertex_id other = q[t < skip ? t : t + 1];
      if (clique[t] != other) { return clique[t] < other ? -1 : 1; }
    }
    return 0;
  }

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t q_index) const
  {
    const vertex_id* q = next + q_index * (k + 1);
    for (std::uint32_t skip = 0; skip + 1 < k; ++skip) {
      std::uint64_t low = 0;
      std::uint64_t high = count;
      while (low < high) {  // the first clique not below the subset
        const std::uint64_t middle = low + (high - low) / 2;
        if (compare(middle, q, skip) < 0) {
          low = middle + 1;
        } else {
          high = middle;
        }
      }
      // Every k-subset of a clique is a k-clique of the round, so it is there.
      if (low < count && compare(low, q, skip) == 0) { relaxed_store(not_maximal + low, std::uint8_t{1}); }
    }
  }
};

struct is_clear {
  WARPDEX_HOST_DEVICE bool operator()(std::uint8_t flag) const { return flag == 0; }
};

/// Output row r: clique chosen[r] of the round, its ranks mapped to vertex indices, ascending.
struct emit_clique {
  const vertex_id* level;
  std::uint32_t k;
  const std::uint64_t* chosen;
  const vertex_id* vertex_of_rank;
  vertex_id* out;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t r) const
  {
    const vertex_id* clique = level + chosen[r] * k;
    vertex_id* row = out + r * k;
    for (std::uint32_t t = 0; t < k; ++t) {
      const vertex_id v = vertex_of_rank[clique[t]];
      std::uint32_t place = t;
      for (; place > 0 && row[place - 1] > v; --place) { row[place] = row[place - 1]; }
      row[place] = v;
    }
  }
};

inline std::string mebibytes(std::uint64_t bytes)
{
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

/// The bytes a round of `count` k-cliques holds with the `next_count` (k+1)-cliques it makes (see the
/// check in enumerate_maximal_cliques): its cliques, buckets, flags, offsets, and at most as many returned
/// rows and their indices; then the new cliques and their buckets.
WARPDEX_HOST_DEVICE constexpr double round_bytes(double count, double next_count, std::uint32_t k)
{
  return count * (2 * (k * 4.0 + 8) + 1) + 8 + next_count * ((k + 1) * 4.0 + 8);
}

/// An estimate this many times over the limit refuses the enumeration before it starts. The estimates
/// of the rounds whose exact counts were seen came within 0.85x .. 1.15x of them (keller:4 at 6 and 7
/// vertices, mann:9 at 8 and 9, hamming:6:2 at 6 and 7); deeper rounds, which few random paths reach,
/// are underestimated, so a refusal is safe and the round check stays the last word.
inline constexpr double refuse_estimate_factor = 1;

/// Up to this many cliques a vertex (2^oriented degree) the whole clique count fits any limit check
/// cheaply: the estimate is skipped.
inline constexpr std::uint32_t estimate_above_oriented_degree = 20;

/// Refuses, before any round, a graph whose estimated clique counts (maximal_cliques_estimate.hpp) need
/// `refuse_estimate_factor` times the memory limit in one round: such an enumeration would run for
/// minutes before its round check stopped it.
template <class Backend>
void expect_estimated_rounds_fit(const Backend& backend, const buffer<std::uint64_t>& out_offsets,
                                 const buffer<vertex_id>& out_columns, std::uint64_t fixed_bytes, std::uint64_t limit)
{
  (void)backend;
  const std::vector<std::uint64_t> offsets = out_offsets.to_vector();
  const std::vector<vertex_id> columns = out_columns.to_vector();
  const std::vector<double> cliques = estimate_clique_counts(offsets, columns, 0x5eed);
  for (std::uint32_t k = 2; k + 1 < cliques.size(); ++k) {
    const double held = static_cast<double>(fixed_bytes) + round_bytes(cliques[k], cliques[k + 1], k);
    if (held > refuse_estimate_factor * static_cast<double>(limit)) {
      char estimate[32];
      std::snprintf(estimate, sizeof estimate, "%.2g", std::round(cliques[k + 1]));
      throw out_of_memory("dpp::maximal_cliques: the graph has about " + std::string(estimate) + " cliques of " +
                          std::to_string(k + 1) + " vertices (estimated from " + std::to_string(clique_estimate_paths) +
                          " random paths of its clique tree); enumerating "
                          "them needs about " +
                          mebibytes(static_cast<std::uint64_t>(held)) + " at once, over the limit of " +
                          mebibytes(limit) +
                          ". The method enumerates every clique, not only the maximal ones (docs/dpp.md)");
    }
  }
}

template <class Backend>
clique_set enumerate_maximal_cliques(const Backend& backend, const clique_graph_view& graph,
                                     const clique_options& options)
{
  const std::uint64_t n = graph.vertex_count;
  const std::uint64_t arcs_in = graph.columns.size();
  clique_set result;
  result.min_size = options.min_size;
  if (n == 0) { return result; }
  // By default nine tenths of the backend's memory: the rest holds the CUDA context, the graph and the
  // allocator's fragments (a round estimated at 96% of an H200's memory failed in its allocation).
  // On the host, what the machine has free now (MemAvailable, ulimit -v), not its physical memory.
  std::uint64_t backend_bytes = memory_limit_bytes(backend);
  if constexpr (std::is_same_v<Backend, host>) { backend_bytes = std::min(backend_bytes, host_memory_bytes()); }
  const std::uint64_t limit = options.memory_limit_bytes != 0 ? options.memory_limit_bytes : backend_bytes / 10 * 9;
  const auto exec = policy(backend);
  const auto quiet = policy_nosync(backend);
  const std::uint64_t* row_offsets = graph.row_offsets.data();
  const thrust::counting_iterator<std::uint64_t> first(0);

  // Degree ranks: the isolated vertices rank first.
  auto vertex_of_rank = make_buffer<vertex_id>(backend, n);
  std::uint64_t isolated = 0;
  {
    auto keys = make_buffer<std::uint64_t>(backend, n);
    thrust::transform(quiet, first, first + n, keys.data(), degree_rank_key{row_offsets});
    thrust::sort(quiet, keys.data(), keys.data() + n);
    thrust::transform(quiet, keys.data(), keys.data() + n, vertex_of_rank.data(), low_word{});
    isolated = static_cast<std::uint64_t>(
        thrust::lower_bound(exec, keys.data(), keys.data() + n, std::uint64_t{1} << 32) - keys.data());
  }

  // The oriented graph, in rank space, rows ascending.
  std::uint64_t edges = 0;
  buffer<std::uint64_t> arcs;
  {
    auto rank_of = make_buffer<vertex_id>(backend, n);
    thrust::scatter(quiet, thrust::counting_iterator<vertex_id>(0), thrust::counting_iterator<vertex_id>(0) + n,
                    vertex_of_rank.data(), rank_of.data());
    auto sources = make_buffer<vertex_id>(backend, arcs_in);
    thrust::upper_bound(quiet, row_offsets + 1, row_offsets + n + 1, first, first + arcs_in, sources.data());
    arcs = make_buffer<std::uint64_t>(backend, arcs_in);
    const auto candidates =
        thrust::make_transform_iterator(first, oriented_arc{sources.data(), graph.columns.data(), rank_of.data()});
    edges = static_cast<std::uint64_t>(thrust::copy_if(exec, candidates, candidates + arcs_in, arcs.data(), is_arc{}) -
                                       arcs.data());
  }
  thrust::sort(quiet, arcs.data(), arcs.data() + edges);
  auto out_offsets = make_buffer<std::uint64_t>(backend, n + 1);
  const auto row_starts = thrust::make_transform_iterator(first, row_start{});
  thrust::lower_bound(quiet, arcs.data(), arcs.data() + edges, row_starts, row_starts + n + 1, out_offsets.data());
  auto out_columns = make_buffer<vertex_id>(backend, edges);
  thrust::transform(quiet, arcs.data(), arcs.data() + edges, out_columns.data(), low_word{});
  result.stats.oriented_max_degree = thrust::transform_reduce(exec, first, first + n, row_length{out_offsets.data()},
                                                              std::uint64_t{0}, thrust::maximum<std::uint64_t>{});

  const std::uint64_t fixed_bytes = (n + 1) * 8 + edges * 4 + n * 4;
  if (result.stats.oriented_max_degree > estimate_above_oriented_degree) {
    expect_estimated_rounds_fit(backend, out_offsets, out_columns, fixed_bytes, limit);
  }

  std::vector<buffer<vertex_id>> pieces;  // the returned cliques of each size
  std::uint64_t piece_bytes = 0;
  result.size_histogram = {0, isolated};
  if (!options.count_only && options.min_size <= 1 && isolated != 0) {
    auto singles = make_buffer<vertex_id>(backend, isolated);
    thrust::copy(quiet, vertex_of_rank.data(), vertex_of_rank.data() + isolated, singles.data());
    piece_bytes += isolated * sizeof(vertex_id);
    pieces.push_back(std::move(singles));
  }

  // The 2-cliques.
  auto level = make_buffer<vertex_id>(backend, 2 * edges);
  auto bucket_end = make_buffer<std::uint64_t>(backend, edges);
  thrust::for_each(quiet, first, first + edges,
                   edge_clique{arcs.data(), out_offsets.data(), level.data(), bucket_end.data()});
  arcs = buffer<std::uint64_t>();
  result.stats.all_cliques = n + edges;
  result.stats.largest_round = std::max(n, edges);
  result.stats.rounds = edges != 0 ? 2 : 1;

  std::uint64_t count = edges;
  for (std::uint32_t k = 2; count != 0; ++k) {
    const clique_round round{level.data(), k, bucket_end.data(), out_offsets.data(), out_columns.data()};
    auto not_maximal = make_buffer<std::uint8_t>(backend, count);
    thrust::fill(quiet, not_maximal.data(), not_maximal.data() + count, std::uint8_t{0});
    auto offsets = make_buffer<std::uint64_t>(backend, count + 1);
    thrust::for_each(quiet, first, first + count, count_extensions{round, offsets.data()});
    thrust::fill(quiet, offsets.data() + count, offsets.data() + count + 1, std::uint64_t{0});
    thrust::exclusive_scan(quiet, offsets.data(), offsets.data() + count + 1, offsets.data());
    const std::uint64_t next_count = read_back(backend, offsets.data() + count);

    // What the next round holds beside this one; checked before it is taken.
    // This round: cliques, buckets, flags, offsets, and at most as many returned rows and their indices.
    const std::uint64_t held =
        fixed_bytes + piece_bytes +
        static_cast<std::uint64_t>(round_bytes(static_cast<double>(count), static_cast<double>(next_count), k));
    result.stats.peak_bytes = std::max(result.stats.peak_bytes, held);
    if (held > limit) {
      throw out_of_memory("dpp::maximal_cliques: the graph has " + std::to_string(next_count) + " cliques of " +
                          std::to_string(k + 1) + " vertices (from " + std::to_string(count) + " of " +
                          std::to_string(k) + "); enumerating them needs " + mebibytes(held) +
                          " at once, over the limit of " + mebibytes(limit) +
                          ". The method enumerates every clique, not only the maximal ones (docs/dpp.md)");
    }

    auto next = make_buffer<vertex_id>(backend, next_count * (k + 1));
    auto next_bucket_end = make_buffer<std::uint64_t>(backend, next_count);
    if (next_count != 0) {
      thrust::for_each(
          quiet, first, first + count,
          write_extensions{round, offsets.data(), next.data(), next_bucket_end.data(), not_maximal.data()});
      thrust::for_each(quiet, first, first + next_count,
                       mark_subsets{level.data(), count, k, next.data(), not_maximal.data()});
    }
    offsets = buffer<std::uint64_t>();

    const auto maximal =
        static_cast<std::uint64_t>(thrust::count_if(exec, not_maximal.data(), not_maximal.data() + count, is_clear{}));
    result.size_histogram.push_back(maximal);
    if (!options.count_only && k >= options.min_size && maximal != 0) {
      auto chosen = make_buffer<std::uint64_t>(backend, maximal);
      thrust::copy_if(quiet, first, first + count, not_maximal.data(), chosen.data(), is_clear{});
      auto rows = make_buffer<vertex_id>(backend, maximal * k);
      thrust::for_each(quiet, first, first + maximal,
                       emit_clique{level.data(), k, chosen.data(), vertex_of_rank.data(), rows.data()});
      piece_bytes += rows.size_bytes();
      pieces.push_back(std::move(rows));
    }

    result.stats.all_cliques += next_count;
    result.stats.largest_round = std::max(result.stats.largest_round, next_count);
    if (next_count != 0) { result.stats.rounds = k + 1; }
    level = std::move(next);
    bucket_end = std::move(next_bucket_end);
    count = next_count;
  }

  std::uint64_t total = 0;
  for (const auto& piece : pieces) { total += piece.size(); }
  result.vertices = make_buffer<vertex_id>(backend, total);
  std::uint64_t at = 0;
  for (const auto& piece : pieces) {
    thrust::copy(quiet, piece.data(), piece.data() + piece.size(), result.vertices.data() + at);
    at += piece.size();
  }
  if constexpr (requires { backend.stream; }) { warpdex::detail::synchronize(backend.stream); }
  return result;
}

}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {

template <class Backend>
clique_set maximal_cliques(const Backend& backend, const clique_graph_view& graph, const clique_options& options)
{
  WARPDEX_EXPECTS(options.min_size >= 1, "dpp::maximal_cliques: min_size must be at least 1");
  WARPDEX_EXPECTS(
      graph.row_offsets.size() == graph.vertex_count + 1 || (graph.vertex_count == 0 && graph.row_offsets.empty()),
      "dpp::maximal_cliques: " + std::to_string(graph.row_offsets.size()) + " row offsets for " +
          std::to_string(graph.vertex_count) + " vertices (need one more than the vertices)");
  WARPDEX_EXPECTS(graph.vertex_count < (std::uint64_t{1} << 32) - 1,
                  "dpp::maximal_cliques: more than 2^32 - 2 vertices");
  return detail::reporting_allocation_failure(
      "maximal_cliques", [&] { return detail::enumerate_maximal_cliques(backend, graph, options); });
}

}  // namespace warpdex::dpp

#define WARPDEX_INSTANTIATE_MAXIMAL_CLIQUES(Backend) \
  template clique_set maximal_cliques<Backend>(const Backend&, const clique_graph_view&, const clique_options&);
