#pragma once
// SSSP written once against Thrust for both backends (sssp.hpp). sssp_cuda.cu and sssp_host.cpp include
// the multisplit definitions of their backend first, then this, and instantiate.
//
// All three algorithms share one relaxation round over a frontier of vertices: the frontier's arcs are
// laid out end to end (an exclusive scan of the out-degrees), each arc finds its vertex by a search in
// that scan (load balanced: one thread per arc, whatever the degrees), relaxes its target with an atomic
// minimum, and reports the target when it improved it and the target was in no queue. A per-vertex
// `queued` flag keeps every vertex at most once in all queues together, so the queues hold at most n
// vertices; a queued vertex whose distance drops stays where it is and is bucketed (delta-stepping) or
// split (near-far) by its distance at that time. Correctness does not depend on the bucketing: a vertex
// is relaxed again after every decrease of its distance, so every algorithm ends at the same fixpoint.

#include <warpdex/core/error.hpp>
#include <warpdex/graph/sssp.hpp>
#include <warpdex/split/bucket_identifiers.hpp>
#include <warpdex/split/multisplit.hpp>

#include <warpdex/core/detail/thrust_backend.hpp>
#include "sssp_async.hpp"
#include "sssp_atomics.hpp"
#include "sssp_rounds.hpp"

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace warpdex::graph::detail {

using warpdex::detail::policy;
using warpdex::detail::policy_nosync;
using warpdex::detail::read_back;

/// The graph as the round's functors read it (backend memory).
template <class Weight>
struct graph_view {
  const std::uint64_t* row_offsets;
  const vertex_id* columns;
  const Weight* weights;  ///< nullptr: every arc weighs 1

  WARPDEX_HOST_DEVICE Weight weight(std::uint64_t arc) const { return weights != nullptr ? weights[arc] : Weight(1); }
};

template <class Distance, class Weight>
WARPDEX_HOST_DEVICE Distance extend(Distance distance, Weight weight)
{
  return distance + static_cast<Distance>(weight);
}

struct out_degree {
  const std::uint64_t* row_offsets;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(vertex_id v) const { return row_offsets[v + 1] - row_offsets[v]; }
};

/// An arc of the frontier: from `source` (a frontier vertex) to `target`, at index `arc` of the CSR.
struct located_arc {
  vertex_id source;
  std::uint64_t arc;
  vertex_id target;
};

/// The arc of a frontier slot: slot e belongs to the last frontier item whose start is <= e.
struct frontier_arc {
  const vertex_id* frontier;
  const std::uint64_t* starts;
  const std::uint64_t* row_offsets;
  const vertex_id* columns;
  std::uint32_t count;

  WARPDEX_HOST_DEVICE located_arc operator()(std::uint64_t slot) const
  {
    std::uint32_t low = 0;
    std::uint32_t high = count;  // invariant: starts[low] <= slot < starts[high] (starts[count] = the total)
    while (high - low > 1) {
      const std::uint32_t middle = low + (high - low) / 2;
      if (starts[middle] <= slot) {
        low = middle;
      } else {
        high = middle;
      }
    }
    const vertex_id u = frontier[low];
    const std::uint64_t arc = row_offsets[u] + (slot - starts[low]);
    return {u, arc, columns[arc]};
  }
};

/// Relaxes the arc of one frontier slot; writes its target to out when it improved it and the target was
/// in no queue, else no_vertex.
template <class Weight, class Distance>
struct relax_slot {
  frontier_arc arcs;
  graph_view<Weight> graph;
  Distance* distances;
  std::uint32_t* queued;
  vertex_id* out;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t slot) const
  {
    const located_arc a = arcs(slot);
    const Distance candidate = extend(relaxed_load(&distances[a.source]), graph.weight(a.arc));
    const bool improved = candidate < atomic_min_value(&distances[a.target], candidate);
    out[slot] = improved && atomic_exchange_flag(&queued[a.target], 1) == 0 ? a.target : no_vertex;
  }
};

/// One step of the predecessor BFS over tight arcs: a target not in an earlier level joins the next one,
/// with the smallest tight predecessor of this level.
template <class Weight, class Distance>
struct tight_slot {
  frontier_arc arcs;
  graph_view<Weight> graph;
  const Distance* distances;
  std::uint32_t* levels;
  vertex_id* predecessors;
  std::uint32_t* queued;
  std::uint32_t level;  ///< of the frontier
  vertex_id* out;

  WARPDEX_HOST_DEVICE void operator()(std::uint64_t slot) const
  {
    const located_arc a = arcs(slot);
    out[slot] = no_vertex;
    if (!(extend(distances[a.source], graph.weight(a.arc)) == distances[a.target])) { return; }
    // A level at or below this one: the target is in an earlier level (or this one's frontier).
    if (atomic_min_value(&levels[a.target], level + 1) <= level) { return; }
    atomic_min_value(&predecessors[a.target], a.source);
    if (atomic_exchange_flag(&queued[a.target], 1) == 0) { out[slot] = a.target; }
  }
};

struct is_vertex {
  WARPDEX_HOST_DEVICE bool operator()(vertex_id v) const { return v != no_vertex; }
};

struct clear_flag {
  std::uint32_t* flags;
  WARPDEX_HOST_DEVICE void operator()(vertex_id v) const { flags[v] = 0; }
};

/// Delta-stepping's bucket of a vertex: (distance - low) / delta, the last bucket collecting the rest.
template <class Distance>
struct distance_bucket {
  const Distance* distances;
  Distance low;
  Distance delta;
  std::uint32_t last;  ///< bucket_count - 1

  WARPDEX_HOST_DEVICE std::uint32_t operator()(vertex_id v) const
  {
    const Distance d = distances[v];
    if (!(d > low)) { return 0; }
    const Distance steps = (d - low) / delta;
    return steps < static_cast<Distance>(last) ? static_cast<std::uint32_t>(steps) : last;
  }
};

/// Near-far's split: whether a vertex lies below the threshold.
template <class Distance>
struct below_threshold {
  const Distance* distances;
  Distance threshold;
  WARPDEX_HOST_DEVICE bool operator()(vertex_id v) const { return distances[v] < threshold; }
};

template <class Distance>
struct distance_of_vertex {
  const Distance* distances;
  WARPDEX_HOST_DEVICE Distance operator()(vertex_id v) const { return distances[v]; }
};

template <class Weight>
struct is_bad_weight {
  WARPDEX_HOST_DEVICE bool operator()(Weight weight) const { return !(weight >= Weight(0)); }
};

template <class Distance>
struct is_reached {
  Distance infinity;
  WARPDEX_HOST_DEVICE bool operator()(Distance d) const { return d != infinity; }
};

template <class Weight>
struct weight_as_double {
  WARPDEX_HOST_DEVICE double operator()(Weight weight) const { return static_cast<double>(weight); }
};

/// Whether `automatic` runs the asynchronous kernel on the cuda backend: a mean out-degree below 6 and at
/// least 2^17 arcs. On an H200 (docs/graph.md) the kernel ran 2.1-4.8x the bucketed rounds on grids and
/// random geometric graphs (degree 4-5) of 2^15-2^24 vertices, and 0.68-0.85x on R-MAT graphs of degree 16 at
/// 2^22-2^24 vertices; graphs under 2^17 arcs were not measured and keep the bucketed rounds.
constexpr bool async_suits(std::uint64_t vertices, std::uint64_t arcs)
{
  return arcs >= (std::uint64_t{1} << 17) && arcs < road_like_degree * vertices;
}

/// Everything one sssp call works with.
template <class Weight, class Backend>
class sssp_run {
 public:
  using distance_type = distance_t<Weight>;

  sssp_run(const csr_graph<Weight, Backend>& graph, const sssp_options& options)
      : graph_(graph),
        backend_(graph.backend()),
        options_(options),
        view_{graph.row_offsets().data(), graph.columns().data(), graph.weighted() ? graph.weights().data() : nullptr},
        n_(graph.vertex_count()),
        distances_(make_buffer<distance_type>(backend_, n_)),
        queued_(make_buffer<std::uint32_t>(backend_, n_))
  {
  }

  sssp_result<Weight, Backend> run(vertex_id source)
  {
    const auto started = std::chrono::steady_clock::now();
    // Work that returns nothing stays queued on the stream: a round is many short steps, and a
    // synchronization after each cost more than the steps on large-diameter graphs.
    const auto exec = policy_nosync(backend_);
    // automatic: the host's OpenMP delta-stepping ran 6-10x the Thrust rounds' on the host (docs/graph.md);
    // on cuda the asynchronous kernel on road-like graphs (async_suits), the bucketed rounds otherwise.
    statistics_.algorithm = options_.algorithm != sssp_algorithm::automatic ? options_.algorithm
                            : std::is_same_v<Backend, host> || async_suits(n_, graph_.edge_count())
                                ? sssp_algorithm::async_delta_stepping
                                : sssp_algorithm::delta_stepping;
    thrust::fill(exec, distances_.data(), distances_.data() + n_, unreachable<Weight>);
    thrust::fill(exec, queued_.data(), queued_.data() + n_, 0U);
    // The source is at distance 0 and queued.
    thrust::fill(exec, distances_.data() + source, distances_.data() + source + 1, distance_type{0});
    thrust::fill(exec, queued_.data() + source, queued_.data() + source + 1, 1U);

    switch (statistics_.algorithm) {
      case sssp_algorithm::bellman_ford:
        bellman_ford(source);
        break;
      case sssp_algorithm::near_far:
        near_far(source);
        break;
      case sssp_algorithm::async_delta_stepping:
        async_delta_stepping(source);
        break;
      default:
        delta_stepping(source);
        break;
    }
    sssp_result<Weight, Backend> result;
    statistics_.reached = static_cast<std::uint64_t>(thrust::count_if(exec, distances_.data(), distances_.data() + n_,
                                                                      is_reached<distance_type>{unreachable<Weight>}));
    if (options_.predecessors) { result.predecessors = predecessor_tree(source); }
    backend_.synchronize();
    statistics_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    result.distances = std::move(distances_);
    result.statistics = statistics_;
    return result;
  }

 private:
  /// Whether the rounds left go to the cuda backend's kernel (sssp_rounds.hpp) now: after
  /// options.host_rounds rounds from the host, when the device can run it.
  bool hand_over_now()
  {
#if WARPDEX_HAS_CUDA
    if constexpr (std::is_same_v<Backend, cuda>) {
      if (statistics_.rounds < options_.host_rounds) { return false; }
      if (!device_possible_.has_value()) { device_possible_ = device_rounds_possible(device_input(nullptr, 0)); }
      return *device_possible_;
    }
#endif
    return false;
  }

  /// Runs the rounds left in the kernel, from the pending vertices `pending` (all queued).
  void hand_over([[maybe_unused]] const vertex_id* pending, [[maybe_unused]] std::uint64_t count)
  {
#if WARPDEX_HAS_CUDA
    if constexpr (std::is_same_v<Backend, cuda>) { run_device_rounds(backend_, device_input(pending, count), statistics_); }
#endif
  }

#if WARPDEX_HAS_CUDA
  device_rounds_input<Weight> device_input(const vertex_id* pending, std::uint64_t count)
  {
    return device_input_of(pending, count);
  }
#endif

  device_rounds_input<Weight> device_input_of(const vertex_id* pending, std::uint64_t count)
  {
    device_rounds_input<Weight> input;
    input.row_offsets = view_.row_offsets;
    input.columns = view_.columns;
    input.weights = view_.weights;
    input.vertex_count = n_;
    input.arc_count = graph_.edge_count();
    input.distances = distances_.data();
    input.queued = queued_.data();
    input.pending = pending;
    input.pending_count = count;
    input.algorithm = statistics_.algorithm;
    input.delta = static_cast<distance_type>(statistics_.delta);
    input.bucket_count = options_.bucket_count;
    return input;
  }

  /// Relaxes the arcs of `frontier` (count vertices); the vertices it queued go to `next` (room for n),
  /// returns their number.
  std::uint64_t relax(const vertex_id* frontier, std::uint64_t count, vertex_id* next)
  {
    if (count == 0) { return 0; }
    thrust::for_each(policy_nosync(backend_), frontier, frontier + count, clear_flag{queued_.data()});
    return expand(frontier, count, next, [&](const frontier_arc& arcs, vertex_id* out) {
      return relax_slot<Weight, distance_type>{arcs, view_, distances_.data(), queued_.data(), out};
    });
  }

  /// Lays the arcs of the frontier end to end, runs the functor `make_slot(arcs, out)` makes over every
  /// slot, and compacts what it wrote to out into next. Returns the compacted count.
  template <class MakeSlot>
  std::uint64_t expand(const vertex_id* frontier, std::uint64_t count, vertex_id* next, MakeSlot&& make_slot)
  {
    const auto exec = policy_nosync(backend_);
    // starts[i] = the first slot of frontier[i]; starts[count] = the slots in all.
    auto starts = make_buffer<std::uint64_t>(backend_, count + 1);
    const auto degrees = thrust::make_transform_iterator(frontier, out_degree{view_.row_offsets});
    thrust::fill(exec, starts.data(), starts.data() + 1, std::uint64_t{0});
    thrust::inclusive_scan(exec, degrees, degrees + count, starts.data() + 1);
    const std::uint64_t slots = read_back(backend_, starts.data() + count);
    statistics_.relaxed_arcs += slots;
    ++statistics_.rounds;
    if (slots == 0) { return 0; }
    auto out = make_buffer<vertex_id>(backend_, slots);
    const frontier_arc arcs{frontier, starts.data(), view_.row_offsets, view_.columns,
                            static_cast<std::uint32_t>(count)};
    thrust::for_each(exec, thrust::counting_iterator<std::uint64_t>(0), thrust::counting_iterator<std::uint64_t>(slots),
                     make_slot(arcs, out.data()));
    return static_cast<std::uint64_t>(
        thrust::copy_if(policy(backend_), out.data(), out.data() + slots, next, is_vertex{}) - next);
  }

  void bellman_ford(vertex_id source)
  {
    auto frontier = make_buffer<vertex_id>(backend_, n_);
    auto next = make_buffer<vertex_id>(backend_, n_);
    frontier.copy_from(std::span<const vertex_id>(&source, 1));
    std::uint64_t count = 1;
    while (count > 0) {
      if (hand_over_now()) { return hand_over(frontier.data(), count); }
      count = relax(frontier.data(), count, next.data());
      std::swap(frontier, next);
    }
  }

  /// The bucket width: the option, or the rule of sssp.hpp for the backend and algorithm.
  distance_type choose_delta()
  {
    double delta = options_.delta;
    if (delta == 0) {
      const std::uint64_t arcs = graph_.edge_count();
      if (arcs == 0) {
        delta = 1;
      } else {
        double mean_weight = 1;
        if (graph_.weighted()) {
          const auto exec = policy(backend_);
          mean_weight = thrust::transform_reduce(exec, view_.weights, view_.weights + arcs, weight_as_double<Weight>{},
                                                 0.0, thrust::plus<double>{}) /
                        static_cast<double>(arcs);
        }
        const double d = static_cast<double>(arcs) / static_cast<double>(n_);
        if (statistics_.algorithm == sssp_algorithm::async_delta_stepping) {
          // Wide buckets: parallel work for every core (host) or the first width the kernel adjusts.
          delta = 32 * mean_weight / d;
        } else if constexpr (std::is_same_v<Backend, host>) {
          delta = 32 * mean_weight / (d * d);
        } else if (statistics_.algorithm == sssp_algorithm::near_far) {
          delta = 32 * mean_weight / d;  // Davidson et al.'s rule: a warp's width of mean arcs per bucket
        } else {
          delta = 1024 * mean_weight / (d * d);
        }
      }
      // A sparse graph (d near 0) gives a width no distance type holds; one as large as any weight does
      // the same job.
      delta = std::min(delta, static_cast<double>(std::numeric_limits<Weight>::max()));
    }
    if constexpr (std::is_integral_v<Weight>) {
      delta = std::max(1.0, std::round(delta));
    } else if (!(delta > 0)) {
      delta = 1;  // all weights 0: any width works
    }
    statistics_.delta = delta;
    return static_cast<distance_type>(delta);
  }

  /// The smallest distance above `value` (`value` itself when adding delta rounds back to it).
  static distance_type beyond(distance_type value, distance_type delta)
  {
    const distance_type sum = value + delta;
    if constexpr (std::is_floating_point_v<distance_type>) {
      if (!(sum > value)) { return std::nextafter(value, std::numeric_limits<distance_type>::infinity()); }
    }
    return sum;
  }

  /// The smallest distance of the queued vertices.
  distance_type smallest_distance(const vertex_id* vertices, std::uint64_t count)
  {
    return thrust::transform_reduce(policy(backend_), vertices, vertices + count,
                                    distance_of_vertex<distance_type>{distances_.data()}, unreachable<Weight>,
                                    thrust::minimum<distance_type>{});
  }

  void delta_stepping(vertex_id source)
  {
    const distance_type delta = choose_delta();
    const std::uint32_t bucket_count = options_.bucket_count;
    // queue: every queued vertex; split: the queue after the multisplit, bucket by bucket.
    auto queue = make_buffer<vertex_id>(backend_, n_);
    auto split = make_buffer<vertex_id>(backend_, n_);
    queue.copy_from(std::span<const vertex_id>(&source, 1));
    std::uint64_t count = 1;
    distance_type low{0};  // the lower end of bucket 0
    while (count > 0) {
      if (hand_over_now()) { return hand_over(queue.data(), count); }
      const auto bucketing_started = std::chrono::steady_clock::now();
      const auto identifier = make_custom_buckets(
          distance_bucket<distance_type>{distances_.data(), low, delta, bucket_count - 1}, bucket_count);
      const auto offsets = multisplit<vertex_id>(backend_, std::span<const vertex_id>(queue.data(), count),
                                                 std::span<vertex_id>(split.data(), count), identifier);
      statistics_.bucketing_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - bucketing_started).count();
      statistics_.bucketed_vertices += count;
      std::uint32_t bucket = 0;
      while (bucket + 1 < bucket_count && offsets[bucket + 1] == offsets[bucket]) { ++bucket; }
      if (bucket + 1 == bucket_count) {
        // Only far vertices: bucket 0 starts at the nearest of them (which lands in it); split again.
        low = smallest_distance(split.data(), count);
        std::swap(queue, split);
        continue;
      }
      low += delta * static_cast<distance_type>(bucket);
      const std::uint64_t near_begin = offsets[bucket];
      const std::uint64_t near_end = offsets[bucket + 1];
      // The vertices the round queues go to the front of the new queue, the later buckets after them.
      const std::uint64_t added = relax(split.data() + near_begin, near_end - near_begin, queue.data());
      thrust::copy(policy_nosync(backend_), split.data() + near_end, split.data() + count, queue.data() + added);
      count = added + (count - near_end);
    }
  }

  void near_far(vertex_id source)
  {
    const distance_type delta = choose_delta();
    const auto exec = policy(backend_);
    auto near = make_buffer<vertex_id>(backend_, n_);
    auto added = make_buffer<vertex_id>(backend_, n_);
    auto far = make_buffer<vertex_id>(backend_, n_);
    auto far_rest = make_buffer<vertex_id>(backend_, n_);
    near.copy_from(std::span<const vertex_id>(&source, 1));
    std::uint64_t near_count = 1;
    std::uint64_t far_count = 0;
    distance_type threshold = delta;
    while (near_count > 0 || far_count > 0) {
      while (near_count > 0) {
        if (hand_over_now()) {
          // One list of every pending vertex (each is in one queue, so n entries hold them).
          thrust::copy(policy_nosync(backend_), far.data(), far.data() + far_count, near.data() + near_count);
          return hand_over(near.data(), near_count + far_count);
        }
        const std::uint64_t added_count = relax(near.data(), near_count, added.data());
        const auto bucketing_started = std::chrono::steady_clock::now();
        const auto ends =
            thrust::partition_copy(exec, added.data(), added.data() + added_count, near.data(), far.data() + far_count,
                                   below_threshold<distance_type>{distances_.data(), threshold});
        near_count = static_cast<std::uint64_t>(ends.first - near.data());
        far_count = static_cast<std::uint64_t>(ends.second - far.data());
        statistics_.bucketed_vertices += added_count;
        backend_.synchronize();
        statistics_.bucketing_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - bucketing_started).count();
      }
      if (far_count == 0) { break; }
      // The near queue ran dry: raise the threshold (straight past empty ranges) and split the far pile.
      const auto bucketing_started = std::chrono::steady_clock::now();
      const distance_type nearest = smallest_distance(far.data(), far_count);
      threshold = std::max(beyond(threshold, delta), beyond(nearest, delta));
      const auto ends = thrust::partition_copy(exec, far.data(), far.data() + far_count, near.data(), far_rest.data(),
                                               below_threshold<distance_type>{distances_.data(), threshold});
      near_count = static_cast<std::uint64_t>(ends.first - near.data());
      statistics_.bucketed_vertices += far_count;
      far_count = static_cast<std::uint64_t>(ends.second - far_rest.data());
      std::swap(far, far_rest);
      backend_.synchronize();
      statistics_.bucketing_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - bucketing_started).count();
    }
  }

  /// sssp_algorithm::async_delta_stepping (sssp_async.hpp): the host's OpenMP delta-stepping, the cuda
  /// backend's asynchronous kernel (its bucketed rounds when the device has no room for its queues).
  void async_delta_stepping(vertex_id source)
  {
    const distance_type delta = choose_delta();
    auto input = device_input_of(nullptr, 0);
    input.delta = delta;
    if constexpr (std::is_same_v<Backend, host>) {
      backend_.synchronize();
      run_parallel_delta_stepping<Weight>(input, source, statistics_);
    }
#if WARPDEX_HAS_CUDA
    if constexpr (std::is_same_v<Backend, cuda>) {
      if (async_rounds_possible(input)) { return run_async_delta_stepping(backend_, input, source, statistics_); }
      statistics_.algorithm = sssp_algorithm::delta_stepping;
      delta_stepping(source);
    }
#endif
  }

  /// BFS over the tight arcs from the source (see sssp.hpp for the tree it gives).
  buffer<vertex_id> predecessor_tree(vertex_id source)
  {
    const auto exec = policy_nosync(backend_);
    auto predecessors = make_buffer<vertex_id>(backend_, n_);
    auto levels = make_buffer<std::uint32_t>(backend_, n_);
    thrust::fill(exec, predecessors.data(), predecessors.data() + n_, no_vertex);
    thrust::fill(exec, levels.data(), levels.data() + n_, std::numeric_limits<std::uint32_t>::max());
    thrust::fill(exec, queued_.data(), queued_.data() + n_, 0U);
    thrust::fill(exec, predecessors.data() + source, predecessors.data() + source + 1, source);
    thrust::fill(exec, levels.data() + source, levels.data() + source + 1, 0U);
    thrust::fill(exec, queued_.data() + source, queued_.data() + source + 1, 1U);
    auto frontier = make_buffer<vertex_id>(backend_, n_);
    auto next = make_buffer<vertex_id>(backend_, n_);
    frontier.copy_from(std::span<const vertex_id>(&source, 1));
    const std::uint64_t rounds = statistics_.rounds;
    const std::uint64_t relaxed = statistics_.relaxed_arcs;
    std::uint64_t count = 1;
    for (std::uint32_t level = 0; count > 0; ++level) {
      count = expand(frontier.data(), count, next.data(), [&](const frontier_arc& arcs, vertex_id* out) {
        return tight_slot<Weight, distance_type>{
            arcs, view_, distances_.data(), levels.data(), predecessors.data(), queued_.data(), level, out};
      });
      std::swap(frontier, next);
    }
    statistics_.rounds = rounds;  // the tree's passes are not relaxation rounds
    statistics_.relaxed_arcs = relaxed;
    return predecessors;
  }

  const csr_graph<Weight, Backend>& graph_;
  Backend backend_;
  sssp_options options_;
  graph_view<Weight> view_;
  std::uint64_t n_;
  buffer<distance_type> distances_;
  buffer<std::uint32_t> queued_;
  sssp_statistics statistics_{};
  std::optional<bool> device_possible_;  ///< whether the kernel can run, once asked
};

template <class Weight, class Backend>
void validate(const csr_graph<Weight, Backend>& graph, vertex_id source, const sssp_options& options)
{
  WARPDEX_EXPECTS(graph.vertex_count() > 0, "sssp: the graph has no vertices");
  WARPDEX_EXPECTS(source < graph.vertex_count(), "sssp: source " + std::to_string(source) +
                                                     " is out of range: the graph has " +
                                                     std::to_string(graph.vertex_count()) + " vertices");
  WARPDEX_EXPECTS(options.delta >= 0 && std::isfinite(options.delta),
                  "sssp: delta must be >= 0 and finite (0 chooses it), got " + std::to_string(options.delta));
  // A wider bucket would not convert to a distance (integers: a zero width, a division by zero).
  constexpr double widest = static_cast<double>(std::numeric_limits<Weight>::max());
  if (options.delta > widest) {
    char text[160];
    std::snprintf(text, sizeof text, "sssp: delta %.6g is beyond the weights' range (at most %.10g)", options.delta,
                  widest);
    WARPDEX_FAIL(text);
  }
  WARPDEX_EXPECTS(options.bucket_count >= 2,
                  "sssp: bucket_count must be >= 2, got " + std::to_string(options.bucket_count));
  WARPDEX_EXPECTS(graph.vertex_count() < no_vertex, "sssp: too many vertices");
  if (graph.weighted() && graph.edge_count() > 0) {
    const Weight* weights = graph.weights().data();
    const Weight* end = weights + graph.edge_count();
    // One pass: Thrust's find_if on cuda reduces 2^20 weights at a time, each with a read back to the host
    // (about 250 of them on R-MAT 2^24's 263 M arcs). find_if only names the arc.
    if (thrust::count_if(policy(graph.backend()), weights, end, is_bad_weight<Weight>{}) != 0) {
      const Weight* bad = thrust::find_if(policy(graph.backend()), weights, end, is_bad_weight<Weight>{});
      const Weight value = read_back(graph.backend(), bad);
      WARPDEX_FAIL("sssp: arc " + std::to_string(bad - weights) + " has weight " + std::to_string(value) +
                   "; shortest paths need weights >= 0 (and not NaN)");
    }
  }
}

}  // namespace warpdex::graph::detail

namespace warpdex::graph {

template <class Weight, class Backend>
sssp_result<Weight, Backend> sssp(const csr_graph<Weight, Backend>& graph, vertex_id source,
                                  const sssp_options& options)
{
  detail::validate(graph, source, options);
  return detail::sssp_run<Weight, Backend>(graph, options).run(source);
}

}  // namespace warpdex::graph

#define WARPDEX_INSTANTIATE_SSSP(Backend, Weight)                                                           \
  template sssp_result<Weight, Backend> sssp<Weight, Backend>(const csr_graph<Weight, Backend>&, vertex_id, \
                                                              const sssp_options&);
