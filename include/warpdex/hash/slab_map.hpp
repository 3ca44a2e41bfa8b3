#pragma once
/// @file `slab_map<Key, Value, Backend>`: a concurrent hash map of 32-bit keys and values, or 64-bit keys
/// and values, in slab lists (the slab hash), unique-key mode.
///
/// B buckets, each the head of a list of slabs: 128 bytes holding 15 (key, value) pairs and a link, or
/// with `SlabBytes = 64`, 7 pairs and a link; with 64-bit keys and values, 128 bytes holding 7 pairs and
/// a link (slab_layout.hpp). On the cuda backend tiles of lanes (4 by default, see
/// batch_options.hpp) run the operations, each lane reading its share of a slab and the tile deciding
/// with ballots; the host backend runs the same protocol with one thread per operation. Insertions, assignments,
/// erasures and finds run concurrently in one batch: see slab_table.hpp for exactly which outcomes a batch may show
/// when several of its operations touch one key. Reserved keys: `hash::empty_key` and `hash::erased_key` (keys must be
/// <= max_user_key); of 64-bit keys, empty_key64, erased_key64 and pending_key64 (keys <= max_user_key64).
/// Values are unrestricted. Every span passed to a member is in the backend's memory; on the cuda backend
/// the outputs of the finds (values, statuses, found flags) may also be pinned host memory
/// (make_pinned_buffer, cudaMallocHost): the find's kernel writes the results there itself, so they reach
/// the host with no copy (slab_table.hpp, "Asynchronous batches").
///
/// Example:
/// @code
///   warpdex::hash::slab_map<std::uint32_t, std::uint32_t, warpdex::cuda> map(
///       warpdex::cuda{stream}, warpdex::hash::slab_map<std::uint32_t, std::uint32_t, warpdex::cuda>::capacity_for(n));
///   map.insert(keys, values);                 // device spans
///   map.find(queries, found_values, statuses);
/// @endcode

#include <warpdex/hash/slab_table.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>

namespace warpdex::hash {

/// `Key` and `Value`: both std::uint32_t, or both std::uint64_t (with 128-byte slabs).
/// `Hasher` and `KeyEqual` (hashers.hpp): the bucket hash and key equality, defaults default_key_hash<Key>
/// (universal_key_hash or mix64_key_hash, seeded by the constructor) and key_equal_to. With the defaults
/// the library holds the compiled table; with others, instantiate it once per backend (instantiate.hpp).
template <class Key, class Value, class Backend, std::uint32_t SlabBytes = default_slab_bytes,
          class Hasher = default_key_hash<Key>, class KeyEqual = key_equal_to>
class slab_map
    : public detail::slab_table_base<slots_with<basic_map_slots<SlabBytes, Key, Value>, Hasher, KeyEqual>, Backend> {
  using base = detail::slab_table_base<slots_with<basic_map_slots<SlabBytes, Key, Value>, Hasher, KeyEqual>, Backend>;

 public:
  using key_type = Key;
  using mapped_type = Value;
  /// Pairs a slab holds.
  static constexpr std::uint32_t pairs_per_slab = base::slots_type::data_slots;
  /// The seed of the bucket hash when none is given.
  static constexpr std::uint64_t default_seed = 0x51ab4a54;

  /// The capacity for `expected_keys` keys at `base_fill` of the base slabs (slab_capacity::for_keys).
  [[nodiscard]] static slab_capacity capacity_for(std::uint64_t expected_keys, double base_fill = 0.6)
  {
    return slab_capacity::for_keys(expected_keys, pairs_per_slab, base_fill);
  }

  /// An empty map, with the default hasher drawn from `seed` (any Hasher constructible from a seed).
  /// Throws warpdex::error for a capacity beyond the 32-bit slab addresses or an invalid super-block
  /// limit, and warpdex::out_of_memory when the backend cannot hold it.
  slab_map(const Backend& backend, const slab_capacity& capacity,
           std::uint64_t seed = default_seed) requires std::is_constructible_v<Hasher, std::uint64_t>
      : base(backend, capacity, Hasher(seed), KeyEqual{}, "slab_map")
  {
  }
  /// An empty map with a default-constructed Hasher that takes no seed.
  slab_map(const Backend& backend,
           const slab_capacity& capacity) requires(!std::is_constructible_v<Hasher, std::uint64_t>)
      : base(backend, capacity, Hasher{}, KeyEqual{}, "slab_map")
  {
  }
  /// An empty map hashing with `hash_function` and comparing keys with `key_eq` (hashers.hpp says what
  /// they must provide; a table with types other than the defaults is instantiated by the user,
  /// instantiate.hpp).
  slab_map(const Backend& backend, const slab_capacity& capacity, const Hasher& hash_function,
           const KeyEqual& key_eq = KeyEqual{})
      : base(backend, capacity, hash_function, key_eq, "slab_map")
  {
  }

  /// Inserts each (keys[i], values[i]) whose key is absent; a present key keeps its value. Repeated keys
  /// in one batch: one of them is inserted (which one is unspecified). Throws warpdex::out_of_memory
  /// after the batch when the pool ran out (the elements that fit were inserted); throws
  /// warpdex::error, changing nothing, for a reserved key or a size mismatch. O(n * list length).
  void insert(std::span<const Key> keys, std::span<const Value> values)
  {
    this->check_output(keys.size(), values.size(), "insert", "values");
    this->run(base::uniform_batch(operation::insert, keys, values, {}, {}), "insert", true);
  }
  /// As insert above, reporting per element: inserted, already_present or out_of_memory (no throw).
  void insert(std::span<const Key> keys, std::span<const Value> values, std::span<operation_status> statuses)
  {
    this->check_output(keys.size(), values.size(), "insert", "values");
    this->check_output(keys.size(), statuses.size(), "insert", "statuses");
    this->run(base::uniform_batch(operation::insert, keys, values, {}, statuses), "insert", false);
  }

  /// insert(keys, values, statuses) enqueued on the backend's stream, without waiting (slab_table.hpp,
  /// "Asynchronous batches"): statuses[i] = inserted, already_present, out_of_memory (the pool is never
  /// grown here: see grow_pool for the retry with run_elements::out_of_memory_only) or rejected (the
  /// batch holds a reserved key and changed nothing). Throws warpdex::error at the call for a size
  /// mismatch only.
  void insert_async(std::span<const Key> keys, std::span<const Value> values, std::span<operation_status> statuses,
                    run_elements elements = run_elements::all)
  {
    this->check_output(keys.size(), values.size(), "insert_async", "values");
    this->check_output(keys.size(), statuses.size(), "insert_async", "statuses");
    this->run_async(base::uniform_batch(operation::insert, keys, values, {}, statuses), elements);
  }

  /// Many insertion batches in one call (slab_table.hpp, "Many batches in one call"): batch b is the pairs
  /// [offsets[b], offsets[b + 1]) of keys and values, offsets (batches + 1 entries, rising from 0 to
  /// keys.size()) in backend memory; statuses as insert_async's, a batch holding a reserved key rejected
  /// alone. Enqueued as insert_async is: one kernel on the cuda backend, whatever the batch count.
  void insert_many_async(std::span<const Key> keys, std::span<const Value> values,
                         std::span<const std::uint64_t> offsets, std::span<operation_status> statuses,
                         run_elements elements = run_elements::all)
  {
    this->check_output(keys.size(), values.size(), "insert_many_async", "values");
    this->check_output(keys.size(), statuses.size(), "insert_many_async", "statuses");
    this->run_many_async(base::uniform_batch(operation::insert, keys, values, {}, statuses), offsets, elements);
  }

  /// Inserts each pair, replacing the value of a present key. Repeated keys: every element takes
  /// effect in some order, so the last one to do so leaves its value. Exhaustion as insert.
  void insert_or_assign(std::span<const Key> keys, std::span<const Value> values)
  {
    this->check_output(keys.size(), values.size(), "insert_or_assign", "values");
    this->run(base::uniform_batch(operation::insert_or_assign, keys, values, {}, {}), "insert_or_assign", true);
  }
  /// As insert_or_assign above, reporting inserted, assigned or out_of_memory per element.
  void insert_or_assign(std::span<const Key> keys, std::span<const Value> values, std::span<operation_status> statuses)
  {
    this->check_output(keys.size(), values.size(), "insert_or_assign", "values");
    this->check_output(keys.size(), statuses.size(), "insert_or_assign", "statuses");
    this->run(base::uniform_batch(operation::insert_or_assign, keys, values, {}, statuses), "insert_or_assign", false);
  }

  /// insert_or_assign(keys, values, statuses) enqueued, as insert_async (inserted, assigned,
  /// out_of_memory or rejected).
  void insert_or_assign_async(std::span<const Key> keys, std::span<const Value> values,
                              std::span<operation_status> statuses, run_elements elements = run_elements::all)
  {
    this->check_output(keys.size(), values.size(), "insert_or_assign_async", "values");
    this->check_output(keys.size(), statuses.size(), "insert_or_assign_async", "statuses");
    this->run_async(base::uniform_batch(operation::insert_or_assign, keys, values, {}, statuses), elements);
  }

  /// For each key: statuses[i] = found or not_found, and values[i] = its value when found (left
  /// unwritten when not). O(n * list length).
  void find(std::span<const Key> keys, std::span<Value> values, std::span<operation_status> statuses) const
  {
    this->check_output(keys.size(), values.size(), "find", "values");
    this->check_output(keys.size(), statuses.size(), "find", "statuses");
    this->run(base::uniform_batch(operation::find, keys, {}, values, statuses), "find", false);
  }

  /// find(keys, values, statuses) enqueued on the backend's stream, without waiting (slab_table.hpp,
  /// "Asynchronous batches"): found, not_found, or rejected for a batch holding a reserved key.
  void find_async(std::span<const Key> keys, std::span<Value> values, std::span<operation_status> statuses) const
  {
    this->check_output(keys.size(), values.size(), "find_async", "values");
    this->check_output(keys.size(), statuses.size(), "find_async", "statuses");
    this->run_async(base::uniform_batch(operation::find, keys, {}, values, statuses), run_elements::all);
  }

  /// For each key: found[i] = 1 and values[i] = its value when present, else found[i] = 0 and
  /// values[i] = `default_value`, all written in the one pass of the find (no fill beforehand). O(n * list
  /// length).
  void find(std::span<const Key> keys, std::span<Value> values, std::span<std::uint8_t> found,
            Value default_value) const
  {
    this->run(find_or_default_batch(keys, values, found, default_value), "find", false);
  }
  /// find(keys, values, found, default_value) enqueued (see find_async); a batch holding a reserved key
  /// writes found[i] = 0 and values[i] = default_value for every element.
  void find_async(std::span<const Key> keys, std::span<Value> values, std::span<std::uint8_t> found,
                  Value default_value) const
  {
    this->run_async(find_or_default_batch(keys, values, found, default_value), run_elements::all);
  }

  /// For each key: values[i] = its value when present, else `default_value` (a value the map does not
  /// hold tells the two apart, as a sentinel does in cuCollections' find). One output, so a small
  /// batch's results come home in one copy. O(n * list length).
  void find(std::span<const Key> keys, std::span<Value> values, Value default_value) const
  {
    this->run(find_or_default_batch(keys, values, std::nullopt, default_value), "find", false);
  }
  /// find(keys, values, default_value) enqueued (see find_async); a batch holding a reserved key writes
  /// default_value for every element (the synchronous call throws).
  void find_async(std::span<const Key> keys, std::span<Value> values, Value default_value) const
  {
    this->run_async(find_or_default_batch(keys, values, std::nullopt, default_value), run_elements::all);
  }

  /// Many find batches in one call (slab_table.hpp, "Many batches in one call"): batch b is the keys
  /// [offsets[b], offsets[b + 1]) (offsets, batches + 1 entries rising from 0 to keys.size(), in backend
  /// memory); values[i] = keys[i]'s value or `default_value`, as find_async(keys, values, default_value),
  /// and default_value for every element of a batch holding a reserved key. One kernel on the cuda
  /// backend, whatever the batch count; values may be pinned host memory there (no copy home).
  void find_many_async(std::span<const Key> keys, std::span<const std::uint64_t> offsets, std::span<Value> values,
                       Value default_value) const
  {
    this->run_many_async(find_or_default_batch(keys, values, std::nullopt, default_value), offsets, run_elements::all);
  }
  /// As above with statuses: found (values[i] written), not_found (values[i] left as it is), or rejected
  /// for every element of a batch holding a reserved key.
  void find_many_async(std::span<const Key> keys, std::span<const std::uint64_t> offsets, std::span<Value> values,
                       std::span<operation_status> statuses) const
  {
    this->check_output(keys.size(), values.size(), "find_many_async", "values");
    this->check_output(keys.size(), statuses.size(), "find_many_async", "statuses");
    this->run_many_async(base::uniform_batch(operation::find, keys, {}, values, statuses), offsets, run_elements::all);
  }

  /// A mixed batch: element i does operations[i] on (keys[i], values_in[i]), all concurrently; statuses[i]
  /// says what it did and values_out[i] receives the value of a found find (other elements' values_out
  /// stay unwritten). Exhaustion is reported per element. values_in is read for insertions only.
  void execute(std::span<const operation> operations, std::span<const Key> keys, std::span<const Value> values_in,
               std::span<Value> values_out, std::span<operation_status> statuses)
  {
    this->execute_pairs(operations, keys, values_in, values_out, statuses);
  }

  /// execute(...) enqueued on the backend's stream, without waiting (slab_table.hpp, "Asynchronous
  /// batches"): statuses as execute's, or out_of_memory without growth, or rejected for a batch that
  /// breaks the input rules; run_elements::out_of_memory_only retries the exhausted elements.
  void execute_async(std::span<const operation> operations, std::span<const Key> keys, std::span<const Value> values_in,
                     std::span<Value> values_out, std::span<operation_status> statuses,
                     run_elements elements = run_elements::all)
  {
    this->execute_pairs_async(operations, keys, values_in, values_out, statuses, elements);
  }

  /// Writes every live pair (in no particular order) into the first size() elements of the outputs and
  /// returns size(). Throws warpdex::error when the outputs (of equal size) are too small.
  std::uint64_t export_pairs(std::span<Key> keys, std::span<Value> values) const
  {
    this->check_output(keys.size(), values.size(), "export_pairs", "values");
    return this->export_entries(keys.data(), values.data(), keys.size(), "export_pairs", "pairs");
  }

 private:
  /// The batch of find with a default value, its sizes checked.
  [[nodiscard]] typename base::batch_arguments find_or_default_batch(std::span<const Key> keys, std::span<Value> values,
                                                                     std::optional<std::span<std::uint8_t>> found,
                                                                     Value default_value) const
  {
    this->check_output(keys.size(), values.size(), "find", "values");
    if (found) { this->check_output(keys.size(), found->size(), "find", "found"); }
    auto batch = base::uniform_batch(operation::find, keys, {}, values, {});
    batch.found = found ? found->data() : nullptr;
    batch.write_misses = true;
    batch.miss_value = default_value;
    return batch;
  }
};

}  // namespace warpdex::hash
