#pragma once
// The storage of a slab table (a map or a set) as kernels and host threads see it, the arguments of one
// batch, and the entry points each backend implements (src/hash/slab_table_host.cpp and
// slab_table_cuda.cu instantiate them for map_slots and set_slots).

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/config.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/hash/slab_alloc.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace warpdex::hash::detail {

template <class Slots>
struct slab_table_view {
  using slot_type = typename Slots::slot_type;
  using key_type = typename Slots::key_type;
  slot_type* heads = nullptr;  ///< bucket_count base slabs
  std::uint32_t bucket_count = 0;
  typename Slots::hasher hasher{};
  typename Slots::key_equal key_equal{};
  slab_pool_view<slot_type, Slots::slab_bytes> pool;
  key_mode mode = key_mode::unique;

  WARPDEX_HOST_DEVICE slot_type* head(std::uint32_t bucket) const
  {
    return heads + static_cast<std::uint64_t>(bucket) * Slots::slots_per_slab;
  }
  WARPDEX_HOST_DEVICE slot_type* head_of(key_type key) const { return head(bucket_of(key)); }

  /// hasher(key) mod bucket_count. With the default hasher, the universal hash of the table's seed
  /// into its buckets (equal to make_universal_hash(seed, bucket_count)(key) for every key, tested).
  WARPDEX_HOST_DEVICE std::uint32_t bucket_of(key_type key) const
  {
    return static_cast<std::uint32_t>(hasher(key) % bucket_count);
  }

  /// Whether a slot holding `slot_key` holds `key` (a user key): key_equal on the keys a slot may
  /// hold, never on a reserved one. With the default equality, plain equality (a user key never
  /// equals a reserved one), so the default protocol compares exactly as before hashers were a parameter.
  WARPDEX_HOST_DEVICE bool holds(key_type slot_key, key_type key) const
  {
    if constexpr (compares_key_bits<Slots>) {
      return slot_key == key;
    } else {
      return !Slots::is_reserved(slot_key) && key_equal(slot_key, key);
    }
  }

  /// The key an insertion or assignment of `key` writes into a slot that showed `slot_key`: `key` into
  /// an empty slot; an assignment keeps the stored key (equal to `key` under key_equal, and with the
  /// default equality the same bits, so the default protocol writes `key` as before).
  WARPDEX_HOST_DEVICE key_type key_to_write(key_type slot_key, key_type key) const
  {
    if constexpr (compares_key_bits<Slots>) {
      return key;
    } else {
      return Slots::is_reserved(slot_key) ? key : slot_key;
    }
  }
};

/// Where a batch first breaks the input rules (the count, or the largest index, when nowhere).
struct batch_violations {
  std::uint64_t first_reserved_key = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t first_bad_operation = std::numeric_limits<std::uint64_t>::max();
  /// The first operation the table does not have (multimaps: insert_or_assign).
  std::uint64_t first_unsupported_operation = std::numeric_limits<std::uint64_t>::max();

  /// Whether a batch of `count` elements breaks a rule.
  [[nodiscard]] WARPDEX_HOST_DEVICE bool any(std::uint64_t count) const
  {
    return first_reserved_key < count || first_bad_operation < count || first_unsupported_operation < count;
  }
};

/// What a batch run by enqueue_checked_batch leaves in backend memory once the stream has passed it:
/// where it broke the input rules (then none of it ran) and how many elements ended out_of_memory.
/// A table keeps one and reads it back in its synchronous calls only.
struct batch_report {
  batch_violations violations;
  std::uint64_t exhausted = 0;
  /// The running minima of a check kernel of several blocks, the running sum of a self-checked
  /// insertion kernel, and the count of finished blocks of either: the last block to finish moves its
  /// kernel's result to `violations` or `exhausted` and leaves these as they were, so no fill precedes the
  /// next kernel (a report starts as batch_report{}).
  batch_violations violations_so_far;
  std::uint64_t exhausted_so_far = 0;
  std::uint32_t blocks_done = 0;
};

/// One batch: element i does operations[i] (or `uniform` when operations is null) on keys[i]. Outputs
/// that are null are not written. `Key` and `Value`: the table's (Slots::key_type, Slots::value_type).
template <class Key, class Value>
struct basic_batch_arguments {
  const operation* operations = nullptr;
  operation uniform = operation::find;
  const Key* keys = nullptr;
  const Value* values_in = nullptr;  ///< insertions' values (null for sets)
  Value* values_out = nullptr;       ///< written for found finds only (and misses with write_misses)
  operation_status* statuses = nullptr;
  std::uint8_t* found = nullptr;  ///< written for every element: 1 when the status is found, else 0
  /// With values_out: the elements whose status is not found get `miss_value` there (a find's default).
  bool write_misses = false;
  Value miss_value = 0;
  std::uint64_t count = 0;
  std::uint32_t tile_lanes = 8;  ///< lanes per find or erasure on the cuda backend: 1, 4, 8, 16 or 32
  bool by_bucket = false;        ///< run the elements stably sorted by bucket (results still at their index)
  /// Split the batch by bucket range first (batch_order::by_partition), where the backend can: a uniform
  /// insertion batch with no outputs into a unique-key table (cuda backend; slab_table_cuda_partition.cuh).
  bool by_partition = false;
  std::uint64_t partition_bytes = 0;  ///< with by_partition: the base-slab bytes a bucket range covers
  /// Elements of one warp with equal keys run once, the lowest lane's (a batch with no outputs: the
  /// others are a valid sequential run in which they came first, or after it and found the key). Set by
  /// the backend for the batches it splits by bucket range, where a hot key fills whole warps.
  bool drop_warp_duplicates = false;
  /// Non-null: only the elements whose entry here is out_of_memory run (the retry after a growth; it
  /// may alias `statuses`); the others are skipped and their outputs left as they are.
  const operation_status* retry = nullptr;
  /// Non-null: the report whose violations an input check wrote just before (stream-ordered); when they
  /// show a broken rule, no element runs and nothing changes (enqueue_checked_batch).
  const batch_report* gate = nullptr;
  /// With gate: a rejected batch writes `rejected` to the status (and 0 to found) of each element that
  /// would have run; otherwise it writes nothing (the synchronous calls throw instead).
  bool mark_rejected = false;
  /// Non-null (small uniform batches, instead of gate): every block of the batch kernel checks the
  /// whole batch itself and writes the report here, so no check kernel runs before it.
  batch_report* self_check = nullptr;
  /// Non-null (uniform `_async` finds of any size whose every output a rejection can rewrite: statuses,
  /// found flags, values with a default for misses): each block checks its own elements and the last block
  /// to finish writes the report here, marking every element rejected when a key broke a rule. No check
  /// kernel runs before it.
  batch_report* find_check = nullptr;
  /// log2 of the lanes each element gets (cuda backend): a batch smaller than a wave of its kernel
  /// spreads out, so each warp runs fewer of its elements one after another.
  std::uint32_t element_lanes_log2 = 0;
  /// Threads in one wave of the batch kernels on the table's device (batch_wave_threads_of, asked once
  /// when the table is made), so a batch's launch path asks the device nothing; 0: asked at the launch.
  std::uint64_t wave_threads = 0;
  /// Each element checks its own key in the batch kernel (batch_check::each_element; `_async` uniform
  /// batches only): a reserved key gets `rejected` for that element alone (with mark_rejected's outputs)
  /// and the others run, so no check precedes the kernel and nothing is written to a report.
  bool check_each = false;
  /// Non-null (the synchronous calls): host memory the device can write (pinned) where the kernels
  /// also write the report's final violations and exhausted count, so the call reads them after its
  /// wait with no copy (enqueue_checked_batch says when the kernels write all of it).
  batch_report* report_home = nullptr;
  /// Non-null (find_many_async, insert_many_async): the elements are `batch_count` batches laid end to
  /// end, batch b the elements [batch_offsets[b], batch_offsets[b + 1]) (backend memory, batch_count + 1
  /// entries). Without check_each, each batch of at most many_whole_check_elements elements is checked
  /// as a whole and alone (a reserved key rejects its own batch), a longer one's elements each alone; no
  /// report is written. Input order only.
  const std::uint64_t* batch_offsets = nullptr;
  std::uint64_t batch_count = 0;
};

/// The longest batch of a many-batch call (basic_batch_arguments::batch_offsets) checked as a whole: on
/// the cuda backend every block of the one kernel reads the whole of each batch its elements belong to
/// before any of them runs, so the check costs each block at most twice this many keys read (from L2)
/// besides its own. The small batches' self-check reads as many.
inline constexpr std::uint64_t many_whole_check_elements = 2048;

/// Batch b (elements [first, first + count)) of a many-batch call as a batch of its own: the same
/// operation and options, its spans advanced to `first`, no offsets.
template <class Key, class Value>
basic_batch_arguments<Key, Value> batch_part(const basic_batch_arguments<Key, Value>& batch, std::uint64_t first,
                                             std::uint64_t count)
{
  basic_batch_arguments<Key, Value> part = batch;
  auto advance = [first](auto* pointer) { return pointer == nullptr ? pointer : pointer + first; };
  part.operations = advance(batch.operations);
  part.keys = advance(batch.keys);
  part.values_in = advance(batch.values_in);
  part.values_out = advance(batch.values_out);
  part.statuses = advance(batch.statuses);
  part.found = advance(batch.found);
  part.retry = advance(batch.retry);
  part.count = count;
  part.batch_offsets = nullptr;
  part.batch_count = 0;
  return part;
}
/// The batch of a table of `Slots`.
template <class Slots>
using batch_arguments = basic_batch_arguments<typename Slots::key_type, typename Slots::value_type>;

/// What a walk over each query key's whole list does (the multimap's queries).
enum class list_walk : std::uint8_t {
  count,      ///< counts[i] = the instances of keys[i]
  fill,       ///< keys[i]'s values go to values_out[offsets[i] ..), at most offsets[i + 1] - offsets[i] of
              ///< them and none at or beyond values_capacity
  erase_all,  ///< every instance of keys[i] is erased; statuses[i] = erased when there was one, else not_found
};

/// One batch of list walks; arrays the walk does not use may be null.
template <class Key, class Value>
struct basic_walk_arguments {
  list_walk kind = list_walk::count;
  const Key* keys = nullptr;
  std::uint64_t count = 0;
  std::uint64_t* counts = nullptr;         ///< count: count elements
  const std::uint64_t* offsets = nullptr;  ///< fill: count + 1 elements
  Value* values_out = nullptr;             ///< fill
  std::uint64_t values_capacity = 0;       ///< fill: elements of values_out
  operation_status* statuses = nullptr;    ///< erase_all
};
/// The walks of a table of `Slots`.
template <class Slots>
using walk_arguments = basic_walk_arguments<typename Slots::key_type, typename Slots::value_type>;

/// The bit of `op` in a set of operations (bit c: code c).
WARPDEX_HOST_DEVICE constexpr std::uint32_t operation_bit(operation op)
{
  return 1U << static_cast<std::uint32_t>(op);
}

/// The operations a table in `mode` does not have in a mixed batch: a multimap has no insert_or_assign.
WARPDEX_HOST_DEVICE constexpr std::uint32_t unsupported_operations(key_mode mode)
{
  return mode == key_mode::duplicates ? operation_bit(operation::insert_or_assign) : 0U;
}

/// Whether `op` is a known code that `unsupported` (operation bits) leaves out.
WARPDEX_HOST_DEVICE constexpr bool is_unsupported(operation op, std::uint32_t unsupported)
{
  return static_cast<std::uint32_t>(op) < operation_count && (unsupported & operation_bit(op)) != 0;
}

/// Sums over every slab list of a table.
struct chain_totals {
  std::uint64_t live_slots = 0;
  std::uint64_t erased_slots = 0;
  std::uint64_t slabs = 0;          ///< base slabs plus linked pool slabs
  std::uint64_t longest_chain = 0;  ///< slabs in the longest list
};

/// Compacts bucket's list in place (the flush of the slab hash): live slots move to the front in list
/// order, the rest of the last slab they need becomes empty, and the slabs after it are cut off and
/// handed to `free_slab(index)`. Shared by both backends; one caller per list, no concurrent batch.
template <class Slots, class FreeSlab>
WARPDEX_HOST_DEVICE void compact_list(const slab_table_view<Slots>& table, std::uint32_t bucket, FreeSlab&& free_slab)
{
  using slot_type = typename Slots::slot_type;
  slot_type* write_slab = table.head(bucket);
  std::uint32_t write_slot = 0;
  slot_type* read_slab = write_slab;
  // The writer never passes the reader, so every slot is read before it is overwritten.
  for (;;) {
    for (std::uint32_t slot = 0; slot < Slots::data_slots; ++slot) {
      const slot_type entry = read_slab[slot];
      if (Slots::is_reserved(Slots::key_of(entry))) { continue; }
      if (write_slot == Slots::data_slots) {
        write_slab = table.pool.slab(Slots::link_of(write_slab[Slots::link_slot]));
        write_slot = 0;
      }
      write_slab[write_slot++] = entry;
    }
    const std::uint32_t next = Slots::link_of(read_slab[Slots::link_slot]);
    if (next == null_slab) { break; }
    read_slab = table.pool.slab(next);
  }
  for (; write_slot < Slots::data_slots; ++write_slot) { write_slab[write_slot] = Slots::empty_slot; }
  std::uint32_t cut = Slots::link_of(write_slab[Slots::link_slot]);
  write_slab[Slots::link_slot] = Slots::make_link(null_slab);
  while (cut != null_slab) {
    const std::uint32_t after = Slots::link_of(table.pool.slab(cut)[Slots::link_slot]);
    free_slab(cut);
    cut = after;
  }
}

/// Threads in one wave of the batch kernels on the current device (cuda: its SM count times the blocks
/// an SM holds; the host backend: 0). A table asks once, when it is made, and passes it with every batch
/// (basic_batch_arguments::wave_threads).
template <class Backend>
std::uint64_t batch_wave_threads_of(const Backend& backend);

/// Fills every base slab with fresh slabs.
template <class Slots, class Backend>
void initialize_table(const Backend& backend, const slab_table_view<Slots>& table);

/// Marks every unit of a super block of `slabs` units free (`words` bitmap words; units beyond `slabs`
/// are marked taken).
template <class Backend>
void initialize_bitmap(const Backend& backend, std::uint32_t* bitmap, std::uint64_t words, std::uint64_t slabs);

/// Checks keys (and operation codes: unknown ones, and those in `unsupported`, operation bits) against
/// the input rules without changing anything.
template <class Backend, class Key>
batch_violations find_violations(const Backend& backend, const Key* keys, const operation* operations,
                                 std::uint64_t count, std::uint32_t unsupported);

/// Runs a validated batch; returns how many elements ended out_of_memory.
template <class Slots, class Backend>
std::uint64_t execute_batch(const Backend& backend, const slab_table_view<Slots>& table,
                            const batch_arguments<Slots>& batch);

/// Enqueues `batch` (unvalidated) on the backend's stream and returns without waiting for it: an input
/// check (reserved keys; operation codes unknown or in `unsupported`) writes report->violations and
/// zeroes report->exhausted, then the batch runs gated by it (batch.gate is set here): a batch that
/// breaks a rule changes nothing, else its exhausted elements are counted into report->exhausted.
/// `report` is in backend memory. The cuda backend allocates nothing (besides growing `scratch` for a
/// batch in bucket order larger than any before) and does not synchronize; the host backend has run it
/// all when it returns. Returns whether the kernels also write the final violations and exhausted count
/// into batch.report_home (given, and the batch a uniform one of at most check_single_block_elements
/// elements, or a uniform find or erasure; a larger insertion or a mixed batch counts its exhausted
/// elements with atomics into `report` only); false on the host backend. A batch with check_each (a
/// uniform one) runs with no input check and writes nothing to `report`: one kernel on the cuda backend.
template <class Slots, class Backend>
bool enqueue_checked_batch(const Backend& backend, const slab_table_view<Slots>& table,
                           const batch_arguments<Slots>& batch, std::uint32_t unsupported, batch_report* report,
                           buffer<std::byte>& scratch);

/// Runs a validated batch of a unique-key table by combining the operations on each key
/// (slab_combine.hpp): one find of each distinct key, the statuses of each key's elements as one
/// sequential run in input order, and one write per key that changes; returns how many elements ended
/// out_of_memory. The batch holds fewer than max_combined_elements elements; nothing else writes the
/// table meanwhile. O(n) besides the sort by key.
template <class Slots, class Backend>
std::uint64_t execute_combined(const Backend& backend, const slab_table_view<Slots>& table,
                               const batch_arguments<Slots>& batch);

/// The keys at sample_position(i, count, samples) for i < min(count, samples), copied to the host.
template <class Backend, class Key>
std::vector<Key> sample_keys(const Backend& backend, const Key* keys, std::uint64_t count, std::uint64_t samples);

template <class Slots, class Backend>
chain_totals summarize_chains(const Backend& backend, const slab_table_view<Slots>& table);

/// Writes every live key (and value) into the outputs, which hold `capacity` elements; returns how
/// many there are (a count above `capacity` means only `capacity` were written).
template <class Slots, class Backend>
std::uint64_t export_live(const Backend& backend, const slab_table_view<Slots>& table,
                          typename Slots::key_type* keys_out, typename Slots::value_type* values_out,
                          std::uint64_t capacity);

/// Runs one walk per query key over its whole list (keys already validated).
template <class Slots, class Backend>
void walk_lists(const Backend& backend, const slab_table_view<Slots>& table, const walk_arguments<Slots>& walk);

/// Turns counts[0, queries) into offsets[0, queries] in place (an exclusive scan; counts needs queries + 1
/// elements, the last one is overwritten) and returns the total.
template <class Backend>
std::uint64_t counts_to_offsets(const Backend& backend, std::uint64_t* counts, std::uint64_t queries);

/// Compacts every list: live slots move to the front in list order, erased slots disappear, and
/// slabs left empty at the tail go back to the pool. Needs a phase of its own (no concurrent batch).
template <class Slots, class Backend>
void flush_table(const Backend& backend, const slab_table_view<Slots>& table);

}  // namespace warpdex::hash::detail
