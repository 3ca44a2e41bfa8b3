#pragma once
/// @file `slab_multimap<Key, Value, Backend>`: the slab hash in multimap mode, a concurrent hash map of
/// 32-bit keys and values (or 64-bit keys and values) in which a key may hold any number of values (duplicate pairs
/// included).
///
/// The slabs, the buckets, the allocator and the protocol are slab_map's (slab_layout.hpp, with
/// `key_mode::duplicates`): an insertion always adds its pair, into the first empty slot of its key's
/// list in list order (appending a slab when there is none), whether or not the key is present.
///
/// ## Semantics
/// - insert: every element adds one pair and reports `inserted`, or `out_of_memory` (nothing added)
///   when it needs a slab and the pool has none free. Concurrent insertions of one key, in one batch or
///   from device refs, all take effect: none is lost.
/// - erase (one instance): removes one instance of the key, the first in list order, and reports
///   `erased`; `not_found` when none was left. n erasures of a key holding m instances remove min(n, m).
/// - erase_all: removes every instance of the key and reports `erased` when it removed at least one,
///   else `not_found`. Several erase_all of one key in one batch remove each instance once; one of them
///   (or an erase) reports erased for each instance.
/// - count and find_all see the pairs present when their walk reads each slab; run them (and
///   erase_all) in a phase without concurrent insertions to see one consistent state.
/// - find_all is two passes: `find_all_offsets` (the count pass) writes each query's number of
///   values and their exclusive scan, the offsets; `find_all` (the fill pass) writes query i's values
///   into values[offsets[i], offsets[i + 1]) in no particular order. It never writes more than a query's
///   range nor beyond `values`, so offsets from a stale count pass cannot overrun the output.
/// - execute (a mixed batch): element i does operations[i], one of find, insert and erase, on
///   (keys[i], values_in[i]); all run concurrently and each takes effect atomically at one instant
///   within the call (it is linearizable), in any order. So for one key the statuses and the pairs left
///   are those of SOME sequential run of the batch's operations on it, starting from its pairs before
///   the batch, where insert adds its pair (`inserted`, or `out_of_memory` adding nothing), erase
///   removes one instance (`erased`) or finds none (`not_found`), and find reports `found` with the
///   value of an instance present at its instant (the first in list order it met) or `not_found`.
///   Which instance an erase removes is not specified. Consequences: the pairs left are those before
///   the batch plus the inserted ones less one per `erased`; an erase or find reports not_found only
///   when the key can have held no instance at its instant, so only when every instance it held
///   before the batch was erased in the batch (a key holding more instances than the batch erases
///   sees every erase report erased and every find found). `insert_or_assign` has no meaning here: a
///   batch holding it is rejected, as is an unknown operation code.
/// - repeated keys: a batch whose keys repeat (batch_options.hpp, batch_combine) runs each key's
///   elements as its finds, then its erasures, then its insertions (one of the orders allowed above):
///   one find, one walk erasing up to the erasures' count of instances and one walk appending the
///   insertions' pairs per distinct key, so a key inserted or erased m times costs two walks of its
///   list, not m. The statuses: finds see the instances before the batch; the first erasures in input
///   order report erased, those beyond the instances not_found; insertions report inserted, the last
///   ones in input order out_of_memory when no slab was free.
/// Reserved keys (`hash::empty_key`, `hash::erased_key`; of 64-bit keys those of slab_map) reject the whole batch with
/// warpdex::error before anything changes; values are unrestricted. Every span is in the backend's memory.
///
/// @code
///   using multimap = warpdex::hash::slab_multimap<std::uint32_t, std::uint32_t, warpdex::cuda>;
///   multimap edges(warpdex::cuda{stream}, multimap::capacity_for(pairs));
///   edges.insert(sources, targets);
///   const std::uint64_t total = edges.find_all_offsets(queries, offsets);   // offsets: queries + 1
///   edges.find_all(queries, offsets, neighbours);                          // neighbours: >= total
/// @endcode

#include <warpdex/hash/slab_table.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

namespace warpdex::hash {

/// `Hasher` and `KeyEqual`: as slab_map's (hashers.hpp, instantiate.hpp); with a KeyEqual of the user's,
/// the instances of a key are the pairs whose keys are equal to it.
/// `Key` and `Value`: both std::uint32_t, or both std::uint64_t (with 128-byte slabs), as slab_map's.
template <class Key, class Value, class Backend, std::uint32_t SlabBytes = default_slab_bytes,
          class Hasher = default_key_hash<Key>, class KeyEqual = key_equal_to>
class slab_multimap
    : public detail::slab_table_base<slots_with<basic_map_slots<SlabBytes, Key, Value>, Hasher, KeyEqual>, Backend> {
  using base = detail::slab_table_base<slots_with<basic_map_slots<SlabBytes, Key, Value>, Hasher, KeyEqual>, Backend>;

 public:
  using key_type = Key;
  using mapped_type = Value;
  /// Pairs a slab holds.
  static constexpr std::uint32_t pairs_per_slab = base::slots_type::data_slots;
  /// The seed of the bucket hash when none is given.
  static constexpr std::uint64_t default_seed = 0x51ab3a7;

  /// The capacity for `expected_pairs` pairs at `base_fill` of the base slabs, when keys hold about
  /// `values_per_key` values each: a key's values share its list, so lists overflow more often than
  /// for distinct keys and the pool is sized for that (slab_capacity::for_keys).
  [[nodiscard]] static slab_capacity capacity_for(std::uint64_t expected_pairs, double base_fill = 0.6,
                                                  std::uint32_t values_per_key = 1)
  {
    return slab_capacity::for_keys(expected_pairs, pairs_per_slab, base_fill, values_per_key);
  }

  /// An empty multimap, with the default hasher drawn from `seed` (any Hasher constructible from a seed).
  /// Throws warpdex::error for a capacity beyond the 32-bit slab addresses or an invalid super-block
  /// limit, and warpdex::out_of_memory when the backend cannot hold it.
  slab_multimap(const Backend& backend, const slab_capacity& capacity,
                std::uint64_t seed = default_seed) requires std::is_constructible_v<Hasher, std::uint64_t>
      : base(backend, capacity, Hasher(seed), KeyEqual{}, "slab_multimap", key_mode::duplicates)
  {
  }
  /// An empty multimap with a default-constructed Hasher that takes no seed.
  slab_multimap(const Backend& backend,
                const slab_capacity& capacity) requires(!std::is_constructible_v<Hasher, std::uint64_t>)
      : base(backend, capacity, Hasher{}, KeyEqual{}, "slab_multimap", key_mode::duplicates)
  {
  }
  /// An empty multimap hashing with `hash_function` and comparing keys with `key_eq` (hashers.hpp says what
  /// they must provide; a table with types other than the defaults is instantiated by the user,
  /// instantiate.hpp).
  slab_multimap(const Backend& backend, const slab_capacity& capacity, const Hasher& hash_function,
                const KeyEqual& key_eq = KeyEqual{})
      : base(backend, capacity, hash_function, key_eq, "slab_multimap", key_mode::duplicates)
  {
  }

  /// Adds every pair (keys[i], values[i]), present key or not. Throws warpdex::out_of_memory after the
  /// batch when the pool ran out (the pairs that fit were added); throws warpdex::error, changing
  /// nothing, for a reserved key or a size mismatch. O(n * list length).
  void insert(std::span<const Key> keys, std::span<const Value> values)
  {
    this->check_output(keys.size(), values.size(), "insert", "values");
    this->run(base::uniform_batch(operation::insert, keys, values, {}, {}), "insert", true);
  }
  /// As insert above, reporting inserted or out_of_memory per element (no throw).
  void insert(std::span<const Key> keys, std::span<const Value> values, std::span<operation_status> statuses)
  {
    this->check_output(keys.size(), values.size(), "insert", "values");
    this->check_output(keys.size(), statuses.size(), "insert", "statuses");
    this->run(base::uniform_batch(operation::insert, keys, values, {}, statuses), "insert", false);
  }

  /// insert(keys, values, statuses) enqueued on the backend's stream, without waiting (slab_table.hpp,
  /// "Asynchronous batches"): inserted, out_of_memory (no growth; see grow_pool) or rejected.
  void insert_async(std::span<const Key> keys, std::span<const Value> values, std::span<operation_status> statuses,
                    run_elements elements = run_elements::all)
  {
    this->check_output(keys.size(), values.size(), "insert_async", "values");
    this->check_output(keys.size(), statuses.size(), "insert_async", "statuses");
    this->run_async(base::uniform_batch(operation::insert, keys, values, {}, statuses), elements);
  }

  /// Erases one instance of each key (erased, or not_found when none is left): see the semantics above.
  using base::erase;

  /// Erases every instance of each key; statuses[i] = erased when keys[i] had one, else not_found.
  /// O(n * list length).
  void erase_all(std::span<const Key> keys, std::span<operation_status> statuses)
  {
    this->check_output(keys.size(), statuses.size(), "erase_all", "statuses");
    typename base::walk_arguments walk = make_walk(detail::list_walk::erase_all, keys, "erase_all");
    walk.statuses = statuses.data();
    run_walk(walk);
  }

  /// A mixed batch: element i does operations[i] (find, insert or erase) on (keys[i], values_in[i]), all
  /// concurrently (see the semantics above); statuses[i] says what it did and values_out[i] receives the
  /// value of a found find (other elements' values_out stay unwritten). values_in is read for insertions
  /// only. Exhaustion is reported per element (a growing table first grows and runs those elements
  /// again). Throws warpdex::error, changing nothing, for a size mismatch, an insert_or_assign element,
  /// an operation code outside [0, operation_count) or a reserved key, naming the element.
  /// O(n * list length).
  void execute(std::span<const operation> operations, std::span<const Key> keys, std::span<const Value> values_in,
               std::span<Value> values_out, std::span<operation_status> statuses)
  {
    this->execute_pairs(operations, keys, values_in, values_out, statuses);
  }

  /// execute(...) enqueued (see insert_async): rejected for a batch that breaks the input rules
  /// (insert_or_assign included).
  void execute_async(std::span<const operation> operations, std::span<const Key> keys, std::span<const Value> values_in,
                     std::span<Value> values_out, std::span<operation_status> statuses,
                     run_elements elements = run_elements::all)
  {
    this->execute_pairs_async(operations, keys, values_in, values_out, statuses, elements);
  }

  /// counts[i] = the number of values keys[i] holds. O(n * list length).
  void count(std::span<const Key> keys, std::span<std::uint64_t> counts) const
  {
    this->check_output(keys.size(), counts.size(), "count", "counts");
    typename base::walk_arguments walk = make_walk(detail::list_walk::count, keys, "count");
    walk.counts = counts.data();
    run_walk(walk);
  }

  /// The count pass of find_all: offsets[i] = the values of keys[0, i) (an exclusive scan of the counts),
  /// offsets[n] = the total, which it returns. `offsets` holds keys.size() + 1 elements.
  std::uint64_t find_all_offsets(std::span<const Key> keys, std::span<std::uint64_t> offsets) const
  {
    check_offsets(keys.size(), offsets.size(), "find_all_offsets");
    typename base::walk_arguments walk = make_walk(detail::list_walk::count, keys, "find_all_offsets");
    walk.counts = offsets.data();
    run_walk(walk);
    return detail::counts_to_offsets(this->backend(), offsets.data(), keys.size());
  }

  /// The fill pass of find_all: writes keys[i]'s values, in no particular order, into
  /// values[offsets[i], offsets[i + 1]) (at most that many, and nothing at or beyond values.size()).
  /// `offsets` holds keys.size() + 1 elements, from find_all_offsets with no update in between.
  void find_all(std::span<const Key> keys, std::span<const std::uint64_t> offsets, std::span<Value> values) const
  {
    check_offsets(keys.size(), offsets.size(), "find_all");
    typename base::walk_arguments walk = make_walk(detail::list_walk::fill, keys, "find_all");
    walk.offsets = offsets.data();
    walk.values_out = values.data();
    walk.values_capacity = values.size();
    run_walk(walk);
  }

  /// Writes every live pair (in no particular order, duplicates included) into the first size()
  /// elements of the outputs and returns size(). Throws warpdex::error when the outputs are too small.
  std::uint64_t export_pairs(std::span<Key> keys, std::span<Value> values) const
  {
    this->check_output(keys.size(), values.size(), "export_pairs", "values");
    return this->export_entries(keys.data(), values.data(), keys.size(), "export_pairs", "pairs");
  }

 private:
  void check_offsets(std::uint64_t keys, std::uint64_t offsets, const char* caller) const
  {
    WARPDEX_EXPECTS(offsets == keys + 1, this->name() + "::" + caller + ": offsets holds " + std::to_string(offsets) +
                                             " elements but " + std::to_string(keys) + " keys need " +
                                             std::to_string(keys + 1));
  }

  /// A walk over `keys`, checked against the input rules (throws before anything changes).
  typename base::walk_arguments make_walk(detail::list_walk kind, std::span<const Key> keys, const char* caller) const
  {
    typename base::walk_arguments walk;
    walk.kind = kind;
    walk.keys = keys.data();
    walk.count = keys.size();
    if (!keys.empty()) { this->check_input(keys.data(), nullptr, keys.size(), this->name() + "::" + caller); }
    return walk;
  }

  void run_walk(const typename base::walk_arguments& walk) const
  {
    if (walk.count > 0) { detail::walk_lists<typename base::slots_type>(this->backend(), this->view(), walk); }
  }
};

}  // namespace warpdex::hash
