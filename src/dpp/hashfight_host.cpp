// The host backend's hashfight_map (k32/v32 and k64/v64).
// Thrust's OpenMP system (THRUST_DEVICE_SYSTEM is set to OMP for this file by src/dpp/CMakeLists.txt).
#include <warpdex/split/multisplit_host.hpp>

#include "hashfight_impl.hpp"

#include <atomic>
#include <numeric>
#include <vector>

namespace warpdex::dpp::detail {
namespace {

/// All partitioned rounds of partition p, in order, on one thread: the same layout as the cuda backend's
/// (hashfight_cuda.cu), written in place (a partition's regions are a few hundred KiB: the thread's caches).
/// Each round fights lane by lane (hashfight_map.hpp, "Buckets"); the pairs that lose every lane set their
/// bits in their buckets' masks.
template <class Key, class Value>
struct fight_one_partition {
  partitioned_fight<Key, Value> fight;
  std::uint64_t* left_count;

  void operator()(std::uint64_t p) const
  {
    using entry = hashfight_entry<Key, Value>;
    constexpr Key empty = std::numeric_limits<Key>::max();
    const std::uint32_t bucket_entries = fight.layout.bucket_entries;
    const std::uint32_t lanes = bucket_entries == 1 ? 1 : bucket_entries - 1;
    const std::uint64_t begin = fight.offsets[p];
    // Each active pair with its bucket's first entry in the round's region (hashed once a round).
    struct contender {
      std::uint64_t pair;
      entry* bucket;
    };
    std::vector<std::uint64_t> active(fight.offsets[p + 1] - begin);
    std::iota(active.begin(), active.end(), begin);
    std::vector<contender> fighting;
    std::vector<contender> stayed;
    for (std::uint32_t r = 0; r < fight.layout.rounds; ++r) {
      const std::uint64_t region = fight.layout.regions[r];
      const hashfight_subtable<Key, Value> own{
          fight.tables[r] + p * region, region, fight.seeds[r], region, 0, 1, bucket_entries};
      for (std::uint64_t i = 0; i < region; ++i) {
        own.entries[i] = is_mask_entry(i, bucket_entries) ? entry{Key{0}, Value{0}} : entry{empty, Value{0}};
      }
      fighting.clear();
      for (const std::uint64_t i : active) { fighting.push_back({i, slot_of(own, fight.keys[i])}); }
      for (std::uint32_t lane = 0; lane < lanes && !fighting.empty(); ++lane) {
        for (const contender& c : fighting) { c.bucket[lane].key = fight.keys[c.pair]; }
        stayed.clear();
        for (const contender& c : fighting) {
          entry& slot = c.bucket[lane];
          if (slot.key == fight.keys[c.pair]) {
            slot.value = std::max(slot.value, fight.value_at(c.pair));
          } else {
            stayed.push_back(c);
          }
        }
        fighting.swap(stayed);
      }
      active.clear();
      for (const contender& c : fighting) {
        if (bucket_entries > 1) {
          *overflow_mask(c.bucket, bucket_entries) |= overflow_bit(round_hash(own, fight.keys[c.pair]));
        }
        active.push_back(c.pair);
      }
    }
    if (active.empty()) { return; }
    const std::uint64_t at = std::atomic_ref<std::uint64_t>(*left_count).fetch_add(active.size());
    for (std::uint64_t j = 0; j < active.size(); ++j) {
      fight.left_keys[at + j] = fight.keys[active[j]];
      fight.left_values[at + j] = fight.value_at(active[j]);
    }
  }
};

}  // namespace

/// The host's partitioned rounds: the partitions on the host's threads, each fought by one thread.
template <class Key, class Value>
std::uint64_t fight_partitions(const host& backend, const partitioned_fight<Key, Value>& fight)
{
  alignas(std::atomic_ref<std::uint64_t>::required_alignment) std::uint64_t left = 0;
  thrust::for_each(policy(backend), thrust::counting_iterator<std::uint64_t>(0),
                   thrust::counting_iterator<std::uint64_t>(fight.layout.partitions),
                   fight_one_partition<Key, Value>{fight, &left});
  return left;
}

}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_HASHFIGHT(host)
}  // namespace warpdex::dpp
