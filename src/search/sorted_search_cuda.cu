// Sorted-array search on the cuda backend: per-thread binary search, the warp-cooperative B+-tree
// descent, and sorting the queries by their high key bits (CUB radix sort) before a binary search whose
// neighbouring threads then share cache lines.
#include "sorted_search_impl.hpp"

#include <warpdex/core/cuda_check.hpp>
#include <warpdex/search/warp_search.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

namespace warpdex::detail {
namespace {

constexpr int threads_per_block = 256;
constexpr int warps_per_block = threads_per_block / warp::size;
/// Measured on an H200 (q queries into n = 2^28 keys, ratio to thrust::lower_bound, random / sorted
/// batches): q = 2^10: binary 1.92 / 1.94, btree 0.46 / 0.47, sorted_queries 0.67 / 0.65; q = 2^16: binary
/// 1.33 / 1.46, btree 0.88 / 0.83, sorted_queries 0.57 / 0.47; q = 2^26: binary 1.00 / 0.86, btree
/// 1.12 / 0.10, sorted_queries 2.90 / 0.43. So batches below this size take binary without looking at them
/// (sorting costs more than it saves, and any order check costs more than the choice is worth)...
constexpr std::uint64_t sorted_queries_min_batch = std::uint64_t{1} << 20;
/// ... and so do arrays below this size, whose keys largely stay in L2 whatever the query order.
constexpr std::uint64_t sorted_queries_min_keys = std::uint64_t{1} << 20;
/// Larger batches are sorted first unless they are already in order (then binary: 0.86 against 0.43).
/// The order is sampled, not checked in full: at this many evenly spaced positions, each query must not
/// exceed its successor nor the query at the next sample. The cost is one small kernel and a 4-byte copy
/// whatever the batch size (thrust::is_sorted, checking all of a 2^26 batch in 2^20-query intervals with a
/// synchronization each, took 5.1 ms, against 2.1 ms for the search itself). A batch that passes is
/// sorted or nearly so, and binary suits both; the choice changes only the speed, never the results.
constexpr int order_samples = 256;
/// The sort groups queries whose keys share their high bits, aiming at groups that cover about this
/// many keys (2^12 x 4 bytes = 16 KiB: a few L1-resident lines per group).
constexpr int keys_per_query_group_log2 = 12;
/// The radix sort needs at least one digit pass to be worth its launch.
constexpr int min_sort_bits = 8;

unsigned grid_for(std::uint64_t threads)
{
  return static_cast<unsigned>(std::max<std::uint64_t>(1, (threads + threads_per_block - 1) / threads_per_block));
}

template <class Key>
__global__ void build_level_kernel(const Key* below, std::uint64_t below_size, Key* entries, std::uint64_t count)
{
  for (std::uint64_t node = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; node < count;
       node += std::uint64_t{gridDim.x} * blockDim.x) {
    entries[node] = below[std::min((node + 1) * btree_node_keys, below_size) - 1];
  }
}

/// One thread per query. With `positions`, the i-th query is number positions[i] in query order.
template <class Key>
__global__ void binary_search_kernel(static_btree_ref<Key> tree, query_kind kind, const Key* queries,
                                     const std::uint32_t* positions, std::uint64_t count, search_outputs out)
{
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const Key query = queries[i];
    const std::uint64_t index = positions == nullptr ? i : positions[i];
    answer_query(kind, tree, query, index, out, true, [&](auto bound) {
      return binary_search_bound<decltype(bound)::value>(tree.keys(), tree.size(), query);
    });
  }
}

/// One warp per group of 32 queries: the lanes load the group coalesced, then the warp searches for each
/// lane's query in turn (with `warp_search`, a warp-collective bound search) and that lane writes the result.
template <class Key, class WarpSearch>
__global__ void warp_search_kernel(static_btree_ref<Key> tree, query_kind kind, const Key* queries, std::uint64_t count,
                                   search_outputs out, WarpSearch warp_search)
{
  const unsigned lane = warp::lane_id();
  const std::uint64_t warp_count = std::uint64_t{gridDim.x} * warps_per_block;
  for (std::uint64_t group = warp::global_warp_id(); group * warp::size < count; group += warp_count) {
    const std::uint64_t first = group * warp::size;
    const std::uint64_t in_group = std::min<std::uint64_t>(warp::size, count - first);
    const Key own_query = lane < in_group ? queries[first + lane] : Key{};
    for (unsigned source = 0; source < in_group; ++source) {
      const Key query = warp::shfl(own_query, static_cast<int>(source));
      answer_query(kind, tree, query, first + source, out, lane == source,
                   [&](auto bound) { return warp_search(bound, tree, query); });
    }
  }
}

/// Descends the B+-tree (one coalesced node per level).
struct btree_warp_search {
  template <class Bound, class Key>
  __device__ std::uint64_t operator()(Bound, const static_btree_ref<Key>& tree, Key query) const
  {
    return warp_btree_search_bound<Bound::value>(tree, query);
  }
};

/// 33-ary search of the key array itself (no index levels).
struct kary_warp_search {
  template <class Bound, class Key>
  __device__ std::uint64_t operator()(Bound, const static_btree_ref<Key>& tree, Key query) const
  {
    return warp_kary_search_bound<Bound::value>(tree.keys(), tree.size(), query);
  }
};

__global__ void iota_kernel(std::uint32_t* values, std::uint64_t count)
{
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    values[i] = static_cast<std::uint32_t>(i);
  }
}

/// One block of `order_samples` threads: *in_order = 0 unless every sampled query is not greater than
/// its successor and than the next sample (count >= 2).
template <class Key>
__global__ void sample_order_kernel(const Key* queries, std::uint64_t count, std::uint32_t* in_order)
{
  const std::uint64_t sample = threadIdx.x;
  const std::uint64_t position = sample * (count - 2) / (order_samples - 1);
  const std::uint64_t next_sample = (sample + 1) * (count - 2) / (order_samples - 1);
  bool ordered = !(queries[position + 1] < queries[position]);
  if (sample + 1 < order_samples) { ordered = ordered && !(queries[next_sample] < queries[position]); }
  const bool all_ordered = __syncthreads_and(ordered);
  if (threadIdx.x == 0) { *in_order = all_ordered ? 1 : 0; }
}

/// Whether `queries` (at least 2) look sorted at `order_samples` evenly spaced positions. Waits for the
/// stream.
template <class Key>
bool looks_sorted(const cuda& backend, std::span<const Key> queries)
{
  auto in_order = make_buffer<std::uint32_t>(backend, 1);
  sample_order_kernel<<<1, order_samples, 0, backend.stream>>>(queries.data(), queries.size(), in_order.data());
  WARPDEX_CHECK_LAUNCH("sample_order_kernel");
  std::uint32_t result = 0;
  WARPDEX_CUDA_TRY(cudaMemcpyAsync(&result, in_order.data(), sizeof(result), cudaMemcpyDeviceToHost, backend.stream));
  WARPDEX_CUDA_TRY(cudaStreamSynchronize(backend.stream));
  return result == 1;
}

/// The bit range [begin, end) of the keys that the query sort orders by: the highest bits that vary
/// among the keys, enough of them that each group of equal bits covers about 2^keys_per_query_group_log2
/// keys (when the keys are spread evenly).
template <class Key>
std::pair<int, int> query_sort_bits(const static_btree_ref<Key>& tree, stream_t stream)
{
  Key largest{};
  WARPDEX_CUDA_TRY(
      cudaMemcpyAsync(&largest, tree.keys() + tree.size() - 1, sizeof(Key), cudaMemcpyDeviceToHost, stream));
  WARPDEX_CUDA_TRY(cudaStreamSynchronize(stream));
  const int end_bit = std::bit_width(largest);
  const int key_count_log2 = std::bit_width(tree.size() - 1);
  const int wanted = std::max(min_sort_bits, key_count_log2 - keys_per_query_group_log2);
  return {std::max(0, end_bit - wanted), end_bit};
}

template <class Key>
void launch_binary(const cuda& backend, const static_btree_ref<Key>& tree, query_kind kind, const Key* queries,
                   const std::uint32_t* positions, std::uint64_t count, const search_outputs& out)
{
  binary_search_kernel<<<grid_for(count), threads_per_block, 0, backend.stream>>>(tree, kind, queries, positions, count,
                                                                                  out);
  WARPDEX_CHECK_LAUNCH("binary_search_kernel");
}

template <class Key>
void search_sorted_queries(const cuda& backend, const static_btree_ref<Key>& tree, query_kind kind,
                           std::span<const Key> queries, const search_outputs& out)
{
  const std::uint64_t count = queries.size();
  WARPDEX_EXPECTS(count <= std::numeric_limits<std::uint32_t>::max(),
                  "sorted_queries: batches of more than 2^32 - 1 queries are not supported; use btree or binary");
  const auto [begin_bit, end_bit] = query_sort_bits(tree, backend.stream);
  if (begin_bit == end_bit) {  // every key is 0: no bits to group the queries by
    launch_binary(backend, tree, kind, queries.data(), nullptr, count, out);
    return;
  }
  auto sorted_queries = make_buffer<Key>(backend, count);
  auto positions_in = make_buffer<std::uint32_t>(backend, count);
  auto positions = make_buffer<std::uint32_t>(backend, count);
  iota_kernel<<<grid_for(count), threads_per_block, 0, backend.stream>>>(positions_in.data(), count);
  WARPDEX_CHECK_LAUNCH("iota_kernel");
  std::size_t temp_bytes = 0;
  WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, queries.data(), sorted_queries.data(),
                                                   positions_in.data(), positions.data(), count, begin_bit, end_bit,
                                                   backend.stream));
  auto temp = make_buffer<std::uint8_t>(backend, temp_bytes);
  WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, queries.data(), sorted_queries.data(),
                                                   positions_in.data(), positions.data(), count, begin_bit, end_bit,
                                                   backend.stream));
  launch_binary(backend, tree, kind, sorted_queries.data(), positions.data(), count, out);
}

}  // namespace

template <>
struct search_backend<cuda> {
  template <class Key>
  static bool is_sorted(const cuda& backend, std::span<const Key> keys)
  {
    return thrust::is_sorted(thrust::cuda::par.on(backend.stream), keys.data(), keys.data() + keys.size());
  }

  template <class Key>
  static void build_levels(const cuda& backend, const static_btree_ref<Key>& tree)
  {
    for (int level = 1; level < tree.level_count; ++level) {
      build_level_kernel<<<grid_for(tree.sizes[level]), threads_per_block, 0, backend.stream>>>(
          tree.levels[level - 1], tree.sizes[level - 1], const_cast<Key*>(tree.levels[level]), tree.sizes[level]);
      WARPDEX_CHECK_LAUNCH("build_level_kernel");
    }
  }

  template <class Key>
  static search_algorithm choose(const cuda& backend, const static_btree_ref<Key>& tree, std::span<const Key> queries)
  {
    // btree measured best nowhere: binary or sorted_queries was faster at every size (see above).
    if (queries.size() < sorted_queries_min_batch || tree.size() < sorted_queries_min_keys ||
        queries.size() > std::numeric_limits<std::uint32_t>::max() || looks_sorted(backend, queries)) {
      return search_algorithm::binary;
    }
    return search_algorithm::sorted_queries;
  }

  template <class Key>
  static void run(const cuda& backend, const static_btree_ref<Key>& tree, query_kind kind, std::span<const Key> queries,
                  const search_outputs& out, search_algorithm algorithm)
  {
    const std::uint64_t count = queries.size();
    if (count == 0) { return; }
    switch (algorithm) {
      case search_algorithm::btree:
        warp_search_kernel<<<grid_for(count), threads_per_block, 0, backend.stream>>>(tree, kind, queries.data(), count,
                                                                                      out, btree_warp_search{});
        WARPDEX_CHECK_LAUNCH("warp_search_kernel (btree)");
        return;
      case search_algorithm::kary:
        warp_search_kernel<<<grid_for(count), threads_per_block, 0, backend.stream>>>(tree, kind, queries.data(), count,
                                                                                      out, kary_warp_search{});
        WARPDEX_CHECK_LAUNCH("warp_search_kernel (kary)");
        return;
      case search_algorithm::sorted_queries:
        if (tree.size() > 0) {
          search_sorted_queries(backend, tree, kind, queries, out);
          return;
        }
        break;  // nothing to sort for: every position is 0
      default:
        break;
    }
    launch_binary(backend, tree, kind, queries.data(), nullptr, count, out);
  }
};

}  // namespace warpdex::detail

namespace warpdex {
WARPDEX_INSTANTIATE_SORTED_SEARCH(cuda, std::uint32_t)
WARPDEX_INSTANTIATE_SORTED_SEARCH(cuda, std::uint64_t)
}  // namespace warpdex
