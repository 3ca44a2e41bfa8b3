#pragma once
// Combining a batch's operations on one key before they reach the table (both backends): the elements
// are grouped by key, each group's operations are run as one sequential run in input order on the key's
// state, and the table sees at most one find and one write per distinct key (a multimap's groups: one
// find, one erasing walk and one appending walk, see multiset_outcome). So a key repeated m times
// costs one list walk, not m (a mixed batch that erases and inserts one key m times would otherwise
// leave m tombstones in its list and walk them m times). This file holds what both backends share: the
// state a group reaches, as a composable function of the key's state before the batch.
//
// A state is a "target": absent, present with the value the key held before the batch, or present with
// the value of batch element j (the one that last wrote it). An operation is a transition, a function
// from states to states given by its image of `absent` and of `present` (where "keep" leaves a present
// key's value as it was); transitions compose associatively, so a segmented scan gives each element the
// state before it and each group its final state.

#include <warpdex/core/config.hpp>
#include <warpdex/hash/detail/slab_table.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <cstdint>
#include <vector>

namespace warpdex::hash::detail {

/// The target of an absent key.
inline constexpr std::uint32_t target_absent = 0xffffffffU;
/// The target of a key present with the value it held before the batch (as a transition's image of
/// a present key: "keep the value").
inline constexpr std::uint32_t target_initial = 0xfffffffeU;
/// Elements are named by 32-bit indices below the two reserved targets.
inline constexpr std::uint64_t max_combined_elements = target_initial;

/// What one operation (or a run of them) does to a key: the state it leads to from absent and from
/// present with the initial value.
struct key_transition {
  std::uint32_t from_absent = target_absent;
  std::uint32_t from_present = target_initial;
};

/// The identity (a find's transition).
WARPDEX_HOST_DEVICE constexpr key_transition unchanged_transition()
{
  return {target_absent, target_initial};
}

/// The transition of element `element` doing `op` (insert and insert_or_assign write its value).
WARPDEX_HOST_DEVICE constexpr key_transition transition_of(operation op, std::uint32_t element)
{
  switch (op) {
    case operation::insert:
      return {element, target_initial};
    case operation::insert_or_assign:
      return {element, element};
    case operation::erase:
      return {target_absent, target_absent};
    case operation::find:
      break;
  }
  return unchanged_transition();
}

/// The state `transition` leads to from state `target`.
WARPDEX_HOST_DEVICE constexpr std::uint32_t after(const key_transition& transition, std::uint32_t target)
{
  if (target == target_absent) { return transition.from_absent; }
  return transition.from_present == target_initial ? target : transition.from_present;
}

/// `first`, then `second` (associative; unchanged_transition is its identity).
WARPDEX_HOST_DEVICE constexpr key_transition then(const key_transition& first, const key_transition& second)
{
  return {after(second, first.from_absent), after(second, first.from_present)};
}

/// The state before the batch: absent, or present with its initial value.
WARPDEX_HOST_DEVICE constexpr std::uint32_t initial_target(bool present)
{
  return present ? target_initial : target_absent;
}

/// The status of `op` run on a key in state `target` (by the sequential semantics of slab_table.hpp).
WARPDEX_HOST_DEVICE constexpr operation_status status_in(operation op, std::uint32_t target)
{
  const bool present = target != target_absent;
  switch (op) {
    case operation::find:
      return present ? operation_status::found : operation_status::not_found;
    case operation::insert:
      return present ? operation_status::already_present : operation_status::inserted;
    case operation::insert_or_assign:
      return present ? operation_status::assigned : operation_status::inserted;
    case operation::erase:
      return present ? operation_status::erased : operation_status::not_found;
  }
  return operation_status::not_found;
}

/// The status of `op` in a group whose write found no slab: the key stays absent throughout, every
/// insertion reports out_of_memory (it needed the slab that was not there) and changes nothing.
WARPDEX_HOST_DEVICE constexpr operation_status status_when_exhausted(operation op)
{
  return op == operation::insert || op == operation::insert_or_assign ? operation_status::out_of_memory
                                                                      : operation_status::not_found;
}

/// The one write that takes a key from its state before the batch to `final_target`.
struct combined_write {
  bool needed = false;
  operation op = operation::find;
  std::uint32_t element = 0;  ///< the element whose value it writes (insertions)
};

/// The write of a group: an insert of the last written value when the key was absent and ends present,
/// an insert_or_assign when it was present and ends with a written value (maps only: a set's key has no
/// value to change), an erase when it was present and ends absent, nothing otherwise. Keys are distinct
/// among a batch's writes, so each write reports the expected status or, for an insert, out_of_memory.
WARPDEX_HOST_DEVICE constexpr combined_write write_for(bool initially_present, std::uint32_t final_target,
                                                       bool has_values)
{
  if (!initially_present) {
    if (final_target == target_absent) { return {}; }
    return {true, operation::insert, final_target};
  }
  if (final_target == target_initial) { return {}; }
  if (final_target == target_absent) { return {true, operation::erase, 0}; }
  if (!has_values) { return {}; }
  return {true, operation::insert_or_assign, final_target};
}

/// A multimap group (key_mode::duplicates) runs as: its finds, on the key's instances before the batch
/// (found, with the value of the first instance in list order, or not_found); then its erasures in input
/// order, one walk removing up to their count of instances, so the first `erased` of them report erased
/// and the rest not_found (no instance was left); then its insertions in input order, one walk adding
/// their pairs into the list's next empty slots (appending slabs), so the first `added` report inserted
/// and the rest out_of_memory (no slab was free; they run again after a growth). A key inserted and
/// erased m times thus costs two walks of its list, not m.
struct multiset_outcome {
  bool found_before = false;
  std::uint64_t erased = 0;
  std::uint64_t added = 0;

  /// The status of an element doing `op`, the `rank`-th (from 0, in input order) of its group's
  /// elements doing `op`.
  [[nodiscard]] WARPDEX_HOST_DEVICE constexpr operation_status status(operation op, std::uint64_t rank) const
  {
    switch (op) {
      case operation::erase:
        return rank < erased ? operation_status::erased : operation_status::not_found;
      case operation::insert:
      case operation::insert_or_assign:
        return rank < added ? operation_status::inserted : operation_status::out_of_memory;
      case operation::find:
        break;
    }
    return found_before ? operation_status::found : operation_status::not_found;
  }
};

/// The status a group's write starts with: out_of_memory marks the writes to run (the batch of writes
/// passes its statuses as `retry`), found the groups with nothing to write.
WARPDEX_HOST_DEVICE constexpr operation_status pending_status(const combined_write& write)
{
  return write.needed ? operation_status::out_of_memory : operation_status::found;
}

/// The batch of one find per distinct key, a combined batch's first step on the table.
template <class Key, class Value>
basic_batch_arguments<Key, Value> group_finds(const Key* keys, Value* values_out, operation_status* statuses,
                                              std::uint64_t groups, std::uint32_t tile_lanes)
{
  basic_batch_arguments<Key, Value> finds;
  finds.uniform = operation::find;
  finds.keys = keys;
  finds.values_out = values_out;
  finds.statuses = statuses;
  finds.count = groups;
  finds.tile_lanes = tile_lanes;
  return finds;
}

/// The batch of the groups' writes: only those whose pending_status is out_of_memory run, and each
/// reports its status in place.
template <class Key, class Value>
basic_batch_arguments<Key, Value> group_writes(const operation* operations, const Key* keys, const Value* values,
                                               operation_status* statuses, std::uint64_t groups,
                                               std::uint32_t tile_lanes)
{
  basic_batch_arguments<Key, Value> writes;
  writes.operations = operations;
  writes.keys = keys;
  writes.values_in = values;
  writes.statuses = statuses;
  writes.retry = statuses;
  writes.count = groups;
  writes.tile_lanes = tile_lanes;
  return writes;
}

/// The position of sample `i` of `samples` in a batch of `count` keys: every position when the batch is
/// no larger, else one pseudo-random position in each of `samples` equal strata (distinct positions, so
/// a repeat in the sample is a repeat in the batch, and a periodic batch cannot hide its repeats).
WARPDEX_HOST_DEVICE constexpr std::uint64_t sample_position(std::uint64_t i, std::uint64_t count, std::uint64_t samples)
{
  if (count <= samples) { return i; }
  const std::uint64_t stratum = count / samples;
  std::uint64_t mixed = (i + 1) * 0x9e3779b97f4a7c15ULL;
  mixed ^= mixed >> 29;
  return i * stratum + mixed % stratum;
}

/// The mean number of other elements of a batch of `count` keys that share an element's key, estimated
/// from keys sampled at distinct positions: the sample's share of equal pairs estimates the chance that
/// two elements share a key (the sum of the squared key frequencies). The pairs are counted in a
/// linear-probing table of twice the sample's size (tens of microseconds for 4096 keys, where sorting
/// them took over a hundred).
template <class Key = std::uint32_t>
double estimated_key_repeats(const std::vector<Key>& sample, std::uint64_t count)
{
  if (sample.size() < 2) { return 0.0; }
  std::size_t slots = 2;
  while (slots < 2 * sample.size()) { slots *= 2; }
  struct slot {
    Key key = 0;
    std::uint32_t seen = 0;  ///< 0: empty
  };
  std::vector<slot> table(slots);
  double equal_pairs = 0;
  for (const Key key : sample) {
    std::size_t at = static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> 32) & (slots - 1);
    while (table[at].seen != 0 && table[at].key != key) { at = (at + 1) & (slots - 1); }
    equal_pairs += table[at].seen;  // the new element pairs with each earlier one
    table[at].key = key;
    ++table[at].seen;
  }
  const double size = static_cast<double>(sample.size());
  return static_cast<double>(count - 1) * equal_pairs / (size * (size - 1) / 2);
}

}  // namespace warpdex::hash::detail
