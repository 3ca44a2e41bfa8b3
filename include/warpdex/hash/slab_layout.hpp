#pragma once
/// @file The slab: the node of every slab list, its reserved encodings, and the per-slab protocol that
/// the CUDA backend (one warp per slab read) and the host backend (one thread per slab read) share.
///
/// A slab is 128 bytes (one coalesced read of a warp) or, on request, 64 bytes (two DRAM sectors instead
/// of four). It is an array of slots followed by one link:
///
/// | table (key / value bits) | slot                         | slots per slab (128 / 64 B) | data slots | link |
/// |--------------------------|------------------------------|-----------------------------|------------|---------------------------|
/// | slab_map 32 / 32         | 64-bit (key, value) word     | 16 / 8                      | 15 / 7     | high half of
/// the last     | | slab_set 32              | 32-bit key                   | 32 / 16                     | 31 / 15 |
/// the last slot             | | slab_map 64 / 64         | 128-bit (key, value) pair    | 8 (128 B only) | 7 | low
/// half of the last key  | | slab_set 64              | 64-bit key                   | 16 (128 B only)             | 15
/// | low half of the last slot |
///
/// (A slab_multimap has its slab_map's layout.) A 32 / 32 map's key and value change together with one
/// 64-bit compare-and-swap, and every reader reads a whole slot, so no reader sees a key with a stale
/// value. A 64 / 64 pair is wider than the 64-bit compare-and-swap, so its key word is the one that is
/// swapped and its value word is written apart (key_value_pair64 says how, and why no reader sees a
/// key before its value). A 64-bit key table keeps a slab one 128-byte read: a 64 / 64 slab of 7 pairs
/// reads no more bytes per lookup than a 32 / 32 slab of 15 (docs/hash.md), where a 256-byte slab of 15
/// pairs would read twice as many. A 64 / 32 map is not offered: its 12-byte pair fits no single
/// compare-and-swap either, and padded to 16 bytes it would be the 64 / 64 layout.

#include <warpdex/core/config.hpp>
#include <warpdex/hash/hashers.hpp>

#include <bit>
#include <cstdint>
#include <type_traits>

namespace warpdex::hash {

/// Bytes in a slab by default: 32 lanes of 4 bytes, one 128-byte transaction.
inline constexpr std::uint32_t default_slab_bytes = 128;
/// Whether the tables offer slabs of `bytes`: 128 (the slab hash's) or 64 (DACHash's smaller nodes).
WARPDEX_HOST_DEVICE constexpr bool is_supported_slab_size(std::uint32_t bytes)
{
  return bytes == 64 || bytes == 128;
}

/// The key of a slot never written. Reserved: a batch holding it is rejected before anything changes.
inline constexpr std::uint32_t empty_key = 0xffffffffU;
/// The key of an erased slot (a tombstone). Reserved like `empty_key`. Erased slots are not reused
/// by insertions (that keeps keys unique without locks); `flush` reclaims them.
inline constexpr std::uint32_t erased_key = 0xfffffffeU;
/// The largest key a table accepts.
inline constexpr std::uint32_t max_user_key = erased_key - 1;
/// The reserved 64-bit keys: a slot never written, an erased slot, and a slot whose pair is being
/// written (a 64 / 64 map's insertion holds its slot with it while it writes the value; reserved in
/// every 64-bit table, so one rule holds for all of them).
inline constexpr std::uint64_t empty_key64 = ~std::uint64_t{0};
inline constexpr std::uint64_t erased_key64 = empty_key64 - 1;
inline constexpr std::uint64_t pending_key64 = empty_key64 - 2;
/// The largest 64-bit key a table accepts.
inline constexpr std::uint64_t max_user_key64 = pending_key64 - 1;
/// A link that points nowhere: the end of a slab list.
inline constexpr std::uint32_t null_slab = 0xffffffffU;
/// Every byte of a fresh slab: empty keys, and a null link.
inline constexpr std::uint8_t fresh_slab_byte = 0xff;

/// Whether `key` is one of the reserved encodings.
WARPDEX_HOST_DEVICE constexpr bool is_reserved_key(std::uint32_t key)
{
  return key > max_user_key;
}
/// Whether the 64-bit `key` is one of the reserved encodings.
WARPDEX_HOST_DEVICE constexpr bool is_reserved_key(std::uint64_t key)
{
  return key > max_user_key64;
}

/// The reserved encodings of a key type (32- or 64-bit unsigned).
template <class Key>
struct key_encoding;
template <>
struct key_encoding<std::uint32_t> {
  static constexpr std::uint32_t empty = empty_key;
  static constexpr std::uint32_t erased = erased_key;
  static constexpr std::uint32_t max_user = max_user_key;
  static constexpr const char* reserved_names = "empty_key or erased_key";
};
template <>
struct key_encoding<std::uint64_t> {
  static constexpr std::uint64_t empty = empty_key64;
  static constexpr std::uint64_t erased = erased_key64;
  static constexpr std::uint64_t max_user = max_user_key64;
  static constexpr const char* reserved_names = "empty_key64, erased_key64 or pending_key64";
};

/// One operation of a batch. In a mixed batch each element carries its own.
enum class operation : std::uint32_t {
  find = 0,              ///< look the key up; report its value
  insert = 1,            ///< insert the pair if the key is absent; a present key keeps its value
  insert_or_assign = 2,  ///< insert the pair, or replace the value of a present key
  erase = 3,             ///< remove the key if present
};
/// One past the largest operation code: codes at or above it are rejected.
inline constexpr std::uint32_t operation_count = 4;

/// What one operation of a batch did.
enum class operation_status : std::uint32_t {
  found = 0,            ///< find: the key is present (its value was written)
  not_found = 1,        ///< find or erase: the key was absent
  inserted = 2,         ///< insert or insert_or_assign: the key was absent and now holds the value
  already_present = 3,  ///< insert: the key was present and kept its value
  assigned = 4,         ///< insert_or_assign: the key was present and now holds the new value
  erased = 5,           ///< erase: the key was present and is now absent
  out_of_memory = 6,    ///< insert or insert_or_assign: the slab pool was exhausted; the table is unchanged
  /// An `_async` batch only: the batch broke the input rules (a reserved key, or an operation code
  /// unknown or not offered, anywhere in it), so none of its elements ran and the table is unchanged
  /// (the synchronous calls throw warpdex::error instead).
  rejected = 7,
};

/// What every layout shares: slabs of `SlabBytes` holding slots of `Slot` (the last one the link), the
/// key type and its reserved encodings, the default hasher and equality of the key type, and whether the
/// protocol must watch for pending slots (a 64 / 64 pair being written).
template <class Key, class Slot, std::uint32_t SlabBytes, bool HasValues, bool PairsWrittenApart = false>
struct slab_slots {
  static_assert(std::is_same_v<Key, std::uint32_t> || std::is_same_v<Key, std::uint64_t>,
                "slab tables hold 32- or 64-bit unsigned keys");
  static_assert(is_supported_slab_size(SlabBytes), "slabs are 64 or 128 bytes");
  static_assert(sizeof(Key) == 4 || SlabBytes == 128, "64-bit key tables have 128-byte slabs");
  using key_type = Key;
  using slot_type = Slot;
  static constexpr std::uint32_t slab_bytes = SlabBytes;
  static constexpr std::uint32_t slab_words = SlabBytes / sizeof(std::uint32_t);
  static constexpr std::uint32_t slots_per_slab = SlabBytes / sizeof(Slot);
  static constexpr std::uint32_t data_slots = slots_per_slab - 1;
  static constexpr std::uint32_t link_slot = slots_per_slab - 1;
  static constexpr bool has_values = HasValues;
  /// The bucket hash and key equality (hashers.hpp): the defaults; keyed_slots names others.
  using hasher = default_key_hash<Key>;
  using key_equal = key_equal_to;
  static constexpr Key empty_key = key_encoding<Key>::empty;
  static constexpr Key erased_key = key_encoding<Key>::erased;
  static constexpr Key max_user_key = key_encoding<Key>::max_user;
  /// Whether a slot's value is written apart from its key (key_value_pair64): then an insertion holds
  /// its slot with pending_key64 while it writes, and the protocol reads such a slot again.
  static constexpr bool writes_value_apart = PairsWrittenApart;
  WARPDEX_HOST_DEVICE static constexpr bool is_reserved(Key key) { return key > max_user_key; }
  WARPDEX_HOST_DEVICE static constexpr bool is_pending(Key key)
  {
    if constexpr (PairsWrittenApart) {
      return key == pending_key64;
    } else {
      return false;
    }
  }
};

/// The slot layout of a map with slabs of `SlabBytes`: 64-bit words, 32-bit key in the low half and
/// 32-bit value in the high half. (The 64 / 64 layout is the specialization below.)
template <std::uint32_t SlabBytes, class Key = std::uint32_t, class Value = std::uint32_t>
struct basic_map_slots : slab_slots<std::uint32_t, std::uint64_t, SlabBytes, true> {
  static_assert(std::is_same_v<Key, std::uint32_t> && std::is_same_v<Value, std::uint32_t>,
                "slab maps hold 32-bit keys with 32-bit values, or 64-bit keys with 64-bit values");
  using slot_type = std::uint64_t;
  using value_type = std::uint32_t;
  /// A slot that was never written: both halves all ones, as a fresh slab's bytes.
  static constexpr slot_type empty_slot = ~slot_type{0};

  WARPDEX_HOST_DEVICE static constexpr std::uint32_t key_of(slot_type slot) { return static_cast<std::uint32_t>(slot); }
  WARPDEX_HOST_DEVICE static constexpr std::uint32_t value_of(slot_type slot)
  {
    return static_cast<std::uint32_t>(slot >> 32);
  }
  WARPDEX_HOST_DEVICE static constexpr std::uint32_t link_of(slot_type slot) { return value_of(slot); }
  WARPDEX_HOST_DEVICE static constexpr slot_type make_slot(std::uint32_t key, std::uint32_t value)
  {
    return (static_cast<slot_type>(value) << 32) | key;
  }
  /// A link slot pointing at `next`; its low half (unused) stays all ones like a fresh slab's.
  WARPDEX_HOST_DEVICE static constexpr slot_type make_link(std::uint32_t next) { return make_slot(empty_key, next); }
};

/// A slot of a 64 / 64 map: a 64-bit key word and a 64-bit value word, 16-byte aligned (one 16-byte
/// vector load reads both). The 64-bit compare-and-swap covers the key word only, so:
/// - an insertion swaps the key word from empty_key64 to pending_key64, writes the value word, and then
///   publishes the key (release: the value is visible before the key). A reader that meets a pending
///   slot treats it as not (yet) holding its key; a unique-key insertion reads the slab again until the
///   slot is published (it may hold the same key: two insertions of one key must not both succeed);
/// - an assignment writes the value word of a slot holding the key (an atomic store: finds see the old
///   value or the new one, both held by the key);
/// - an erasure swaps the key word to erased_key64, leaving the value word;
/// - a link is swapped in the last slot's key word (low half: the next slab; high half all ones).
/// A reader that may run beside writers and finds its key reads the value word again after a fence
/// (the key was read first), so a found value is one the key held.
struct alignas(16) key_value_pair64 {
  std::uint64_t key;
  std::uint64_t value;
  WARPDEX_HOST_DEVICE friend constexpr bool operator==(const key_value_pair64& a, const key_value_pair64& b)
  {
    return a.key == b.key && a.value == b.value;
  }
};

/// The slot layout of a 64 / 64 map (and multimap): 128-byte slabs of 8 pairs, 7 data pairs and a link.
template <std::uint32_t SlabBytes>
struct basic_map_slots<SlabBytes, std::uint64_t, std::uint64_t>
    : slab_slots<std::uint64_t, key_value_pair64, SlabBytes, true, true> {
  using slot_type = key_value_pair64;
  using value_type = std::uint64_t;
  static constexpr slot_type empty_slot = {empty_key64, ~std::uint64_t{0}};

  WARPDEX_HOST_DEVICE static constexpr std::uint64_t key_of(const slot_type& slot) { return slot.key; }
  WARPDEX_HOST_DEVICE static constexpr std::uint64_t value_of(const slot_type& slot) { return slot.value; }
  WARPDEX_HOST_DEVICE static constexpr std::uint32_t link_of(const slot_type& slot)
  {
    return static_cast<std::uint32_t>(slot.key);
  }
  WARPDEX_HOST_DEVICE static constexpr slot_type make_slot(std::uint64_t key, std::uint64_t value)
  {
    return {key, value};
  }
  /// A link slot pointing at `next`: the key word's high half all ones, as a fresh slab's.
  WARPDEX_HOST_DEVICE static constexpr slot_type make_link(std::uint32_t next)
  {
    return {(empty_key64 << 32) | next, ~std::uint64_t{0}};
  }
};

/// The slot layout of a set of `Key` (32- or 64-bit) with slabs of `SlabBytes`: one key per slot.
template <std::uint32_t SlabBytes, class Key = std::uint32_t>
struct basic_set_slots : slab_slots<Key, Key, SlabBytes, false> {
  using slot_type = Key;
  using value_type = std::uint32_t;  ///< none: the batches' value arrays of a set are null
  static constexpr slot_type empty_slot = key_encoding<Key>::empty;

  WARPDEX_HOST_DEVICE static constexpr Key key_of(slot_type slot) { return slot; }
  WARPDEX_HOST_DEVICE static constexpr std::uint32_t value_of(slot_type) { return 0; }
  WARPDEX_HOST_DEVICE static constexpr std::uint32_t link_of(slot_type slot)
  {
    return static_cast<std::uint32_t>(slot);
  }
  WARPDEX_HOST_DEVICE static constexpr slot_type make_slot(Key key, std::uint32_t) { return key; }
  /// A link slot pointing at `next` (a 64-bit slot's high half all ones, as a fresh slab's).
  WARPDEX_HOST_DEVICE static constexpr slot_type make_link(std::uint32_t next)
  {
    return static_cast<Key>(key_encoding<Key>::empty ^ null_slab) | next;
  }
};

/// The default layouts: 128-byte slabs.
using map_slots = basic_map_slots<default_slab_bytes>;
using set_slots = basic_set_slots<default_slab_bytes>;
/// The 64-bit key layouts: a 64 / 64 map (and multimap), a set of 64-bit keys.
using map64_slots = basic_map_slots<default_slab_bytes, std::uint64_t, std::uint64_t>;
using set64_slots = basic_set_slots<default_slab_bytes, std::uint64_t>;

/// The slots of `Layout` in a table with a user's hasher and key equality (hashers.hpp): the same
/// layout and protocol; only the bucket of a key and the slot comparison change.
template <class Layout, class Hasher, class KeyEqual>
struct keyed_slots : Layout {
  static_assert(std::is_trivially_copyable_v<Hasher> && std::is_trivially_copyable_v<KeyEqual>,
                "a slab table's hasher and key equality travel in kernel arguments: they must be trivially copyable");
  using hasher = Hasher;
  using key_equal = KeyEqual;
};

/// The slots of a table of `Layout` with `Hasher` and `KeyEqual`: `Layout` itself with the default
/// ones (the types the library instantiates), keyed_slots otherwise.
template <class Layout, class Hasher, class KeyEqual>
using slots_with = std::conditional_t<std::is_same_v<Hasher, typename Layout::hasher> &&
                                          std::is_same_v<KeyEqual, typename Layout::key_equal>,
                                      Layout, keyed_slots<Layout, Hasher, KeyEqual>>;

/// Whether `Slots` compare keys by their bits (the default key_equal_to): then a slot of a reserved key
/// never equals a user key without a separate check, and batches may combine by sorting keys.
template <class Slots>
inline constexpr bool compares_key_bits = std::is_same_v<typename Slots::key_equal, key_equal_to>;

/// What one read of a slab showed about one key: which data slots hold it, which are empty, and
/// the link to the next slab.
struct slab_summary {
  std::uint32_t match_slots = 0;    ///< bit s: data slot s holds the key
  std::uint32_t empty_slots = 0;    ///< bit s: data slot s was never written
  std::uint32_t pending_slots = 0;  ///< bit s: data slot s is being written (64 / 64 maps only)
  std::uint32_t next = null_slab;
};

/// The index of the lowest set bit of `bits` (!= 0): one instruction on either side.
WARPDEX_HOST_DEVICE inline std::uint32_t lowest_set_bit(std::uint32_t bits)
{
#ifdef __CUDA_ARCH__
  return static_cast<std::uint32_t>(__ffs(static_cast<int>(bits)) - 1);
#else
  return static_cast<std::uint32_t>(std::countr_zero(bits));
#endif
}

/// What an operation does after reading a slab.
enum class step_kind : std::uint8_t {
  finish,     ///< the operation is over with `status`
  swap_slot,  ///< compare-and-swap data slot `slot` from what was read to `desired`; on failure reread
  follow,     ///< go on to slab `summary.next`
  append,     ///< the list ends here: allocate a slab and link it (or follow whoever linked first)
  reread,     ///< a slot of the slab is being written and may hold the key: read the slab again
};

struct step {
  step_kind kind = step_kind::finish;
  operation_status status = operation_status::not_found;  ///< finish: the result; swap_slot: the result on success
  std::uint32_t slot = 0;                                 ///< finish (found): the matching slot; swap_slot
  bool desired_erases = false;                            ///< swap_slot: write an erased slot, not the pair
};

/// The protocol of the unique-key table, the same on every backend. Keys go only into empty slots,
/// scanned in list order, and an empty slot is written only once, so two insertions of one key cannot
/// both succeed (the second reads the first's slot before reaching any later empty slot).
WARPDEX_HOST_DEVICE inline step next_step(operation op, const slab_summary& summary)
{
  const auto lowest = [](std::uint32_t bits) { return lowest_set_bit(bits); };
  if (summary.match_slots != 0) {
    const std::uint32_t slot = lowest(summary.match_slots);
    switch (op) {
      case operation::find:
        return {step_kind::finish, operation_status::found, slot, false};
      case operation::insert:
        return {step_kind::finish, operation_status::already_present, slot, false};
      case operation::insert_or_assign:
        return {step_kind::swap_slot, operation_status::assigned, slot, false};
      case operation::erase:
        return {step_kind::swap_slot, operation_status::erased, slot, true};
    }
  }
  const bool inserts = op == operation::insert || op == operation::insert_or_assign;
  if (inserts && summary.empty_slots != 0) {
    return {step_kind::swap_slot, operation_status::inserted, lowest(summary.empty_slots), false};
  }
  if (summary.next != null_slab) { return {step_kind::follow}; }
  if (inserts) { return {step_kind::append}; }
  return {step_kind::finish, operation_status::not_found, 0, false};
}

/// Whether an operation whose swap of `next` failed is over all the same: an assignment (the slot held
/// its key, and the only writes to such a slot are another assignment and an erasure, neither of which
/// reports anything that depends on the value it replaced, so the assignment takes effect just before
/// that write, which overwrites it). Without this, n assignments of one key would retry O(n) times each.
/// Every other failed swap reads the slab again.
WARPDEX_HOST_DEVICE constexpr bool finishes_after_failed_swap(const step& next)
{
  return next.kind == step_kind::swap_slot && next.status == operation_status::assigned;
}

/// Whether a table holds each key at most once (slab_map, slab_set) or any number of times
/// (slab_multimap).
enum class key_mode : std::uint8_t {
  unique,      ///< an insertion of a present key finds it and does not add another
  duplicates,  ///< an insertion always adds its pair
};

/// The protocol of a table in `mode`. With duplicates an insertion ignores the slots that hold its key
/// and takes the first empty slot in list order, as a unique insertion of an absent key does; finds
/// and erasures meet the first instance in list order.
WARPDEX_HOST_DEVICE inline step next_step(operation op, slab_summary summary, key_mode mode)
{
  const bool inserts = op == operation::insert || op == operation::insert_or_assign;
  if (mode == key_mode::duplicates && inserts) { summary.match_slots = 0; }
  // A pending slot lies before every empty slot of its slab (its writer took the first empty one) and
  // may be about to hold the key: a unique insertion waits for it rather than insert the key twice.
  // Finds and erasures pass it: its insertion has not taken effect yet.
  if (mode == key_mode::unique && inserts && summary.match_slots == 0 && summary.pending_slots != 0) {
    return {step_kind::reread};
  }
  return next_step(op, summary);
}

}  // namespace warpdex::hash
