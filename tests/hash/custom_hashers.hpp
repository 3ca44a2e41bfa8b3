#pragma once
// The hashers and key equalities of the custom-hasher tests, and their table types: shared by the test
// (which instantiates the host backend) and slab_custom_hash_instances.cu (the cuda backend), as a user
// would share them (hash/instantiate.hpp).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/config.hpp>
#include <warpdex/hash/slab_map.hpp>
#include <warpdex/hash/slab_multimap.hpp>
#include <warpdex/hash/slab_set.hpp>

#include <cstdint>

namespace warpdex::testing {

/// Keys are equal when their low 16 bits are: a key class is its low half.
inline constexpr std::uint32_t key_class_mask = 0xffffU;

/// Hashes only a key's class, so equal keys hash alike.
struct key_class_hash {
  WARPDEX_HOST_DEVICE std::uint32_t operator()(std::uint32_t key) const { return (key & key_class_mask) * 0x9e3779b1U; }
};
struct key_class_equal {
  WARPDEX_HOST_DEVICE bool operator()(std::uint32_t lhs, std::uint32_t rhs) const
  {
    return (lhs & key_class_mask) == (rhs & key_class_mask);
  }
};

/// Every key in one bucket: the adversarial hasher (the lists are as long as the table is large).
struct constant_hash {
  WARPDEX_HOST_DEVICE std::uint32_t operator()(std::uint32_t) const { return 7; }
};

/// Multiply-shift with an odd multiplier drawn from a seed, returning 64 bits (the table reduces any
/// unsigned width modulo its bucket count); constructible from a seed, as the default hasher is.
struct multiply_shift_hash {
  std::uint64_t multiplier = 0x9e3779b97f4a7c15ULL;
  multiply_shift_hash() = default;
  WARPDEX_HOST_DEVICE explicit multiply_shift_hash(std::uint64_t seed) : multiplier((seed * 0xff51afd7ed558ccdULL) | 1U)
  {
  }
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint32_t key) const { return (key * multiplier) >> 17; }
};

template <class Backend>
using class_map = hash::slab_map<std::uint32_t, std::uint32_t, Backend, 128, key_class_hash, key_class_equal>;
/// Shares class_map's layout (and so its instantiation).
template <class Backend>
using class_multimap = hash::slab_multimap<std::uint32_t, std::uint32_t, Backend, 128, key_class_hash, key_class_equal>;
template <class Backend>
using constant_set = hash::slab_set<std::uint32_t, Backend, 128, constant_hash>;
template <class Backend>
using multiply_map = hash::slab_map<std::uint32_t, std::uint32_t, Backend, 64, multiply_shift_hash>;

// Names without commas for WARPDEX_HASH_INSTANTIATE_TABLE.
using host_class_map = class_map<host>;
using host_constant_set = constant_set<host>;
using host_multiply_map = multiply_map<host>;
#if WARPDEX_HAS_CUDA
using cuda_class_map = class_map<cuda>;
using cuda_constant_set = constant_set<cuda>;
using cuda_multiply_map = multiply_map<cuda>;
#endif

}  // namespace warpdex::testing
