#pragma once
/// @file The slab tables' default hasher and key equality, and what a user's own must provide.
///
/// A table's bucket for key k is `hasher(k) % bucket_count`, and a slot holds k when
/// `key_equal(slot_key, k)` (cuCollections' model: the hasher and the key equality are template
/// parameters of slab_map / slab_set / slab_multimap and of their device refs, with these defaults).
///
/// A user's Hasher and KeyEqual:
/// - are trivially copyable (a copy travels in every kernel's arguments) and cheap to copy;
/// - are callable as `h(std::uint32_t) const` returning an unsigned integer, and
///   `eq(std::uint32_t, std::uint32_t) const` returning bool, on the host and, for the cuda backend, on
///   the device (`__host__ __device__`, or WARPDEX_HOST_DEVICE);
/// - agree: keys that are equal hash alike (otherwise equal keys land in different lists);
/// - never see a reserved key as the second argument of an equality: the tables compare a slot's key only
///   when it is not empty_key or erased_key.
/// A table whose types are not the defaults is instantiated by the user (hash/instantiate.hpp).

#include <warpdex/core/config.hpp>
#include <warpdex/core/hash.hpp>

#include <cstdint>

namespace warpdex::hash {

/// The default hasher: the universal hash (a*k + b) mod p of core/hash.hpp (p = 2^32 - 5), drawn from a
/// seed; the table reduces it modulo its bucket count, which gives exactly make_universal_hash(seed,
/// buckets)(k), SlabHash's bucket function. Computed without 64-bit division.
struct universal_key_hash {
  std::uint32_t a = 1;  ///< in [1, universal_hash::prime)
  std::uint32_t b = 0;  ///< in [0, universal_hash::prime)

  universal_key_hash() = default;
  /// The member of the family that make_universal_hash draws from `seed`.
  WARPDEX_HOST_DEVICE explicit constexpr universal_key_hash(std::uint64_t seed)
  {
    const universal_hash drawn = make_universal_hash(seed, 1);
    a = drawn.a;
    b = drawn.b;
  }

  /// (a * key + b) mod p: 2^32 = 5 (mod p), so the 64-bit product folds into 32 bits with two
  /// multiply-adds and one conditional subtraction (equal to universal_hash for every key, tested).
  WARPDEX_HOST_DEVICE constexpr std::uint32_t operator()(std::uint32_t key) const
  {
    constexpr std::uint64_t low_half = 0xffffffffULL;
    constexpr std::uint64_t two_to_32_mod_prime = (low_half + 1) - universal_hash::prime;
    const std::uint64_t product = static_cast<std::uint64_t>(a) * key + b;
    // product < 2^64, then < 6 * 2^32, then < 2^32 + 25 < 2 * prime.
    std::uint64_t folded = (product >> 32) * two_to_32_mod_prime + (product & low_half);
    folded = (folded >> 32) * two_to_32_mod_prime + (folded & low_half);
    if (folded >= universal_hash::prime) { folded -= universal_hash::prime; }
    return static_cast<std::uint32_t>(folded);
  }
};

/// The default key equality: equal bits.
struct key_equal_to {
  WARPDEX_HOST_DEVICE constexpr bool operator()(std::uint32_t lhs, std::uint32_t rhs) const { return lhs == rhs; }
};

}  // namespace warpdex::hash
