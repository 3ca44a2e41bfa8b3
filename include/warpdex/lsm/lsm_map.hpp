#pragma once
/// @file `warpdex::lsm_map`: the GPU LSM, a dynamic ordered dictionary updated in batches (Ashkiani,
/// Ch. 4). Built only when the CCCL headers are available (see docs/lsm.md).
///
/// The structure is a log-structured merge tree of sorted levels: level i is empty or holds a sorted run
/// of about `batch_size * 2^i` entries. An update batch is sorted and merged down the levels into the
/// first empty one, like binary addition; lower levels are newer. An entry is regular (a key with its
/// value), a tombstone (the key was erased) or stale (a newer entry of its key hides it). Updates never
/// compact a level: an entry that a newer one hides is marked stale where it lies, so every level's size
/// is known without reading the device, and an update runs without waiting for it. Stale entries and
/// tombstones stay until `cleanup()` drops them (the automatic policy runs it). Every key value is usable
/// (0 and the maximum included): the status is stored beside the key, not inside it.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/lsm/detail/lsm_level.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace warpdex {

/// What one element of an update batch does.
enum class lsm_operation : std::uint8_t {
  insert = 0,  ///< insert the key with its value, replacing any older value
  erase = 1,   ///< erase the key (a tombstone that hides every older entry of the key)
};

/// Construction parameters of an `lsm_map`.
struct lsm_options {
  /// Entries of level 0 (b): updates are applied in chunks of this many elements. Small batches make
  /// updates cheap and queries slower (more levels). Must be > 0.
  std::uint64_t batch_size = std::uint64_t{1} << 16;
  /// Automatic cleanup: `cleanup()` runs when the resident dead entries (tombstones and stale entries)
  /// exceed this fraction of the resident entries. Checked after every `update` and `erase`, and after
  /// every 8th chunk of `insert` (an insert makes no tombstones; reading the count back is the only wait
  /// an insert would have). 0 turns automatic cleanup off; otherwise in (0, 1].
  double cleanup_threshold = 0.5;
};

/// Live pairs of `range` queries: the pairs of query i are keys[offsets[i] .. offsets[i + 1]) and the
/// values beside them, in ascending key order. All three buffers are in the backend's memory.
template <class Key, class Value>
struct lsm_range_result {
  buffer<std::uint64_t> offsets;  ///< query count + 1 entries; offsets[0] = 0, the last is the total
  buffer<Key> keys;
  buffer<Value> values;
};

/// The live contents of an `lsm_map` in ascending key order (backend memory).
template <class Key, class Value>
struct lsm_contents {
  buffer<Key> keys;
  buffer<Value> values;
};

/// A dynamic ordered dictionary from `Key` to `Value` with batched updates and bulk queries, on the GPU
/// (`Backend = warpdex::cuda`) or the CPU (`warpdex::host`), with the same results on both.
///
/// Supported types: Key in {std::uint32_t, std::uint64_t}, Value = std::uint32_t. Every span passed to a
/// member lies in the backend's memory (device memory for `cuda`). Operations are bulk-synchronous: the
/// object is not safe to use from several host threads at once, and updates and queries do not overlap.
///
/// Batch semantics, deterministic: a batch is applied after everything that came before it, so its
/// entries replace older ones. Inside one batch, a key with any erase ends erased; otherwise the LAST
/// insert of the key (in batch order) wins. A batch larger than `batch_size` is applied as consecutive
/// chunks of `batch_size` elements, in order (so an insert in a later chunk revives a key erased in an
/// earlier one).
///
/// Live key: a key whose newest entry is regular. Queries see exactly the live keys.
template <class Key, class Value, class Backend>
class lsm_map {
 public:
  using key_type = Key;
  using value_type = Value;
  using backend_type = Backend;

  /// An empty map. Throws `warpdex::error` when `options` is out of range.
  explicit lsm_map(const Backend& backend, lsm_options options = {});
  ~lsm_map();
  lsm_map(lsm_map&&) noexcept;
  lsm_map& operator=(lsm_map&&) noexcept;
  lsm_map(const lsm_map&) = delete;
  lsm_map& operator=(const lsm_map&) = delete;

  /// Applies a batch of mixed inserts and erases (see the class comment for duplicates). `values[i]` is
  /// ignored where `operations[i]` is `erase`. Any size is accepted; the batch size (the chunk applied at
  /// once) must be below 2^31 here, or the call throws. All or nothing: the spans are
  /// validated first (equal sizes, known operations; one read back), and every new level is built before
  /// an old one is released, so a failure (`warpdex::error`, or `warpdex::out_of_memory` when the device
  /// runs out) leaves the map as it was. Peak memory: the resident levels plus about twice the merged
  /// entries. Amortized O(log(resident / batch_size)) work per element. May run `cleanup()` afterwards
  /// (`lsm_options::cleanup_threshold`).
  void update(std::span<const Key> keys, std::span<const Value> values, std::span<const lsm_operation> operations);

  /// `update` with every operation `insert`, with nothing to validate: on cuda the whole insert is
  /// queued on the backend's stream and returns without waiting (except the automatic cleanup's check
  /// every 8th chunk). The spans must stay valid and unchanged until the stream reaches it.
  void insert(std::span<const Key> keys, std::span<const Value> values);

  /// `update` with every operation `erase`.
  void erase(std::span<const Key> keys);

  /// Reserves the workspace of `insert_async` for up to `batches` batches of `batch_size` pairs: level
  /// i's home (batch_size * 2^i entries) for every level those batches fill and the slot the batch is
  /// sorted into: batch_size * 2^L entries, L the bit width of `batches` (so up to 2^L - 1 batches fit,
  /// at most twice the entries asked for), allocated now and kept until the map goes. The map must hold
  /// nothing (a new map, or one after `clear()`), and batch_size must be a multiple of 64 (each level
  /// starts on a 256-byte line). Throws `warpdex::error` otherwise.
  void reserve_async(std::uint64_t batches);

  /// `insert` of exactly `batch_size` pairs into the reserved levels (`reserve_async`), for small batches:
  /// stream-ordered on the backend's stream (cuda), without waiting, allocating or reading anything
  /// back, so a CUDA graph can capture it. The batch is sorted into its slot and merged with the levels
  /// it fills in one launch, whose plan (which levels merge, where the result goes) is read on the device
  /// from the number of batches inserted so far: a graph captured from a loop of these calls stays valid
  /// at every replay until the reserved batches are used up. Past that, a batch (called, or replayed
  /// from a graph) is dropped whole, and the next call of any other member throws `warpdex::error`
  /// naming the dropped batches. Never runs the automatic cleanup. On the host backend the same work,
  /// synchronously. Any other change of the map (update, insert, erase, bulk_build, cleanup) ends the
  /// reserved mode: later `insert_async` calls throw, and batches replayed from a graph are dropped as
  /// above, until `clear()`. Throws `warpdex::error`, before queueing anything, without a reservation,
  /// for a batch of another size, or once the batches called here reach the reservation.
  void insert_async(std::span<const Key> keys, std::span<const Value> values);

  /// Removes every entry. Keeps the workspace of `insert_async`, so that a graph captured from it before
  /// stays valid, and reopens the reserved mode.
  void clear();

  /// Replaces the whole contents by the pairs given, unsorted, duplicates allowed (the last pair of a key
  /// wins). One sort, no merges: the fast way to load a map. All or nothing, like `update`.
  void bulk_build(std::span<const Key> keys, std::span<const Value> values);

  /// For each query key: `found[i]` = 1 and `values[i]` = its value when the key is live, else
  /// `found[i]` = 0 and `values[i]` = 0. O(levels * log(resident)) per query, newest level first. On the
  /// GPU, 2^20 queries or more are sorted first (temporary memory: about 12 bytes per query plus the key).
  void lookup(std::span<const Key> queries, std::span<Value> values, std::span<std::uint8_t> found) const;

  /// counts[i] = the number of live keys k with lower[i] <= k <= upper[i] (inclusive); 0 when
  /// lower[i] > upper[i]. O(levels * log(resident)) per query after the liveness index is current
  /// (see `size()`). On the GPU, 2^20 queries or more are counted in the order of their lower bounds
  /// (temporary memory: about 20 bytes per query plus two keys).
  void count(std::span<const Key> lower, std::span<const Key> upper, std::span<std::uint64_t> counts) const;

  /// The live pairs with lower[i] <= key <= upper[i] for every query i, sorted by key within each query;
  /// an empty result for lower[i] > upper[i]. O(levels * log(resident)) per query and per pair returned.
  /// On the GPU, 2^20 queries or more are counted and filled in the order of their lower bounds (the
  /// result stays in the caller's order; temporary memory: about 28 bytes per query plus two keys).
  [[nodiscard]] lsm_range_result<Key, Value> range(std::span<const Key> lower, std::span<const Key> upper) const;

  /// For each query q: the smallest live key > q and its value (`found[i]` = 1), or `found[i]` = 0 with
  /// key and value 0 when there is none.
  void successor(std::span<const Key> queries, std::span<Key> keys, std::span<Value> values,
                 std::span<std::uint8_t> found) const;

  /// For each query q: the largest live key < q and its value (`found[i]` = 1), or `found[i]` = 0 with
  /// key and value 0 when there is none.
  void predecessor(std::span<const Key> queries, std::span<Key> keys, std::span<Value> values,
                   std::span<std::uint8_t> found) const;

  /// Merges all levels, keeps the newest entry of each key, drops tombstones and stale entries and places
  /// the result in the smallest level whose capacity holds it. Queries answer the same before and after.
  /// O(resident). All or nothing, like `update`.
  void cleanup();

  /// The live pairs in ascending key order.
  [[nodiscard]] lsm_contents<Key, Value> retrieve_all() const;

  /// The number of live keys. Count, range, successor, predecessor and size share a liveness index
  /// (one prefix count per resident entry) that the first of them after an update builds:
  /// O(resident * levels * log(resident)) once.
  [[nodiscard]] std::uint64_t size() const;

  /// Entries held in the levels: live ones, stale ones and tombstones.
  [[nodiscard]] std::uint64_t resident_entries() const;

  /// Tombstones held in the levels (read back from the backend's memory).
  [[nodiscard]] std::uint64_t resident_tombstones() const;

  /// Stale entries held in the levels: entries that a newer entry of their key hides, kept until a
  /// cleanup (read back from the backend's memory).
  [[nodiscard]] std::uint64_t resident_stale() const;

  /// Levels that hold entries.
  [[nodiscard]] std::size_t occupied_levels() const;

  [[nodiscard]] const lsm_options& options() const { return options_; }

  /// Changes the automatic cleanup threshold (0: off; else in (0, 1]).
  void set_cleanup_threshold(double threshold);

 private:
  using level = detail::lsm_level<Key, Value>;
  using level_list = std::vector<std::shared_ptr<const level>>;

  /// The update without checking the operations; `may_erase` is false when every operation is an insert
  /// (the batch then makes no tombstones, and counting them is skipped).
  void apply_batch(std::span<const Key> keys, std::span<const Value> values, std::span<const lsm_operation> operations,
                   bool may_erase);
  /// Installs new levels (their dead-entry counts are installed beside them).
  void commit(level_list levels);
  /// Takes over what `insert_async` did on the device (levels, stale counts, dropped batches): every
  /// member but insert_async calls it first. Reads the control words back when a reservation exists.
  void adopt_async() const;
  /// Ends the reserved mode of insert_async (a synchronous change replaced the levels).
  void close_async();
  void ensure_views() const;
  void ensure_liveness_index() const;
  void maybe_cleanup();

  Backend backend_;
  lsm_options options_;
  // Level i at index i; nullptr when empty. Mutable, as counters_, for adopt_async: the first call after
  // insert_async, a query too, installs the levels that the device built.
  mutable level_list levels_;
  // Dead-entry counts (detail::lsm_counter), in the backend's memory, and the copy an update changes
  // before installing it with the levels (so that a failed update leaves them as they were).
  mutable buffer<std::uint64_t> counters_;
  buffer<std::uint64_t> staged_counters_;
  buffer<std::uint8_t> sort_scratch_;   // the batch sort's temporary storage, kept between updates
  std::uint32_t unchecked_chunks_ = 0;  // insert chunks since the cleanup policy last looked
  // Liveness index (one prefix array per occupied level, newest first) and the level views the query
  // functors read, in the backend's memory; rebuilt lazily by the first query after a change, so that
  // updates copy nothing from the host.
  mutable std::vector<buffer<std::uint64_t>> live_before_;
  mutable buffer<detail::lsm_level_view<Key, Value>> views_;
  mutable bool views_current_ = true;
  mutable bool index_current_ = false;
  // insert_async's workspace (reserve_async): the batch's slot at entry 0 and level i's home at entry
  // batch_size * 2^i of each array, and the control words (detail::lsm_async_word).
  buffer<Key> async_keys_;
  buffer<Value> async_values_;
  buffer<std::uint8_t> async_status_;
  buffer<std::uint64_t> async_control_;
  buffer<std::uint8_t> async_sort_scratch_;  // its own: a captured sort keeps its address
  std::uint64_t async_capacity_ = 0;         // batches reserved (2^levels - 1)
  std::uint32_t async_grid_ = 0;             // blocks of the merge launch
  mutable std::uint64_t async_called_ = 0;   // batches applied or queued, as far as the host knows
  bool async_open_ = false;                  // the levels are the reserved ones
  mutable std::uint64_t async_adopted_ = 0;  // batches the installed levels hold
  mutable std::uint64_t async_seen_stale_ = 0;
  mutable std::uint64_t async_seen_dropped_ = 0;
};

}  // namespace warpdex
