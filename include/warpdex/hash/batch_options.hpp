#pragma once
/// @file How a slab table runs its bulk operations: the cooperative tile of each operation and the order of a batch's
/// elements, each fixed or automatic (see `plan_batch` for the rule and docs/hash.md for the sweep behind it).

#include <warpdex/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace warpdex::hash {

/// Threads that run one operation together, reading one slab per step between them (an insertion that
/// must append a slab hands that step to the whole warp: its allocator serves it). The host backend
/// accepts every value and runs one thread per operation. Bytes per lane for 128-byte slabs (64-byte
/// slabs: half, and tiles wider than the slab's slots read with their first lanes):
enum class tile_lanes : std::uint8_t {
  automatic = 0,  ///< chosen by plan_batch
  one = 1,        ///< one thread reads all 128 bytes of a slab (eight 16-byte loads)
  four = 4,       ///< 32 bytes per lane (two 16-byte loads), 8 operations per warp
  eight = 8,      ///< 16 bytes per lane (one 16-byte load), 4 operations per warp
  sixteen = 16,   ///< 8 bytes per lane, 2 operations per warp
  warp = 32,      ///< 4 bytes per lane (a map: 8 bytes on lanes 0-15), 1 operation per warp
};

/// In which order a batch's elements run. Results always land at the caller's indices.
enum class batch_order : std::uint8_t {
  automatic = 0,  ///< chosen by plan_batch
  input,          ///< element i runs on thread i
  by_bucket,      ///< elements are stably sorted by bucket first, so a warp's operations share lists
  /// A large insertion batch (insert or insert_or_assign, no statuses, unique keys; the cuda backend) is
  /// first split by the high bits of its keys' buckets (the library's multisplit, keys with their
  /// values), so the warps in flight at any moment work one range of buckets whose slabs stay in L2.
  /// Other batches, and the host backend, run in input order. Not chosen by automatic (docs/hash.md,
  /// "Bulk builds by partition": 1.11x the input order for 2^26 distinct keys on an H200, a tie at 2^24,
  /// slower below and on Zipf-repeated keys).
  by_partition,
};

/// Whether a batch's operations on one key are combined before they reach the table (see
/// detail/slab_combine.hpp): the elements are grouped by key (a sort), each group runs as one sequential
/// run in input order, and the table sees one find and at most one write per distinct key. That keeps a
/// batch with heavily repeated keys linear in its size; for keys that rarely repeat the sort costs more
/// than it saves. A multimap's groups run as multiset_outcome (detail/slab_combine.hpp) says.
enum class batch_combine : std::uint8_t {
  automatic = 0,  ///< batches whose sampled keys repeat (slab_table_base::combines, combine_repeat_threshold)
  never,          ///< every element runs on the table
  always,         ///< every batch is combined
};

/// How an `_async` uniform batch (insertions, insert_or_assign, finds, contains, erasures) holds to the
/// input rules (a reserved key; slab_table.hpp, "Asynchronous batches"). The synchronous calls, and
/// mixed batches, always check the whole batch first (they throw, or reject it whole).
enum class batch_check : std::uint8_t {
  /// A batch holding a reserved key anywhere changes nothing and every element reports rejected. Past
  /// 2048 elements an insertion or erasure (or a find with statuses) is then a check kernel and the
  /// batch kernel: its elements may not start before the whole batch is known to be valid.
  whole_batch = 0,
  /// Only the elements whose own key is reserved report rejected (found 0, a find's default) and change
  /// nothing; the others take effect. Each element checks its own key in the batch kernel, so a batch of
  /// any size is one kernel. For a caller whose keys are valid (the common case) the outcomes are those
  /// of whole_batch. A retry (run_elements::out_of_memory_only) checks its elements the same way.
  each_element,
};

/// The options of a table's bulk operations (`set_batch_options`). All automatic by default.
struct batch_options {
  tile_lanes tile = tile_lanes::automatic;
  batch_order order = batch_order::automatic;
  batch_combine combine = batch_combine::automatic;
  batch_check check = batch_check::whole_batch;
  /// With batch_order::by_partition: the base-slab bytes one bucket range
  /// covers (at most 256 ranges a batch); 0: default_partition_bytes.
  std::uint64_t partition_bytes = 0;
};

/// The base-slab bytes of a bucket range by default: half the L2 of an H100 or H200 (50 MB), so the
/// range's slabs, the overflow slabs its insertions write and the streamed keys fit together. A range
/// as small as 1 MB (256 ranges of a 2^24-key table) keeps so few buckets that the insertions in flight
/// (67K on an H200: 8 a warp) meet several to a bucket and their swaps collide (docs/hash.md).
inline constexpr std::uint64_t default_partition_bytes = std::uint64_t{24} << 20;

/// Throws warpdex::error for a tile size other than automatic, 1, 4, 8, 16 or 32, an unknown order, an
/// unknown combine choice or an unknown check.
inline void validate(const batch_options& options)
{
  const auto tile = static_cast<std::uint32_t>(options.tile);
  WARPDEX_EXPECTS(tile == 0 || tile == 1 || tile == 4 || tile == 8 || tile == 16 || tile == 32,
                  "batch_options: tile_lanes must be automatic, 1, 4, 8, 16 or 32, got " + std::to_string(tile));
  WARPDEX_EXPECTS(options.order <= batch_order::by_partition,
                  "batch_options: unknown batch_order " + std::to_string(static_cast<unsigned>(options.order)));
  WARPDEX_EXPECTS(options.combine <= batch_combine::always,
                  "batch_options: unknown batch_combine " + std::to_string(static_cast<unsigned>(options.combine)));
  WARPDEX_EXPECTS(options.check <= batch_check::each_element,
                  "batch_options: unknown batch_check " + std::to_string(static_cast<unsigned>(options.check)));
}

/// What a batch runs with once the automatic choices are made.
struct batch_plan {
  std::uint32_t tile_lanes = 8;  ///< 1, 4, 8, 16 or 32
  bool by_bucket = false;
  bool by_partition = false;  ///< insertion batches split by bucket range (batch_order::by_partition)
  std::uint64_t partition_bytes = default_partition_bytes;  ///< base-slab bytes a bucket range covers
  /// never, always, or automatic: decided per batch from a sample of its keys (combine_repeat_threshold).
  batch_combine combine = batch_combine::automatic;
  batch_check check = batch_check::whole_batch;  ///< as asked (batch_options::check)
};

/// Keys sampled from a batch to decide whether to combine it: 4096 keys are read back and sorted in
/// tens of microseconds, and a key that makes up 1/1000 of the batch shows up in the sample about four
/// times.
inline constexpr std::uint64_t combine_sample_keys = 4096;
/// An automatic batch is combined when its elements share their key with at least this many other
/// elements on average (estimated from the sample's repeated pairs). Uncombined, a key repeated m times
/// in a mixed batch costs about m^2 / (2 * slots per slab) extra slab reads (the tombstones its
/// erasures leave for its insertions to walk), so the extra work grows with this mean; the combining
/// pass costs about one more batch (the sort). On the host backend (2 cores, mixed batches of 2^21
/// elements, every key repeated equally often) combining lost at 16 other copies (0.15 s against
/// 0.09 s) and won at 32 (0.11 s against 0.18 s); docs/hash.md, "Repeated keys".
inline constexpr double combine_repeat_threshold = 24.0;

/// Expected overflow slabs per list when a bucket receives Poisson(`groups_per_bucket`) groups of
/// `entries_per_group` entries and a slab holds `data_slots` entries: the sum over j >= 1 of
/// P(groups > j * data_slots / entries_per_group), counted up to 64 overflow slabs.
inline double expected_overflow_slabs(double groups_per_bucket, std::uint32_t data_slots,
                                      std::uint32_t entries_per_group = 1)
{
  constexpr std::uint32_t longest_chain_considered = 64;
  constexpr double negligible = 1e-12;
  if (groups_per_bucket <= 0.0) { return 0.0; }
  const double log_mean = std::log(groups_per_bucket);
  // The Poisson terms in log space (exp(-mean) underflows for large means), summed incrementally.
  double log_term = -groups_per_bucket;  // log P(G = 0)
  double at_most = std::exp(log_term);   // P(G <= k)
  std::uint32_t k = 0;
  double overflow = 0.0;
  for (std::uint32_t chain = 1; chain < longest_chain_considered; ++chain) {
    const std::uint32_t limit = chain * data_slots / entries_per_group;
    for (; k < limit; ++k) {
      log_term += log_mean - std::log(static_cast<double>(k) + 1.0);
      at_most += std::exp(log_term);
    }
    const double beyond = std::max(0.0, 1.0 - at_most);
    if (beyond < negligible) { break; }
    overflow += beyond;
  }
  return overflow;
}

/// The automatic tile: 4 lanes, 32 bytes each of a 128-byte slab (two 16-byte loads), 8 operations per
/// warp. In the H200 sweeps (n = 2^26, lists of about 1 and about 3.5 slabs; docs/hash.md) it was the
/// fastest fixed choice in every row for finds, erasures and insertions.
inline constexpr std::uint32_t automatic_tile_lanes = 4;

/// The plan of a batch: fixed options as they are; automatic ones as measured in the sweep, tiles of
/// automatic_tile_lanes and the input order (sorting a batch by bucket never paid for its sort there,
/// not even with lists 3.5 slabs long and 45 operations per bucket).
inline batch_plan plan_batch(const batch_options& options)
{
  validate(options);
  const auto tile = static_cast<std::uint32_t>(options.tile);
  batch_plan plan;
  plan.tile_lanes = tile != 0 ? tile : automatic_tile_lanes;
  plan.by_bucket = options.order == batch_order::by_bucket;
  plan.by_partition = options.order == batch_order::by_partition;
  if (options.partition_bytes != 0) { plan.partition_bytes = options.partition_bytes; }
  plan.combine = options.combine;
  plan.check = options.check;
  return plan;
}

}  // namespace warpdex::hash
