#pragma once
/// @file The slab tables' default hasher and key equality, and what a user's own must provide.
///
/// A table's bucket for key k is `hasher(k) % bucket_count`, and a slot holds k when
/// `key_equal(slot_key, k)` (cuCollections' model: the hasher and the key equality are template
/// parameters of slab_map / slab_set / slab_multimap and of their device refs, with these defaults).
///
/// A user's Hasher and KeyEqual:
/// - are trivially copyable (a copy travels in every kernel's arguments) and cheap to copy;
/// - are callable as `h(Key) const` returning an unsigned integer, and `eq(Key, Key) const` returning
///   bool (Key: the table's key type, std::uint32_t or std::uint64_t), on the host and, for the cuda backend, on
///   the device (`__host__ __device__`, or WARPDEX_HOST_DEVICE);
/// - agree: keys that are equal hash alike (otherwise equal keys land in different lists);
/// - never see a reserved key as the second argument of an equality: the tables compare a slot's key only
///   when it is not a reserved key (key_encoding).
/// A table whose types are not the defaults is instantiated by the user (hash/instantiate.hpp).

#include <warpdex/core/config.hpp>
#include <warpdex/core/hash.hpp>

#include <cstdint>
#include <type_traits>

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

/// The default hasher of 64-bit keys: MurmurHash3's 64-bit finalizer (fmix64) of the key xor a
/// seed-drawn word, whose high 32 bits the table reduces modulo its bucket count. Why not the universal
/// hash of 32-bit keys widened: (a*k + b) mod p over 64-bit keys needs the high half of a 64 x 64-bit
/// product and a 61-bit modulus, a dozen 32-bit multiplies on the GPU; the finalizer is two 64-bit
/// multiplies and three shifts and mixes every key bit into every hash bit (full avalanche), so keys
/// that differ only in their high 32 bits, or share their low 32 bits, spread over the buckets as
/// well as any others (tested). It is a bijection of the 64-bit words, not a universal family: a
/// seed changes which keys collide, not the guarantee.
struct mix64_key_hash {
  std::uint64_t seed_word = 0;  ///< xored into every key before the finalizer

  mix64_key_hash() = default;
  /// The member drawn from `seed` (splitmix64's step, so nearby seeds give unrelated words).
  WARPDEX_HOST_DEVICE explicit constexpr mix64_key_hash(std::uint64_t seed) : seed_word(fmix64(seed + golden_gamma)) {}

  WARPDEX_HOST_DEVICE constexpr std::uint32_t operator()(std::uint64_t key) const
  {
    return static_cast<std::uint32_t>(fmix64(key ^ seed_word) >> 32);
  }

 private:
  static constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ULL;
};

/// The default hasher of a table of `Key`: universal_key_hash for 32-bit keys, mix64_key_hash for 64-bit.
template <class Key>
using default_key_hash = std::conditional_t<sizeof(Key) == 8, mix64_key_hash, universal_key_hash>;

/// The default key equality: equal bits (of keys of either width).
struct key_equal_to {
  template <class Key>
  WARPDEX_HOST_DEVICE constexpr bool operator()(Key lhs, Key rhs) const
  {
    return lhs == rhs;
  }
};

}  // namespace warpdex::hash
