#pragma once
/// @file `warpdex::dpp::hashfight_map`: the HashFight static hash table (Lessley, Ch. IV): built once from
/// a batch of pairs by hash fighting, then queried in batches, on either backend with the same answers.
/// Built only with the CCCL headers (docs/dpp.md).
///
/// **Layout.** A sequence of sub-tables of entries {key, value} (8 bytes for k32/v32, 16 for k64/v64,
/// each aligned to its size so an entry is one memory access), then a sorted array of leftover pairs.
///
/// **Partitioned rounds** (the first ones; none when n <= `leftover_limit`). Each key has a partition p
/// (a hash of the key scaled to P); each of these sub-tables is cut into P equal regions and a key's slot
/// lies in region p, so the rounds of one partition touch only its own regions. The pairs are split by
/// partition once (the multisplit), then each partition runs all these rounds on chip (one GPU block in
/// shared memory; one host thread) as the rounds below describe, and writes its regions once. The layout
/// (P, each round's region) is fixed before the build by `hashfight_plan` and kept for `find`. The pairs
/// left after them go on to the classic rounds.
///
/// **Buckets** (the partitioned rounds; `hashfight_options::bucket_bytes`). A region is cut into buckets
/// of 32 or 64 bytes (aligned: one or two 32-byte sectors, each read whole by `find`): c lanes of one
/// entry each, then an 8-byte overflow mask. A key's bucket in a round is its round hash scaled to the
/// region's buckets; the round fights lane by lane: every active pair stores its key into lane 0 of its
/// bucket, then (after every store of the lane) the pairs that find their own key there are stored; the
/// others fight for lane 1, and so on to lane c - 1. Lanes fill in order, the copies of one key stay
/// together, and a bucket stores up to c distinct keys a round instead of one. The pairs that lose every
/// lane set one bit of their bucket's mask (bit = round hash mod 64) and go on to the next round. So a
/// key stored after round r set its bit in its bucket of round r: `find` stops with a miss at a bucket
/// that holds neither the key nor its bit. With `bucket_bytes` equal to one entry, a bucket is one slot
/// without a mask: the thesis's layout, where an empty slot is the miss.
///
/// **Classic rounds** (over the pairs left). While more than `leftover_limit` pairs are active and
/// fewer than `max_rounds` rounds ran: a new sub-table of ceil(active * load_factor) empty slots, and
///  1. *Fight* (one algorithm call): every active pair stores its key into the key word of its slot
///     (slot = murmur fmix64(key ^ round seed) scaled to the sub-table) with a relaxed atomic store.
///     Racing stores to one slot: exactly one, any one, survives, untorn.
///  2. *Check* (the next call, after every store of the fight): every active pair reads its slot's key.
///     When it is its own key, the pair is stored: it raises the slot's value word to its value with a
///     relaxed atomic max (values start at 0) and leaves. Otherwise (another key won) it stays active.
///  3. The actives shrink to the pairs that stay, in order.
/// All pairs of one key hash to one slot, so they leave together, in the round their key wins; the value
/// word is written only by pairs of the winning key. The leftovers are sorted by key (duplicates reduced
/// to their largest value) for binary search. Each round stores at least one key per occupied slot; at a
/// load factor of 1 about 37% of the actives collide, so the rounds shrink geometrically (the thesis saw
/// never more than 10 rounds down to a leftover limit of 2^20).
///
/// **Duplicate keys in a build:** of the pairs with one key, the one with the LARGEST value survives
/// (deterministic, equal on both backends; the thesis's "last writer wins" is not deterministic).
///
/// **Find** (one thread per query, any order): the query probes the sub-tables in build order: its own key
/// → the value; an empty slot → a definite miss (had the key been stored later, it would have fought
/// for this slot, which would not be empty); another key → the next sub-table. A bucket is read whole:
/// its own key in a lane → the value; its bit clear in the mask → a definite miss; else the next
/// sub-table. Past the last, a binary search of the leftovers. O(rounds + log leftovers) per query: about
/// 1.6 slot probes for a stored key at load factor 1.03 (2.6 for an absent one), 1.3 buckets of 32 bytes
/// (1.0 for an absent one).
///
/// **Reserved encodings** (validated before anything is allocated): key `empty_key` (all ones) marks an
/// empty slot and cannot be stored; value `miss_value` (all ones) is what `find` answers for an absent
/// key and cannot be stored. Either in a build throws `warpdex::error` naming the first position.
///
/// **Chunked passes** (Ch. VI). A random access to a table larger than the GPU's TLB reach misses the TLB
/// almost every time, and the miss, not DRAM, then limits the fight, check and probe. A sub-table of more
/// than `chunk_bytes` is therefore split into `ceil(bytes / chunk_bytes)` equal ranges of slots (at most
/// `hashfight_max_chunks`), and each step runs once per range: every pair (or query) computes its slot,
/// and only those whose slot lies in the range act in that pass, so the random accesses of a pass stay
/// within one TLB-covered range. The build computes each active pair's range once a round (a 16-bit
/// number per pair: 2 bytes of scratch more), so a pass reads 2 bytes for a pair of another range; the
/// probe likewise numbers each unanswered query's range once per chunked sub-table. These streaming
/// reads are the price of the chunks, against the random 32-byte sectors the fight, check and probe
/// touch. A key's
/// copies share one slot, hence one range: the semantics (below) are the same with and without chunks,
/// and `find`'s answers are equal (only which of several colliding keys wins a slot may differ, as it may
/// between any two builds).
///
/// **Memory.** Sub-tables about 1.6 * n * load_factor entries in all with one slot a key (1.75 n to
/// 2.84 n with 32-byte k32 buckets at load factors 1.03 to 2, their masks included), leftovers up to `leftover_limit`
/// pairs, and, during the build, the pairs split by partition (with the multisplit's copy), a staging
/// area for the pairs left and a flag a pair (25 bytes a k32 pair, 45 a k64 one: 64-bit values travel as
/// 32-bit positions), and 9 bytes per pair of the classic rounds (11 when a sub-table is chunked). A build whose
/// estimate exceeds the backend's whole memory (the device's, or the host's physical memory) throws
/// `warpdex::out_of_memory` before allocating; one that runs out of free memory on the way frees what it took and
/// throws the same (from the memory resource, naming the free and total memory).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace warpdex::dpp {

/// Construction parameters of a `hashfight_map`.
struct hashfight_options {
  /// Slots of a sub-table per active pair (>= 1; the thesis measured 1.03 to 2.0).
  double load_factor = 1.03;
  /// Once this few pairs are active the rest go to the sorted leftovers (the thesis's HASHING_LIMIT): a
  /// build of at most this many pairs runs no round; otherwise the partitioned rounds run as planned
  /// (`hashfight_plan`) and the classic rounds after them while more pairs than this are active.
  std::uint64_t leftover_limit = std::uint64_t{1} << 20;
  /// Fight rounds at most; any pairs still active afterwards go to the leftovers (>= 1).
  std::uint32_t max_rounds = 16;
  /// Seeds the per-round hash functions.
  std::uint64_t seed = 0x6861736866696768ULL;
  /// Bytes of a sub-table one pass of the fight, check or probe may touch (file comment, "Chunked
  /// passes"): 0 chooses the backend's `hashfight_auto_chunk_bytes`; `hashfight_no_chunks` runs every
  /// step in one pass. Larger sub-tables run in several passes.
  std::uint64_t chunk_bytes = 0;
  /// Bytes of a bucket of the partitioned rounds' sub-tables (file comment, "Buckets"): 0 chooses
  /// `hashfight_auto_bucket_bytes` (32 for k32/v32, one slot for k64/v64); the size of one entry (8 for k32/v32, 16 for k64/v64) keeps one slot
  /// a key (the thesis's layout); 32 or 64 (at least two entries) makes buckets whose last 8 bytes are an
  /// overflow mask.
  std::uint32_t bucket_bytes = 0;
};

/// `hashfight_options::chunk_bytes` that never splits a sub-table.
inline constexpr std::uint64_t hashfight_no_chunks = ~std::uint64_t{0};

/// A chunk for GPUs whose TLB reach is small (the thesis: a 2 GB cliff on the K40): 2 GiB. Not the
/// automatic choice: on an H200 no cliff shows up to a 12 GiB sub-table (2^30 k32 pairs at load factor
/// 1.5), and 2 GiB chunks made the build 1.1x and `find` 2.1x slower there (docs/dpp.md).
inline constexpr std::uint64_t hashfight_small_tlb_chunk_bytes = std::uint64_t{2} << 30;

/// The most passes one step of one sub-table runs: a smaller `chunk_bytes` is raised to bytes / this,
/// so that a tiny chunk on a huge table cannot launch millions of passes.
inline constexpr std::uint64_t hashfight_max_chunks = 1024;

/// The automatic chunk of `Backend`: no chunks on either. On the host as in the thesis, which applies
/// its TLB constants only when compiled for the GPU (a CPU's TLB reach is megabytes: chunking to it
/// would cost a pass over the actives per few megabytes); on `cuda` because the H200 measured no cliff
/// (see `hashfight_small_tlb_chunk_bytes`).
template <class Backend>
[[nodiscard]] constexpr std::uint64_t hashfight_auto_chunk_bytes()
{
  return hashfight_no_chunks;
}

/// Passes one step over a sub-table of `slots` entries of `entry_bytes` runs with chunks of `chunk_bytes`
/// (already resolved, not 0): ceil(bytes / chunk_bytes), at least 1, at most `hashfight_max_chunks`.
[[nodiscard]] constexpr std::uint64_t hashfight_chunk_count(std::uint64_t slots, std::size_t entry_bytes,
                                                            std::uint64_t chunk_bytes)
{
  if (chunk_bytes == hashfight_no_chunks || slots == 0) { return 1; }
  const std::uint64_t per_chunk = chunk_bytes < entry_bytes ? 1 : chunk_bytes / entry_bytes;
  const std::uint64_t chunks = slots / per_chunk + (slots % per_chunk != 0 ? 1 : 0);
  return chunks < 1 ? 1 : (chunks > hashfight_max_chunks ? hashfight_max_chunks : chunks);
}

/// One slot of a sub-table: a key and its value, accessed as one aligned unit.
template <class Key, class Value>
struct alignas(sizeof(Key) + sizeof(Value)) hashfight_entry {
  Key key;
  Value value;
};

/// Where one sub-table lies and how its slots are addressed (kernel-side view). The sub-table is cut into
/// `partitions` equal regions of `region` slots (slots = partitions * region); a key of partition p (the
/// map's partition hash of the key scaled to `partitions`) has its slot in region p, at the round hash of
/// the key scaled to `region`; every partitioned sub-table of a map has the same `partition_seed`. A
/// sub-table of one partition (region = slots) is the classic layout. With `bucket_entries` > 1 the region
/// is cut into buckets of that many entries instead (file comment, "Buckets"): the round hash scaled to
/// the region's buckets picks the key's bucket.
template <class Key, class Value>
struct hashfight_subtable {
  hashfight_entry<Key, Value>* entries;
  std::uint64_t slots;
  std::uint64_t seed;
  std::uint64_t region = 0;
  std::uint64_t partition_seed = 0;
  std::uint32_t partitions = 1;
  std::uint32_t bucket_entries = 1;
};

/// The largest bucket of the partitioned rounds: two 32-byte sectors, one aligned 64-byte access.
inline constexpr std::uint32_t hashfight_max_bucket_bytes = 64;

/// The bucket a build of entries of `entry_bytes` uses for `requested` (`hashfight_options::bucket_bytes`;
/// 0: automatic, the same on both backends). Returns 0 for a request that is none of the entry's size, 32
/// or 64 bytes of at least two entries. Automatic, as measured on an H200 (docs/dpp.md, the buckets'
/// measurements): 32-byte buckets for k32 (one sector: finds of absent keys 1.10x-1.51x the
/// open-addressing table where one slot a key ran 0.63x-1.08x, stored keys as fast or faster; a 64-byte
/// bucket's second sector cost a fifth of the finds); one slot a key for k64 (its 64-byte buckets of 3
/// lanes made stored keys' finds and the build slower, absent keys' faster).
[[nodiscard]] constexpr std::uint32_t hashfight_auto_bucket_bytes(std::size_t entry_bytes, std::uint32_t requested)
{
  if (requested == 0) { return entry_bytes <= 8 ? 32 : static_cast<std::uint32_t>(entry_bytes); }
  if (requested == entry_bytes) { return requested; }
  const bool sized = requested == 32 || requested == hashfight_max_bucket_bytes;
  return sized && requested >= 2 * entry_bytes ? requested : 0;
}

/// The most partitioned rounds a build plans (the rounds after them, if any, are classic ones).
inline constexpr std::uint32_t hashfight_max_partitioned_rounds = 16;

/// Shared memory one partition's regions of all partitioned rounds may take on the GPU (two blocks a
/// streaming multiprocessor on an H100 / H200); the host backend plans with the same numbers, so that
/// both backends build the same layout.
inline constexpr std::uint64_t hashfight_partition_bytes = std::uint64_t{100} << 10;

/// The pairs a partition is planned for, at most: one block of 512 threads holds up to 16 32-bit keys
/// (8 64-bit keys) a thread in registers; 3/4 of that leaves room for partitions above the mean.
[[nodiscard]] constexpr std::uint64_t hashfight_partition_pairs(std::size_t entry_bytes)
{
  return entry_bytes <= 8 ? 6144 : 3072;
}

/// The partitioned rounds of a build (file comment, "Partitioned rounds"): `partitions` partitions, and
/// in round r a region of `regions[r]` slots a partition.
struct hashfight_layout {
  std::uint32_t partitions = 1;
  std::uint32_t rounds = 0;
  /// Entries of a bucket, its overflow mask included when more than 1 (every region is a multiple).
  std::uint32_t bucket_entries = 1;
  std::uint32_t regions[hashfight_max_partitioned_rounds] = {};

  /// Slots of one partition's regions in all rounds.
  [[nodiscard]] std::uint64_t partition_slots() const
  {
    std::uint64_t slots = 0;
    for (std::uint32_t r = 0; r < rounds; ++r) { slots += regions[r]; }
    return slots;
  }
};

/// The planned rounds of `pairs` pairs at `options.load_factor`: none when pairs <= leftover_limit (all
/// sorted). Else P partitions of about pairs / P pairs each (at most `hashfight_partition_pairs`, their
/// regions within `hashfight_partition_bytes`), and rounds while a partition expects at least one
/// active pair (at most `max_rounds` and 16): round r's region is ceil(a_r * load factor) slots for the
/// a_r pairs a partition expects then, and a_{r+1} = a_r - (expected occupied slots of the region). With
/// buckets of c lanes (c entries and a mask) the region is ceil(a_r * load factor / c) buckets, of which
/// a bucket stores E[min(X, c)] pairs, X the Poisson count of pairs that pick it.
[[nodiscard]] inline hashfight_layout hashfight_plan(std::uint64_t pairs, std::size_t entry_bytes,
                                                     const hashfight_options& options)
{
  hashfight_layout layout;
  const std::uint32_t bucket_bytes = hashfight_auto_bucket_bytes(entry_bytes, options.bucket_bytes);
  if (pairs == 0 || pairs <= options.leftover_limit || !(options.load_factor >= 1.0) || options.load_factor > 64.0 ||
      bucket_bytes == 0) {
    return layout;
  }
  const auto bucket_entries = static_cast<std::uint32_t>(bucket_bytes / entry_bytes);
  const std::uint32_t lanes = bucket_entries == 1 ? 1 : bucket_entries - 1;
  // Pairs a bucket of `lanes` lanes stores when `mean` pairs pick it: E[min(X, lanes)], X ~ Poisson(mean).
  const auto stored_in_bucket = [lanes](double mean) {
    double at_most = 0;  // P(X <= k)
    double exactly = std::exp(-mean);
    double stored = 0;
    for (std::uint32_t k = 0; k < lanes; ++k) {
      at_most += exactly;
      stored += 1.0 - at_most;  // P(X >= k + 1)
      exactly *= mean / static_cast<double>(k + 1);
    }
    return stored;
  };
  const std::uint32_t most_rounds = std::min(options.max_rounds, hashfight_max_partitioned_rounds);
  const std::uint64_t per_partition = hashfight_partition_pairs(entry_bytes);
  std::uint64_t partitions = std::max<std::uint64_t>(1, (pairs + per_partition - 1) / per_partition);
  for (;;) {
    layout = hashfight_layout{};
    layout.partitions = static_cast<std::uint32_t>(partitions);
    layout.bucket_entries = bucket_entries;
    double active = static_cast<double>(pairs) / static_cast<double>(partitions);
    while (layout.rounds < most_rounds && (layout.rounds == 0 || active >= 1.0)) {
      const double buckets = std::max(1.0, std::ceil(active * options.load_factor / lanes));
      layout.regions[layout.rounds++] = static_cast<std::uint32_t>(buckets) * bucket_entries;
      active -= buckets * stored_in_bucket(active / buckets);
    }
    if (layout.partition_slots() * entry_bytes <= hashfight_partition_bytes || partitions >= pairs) { break; }
    partitions = std::min<std::uint64_t>(pairs, partitions + partitions / 8 + 1);
  }
  return layout;
}

/// A static map from `Key` to `Value` built by HashFight. Supported: (std::uint32_t, std::uint32_t) and
/// (std::uint64_t, std::uint64_t). Spans lie in the backend's memory. Queries are const and may run
/// concurrently with each other; the map is immutable after construction.
template <class Key, class Value, class Backend>
class hashfight_map {
 public:
  using key_type = Key;
  using value_type = Value;
  /// The reserved key: marks an empty slot; cannot be stored.
  static constexpr Key empty_key = std::numeric_limits<Key>::max();
  /// The reserved value: `find`'s answer for an absent key; cannot be stored.
  static constexpr Value miss_value = std::numeric_limits<Value>::max();

  /// Builds the map from keys[i] -> values[i] (see the file comment for duplicates). Throws
  /// `warpdex::error` on a size mismatch, a reserved key or value, more than 2^32 - 2 pairs or options
  /// out of range, and `warpdex::out_of_memory` when the table does not fit; nothing is kept then.
  hashfight_map(const Backend& backend, std::span<const Key> keys, std::span<const Value> values,
                hashfight_options options = {});
  ~hashfight_map();
  hashfight_map(hashfight_map&&) noexcept;
  hashfight_map& operator=(hashfight_map&&) noexcept;
  hashfight_map(const hashfight_map&) = delete;
  hashfight_map& operator=(const hashfight_map&) = delete;

  /// values[i] = the value of queries[i], or `miss_value` when absent. Requires equal sizes. Any query
  /// value is allowed (`empty_key` is simply absent). With chunked sub-tables (`chunked_subtables()`) the
  /// probe runs one pass per range of each of them, over the queries not yet answered, and takes two
  /// bytes per query of scratch (`contains` one value more).
  void find(std::span<const Key> queries, std::span<Value> values) const;

  /// found[i] = 1 when queries[i] is stored, else 0. Requires equal sizes.
  void contains(std::span<const Key> queries, std::span<std::uint8_t> found) const;

  /// Distinct keys stored (counted over the sub-tables on the first call, O(slots); then cached).
  [[nodiscard]] std::uint64_t size() const;
  /// Fight rounds of the build (= sub-tables).
  [[nodiscard]] std::uint32_t rounds() const { return static_cast<std::uint32_t>(subtables_.size()); }
  /// The chunk the build used and `find` uses (`options().chunk_bytes`, the automatic one resolved).
  [[nodiscard]] std::uint64_t chunk_bytes() const { return chunk_bytes_; }
  /// Sub-tables larger than one chunk, whose steps run in several passes (they come first).
  [[nodiscard]] std::uint32_t chunked_subtables() const { return chunked_subtables_; }
  /// Partitions of the partitioned rounds (1 when none ran).
  [[nodiscard]] std::uint32_t partitions() const { return layout_.partitions; }
  /// The partitioned rounds (the first sub-tables); classic rounds may follow them.
  [[nodiscard]] std::uint32_t partitioned_rounds() const { return layout_.rounds; }
  /// Entries of a bucket of the partitioned rounds (its mask included; 1: one slot a key, no mask).
  [[nodiscard]] std::uint32_t bucket_entries() const { return layout_.bucket_entries; }
  /// Distinct keys in the sorted leftovers.
  [[nodiscard]] std::uint64_t leftover_size() const { return leftover_keys_.size(); }
  /// Bytes the map holds (sub-tables, leftovers, the sub-table views).
  [[nodiscard]] std::uint64_t memory_bytes() const;
  [[nodiscard]] const hashfight_options& options() const { return options_; }

 private:
  Backend backend_;
  hashfight_options options_;
  std::uint64_t chunk_bytes_ = hashfight_no_chunks;
  std::uint32_t chunked_subtables_ = 0;
  hashfight_layout layout_;
  std::vector<buffer<hashfight_entry<Key, Value>>> subtables_;
  buffer<hashfight_subtable<Key, Value>> views_;
  std::vector<hashfight_subtable<Key, Value>> host_views_;  // the same views, read by the host
  buffer<Key> leftover_keys_;
  buffer<Value> leftover_values_;
  mutable std::optional<std::uint64_t> size_;

  /// values[i] = the value of queries[i] or the miss value, chunked where the sub-tables need it.
  void find_into(std::span<const Key> queries, Value* values) const;
};

/// Peak bytes a build of `pairs` pairs needs beyond its inputs. The partitioned rounds (hashfight_plan):
/// their sub-tables, the pairs split by partition (and the multisplit's copy of them; 32-bit positions in
/// place of 64-bit values), a staging area for the pairs left after them and a flag a pair; the classic rounds
/// after them (or instead, when none is planned) from their expected sizes: a round at load factor f
/// stores f * (1 - e^(-1/f)) of its actives, so the sub-tables hold actives * f / that fraction slots in
/// all, plus 9 bytes of scratch per active pair (two lists of 32-bit positions and a flag; 2 more for the
/// range numbers unless `chunk_bytes` is `hashfight_no_chunks`); and the leftovers. The build checks it
/// against the backend's memory before starting.
[[nodiscard]] inline std::uint64_t hashfight_build_bytes(std::uint64_t pairs, std::size_t entry_bytes,
                                                         const hashfight_options& options)
{
  const double f = options.load_factor;
  const hashfight_layout layout = hashfight_plan(pairs, entry_bytes, options);
  double bytes = 0;
  double classic_pairs = static_cast<double>(pairs);
  if (layout.rounds > 0) {
    // The split pairs and the multisplit's copy of them (key and 32-bit value or position), the staging
    // area (key and value), a flag, and for 64-bit values the positions the multisplit reads.
    const double split_pair_bytes = static_cast<double>(entry_bytes / 2 + 4);
    const double positions = entry_bytes > 8 ? 4.0 : 0.0;
    bytes += static_cast<double>(layout.partitions) * static_cast<double>(layout.partition_slots()) *
                 static_cast<double>(entry_bytes) +
             static_cast<double>(pairs) * (2.0 * split_pair_bytes + static_cast<double>(entry_bytes) + 1.0 + positions);
    classic_pairs = std::min(classic_pairs, static_cast<double>(layout.partitions) * 4.0);
  }
  const double stored_fraction = f * (1.0 - std::exp(-1.0 / f));
  const double slots = classic_pairs * f / stored_fraction;
  const double leftovers = static_cast<double>(std::min(pairs, options.leftover_limit)) * 2.0 * entry_bytes;
  const double scratch_bytes_per_pair = options.chunk_bytes == hashfight_no_chunks ? 9.0 : 11.0;
  bytes += slots * static_cast<double>(entry_bytes) + scratch_bytes_per_pair * classic_pairs + leftovers;
  return static_cast<std::uint64_t>(std::min(bytes, 1.8e19));
}

}  // namespace warpdex::dpp
