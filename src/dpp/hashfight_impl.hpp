#pragma once
// hashfight_map (include/warpdex/dpp/hashfight_map.hpp), written once against Thrust execution policies;
// hashfight_cuda.cu and hashfight_host.cpp instantiate it for their backend.

#include "duplicates_impl.hpp"

#include <warpdex/core/hash.hpp>
#include <warpdex/dpp/hashfight_map.hpp>
#include <warpdex/search/search_device.hpp>
#include <warpdex/split/multisplit.hpp>

#include <thrust/functional.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace warpdex::dpp::detail {

/// The seed of fight round r's hash function.
WARPDEX_HOST_DEVICE constexpr std::uint64_t hashfight_round_seed(std::uint64_t seed, std::uint32_t round)
{
  return fmix64(seed + 0x9e3779b97f4a7c15ULL * (round + 1));
}

/// hash scaled to [0, slots): the high word of hash * slots (no division).
WARPDEX_HOST_DEVICE inline std::uint64_t scale_to_slots(std::uint64_t hash, std::uint64_t slots)
{
#if defined(__CUDA_ARCH__)
  return __umul64hi(hash, slots);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(hash) * slots) >> 64);
#endif
}

/// The seed of the partition hash (the partitioned rounds' partition of a key).
WARPDEX_HOST_DEVICE constexpr std::uint64_t hashfight_partition_seed(std::uint64_t seed)
{
  return fmix64(seed ^ 0x7061727469746e73ULL);
}

/// The partition hash of a key: its partition in a sub-table of P partitions is this scaled to P.
template <class Key>
WARPDEX_HOST_DEVICE std::uint64_t partition_hash(Key key, std::uint64_t partition_seed)
{
  return fmix64(static_cast<std::uint64_t>(key) ^ partition_seed);
}

/// The round hash of a key in a sub-table: its bucket (or slot) in the region, and its mask bit.
template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t round_hash(const hashfight_subtable<Key, Value>& table, Key key)
{
  return fmix64(static_cast<std::uint64_t>(key) ^ table.seed);
}

/// log2 of a bucket's entries: 1, 2, 4 or 8 (entries of 8 or 16 bytes, buckets of one entry, 32 or 64
/// bytes), so that addressing a bucket shifts rather than divides (a 64-bit division a probe and a round
/// cost the find and the fight kernel measurable time on an H200, docs/dpp.md).
WARPDEX_HOST_DEVICE inline std::uint32_t bucket_shift(std::uint32_t bucket_entries)
{
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__ffs(static_cast<int>(bucket_entries)) - 1);
#else
  return static_cast<std::uint32_t>(std::countr_zero(bucket_entries));
#endif
}

/// The first entry of the bucket (the slot, when a bucket is one entry) of a key whose partition hash is
/// `hashed` and round hash `round`: region (hashed scaled to the partitions), then the round hash scaled
/// to the region's buckets.
template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t bucket_index(const hashfight_subtable<Key, Value>& table, std::uint64_t hashed,
                                               std::uint64_t round)
{
  const std::uint32_t shift = bucket_shift(table.bucket_entries);
  const std::uint64_t in_region = scale_to_slots(round, table.region >> shift) << shift;
  return table.partitions == 1 ? in_region : scale_to_slots(hashed, table.partitions) * table.region + in_region;
}

template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t slot_index(const hashfight_subtable<Key, Value>& table, Key key, std::uint64_t hashed)
{
  return bucket_index(table, hashed, round_hash(table, key));
}

/// A key's bit in its bucket's overflow mask: low bits of the round hash (the bucket comes from its high
/// bits, so keys of one bucket spread over the mask).
WARPDEX_HOST_DEVICE constexpr std::uint64_t overflow_bit(std::uint64_t round)
{
  return std::uint64_t{1} << (round & 63U);
}

/// The overflow mask of the bucket at `first` of `bucket_entries` entries: its last 8 bytes.
template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t* overflow_mask(hashfight_entry<Key, Value>* first, std::uint32_t bucket_entries)
{
  return reinterpret_cast<std::uint64_t*>(first + bucket_entries) - 1;
}

/// Whether entry i of a sub-table (or of a partition's regions, which start on bucket boundaries) holds a
/// bucket's mask rather than a slot.
WARPDEX_HOST_DEVICE constexpr bool is_mask_entry(std::uint64_t i, std::uint32_t bucket_entries)
{
  return bucket_entries > 1 && (i & (bucket_entries - 1)) == bucket_entries - 1;
}

/// What one probe of a sub-table says about a key.
enum class probe_outcome { found, absent, next };

/// Reads the bucket of `Entries` entries at `first` whole (one aligned access of up to 64 bytes) and
/// compares its lanes: the key → found (its value in `value`); with one entry, an empty slot → absent;
/// with a mask, the key's bit clear → absent; else the key may be in a later sub-table.
template <int Entries, class Key, class Value>
WARPDEX_HOST_DEVICE probe_outcome probe_bucket(const hashfight_entry<Key, Value>* first, Key key, std::uint64_t round,
                                               Value& value)
{
  using entry = hashfight_entry<Key, Value>;
  struct alignas(Entries * sizeof(entry)) bucket {
    entry lanes[Entries];
  };
  const bucket read = *reinterpret_cast<const bucket*>(first);
  constexpr int lanes = Entries == 1 ? 1 : Entries - 1;
  // A bucket holds a key once, so at most one lane matches. Every lane is compared, with no return from
  // the loop: a lane known only at run time would index the bucket, which nvcc then copies to local
  // memory (32 or 64 bytes stored a probe, seen in the find's PTX).
  bool found = false;
  Value found_value{};
#pragma unroll
  for (int lane = 0; lane < lanes; ++lane) {
    const bool match = read.lanes[lane].key == key;
    found_value = match ? read.lanes[lane].value : found_value;
    found = found || match;
  }
  if (found) {
    value = found_value;
    return probe_outcome::found;
  }
  if constexpr (Entries == 1) {
    return read.lanes[0].key == std::numeric_limits<Key>::max() ? probe_outcome::absent : probe_outcome::next;
  } else {
    std::uint64_t mask = 0;
    memcpy(&mask, reinterpret_cast<const unsigned char*>(&read) + sizeof(bucket) - sizeof(mask), sizeof(mask));
    return (mask & overflow_bit(round)) != 0 ? probe_outcome::next : probe_outcome::absent;
  }
}

/// One probe of a sub-table for a key (not the empty key) whose partition hash is `hashed`.
template <class Key, class Value>
WARPDEX_HOST_DEVICE probe_outcome probe(const hashfight_subtable<Key, Value>& table, Key key, std::uint64_t hashed,
                                        Value& value)
{
  const std::uint64_t round = round_hash(table, key);
  const hashfight_entry<Key, Value>* first = table.entries + bucket_index(table, hashed, round);
  switch (table.bucket_entries) {
    case 2:
      return probe_bucket<2>(first, key, round, value);
    case 4:
      return probe_bucket<4>(first, key, round, value);
    case 8:
      return probe_bucket<8>(first, key, round, value);
    default:
      return probe_bucket<1>(first, key, round, value);
  }
}

template <class Key, class Value>
WARPDEX_HOST_DEVICE std::uint64_t slot_index(const hashfight_subtable<Key, Value>& table, Key key)
{
  return slot_index(table, key, table.partitions == 1 ? 0 : partition_hash(key, table.partition_seed));
}

/// Which partition a key belongs to (the multisplit's bucket identifier of the partitioned rounds).
struct partition_of_key {
  std::uint64_t partition_seed;
  std::uint32_t partitions;
  template <class Key>
  WARPDEX_HOST_DEVICE std::uint32_t operator()(Key key) const
  {
    return static_cast<std::uint32_t>(scale_to_slots(partition_hash(key, partition_seed), partitions));
  }
};

/// What the partitioned rounds of one build run on (both backends; hashfight_cuda.cu, hashfight_host.cpp):
/// the pairs split by partition (partition p at [offsets[p], offsets[p + 1])), with their values or, for
/// 64-bit values, their positions in `values` (the multisplit moves 32-bit values), the sub-tables, and
/// where the pairs left after the last round go (`left_*`, counted in `*left_count`).
template <class Key, class Value>
struct partitioned_fight {
  using split_value = std::conditional_t<sizeof(Value) == sizeof(std::uint32_t), Value, std::uint32_t>;
  static constexpr bool by_position = sizeof(Value) != sizeof(std::uint32_t);
  hashfight_layout layout;
  std::uint64_t partition_seed;
  hashfight_entry<Key, Value>* tables[hashfight_max_partitioned_rounds];
  std::uint64_t seeds[hashfight_max_partitioned_rounds];
  const Key* keys;
  const split_value* split_values;
  const Value* values;  // the build's values (read through positions when by_position)
  const std::uint64_t* offsets;
  Key* left_keys;
  Value* left_values;
  std::uint8_t* flags;  // a byte a pair, for partitions too large to hold their pairs on chip (cuda)
  std::uint64_t pairs;

  WARPDEX_HOST_DEVICE Value value_at(std::uint64_t i) const
  {
    if constexpr (by_position) {
      return values[split_values[i]];
    } else {
      return split_values[i];
    }
  }
};

/// Digit `shift` .. `shift + bits` of a key's partition: the bucket of one pass of split_by_partition.
struct partition_digit {
  partition_of_key partition;
  std::uint32_t shift;
  std::uint32_t mask;
  template <class Key>
  WARPDEX_HOST_DEVICE std::uint32_t operator()(Key key) const
  {
    return (partition(key) >> shift) & mask;
  }
};

/// offsets[p] = the first position of the split keys whose partition is p or more (a binary search: the
/// keys are in partition order).
template <class Key>
struct partition_start {
  const Key* keys;
  std::uint64_t n;
  partition_of_key partition;
  std::uint64_t* offsets;
  WARPDEX_HOST_DEVICE void operator()(std::uint32_t p) const
  {
    std::uint64_t low = 0;
    std::uint64_t high = n;
    while (low < high) {
      const std::uint64_t middle = low + (high - low) / 2;
      if (partition(keys[middle]) < p) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    offsets[p] = low;
  }
};

/// The pairs split by partition into keys_out / values_out, partitions in ascending order, and the P + 1
/// partition offsets, all on the backend's stream without a wait: the library's multisplit of at most
/// 256 buckets a pass, over 8-bit (or narrower) digits of the partition, least significant first (each
/// pass stable, so the last leaves the pairs in partition order), then the offsets by binary search.
/// (One multisplit over all P buckets counts the full ids first and reads their totals on the host: at
/// 2^26 pairs and 10,923 partitions that count alone took 1.12 ms on an H200, its counters in global
/// memory past 8,192 buckets; docs/dpp.md.)
template <class Key, class SplitValue, class Backend>
void split_by_partition(const Backend& backend, std::span<const Key> keys, std::span<const SplitValue> values,
                        std::span<Key> keys_out, std::span<SplitValue> values_out, partition_of_key partition,
                        std::span<std::uint64_t> offsets)
{
  const std::uint64_t n = keys.size();
  std::uint32_t bits = 0;
  while ((std::uint64_t{1} << bits) < partition.partitions) { ++bits; }
  const std::uint32_t passes = std::max<std::uint32_t>(1, (bits + 7) / 8);
  const std::uint32_t digit_bits = (bits + passes - 1) / passes;
  buffer<Key> keys_scratch;
  buffer<SplitValue> values_scratch;
  if (passes > 1) {
    keys_scratch = make_buffer<Key>(backend, n);
    values_scratch = make_buffer<SplitValue>(backend, n);
  }
  auto results = make_buffer<std::uint64_t>(backend, 258);  // a pass's offsets, then its bad-id count
  multisplit_workspace workspace;
  std::span<const Key> keys_from = keys;
  std::span<const SplitValue> values_from = values;
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    const bool to_output = (passes - 1 - pass) % 2 == 0;
    const std::span<Key> keys_to = to_output ? keys_out : keys_scratch.span();
    const std::span<SplitValue> values_to = to_output ? values_out : values_scratch.span();
    const std::uint32_t shift = pass * digit_bits;
    const std::uint32_t count = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(std::uint64_t{1} << digit_bits, ((partition.partitions - 1) >> shift) + 1));
    const auto digit = make_custom_buckets(partition_digit{partition, shift, (1U << digit_bits) - 1}, count);
    multisplit_pairs_async(backend, keys_from, values_from, keys_to, values_to, digit,
                           std::span<std::uint64_t>(results.data(), std::uint64_t{count} + 1), results.data() + 257,
                           workspace);
    keys_from = keys_to;
    values_from = values_to;
  }
  thrust::for_each(policy_nosync(backend), thrust::counting_iterator<std::uint32_t>(0),
                   thrust::counting_iterator<std::uint32_t>(partition.partitions + 1),
                   partition_start<Key>{keys_out.data(), n, partition, offsets.data()});
}

// fight_partitions(backend, fight) runs the partitioned rounds and returns the pairs left after them; each
// backend's file defines it (found at instantiation by argument-dependent lookup).

template <class Key, class Value>
WARPDEX_HOST_DEVICE hashfight_entry<Key, Value>* slot_of(const hashfight_subtable<Key, Value>& table, Key key)
{
  return table.entries + slot_index(table, key);
}

/// The range of slots (pass) of each active pair in a chunked round: its slot / slots per range. Computed
/// once a round, so that a pass reads 2 bytes for a pair of another range, not its position and key.
template <class Key, class Value>
struct range_of_pair {
  const Key* keys;
  const std::uint32_t* actives;
  hashfight_subtable<Key, Value> table;
  std::uint64_t slots_per_range;
  std::uint16_t* ranges;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t k) const
  {
    ranges[k] = static_cast<std::uint16_t>(slot_index(table, keys[actives[k]]) / slots_per_range);
  }
};

/// Fight (active pair k; with `ranges`, only pairs of range `range`): the pair's key into its slot's key
/// word; racing stores, one survives untorn.
template <class Key, class Value>
struct fight_key {
  const Key* keys;
  const std::uint32_t* actives;
  hashfight_subtable<Key, Value> table;
  const std::uint16_t* ranges;  // nullptr: one pass
  std::uint16_t range;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t k) const
  {
    if (ranges != nullptr && ranges[k] != range) { return; }
    const Key key = keys[actives[k]];
    relaxed_store(&slot_of(table, key)->key, key);
  }
};

/// Check (active pair k; with `ranges`, only pairs of range `range`): the pair's key won its slot → raise
/// the slot's value to the pair's and leave (collided = 0); another key won → stay (collided = 1). Only
/// pairs of the winning key touch the value word. Every pair lies in exactly one range, so the passes of
/// a round write every collided flag once.
template <class Key, class Value>
struct check_key {
  const Key* keys;
  const Value* values;
  const std::uint32_t* actives;
  hashfight_subtable<Key, Value> table;
  const std::uint16_t* ranges;  // nullptr: one pass
  std::uint16_t range;
  std::uint8_t* collided;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t k) const
  {
    if (ranges != nullptr && ranges[k] != range) { return; }
    const std::uint32_t position = actives[k];
    const Key key = keys[position];
    hashfight_entry<Key, Value>* entry = slot_of(table, key);
    const bool won = relaxed_load(&entry->key) == key;
    if (won) { relaxed_fetch_max(&entry->value, values[position]); }
    collided[k] = won ? 0 : 1;
  }
};

/// A query's range in `range_of_query` once it is answered.
inline constexpr std::uint16_t resolved_query = 0xffff;
static_assert(hashfight_max_chunks < resolved_query, "range numbers must not reach the resolved mark");

/// Before the passes of a chunked probe of one sub-table: each query not yet answered gets the range its
/// slot lies in (its key read once here, so a pass reads 2 bytes for a query of another range). The
/// reserved empty key is answered as a miss at once (it would match an empty slot).
template <class Key, class Value>
struct range_of_query {
  const Key* queries;
  hashfight_subtable<Key, Value> table;
  std::uint64_t slots_per_range;
  std::uint16_t* ranges;
  Value* values;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t k) const
  {
    if (ranges[k] == resolved_query) { return; }
    const Key key = queries[k];
    if (key == std::numeric_limits<Key>::max()) {
      values[k] = std::numeric_limits<Value>::max();
      ranges[k] = resolved_query;
      return;
    }
    ranges[k] = static_cast<std::uint16_t>(slot_index(table, key) / slots_per_range);
  }
};

/// One pass of a chunked probe of one sub-table: each query of range `range` reads its slot; its own key
/// → its value, an empty slot → a miss (both answer it: resolved); another key → it stays for the next
/// sub-table.
template <class Key, class Value>
struct probe_range {
  const Key* queries;
  hashfight_subtable<Key, Value> table;
  std::uint16_t range;
  std::uint16_t* ranges;
  Value* values;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t k) const
  {
    if (ranges[k] != range) { return; }
    const Key key = queries[k];
    Value value{};
    const probe_outcome outcome =
        probe(table, key, table.partitions == 1 ? 0 : partition_hash(key, table.partition_seed), value);
    if (outcome != probe_outcome::next) {
      values[k] = outcome == probe_outcome::found ? value : std::numeric_limits<Value>::max();
      ranges[k] = resolved_query;
    }
  }
};

/// Whether entry i of a sub-table holds a key (a bucket's mask holds none).
template <class Key, class Value>
struct slot_is_occupied {
  const hashfight_entry<Key, Value>* entries;
  std::uint32_t bucket_entries;
  WARPDEX_HOST_DEVICE bool operator()(std::uint64_t i) const
  {
    return !is_mask_entry(i, bucket_entries) && entries[i].key != std::numeric_limits<Key>::max();
  }
};

/// The value of a key, or the miss value: sub-tables in build order, then the sorted leftovers.
template <class Key, class Value>
struct find_value {
  const hashfight_subtable<Key, Value>* tables;
  std::uint32_t table_count;
  const Key* leftover_keys;
  const Value* leftover_values;
  std::uint64_t leftover_count;
  WARPDEX_HOST_DEVICE Value operator()(Key key) const
  {
    constexpr Key empty = std::numeric_limits<Key>::max();
    constexpr Value miss = std::numeric_limits<Value>::max();
    if (key == empty) { return miss; }
    const std::uint64_t hashed = table_count > 0 ? partition_hash(key, tables[0].partition_seed) : 0;
    for (std::uint32_t t = 0; t < table_count; ++t) {
      Value value{};
      const probe_outcome outcome = probe(tables[t], key, hashed, value);
      if (outcome == probe_outcome::found) { return value; }
      if (outcome == probe_outcome::absent) { return miss; }
    }
    const std::uint64_t at = binary_search_bound<bound_kind::lower>(leftover_keys, leftover_count, key);
    return at < leftover_count && leftover_keys[at] == key ? leftover_values[at] : miss;
  }
};

/// The queries not answered by the chunked sub-tables: the unchunked sub-tables, then the leftovers.
template <class Key, class Value>
struct finish_pending {
  const Key* queries;
  find_value<Key, Value> rest;
  Value* values;
  const std::uint16_t* ranges;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t k) const
  {
    if (ranges[k] != resolved_query) { values[k] = rest(queries[k]); }
  }
};

/// Slots of each range when a sub-table of `slots` slots is cut into `chunks` ranges: ceil(slots /
/// chunks), so that slot s lies in range s / this (the last ranges may be short or empty).
inline std::uint64_t slots_per_range(std::uint64_t slots, std::uint64_t chunks)
{
  return (slots + chunks - 1) / chunks;
}

/// The chunk a map of `Backend` uses for `requested` (0: the backend's automatic one).
template <class Backend>
std::uint64_t resolve_chunk_bytes(std::uint64_t requested)
{
  return requested == 0 ? hashfight_auto_chunk_bytes<Backend>() : requested;
}

template <class Value>
struct is_not_miss {
  WARPDEX_HOST_DEVICE std::uint8_t operator()(Value value) const
  {
    return value != std::numeric_limits<Value>::max() ? 1 : 0;
  }
};

/// Position i when items[i] is the reserved encoding, else `none`: the smallest over all positions is
/// the first reserved one.
template <class T>
struct position_if_reserved {
  const T* items;
  T reserved;
  std::uint64_t none;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t i) const { return items[i] == reserved ? i : none; }
};

/// Throws when a span of the backend's memory holds `reserved`, naming the first position. One reduction
/// and one wait: thrust::find_if searched in chunks of about 2^20 elements, each chunk two launches and a
/// wait for the host (16 chunks an array at 2^24 on an H200: docs/dpp.md, the build's profile).
template <class T, class Backend>
void reject_reserved(const Backend& backend, std::span<const T> items, T reserved, const char* what)
{
  const std::uint64_t n = items.size();
  const std::uint64_t first = thrust::transform_reduce(
      policy(backend), thrust::counting_iterator<std::uint64_t>(0), thrust::counting_iterator<std::uint64_t>(n),
      position_if_reserved<T>{items.data(), reserved, n}, n, thrust::minimum<std::uint64_t>());
  if (first != n) {
    WARPDEX_FAIL(std::string("hashfight_map: ") + what + " " + std::to_string(first) + " is " +
                 std::to_string(reserved) + ", the reserved " +
                 (std::string(what) == "key" ? "empty key" : "miss value") + "; it cannot be stored");
  }
}

}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {

template <class Key, class Value, class Backend>
hashfight_map<Key, Value, Backend>::hashfight_map(const Backend& backend, std::span<const Key> keys,
                                                  std::span<const Value> values, hashfight_options options)
    : backend_(backend), options_(options), chunk_bytes_(detail::resolve_chunk_bytes<Backend>(options.chunk_bytes))
{
  using entry = hashfight_entry<Key, Value>;
  using subtable = hashfight_subtable<Key, Value>;
  const std::uint64_t n = keys.size();
  WARPDEX_EXPECTS(values.size() == n,
                  "hashfight_map: " + std::to_string(n) + " keys but " + std::to_string(values.size()) + " values");
  WARPDEX_EXPECTS(n <= max_duplicate_search_elements, "hashfight_map: " + std::to_string(n) +
                                                          " pairs exceed the limit of " +
                                                          std::to_string(max_duplicate_search_elements));
  WARPDEX_EXPECTS(std::isfinite(options.load_factor) && options.load_factor >= 1.0,
                  "hashfight_map: the load factor must be >= 1, got " + std::to_string(options.load_factor));
  WARPDEX_EXPECTS(options.max_rounds >= 1, "hashfight_map: max_rounds must be >= 1");
  WARPDEX_EXPECTS(hashfight_auto_bucket_bytes(sizeof(entry), options.bucket_bytes) != 0,
                  "hashfight_map: bucket_bytes must be 0, " + std::to_string(sizeof(entry)) +
                      " (one slot a key), 32 or 64 (at least two entries), got " +
                      std::to_string(options.bucket_bytes));
  detail::reject_reserved(backend, keys, empty_key, "key");
  detail::reject_reserved(backend, values, miss_value, "value");
  const std::uint64_t needed = hashfight_build_bytes(n, sizeof(entry), options);
  const std::uint64_t available = detail::memory_limit_bytes(backend);
  if (needed > available) {
    throw out_of_memory("hashfight_map: building " + std::to_string(n) + " pairs at load factor " +
                        std::to_string(options.load_factor) + " needs about " + std::to_string(needed >> 20) +
                        " MiB, more than the " + std::to_string(available >> 20) + " MiB of " +
                        std::string(Backend::name) + " memory; use fewer pairs or a smaller load factor");
  }

  layout_ = hashfight_plan(n, sizeof(entry), options);
  detail::reporting_allocation_failure("hashfight_map", [&] {
    std::vector<subtable> views;
    // The partitioned rounds (file comment): the pairs split by partition, then every round of a partition
    // on chip, its regions written once. The pairs left after them go on to the classic rounds below.
    std::span<const Key> rest_keys = keys;
    std::span<const Value> rest_values = values;
    buffer<Key> left_keys;
    buffer<Value> left_values;
    if (layout_.rounds > 0) {
      using fight_type = detail::partitioned_fight<Key, Value>;
      using split_value = typename fight_type::split_value;
      const std::uint32_t partitions = layout_.partitions;
      fight_type fight{};
      fight.layout = layout_;
      fight.partition_seed = detail::hashfight_partition_seed(options.seed);
      for (std::uint32_t r = 0; r < layout_.rounds; ++r) {
        const std::uint64_t region = layout_.regions[r];
        auto table = make_buffer<entry>(backend, region * partitions);
        const subtable view{table.data(),
                            region * partitions,
                            detail::hashfight_round_seed(options.seed, static_cast<std::uint32_t>(views.size())),
                            region,
                            fight.partition_seed,
                            partitions,
                            layout_.bucket_entries};
        fight.tables[r] = table.data();
        fight.seeds[r] = view.seed;
        views.push_back(view);
        subtables_.push_back(std::move(table));
      }
      buffer<Key> split_keys;
      buffer<split_value> split_values;
      buffer<split_value> positions;
      auto offsets = make_buffer<std::uint64_t>(backend, std::uint64_t{partitions} + 1);
      if (partitions == 1 && !fight_type::by_position) {
        fight.keys = keys.data();
        fight.split_values = reinterpret_cast<const split_value*>(values.data());
        offsets.copy_from(std::vector<std::uint64_t>{0, n});
      } else {
        split_keys = make_buffer<Key>(backend, n);
        split_values = make_buffer<split_value>(backend, n);
        std::span<const split_value> split_from(reinterpret_cast<const split_value*>(values.data()), n);
        if constexpr (fight_type::by_position) {
          positions = make_buffer<split_value>(backend, n);
          thrust::sequence(detail::policy_nosync(backend), positions.data(), positions.data() + n, split_value{0});
          split_from = std::span<const split_value>(positions.data(), n);
        }
        detail::split_by_partition<Key, split_value>(backend, keys, split_from, split_keys.span(), split_values.span(),
                                                     detail::partition_of_key{fight.partition_seed, partitions},
                                                     offsets.span());
        positions = buffer<split_value>();
        fight.keys = split_keys.data();
        fight.split_values = split_values.data();
      }
      fight.values = values.data();
      fight.pairs = n;
      fight.offsets = offsets.data();
      left_keys = make_buffer<Key>(backend, n);
      left_values = make_buffer<Value>(backend, n);
      fight.left_keys = left_keys.data();
      fight.left_values = left_values.data();
      const std::uint64_t left = fight_partitions(backend, fight);
      rest_keys = std::span<const Key>(left_keys.data(), left);
      rest_values = std::span<const Value>(left_values.data(), left);
    }

    // The classic rounds, over the pairs the partitioned rounds left (all pairs when none were planned).
    const std::uint64_t rest = rest_keys.size();
    auto actives = make_buffer<std::uint32_t>(backend, rest);
    auto survivors = make_buffer<std::uint32_t>(backend, rest);
    auto collided = make_buffer<std::uint8_t>(backend, rest);
    buffer<std::uint16_t> ranges;  // each active pair's range of slots, from the first chunked round
    thrust::sequence(detail::policy_nosync(backend), actives.data(), actives.data() + rest, std::uint32_t{0});
    std::uint64_t active = rest;
    while (active > options.leftover_limit && views.size() < options.max_rounds) {
      const auto slots = std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(std::ceil(static_cast<double>(active) * options.load_factor)));
      auto table = make_buffer<entry>(backend, slots);
      thrust::fill(detail::policy_nosync(backend), table.data(), table.data() + slots, entry{empty_key, Value{0}});
      const subtable view{table.data(), slots,
                          detail::hashfight_round_seed(options.seed, static_cast<std::uint32_t>(views.size())), slots,
                          0, 1};
      const std::uint64_t chunks = hashfight_chunk_count(slots, sizeof(entry), chunk_bytes_);
      const std::uint16_t* pair_ranges = nullptr;
      if (chunks > 1) {
        if (ranges.size() == 0) { ranges = make_buffer<std::uint16_t>(backend, rest); }
        thrust::for_each(detail::policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                         thrust::counting_iterator<std::uint64_t>(active),
                         detail::range_of_pair<Key, Value>{rest_keys.data(), actives.data(), view,
                                                           detail::slots_per_range(slots, chunks), ranges.data()});
        pair_ranges = ranges.data();
      }
      // Per range of slots, two algorithm calls: every store of the range's fight is visible to its
      // check. Ranges are disjoint, so one range's check cannot see another's fight.
      for (std::uint64_t chunk = 0; chunk < chunks; ++chunk) {
        const auto range = static_cast<std::uint16_t>(chunk);
        thrust::for_each(detail::policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                         thrust::counting_iterator<std::uint64_t>(active),
                         detail::fight_key<Key, Value>{rest_keys.data(), actives.data(), view, pair_ranges, range});
        thrust::for_each(detail::policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                         thrust::counting_iterator<std::uint64_t>(active),
                         detail::check_key<Key, Value>{rest_keys.data(), rest_values.data(), actives.data(), view,
                                                       pair_ranges, range, collided.data()});
      }
      const auto end = thrust::copy_if(detail::policy(backend), actives.data(), actives.data() + active,
                                       collided.data(), survivors.data(), detail::is_set{});
      const auto stayed = static_cast<std::uint64_t>(end - survivors.data());
      active = stayed;
      actives.swap(survivors);
      views.push_back(view);
      subtables_.push_back(std::move(table));
    }
    // find's chunked passes cover the leading sub-tables of more than one chunk.
    while (chunked_subtables_ < views.size() &&
           hashfight_chunk_count(views[chunked_subtables_].slots, sizeof(entry), chunk_bytes_) > 1) {
      ++chunked_subtables_;
    }
    // The leftovers: sorted by key, one pair per key with its largest value.
    auto sorted_keys = make_buffer<Key>(backend, active);
    auto sorted_values = make_buffer<Value>(backend, active);
    thrust::gather(detail::policy_nosync(backend), actives.data(), actives.data() + active, rest_keys.data(),
                   sorted_keys.data());
    thrust::gather(detail::policy_nosync(backend), actives.data(), actives.data() + active, rest_values.data(),
                   sorted_values.data());
    thrust::sort_by_key(detail::policy_nosync(backend), sorted_keys.data(), sorted_keys.data() + active,
                        sorted_values.data());
    const std::uint64_t distinct = detail::count_runs(backend, sorted_keys.data(), active);
    leftover_keys_ = make_buffer<Key>(backend, distinct);
    leftover_values_ = make_buffer<Value>(backend, distinct);
    thrust::reduce_by_key(detail::policy_nosync(backend), sorted_keys.data(), sorted_keys.data() + active,
                          sorted_values.data(), leftover_keys_.data(), leftover_values_.data(), thrust::equal_to<Key>(),
                          thrust::maximum<Value>());
    views_ = make_buffer<subtable>(backend, views.size());
    views_.copy_from(views);
    host_views_ = views;
    backend.synchronize();
  });
}

template <class Key, class Value, class Backend>
hashfight_map<Key, Value, Backend>::~hashfight_map() = default;
template <class Key, class Value, class Backend>
hashfight_map<Key, Value, Backend>::hashfight_map(hashfight_map&&) noexcept = default;
template <class Key, class Value, class Backend>
hashfight_map<Key, Value, Backend>& hashfight_map<Key, Value, Backend>::operator=(hashfight_map&&) noexcept = default;

template <class Key, class Value, class Backend>
void hashfight_map<Key, Value, Backend>::find(std::span<const Key> queries, std::span<Value> values) const
{
  WARPDEX_EXPECTS(values.size() == queries.size(), "hashfight_map::find: " + std::to_string(queries.size()) +
                                                       " queries but " + std::to_string(values.size()) + " values");
  detail::reporting_allocation_failure("hashfight_map::find", [&] {
    find_into(queries, values.data());
    backend_.synchronize();
  });
}

template <class Key, class Value, class Backend>
void hashfight_map<Key, Value, Backend>::find_into(std::span<const Key> queries, Value* values) const
{
  const std::uint64_t n = queries.size();
  const auto rest_from = [&](std::uint32_t first_table) {
    return detail::find_value<Key, Value>{views_.data() + first_table,
                                          static_cast<std::uint32_t>(views_.size()) - first_table,
                                          leftover_keys_.data(), leftover_values_.data(), leftover_keys_.size()};
  };
  if (chunked_subtables_ == 0) {
    thrust::transform(detail::policy_nosync(backend_), queries.data(), queries.data() + n, values, rest_from(0));
    return;
  }
  // The chunked sub-tables (the first ones: sub-tables shrink round by round) one range of slots a pass;
  // each query's range is found once per sub-table (resolved_query once answered); then the rest as one
  // probe.
  auto ranges = make_buffer<std::uint16_t>(backend_, n);
  thrust::fill(detail::policy_nosync(backend_), ranges.data(), ranges.data() + n, std::uint16_t{0});
  const auto all = [&](const auto& step) {
    thrust::for_each(detail::policy_nosync(backend_), thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(n), step);
  };
  for (std::uint32_t t = 0; t < chunked_subtables_; ++t) {
    const hashfight_subtable<Key, Value>& view = host_views_[t];
    const std::uint64_t slots = view.slots;
    const std::uint64_t chunks = hashfight_chunk_count(slots, sizeof(hashfight_entry<Key, Value>), chunk_bytes_);
    all(detail::range_of_query<Key, Value>{queries.data(), view, detail::slots_per_range(slots, chunks), ranges.data(),
                                           values});
    for (std::uint64_t chunk = 0; chunk < chunks; ++chunk) {
      all(detail::probe_range<Key, Value>{queries.data(), view, static_cast<std::uint16_t>(chunk), ranges.data(),
                                          values});
    }
  }
  all(detail::finish_pending<Key, Value>{queries.data(), rest_from(chunked_subtables_), values, ranges.data()});
  // `ranges` is freed on return, ordered on the backend's stream after the passes that use it.
}

template <class Key, class Value, class Backend>
void hashfight_map<Key, Value, Backend>::contains(std::span<const Key> queries, std::span<std::uint8_t> found) const
{
  WARPDEX_EXPECTS(found.size() == queries.size(), "hashfight_map::contains: " + std::to_string(queries.size()) +
                                                      " queries but " + std::to_string(found.size()) + " flags");
  detail::reporting_allocation_failure("hashfight_map::contains", [&] {
    if (chunked_subtables_ == 0) {
      const auto values = thrust::make_transform_iterator(
          queries.data(),
          detail::find_value<Key, Value>{views_.data(), static_cast<std::uint32_t>(views_.size()),
                                         leftover_keys_.data(), leftover_values_.data(), leftover_keys_.size()});
      thrust::transform(detail::policy_nosync(backend_), values, values + queries.size(), found.data(),
                        detail::is_not_miss<Value>{});
    } else {
      auto values = make_buffer<Value>(backend_, queries.size());
      find_into(queries, values.data());
      thrust::transform(detail::policy_nosync(backend_), values.data(), values.data() + queries.size(), found.data(),
                        detail::is_not_miss<Value>{});
    }
    backend_.synchronize();
  });
}

template <class Key, class Value, class Backend>
std::uint64_t hashfight_map<Key, Value, Backend>::size() const
{
  // Counted on first use rather than in the build: a pass over every sub-table the build does not need.
  if (!size_) {
    std::uint64_t stored = leftover_keys_.size();
    for (std::size_t t = 0; t < subtables_.size(); ++t) {
      const auto& table = subtables_[t];
      stored += static_cast<std::uint64_t>(
          thrust::count_if(detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
                           thrust::counting_iterator<std::uint64_t>(table.size()),
                           detail::slot_is_occupied<Key, Value>{table.data(), host_views_[t].bucket_entries}));
    }
    size_ = stored;
  }
  return *size_;
}

template <class Key, class Value, class Backend>
std::uint64_t hashfight_map<Key, Value, Backend>::memory_bytes() const
{
  std::uint64_t bytes = views_.size_bytes() + leftover_keys_.size_bytes() + leftover_values_.size_bytes();
  for (const auto& table : subtables_) { bytes += table.size_bytes(); }
  return bytes;
}

}  // namespace warpdex::dpp

#define WARPDEX_INSTANTIATE_HASHFIGHT(Backend)                         \
  template class hashfight_map<std::uint32_t, std::uint32_t, Backend>; \
  template class hashfight_map<std::uint64_t, std::uint64_t, Backend>;
