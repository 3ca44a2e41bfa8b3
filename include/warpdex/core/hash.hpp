#pragma once
/// @file Hash functions shared by every structure, usable on host and device.

#include <warpdex/core/config.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace warpdex {

/// MurmurHash3's 32-bit finalizer. A bijection on 32-bit words with full avalanche.
WARPDEX_HOST_DEVICE constexpr std::uint32_t fmix32(std::uint32_t h)
{
  h ^= h >> 16;
  h *= 0x85ebca6bU;
  h ^= h >> 13;
  h *= 0xc2b2ae35U;
  h ^= h >> 16;
  return h;
}

/// MurmurHash3's 64-bit finalizer. A bijection on 64-bit words with full avalanche.
WARPDEX_HOST_DEVICE constexpr std::uint64_t fmix64(std::uint64_t h)
{
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

/// The 32-bit FNV-1a parameters (offset basis and prime) of the reference specification.
inline constexpr std::uint32_t fnv1a_32_offset_basis = 2166136261U;
inline constexpr std::uint32_t fnv1a_32_prime = 16777619U;

/// 32-bit FNV-1a over `length` bytes, continuing from `state` (pass the result to hash in pieces).
WARPDEX_HOST_DEVICE constexpr std::uint32_t fnv1a_32(const unsigned char* bytes, std::size_t length,
                                                     std::uint32_t state = fnv1a_32_offset_basis)
{
  for (std::size_t i = 0; i < length; ++i) {
    state ^= bytes[i];
    state *= fnv1a_32_prime;
  }
  return state;
}

/// 32-bit FNV-1a over the little-endian bytes of each integer in turn: the hash of a small tuple such
/// as a tetrahedron face (three vertex ids) or a clique. Equal tuples in equal order hash equally;
/// callers that want an unordered tuple sort it first.
template <class... Integers>
WARPDEX_HOST_DEVICE constexpr std::uint32_t fnv1a_32_tuple(Integers... values)
{
  static_assert((std::is_integral_v<Integers> && ...), "fnv1a_32_tuple hashes integers");
  static_assert(sizeof...(Integers) > 0, "fnv1a_32_tuple hashes at least one integer");
  std::uint32_t state = fnv1a_32_offset_basis;
  auto mix_integer = [&state](auto value) {
    using unsigned_type = std::make_unsigned_t<decltype(value)>;
    auto bits = static_cast<unsigned_type>(value);
    for (std::size_t byte = 0; byte < sizeof(bits); ++byte) {
      state ^= static_cast<std::uint32_t>(bits & 0xffU);
      state *= fnv1a_32_prime;
      if constexpr (sizeof(bits) > 1) { bits = static_cast<unsigned_type>(bits >> 8); }
    }
  };
  (mix_integer(values), ...);
  return state;
}

/// The universal family h(k) = ((a*k + b) mod p) mod buckets with p = 2^32 - 5, the largest 32-bit prime
/// (the family SlabHash uses). Products stay within 64 bits because a, b < p and k < 2^32. Keys
/// k >= p collide with k - p, which the family tolerates (5 keys of 2^32).
struct universal_hash {
  static constexpr std::uint64_t prime = 4294967291ULL;
  std::uint32_t a = 1;  ///< in [1, prime)
  std::uint32_t b = 0;  ///< in [0, prime)
  std::uint32_t buckets = 1;

  WARPDEX_HOST_DEVICE constexpr std::uint32_t operator()(std::uint32_t key) const
  {
    return static_cast<std::uint32_t>(((static_cast<std::uint64_t>(a) * key + b) % prime) % buckets);
  }
};

/// A member of the universal family drawn from `seed` (deterministic), hashing into `buckets` (> 0).
WARPDEX_HOST_DEVICE constexpr universal_hash make_universal_hash(std::uint64_t seed, std::uint32_t buckets)
{
  const std::uint64_t x = fmix64(seed ^ 0x9e3779b97f4a7c15ULL);
  const std::uint64_t y = fmix64(x + 0x9e3779b97f4a7c15ULL);
  universal_hash hash;
  hash.a = static_cast<std::uint32_t>(1 + x % (universal_hash::prime - 1));
  hash.b = static_cast<std::uint32_t>(y % universal_hash::prime);
  hash.buckets = buckets;
  return hash;
}

}  // namespace warpdex
