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
///   the rest of the batch is unaffected. A slab that a concurrent append holds for a moment (it lost
///   the race to link and is about to return it) counts as taken, so with one or two free slabs left an
///   insertion may report out_of_memory; retrying that element can then succeed.
/// Consequences: of several `insert`s of an absent key with no erase in the batch, exactly one reports
/// `inserted` and its value stays; an erase and an insert of the same key may run in either order.
/// Nothing inserted is ever lost: after a batch, the exported pairs are exactly the live keys.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/hash/detail/slab_table.hpp>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>

namespace warpdex::hash {

/// How big a table is: its buckets (one 128-byte base slab each) and its pool of overflow slabs. The
/// table never rehashes: chains grow into the pool, and an insertion that finds the pool exhausted
/// reports out_of_memory. To resize, export the pairs and build a table of a larger capacity (or call
/// the containers' `rehash`).
struct slab_capacity {
  std::uint32_t bucket_count = 1;  ///< >= 1
  std::uint64_t pool_slabs = 0;    ///< overflow slabs, <= max_pool_slabs (0: every list is one slab)

  /// Buckets for `expected_keys` keys that fill a base slab's `data_slots` to `base_fill` on average
  /// (0.6 is the slab hash's sweet spot: most lists stay one slab long), and a pool twice the expected
  /// overflow of uniformly hashed keys (Poisson-distributed per bucket) plus two memory blocks.
  static slab_capacity for_keys(std::uint64_t expected_keys, std::uint32_t data_slots, double base_fill)
  {
    WARPDEX_EXPECTS(base_fill > 0.0 && base_fill <= 1.0,
                    "slab_capacity::for_keys: base_fill must lie in (0, 1], got " + std::to_string(base_fill));
    const double keys_per_bucket = base_fill * data_slots;
    const double buckets = std::ceil(static_cast<double>(expected_keys) / keys_per_bucket);
    WARPDEX_EXPECTS(buckets < 4294967296.0, "slab_capacity::for_keys: " + std::to_string(expected_keys) +
                                                " keys need more than 2^32 buckets at this fill");
    slab_capacity capacity;
    capacity.bucket_count = static_cast<std::uint32_t>(std::max(1.0, buckets));
    // Expected overflow slabs per bucket: sum over j >= 1 of P(X > j * data_slots), X ~ Poisson(mean).
    double overflow = 0.0;
    for (std::uint32_t chain = 1; chain < 64; ++chain) {
      double probability = std::exp(-keys_per_bucket);
      double at_most = 0.0;
      for (std::uint32_t k = 0; k <= chain * data_slots; ++k) {
        at_most += probability;
        probability *= keys_per_bucket / (k + 1);
      }
      const double beyond = std::max(0.0, 1.0 - at_most);
      if (beyond < 1e-12) { break; }
      overflow += beyond;
    }
    const double pool = 2.0 * overflow * capacity.bucket_count + 2.0 * slabs_per_block;
    capacity.pool_slabs = static_cast<std::uint64_t>(std::min(pool, static_cast<double>(max_pool_slabs)));
    return capacity;
  }
};

/// What a table holds and how well it uses its memory (computed by walking every list).
struct slab_statistics {
  std::uint64_t bucket_count = 0;
  std::uint64_t pool_slabs = 0;
  std::uint64_t slabs_in_use = 0;   ///< base slabs plus linked pool slabs
  std::uint64_t live = 0;           ///< keys present
  std::uint64_t erased = 0;         ///< erased slots not yet reclaimed by flush
  std::uint64_t longest_chain = 0;  ///< slabs in the longest list
  double mean_slabs_per_bucket = 0;
  /// Bytes of live entries over bytes of slabs in use (the slab hash's "memory utilization").
  double memory_utilization = 0;
  /// Bytes of slabs in use per live entry (infinite when empty).
  double bytes_per_live_entry = 0;
  /// Every byte the table owns: base slabs, the whole pool and its bitmap.
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
 public:
  using slot_type = typename Slots::slot_type;

  /// An empty table of `capacity` on `backend`, hashing with the universal hash drawn from `seed`.
  slab_table_base(const Backend& backend, const slab_capacity& capacity, std::uint64_t seed, const char* name)
      : backend_(backend), capacity_(capacity), seed_(seed), name_(name)
  {
    WARPDEX_EXPECTS(capacity.bucket_count >= 1, name_ + ": bucket_count must be at least 1");
    WARPDEX_EXPECTS(
        capacity.pool_slabs <= max_pool_slabs,
        name_ + ": pool_slabs " + std::to_string(capacity.pool_slabs) + " exceeds the 32-bit slab addresses");
    const std::uint64_t blocks = (capacity.pool_slabs + slabs_per_block - 1) / slabs_per_block;
    heads_ = make_buffer<slot_type>(backend, std::uint64_t{capacity.bucket_count} * Slots::slots_per_slab);
    pool_ = make_buffer<slot_type>(backend, capacity.pool_slabs * Slots::slots_per_slab);
    bitmap_ = make_buffer<std::uint32_t>(backend, blocks * bitmap_words_per_block);
    view_.heads = heads_.data();
    view_.bucket_count = capacity.bucket_count;
    view_.hash = make_universal_hash(seed, capacity.bucket_count);
    view_.pool.slabs = pool_.data();
    view_.pool.bitmap = bitmap_.data();
    view_.pool.block_count = static_cast<std::uint32_t>(blocks);
    clear();
  }

  [[nodiscard]] const Backend& backend() const { return backend_; }
  [[nodiscard]] const slab_capacity& capacity() const { return capacity_; }
  [[nodiscard]] std::uint64_t seed() const { return seed_; }
  /// The storage as kernels see it (for device refs and the backends).
  [[nodiscard]] const slab_table_view<Slots>& view() const { return view_; }

  /// Removes every key and returns every pool slab. O(table size).
  void clear() { initialize_table<Slots>(backend_, view_, capacity_.pool_slabs); }

  /// The number of live keys, counted by walking every list. O(slabs in use).
  [[nodiscard]] std::uint64_t size() const { return summarize_chains<Slots>(backend_, view_).live_slots; }

  /// Occupancy and memory use, by walking every list. O(slabs in use).
  [[nodiscard]] slab_statistics statistics() const
  {
    const chain_totals totals = summarize_chains<Slots>(backend_, view_);
    slab_statistics stats;
    stats.bucket_count = capacity_.bucket_count;
    stats.pool_slabs = capacity_.pool_slabs;
    stats.slabs_in_use = totals.slabs;
    stats.live = totals.live_slots;
    stats.erased = totals.erased_slots;
    stats.longest_chain = totals.longest_chain;
    stats.mean_slabs_per_bucket = static_cast<double>(totals.slabs) / capacity_.bucket_count;
    const double bytes_in_use = static_cast<double>(totals.slabs) * slab_bytes;
    stats.memory_utilization = static_cast<double>(totals.live_slots) * sizeof(slot_type) / bytes_in_use;
    stats.bytes_per_live_entry = bytes_in_use / static_cast<double>(totals.live_slots);
    stats.reserved_bytes = heads_.size_bytes() + pool_.size_bytes() + bitmap_.size_bytes();
    return stats;
  }

  /// Reclaims erased slots and empty overflow slabs: every list is compacted in place, keeping its
  /// keys and values. Not concurrent with batches (a phase of its own, as in the slab hash). O(slabs
  /// in use).
  void flush() { flush_table<Slots>(backend_, view_); }

  /// Removes each key that is present; `statuses[i]` receives erased or not_found. Keys in backend
  /// memory; a reserved key rejects the whole batch before anything changes. Repeated keys: one
  /// reports erased, the others not_found (see the batch semantics above).
  void erase(std::span<const std::uint32_t> keys, std::span<operation_status> statuses)
  {
    check_output(keys.size(), statuses.size(), "erase", "statuses");
    run(uniform_batch(operation::erase, keys, {}, {}, statuses), "erase", false);
  }
  /// Removes each key that is present; absent keys are ignored.
  void erase(std::span<const std::uint32_t> keys)
  {
    run(uniform_batch(operation::erase, keys, {}, {}, {}), "erase", false);
  }

  /// found[i] = 1 when keys[i] is present, else 0. Spans in backend memory of equal size.
  void contains(std::span<const std::uint32_t> keys, std::span<std::uint8_t> found) const
  {
    check_output(keys.size(), found.size(), "contains", "found");
    batch_arguments batch = uniform_batch(operation::find, keys, {}, {}, {});
    batch.found = found.data();
    run(batch, "contains", false);
  }

 protected:
  [[nodiscard]] static batch_arguments uniform_batch(operation op, std::span<const std::uint32_t> keys,
                                                     std::span<const std::uint32_t> values_in,
                                                     std::span<std::uint32_t> values_out,
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

  /// Validates and runs a batch. With `throw_on_exhaustion`, elements that found the pool exhausted
  /// make it throw warpdex::out_of_memory after the batch (the others took effect).
  void run(const batch_arguments& batch, const char* operation_name, bool throw_on_exhaustion) const
  {
    if (batch.count == 0) { return; }
    const std::string caller = name_ + "::" + operation_name;
    const batch_violations violations = find_violations(backend_, batch.keys, batch.operations, batch.count);
    if (violations.first_bad_operation < batch.count) {
      throw_violation(caller, violations.first_bad_operation,
                      "has an operation code outside [0, " + std::to_string(operation_count) + ")");
    }
    if (violations.first_reserved_key < batch.count) {
      throw_violation(caller, violations.first_reserved_key,
                      "is a reserved key (empty_key or erased_key): keys must be <= " + std::to_string(max_user_key));
    }
    const std::uint64_t exhausted = execute_batch<Slots>(backend_, view_, batch);
    if (throw_on_exhaustion && exhausted > 0) {
      throw out_of_memory(caller + ": the slab pool of " + std::to_string(capacity_.pool_slabs) +
                          " slabs is exhausted; " + std::to_string(exhausted) + " of " + std::to_string(batch.count) +
                          " elements were not inserted (the others were). Build a table with more pool_slabs, "
                          "flush erased slots, or rehash");
    }
  }

  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  Backend backend_;
  slab_capacity capacity_;
  std::uint64_t seed_;
  std::string name_;
  buffer<slot_type> heads_;
  buffer<slot_type> pool_;
  buffer<std::uint32_t> bitmap_;
  slab_table_view<Slots> view_;
};

}  // namespace detail
}  // namespace warpdex::hash
