// The host backend's parallel delta-stepping (sssp_async.hpp): plain OpenMP over the CSR arrays, the
// baseline of all cores that the cuda backend's asynchronous delta-stepping is measured against.
//
// Bucket i holds the entries (v, d) with floor(d / delta) = i. Each thread keeps its own buckets: a ring
// of `ring` of them from the current bucket on, and a far list beyond. A pass takes every thread's
// entries of the current bucket (laid end to end by a prefix sum of their counts), relaxes them in
// parallel with a dynamic schedule, and each improvement (an atomic minimum) appends (target, new
// distance) to the improving thread's bucket of that distance; passes repeat until the current bucket
// is empty everywhere, then the next nonempty bucket becomes current (the far lists are re-bucketed when
// the ring is exhausted). An entry whose vertex has a smaller distance by the time it is taken is stale
// and skipped: a vertex is relaxed once per distance it had when taken.

#include "sssp_async.hpp"
#include "sssp_atomics.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::graph::detail {
namespace {

constexpr std::uint64_t ring = 64;
constexpr std::uint64_t no_bucket = std::numeric_limits<std::uint64_t>::max();

template <class Distance>
std::uint64_t bucket_index(Distance distance, Distance delta)
{
  if constexpr (std::is_integral_v<Distance>) {
    return distance / delta;
  } else {
    const double steps = std::floor(static_cast<double>(distance) / static_cast<double>(delta));
    return steps < 0x1p63 ? static_cast<std::uint64_t>(steps) : std::uint64_t{1} << 63;
  }
}

template <class Distance>
struct thread_buckets {
  std::vector<std::vector<std::pair<vertex_id, Distance>>> near{ring};
  std::vector<std::pair<vertex_id, Distance>> far;
  std::uint64_t relaxed = 0;
  std::uint64_t appended = 0;
  char padding[64];  // threads' counters on their own cache lines
};

}  // namespace

template <class Weight>
void run_parallel_delta_stepping(const device_rounds_input<Weight>& input, vertex_id source,
                                 sssp_statistics& statistics)
{
  using distance_type = distance_t<Weight>;
  const std::uint64_t* const offsets = input.row_offsets;
  const vertex_id* const columns = input.columns;
  const Weight* const weights = input.weights;
  distance_type* const distances = input.distances;
  const distance_type delta = input.delta;
  const int threads = std::max(1, omp_get_max_threads());
  std::vector<thread_buckets<distance_type>> buckets(static_cast<std::size_t>(threads));
  buckets[0].near[0].emplace_back(source, distance_type{0});
  std::vector<std::uint64_t> starts(static_cast<std::size_t>(threads) + 1, 0);
  std::vector<const std::pair<vertex_id, distance_type>*> tables(static_cast<std::size_t>(threads));
  std::vector<std::uint64_t> candidates(static_cast<std::size_t>(threads));
  std::uint64_t next_bucket = no_bucket;
  std::uint64_t passes = 0;

#pragma omp parallel num_threads(threads)
  {
    const auto me = static_cast<std::size_t>(omp_get_thread_num());
    auto& mine = buckets[me];
    std::uint64_t current = 0;  // the current bucket (every thread keeps the same)
    const auto append = [&](vertex_id v, distance_type d) {
      const std::uint64_t b = std::max(bucket_index(d, delta), current);
      if (b - current < ring) {
        mine.near[b % ring].emplace_back(v, d);
      } else {
        mine.far.emplace_back(v, d);
      }
      ++mine.appended;
    };
    while (true) {
      // Lay the current bucket's entries of every thread end to end.
      starts[me + 1] = mine.near[current % ring].size();
#pragma omp barrier
#pragma omp single
      {
        for (int t = 0; t < threads; ++t) { starts[t + 1] += starts[t]; }
        if (starts[threads] != 0) { ++passes; }
      }
      const std::uint64_t total = starts[threads];
      if (total == 0) {
        // The next nonempty bucket: the smallest over the threads' rings, else over their far lists (each
        // thread finds its own, one thread takes the smallest).
        std::uint64_t near_next = no_bucket;
        for (std::uint64_t step = 1; step < ring && near_next == no_bucket; ++step) {
          if (!mine.near[(current + step) % ring].empty()) { near_next = current + step; }
        }
        candidates[me] = near_next;
#pragma omp barrier
#pragma omp single
        {
          next_bucket = no_bucket;
          for (const std::uint64_t candidate : candidates) { next_bucket = std::min(next_bucket, candidate); }
        }  // implicit barrier
        const bool from_far = next_bucket == no_bucket;
        if (from_far) {
          std::uint64_t far_next = no_bucket;
          for (const auto& [v, d] : mine.far) {
            if (relaxed_load(&distances[v]) == d) { far_next = std::min(far_next, bucket_index(d, delta)); }
          }
          candidates[me] = far_next;
#pragma omp barrier
#pragma omp single
          {
            for (const std::uint64_t candidate : candidates) { next_bucket = std::min(next_bucket, candidate); }
          }  // implicit barrier
        }
        if (next_bucket == no_bucket) { break; }
        current = next_bucket;
        if (from_far) {
          // The rings were empty everywhere: re-bucket this thread's far list from the new current bucket,
          // dropping stale entries.
          std::vector<std::pair<vertex_id, distance_type>> far;
          far.swap(mine.far);
          for (const auto& [v, d] : far) {
            if (relaxed_load(&distances[v]) == d) {
              append(v, d);
              --mine.appended;  // moved, not appended
            }
          }
        }
#pragma omp barrier
        continue;
      }
      // Take the entries (each thread's own bucket swapped out, read by every thread through a table).
      std::vector<std::pair<vertex_id, distance_type>> taken;
      taken.swap(mine.near[current % ring]);
      tables[me] = taken.data();
#pragma omp barrier
#pragma omp for schedule(dynamic, 64)
      for (std::int64_t signed_i = 0; signed_i < static_cast<std::int64_t>(total); ++signed_i) {
        const auto i = static_cast<std::uint64_t>(signed_i);
        const std::size_t owner =
            static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), i) - starts.begin()) - 1;
        const auto [u, d] = tables[owner][i - starts[owner]];
        if (relaxed_load(&distances[u]) != d) { continue; }  // stale: u was improved since
        const std::uint64_t end = offsets[u + 1];
        mine.relaxed += end - offsets[u];
        for (std::uint64_t arc = offsets[u]; arc < end; ++arc) {
          const distance_type candidate = d + static_cast<distance_type>(weights != nullptr ? weights[arc] : Weight(1));
          const vertex_id v = columns[arc];
          if (candidate < relaxed_load(&distances[v]) && candidate < atomic_min_value(&distances[v], candidate)) {
            append(v, candidate);
          }
        }
      }  // implicit barrier: the table's entries are not read any more
    }
  }
  statistics.rounds += passes;
  for (const auto& b : buckets) {
    statistics.relaxed_arcs += b.relaxed;
    statistics.bucketed_vertices += b.appended;
  }
}

template void run_parallel_delta_stepping<std::int32_t>(const device_rounds_input<std::int32_t>&, vertex_id,
                                                        sssp_statistics&);
template void run_parallel_delta_stepping<float>(const device_rounds_input<float>&, vertex_id, sssp_statistics&);

}  // namespace warpdex::graph::detail
