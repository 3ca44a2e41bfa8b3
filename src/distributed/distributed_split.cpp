// The distributed multisplit and sort over the in-process loopback group (on the host backend always, and on the
// cuda backend with every rank on the current GPU in CUDA builds), and the choice of bucket ranges.

#include <warpdex/distributed/detail/distributed_split_impl.hpp>
#include <warpdex/distributed/detail/distributed_split_instances.hpp>
#include <warpdex/distributed/loopback_group.hpp>

namespace warpdex::distributed {

bucket_ranges bucket_ranges::even(std::uint32_t buckets, std::uint32_t ranks)
{
  WARPDEX_EXPECTS(ranks >= 1, "bucket_ranges::even: at least one rank");
  bucket_ranges ranges;
  for (std::uint32_t rank = 0; rank <= ranks; ++rank) {
    ranges.first_bucket.push_back(rank * (buckets / ranks) + std::min(rank, buckets % ranks));
  }
  return ranges;
}

bucket_ranges bucket_ranges::balanced(const std::vector<std::uint64_t>& counts, std::uint32_t ranks)
{
  WARPDEX_EXPECTS(ranks >= 1, "bucket_ranges::balanced: at least one rank");
  const auto buckets = static_cast<std::uint32_t>(counts.size());
  double total = 0;
  for (const std::uint64_t count : counts) { total += static_cast<double>(count); }
  if (total == 0) { return even(buckets, ranks); }
  bucket_ranges ranges;
  ranges.first_bucket.push_back(0);
  std::uint32_t bucket = 0;
  double before = 0;  // the keys of the buckets before `bucket`
  for (std::uint32_t rank = 1; rank < ranks; ++rank) {
    const double target = total * rank / ranks;
    while (bucket < buckets && before + static_cast<double>(counts[bucket]) <= target) {
      before += static_cast<double>(counts[bucket++]);
    }
    // The boundary before or after the bucket that holds the target, whichever is nearer to it.
    if (bucket < buckets && before + static_cast<double>(counts[bucket]) - target < target - before) {
      before += static_cast<double>(counts[bucket++]);
    }
    ranges.first_bucket.push_back(bucket);
  }
  ranges.first_bucket.push_back(buckets);
  return ranges;
}

WARPDEX_DISTRIBUTED_SPLIT_INSTANCES(loopback_group<host>)
#if WARPDEX_HAS_CUDA
WARPDEX_DISTRIBUTED_SPLIT_INSTANCES(loopback_group<cuda>)
#endif

}  // namespace warpdex::distributed
