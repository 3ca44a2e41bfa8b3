#pragma once
// The storage of one LSM level and the plain view of it that query functors read on either backend.

#include <warpdex/core/buffer.hpp>

#include <cstdint>

namespace warpdex::detail {

/// Status of an entry, stored beside its key so that every key bit stays usable.
inline constexpr std::uint8_t lsm_tombstone = 0;
inline constexpr std::uint8_t lsm_regular = 1;
/// An entry that a newer entry of its key in the same level hides. Within a level the first entry of a
/// key is its newest, so a search that lands on the first entry never reads a stale one.
inline constexpr std::uint8_t lsm_stale = 2;

/// The map's counts of dead entries, kept in the backend's memory and updated by the kernels that make
/// them, so that updates need not read anything back.
enum lsm_counter : std::uint32_t { lsm_tombstone_count = 0, lsm_stale_count = 1, lsm_counter_count = 2 };

/// One occupied level: `size` entries sorted by key, the first entry of each key its newest and any
/// others stale. Its size is known on the host without reading the device: the sum of the batches merged
/// into it. Immutable once built, so an update can build new levels while queries and a failed update
/// still see the old ones.
template <class Key, class Value>
struct lsm_level {
  buffer<std::uint8_t> storage;  // keys, values and statuses in one allocation (one call per level)
  Key* keys = nullptr;
  Value* values = nullptr;
  std::uint8_t* status = nullptr;  // lsm_regular, lsm_tombstone or lsm_stale
  std::uint64_t size = 0;
  // Every lsm_sample_stride-th key, built by the first query that searches the level (a level never
  // changes, so once per level): a search finds its 128-byte line of keys in this array, 1/32 of the
  // level's keys, which the cache holds, and reads one line of the level.
  mutable buffer<Key> samples;
  mutable buffer<Key> coarse;  // every stride-th sample, for levels of more than one line of samples
};

/// Keys between two samples of a level: one 128-byte line.
template <class Key>
inline constexpr std::uint64_t lsm_sample_stride = 128 / sizeof(Key);

/// What a query functor needs of a level. `live_before[i]` (size + 1 entries) counts the live entries
/// among the first i; it is null until the liveness index is built.
template <class Key, class Value>
struct lsm_level_view {
  const Key* keys = nullptr;
  const Value* values = nullptr;
  const std::uint8_t* status = nullptr;
  const std::uint64_t* live_before = nullptr;
  std::uint64_t size = 0;
  const Key* samples = nullptr;  // keys[0], keys[stride], ...: sample_count = ceil(size / stride) entries
  std::uint64_t sample_count = 0;
  const Key* coarse = nullptr;  // samples[0], samples[stride], ...; null for small levels
  std::uint64_t coarse_count = 0;
};

}  // namespace warpdex::detail
