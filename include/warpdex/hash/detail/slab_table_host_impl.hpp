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

  /// A free slab's address, or null_slab when every block of every super block is full.
  std::uint32_t allocate()
  {
    if (pool_.block_count == 0) { return null_slab; }
    const std::uint64_t tries = std::uint64_t{random_block_attempts} + pool_.block_count;
    for (; attempt_ < tries; ++attempt_) {
      if (resident_.words == nullptr) {
        resident_ = pool_.locate(candidate_block(worker_, attempt_, pool_.block_count));
      }
      const std::uint32_t slab = allocate_in(resident_);
      if (slab != null_slab) { return slab; }
      resident_.words = nullptr;
    }
    attempt_ = 0;  // the next allocation sweeps again: other threads may have freed slabs
    return null_slab;
  }

  void free(std::uint32_t address)
  {
    std::atomic_ref<std::uint32_t>(*pool_.bitmap_word(address))
        .fetch_and(~slab_pool_view<Slot, SlabBytes>::bit_of(address), std::memory_order_release);
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

  slab_pool_view<Slot, SlabBytes> pool_;
  std::uint64_t worker_;
  std::uint64_t attempt_ = 0;
  typename slab_pool_view<Slot, SlabBytes>::located_block resident_{nullptr, 0};
};

template <class Slots>
using slot_t = typename Slots::slot_type;

/// Reads a slab's data slots into `seen` and summarizes them for `key`.
template <class Slots>
slab_summary read_slab(const slab_table_view<Slots>& table, slot_t<Slots>* slab, std::uint32_t key, slot_t<Slots>* seen)
{
  slab_summary summary;
  for (std::uint32_t slot = 0; slot < Slots::data_slots; ++slot) {
    seen[slot] = load(slab[slot]);
    const std::uint32_t slot_key = Slots::key_of(seen[slot]);
    summary.match_slots |= static_cast<std::uint32_t>(table.holds(slot_key, key)) << slot;
    summary.empty_slots |= static_cast<std::uint32_t>(slot_key == empty_key) << slot;
  }
  summary.next = Slots::link_of(load(slab[Slots::link_slot]));
  return summary;
}

template <class Slots>
void make_fresh(slot_t<Slots>* slab)
{
  for (std::uint32_t slot = 0; slot < Slots::slots_per_slab; ++slot) {
    std::atomic_ref<slot_t<Slots>>(slab[slot]).store(Slots::empty_slot, std::memory_order_relaxed);
  }
}

/// Links a fresh slab from `allocator` after `slab`, the last of its list, and returns the slab that
/// follows `slab` now: the fresh one, or the one another thread linked first (the fresh one then goes
/// back); null when no slab is free.
template <class Slots>
slot_t<Slots>* append_slab(const slab_table_view<Slots>& table,
                           host_slab_allocator<slot_t<Slots>, Slots::slab_bytes>& allocator, slot_t<Slots>* slab)
{
  using slot_type = slot_t<Slots>;
  const std::uint32_t fresh = allocator.allocate();
  if (fresh == null_slab) { return nullptr; }
  make_fresh<Slots>(table.pool.slab(fresh));
  slot_type link = Slots::make_link(null_slab);
  if (std::atomic_ref<slot_type>(slab[Slots::link_slot])
          .compare_exchange_strong(link, Slots::make_link(fresh), std::memory_order_acq_rel)) {
    return table.pool.slab(fresh);
  }
  allocator.free(fresh);
  return table.pool.slab(Slots::link_of(link));
}

template <class Slots>
operation_status run_operation(const slab_table_view<Slots>& table,
                               host_slab_allocator<slot_t<Slots>, Slots::slab_bytes>& allocator, operation op,
                               std::uint32_t key, std::uint32_t value, std::uint32_t& value_out)
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
            next.desired_erases ? Slots::make_slot(erased_key, Slots::value_of(seen[next.slot]))
                                : Slots::make_slot(table.key_to_write(Slots::key_of(seen[next.slot]), key), value);
        slot_type expected = seen[next.slot];
        if (std::atomic_ref<slot_type>(slab[next.slot])
                .compare_exchange_strong(expected, desired, std::memory_order_acq_rel)) {
          return next.status;
        }
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

// ---- Combined batches (slab_combine.hpp): (key, element) pairs packed key << 32 | element. ----

constexpr unsigned element_bits = 32;
/// Groups a thread takes at a time: groups are mostly short, but one may hold most of the batch.
constexpr int combined_groups_per_task = 256;

inline std::uint32_t key_of_pair(std::uint64_t pair)
{
  return static_cast<std::uint32_t>(pair >> element_bits);
}
inline std::uint32_t element_of_pair(std::uint64_t pair)
{
  return static_cast<std::uint32_t>(pair);
}

/// Sorts packed pairs by key, keeping the element order within a key: an LSD radix sort over the key's
/// 32 bits in digits of 11 bits (three passes of a counting sort; a pass whose digit is the same in
/// every pair, as when one key fills the batch, is skipped). O(n).
inline void sort_by_key(std::vector<std::uint64_t>& pairs)
{
  constexpr unsigned digit_bits = 11;
  constexpr unsigned key_bits = 32;
  std::vector<std::uint64_t> sorted(pairs.size());
  for (unsigned shift = element_bits; shift < element_bits + key_bits; shift += digit_bits) {
    const unsigned bits = std::min(digit_bits, element_bits + key_bits - shift);
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    std::vector<std::uint64_t> starts((std::uint64_t{1} << bits) + 1, 0);
    for (const std::uint64_t pair : pairs) { ++starts[((pair >> shift) & mask) + 1]; }
    if (std::find(starts.begin(), starts.end(), pairs.size()) != starts.end()) { continue; }
    std::partial_sum(starts.begin(), starts.end(), starts.begin());
    for (const std::uint64_t pair : pairs) { sorted[starts[(pair >> shift) & mask]++] = pair; }
    pairs.swap(sorted);
  }
}

/// Writes an element's status (and found flag, and a miss's value) where the batch asks for them.
inline void write_outcome(const batch_arguments& batch, std::uint64_t element, operation_status status)
{
  if (batch.write_misses && batch.values_out != nullptr && status != operation_status::found) {
    batch.values_out[element] = batch.miss_value;
  }
  if (batch.statuses != nullptr) { batch.statuses[element] = status; }
  if (batch.found != nullptr) { batch.found[element] = status == operation_status::found ? 1 : 0; }
}

/// The operation and input value of a batch's elements.
struct batch_element {
  const batch_arguments& batch;
  [[nodiscard]] operation op(std::uint32_t element) const
  {
    return batch.operations != nullptr ? batch.operations[element] : batch.uniform;
  }
  [[nodiscard]] std::uint32_t value(std::uint32_t element) const
  {
    return batch.values_in != nullptr ? batch.values_in[element] : 0U;
  }
};

/// A combined batch's elements grouped by key: packed (key, element) pairs sorted by key (each group in
/// input order), the first pair of each group (the pair count last), each group's key, and what one find
/// of the key saw before the batch (a multimap's: its first instance in list order).
struct key_groups {
  std::vector<std::uint64_t> pairs;
  std::vector<std::uint64_t> first;
  std::vector<std::uint32_t> keys;
  std::vector<operation_status> initial;
  std::vector<std::uint32_t> initial_values;
  [[nodiscard]] std::uint64_t count() const { return keys.size(); }
};

template <class Slots, class Backend>
key_groups group_and_find(const Backend& backend, const slab_table_view<Slots>& table, const batch_arguments& batch)
{
  key_groups groups;
  groups.pairs.reserve(batch.count);
  for (std::uint64_t element = 0; element < batch.count; ++element) {
    if (batch.retry != nullptr && batch.retry[element] != operation_status::out_of_memory) { continue; }
    groups.pairs.push_back(std::uint64_t{batch.keys[element]} << element_bits | element);
  }
  sort_by_key(groups.pairs);
  for (std::uint64_t i = 0; i < groups.pairs.size(); ++i) {
    if (i == 0 || key_of_pair(groups.pairs[i]) != key_of_pair(groups.pairs[i - 1])) {
      groups.first.push_back(i);
      groups.keys.push_back(key_of_pair(groups.pairs[i]));
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
std::uint64_t combine_unique(const Backend& backend, const slab_table_view<Slots>& table, const batch_arguments& batch,
                             const key_groups& groups)
{
  const batch_element elements{batch};
  const std::uint64_t group_count = groups.count();
  std::vector<operation> write_operations(group_count);
  std::vector<std::uint32_t> write_values(group_count);
  std::vector<operation_status> write_statuses(group_count);
#pragma omp parallel for schedule(dynamic, combined_groups_per_task)
  for (std::int64_t g = 0; g < signed_count(group_count); ++g) {
    const auto group = static_cast<std::uint64_t>(g);
    const bool present = groups.initial[group] == operation_status::found;
    std::uint32_t target = initial_target(present);
    for (std::uint64_t i = groups.first[group]; i < groups.first[group + 1]; ++i) {
      const std::uint32_t element = element_of_pair(groups.pairs[i]);
      target = after(transition_of(elements.op(element), element), target);
    }
    const combined_write write = write_for(present, target, Slots::has_values);
    write_operations[group] = write.op;
    write_values[group] = write.needed ? elements.value(write.element) : 0U;
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
      const std::uint32_t element = element_of_pair(groups.pairs[i]);
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
std::uint64_t erase_instances(const slab_table_view<Slots>& table, std::uint32_t key, std::uint64_t limit)
{
  std::uint64_t erased = 0;
  walk_list(table, table.bucket_of(key), [&](slot_t<Slots>* slab, std::uint64_t) {
    for (std::uint32_t slot = 0; slot < Slots::data_slots && erased < limit; ++slot) {
      slot_t<Slots> seen = load(slab[slot]);
      if (!table.holds(Slots::key_of(seen), key)) { continue; }
      erased += std::atomic_ref<slot_t<Slots>>(slab[slot])
                        .compare_exchange_strong(seen, Slots::make_slot(erased_key, Slots::value_of(seen)),
                                                 std::memory_order_acq_rel)
                    ? 1
                    : 0;
    }
  });
  return erased;
}

/// Adds the pairs (key, values[j]) in order, each into the next empty slot of key's list in list order,
/// appending slabs; returns how many it added (fewer only when no slab was free).
template <class Slots>
std::uint64_t append_instances(const slab_table_view<Slots>& table,
                               host_slab_allocator<slot_t<Slots>, Slots::slab_bytes>& allocator, std::uint32_t key,
                               const std::vector<std::uint32_t>& values)
{
  using slot_type = slot_t<Slots>;
  slot_type* slab = table.head_of(key);
  std::uint64_t added = 0;
  while (added < values.size()) {
    for (std::uint32_t slot = 0; slot < Slots::data_slots && added < values.size(); ++slot) {
      slot_type seen = load(slab[slot]);
      if (Slots::key_of(seen) != empty_key) { continue; }
      // A failed swap means another insertion took the slot: the value goes to a later one.
      added += std::atomic_ref<slot_type>(slab[slot])
                       .compare_exchange_strong(seen, Slots::make_slot(key, values[added]), std::memory_order_acq_rel)
                   ? 1
                   : 0;
    }
    if (added == values.size()) { break; }
    const std::uint32_t next = Slots::link_of(load(slab[Slots::link_slot]));
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
std::uint64_t combine_multiset(const slab_table_view<Slots>& table, const batch_arguments& batch,
                               const key_groups& groups)
{
  const batch_element elements{batch};
  std::uint64_t exhausted = 0;
#pragma omp parallel reduction(+ : exhausted)
  {
    host_slab_allocator<slot_t<Slots>, Slots::slab_bytes> allocator(table.pool,
                                                                    static_cast<std::uint64_t>(omp_get_thread_num()));
    std::vector<std::uint32_t> insert_values;
#pragma omp for schedule(dynamic, combined_groups_per_task)
    for (std::int64_t g = 0; g < signed_count(groups.count()); ++g) {
      const auto group = static_cast<std::uint64_t>(g);
      std::uint64_t erasures = 0;
      insert_values.clear();
      for (std::uint64_t i = groups.first[group]; i < groups.first[group + 1]; ++i) {
        const std::uint32_t element = element_of_pair(groups.pairs[i]);
        erasures += elements.op(element) == operation::erase ? 1 : 0;
        if (elements.op(element) == operation::insert) { insert_values.push_back(elements.value(element)); }
      }
      const std::uint32_t key = groups.keys[group];
      const multiset_outcome outcome{
          groups.initial[group] == operation_status::found, erasures > 0 ? erase_instances(table, key, erasures) : 0,
          insert_values.empty() ? 0 : append_instances(table, allocator, key, insert_values)};
      std::uint64_t erase_rank = 0, insert_rank = 0;
      for (std::uint64_t i = groups.first[group]; i < groups.first[group + 1]; ++i) {
        const std::uint32_t element = element_of_pair(groups.pairs[i]);
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
}

template <class Backend>
void initialize_bitmap(const Backend&, std::uint32_t* bitmap, std::uint64_t words, std::uint64_t slabs)
{
  for (std::uint64_t word = 0; word < words; ++word) { bitmap[word] = initial_bitmap_word(word, slabs); }
}

template <class Backend>
batch_violations find_violations(const Backend&, const std::uint32_t* keys, const operation* operations,
                                 std::uint64_t count, std::uint32_t unsupported)
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
std::uint64_t execute_batch(const Backend&, const slab_table_view<Slots>& table, const batch_arguments& batch)
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
      const operation op = batch.operations != nullptr ? batch.operations[index] : batch.uniform;
      const std::uint32_t value = batch.values_in != nullptr ? batch.values_in[index] : 0;
      std::uint32_t found_value = 0;
      const operation_status status = run_operation(table, allocator, op, batch.keys[index], value, found_value);
      if (status == operation_status::out_of_memory) { ++exhausted; }
      if (status == operation_status::found && batch.values_out != nullptr) { batch.values_out[index] = found_value; }
      write_outcome(batch, index, status);
    }
  }
  return exhausted;
}

template <class Slots, class Backend>
std::uint64_t execute_combined(const Backend& backend, const slab_table_view<Slots>& table,
                               const batch_arguments& batch)
{
  const key_groups groups = group_and_find(backend, table, batch);
  return table.mode == key_mode::duplicates ? combine_multiset(table, batch, groups)
                                            : combine_unique(backend, table, batch, groups);
}

template <class Backend>
std::vector<std::uint32_t> sample_keys(const Backend&, const std::uint32_t* keys, std::uint64_t count,
                                       std::uint64_t samples)
{
  std::vector<std::uint32_t> sample(std::min(count, samples));
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
        const std::uint32_t key = Slots::key_of(slab[slot]);
        live += static_cast<std::uint64_t>(!is_reserved_key(key));
        erased += static_cast<std::uint64_t>(key == erased_key);
      }
    });
    slabs += length;
    longest = std::max(longest, length);
  }
  return {live, erased, slabs, longest};
}

template <class Slots, class Backend>
std::uint64_t export_live(const Backend&, const slab_table_view<Slots>& table, std::uint32_t* keys_out,
                          std::uint32_t* values_out, std::uint64_t capacity)
{
  std::uint64_t written = 0;
#pragma omp parallel for schedule(static)
  for (std::int64_t bucket = 0; bucket < signed_count(table.bucket_count); ++bucket) {
    walk_list(table, static_cast<std::uint32_t>(bucket), [&](const slot_t<Slots>* slab, std::uint64_t) {
      for (std::uint32_t slot = 0; slot < Slots::data_slots; ++slot) {
        if (is_reserved_key(Slots::key_of(slab[slot]))) { continue; }
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
void walk_lists(const Backend&, const slab_table_view<Slots>& table, const walk_arguments& walk)
{
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < signed_count(walk.count); ++i) {
    const auto query = static_cast<std::uint64_t>(i);
    const std::uint32_t key = walk.keys[query];
    const std::uint64_t begin = walk.kind == list_walk::fill ? walk.offsets[query] : 0;
    const std::uint64_t room = walk.kind == list_walk::fill ? walk.offsets[query + 1] - begin : 0;
    std::uint64_t instances = 0;
    walk_list(table, table.bucket_of(key), [&](slot_t<Slots>* slab, std::uint64_t) {
      for (std::uint32_t slot = 0; slot < Slots::data_slots; ++slot) {
        slot_t<Slots> seen = load(slab[slot]);
        if (!table.holds(Slots::key_of(seen), key)) { continue; }
        if (walk.kind == list_walk::fill && instances < room && begin + instances < walk.values_capacity) {
          walk.values_out[begin + instances] = Slots::value_of(seen);
        }
        // A slot holding the key changes only by being erased: a failed swap means another erasure won.
        const bool counts = walk.kind != list_walk::erase_all ||
                            std::atomic_ref<slot_t<Slots>>(slab[slot])
                                .compare_exchange_strong(seen, Slots::make_slot(erased_key, Slots::value_of(seen)),
                                                         std::memory_order_acq_rel);
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
