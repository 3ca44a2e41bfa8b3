#pragma once
/// @file The distributed multisplit and sort of 32-bit keys over the ranks of a rank group (rank_group.hpp: a
/// NCCL `communicator`, or the in-process `loopback_group`): each rank passes a part of the keys, and afterwards
/// each rank holds the keys of a contiguous range of buckets (multisplit) or of key values (sort).
///
/// The global order. Call the ranks' inputs, concatenated in rank order, the *global input*. Afterwards:
/// - `multisplit`: rank r holds the buckets [first_bucket[r], first_bucket[r + 1]) of the identifier (the ranges
///   are contiguous, ascending with the rank, and cover [0, m)); within a rank the buckets are in ascending id,
///   and within a bucket the keys come from the source ranks in rank order, each source's keys in its input
///   order. So the ranks' outputs concatenated in rank order are exactly the stable multisplit of the global
///   input (warpdex::multisplit of it on one device).
/// - `sort`: the ranks' outputs concatenated in rank order are the global input sorted ascending; rank r holds
///   the keys in [splitter[r - 1], splitter[r]) (an empty rank holds none).
///
/// How (the same exchange as distributed_slab_map):
/// 1. each rank splits its keys by bucket with the single-device stable multisplit and counts each bucket;
/// 2. the ranks all-gather a status word and the bucket count m (every rank must agree), then every rank's
///    bucket counts; every rank computes the same bucket ranges from them and so where each bucket goes;
/// 3. all-to-all of variable-size buckets: each rank sends the buckets of rank p's range to p;
/// 4. a rank received its range sender after sender (each sender's part ordered by bucket): one copy of
///    contiguous segments puts them bucket-major (skipped when the range holds one bucket or one rank sent).
/// `sort` first draws a random sample of each rank's keys, all-gathers it (with each rank's key count, so that a
/// sample stands for its share of the keys), picks the ranks' R - 1 splitters at the weighted quantiles
/// (equal splitters merged: heavily repeated keys make fewer, non-empty ranges), multisplits by them
/// (splitter_buckets), and sorts each rank's received keys locally (warpdex::radix_sort).
///
/// Failures are agreed on: each rank's failure in steps 1-2 (bad input sizes, bucket ids outside [0, m), an
/// identifier of another bucket count than rank 0's, invalid bucket ranges, exhausted memory) is reported to every
/// rank in the collective of step 2, or in an all-reduce of a status word after the buffers are allocated, before
/// any key is sent or any output written; then every rank throws (the failing rank its own error, the others one
/// naming the failed ranks; warpdex::out_of_memory when memory ran out). Every process must make the same sequence
/// of calls with the same arguments but the keys (ranges, options).
///
/// Costs per key (n on a rank, about n received): a multisplit (12 bytes moved per key on the GPU), 4 bytes
/// sent and received, a segment copy (8 bytes, when needed) or a radix sort; two small collectives (m + 1 words
/// per rank for the counts) and one all-reduce of a status word; `sort` adds a sample of `samples_per_rank`
/// keys per rank, gathered. Temporary memory: about 2n keys per rank besides the output. Synchronizes every
/// local rank's stream.
///
/// Example (four ranks emulated on the host; see docs/distributed.md):
/// @code
///   warpdex::distributed::loopback_group<warpdex::host> ranks(4);
///   const auto parts = warpdex::distributed::sort(ranks, keys_per_rank);  // per_rank<const std::uint32_t>
///   // parts[r].keys: rank r's sorted range; parts[r].global_offset: where it starts in the global order
/// @endcode

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/distributed/rank_group.hpp>
#include <warpdex/split/bucket_identifiers.hpp>

#include <cstdint>
#include <vector>

namespace warpdex::distributed {

/// One local rank's part of the result of a distributed multisplit or sort, in that rank's memory (its GPU's for
/// cuda: destroy it with that GPU current, e.g. inside the group's for_each_local).
struct rank_part {
  buffer<std::uint32_t> keys;  ///< the keys this rank holds, in the order the file comment describes
  /// The rank's buckets: [first_bucket, first_bucket + bucket_offsets.size() - 1). Bucket first_bucket + i is
  /// keys[bucket_offsets[i], bucket_offsets[i + 1]); the last offset is keys.size(). For `sort`, the buckets are
  /// the splitters' ranges (rank r holds range r, or none when equal splitters were merged).
  std::uint32_t first_bucket = 0;
  std::vector<std::uint64_t> bucket_offsets{0};
  std::uint64_t global_offset = 0;  ///< the keys of the ranks before this one: where keys[0] is in the global order
};

/// Which ranks hold which buckets: rank r holds [first_bucket[r], first_bucket[r + 1]), so first_bucket has
/// ranks + 1 entries, non-decreasing, from 0 to m. Empty: balanced by the keys, chosen by `multisplit` from the
/// global bucket counts (each boundary where the keys before it are nearest to r / ranks of all keys).
struct bucket_ranges {
  std::vector<std::uint32_t> first_bucket;

  /// Every rank the same number of buckets (the first m mod ranks one more).
  [[nodiscard]] static bucket_ranges even(std::uint32_t buckets, std::uint32_t ranks);
  /// The ranges balanced by `counts` (counts[b]: keys of bucket b over all ranks), as the empty value chooses them.
  [[nodiscard]] static bucket_ranges balanced(const std::vector<std::uint64_t>& counts, std::uint32_t ranks);
};

/// The stable multisplit of the ranks' keys (keys[l]: local rank l's part, in its memory) by the identifiers
/// (identifiers[l] for local rank l: bit_field_buckets, delta_buckets or splitter_buckets<std::uint32_t> with its
/// splitters in that rank's memory; every rank's of the same bucket count), the buckets of `ranges` going to each
/// rank. Returns one rank_part per local rank. `phases` (optional) receives the time of the local split and the
/// counts' collectives (split_ms), of the exchange (exchange_ms) and of the segment copy (local_ms), each ended by
/// synchronizing the ranks. Collective. Throws warpdex::error on every rank for: not one span and one identifier
/// per local rank, a bucket id outside [0, m) on any rank, m differing between ranks, ranges without ranks + 1
/// non-decreasing entries from 0 to m or differing between ranks; warpdex::out_of_memory when a rank's memory ran
/// out.
template <class Group, class Identifier>
requires rank_group<Group>
[[nodiscard]] std::vector<rank_part> multisplit(Group& group, const per_rank<const std::uint32_t>& keys,
                                                const std::vector<Identifier>& identifiers,
                                                const bucket_ranges& ranges = {}, call_phases* phases = nullptr);

/// As above, with one identifier for every local rank (its splitters, if any, readable by each: one rank per
/// process, or the loopback group).
template <class Group, class Identifier>
requires rank_group<Group>
[[nodiscard]] std::vector<rank_part> multisplit(Group& group, const per_rank<const std::uint32_t>& keys,
                                                const Identifier& identifier, const bucket_ranges& ranges = {},
                                                call_phases* phases = nullptr)
{
  return multisplit(group, keys, std::vector<Identifier>(group.local_count(), identifier), ranges, phases);
}

struct sort_options {
  /// Keys each rank draws at random (with replacement) for the splitters (all, when it holds fewer). More keys
  /// balance the ranks better: over 4 ranks of 2^18 uniform keys (20 draws each) the fullest rank held on average
  /// 1.070, 1.032, 1.017 and 1.008 times the mean with 256, 1024, 4096 and 16384 samples a rank (about
  /// 1 / sqrt(samples) over the mean). The sample is 8 bytes a key in the all-gather of every rank; a rank holding
  /// more than 2^32 keys draws from its first 2^32.
  std::uint32_t samples_per_rank = 4096;
  std::uint64_t seed = 1;  ///< of the sample's positions (each rank draws with seed + its rank)
};

/// The ranks' keys sorted ascending across the ranks: see the file comment. `phases` as for multisplit, the
/// sample counted in split_ms and the local radix sort in local_ms. Collective; errors as multisplit's
/// (not one span per rank, exhausted memory), agreed on by every rank.
template <class Group>
requires rank_group<Group>
[[nodiscard]] std::vector<rank_part> sort(Group& group, const per_rank<const std::uint32_t>& keys,
                                          const sort_options& options = {}, call_phases* phases = nullptr);

}  // namespace warpdex::distributed
