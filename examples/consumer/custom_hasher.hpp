#pragma once
// A slab_map with a hasher of the consumer's own: the table type, shared by the file that instantiates
// it (custom_hasher_host.cpp) and the one that uses it (custom_hasher_main.cpp).
#include <warpdex/hash/slab_map.hpp>

#include <cstdint>

/// Fibonacci hashing: the key times 2^32 / phi. Callable on the host and the device.
struct fibonacci_hash {
  WARPDEX_HOST_DEVICE std::uint32_t operator()(std::uint32_t key) const { return key * 0x9e3779b9U; }
};

using fibonacci_map = warpdex::hash::slab_map<std::uint32_t, std::uint32_t, warpdex::host,
                                              warpdex::hash::default_slab_bytes, fibonacci_hash>;
