#pragma once
// The cuda backend of the slab tables, part 2: combined batches (slab_combine.hpp) on the device. Included by
// slab_table_cuda_impl.cuh after the kernels of part 1.
#include <warpdex/hash/detail/slab_table_cuda_kernels.cuh>

namespace warpdex::hash::detail {
namespace cuda_backend {

// ---- Combined batches (slab_combine.hpp): the elements sorted by key, a segmented scan of their
// transitions, one find and at most one write per distinct key, and the outcomes fanned back out. ----

template <class Key>
__global__ void sample_keys_kernel(const Key* keys, std::uint64_t count, std::uint64_t samples, Key* sample,
                                   std::uint64_t taken)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < taken) { sample[i] = keys[sample_position(i, count, samples)]; }
}

/// Whether element i runs in this attempt (all do, or those whose retry status is out_of_memory).
struct runs_this_attempt {
  const operation_status* retry;
  __device__ bool operator()(std::uint32_t element) const { return retry[element] == operation_status::out_of_memory; }
};

/// 1 where position i starts a run of equal sorted keys, else 0.
template <class Key>
struct starts_group {
  const Key* sorted_keys;
  __device__ std::uint32_t operator()(std::uint64_t i) const
  {
    return i == 0 || sorted_keys[i] != sorted_keys[i - 1] ? 1U : 0U;
  }
};

template <class Key>
struct is_group_start {
  const Key* sorted_keys;
  __device__ bool operator()(std::uint64_t i) const { return starts_group<Key>{sorted_keys}(i) != 0; }
};

/// A sorted order's entry may carry its element's operation in its top bits (`packed`): entry = element
/// | op << packed_operation_shift. Read through the order in sorted position, the operations would
/// otherwise be a random read per element (1.5 ms of a combined 2^26-element batch).
constexpr unsigned packed_operation_shift = 30;
static_assert(operation_count <= 1U << (32 - packed_operation_shift));
/// Batches of more elements keep plain element indices in their order.
constexpr std::uint64_t max_packed_elements = std::uint64_t{1} << packed_operation_shift;

/// The operation and input value of batch element `element`, and the element and operation of a sorted
/// order's entry.
template <class Value>
struct batch_element {
  const operation* operations;
  operation uniform;
  const Value* values_in;
  bool packed = false;  ///< order entries carry their operations
  __device__ operation op(std::uint32_t element) const { return operations != nullptr ? operations[element] : uniform; }
  __device__ Value value(std::uint32_t element) const { return values_in != nullptr ? values_in[element] : Value{0}; }
  __device__ std::uint32_t element_of(std::uint32_t entry) const
  {
    return packed ? entry & static_cast<std::uint32_t>(max_packed_elements - 1) : entry;
  }
  __device__ operation op_of(std::uint32_t entry) const
  {
    return packed ? static_cast<operation>(entry >> packed_operation_shift) : op(entry);
  }
  __device__ key_transition transition_of_entry(std::uint32_t entry) const
  {
    return transition_of(op_of(entry), element_of(entry));
  }
};

/// The order entry of element `element` with its operation packed in.
struct pack_operation {
  const operation* operations;
  __device__ std::uint32_t operator()(std::uint32_t element) const
  {
    return element | static_cast<std::uint32_t>(operations[element]) << packed_operation_shift;
  }
};

template <class Value>
struct transition_of_entry {
  batch_element<Value> elements;
  __device__ key_transition operator()(std::uint32_t entry) const { return elements.transition_of_entry(entry); }
};

struct compose_transitions {
  __device__ key_transition operator()(const key_transition& first, const key_transition& second) const
  {
    return then(first, second);
  }
};

/// A group's final state and the write that leads there; groups without one are skipped by `retry`.
template <class Slots>
struct plan_group_write {
  const std::uint64_t* group_first;
  const key_transition* prefix;
  const std::uint32_t* order;
  const operation_status* initial;
  batch_element<typename Slots::value_type> elements;
  operation* write_operations;
  typename Slots::value_type* write_values;
  operation_status* write_statuses;
  __device__ void operator()(std::uint64_t group) const
  {
    const std::uint64_t last = group_first[group + 1] - 1;
    const bool present = initial[group] == operation_status::found;
    const std::uint32_t final_target =
        after(then(prefix[last], elements.transition_of_entry(order[last])), initial_target(present));
    const combined_write write = write_for(present, final_target, Slots::has_values);
    write_operations[group] = write.op;
    write_values[group] = write.needed ? elements.value(write.element) : typename Slots::value_type{0};
    write_statuses[group] = pending_status(write);
  }
};

/// The outcome of the element at sorted position i: its group's sequential run, or, where the group's
/// write found no slab, a run in which the key stays absent.
template <class Value>
struct combined_outcome {
  const std::uint32_t* order;
  const std::uint32_t* groups;  ///< 1-based group of each sorted position
  const key_transition* prefix;
  const operation_status* initial;
  const operation_status* write_statuses;  ///< null when no group's write ran out of slabs
  batch_element<Value> elements;
  struct result {
    std::uint32_t element;
    std::uint32_t target;  ///< the key's state before the element
    std::uint32_t group;
    operation_status status;
  };
  __device__ result operator()(std::uint64_t i) const
  {
    const std::uint32_t element = elements.element_of(order[i]);
    const std::uint32_t group = groups[i] - 1;
    const operation op = elements.op_of(order[i]);
    const std::uint32_t target = after(prefix[i], initial_target(initial[group] == operation_status::found));
    const bool exhausted = write_statuses != nullptr && write_statuses[group] == operation_status::out_of_memory;
    return {element, target, group, exhausted ? status_when_exhausted(op) : status_in(op, target)};
  }
  /// The value a found element reports: the key's value before the batch, or the one its last writer
  /// wrote.
  __device__ Value found_value(const result& r, const Value* initial_values) const
  {
    return r.target == target_initial ? initial_values[r.group] : elements.value(r.target);
  }
};

template <class Value>
struct fan_out_outcome {
  combined_outcome<Value> outcome;
  const Value* initial_values;
  element_outputs<Value> outputs;
  __device__ void operator()(std::uint64_t i) const
  {
    const typename combined_outcome<Value>::result r = outcome(i);
    outputs.write(r.element, r.status,
                  outputs.takes_found_value(r.status) ? outcome.found_value(r, initial_values) : Value{0});
  }
};

template <class Value>
struct is_exhausted_outcome {
  combined_outcome<Value> outcome;
  __device__ std::uint64_t operator()(std::uint64_t i) const
  {
    return outcome(i).status == operation_status::out_of_memory ? 1U : 0U;
  }
};

/// Combined batches of at least this many elements write their outcomes in element order: the outcomes
/// are written in sorted order with their elements, sorted back by element (a radix sort of the element
/// indices' bits), and written out in a coalesced pass. Written from sorted order directly, each element
/// is a random 4-byte write to its status and another to its value: 5 of the 9 ms of a combined 2^26-
/// element batch (H200). Below about the L2's size of outputs the random writes stay in the cache.
constexpr std::uint64_t sorted_outcomes_min_elements = std::uint64_t{1} << 23;

/// Writes the element and the packed outcome (status over found value) of sorted position i.
template <class Value>
struct pack_outcome {
  combined_outcome<Value> outcome;
  const Value* initial_values;
  element_outputs<Value> outputs;
  std::uint32_t* elements;
  std::uint64_t* packed;
  __device__ void operator()(std::uint64_t i) const
  {
    static_assert(sizeof(Value) <= sizeof(std::uint32_t));
    const typename combined_outcome<Value>::result r = outcome(i);
    const Value value = outputs.takes_found_value(r.status) ? outcome.found_value(r, initial_values) : Value{0};
    elements[i] = r.element;
    packed[i] = static_cast<std::uint64_t>(r.status) << 32 | static_cast<std::uint32_t>(value);
  }
};

/// Writes the outputs of the element at position i of the outcomes sorted back by element.
template <class Value>
struct unpack_outcome {
  const std::uint32_t* elements;
  const std::uint64_t* packed;
  element_outputs<Value> outputs;
  __device__ void operator()(std::uint64_t i) const
  {
    outputs.write(elements[i], static_cast<operation_status>(packed[i] >> 32),
                  static_cast<Value>(packed[i] & 0xffffffffU));
  }
};

/// A multimap group's erasures and insertions, counted together by one segmented scan: an erasure
/// adds erase_unit, an insertion 1 (counts stay below 2^32).
constexpr std::uint64_t erase_unit = std::uint64_t{1} << 32;
constexpr std::uint64_t insert_count_mask = erase_unit - 1;

template <class Value>
struct erase_insert_count {
  batch_element<Value> elements;
  __device__ std::uint64_t operator()(std::uint32_t element) const
  {
    const operation op = elements.op(element);
    return op == operation::erase ? erase_unit : op == operation::insert ? 1U : 0U;
  }
};

struct counts_an_insertion {
  __device__ bool operator()(std::uint64_t count) const { return (count & insert_count_mask) != 0; }
};

struct insertions_of {
  __device__ std::uint64_t operator()(std::uint64_t counts) const { return counts & insert_count_mask; }
};

/// Each group's erasures and insertions (erase_unit and 1 each): its last position's running count plus
/// its own.
struct group_totals {
  const std::uint64_t* group_first;
  const std::uint64_t* ranks;
  const std::uint64_t* counts;
  std::uint64_t* totals;
  __device__ void operator()(std::uint64_t group) const
  {
    const std::uint64_t last = group_first[group + 1] - 1;
    totals[group] = ranks[last] + counts[last];
  }
};

/// One warp per multimap group erases up to its erasures' count of its key's instances, the first in
/// list order; erased[group] = how many it erased.
template <class Slots>
__global__ void erase_instances_kernel(slab_table_view<Slots> table, const typename Slots::key_type* group_keys,
                                       const std::uint64_t* totals, std::uint64_t groups, std::uint64_t* erased_out)
{
  const std::uint64_t group = static_cast<std::uint64_t>(blockIdx.x) * warps_per_block + warp::warp_in_block();
  if (group >= groups) { return; }
  const unsigned lane = warp::lane_id();
  const std::uint64_t limit = totals[group] / erase_unit;
  std::uint64_t erased = 0;
  if (limit > 0) {
    const typename Slots::key_type key = group_keys[group];
    typename Slots::slot_type* slab = table.head_of(key);
    for (;;) {
      const auto seen = lane < Slots::slots_per_slab ? load_slot(slab + lane) : Slots::empty_slot;
      const bool match = lane < Slots::data_slots && table.holds(Slots::key_of(seen), key);
      const unsigned matches = warp::ballot(match);
      const bool tries = match && static_cast<std::uint64_t>(warp::rank_in(matches)) < limit - erased;
      const bool won =
          tries && try_swap_slot<Slots>(slab + lane, seen, Slots::make_slot(Slots::erased_key, Slots::value_of(seen)));
      const unsigned tried = warp::ballot(tries);
      const unsigned wins = warp::ballot(won);
      erased += static_cast<std::uint64_t>(warp::popc(wins));
      if (erased == limit) { break; }
      if (tried != wins) { continue; }  // a slot changed under us: read the slab again
      const std::uint32_t next = warp::shfl(Slots::link_of(seen), Slots::link_slot);
      if (next == null_slab) { break; }
      slab = table.pool.slab(next);
    }
  }
  if (lane == 0) { erased_out[group] = erased; }
}

/// One warp per multimap group adds its insertions' pairs, in input order, into the next empty slots of
/// its key's list, appending slabs with the warp's allocator; added[group] = how many it added (fewer
/// only when no slab was free). The pairs added are always a prefix of the insertions: when a swap
/// loses its slot to another insertion, the pairs the warp placed after it in the same round are
/// erased again (left as tombstones) and tried anew.
template <class Slots>
__global__ void append_instances_kernel(slab_table_view<Slots> table, const typename Slots::key_type* group_keys,
                                        const std::uint64_t* totals, const std::uint64_t* insert_first,
                                        const std::uint32_t* insert_elements,
                                        const typename Slots::value_type* values_in, std::uint64_t groups,
                                        std::uint64_t salt, std::uint64_t* added_out)
{
  using slot_type = typename Slots::slot_type;
  const std::uint64_t group = static_cast<std::uint64_t>(blockIdx.x) * warps_per_block + warp::warp_in_block();
  if (group >= groups) { return; }
  const unsigned lane = warp::lane_id();
  const std::uint64_t total = totals[group] & insert_count_mask;
  std::uint64_t added = 0;
  if (total > 0) {
    const slab_table_ref<Slots> ref(table);
    auto allocator = ref.make_allocator(salt);
    const typename Slots::key_type key = group_keys[group];
    const std::uint32_t* elements = insert_elements + insert_first[group];
    slot_type* slab = table.head_of(key);
    for (;;) {
      const slot_type seen = lane < Slots::slots_per_slab ? load_slot(slab + lane) : Slots::empty_slot;
      const unsigned empties = warp::ballot(lane < Slots::data_slots && Slots::key_of(seen) == Slots::empty_key);
      const auto rank = static_cast<std::uint64_t>(warp::rank_in(empties));
      const bool tries = (empties >> lane & 1U) != 0 && rank < total - added;
      const slot_type pair = tries ? Slots::make_slot(key, values_in != nullptr ? values_in[elements[added + rank]]
                                                                                : typename Slots::value_type{0})
                                   : seen;
      const bool won = tries && try_swap_slot<Slots>(slab + lane, seen, pair);
      const unsigned tried = warp::ballot(tries);
      const unsigned lost = tried & ~warp::ballot(won);
      if (lost != 0) {
        const auto kept = static_cast<std::uint64_t>(warp::popc(empties & ((1U << (warp::ffs(lost) - 1)) - 1U)));
        if (won && rank > kept) {
          try_swap_slot<Slots>(slab + lane, pair, Slots::make_slot(Slots::erased_key, Slots::value_of(pair)));
        }
        added += kept;
        continue;  // read the slab again
      }
      added += static_cast<std::uint64_t>(warp::popc(tried));
      if (added == total) { break; }
      const std::uint32_t next = warp::shfl(Slots::link_of(seen), Slots::link_slot);
      if (next != null_slab) {
        slab = table.pool.slab(next);
        continue;
      }
      slab = append_slab(table, allocator, slab);
      if (slab == nullptr) { break; }
    }
  }
  if (lane == 0) { added_out[group] = added; }
}

/// The outcome of the multimap element at sorted position i (multiset_outcome).
template <class Value>
struct multiset_element_outcome {
  const std::uint32_t* order;
  const std::uint32_t* groups;  ///< 1-based group of each sorted position
  const std::uint64_t* ranks;   ///< erasures (in erase_unit) and insertions before it in its group
  const operation_status* initial;
  const std::uint64_t* erased;
  const std::uint64_t* added;
  batch_element<Value> elements;
  __device__ operation_status operator()(std::uint64_t i) const
  {
    const std::uint32_t group = groups[i] - 1;
    const operation op = elements.op(order[i]);
    const std::uint64_t rank = op == operation::erase ? ranks[i] / erase_unit : ranks[i] & insert_count_mask;
    const multiset_outcome outcome{initial[group] == operation_status::found, erased[group], added[group]};
    return outcome.status(op, rank);
  }
};

template <class Value>
struct fan_out_multiset_outcome {
  multiset_element_outcome<Value> outcome;
  const Value* initial_values;
  element_outputs<Value> outputs;
  __device__ void operator()(std::uint64_t i) const
  {
    const operation_status status = outcome(i);
    const std::uint32_t group = outcome.groups[i] - 1;
    outputs.write(outcome.order[i], status, outputs.takes_found_value(status) ? initial_values[group] : Value{0});
  }
};

template <class Value>
struct is_exhausted_multiset_outcome {
  multiset_element_outcome<Value> outcome;
  __device__ std::uint64_t operator()(std::uint64_t i) const
  {
    return outcome(i) == operation_status::out_of_memory ? 1U : 0U;
  }
};

template <class T>
T copy_to_host(const buffer<T>& value)
{
  return value.to_vector()[0];
}
}  // namespace cuda_backend
}  // namespace warpdex::hash::detail
