#pragma once
// The host backend of the slab tables: the protocol of slab_layout.hpp run by one OpenMP thread per
// operation, on the same slab layout, with std::atomic_ref in place of the warp's atomics. Defines the
// entry points of detail/slab_table.hpp for the host backend; include it in one translation unit and
// instantiate there (src/hash/slab_table_host.cpp for the library's layouts; hash/instantiate.hpp for a
// table with a hasher of its own). It defines the same templates as slab_table_cuda_impl.cuh, so a
// translation unit includes one of the two.
#include <warpdex/hash/detail/slab_combine.hpp>
#include <warpdex/hash/detail/slab_table.hpp>

#include <warpdex/core/backend.hpp>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

namespace warpdex::hash::detail {
namespace host_backend {

template <class T>
T load(T& word)
{
  return std::atomic_ref<T>(word).load(std::memory_order_acquire);
}

/// A host thread's share of SlabAlloc (slab_alloc.hpp): a resident memory block it allocates from until
/// it is full, then the blocks of candidate_block, as a warp does.
template <class Slot, std::uint32_t SlabBytes>
class host_slab_allocator {
 public:
  host_slab_allocator(const slab_pool_view<Slot, SlabBytes>& pool, std::uint64_t worker) : pool_(pool), worker_(worker)
  {
  }

  /// A free slab's address, or null_slab when every block of every super block is full, or when a
  /// sweep found them all full before (slab_pool_view::swept_full).
  std::uint32_t allocate()
  {
    if (pool_.block_count == 0) { return null_slab; }
    const std::uint64_t tries = std::uint64_t{random_block_attempts} + pool_.block_count;
    for (; attempt_ < tries; ++attempt_) {
      bool marked_full = false;
      if (resident_.words == nullptr) {
        resident_ = pool_.locate(candidate_block(worker_, attempt_, pool_.block_count));
        marked_full = pool_.swept_full != nullptr && pool_.swept_full_at(mark().load(std::memory_order_acquire));
      }
      const std::uint32_t slab = allocate_in(resident_);
      if (slab != null_slab) { return slab; }
      resident_.words = nullptr;
      if (marked_full) { break; }
    }
    if (attempt_ == tries && pool_.swept_full != nullptr) {
      std::uint32_t seen = mark().load(std::memory_order_relaxed);
      while (seen < pool_.block_count && !mark().compare_exchange_weak(seen, pool_.block_count)) {}
    }
    attempt_ = 0;  // the next allocation starts over: other threads may have freed slabs
    return null_slab;
  }

  void free(std::uint32_t address)
  {
    std::atomic_ref<std::uint32_t>(*pool_.bitmap_word(address))
        .fetch_and(~slab_pool_view<Slot, SlabBytes>::bit_of(address), std::memory_order_release);
    if (pool_.swept_full != nullptr && mark().load(std::memory_order_relaxed) != 0) {
      mark().store(0, std::memory_order_seq_cst);  // after the freed bit
    }
  }

 private:
  static std::uint32_t allocate_in(const typename slab_pool_view<Slot, SlabBytes>::located_block& block)
  {
    for (std::uint32_t word = 0; word < bitmap_words_per_block; ++word) {
      std::atomic_ref<std::uint32_t> bits(block.words[word]);
      std::uint32_t seen = bits.load(std::memory_order_relaxed);
      while (seen != 0xffffffffU) {
        const std::uint32_t bit = 1U << std::countr_one(seen);
        seen = bits.fetch_or(bit, std::memory_order_acq_rel);
        if ((seen & bit) == 0) { return block.first_address + word * 32 + std::countr_zero(bit); }
      }
    }
    return null_slab;
  }

  std::atomic_ref<std::uint32_t> mark() const { return std::atomic_ref<std::uint32_t>(*pool_.swept_full); }

  slab_pool_view<Slot, SlabBytes> pool_;
  std::uint64_t worker_;
  std::uint64_t attempt_ = 0;
  typename slab_pool_view<Slot, SlabBytes>::located_block resident_{nullptr, 0};
};

template <class Slots>
using slot_t = typename Slots::slot_type;
template <class Slots>
using key_t = typename Slots::key_type;
template <class Slots>
using value_t = typename Slots::value_type;

/// Reads a slot: one atomic word, or a 64 / 64 pair's key word (acquire) and then its value word, so
/// the value of a published key is the one written before it (key_value_pair64).
template <class Slots>
slot_t<Slots> load_slot(slot_t<Slots>& slot)
{
  if constexpr (Slots::writes_value_apart) {
    const std::uint64_t key = load(slot.key);
    return {key, std::atomic_ref<std::uint64_t>(slot.value).load(std::memory_order_relaxed)};
  } else {
    return load(slot);
  }
}

/// Swaps a data slot from `expected` (what a read showed) to `desired`, as the protocol writes it: an
/// insertion into an empty slot, an assignment or an erasure. Returns whether it took; when not,
/// `expected` receives what the slot holds. A 64 / 64 pair (key_value_pair64): an insertion holds the
/// slot with pending_key64 while it writes the value and then publishes the key; an assignment (same
/// key) stores the value word and always takes (finishes_after_failed_swap: it would finish anyway); an
/// erasure swaps the key word.
template <class Slots>
bool swap_slot(slot_t<Slots>& slot, slot_t<Slots>& expected, const slot_t<Slots>& desired)
{
  if constexpr (Slots::writes_value_apart) {
    std::atomic_ref<std::uint64_t> key(slot.key);
    std::atomic_ref<std::uint64_t> value(slot.value);
    if (expected.key == desired.key) {
      value.store(desired.value, std::memory_order_release);
      return true;
    }
    const bool inserts = expected.key == Slots::empty_key;
    std::uint64_t seen = expected.key;
    if (!key.compare_exchange_strong(seen, inserts ? pending_key64 : desired.key, std::memory_order_acq_rel)) {
      expected = {seen, value.load(std::memory_order_relaxed)};
      return false;
    }
    if (inserts) {
      value.store(desired.value, std::memory_order_relaxed);
      key.store(desired.key, std::memory_order_release);
    }
    return true;
  } else {
    return std::atomic_ref<slot_t<Slots>>(slot).compare_exchange_strong(expected, desired, std::memory_order_acq_rel);
  }
}

/// Links slab `fresh` into `link_slot` (a list's last link) unless another thread linked first; returns
/// the link now in place (`fresh` when this one took).
template <class Slots>
std::uint32_t link_fresh(slot_t<Slots>& link_slot, std::uint32_t fresh)
{
  if constexpr (Slots::writes_value_apart) {
    std::uint64_t expected = Slots::make_link(null_slab).key;
    const bool linked = std::atomic_ref<std::uint64_t>(link_slot.key)
                            .compare_exchange_strong(expected, Slots::make_link(fresh).key, std::memory_order_acq_rel);
    return linked ? fresh : Slots::link_of({expected, 0});
  } else {
    slot_t<Slots> expected = Slots::make_link(null_slab);
    const bool linked = std::atomic_ref<slot_t<Slots>>(link_slot).compare_exchange_strong(
        expected, Slots::make_link(fresh), std::memory_order_acq_rel);
    return linked ? fresh : Slots::link_of(expected);
  }
}

/// Reads a slab's data slots into `seen` and summarizes them for `key`.
template <class Slots>
slab_summary read_slab(const slab_table_view<Slots>& table, slot_t<Slots>* slab, key_t<Slots> key, slot_t<Slots>* seen)
{
  slab_summary summary;
  for (std::uint32_t slot = 0; slot < Slots::data_slots; ++slot) {
    seen[slot] = load_slot<Slots>(slab[slot]);
    const key_t<Slots> slot_key = Slots::key_of(seen[slot]);
    summary.match_slots |= static_cast<std::uint32_t>(table.holds(slot_key, key)) << slot;
    summary.empty_slots |= static_cast<std::uint32_t>(slot_key == Slots::empty_key) << slot;
    summary.pending_slots |= static_cast<std::uint32_t>(Slots::is_pending(slot_key)) << slot;
  }
  summary.next = Slots::link_of(load_slot<Slots>(slab[Slots::link_slot]));
  return summary;
}

template <class Slots>
void make_fresh(slot_t<Slots>* slab)
{
  for (std::uint32_t slot = 0; slot < Slots::slots_per_slab; ++slot) {
    if constexpr (Slots::writes_value_apart) {
      std::atomic_ref<std::uint64_t>(slab[slot].key).store(Slots::empty_slot.key, std::memory_order_relaxed);
      std::atomic_ref<std::uint64_t>(slab[slot].value).store(Slots::empty_slot.value, std::memory_order_relaxed);
    } else {
      std::atomic_ref<slot_t<Slots>>(slab[slot]).store(Slots::empty_slot, std::memory_order_relaxed);
    }
  }
}

/// Links a fresh slab from `allocator` after `slab`, the last of its list, and returns the slab that
/// follows `slab` now: the fresh one, or the one another thread linked first (the fresh one then goes
/// back); null when no slab is free.
template <class Slots>
slot_t<Slots>* append_slab(const slab_table_view<Slots>& table,
                           host_slab_allocator<slot_t<Slots>, Slots::slab_bytes>& allocator, slot_t<Slots>* slab)
{
  const std::uint32_t fresh = allocator.allocate();
  if (fresh == null_slab) { return nullptr; }
  make_fresh<Slots>(table.pool.slab(fresh));
  const std::uint32_t linked = link_fresh<Slots>(slab[Slots::link_slot], fresh);
  if (linked != fresh) { allocator.free(fresh); }
  return table.pool.slab(linked);
}

template <class Slots>
operation_status run_operation(const slab_table_view<Slots>& table,
                               host_slab_allocator<slot_t<Slots>, Slots::slab_bytes>& allocator, operation op,
                               key_t<Slots> key, value_t<Slots> value, value_t<Slots>& value_out)
{
  using slot_type = slot_t<Slots>;
  slot_type* slab = table.head_of(key);
  slot_type seen[Slots::data_slots];
  for (;;) {
    const slab_summary summary = read_slab<Slots>(table, slab, key, seen);
    const step next = next_step(op, summary, table.mode);
    switch (next.kind) {
      case step_kind::finish:
        if (next.status == operation_status::found) { value_out = Slots::value_of(seen[next.slot]); }
        return next.status;
      case step_kind::swap_slot: {
        const slot_type desired =
            next.desired_erases ? Slots::make_slot(Slots::erased_key, Slots::value_of(seen[next.slot]))
                                : Slots::make_slot(table.key_to_write(Slots::key_of(seen[next.slot]), key), value);
        slot_type expected = seen[next.slot];
        if (swap_slot<Slots>(slab[next.slot], expected, desired)) { return next.status; }
        if (finishes_after_failed_swap(next)) { return next.status; }
        break;  // the slot changed under us: read the slab again
      }
      case step_kind::follow:
        slab = table.pool.slab(summary.next);
        break;
      case step_kind::append:
        slab = append_slab(table, allocator, slab);
        if (slab == nullptr) { return operation_status::out_of_memory; }
        break;
      case step_kind::reread:
        break;
    }
  }
}

/// Calls visit(slab, position) for each slab of bucket's list, in order.
template <class Slots, class Visit>
void walk_list(const slab_table_view<Slots>& table, std::uint32_t bucket, Visit&& visit)
{
  slot_t<Slots>* slab = table.head(bucket);
  for (std::uint64_t position = 0;; ++position) {
    visit(slab, position);
    const std::uint32_t next = Slots::link_of(slab[Slots::link_slot]);
    if (next == null_slab) { return; }
    slab = table.pool.slab(next);
  }
}

inline std::int64_t signed_count(std::uint64_t count)
{
  return static_cast<std::int64_t>(count);
}

// ---- Combined batches (slab_combine.hpp): (key, element) pairs sorted by key. ----

/// Groups a thread takes at a time: groups are mostly short, but one may hold most of the batch.
constexpr int combined_groups_per_task = 256;

/// One element of a combined batch and its key.
template <class Key>
struct keyed_element {
  Key key;
  std::uint32_t element;
};

/// Sorts elements by key, keeping the element order within a key: an LSD radix sort over the key's
/// bits in digits of 11 bits (a counting sort per digit; a pass whose digit is the same in every
/// element, as when one key fills the batch, is skipped). O(n).
template <class Key>
void sort_by_key(std::vector<keyed_element<Key>>& pairs)
{
  constexpr unsigned digit_bits = 11;
  constexpr unsigned key_bits = 8 * sizeof(Key);
  std::vector<keyed_element<Key>> sorted(pairs.size());
  for (unsigned shift = 0; shift < key_bits; shift += digit_bits) {
    const unsigned bits = std::min(digit_bits, key_bits - shift);
    const Key mask = static_cast<Key>((Key{1} << bits) - 1);
    const auto digit = [&](const keyed_element<Key>& pair) {
      return static_cast<std::uint64_t>((pair.key >> shift) & mask);
    };
    std::vector<std::uint64_t> starts((std::uint64_t{1} << bits) + 1, 0);
    for (const auto& pair : pairs) { ++starts[digit(pair) + 1]; }
    if (std::find(starts.begin(), starts.end(), pairs.size()) != starts.end()) { continue; }
    std::partial_sum(starts.begin(), starts.end(), starts.begin());
    for (const auto& pair : pairs) { sorted[starts[digit(pair)]++] = pair; }
    pairs.swap(sorted);
  }
}

/// Writes an element's status (and found flag, and a miss's value) where the batch asks for them.
template <class Batch>
void write_outcome(const Batch& batch, std::uint64_t element, operation_status status)
{
  if (batch.write_misses && batch.values_out != nullptr && status != operation_status::found) {
    batch.values_out[element] = batch.miss_value;
  }
  if (batch.statuses != nullptr) { batch.statuses[element] = status; }
  if (batch.found != nullptr) { batch.found[element] = status == operation_status::found ? 1 : 0; }
}

/// The operation and input value of a batch's elements.
template <class Slots>
struct batch_element {
  const batch_arguments<Slots>& batch;
  [[nodiscard]] operation op(std::uint32_t element) const
  {
    return batch.operations != nullptr ? batch.operations[element] : batch.uniform;
  }
  [[nodiscard]] value_t<Slots> value(std::uint32_t element) const
  {
    return batch.values_in != nullptr ? batch.values_in[element] : value_t<Slots>{0};
  }
};

/// A combined batch's elements grouped by key: packed (key, element) pairs sorted by key (each group in
/// input order), the first pair of each group (the pair count last), each group's key, and what one find
/// of the key saw before the batch (a multimap's: its first instance in list order).
template <class Slots>
struct key_groups {
  std::vector<keyed_element<key_t<Slots>>> pairs;
  std::vector<std::uint64_t> first;
  std::vector<key_t<Slots>> keys;
  std::vector<operation_status> initial;
  std::vector<value_t<Slots>> initial_values;
  [[nodiscard]] std::uint64_t count() const { return keys.size(); }
};

template <class Slots, class Backend>
key_groups<Slots> group_and_find(const Backend& backend, const slab_table_view<Slots>& table,
                                 const batch_arguments<Slots>& batch)
{
  key_groups<Slots> groups;
  groups.pairs.reserve(batch.count);
  for (std::uint64_t element = 0; element < batch.count; ++element) {
    if (batch.retry != nullptr && batch.retry[element] != operation_status::out_of_memory) { continue; }
    groups.pairs.push_back({batch.keys[element], static_cast<std::uint32_t>(element)});
  }
  sort_by_key(groups.pairs);
  for (std::uint64_t i = 0; i < groups.pairs.size(); ++i) {
    if (i == 0 || groups.pairs[i].key != groups.pairs[i - 1].key) {
      groups.first.push_back(i);
      groups.keys.push_back(groups.pairs[i].key);
    }
  }
  groups.first.push_back(groups.pairs.size());
  groups.initial.resize(groups.count());
  groups.initial_values.resize(groups.count());
  execute_batch<Slots>(backend, table,
                       group_finds(groups.keys.data(), Slots::has_values ? groups.initial_values.data() : nullptr,
                                   groups.initial.data(), groups.count(), batch.tile_lanes));
  return groups;
}

/// The unique-key tables' combined batch (slab_combine.hpp): each group's final state, one write per
/// group that changes its key, then every element's outcome.
template <class Slots, class Backend>
std::uint64_t combine_unique(const Backend& backend, const slab_table_view<Slots>& table,
                             const batch_arguments<Slots>& batch, const key_groups<Slots>& groups)
{
  const batch_element<Slots> elements{batch};
  const std::uint64_t group_count = groups.count();
  std::vector<operation> write_operations(group_count);
  std::vector<value_t<Slots>> write_values(group_count);
  std::vector<operation_status> write_statuses(group_count);
#pragma omp parallel for schedule(dynamic, combined_groups_per_task)
  for (std::int64_t g = 0; g < signed_count(group_count); ++g) {
    const auto group = static_cast<std::uint64_t>(g);
    const bool present = groups.initial[group] == operation_status::found;
    std::uint32_t target = initial_target(present);
    for (std::uint64_t i = groups.first[group]; i < groups.first[group + 1]; ++i) {
      const std::uint32_t element = groups.pairs[i].element;
      target = after(transition_of(elements.op(element), element), target);
    }
    const combined_write write = write_for(present, target, Slots::has_values);
    write_operations[group] = write.op;
    write_values[group] = write.needed ? elements.value(write.element) : value_t<Slots>{0};
    write_statuses[group] = pending_status(write);
  }
  execute_batch<Slots>(backend, table,
                       group_writes(write_operations.data(), groups.keys.data(), write_values.data(),
                                    write_statuses.data(), group_count, batch.tile_lanes));

  // Every element's outcome: its group's sequential run, or, where the write found no slab, a run in
  // which the key stays absent.
  std::uint64_t exhausted = 0;
#pragma omp parallel for schedule(dynamic, combined_groups_per_task) reduction(+ : exhausted)
  for (std::int64_t g = 0; g < signed_count(group_count); ++g) {
    const auto group = static_cast<std::uint64_t>(g);
    const bool write_failed = write_statuses[group] == operation_status::out_of_memory;
    std::uint32_t target = initial_target(groups.initial[group] == operation_status::found);
    for (std::uint64_t i = groups.first[group]; i < groups.first[group + 1]; ++i) {
      const std::uint32_t element = groups.pairs[i].element;
      const operation op = elements.op(element);
      const operation_status status = write_failed ? status_when_exhausted(op) : status_in(op, target);
      if (status == operation_status::found && batch.values_out != nullptr) {
        batch.values_out[element] = target == target_initial ? groups.initial_values[group] : elements.value(target);
      }
      write_outcome(batch, element, status);
      exhausted += status == operation_status::out_of_memory ? 1 : 0;
      target = after(transition_of(op, element), target);
    }
  }
  return exhausted;
}

/// Erases up to `limit` instances of `key` (the first in list order); returns how many it erased.
template <class Slots>
std::uint64_t erase_instances(const slab_table_view<Slots>& table, key_t<Slots> key, std::uint64_t limit)
{
  std::uint64_t erased = 0;
  walk_list(table, table.bucket_of(key), [&](slot_t<Slots>* slab, std::uint64_t) {
    for (std::uint32_t slot = 0; slot < Slots::data_slots && erased < limit; ++slot) {
      slot_t<Slots> seen = load_slot<Slots>(slab[slot]);
      if (!table.holds(Slots::key_of(seen), key)) { continue; }
      erased += swap_slot<Slots>(slab[slot], seen, Slots::make_slot(Slots::erased_key, Slots::value_of(seen))) ? 1 : 0;
    }
  });
  return erased;
}

/// Adds the pairs (key, values[j]) in order, each into the next empty slot of key's list in list order,
/// appending slabs; returns how many it added (fewer only when no slab was free).
template <class Slots>
std::uint64_t append_instances(const slab_table_view<Slots>& table,
                               host_slab_allocator<slot_t<Slots>, Slots::slab_bytes>& allocator, key_t<Slots> key,
                               const std::vector<value_t<Slots>>& values)
{
  using slot_type = slot_t<Slots>;
  slot_type* slab = table.head_of(key);
  std::uint64_t added = 0;
  while (added < values.size()) {
    for (std::uint32_t slot = 0; slot < Slots::data_slots && added < values.size(); ++slot) {
      slot_type seen = load_slot<Slots>(slab[slot]);
      if (Slots::key_of(seen) != Slots::empty_key) { continue; }
      // A failed swap means another insertion took the slot: the value goes to a later one.
      added += swap_slot<Slots>(slab[slot], seen, Slots::make_slot(key, values[added])) ? 1 : 0;
    }
    if (added == values.size()) { break; }
    const std::uint32_t next = Slots::link_of(load_slot<Slots>(slab[Slots::link_slot]));
    if (next != null_slab) {
      slab = table.pool.slab(next);
      continue;
    }
    slab = append_slab(table, allocator, slab);
    if (slab == nullptr) { break; }
  }
  return added;
}

/// A multimap's combined batch (slab_combine.hpp, multiset_status): per group, one walk erases up to
/// its erasures' count of instances and one walk adds its insertions' pairs.
template <class Slots>
std::uint64_t combine_multiset(const slab_table_view<Slots>& table, const batch_arguments<Slots>& batch,
                               const key_groups<Slots>& groups)
{
  const batch_element<Slots> elements{batch};
  std::uint64_t exhausted = 0;
#pragma omp parallel reduction(+ : exhausted)
  {
    host_slab_allocator<slot_t<Slots>, Slots::slab_bytes> allocator(table.pool,
                                                                    static_cast<std::uint64_t>(omp_get_thread_num()));
    std::vector<value_t<Slots>> insert_values;
#pragma omp for schedule(dynamic, combined_groups_per_task)
    for (std::int64_t g = 0; g < signed_count(groups.count()); ++g) {
      const auto group = static_cast<std::uint64_t>(g);
      std::uint64_t erasures = 0;
      insert_values.clear();
      for (std::uint64_t i = groups.first[group]; i < groups.first[group + 1]; ++i) {
        const std::uint32_t element = groups.pairs[i].element;
        erasures += elements.op(element) == operation::erase ? 1 : 0;
        if (elements.op(element) == operation::insert) { insert_values.push_back(elements.value(element)); }
      }
      const key_t<Slots> key = groups.keys[group];
      const multiset_outcome outcome{
          groups.initial[group] == operation_status::found, erasures > 0 ? erase_instances(table, key, erasures) : 0,
          insert_values.empty() ? 0 : append_instances(table, allocator, key, insert_values)};
      std::uint64_t erase_rank = 0, insert_rank = 0;
      for (std::uint64_t i = groups.first[group]; i < groups.first[group + 1]; ++i) {
        const std::uint32_t element = groups.pairs[i].element;
        const operation op = elements.op(element);
        const std::uint64_t rank = op == operation::erase ? erase_rank++ : op == operation::insert ? insert_rank++ : 0;
        const operation_status status = outcome.status(op, rank);
        if (status == operation_status::found && batch.values_out != nullptr) {
          batch.values_out[element] = groups.initial_values[group];
        }
        write_outcome(batch, element, status);
        exhausted += status == operation_status::out_of_memory ? 1 : 0;
      }
    }
  }
  return exhausted;
}

}  // namespace host_backend

using namespace host_backend;

template <class Slots, class Backend>
void initialize_table(const Backend&, const slab_table_view<Slots>& table)
{
  std::memset(static_cast<void*>(table.heads), fresh_slab_byte, std::uint64_t{table.bucket_count} * Slots::slab_bytes);
  if (table.pool.swept_full != nullptr) { *table.pool.swept_full = 0; }
}

template <class Backend>
void initialize_bitmap(const Backend&, std::uint32_t* bitmap, std::uint64_t words, std::uint64_t slabs)
{
  for (std::uint64_t word = 0; word < words; ++word) { bitmap[word] = initial_bitmap_word(word, slabs); }
}

template <class Backend>
std::uint64_t batch_wave_threads_of(const Backend&)
{
  return 0;  // the host backend runs a batch on its threads, in no waves
}

template <class Backend, class Key>
batch_violations find_violations(const Backend&, const Key* keys, const operation* operations, std::uint64_t count,
                                 std::uint32_t unsupported)
{
  std::uint64_t first_key = count;
  std::uint64_t first_operation = count;
  std::uint64_t first_unsupported = count;
#pragma omp parallel for reduction(min : first_key, first_operation, first_unsupported)
  for (std::int64_t i = 0; i < signed_count(count); ++i) {
    const auto index = static_cast<std::uint64_t>(i);
    if (is_reserved_key(keys[index])) { first_key = std::min(first_key, index); }
    if (operations == nullptr) { continue; }
    if (static_cast<std::uint32_t>(operations[index]) >= operation_count) {
      first_operation = std::min(first_operation, index);
    }
    if (is_unsupported(operations[index], unsupported)) { first_unsupported = std::min(first_unsupported, index); }
  }
  return {first_key, first_operation, first_unsupported};
}

template <class Slots, class Backend>
std::uint64_t execute_batch(const Backend&, const slab_table_view<Slots>& table, const batch_arguments<Slots>& batch)
{
  // The tile size does not apply here (one thread per operation); the order does.
  std::vector<std::uint64_t> order;
  if (batch.by_bucket) {
    order.resize(batch.count);
    std::iota(order.begin(), order.end(), std::uint64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) {
      return table.bucket_of(batch.keys[a]) < table.bucket_of(batch.keys[b]);
    });
  }
  std::uint64_t exhausted = 0;
#pragma omp parallel reduction(+ : exhausted)
  {
    host_slab_allocator<slot_t<Slots>, Slots::slab_bytes> allocator(table.pool,
                                                                    static_cast<std::uint64_t>(omp_get_thread_num()));
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < signed_count(batch.count); ++i) {
      const auto index = order.empty() ? static_cast<std::uint64_t>(i) : order[static_cast<std::uint64_t>(i)];
      if (batch.retry != nullptr && batch.retry[index] != operation_status::out_of_memory) { continue; }
      if (batch.check_each && is_reserved_key(batch.keys[index])) {  // rejected alone (batch_check::each_element)
        write_outcome(batch, index, operation_status::rejected);
        continue;
      }
      const operation op = batch.operations != nullptr ? batch.operations[index] : batch.uniform;
      const value_t<Slots> value = batch.values_in != nullptr ? batch.values_in[index] : value_t<Slots>{0};
      value_t<Slots> found_value = 0;
      const operation_status status = run_operation(table, allocator, op, batch.keys[index], value, found_value);
      if (status == operation_status::out_of_memory) { ++exhausted; }
      if (status == operation_status::found && batch.values_out != nullptr) { batch.values_out[index] = found_value; }
      write_outcome(batch, index, status);
    }
  }
  return exhausted;
}

template <class Slots, class Backend>
bool enqueue_checked_batch(const Backend& backend, const slab_table_view<Slots>& table,
                           const batch_arguments<Slots>& batch, std::uint32_t unsupported, batch_report* report,
                           buffer<std::byte>& scratch)
{
  if (batch.batch_offsets != nullptr) {  // many batches: each an `_async` batch of its own, one after another
    const std::uint64_t* offsets = batch.batch_offsets;
    bool rising = offsets[0] == 0 && offsets[batch.batch_count] == batch.count;
    for (std::uint64_t b = 0; rising && b < batch.batch_count; ++b) { rising = offsets[b] <= offsets[b + 1]; }
    WARPDEX_EXPECTS(rising, "slab table: the offsets of a many-batch call must rise from 0 to the key count");
    for (std::uint64_t b = 0; b < batch.batch_count; ++b) {
      batch_arguments<Slots> part = batch_part(batch, offsets[b], offsets[b + 1] - offsets[b]);
      part.check_each = batch.check_each || part.count > many_whole_check_elements;
      batch_report part_report;
      if (part.count > 0) { enqueue_checked_batch<Slots>(backend, table, part, unsupported, &part_report, scratch); }
    }
    return false;
  }
  if (batch.check_each) {  // each element checks its own key in execute_batch: nothing before it
    execute_batch<Slots>(backend, table, batch);
    return false;
  }
  report->violations = find_violations(backend, batch.keys, batch.operations, batch.count, unsupported);
  report->exhausted = 0;
  if (!report->violations.any(batch.count)) {
    report->exhausted = execute_batch<Slots>(backend, table, batch);
    return false;  // the report is host memory already
  }
  if (!batch.mark_rejected) { return false; }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < signed_count(batch.count); ++i) {
    const auto index = static_cast<std::uint64_t>(i);
    if (batch.retry != nullptr && batch.retry[index] != operation_status::out_of_memory) { continue; }
    if (batch.statuses != nullptr) { batch.statuses[index] = operation_status::rejected; }
    if (batch.found != nullptr) { batch.found[index] = 0; }
    if (batch.write_misses && batch.values_out != nullptr) { batch.values_out[index] = batch.miss_value; }
  }
  return false;
}

template <class Slots, class Backend>
std::uint64_t execute_combined(const Backend& backend, const slab_table_view<Slots>& table,
                               const batch_arguments<Slots>& batch)
{
  const key_groups<Slots> groups = group_and_find(backend, table, batch);
  return table.mode == key_mode::duplicates ? combine_multiset(table, batch, groups)
                                            : combine_unique(backend, table, batch, groups);
}

template <class Backend, class Key>
std::vector<Key> sample_keys(const Backend&, const Key* keys, std::uint64_t count, std::uint64_t samples)
{
  std::vector<Key> sample(std::min(count, samples));
  for (std::uint64_t i = 0; i < sample.size(); ++i) { sample[i] = keys[sample_position(i, count, samples)]; }
  return sample;
}

template <class Slots, class Backend>
chain_totals summarize_chains(const Backend&, const slab_table_view<Slots>& table)
{
  std::uint64_t live = 0;
  std::uint64_t erased = 0;
  std::uint64_t slabs = 0;
  std::uint64_t longest = 0;
#pragma omp parallel for reduction(+ : live, erased, slabs) reduction(max : longest)
  for (std::int64_t bucket = 0; bucket < signed_count(table.bucket_count); ++bucket) {
    std::uint64_t length = 0;
    walk_list(table, static_cast<std::uint32_t>(bucket), [&](const slot_t<Slots>* slab, std::uint64_t) {
      ++length;
      for (std::uint32_t slot = 0; slot < Slots::data_slots; ++slot) {
        const key_t<Slots> key = Slots::key_of(slab[slot]);
        live += static_cast<std::uint64_t>(!Slots::is_reserved(key));
        erased += static_cast<std::uint64_t>(key == Slots::erased_key);
      }
    });
    slabs += length;
    longest = std::max(longest, length);
  }
  return {live, erased, slabs, longest};
}

template <class Slots, class Backend>
std::uint64_t export_live(const Backend&, const slab_table_view<Slots>& table, key_t<Slots>* keys_out,
                          value_t<Slots>* values_out, std::uint64_t capacity)
{
  std::uint64_t written = 0;
#pragma omp parallel for schedule(static)
  for (std::int64_t bucket = 0; bucket < signed_count(table.bucket_count); ++bucket) {
    walk_list(table, static_cast<std::uint32_t>(bucket), [&](const slot_t<Slots>* slab, std::uint64_t) {
      for (std::uint32_t slot = 0; slot < Slots::data_slots; ++slot) {
        if (Slots::is_reserved(Slots::key_of(slab[slot]))) { continue; }
        const std::uint64_t at = std::atomic_ref<std::uint64_t>(written).fetch_add(1, std::memory_order_relaxed);
        if (at >= capacity) { continue; }
        keys_out[at] = Slots::key_of(slab[slot]);
        if (values_out != nullptr) { values_out[at] = Slots::value_of(slab[slot]); }
      }
    });
  }
  return written;
}

template <class Slots, class Backend>
void walk_lists(const Backend&, const slab_table_view<Slots>& table, const walk_arguments<Slots>& walk)
{
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < signed_count(walk.count); ++i) {
    const auto query = static_cast<std::uint64_t>(i);
    const key_t<Slots> key = walk.keys[query];
    const std::uint64_t begin = walk.kind == list_walk::fill ? walk.offsets[query] : 0;
    const std::uint64_t room = walk.kind == list_walk::fill ? walk.offsets[query + 1] - begin : 0;
    std::uint64_t instances = 0;
    walk_list(table, table.bucket_of(key), [&](slot_t<Slots>* slab, std::uint64_t) {
      for (std::uint32_t slot = 0; slot < Slots::data_slots; ++slot) {
        slot_t<Slots> seen = load_slot<Slots>(slab[slot]);
        if (!table.holds(Slots::key_of(seen), key)) { continue; }
        if (walk.kind == list_walk::fill && instances < room && begin + instances < walk.values_capacity) {
          walk.values_out[begin + instances] = Slots::value_of(seen);
        }
        // A slot holding the key changes only by being erased: a failed swap means another erasure won.
        const bool counts =
            walk.kind != list_walk::erase_all ||
            swap_slot<Slots>(slab[slot], seen, Slots::make_slot(Slots::erased_key, Slots::value_of(seen)));
        instances += static_cast<std::uint64_t>(counts);
      }
    });
    if (walk.kind == list_walk::count) { walk.counts[query] = instances; }
    if (walk.kind == list_walk::erase_all && walk.statuses != nullptr) {
      walk.statuses[query] = instances > 0 ? operation_status::erased : operation_status::not_found;
    }
  }
}

template <class Backend>
std::uint64_t counts_to_offsets(const Backend&, std::uint64_t* counts, std::uint64_t queries)
{
  counts[queries] = 0;
  std::exclusive_scan(counts, counts + queries + 1, counts, std::uint64_t{0});
  return counts[queries];
}

template <class Slots, class Backend>
void flush_table(const Backend&, const slab_table_view<Slots>& table)
{
#pragma omp parallel
  {
    host_slab_allocator<slot_t<Slots>, Slots::slab_bytes> allocator(table.pool,
                                                                    static_cast<std::uint64_t>(omp_get_thread_num()));
#pragma omp for schedule(static)
    for (std::int64_t bucket = 0; bucket < signed_count(table.bucket_count); ++bucket) {
      compact_list(table, static_cast<std::uint32_t>(bucket), [&](std::uint32_t slab) { allocator.free(slab); });
    }
  }
}

}  // namespace warpdex::hash::detail
