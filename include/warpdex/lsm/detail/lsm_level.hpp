#pragma once
// The storage of one LSM level and the plain view of it that query functors read on either backend.

#include <warpdex/core/buffer.hpp>

#include <cstdint>

namespace warpdex::detail {

/// Status of an entry, stored beside its key so that every key bit stays usable.
inline constexpr std::uint8_t lsm_tombstone = 0;
inline constexpr std::uint8_t lsm_regular = 1;

/// One occupied level: `size` entries sorted by key, each key at most once. Immutable once built, so an
/// update can build new levels while queries and a failed update still see the old ones.
template <class Key, class Value>
struct lsm_level {
  buffer<Key> keys;
  buffer<Value> values;
  buffer<std::uint8_t> status;  // lsm_regular or lsm_tombstone
  std::uint64_t size = 0;
  std::uint64_t tombstones = 0;
};

/// What a query functor needs of a level. `live_before[i]` (size + 1 entries) counts the live entries
/// among the first i; it is null until the liveness index is built.
template <class Key, class Value>
struct lsm_level_view {
  const Key* keys = nullptr;
  const Value* values = nullptr;
  const std::uint8_t* status = nullptr;
  const std::uint64_t* live_before = nullptr;
  std::uint64_t size = 0;
};

}  // namespace warpdex::detail
