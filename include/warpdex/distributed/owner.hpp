#pragma once
/// @file Which rank owns a key: the owner identifier of the distributed structures, a bucket identifier
/// (bucket_identifiers.hpp) for the multisplit that sorts a batch by owner.
///
/// owner(key) = fmix32(key ^ seed) mod ranks. It is a hash of its own, not the bucket hash of the tables
/// the ranks hold (a universal hash (a * key + b) mod p, hashers.hpp): were the owner taken from the same hash
/// value as the bucket (h mod ranks and h mod buckets), every key on rank r would have h = r (mod ranks),
/// and with a bucket count sharing a factor g with the rank count only 1/g of each rank's buckets could
/// ever be used, their lists g times longer. Murmur's finalizer is a bijection with full avalanche, unrelated
/// to the universal family, so the keys a rank receives spread over all of its buckets.

#include <warpdex/core/config.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <cstdint>

namespace warpdex::distributed {

/// The seed of the owner hash when none is given (any value works; every rank must use the same).
inline constexpr std::uint32_t default_owner_seed = 0x0d15ea5e;

/// The rank in [0, ranks) that owns `key`. Requires ranks >= 1. O(1).
WARPDEX_HOST_DEVICE constexpr std::uint32_t owner_of(std::uint32_t key, std::uint32_t ranks,
                                                     std::uint32_t seed = default_owner_seed)
{
  return fmix32(key ^ seed) % ranks;
}

/// The multisplit identifier of owners: m = ranks + 1 buckets, where a key the slab tables reserve
/// (above hash::max_user_key) goes to the extra bucket `ranks`, so that the split counts the reserved keys
/// of a batch on its way (distributed_slab_map rejects a batch holding any, before anything is sent).
struct owner_buckets {
  std::uint32_t ranks = 1;  ///< >= 1
  std::uint32_t seed = default_owner_seed;

  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t bucket_count() const { return ranks + 1; }
  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t operator()(std::uint32_t key) const
  {
    return key > hash::max_user_key ? ranks : owner_of(key, ranks, seed);
  }
};

}  // namespace warpdex::distributed
