#pragma once
// The kernels of the cuda multisplit.
//
// Direct path (m <= 256), three passes over tiles of `tile_keys` keys:
// 1. count: each block counts its tile's bucket ids into a shared histogram (lanes of a warp with the
//    same bucket add once, found with __match_any_sync) and writes it as a column of the bucket-major
//    (bucket, tile) table; ids outside [0, m) are counted instead;
// 2. an exclusive scan of that table (CUB) gives every (bucket, tile) its first output slot;
// 3. scatter: each block ranks its tile's keys stably (per-warp running counts in shared memory plus
//    the lane rank within a 32-key window), reorders the tile by bucket in shared memory, and writes
//    each bucket's run to its slot: consecutive threads write consecutive addresses.
// More than 256 buckets (multisplit.cuh): super-bucket passes over digits of the bucket id, with the
// full ids counted first; or the reduced-bit sort: label each key, sort the keys (or the key-value
// pairs) by their labels over ceil(log2 m) bits.

#include <warpdex/core/warp.cuh>
#include <warpdex/split/bucket_identifiers.hpp>
#include <warpdex/split/detail/counting.cuh>
#include <warpdex/split/detail/splitter_tree.cuh>
#include <warpdex/split/warp_multisplit.cuh>

#include <cub/block/block_scan.cuh>

#include <bit>
#include <cstdint>
#include <type_traits>

namespace warpdex::detail {

/// Tuned on nothing yet but reasoning: 256 threads x 16 keys keep a 4096-key tile in registers and
/// 16 KiB of shared memory, and make the (bucket, tile) table at most m / 4096 entries per key.
inline constexpr int multisplit_block_threads = 256;
inline constexpr int multisplit_items_per_thread = 16;
inline constexpr int multisplit_warps = multisplit_block_threads / warp::size;
inline constexpr std::uint32_t multisplit_tile_keys = multisplit_block_threads * multisplit_items_per_thread;
/// The direct path holds one counter per bucket and thread: m up to the block size.
inline constexpr std::uint32_t multisplit_direct_max_buckets = multisplit_block_threads;
/// The id an inactive lane (past the end of the input) holds: never a valid bucket of the direct path.
inline constexpr std::uint32_t no_bucket = 0xffffffffU;

/// An identifier as a block uses it (`type`): splitters become a search tree in shared memory (the
/// direct path's at most 255 splitters), everything else is used as it is.
template <class Identifier>
struct block_identifier {
  using type = Identifier;
  struct storage {};
  __device__ static type load(const Identifier& identifier, storage& /*unused*/) { return identifier; }
};

template <class T>
struct block_identifier<splitter_buckets<T>> {
  using type = splitter_tree<T>;
  struct storage {
    T nodes[splitter_tree_nodes(multisplit_direct_max_buckets - 1)];
  };
  /// Call with the whole block; the caller synchronizes before use.
  __device__ static type load(const splitter_buckets<T>& identifier, storage& shared)
  {
    return build_splitter_tree(identifier.splitters, identifier.splitter_count, shared.nodes);
  }
};

/// Identifiers whose bucket is a few arithmetic operations of the key.
template <class Identifier>
inline constexpr bool arithmetic_identifier =
    std::is_same_v<Identifier, bit_field_buckets> || std::is_same_v<Identifier, delta_buckets>;

/// Keys and values move through a tile's reorder buffer as 32-bit words: one per 32-bit key or value,
/// two per 64-bit key (a round per word), so the buffer stays tile_keys words for every key type.
template <class T>
inline constexpr int words_per_element = sizeof(T) / sizeof(std::uint32_t);

template <class T>
__device__ std::uint32_t element_word(const T& element, int word)
{
  static_assert(sizeof(T) == sizeof(std::uint32_t) || sizeof(T) == sizeof(std::uint64_t), "32- or 64-bit elements");
  if constexpr (sizeof(T) == sizeof(std::uint32_t)) {
    return std::bit_cast<std::uint32_t>(element);
  } else {
    return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(element) >> (word * 32));
  }
}

/// The bucket of a reordered tile position: stored as a byte per position in shared memory, ...
struct stored_buckets {
  const std::uint8_t* at;
  __device__ std::uint32_t operator()(std::uint32_t position, std::uint32_t /*word*/) const { return at[position]; }
};

/// ... or taken from the 32-bit key at that position where the identifier is a few arithmetic
/// instructions (no byte stored and loaded in shared memory per key).
template <class Key, class Identifier>
struct recomputed_buckets {
  static_assert(sizeof(Key) == sizeof(std::uint32_t), "the key is the position's one word");
  Identifier identifier;
  __device__ std::uint32_t operator()(std::uint32_t /*position*/, std::uint32_t word) const
  {
    return identifier(std::bit_cast<Key>(word));
  }
};

/// One round of a reordered write, first half: word `word` of this thread's element `item` goes to tile
/// position positions[item] of the shared buffer `words` (none where it is tile_size or more). Call with
/// the whole block once the buffer is free; a block barrier separates it from store_reordered_word.
template <class T, int Items>
__device__ __forceinline__ void place_reordered_word(const T (&elements)[Items],
                                                     const std::uint32_t (&positions)[Items], std::uint32_t tile_size,
                                                     std::uint32_t* words, int word)
{
#pragma unroll
  for (int item = 0; item < Items; ++item) {
    if (positions[item] < tile_size) { words[positions[item]] = element_word(elements[item], word); }
  }
}

/// ... second half: tile position p, holding word w, goes to output slot output_minus_tile[bucket_at(p,
/// w)] + p, so consecutive threads write consecutive addresses. Offset: 64-bit slots, or 32-bit ones where
/// every slot's word index is below 2^32 (the unsigned sum wraps back to the slot).
template <int BlockThreads, int Items, class T, class BucketAt, class Offset>
__device__ __forceinline__ void store_reordered_word(std::uint32_t tile_size, const std::uint32_t* words,
                                                     const BucketAt& bucket_at, const Offset* output_minus_tile, T* out,
                                                     int word)
{
  auto* out_words = reinterpret_cast<std::uint32_t*>(out);
#pragma unroll
  for (int item = 0; item < Items; ++item) {
    const std::uint32_t position = item * BlockThreads + threadIdx.x;
    if (position < tile_size) {
      const std::uint32_t value = words[position];
      const Offset slot = output_minus_tile[bucket_at(position, value)] + position;
      out_words[slot * words_per_element<T> + word] = value;
    }
  }
}

/// Writes a tile's keys (or values) reordered by bucket, words [first_word, words_per_element<T>) of
/// each element, a round per word: this thread's element `item` has tile position positions[item] (none
/// where it is tile_size or more), and tile position p, holding word w, goes to output slot
/// output_minus_tile[bucket_at(p, w)] + p, so consecutive threads write consecutive addresses. Call with
/// the whole block once positions and the stored buckets are final; `words` is the tile_keys-word
/// shared buffer.
template <int BlockThreads = multisplit_block_threads, class T, int Items, class BucketAt, class Offset>
__device__ void write_reordered(const T (&elements)[Items], const std::uint32_t (&positions)[Items],
                                std::uint32_t tile_size, std::uint32_t* words, const BucketAt& bucket_at,
                                const Offset* output_minus_tile, T* out, int first_word = 0)
{
  for (int word = first_word; word < words_per_element<T>; ++word) {
    __syncthreads();  // the stored buckets are complete and the previous round has left the buffer
    place_reordered_word(elements, positions, tile_size, words, word);
    __syncthreads();
    store_reordered_word<BlockThreads, Items>(tile_size, words, bucket_at, output_minus_tile, out, word);
  }
}

/// Loads one warp's share of a tile warp-striped (item i of lane l is input warp_begin + 32 i + l, so the
/// order (warp, item, lane) is the input order) with each key's bucket id; lanes past the end of the
/// input hold `inactive_bucket`.
template <bool with_values, class Key, class ValueWord, class Value, class Identifier, int Items>
__device__ __forceinline__ void load_warp_striped_tile(const Key* keys_in, const Value* values_in, std::uint64_t n,
                                                       std::uint64_t warp_begin, unsigned lane,
                                                       const Identifier& identifier, std::uint32_t inactive_bucket,
                                                       Key (&keys)[Items], ValueWord (&values)[Items],
                                                       std::uint32_t (&buckets)[Items])
{
  // An identifier that finds several buckets at once gets every item's key first (past the end of the
  // input a zero key, whose bucket is then replaced); any other identifier sees only the keys that exist.
  constexpr bool all_at_once = identifies_all<Identifier, Key, Items>;
#pragma unroll
  for (int item = 0; item < Items; ++item) {
    const std::uint64_t index = warp_begin + item * warp::size + lane;
    const bool valid = index < n;
    keys[item] = valid ? keys_in[index] : Key{};
    if constexpr (with_values) { values[item] = valid ? values_in[index] : ValueWord{}; }
    if constexpr (!all_at_once) { buckets[item] = valid ? identifier(keys[item]) : inactive_bucket; }
  }
  if constexpr (all_at_once) {
    identifier.identify_all(keys, buckets);
#pragma unroll
    for (int item = 0; item < Items; ++item) {
      if (warp_begin + item * warp::size + lane >= n) { buckets[item] = inactive_bucket; }
    }
  }
}

/// Pass 1: counts[b * tile_count + tile] = keys of bucket b in the tile; ids >= m go to *bad_ids.
template <class Key, class Identifier>
__global__ void __launch_bounds__(multisplit_block_threads)
    multisplit_count_kernel(const Key* keys, std::uint64_t n, Identifier identifier, std::uint32_t tile_count,
                            std::uint32_t* counts, unsigned long long* bad_ids)
{
  using block_id = block_identifier<Identifier>;
  __shared__ typename block_id::storage identifier_storage;
  __shared__ std::uint32_t histogram[multisplit_direct_max_buckets];
  const std::uint32_t m = identifier.bucket_count();
  for (std::uint32_t b = threadIdx.x; b < m; b += multisplit_block_threads) { histogram[b] = 0; }
  const typename block_id::type local = block_id::load(identifier, identifier_storage);
  __syncthreads();

  const std::uint64_t tile_begin = static_cast<std::uint64_t>(blockIdx.x) * multisplit_tile_keys;
  std::uint32_t bad = 0;
#pragma unroll 4
  for (int item = 0; item < multisplit_items_per_thread; ++item) {
    const std::uint64_t index = tile_begin + item * multisplit_block_threads + threadIdx.x;
    const bool valid = index < n;
    const std::uint32_t bucket = valid ? local(keys[index]) : no_bucket;
    const bool counted = bucket < m;
    bad += valid && !counted ? 1 : 0;
    const unsigned peers = warp::match_any(counted ? bucket : no_bucket);
    if (counted && warp::rank_in(peers) == 0) { atomicAdd(&histogram[bucket], warp::popc(peers)); }
  }
  if (bad != 0) { atomicAdd(bad_ids, static_cast<unsigned long long>(bad)); }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < m; b += multisplit_block_threads) {
    counts[static_cast<std::uint64_t>(b) * tile_count + blockIdx.x] = histogram[b];
  }
}

/// Pass 3: the stable scatter of one tile per block. `first_slots` is the scanned (bucket, tile) table.
/// Value = void for keys only. Keys (32 or 64 bits) and values share one reorder buffer of 32-bit words.
template <class Key, class Value, class Identifier>
__global__ void __launch_bounds__(multisplit_block_threads)
    multisplit_scatter_kernel(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out,
                              std::uint64_t n, Identifier identifier, std::uint32_t tile_count,
                              const std::uint64_t* first_slots)
{
  constexpr bool with_values = !std::is_void_v<Value>;
  using value_word = std::conditional_t<with_values, Value, std::uint32_t>;
  static_assert(!with_values || sizeof(value_word) == sizeof(std::uint32_t), "values are 32-bit words");
  using block_id = block_identifier<Identifier>;
  using bucket_scan = cub::BlockScan<std::uint32_t, multisplit_block_threads>;
  struct shared_storage {
    typename block_id::storage identifier;
    typename bucket_scan::TempStorage scan;
    std::uint32_t warp_counts[multisplit_warps][multisplit_direct_max_buckets];  // then: warp's first rank
    std::uint32_t tile_first[multisplit_direct_max_buckets];         // first position of each bucket in the tile
    std::uint64_t output_minus_tile[multisplit_direct_max_buckets];  // output slot - tile position
    std::uint32_t reordered[multisplit_tile_keys];
    std::uint8_t reordered_bucket[multisplit_tile_keys];
  };
  __shared__ shared_storage shared;

  const std::uint32_t m = identifier.bucket_count();
  const unsigned warp_index = warp::warp_in_block();
  const unsigned lane = warp::lane_id();
  for (std::uint32_t b = lane; b < m; b += warp::size) { shared.warp_counts[warp_index][b] = 0; }
  const typename block_id::type local = block_id::load(identifier, shared.identifier);
  __syncthreads();

  // Warp-striped: warp w holds keys [w * 512, (w + 1) * 512) of the tile, item i at lane + 32 i, so the
  // order (warp, item, lane) is the input order.
  const std::uint64_t tile_begin = static_cast<std::uint64_t>(blockIdx.x) * multisplit_tile_keys;
  const std::uint64_t warp_begin = tile_begin + warp_index * (multisplit_items_per_thread * warp::size);
  Key keys[multisplit_items_per_thread];
  value_word values[multisplit_items_per_thread];
  std::uint32_t buckets[multisplit_items_per_thread];
  load_warp_striped_tile<with_values>(keys_in, values_in, n, warp_begin, lane, local, no_bucket, keys, values, buckets);

  // Rank within the warp: earlier windows' count of the bucket + lower lanes of this window.
  std::uint32_t ranks[multisplit_items_per_thread];
#pragma unroll
  for (int item = 0; item < multisplit_items_per_thread; ++item) {
    const std::uint32_t bucket = buckets[item];
    const bool valid = bucket != no_bucket;
    const unsigned peers = warp::match_any(bucket);
    const std::uint32_t earlier = valid ? shared.warp_counts[warp_index][bucket] : 0;
    ranks[item] = earlier + static_cast<std::uint32_t>(warp::rank_in(peers));
    __syncwarp();
    if (valid && (peers >> lane) == 1U) {  // the highest lane of the group updates the count
      shared.warp_counts[warp_index][bucket] = earlier + static_cast<std::uint32_t>(warp::popc(peers));
    }
    __syncwarp();
  }
  __syncthreads();

  // Thread b owns bucket b: exclusive scan over the warps, then over the buckets of the tile.
  const std::uint32_t bucket = threadIdx.x;
  std::uint32_t bucket_total = 0;
  if (bucket < m) {
    for (int w = 0; w < multisplit_warps; ++w) {
      const std::uint32_t count = shared.warp_counts[w][bucket];
      shared.warp_counts[w][bucket] = bucket_total;
      bucket_total += count;
    }
  }
  std::uint32_t tile_first = 0;
  bucket_scan(shared.scan).ExclusiveSum(bucket_total, tile_first);
  if (bucket < m) {
    shared.tile_first[bucket] = tile_first;
    shared.output_minus_tile[bucket] =
        first_slots[static_cast<std::uint64_t>(bucket) * tile_count + blockIdx.x] - tile_first;
  }
  __syncthreads();

  const std::uint64_t remaining = n - tile_begin;
  const std::uint32_t tile_size =
      remaining < multisplit_tile_keys ? static_cast<std::uint32_t>(remaining) : multisplit_tile_keys;
  std::uint32_t positions[multisplit_items_per_thread];
#pragma unroll
  for (int item = 0; item < multisplit_items_per_thread; ++item) {
    const std::uint32_t b = buckets[item];
    positions[item] = multisplit_tile_keys;  // past every tile: not placed
    if (b == no_bucket) { continue; }
    positions[item] = shared.tile_first[b] + shared.warp_counts[warp_index][b] + ranks[item];
    shared.reordered_bucket[positions[item]] = static_cast<std::uint8_t>(b);
  }
  write_reordered(keys, positions, tile_size, shared.reordered, stored_buckets{shared.reordered_bucket},
                  shared.output_minus_tile, keys_out);
  if constexpr (with_values) {
    write_reordered(values, positions, tile_size, shared.reordered, stored_buckets{shared.reordered_bucket},
                    shared.output_minus_tile, values_out);
  }
}

/// Super-bucket path: one digit of another identifier's bucket id, bits [shift, shift + bits). Every id
/// of the wrapped identifier is below its m (checked before the passes), so the digit is below `count`.
template <class Identifier>
struct super_bucket_digit {
  Identifier identifier;
  std::uint32_t shift = 0;
  std::uint32_t bits = 0;
  std::uint32_t count = 1;  ///< 2^bits, or fewer for the most significant digit

  [[nodiscard]] __host__ __device__ std::uint32_t bucket_count() const { return count; }
  template <class Key>
  [[nodiscard]] __device__ std::uint32_t operator()(const Key& key) const
  {
    return (identifier(key) >> shift) & ((1U << bits) - 1);
  }
};

/// Super-bucket path: the full-id histogram counts in shared memory up to this many buckets (32 KiB),
/// in global memory above.
inline constexpr std::uint32_t id_histogram_shared_buckets = 8192;

/// Super-bucket path: totals[b] += keys with bucket id b (any m); ids >= m go to *bad_ids. Grid-stride.
template <class Key, class Identifier>
__global__ void __launch_bounds__(multisplit_block_threads)
    multisplit_id_histogram_kernel(const Key* keys, std::uint64_t n, Identifier identifier, unsigned long long* totals,
                                   unsigned long long* bad_ids)
{
  __shared__ std::uint32_t counts[id_histogram_shared_buckets];
  const std::uint32_t m = identifier.bucket_count();
  const bool in_shared = m <= id_histogram_shared_buckets;
  if (in_shared) {
    for (std::uint32_t b = threadIdx.x; b < m; b += multisplit_block_threads) { counts[b] = 0; }
  }
  __syncthreads();
  std::uint32_t bad = 0;
  // Whole warps iterate together: lanes with the same bucket add once (skewed inputs would serialize
  // their atomics on one counter otherwise).
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * multisplit_block_threads;
  const std::uint64_t warp_first =
      static_cast<std::uint64_t>(blockIdx.x) * multisplit_block_threads + threadIdx.x - warp::lane_id();
  for (std::uint64_t base = warp_first; base < n; base += stride) {
    const std::uint64_t i = base + warp::lane_id();
    const bool valid = i < n;
    const std::uint32_t bucket = valid ? identifier(keys[i]) : no_bucket;
    const bool counted = bucket < m;
    bad += valid && !counted ? 1 : 0;
    const unsigned peers = warp::match_any(counted ? bucket : no_bucket);
    if (!counted || warp::rank_in(peers) != 0) { continue; }
    if (in_shared) {
      atomicAdd(&counts[bucket], static_cast<std::uint32_t>(warp::popc(peers)));
    } else {
      atomicAdd(&totals[bucket], static_cast<unsigned long long>(warp::popc(peers)));
    }
  }
  if (bad != 0) { atomicAdd(bad_ids, static_cast<unsigned long long>(bad)); }
  if (!in_shared) { return; }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < m; b += multisplit_block_threads) {
    if (counts[b] != 0) { atomicAdd(&totals[b], static_cast<unsigned long long>(counts[b])); }
  }
}

/// Large-m path: what CUB's sort moves along with a pair's label (keys alone move as themselves).
template <class Key, class Value>
struct labelled_pair {
  Key key;
  Value value;
};
template <class Key>
struct labelled_pair<Key, void> {
};  // keys alone: never stored

/// Large-m path: labels[i] = bucket of key i (ids >= m counted in *bad_ids), and for pairs (Value not
/// void) pairs[i] = {key i, value i}.
template <class Key, class Value, class Identifier>
__global__ void multisplit_label_kernel(const Key* keys, const Value* values, std::uint64_t n, Identifier identifier,
                                        std::uint32_t* labels, labelled_pair<Key, Value>* pairs,
                                        unsigned long long* bad_ids)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool valid = i < n;
  const Key key = valid ? keys[i] : Key{};
  const std::uint32_t bucket = valid ? identifier(key) : 0;
  const bool bad = valid && bucket >= identifier.bucket_count();
  const unsigned bad_lanes = warp::ballot(bad);
  if (bad_lanes != 0 && warp::rank_in(bad_lanes) == 0 && bad) {
    atomicAdd(bad_ids, static_cast<unsigned long long>(warp::popc(bad_lanes)));
  }
  if (!valid) { return; }
  labels[i] = bucket;
  if constexpr (!std::is_void_v<Value>) { pairs[i] = labelled_pair<Key, Value>{key, values[i]}; }
}

/// Large-m path: keys_out[i], values_out[i] = the sorted pairs[i].
template <class Key, class Value>
__global__ void multisplit_unpack_kernel(const labelled_pair<Key, Value>* pairs, std::uint64_t n, Key* keys_out,
                                         Value* values_out)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  const labelled_pair<Key, Value> pair = pairs[i];
  keys_out[i] = pair.key;
  values_out[i] = pair.value;
}

/// Large-m path: offsets[b] = first i with sorted_labels[i] >= b. Thread i (0..n) fills the buckets in
/// (label[i - 1], label[i]], reading label[-1] as -1 and label[n] as m - 1, so each bucket is written once.
__global__ inline void multisplit_offsets_kernel(const std::uint32_t* sorted_labels, std::uint64_t n,
                                                 std::uint32_t bucket_count, std::uint64_t* offsets)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > n) { return; }
  const std::int64_t previous = i == 0 ? -1 : static_cast<std::int64_t>(sorted_labels[i - 1]);
  const std::int64_t current = i == n ? static_cast<std::int64_t>(bucket_count) - 1 : sorted_labels[i];
  for (std::int64_t b = previous + 1; b <= current; ++b) { offsets[b] = i; }
}

}  // namespace warpdex::detail
