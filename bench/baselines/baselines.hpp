#pragma once
// The calls a user would make instead of warpdex, on each backend: the baselines that the benchmarks, the
// demo tour and the command-line tool time next to warpdex, written once. On the cuda backend they are
// CUB / Thrust calls; on the host backend the standard library (libstdc++'s parallel mode, OpenMP
// threads). Every function runs synchronously (the cuda ones enqueue on the default stream).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/hash/slab_layout.hpp>
#include <warpdex/split/bucket_identifiers.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace warpdex::baselines {

/// Temporary storage of a baseline, kept between runs so that timed runs allocate nothing.
using scratch = buffer<std::uint8_t>;

/// Sorts `keys_in` (and `values_in` with them, when not empty) by the key bits [begin_bit, end_bit),
/// stably, into the outputs: a stable multisplit by a bit field, or with [0, 32) a radix sort.
/// cuda: cub::DeviceRadixSort::SortKeys / SortPairs over those bits; host: std::stable_sort by the
/// field in libstdc++'s parallel mode.
void sort_by_bits(const host& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                  std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out, int begin_bit,
                  int end_bit, scratch& temp);
/// What sort_by_bits runs on a backend, in words for a result row.
[[nodiscard]] std::string sort_by_bits_name(backend_choice backend, bool pairs, int begin_bit, int end_bit);

/// Sorts by bucket id, stably (any identifier): the reduced-bit sort. cuda: label every key, then
/// cub::DeviceRadixSort::SortPairs of (label, key) over ceil(log2 m) bits (pairs carry key and value
/// packed in 64 bits); host: std::stable_sort by bucket id in libstdc++'s parallel mode.
void sort_by_bucket(const host& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                    std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out,
                    const delta_buckets& identifier, scratch& temp);
void sort_by_bucket(const host& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                    std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out,
                    const splitter_buckets<std::uint32_t>& identifier, scratch& temp);
[[nodiscard]] std::string sort_by_bucket_name(backend_choice backend);

/// positions[i] = the first position of `sorted_keys` whose key is not below queries[i].
/// cuda: thrust::lower_bound; host: std::lower_bound per query over OpenMP threads.
void lower_bound(const host& backend, std::span<const std::uint32_t> sorted_keys,
                 std::span<const std::uint32_t> queries, std::span<std::uint64_t> positions);
[[nodiscard]] std::string lower_bound_name(backend_choice backend);

/// The hash table a user would reach for instead of slab_map, with the slab table's batch vocabulary
/// (hash::operation in, hash::operation_status and found values out) and unique 32-bit keys (the
/// reserved keys of slab_layout.hpp excluded). On the host, std::unordered_map, one thread; on cuda
/// (`open_addressing_map` below), a static open-addressing table, linear probing, one thread per key.
class unordered_map_baseline {
 public:
  /// A table for `keys` keys.
  explicit unordered_map_baseline(std::uint64_t keys);
  ~unordered_map_baseline();
  unordered_map_baseline(const unordered_map_baseline&) = delete;
  unordered_map_baseline& operator=(const unordered_map_baseline&) = delete;

  void clear();
  /// Element i runs `ops[i]` (or `uniform` when `ops` is empty) on keys[i] (with values[i] for an
  /// insertion; `values` may be empty otherwise). A find writes values_out[i] when found.
  void apply(const host& backend, std::span<const hash::operation> ops, hash::operation uniform,
             std::span<const std::uint32_t> keys, std::span<const std::uint32_t> values,
             std::span<std::uint32_t> values_out, std::span<hash::operation_status> statuses);
  [[nodiscard]] static std::string name();

 private:
  struct table;
  table* table_;
};

/// The ordered dictionary a user would keep instead of the LSM: a sorted array of (key, value) pairs,
/// kept current by sorting each batch and merging it in (cuda: cub::DeviceRadixSort::SortPairs and
/// thrust::merge_by_key; host: libstdc++'s parallel sort and merge). Batches hold keys not yet present.
class sorted_array_map {
 public:
  sorted_array_map(backend_choice backend, std::uint64_t capacity);
  ~sorted_array_map();
  sorted_array_map(const sorted_array_map&) = delete;
  sorted_array_map& operator=(const sorted_array_map&) = delete;

  /// Inserts a batch of `n` new keys with their values (pointers into the backend's memory).
  void insert(const host& backend, const std::uint32_t* keys, const std::uint32_t* values, std::uint64_t n);
#if WARPDEX_HAS_CUDA
  void insert(const cuda& backend, const std::uint32_t* keys, const std::uint32_t* values, std::uint64_t n);
#endif
  void clear()
  {
    size_ = 0;
  }
  [[nodiscard]] const std::uint32_t* keys() const
  {
    return keys_.data();
  }
  [[nodiscard]] const std::uint32_t* values() const
  {
    return values_.data();
  }
  [[nodiscard]] std::uint64_t size() const
  {
    return size_;
  }
  [[nodiscard]] static std::string name(backend_choice backend);

 private:
  buffer<std::uint32_t> keys_, values_, spare_keys_, spare_values_, batch_keys_, batch_values_;
  scratch temp_;
  std::uint64_t size_ = 0;
};

#if WARPDEX_HAS_CUDA
/// A static open-addressing table with linear probing over 64-bit (value << 32 | key) slots, one thread
/// per key, at load factor 0.5 (2n slots rounded up to a power of two: 16 bytes per pair, like
/// cuCollections' static_map at that load factor). Erasure leaves hash::erased_key in the slot.
class open_addressing_map {
 public:
  explicit open_addressing_map(std::uint64_t keys);
  void clear();
  void apply(const cuda& backend, std::span<const hash::operation> ops, hash::operation uniform,
             std::span<const std::uint32_t> keys, std::span<const std::uint32_t> values,
             std::span<std::uint32_t> values_out, std::span<hash::operation_status> statuses);
  [[nodiscard]] std::size_t bytes() const { return slots_.size_bytes(); }
  [[nodiscard]] static std::string name();

 private:
  buffer<unsigned long long> slots_;
};

void sort_by_bits(const cuda& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                  std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out, int begin_bit,
                  int end_bit, scratch& temp);
void sort_by_bucket(const cuda& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                    std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out,
                    const delta_buckets& identifier, scratch& temp);
void sort_by_bucket(const cuda& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                    std::span<const std::uint32_t> values_in, std::span<std::uint32_t> values_out,
                    const splitter_buckets<std::uint32_t>& identifier, scratch& temp);
void lower_bound(const cuda& backend, std::span<const std::uint32_t> sorted_keys,
                 std::span<const std::uint32_t> queries, std::span<std::uint64_t> positions);
#endif

}  // namespace warpdex::baselines
