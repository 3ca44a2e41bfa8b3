#pragma once
/// @file `slab_set<Key, Backend>`: a concurrent hash set of 32- or 64-bit keys in slab lists, unique-key mode.
///
/// As slab_map (slab_map.hpp), with 31 keys and a link per 128-byte slab (15 and a link with `SlabBytes = 64`);
/// 64-bit keys: 15 keys and a link per 128-byte slab.
/// Batch semantics: slab_table.hpp.
/// Reserved keys: `hash::empty_key` and `hash::erased_key`; of 64-bit keys, slab_map's. Every span is in the backend's
/// memory.

#include <warpdex/hash/slab_table.hpp>

#include <cstdint>
#include <span>
#include <type_traits>

namespace warpdex::hash {

/// `Key`: std::uint32_t, or std::uint64_t (with 128-byte slabs). `Hasher` and `KeyEqual`: as slab_map's
/// (hashers.hpp, instantiate.hpp).
template <class Key, class Backend, std::uint32_t SlabBytes = default_slab_bytes, class Hasher = default_key_hash<Key>,
          class KeyEqual = key_equal_to>
class slab_set
    : public detail::slab_table_base<slots_with<basic_set_slots<SlabBytes, Key>, Hasher, KeyEqual>, Backend> {
  using base = detail::slab_table_base<slots_with<basic_set_slots<SlabBytes, Key>, Hasher, KeyEqual>, Backend>;

 public:
  using key_type = Key;
  /// Keys a slab holds.
  static constexpr std::uint32_t keys_per_slab = base::slots_type::data_slots;
  static constexpr std::uint64_t default_seed = 0x51ab5e7;

  /// The capacity for `expected_keys` keys at `base_fill` of the base slabs (slab_capacity::for_keys).
  [[nodiscard]] static slab_capacity capacity_for(std::uint64_t expected_keys, double base_fill = 0.6)
  {
    return slab_capacity::for_keys(expected_keys, keys_per_slab, base_fill);
  }

  /// An empty set, with the default hasher drawn from `seed` (any Hasher constructible from a seed).
  /// Throws warpdex::error for a capacity beyond the 32-bit slab addresses or an invalid super-block
  /// limit, and warpdex::out_of_memory when the backend cannot hold it.
  slab_set(const Backend& backend, const slab_capacity& capacity,
           std::uint64_t seed = default_seed) requires std::is_constructible_v<Hasher, std::uint64_t>
      : base(backend, capacity, Hasher(seed), KeyEqual{}, "slab_set")
  {
  }
  /// An empty set with a default-constructed Hasher that takes no seed.
  slab_set(const Backend& backend,
           const slab_capacity& capacity) requires(!std::is_constructible_v<Hasher, std::uint64_t>)
      : base(backend, capacity, Hasher{}, KeyEqual{}, "slab_set")
  {
  }
  /// An empty set hashing with `hash_function` and comparing keys with `key_eq` (hashers.hpp says what
  /// they must provide; a table with types other than the defaults is instantiated by the user,
  /// instantiate.hpp).
  slab_set(const Backend& backend, const slab_capacity& capacity, const Hasher& hash_function,
           const KeyEqual& key_eq = KeyEqual{})
      : base(backend, capacity, hash_function, key_eq, "slab_set")
  {
  }

  /// Inserts each absent key. Throws warpdex::out_of_memory after the batch when the pool ran out
  /// (the keys that fit were inserted); warpdex::error, changing nothing, for a reserved key.
  void insert(std::span<const Key> keys)
  {
    this->run(base::uniform_batch(operation::insert, keys, {}, {}, {}), "insert", true);
  }
  /// As insert above, reporting inserted, already_present or out_of_memory per element (no throw).
  void insert(std::span<const Key> keys, std::span<operation_status> statuses)
  {
    this->check_output(keys.size(), statuses.size(), "insert", "statuses");
    this->run(base::uniform_batch(operation::insert, keys, {}, {}, statuses), "insert", false);
  }

  /// insert(keys, statuses) enqueued on the backend's stream, without waiting (slab_table.hpp,
  /// "Asynchronous batches"): inserted, already_present, out_of_memory (no growth; see grow_pool) or
  /// rejected.
  void insert_async(std::span<const Key> keys, std::span<operation_status> statuses,
                    run_elements elements = run_elements::all)
  {
    this->check_output(keys.size(), statuses.size(), "insert_async", "statuses");
    this->run_async(base::uniform_batch(operation::insert, keys, {}, {}, statuses), elements);
  }

  /// A mixed batch: element i does operations[i] on keys[i] (insert_or_assign acts as insert, reporting
  /// inserted; a present key reports assigned); statuses[i] says what it did.
  void execute(std::span<const operation> operations, std::span<const Key> keys, std::span<operation_status> statuses)
  {
    this->run(mixed_batch(operations, keys, statuses, "execute"), "execute", false);
  }
  /// execute(...) enqueued (see insert_async): rejected for a batch that breaks the input rules.
  void execute_async(std::span<const operation> operations, std::span<const Key> keys,
                     std::span<operation_status> statuses, run_elements elements = run_elements::all)
  {
    this->run_async(mixed_batch(operations, keys, statuses, "execute_async"), elements);
  }

  /// Writes every live key (in no particular order) into the first size() elements of `keys` and returns
  /// size(). Throws warpdex::error when `keys` is too small.
  std::uint64_t export_keys(std::span<Key> keys) const
  {
    return this->export_entries(keys.data(), nullptr, keys.size(), "export_keys", "keys");
  }

 private:
  /// The mixed batch of a set, its sizes checked.
  [[nodiscard]] typename base::batch_arguments mixed_batch(std::span<const operation> operations,
                                                           std::span<const Key> keys,
                                                           std::span<operation_status> statuses,
                                                           const char* operation_name) const
  {
    this->check_output(keys.size(), operations.size(), operation_name, "operations");
    this->check_output(keys.size(), statuses.size(), operation_name, "statuses");
    typename base::batch_arguments batch = base::uniform_batch(operation::find, keys, {}, {}, statuses);
    batch.operations = operations.data();
    return batch;
  }
};

}  // namespace warpdex::hash
