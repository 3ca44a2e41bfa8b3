#pragma once
/// @file What `slab_map` and `slab_set` share: capacity, statistics, the batch semantics, and the owning
/// storage (base slabs, slab pool, pool bitmap) with the operations that do not depend on values.
///
/// ## Semantics of a concurrent batch (unique keys)
/// Every operation of a batch takes effect atomically at one instant between the start and the end of
/// the batch (it is linearizable); operations on different keys do not affect each other, and the order
/// among operations on one key is any order, not the input order. So for one key k, the statuses a
/// batch reports and the state it leaves are exactly those of SOME sequential run of the batch's
/// operations on k, starting from k's state before the batch:
/// - find reports `found` with a value k held at that instant, or `not_found`;
/// - insert reports `inserted` (k was absent) or `already_present` (k kept its value);
/// - insert_or_assign reports `inserted` or `assigned`;
/// - erase reports `erased` or `not_found`;
/// - an insertion that needs a new slab and finds none free reports `out_of_memory` and changes nothing;
///   the rest of the batch is unaffected. A growing table (slab_capacity::grows) then adds a super block
///   and runs those elements again within the same call, so they report out_of_memory only when no
///   more memory can be had. A slab that a concurrent append holds for a moment (it lost
///   the race to link and is about to return it) counts as taken, so with one or two free slabs left an
///   insertion may report out_of_memory; retrying that element can then succeed.
/// Consequences: of several `insert`s of an absent key with no erase in the batch, exactly one reports
/// `inserted` and its value stays; an erase and an insert of the same key may run in either order.
/// Nothing inserted is ever lost: after a batch, the exported pairs are exactly the live keys.
///
/// ## Repeated keys
/// A batch may hold a key any number of times; it runs in time linear in its size. Finds, insertions
/// and erasures of one key meet its one slot (an assignment whose swap lost to another write of the
/// slot takes effect just before it, see finishes_after_failed_swap). A mixed batch whose keys repeat
/// (or any batch, with batch_combine::always) is combined (batch_options.hpp): each key's elements
/// run as one sequential run in input order, one of the runs allowed above, and the table sees one
/// find and at most one write per distinct key. A combined batch finds each key before writing it, so
/// it must not run while a kernel writes the table through a device ref. A multimap's batches combine
/// the same way (slab_multimap.hpp; detail/slab_combine.hpp, multiset_outcome).
///
/// ## Hashers and key equality
/// Every table takes a Hasher and a KeyEqual (hashers.hpp; defaults universal_key_hash, seeded, and
/// key_equal_to): key k lives in bucket hasher(k) % bucket_count and a slot holding s holds k when
/// key_equal(s, k). The semantics above hold with "one key" meaning one class of equal keys; an
/// export lists each class by the key stored for it (the one whose insertion took effect).
/// A table with a KeyEqual other than key_equal_to never combines its batches (combining groups keys by
/// their bits), so its mixed batches over heavily repeated keys cost what they did before combining.
///
/// ## Asynchronous batches
/// Every batch operation has an `_async` variant (insert_async, insert_or_assign_async, find_async,
/// contains_async, erase_async, execute_async) with the outcomes above, for many small batches: it
/// enqueues the batch on the backend's stream and returns. It never waits for the stream, never reads
/// back, and allocates nothing (the table keeps a report and scratch it reuses; a batch in bucket order
/// larger than any before grows the scratch, stream-ordered). Its outputs, in backend memory, hold the
/// results once the stream has passed the batch (synchronize the stream, or order later work after it);
/// its inputs must stay unchanged until then. A table's batches, async or not, run in the order they
/// are issued, each after the previous one took effect; they are issued from one host thread at a time
/// (they share the report). The host backend has the same calls and runs them before returning.
/// They differ from the synchronous calls in three ways, each because it would need a wait:
/// - Input rules are checked on the device: a batch with a reserved key or an operation code that is
///   unknown (or, for a multimap, insert_or_assign) anywhere in it changes nothing, and every element
///   reports `rejected` (found = 0; values are not written). Spans of mismatched sizes still throw
///   warpdex::error at the call. With batch_options::check = batch_check::each_element a uniform batch
///   (insertions, finds, contains, erasures) is not checked as a whole: only the elements whose key is
///   reserved report `rejected` (a find's default written, found = 0) and change nothing, the others
///   take effect, and the batch is one kernel at any size (no check kernel before it).
/// - The pool never grows: an insertion that needs a new slab and finds none reports out_of_memory and
///   changes nothing, exactly as in a fixed table (the others take effect). To retry without losing
///   outcomes: synchronize, and when a status is out_of_memory call grow_pool() (or rehash), then issue
///   the same call with the same arguments and run_elements::out_of_memory_only: only those elements
///   run, the others' outputs stay as they are.
/// - Batches are never combined (as with batch_combine::never): a mixed batch over heavily repeated
///   keys is correct but costs what it did before combining; the synchronous call combines it.
/// The synchronous calls are these calls followed by one wait for the stream and one read of the report
/// from the table's pinned memory (written there by the kernels; for an insertion or mixed batch past
/// 2048 elements, copied there before the wait), its checks, and growth: one code path. A 1024-key find
/// is then one kernel launch (its input check folded in), plus that wait when synchronous; no
/// allocation, memset, copy, attribute or occupancy query (the SM count is asked once, when the table is
/// made).
/// On the cuda backend every `_async` call can be captured into a CUDA graph (core/stream.hpp,
/// captured_graph; the table's backend on a stream of its own) and replayed: the graph holds the
/// addresses of the call's spans, the table's report and its layout as they were at the capture. A
/// captured batch in bucket order larger than any uncaptured one before runs in input order (its scratch
/// cannot grow inside a graph; the results are the same). Replays run the batches on the table as it is
/// then; anything that changes its layout (grow_pool, rehash, a synchronous insertion that grew the pool,
/// moving or destroying the table) makes the graph stale: capture again after it. The synchronous calls
/// wait, so a capture refuses them.
/// The outputs of every `_async` batch (values, statuses, found flags) may be pinned host memory on the
/// cuda backend (the results where the caller wants them, written by the kernel, no copy home): wait for
/// the stream, as for device outputs, before reading. So may the synchronous finds' outputs.
///
/// ## Many batches in one call
/// `slab_map::find_many_async` and `insert_many_async` take many batches laid end to end in one array of
/// keys (and values, and outputs), and `offsets`, batches + 1 entries in backend memory: batch b is
/// the elements [offsets[b], offsets[b + 1]) (empty batches allowed; the offsets rise from 0 to the key
/// count). On the cuda backend the call is one kernel launch at any batch count (capturable, the offsets
/// rewritable in place between replays, as long as the key count stays), in input order and with the
/// automatic tile (batch_options' tile applies to single batches); the host
/// backend runs the batches one after another. The batches run as one batch: the semantics above hold
/// for their union, so a key in two batches meets itself as a repeated key of one batch would (any
/// order between them, exactly one insertion of an absent key reports inserted). Each batch holds to
/// the input rules alone (the `_async` rules above, per batch): with the default batch_check::whole_batch,
/// a batch of at most 2048 keys holding a reserved key changes nothing and each of its elements reports
/// rejected (a find's default written), while the other batches take effect; a longer batch's elements
/// are each checked alone (checking it whole in the same kernel would make every block read all its
/// keys), as every element is with batch_check::each_element. No report is written: the statuses
/// (out_of_memory too, for the retry with run_elements::out_of_memory_only after grow_pool) say it all.
/// Offsets that do not rise from 0 to the key count are the caller's error: the host backend throws
/// warpdex::error; the cuda backend, which cannot read them without a wait, reads no memory outside the
/// spans and reports rejected for each element they do not place in a batch.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/hash/batch_options.hpp>
#include <warpdex/hash/detail/slab_combine.hpp>
#include <warpdex/hash/detail/slab_table.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace warpdex::hash {

/// The fill of the base slabs the tables are sized for when the caller does not say (0.6 is the slab
/// hash's sweet spot: most lists stay one slab long).
inline constexpr double default_base_fill = 0.6;

/// How big a table is: its buckets (one base slab each) and its pool of overflow slabs. A
/// table never rehashes by itself: chains grow into the pool. When an insertion batch finds the pool
/// exhausted, a growing table (`grows`, the default) adds a super block to the pool and retries the
/// elements that ran out, so nothing is lost, until the pool has `super_block_limit` super blocks or
/// the memory is not there; a fixed table (or a growing one past that point) reports out_of_memory for
/// them. To change the bucket count, call `rehash` (slab_table_base::rehash: with a bucket count, with
/// a whole capacity, or with none to size the buckets for the live entries).
struct slab_capacity {
  std::uint32_t bucket_count = 1;  ///< >= 1
  std::uint64_t pool_slabs = 0;    ///< overflow slabs at construction, <= max_pool_slabs (0: none yet)
  /// Whether insertion batches that exhaust the pool add super blocks (slab_table_base::run).
  bool grows = true;
  /// The most super blocks the pool may ever have, in [1, max_super_blocks]: the slabs at construction
  /// count (pool_slabs needs ceil(pool_slabs / slabs_per_super_block) of them) and each growth adds one.
  /// A small limit caps a growing table's memory; the 6 address bits allow at most max_super_blocks.
  std::uint32_t super_block_limit = max_super_blocks;

  /// Buckets for `expected_keys` entries that fill a base slab's `data_slots` to `base_fill` on average
  /// (default_base_fill), and a pool twice the expected overflow plus two memory blocks (for_buckets).
  /// Entries arrive in groups of `entries_per_key` (a multimap key and its values share one list).
  static slab_capacity for_keys(std::uint64_t expected_keys, std::uint32_t data_slots, double base_fill,
                                std::uint32_t entries_per_key = 1)
  {
    WARPDEX_EXPECTS(base_fill > 0.0 && base_fill <= 1.0,
                    "slab_capacity::for_keys: base_fill must lie in (0, 1], got " + std::to_string(base_fill));
    const double keys_per_bucket = base_fill * data_slots;
    const double buckets = std::ceil(static_cast<double>(expected_keys) / keys_per_bucket);
    WARPDEX_EXPECTS(buckets < 4294967296.0, "slab_capacity::for_keys: " + std::to_string(expected_keys) +
                                                " keys need more than 2^32 buckets at this fill");
    return for_buckets(static_cast<std::uint32_t>(std::max(1.0, buckets)), expected_keys, data_slots, entries_per_key);
  }

  /// `bucket_count` buckets and a pool for `expected_keys` entries spread over them: twice the expected
  /// overflow plus two memory blocks. A bucket receives a Poisson-distributed number of groups of
  /// `entries_per_key` entries (a multimap key and its values share a list).
  static slab_capacity for_buckets(std::uint32_t bucket_count, std::uint64_t expected_keys, std::uint32_t data_slots,
                                   std::uint32_t entries_per_key = 1)
  {
    WARPDEX_EXPECTS(bucket_count >= 1, "slab_capacity::for_buckets: bucket_count must be at least 1");
    WARPDEX_EXPECTS(entries_per_key >= 1, "slab_capacity::for_keys: entries_per_key must be at least 1");
    slab_capacity capacity;
    capacity.bucket_count = bucket_count;
    const double keys_per_bucket = static_cast<double>(expected_keys) / bucket_count;
    const double overflow = expected_overflow_slabs(keys_per_bucket / entries_per_key, data_slots, entries_per_key);
    const double pool = 2.0 * overflow * bucket_count + 2.0 * slabs_per_block;
    capacity.pool_slabs = static_cast<std::uint64_t>(std::min(pool, static_cast<double>(max_pool_slabs)));
    return capacity;
  }
};

/// Which elements of an `_async` insertion or mixed batch run (see "Asynchronous batches" above).
enum class run_elements : std::uint8_t {
  all,                 ///< every element; each writes its outputs
  out_of_memory_only,  ///< those whose entry in the statuses passed is out_of_memory (the retry after
                       ///< grow_pool); the others are skipped and their outputs left as they are
};

/// What a table holds and how well it uses its memory (computed by walking every list).
struct slab_statistics {
  std::uint64_t bucket_count = 0;
  std::uint64_t pool_slabs = 0;         ///< overflow slabs of all super blocks
  std::uint64_t super_block_count = 0;  ///< super blocks of the pool (each growth adds one)
  std::uint64_t slabs_in_use = 0;       ///< base slabs plus linked pool slabs
  std::uint64_t live = 0;               ///< keys present
  std::uint64_t erased = 0;             ///< erased slots not yet reclaimed by flush
  std::uint64_t longest_chain = 0;      ///< slabs in the longest list
  double mean_slabs_per_bucket = 0;
  /// Bytes of live entries over bytes of slabs in use (the slab hash's "memory utilization").
  double memory_utilization = 0;
  /// Bytes of slabs in use per live entry (infinite when empty).
  double bytes_per_live_entry = 0;
  /// Every byte the table owns: base slabs, every super block of the pool and its bitmap.
  std::uint64_t reserved_bytes = 0;
};

namespace detail {

[[noreturn]] inline void throw_violation(const std::string& caller, std::uint64_t index, const std::string& what)
{
  WARPDEX_FAIL(caller + ": element " + std::to_string(index) + " " + what + "; nothing was changed");
}

/// The owning storage and the value-independent operations of a slab map or set on one backend.
template <class Slots, class Backend>
class slab_table_base {
  using slot_t = typename Slots::slot_type;
  using key_t = typename Slots::key_type;
  using value_t = typename Slots::value_type;

  /// The fewest slabs a growth adds: a few memory blocks, so a table that starts small reaches a large
  /// size in few super blocks.
  static constexpr std::uint64_t min_growth_slabs = 2 * slabs_per_block;

  /// One super block of the pool: its slabs and its bitmap.
  struct super_block {
    buffer<slot_t> slabs;
    buffer<std::uint32_t> bitmap;
    std::uint64_t slab_count = 0;
  };

  /// The memory of one table and the view kernels take of it. The pool's directory (super block
  /// pointers, bitmap pointers, first blocks) has room for max_super_blocks entries; a growth appends.
  struct table_storage {
    slab_capacity capacity;
    buffer<slot_t> heads;
    std::vector<super_block> super_blocks;
    buffer<slot_t*> super_block_directory;
    buffer<std::uint32_t*> bitmap_directory;
    buffer<std::uint32_t> first_blocks;
    buffer<std::uint32_t> swept_full;  ///< slab_pool_view::swept_full (one word)
    slab_table_view<Slots> view;
  };

 public:
  /// The slab layout (slab_layout.hpp): a device ref of this table is `slab_table_ref<slots_type>`.
  using slots_type = Slots;
  using slot_type = typename Slots::slot_type;
  /// One batch, and one batch of list walks, of this table (detail/slab_table.hpp).
  using batch_arguments = detail::batch_arguments<Slots>;
  using walk_arguments = detail::walk_arguments<Slots>;
  /// Bytes in one slab (128, or 64 with the smaller nodes).
  static constexpr std::uint32_t slab_bytes = Slots::slab_bytes;

  using backend_type = Backend;
  /// The bucket hash and key equality (hashers.hpp).
  using hasher = typename Slots::hasher;
  using key_equal = typename Slots::key_equal;

  /// An empty table of `capacity` on `backend`, whose key k goes to bucket hasher(k) % bucket_count and
  /// matches a slot's key s when key_equal(s, k).
  slab_table_base(const Backend& backend, const slab_capacity& capacity, const hasher& hash_function,
                  const key_equal& key_eq, const char* name, key_mode mode = key_mode::unique)
      : backend_(backend),
        hasher_(hash_function),
        key_equal_(key_eq),
        name_(name),
        mode_(mode),
        storage_(make_storage(capacity)),
        wave_threads_(batch_wave_threads_of(backend)),
        report_(make_buffer<batch_report>(backend, 1)),
        report_home_(make_report_home())
  {
    const batch_report initial{};  // the running minima, sum and block count of the batch kernels
    report_.copy_from(std::span<const batch_report>(&initial, 1));
  }

  [[nodiscard]] const Backend& backend() const { return backend_; }
  [[nodiscard]] const slab_capacity& capacity() const { return storage_.capacity; }
  /// The bucket hash (with the default hasher, the one drawn from the table's seed).
  [[nodiscard]] const hasher& hash_function() const { return hasher_; }
  [[nodiscard]] const key_equal& key_eq() const { return key_equal_; }
  /// The storage as kernels see it (for device refs and the backends). A rehash replaces it.
  [[nodiscard]] const slab_table_view<Slots>& view() const { return storage_.view; }

  /// Removes every key and returns every pool slab; super blocks added by growth stay. O(table size).
  void clear()
  {
    initialize_table<Slots>(backend_, storage_.view);
    for (super_block& added : storage_.super_blocks) { initialize_super_block(added); }
  }

  /// Sets how the bulk operations run from now on: the tile of every operation and the order of a
  /// batch's elements (both automatic by default; see plan_batch for the rule). Results and semantics
  /// do not depend on them. Throws warpdex::error, keeping the old options, for a tile size other
  /// than automatic, 1, 4, 8, 16 or 32 or an unknown order.
  void set_batch_options(const batch_options& options)
  {
    validate(options);
    options_ = options;
  }
  [[nodiscard]] const batch_options& get_batch_options() const { return options_; }
  /// What the bulk operations run with now: the options, automatic ones resolved (plan_batch).
  [[nodiscard]] batch_plan plan() const { return plan_batch(options_); }

  /// Rebuilds the table with `capacity` (more buckets, a larger pool, or both; fewer works too): the
  /// live entries are exported, a table of the new capacity is built and they are inserted into it;
  /// erased slots and unused overflow slabs are dropped on the way. When `capacity.grows`, the new pool
  /// grows by super blocks as an insertion batch's does until the entries fit (up to
  /// `capacity.super_block_limit`); a fixed capacity must hold them as given. The bucket hash keeps the
  /// table's hasher. Strong guarantee: when the capacity is invalid (warpdex::error), the memory is not
  /// there (warpdex::out_of_memory), or the live entries do not fit into the new capacity even after
  /// growth (warpdex::out_of_memory), the table is left exactly as it was. Needs a phase of its own (no
  /// concurrent batch or device ref), views and refs taken before are invalid afterwards, and it holds
  /// the old table, the new one and the exported entries at once. O(slabs in use + live entries).
  void rehash(const slab_capacity& capacity)
  {
    table_storage fresh = make_storage(capacity);
    const std::uint64_t live = size();
    if (live > 0) {
      auto keys = make_buffer<key_t>(backend_, live);
      auto values = make_buffer<value_t>(backend_, Slots::has_values ? live : 0);
      value_t* live_values = Slots::has_values ? values.data() : nullptr;
      export_live<Slots>(backend_, storage_.view, keys.data(), live_values, live);
      batch_arguments batch;
      batch.uniform = operation::insert;
      batch.keys = keys.data();
      batch.values_in = live_values;
      batch.count = live;
      batch.wave_threads = wave_threads_;
      // Exported keys of a unique-key table are distinct, so a rerun of the whole batch only inserts
      // the ones that ran out; a multimap's repeat, so its retry goes by status.
      const std::uint64_t exhausted = run_growing(
          fresh, batch, mode_ == key_mode::unique,
          [&](const batch_arguments& attempt) { return execute_batch<Slots>(backend_, fresh.view, attempt); });
      if (exhausted > 0) {
        throw out_of_memory(name_ + "::rehash: " + std::to_string(exhausted) + " of " + std::to_string(live) +
                            " live entries do not fit into " + std::to_string(capacity.bucket_count) +
                            " buckets and a pool of " + std::to_string(fresh.capacity.pool_slabs) + " slabs" +
                            growth_stop_reason(fresh) + "; the table was left as it was");
      }
    }
    storage_ = std::move(fresh);
  }

  /// Rebuilds the table with `bucket_count` buckets, as rehash(capacity) with a pool sized for the live
  /// entries spread over them (slab_capacity::for_buckets), keeping whether the pool grows and its
  /// super-block limit. More buckets shorten the lists of a table that has filled past its sizing.
  void rehash(std::uint32_t bucket_count) { rehash(resized(bucket_count, size())); }

  /// Rebuilds the table with the buckets the live entries need at default_base_fill of a base slab
  /// (slab_capacity::for_keys; at least one bucket): after insertions past the size a table was built
  /// for, this grows it back to lists about one slab long; after many erasures it shrinks it. Otherwise
  /// as rehash(bucket_count).
  void rehash()
  {
    const std::uint64_t live = size();
    rehash(resized(slab_capacity::for_keys(live, Slots::data_slots, default_base_fill).bucket_count, live));
  }
  /// Adds one super block to the pool, as a growing insertion batch does when the pool runs out (half the
  /// pool so far, at least a few memory blocks, at most a whole super block). For the retry of an
  /// `_async` batch whose elements reported out_of_memory (see "Asynchronous batches"). Returns false,
  /// changing nothing, when the capacity does not grow, the pool has super_block_limit super blocks, or
  /// the memory is not there. Waits for the stream. Views and refs taken before stay valid but allocate
  /// from the super blocks they saw. O(1) work besides marking the new slabs free.
  bool grow_pool() { return storage_.capacity.grows && grow(storage_); }

  /// The number of live keys, counted by walking every list. O(slabs in use).
  [[nodiscard]] std::uint64_t size() const { return summarize_chains<Slots>(backend_, view()).live_slots; }

  /// Occupancy and memory use, by walking every list. O(slabs in use).
  [[nodiscard]] slab_statistics statistics() const
  {
    const chain_totals totals = summarize_chains<Slots>(backend_, view());
    const slab_capacity& capacity = storage_.capacity;
    slab_statistics stats;
    stats.bucket_count = capacity.bucket_count;
    stats.pool_slabs = capacity.pool_slabs;
    stats.super_block_count = storage_.super_blocks.size();
    stats.slabs_in_use = totals.slabs;
    stats.live = totals.live_slots;
    stats.erased = totals.erased_slots;
    stats.longest_chain = totals.longest_chain;
    stats.mean_slabs_per_bucket = static_cast<double>(totals.slabs) / capacity.bucket_count;
    const double bytes_in_use = static_cast<double>(totals.slabs) * Slots::slab_bytes;
    stats.memory_utilization = static_cast<double>(totals.live_slots) * sizeof(slot_type) / bytes_in_use;
    stats.bytes_per_live_entry = bytes_in_use / static_cast<double>(totals.live_slots);
    stats.reserved_bytes = storage_.heads.size_bytes();
    for (const super_block& added : storage_.super_blocks) {
      stats.reserved_bytes += added.slabs.size_bytes() + added.bitmap.size_bytes();
    }
    return stats;
  }

  /// Reclaims erased slots and empty overflow slabs: every list is compacted in place, keeping its
  /// keys and values. Not concurrent with batches (a phase of its own, as in the slab hash). O(slabs
  /// in use).
  void flush() { flush_table<Slots>(backend_, view()); }

  /// Removes each key that is present; `statuses[i]` receives erased or not_found. Keys in backend
  /// memory; a reserved key rejects the whole batch before anything changes. Repeated keys: one
  /// reports erased, the others not_found (see the batch semantics above).
  void erase(std::span<const key_t> keys, std::span<operation_status> statuses)
  {
    check_output(keys.size(), statuses.size(), "erase", "statuses");
    run(uniform_batch(operation::erase, keys, {}, {}, statuses), "erase", false);
  }
  /// Removes each key that is present; absent keys are ignored.
  void erase(std::span<const key_t> keys) { run(uniform_batch(operation::erase, keys, {}, {}, {}), "erase", false); }

  /// found[i] = 1 when keys[i] is present, else 0. Spans in backend memory of equal size.
  void contains(std::span<const key_t> keys, std::span<std::uint8_t> found) const
  {
    run(contains_batch(keys, found), "contains", false);
  }

  /// erase(keys, statuses) enqueued on the backend's stream (see "Asynchronous batches"): statuses[i] =
  /// erased, not_found, or rejected when the batch holds a reserved key.
  void erase_async(std::span<const key_t> keys, std::span<operation_status> statuses)
  {
    check_output(keys.size(), statuses.size(), "erase_async", "statuses");
    run_async(uniform_batch(operation::erase, keys, {}, {}, statuses), run_elements::all);
  }
  /// contains(keys, found) enqueued on the backend's stream (see "Asynchronous batches"); a batch with a
  /// reserved key writes found[i] = 0 everywhere and changes nothing.
  void contains_async(std::span<const key_t> keys, std::span<std::uint8_t> found) const
  {
    run_async(contains_batch(keys, found), run_elements::all);
  }

 protected:
  /// The mixed batch of the tables with values (slab_map::execute, slab_multimap::execute): checks the
  /// sizes, then runs it (input rules and growth as run).
  void execute_pairs(std::span<const operation> operations, std::span<const key_t> keys,
                     std::span<const value_t> values_in, std::span<value_t> values_out,
                     std::span<operation_status> statuses)
  {
    run(pairs_batch(operations, keys, values_in, values_out, statuses, "execute"), "execute", false);
  }
  /// execute_pairs enqueued (see "Asynchronous batches").
  void execute_pairs_async(std::span<const operation> operations, std::span<const key_t> keys,
                           std::span<const value_t> values_in, std::span<value_t> values_out,
                           std::span<operation_status> statuses, run_elements elements)
  {
    run_async(pairs_batch(operations, keys, values_in, values_out, statuses, "execute_async"), elements);
  }

  /// The mixed batch of a table with values, its sizes checked.
  [[nodiscard]] batch_arguments pairs_batch(std::span<const operation> operations, std::span<const key_t> keys,
                                            std::span<const value_t> values_in, std::span<value_t> values_out,
                                            std::span<operation_status> statuses, const char* operation_name) const
  {
    check_output(keys.size(), operations.size(), operation_name, "operations");
    check_output(keys.size(), values_in.size(), operation_name, "values_in");
    check_output(keys.size(), values_out.size(), operation_name, "values_out");
    check_output(keys.size(), statuses.size(), operation_name, "statuses");
    batch_arguments batch = uniform_batch(operation::find, keys, values_in, values_out, statuses);
    batch.operations = operations.data();
    return batch;
  }

  /// The batch of contains, its sizes checked.
  [[nodiscard]] batch_arguments contains_batch(std::span<const key_t> keys, std::span<std::uint8_t> found) const
  {
    check_output(keys.size(), found.size(), "contains", "found");
    batch_arguments batch = uniform_batch(operation::find, keys, {}, {}, {});
    batch.found = found.data();
    return batch;
  }

  [[nodiscard]] static batch_arguments uniform_batch(operation op, std::span<const key_t> keys,
                                                     std::span<const value_t> values_in, std::span<value_t> values_out,
                                                     std::span<operation_status> statuses)
  {
    batch_arguments batch;
    batch.uniform = op;
    batch.keys = keys.data();
    batch.values_in = values_in.empty() ? nullptr : values_in.data();
    batch.values_out = values_out.empty() ? nullptr : values_out.data();
    batch.statuses = statuses.empty() ? nullptr : statuses.data();
    batch.count = keys.size();
    return batch;
  }

  void check_output(std::uint64_t expected, std::uint64_t actual, const char* operation_name, const char* what) const
  {
    WARPDEX_EXPECTS(actual == expected, name_ + "::" + operation_name + ": " + what + " holds " +
                                            std::to_string(actual) + " elements but there are " +
                                            std::to_string(expected) + " keys");
  }

  /// Validates and runs a batch that changes nothing and never allocates (finds). With
  /// `throw_on_exhaustion`, elements that found the pool exhausted make it throw warpdex::out_of_memory
  /// after the batch (the others took effect).
  void run(const batch_arguments& batch, const char* operation_name, bool throw_on_exhaustion) const
  {
    if (batch.count == 0) { return; }
    const std::string caller = name_ + "::" + operation_name;
    report_exhaustion(execute_planned(batch, caller), batch.count, caller, throw_on_exhaustion);
  }

  /// Validates and runs a batch that may insert. In a growing table, while elements run out of slabs a
  /// super block is added and only those elements run again (selected by their out_of_memory status;
  /// a batch without statuses gets a temporary status array, except a uniform insertion batch of unique
  /// keys, which is simply run again whole: its elements that took effect the first time find their key
  /// and change nothing). Growth stops when no more memory can be had; the elements still out of
  /// memory are then reported (thrown with `throw_on_exhaustion`) and the others took effect.
  void run(const batch_arguments& batch, const char* operation_name, bool throw_on_exhaustion)
  {
    if (batch.count == 0) { return; }
    const std::string caller = name_ + "::" + operation_name;
    const bool may_insert = batch.operations != nullptr || batch.uniform == operation::insert ||
                            batch.uniform == operation::insert_or_assign;
    if (!storage_.capacity.grows || !may_insert) {
      report_exhaustion(execute_planned(batch, caller), batch.count, caller, throw_on_exhaustion);
      return;
    }
    const bool rerun_whole = batch.statuses == nullptr && batch.operations == nullptr && mode_ == key_mode::unique;
    const std::uint64_t exhausted = run_growing(
        storage_, batch, rerun_whole, [&](const batch_arguments& attempt) { return execute_planned(attempt, caller); });
    report_exhaustion(exhausted, batch.count, caller, throw_on_exhaustion);
  }

  /// Runs a batch with the tile, order and combining of plan() and waits for it; returns the elements
  /// that found the pool exhausted. Throws warpdex::error naming `caller`, changing nothing, when the
  /// batch breaks the input rules. A batch that is not combined takes the path of the `_async` calls
  /// (enqueue_planned) and then reads the table's report back: one wait for the stream in all.
  std::uint64_t execute_planned(const batch_arguments& batch, const std::string& caller) const
  {
    const batch_plan chosen = plan();
    if (combines(batch, chosen.combine)) {
      check_input(batch.keys, batch.operations, batch.count, caller);
      batch_arguments planned = batch;
      planned.tile_lanes = chosen.tile_lanes;
      planned.by_bucket = chosen.by_bucket;
      return execute_combined<Slots>(backend_, view(), planned);
    }
    const bool written_home = enqueue_planned(batch, true);
    const batch_report report = read_report(written_home);
    throw_if_broken(report.violations, batch.count, caller);
    return report.exhausted;
  }

  /// The report of the last batch enqueued, once the stream has passed it. On the cuda backend one wait,
  /// after which the report is in the table's pinned report_home_: written there by the kernels
  /// (`written_home`), or else copied there first (a copy into pageable memory, as a new vector's, is
  /// staged by the driver and waits on its own, and the vector is an allocation per call).
  [[nodiscard]] batch_report read_report(bool written_home) const
  {
    if constexpr (requires { backend_.stream; }) {
      if (!written_home) {
        warpdex::detail::copy_device_bytes(report_home_.data(), report_.data(), sizeof(batch_report), backend_.stream);
      }
      backend_.synchronize();
      return report_home_.data()[0];
    } else {
      return report_.data()[0];  // host memory, written when the batch returned
    }
  }

  /// Enqueues a batch with the tile and order of plan() (never combined) on the backend's stream, checked
  /// on the device (enqueue_checked_batch) into the table's report; waits for nothing. With `home` (the
  /// synchronous calls) the kernels may also write the report's result into report_home_: returns
  /// whether they do.
  bool enqueue_planned(const batch_arguments& batch, bool home) const
  {
    batch_arguments planned = batch;
    const batch_plan chosen = plan();
    planned.tile_lanes = chosen.tile_lanes;
    planned.by_bucket = chosen.by_bucket && batch.batch_offsets == nullptr;  // many batches: input order
    planned.by_partition = chosen.by_partition && batch.batch_offsets == nullptr;
    planned.partition_bytes = chosen.partition_bytes;
    planned.wave_threads = wave_threads_;
    if constexpr (requires { backend_.stream; }) { planned.report_home = home ? report_home_.data() : nullptr; }
    return enqueue_checked_batch<Slots>(backend_, view(), planned, unsupported_operations(mode_), report_.data(),
                                        scratch_);
  }

  /// The `_async` calls' batch (slab_table.hpp, "Asynchronous batches"): enqueued as it is, uncombined and
  /// without growth, a rejected batch marking its elements (a uniform batch with batch_check::each_element:
  /// each element with a reserved key alone); with run_elements::out_of_memory_only, only the elements
  /// whose status is out_of_memory run.
  void run_async(const batch_arguments& batch, run_elements elements) const
  {
    WARPDEX_EXPECTS(elements == run_elements::all || elements == run_elements::out_of_memory_only,
                    name_ + ": unknown run_elements " + std::to_string(static_cast<unsigned>(elements)));
    if (batch.count == 0) { return; }
    batch_arguments attempt = batch;
    attempt.mark_rejected = true;
    attempt.check_each = batch.operations == nullptr && plan().check == batch_check::each_element;
    if (elements == run_elements::out_of_memory_only) {
      WARPDEX_EXPECTS(batch.statuses != nullptr, name_ + ": run_elements::out_of_memory_only needs the statuses");
      attempt.retry = batch.statuses;
    }
    enqueue_planned(attempt, false);
  }

  /// The many-batch calls' batch (slab_table.hpp, "Many batches in one call"): `batch`'s elements as the
  /// batches that `offsets` (backend memory, batches + 1 entries) mark, enqueued as run_async enqueues one
  /// batch, each batch checked alone. Throws warpdex::error for offsets of no batch at all.
  void run_many_async(const batch_arguments& batch, std::span<const std::uint64_t> offsets, run_elements elements) const
  {
    WARPDEX_EXPECTS(!offsets.empty(), name_ +
                                          ": the offsets of a many-batch call hold one entry more than its "
                                          "batches (the first 0, the last the key count), got none");
    batch_arguments many = batch;
    many.batch_offsets = offsets.data();
    many.batch_count = offsets.size() - 1;
    run_async(many, elements);
  }

  /// Whether `batch` runs combined (batch_combine): never with a key equality of the user's (combining
  /// groups equal bits), never beyond max_combined_elements; automatic
  /// combines the batches whose sampled keys repeat combine_repeat_threshold times or more among the
  /// mixed batches and, in duplicates mode, the insertions and erasures (each of which walks its key's
  /// instances). Uniform batches of a unique-key table and finds are not sampled: a repeated key meets
  /// its one slot, and a slot holding a key is swapped once.
  [[nodiscard]] bool combines(const batch_arguments& batch, batch_combine combine) const
  {
    // Combining groups keys by their bits: a key equality of the user's may equate other keys.
    if (!compares_key_bits<Slots>) { return false; }
    if (combine == batch_combine::never || batch.count >= max_combined_elements) { return false; }
    if (combine == batch_combine::always) { return true; }
    const bool walks_instances = mode_ == key_mode::duplicates && batch.uniform != operation::find;
    if (batch.operations == nullptr && !walks_instances) { return false; }
    const double repeats =
        estimated_key_repeats(sample_keys(backend_, batch.keys, batch.count, combine_sample_keys), batch.count);
    return repeats >= combine_repeat_threshold;
  }

  /// Runs `batch` with `execute` on `storage`; while elements run out of slabs and the storage grows,
  /// adds a super block and runs again only those elements (by their out_of_memory status: a batch
  /// without statuses gets a temporary status array), or the whole batch with `rerun_whole` (for batches
  /// whose elements that took effect change nothing when run again). Returns the elements still out of
  /// memory when growth stopped (growth_stop_reason says why).
  template <class Execute>
  std::uint64_t run_growing(table_storage& storage, const batch_arguments& batch, bool rerun_whole,
                            Execute&& execute) const
  {
    batch_arguments attempt = batch;
    buffer<operation_status> temporary_statuses;
    if (storage.capacity.grows && batch.statuses == nullptr && !rerun_whole) {
      temporary_statuses = make_buffer<operation_status>(backend_, batch.count);
      attempt.statuses = temporary_statuses.data();
    }
    std::uint64_t exhausted = execute(attempt);
    while (exhausted > 0 && storage.capacity.grows &&
           grow(storage, slabs_for_exhausted(exhausted, storage.capacity.bucket_count))) {
      attempt.retry = rerun_whole ? nullptr : attempt.statuses;
      exhausted = execute(attempt);
    }
    return exhausted;
  }

  /// The most slabs that `exhausted` insertions that found no slab can need over `bucket_count` lists:
  /// a list that k of them reach needs at most ceil(k / data_slots) new slabs, so at most one per
  /// data_slots of them plus one per list they reach. A batch that ran out grows by at least this much,
  /// so it runs again about once: each rerun is a pass over the batch. Growing by half the pool alone
  /// took a 2^20-key batch into a pool sized for one such batch through seven growths and reruns.
  static std::uint64_t slabs_for_exhausted(std::uint64_t exhausted, std::uint64_t bucket_count)
  {
    return (exhausted + Slots::data_slots - 1) / Slots::data_slots + std::min(exhausted, bucket_count);
  }

  /// Adds one super block to `storage`'s pool: half the pool so far or `wanted_slabs`, whichever is more
  /// (at least `min_growth_slabs`, at most a whole super block), so n insertions grow it O(log n) times.
  /// Returns false, changing nothing, when the pool has its capacity's super_block_limit or the memory
  /// is not there.
  bool grow(table_storage& storage, std::uint64_t wanted_slabs = 0) const
  {
    if (storage.super_blocks.size() >= storage.capacity.super_block_limit) { return false; }
    const std::uint64_t slabs =
        std::min(std::max({storage.capacity.pool_slabs / 2, min_growth_slabs, wanted_slabs}), slabs_per_super_block);
    try {
      add_super_block(storage, slabs);
    } catch (const out_of_memory&) {
      return false;
    }
    return true;
  }

  /// Why `storage`'s pool stopped where it is, for an exhaustion message.
  static std::string growth_stop_reason(const table_storage& storage)
  {
    const slab_capacity& capacity = storage.capacity;
    if (!capacity.grows) { return " (a fixed pool)"; }
    if (storage.super_blocks.size() >= capacity.super_block_limit) {
      return " (the pool reached its limit of " + std::to_string(capacity.super_block_limit) + " super blocks)";
    }
    return " (the backend had no memory for another super block)";
  }

  /// The capacity of `bucket_count` buckets for `live` entries, growing as this table's does.
  [[nodiscard]] slab_capacity resized(std::uint32_t bucket_count, std::uint64_t live) const
  {
    slab_capacity capacity = slab_capacity::for_buckets(bucket_count, live, Slots::data_slots);
    capacity.grows = storage_.capacity.grows;
    capacity.super_block_limit = storage_.capacity.super_block_limit;
    capacity.pool_slabs =
        std::min(capacity.pool_slabs, std::uint64_t{capacity.super_block_limit} * slabs_per_super_block);
    return capacity;
  }

  void report_exhaustion(std::uint64_t exhausted, std::uint64_t count, const std::string& caller,
                         bool throw_on_exhaustion) const
  {
    if (!throw_on_exhaustion || exhausted == 0) { return; }
    throw out_of_memory(caller + ": the slab pool of " + std::to_string(capacity().pool_slabs) + " slabs is exhausted" +
                        growth_stop_reason(storage_) + "; " + std::to_string(exhausted) + " of " +
                        std::to_string(count) +
                        " elements were not inserted (the others were). Build a table with more pool_slabs or a "
                        "higher super_block_limit, flush erased slots, or rehash with more buckets");
  }

  /// Throws warpdex::error naming `caller` when a key is reserved or an operation code (when given) is
  /// out of range; reads nothing else and changes nothing.
  void check_input(const key_t* keys, const operation* operations, std::uint64_t count, const std::string& caller) const
  {
    throw_if_broken(find_violations(backend_, keys, operations, count, unsupported_operations(mode_)), count, caller);
  }

  /// Throws warpdex::error naming `caller` and the first element that breaks a rule, if one does.
  void throw_if_broken(const batch_violations& violations, std::uint64_t count, const std::string& caller) const
  {
    if (violations.first_bad_operation < count) {
      throw_violation(caller, violations.first_bad_operation,
                      "has an operation code outside [0, " + std::to_string(operation_count) + ")");
    }
    if (violations.first_unsupported_operation < count) {
      throw_violation(caller, violations.first_unsupported_operation,
                      "is insert_or_assign, which a multimap does not have (insert adds a pair, erase removes one)");
    }
    if (violations.first_reserved_key < count) {
      throw_violation(caller, violations.first_reserved_key,
                      std::string("is a reserved key (") + key_encoding<key_t>::reserved_names +
                          "): keys must be <= " + std::to_string(Slots::max_user_key));
    }
  }

  /// Writes every live entry into the outputs (values_out null for sets), which hold `capacity`
  /// elements, and returns how many there are; throws warpdex::error naming `caller` when they do not fit.
  std::uint64_t export_entries(key_t* keys_out, value_t* values_out, std::uint64_t capacity, const char* caller,
                               const char* entries) const
  {
    const std::uint64_t count = export_live<Slots>(backend_, view(), keys_out, values_out, capacity);
    WARPDEX_EXPECTS(count <= capacity, name_ + "::" + caller + ": the table holds " + std::to_string(count) + " " +
                                           entries + " but the output holds " + std::to_string(capacity));
    return count;
  }

  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  /// Checks `capacity`, allocates its memory and initializes it as an empty table.
  [[nodiscard]] table_storage make_storage(const slab_capacity& capacity) const
  {
    WARPDEX_EXPECTS(capacity.bucket_count >= 1, name_ + ": bucket_count must be at least 1");
    WARPDEX_EXPECTS(
        capacity.pool_slabs <= max_pool_slabs,
        name_ + ": pool_slabs " + std::to_string(capacity.pool_slabs) + " exceeds the 32-bit slab addresses");
    WARPDEX_EXPECTS(capacity.super_block_limit >= 1 && capacity.super_block_limit <= max_super_blocks,
                    name_ + ": super_block_limit " + std::to_string(capacity.super_block_limit) + " is outside [1, " +
                        std::to_string(max_super_blocks) + "]");
    const std::uint64_t initial_super_blocks =
        (capacity.pool_slabs + slabs_per_super_block - 1) / slabs_per_super_block;
    WARPDEX_EXPECTS(initial_super_blocks <= capacity.super_block_limit,
                    name_ + ": pool_slabs " + std::to_string(capacity.pool_slabs) + " need " +
                        std::to_string(initial_super_blocks) + " super blocks, beyond super_block_limit " +
                        std::to_string(capacity.super_block_limit));
    table_storage storage;
    storage.capacity = capacity;
    storage.capacity.pool_slabs = 0;  // counted as the super blocks are added
    storage.heads = make_buffer<slot_type>(backend_, std::uint64_t{capacity.bucket_count} * Slots::slots_per_slab);
    storage.super_block_directory = make_buffer<slot_type*>(backend_, max_super_blocks);
    storage.bitmap_directory = make_buffer<std::uint32_t*>(backend_, max_super_blocks);
    storage.first_blocks = make_buffer<std::uint32_t>(backend_, max_super_blocks + 1);
    storage.swept_full = make_buffer<std::uint32_t>(backend_, 1);
    storage.view.heads = storage.heads.data();
    storage.view.bucket_count = capacity.bucket_count;
    storage.view.hasher = hasher_;
    storage.view.key_equal = key_equal_;
    storage.view.pool.super_blocks = storage.super_block_directory.data();
    storage.view.pool.bitmaps = storage.bitmap_directory.data();
    storage.view.pool.first_blocks = storage.first_blocks.data();
    storage.view.pool.swept_full = storage.swept_full.data();  // zeroed by initialize_table
    storage.view.mode = mode_;
    initialize_table<Slots>(backend_, storage.view);
    for (std::uint64_t left = capacity.pool_slabs; left > 0;) {
      const std::uint64_t slabs = std::min(left, slabs_per_super_block);
      add_super_block(storage, slabs);
      left -= slabs;
    }
    return storage;
  }

  /// Allocates a super block of `slabs` slabs, marks them free and appends it to `storage`'s pool.
  /// Strong guarantee: when the memory is not there (warpdex::out_of_memory) nothing changes.
  void add_super_block(table_storage& storage, std::uint64_t slabs) const
  {
    const std::uint64_t blocks = (slabs + slabs_per_block - 1) / slabs_per_block;
    super_block added;
    added.slab_count = slabs;
    added.slabs = make_buffer<slot_type>(backend_, slabs * Slots::slots_per_slab);
    added.bitmap = make_buffer<std::uint32_t>(backend_, blocks * bitmap_words_per_block);
    initialize_super_block(added);
    // The directory is rewritten whole from host copies (at most max_super_blocks entries).
    std::vector<slot_type*> slab_pointers;
    std::vector<std::uint32_t*> bitmap_pointers;
    std::vector<std::uint32_t> first_blocks{0};
    for (super_block* each : super_block_list(storage, added)) {
      slab_pointers.push_back(each->slabs.data());
      bitmap_pointers.push_back(each->bitmap.data());
      first_blocks.push_back(first_blocks.back() +
                             static_cast<std::uint32_t>(each->bitmap.size() / bitmap_words_per_block));
    }
    storage.super_block_directory.copy_from(std::span<slot_type* const>(slab_pointers));
    storage.bitmap_directory.copy_from(std::span<std::uint32_t* const>(bitmap_pointers));
    storage.first_blocks.copy_from(std::span<const std::uint32_t>(first_blocks));
    backend_.synchronize();  // the host copies die here
    storage.view.pool.super_block_count = static_cast<std::uint32_t>(slab_pointers.size());
    storage.view.pool.block_count = first_blocks.back();
    storage.capacity.pool_slabs += slabs;
    storage.super_blocks.push_back(std::move(added));
  }

  /// The super blocks of `storage` followed by `added`.
  static std::vector<super_block*> super_block_list(table_storage& storage, super_block& added)
  {
    std::vector<super_block*> list;
    for (super_block& each : storage.super_blocks) { list.push_back(&each); }
    list.push_back(&added);
    return list;
  }

  void initialize_super_block(super_block& block) const
  {
    initialize_bitmap(backend_, block.bitmap.data(), block.bitmap.size(), block.slab_count);
  }

  Backend backend_;
  hasher hasher_;
  key_equal key_equal_;
  std::string name_;
  key_mode mode_;
  table_storage storage_;
  batch_options options_;
  /// Threads in one wave of the batch kernels on the table's device (batch_wave_threads_of), asked once.
  std::uint64_t wave_threads_ = 0;
  /// What the last batch run through enqueue_planned reported (backend memory, one element), the host
  /// memory the synchronous calls read it into (pinned on the cuda backend), and the scratch of its
  /// bucket order: reused by every batch, so a batch allocates nothing. Mutable: finds use them too.
  mutable buffer<batch_report> report_;
  mutable buffer<batch_report> report_home_;
  mutable buffer<std::byte> scratch_;

  /// report_home_'s memory: pinned on the cuda backend, so reading the report back is one plain
  /// asynchronous copy; host memory on the host backend (unused there).
  [[nodiscard]] static buffer<batch_report> make_report_home()
  {
#if WARPDEX_HAS_CUDA
    if constexpr (std::is_same_v<Backend, cuda>) { return make_pinned_buffer<batch_report>(1); }
#endif
    return make_host_buffer<batch_report>(1);
  }
};

}  // namespace detail
}  // namespace warpdex::hash
