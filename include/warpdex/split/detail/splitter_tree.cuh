#pragma once
// Sorted splitters as a block searches them in shared memory: a complete binary tree in breadth-first
// (Eytzinger) order. Every key descends the same L levels with one load and one compare and no branch,
// so a thread's keys can descend together (identify_all), their loads of a level in flight at once:
// that is where the measured gain came from (docs/split.md), not the banks. A level's nodes are also
// consecutive words, where the sorted array's binary search reads a level's nodes 2^(L - d) words apart
// (up to 8-way bank conflicts at 255 splitters).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace warpdex::detail {

/// The node that pads a tree to 2^levels - 1 nodes: no key lies above it (the largest integer, +inf).
template <class T>
__host__ __device__ constexpr T splitter_tree_padding()
{
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::max();
  }
}

/// Levels of the tree over `count` splitters: the smallest L with 2^L - 1 >= count.
__host__ __device__ constexpr std::uint32_t splitter_tree_levels(std::uint32_t count)
{
  return static_cast<std::uint32_t>(std::bit_width(count));
}

/// Nodes of the tree over `count` splitters (what its shared array must hold).
__host__ __device__ constexpr std::uint32_t splitter_tree_nodes(std::uint32_t count)
{
  return (std::uint32_t{1} << splitter_tree_levels(count)) - 1;
}

/// The identifier of splitter_buckets (bucket = the number of splitters <= key) over a tree in shared
/// memory. Padding nodes compare <= key only for a key equal to the padding, which every real splitter
/// is <= too: the count is then clamped to the number of splitters. A NaN key compares false with every
/// node and lands in bucket 0, as with the sorted search.
template <class T>
struct splitter_tree {
  const T* nodes = nullptr;
  std::uint32_t levels = 0;
  std::uint32_t splitter_count = 0;

  [[nodiscard]] __host__ __device__ std::uint32_t bucket_count() const { return splitter_count + 1; }
  [[nodiscard]] __host__ __device__ std::uint32_t operator()(T key) const
  {
    std::uint32_t node = 0;  // children of node i: 2i + 1 (keys below it), 2i + 2 (keys at or above it)
    for (std::uint32_t level = 0; level < levels; ++level) { node = 2 * node + 1 + (nodes[node] <= key ? 1U : 0U); }
    return bucket_of_leaf(node);
  }
  /// The buckets of N keys, descending the tree level by level for all of them at once: N independent
  /// loads in flight per level and one loop for N keys (through identify_all in counting.cuh).
  /// Up to 64 bytes of keys at once (a counting loop's 16 samples), more in groups of 32 bytes: the single
  /// pass's 20 keys a thread ran 6% faster at m = 256 in groups of 8 (H100), where a counting loop's 16
  /// samples in groups of 8 ran 7% slower.
  template <int N>
  __host__ __device__ void identify_all(const T (&keys)[N], std::uint32_t (&buckets)[N]) const
  {
    constexpr int batch = N * sizeof(T) <= 64 ? N : static_cast<int>(32 / sizeof(T));
    std::uint32_t(&node)[N] = buckets;  // each key's node, then its bucket: no more registers
#pragma unroll
    for (int first = 0; first < N; first += batch) {
#pragma unroll
      for (int k = first; k < N && k < first + batch; ++k) { node[k] = 0; }
      for (std::uint32_t level = 0; level < levels; ++level) {
#pragma unroll
        for (int k = first; k < N && k < first + batch; ++k) {
          node[k] = 2 * node[k] + 1 + (nodes[node[k]] <= keys[k] ? 1U : 0U);
        }
      }
#pragma unroll
      for (int k = first; k < N && k < first + batch; ++k) { buckets[k] = bucket_of_leaf(node[k]); }
    }
  }

 private:
  [[nodiscard]] __host__ __device__ std::uint32_t bucket_of_leaf(std::uint32_t node) const
  {
    const std::uint32_t below = node - ((std::uint32_t{1} << levels) - 1);  // the leaf's in-order rank
    return below < splitter_count ? below : splitter_count;
  }
};

/// Builds the tree over sorted[0, count) into nodes[0, splitter_tree_nodes(count)). Call with the whole
/// block; the caller synchronizes before the first search. Node i of level d (the (i + 1 - 2^d)-th of its
/// level, j) holds sorted[(2j + 1) 2^(L - d - 1) - 1], its in-order position.
template <class T>
__device__ splitter_tree<T> build_splitter_tree(const T* sorted, std::uint32_t count, T* nodes)
{
  const std::uint32_t levels = splitter_tree_levels(count);
  const std::uint32_t node_count = splitter_tree_nodes(count);
  for (std::uint32_t i = threadIdx.x; i < node_count; i += blockDim.x) {
    const std::uint32_t depth = static_cast<std::uint32_t>(std::bit_width(i + 1)) - 1;
    const std::uint32_t in_level = i + 1 - (std::uint32_t{1} << depth);
    const std::uint32_t position = ((2 * in_level + 1) << (levels - depth - 1)) - 1;
    nodes[i] = position < count ? sorted[position] : splitter_tree_padding<T>();
  }
  return splitter_tree<T>{nodes, levels, count};
}

}  // namespace warpdex::detail
