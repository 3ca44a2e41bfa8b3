// The host backend's partitioned engine of the duplicate search (duplicates_partitioned.hpp): every
// element type, order and output. The elements are split by ranges of their leading bits into
// partitions of about `host_partition_elements` (each thread histograms and scatters its own slice of
// the input, so a partition holds its elements in input order), then one thread a partition counts its
// elements in an open-addressing table that stays in the core's caches. Sorting the whole input, as the
// sort method does, reads and writes every element in each of its passes over main memory; here the
// input is read three times (its range, the histogram, the scatter) and written once, and the rest
// happens in the caches (docs/dpp.md).
#include "duplicates_partitioned.hpp"
#include "group_by_reduce.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/core/hash.hpp>

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::dpp::detail {
namespace {

/// Elements a partition is planned to hold: its table (2 slots an element, 4 bytes a slot) and groups
/// (12-24 bytes) stay within a core's L2 cache.
constexpr std::uint64_t host_partition_elements = std::uint64_t{1} << 14;
/// At most this many partitions: each thread's scatter writes one stream a partition, and more streams
/// than the caches and the TLB keep cost more than larger partitions do.
constexpr std::uint32_t host_max_partitions = std::uint32_t{1} << 12;
/// Inputs smaller than this are counted by one thread (a parallel region costs more than it saves).
constexpr std::uint64_t host_min_parallel_elements = std::uint64_t{1} << 15;

/// The leading 64 bits of an element, ordered as the elements are: partitions are ranges of them, so
/// that partitions in turn hold ascending ranges of elements.
template <class Element>
std::uint64_t leading_bits(const Element& element)
{
  if constexpr (std::is_integral_v<Element>) {
    return element;
  } else {
    return (std::uint64_t{element.word[0]} << 32) | element.word[1];
  }
}

/// The seed of the tables' hash: drawn once a process, so that elements built to share a slot under a
/// known hash (an algorithmic-complexity attack: one probe chain, quadratic work) share none here. The
/// outputs do not depend on it: groups are ordered by element or by first position.
std::uint64_t table_hash_seed()
{
  static const std::uint64_t seed = [] {
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device();
  }();
  return seed;
}

/// The hash of a whole element, for its slot in a partition's table.
template <class Element>
std::uint64_t element_hash(const Element& element, std::uint64_t seed)
{
  if constexpr (std::is_integral_v<Element>) {
    return fmix64(std::uint64_t{element} ^ seed);
  } else {
    constexpr std::size_t arity = sizeof(element.word) / sizeof(element.word[0]);
    std::uint64_t hash = seed;
    for (std::size_t i = 0; i < arity; i += 2) {
      const std::uint64_t high = i + 1 < arity ? std::uint64_t{element.word[i + 1]} << 32 : 0;
      hash = fmix64(hash ^ (high | element.word[i]));
    }
    return hash;
  }
}

/// Partition of an element: (leading bits - low) >> shift, in [0, partitions); 0 for one partition (whose
/// shift could be 64).
struct partition_plan {
  std::uint64_t low = 0;
  unsigned shift = 0;
  std::uint32_t partitions = 1;

  template <class Element>
  std::uint32_t of(const Element& element) const
  {
    return partitions == 1 ? 0 : static_cast<std::uint32_t>((leading_bits(element) - low) >> shift);
  }
};

template <class Element>
partition_plan plan_partitions(std::span<const Element> elements, int threads)
{
  std::uint64_t low = ~std::uint64_t{0};
  std::uint64_t high = 0;
#pragma omp parallel for num_threads(threads) reduction(min : low) reduction(max : high) schedule(static)
  for (std::uint64_t i = 0; i < elements.size(); ++i) {
    const std::uint64_t bits = leading_bits(elements[i]);
    low = std::min(low, bits);
    high = std::max(high, bits);
  }
  const std::uint64_t wanted = std::min<std::uint64_t>(
      host_max_partitions, std::bit_ceil(std::max<std::uint64_t>(1, elements.size() / host_partition_elements)));
  const auto partition_bits = static_cast<unsigned>(std::countr_zero(wanted));
  const auto range_bits = static_cast<unsigned>(std::bit_width(high - low));
  partition_plan plan;
  if (partition_bits == 0) { return plan; }
  plan.low = low;
  plan.shift = range_bits > partition_bits ? range_bits - partition_bits : 0;
  plan.partitions = static_cast<std::uint32_t>(((high - low) >> plan.shift) + 1);
  return plan;
}

/// The value type of a search without values (the duplicate search): nothing is stored or moved.
struct no_values {};

/// The elements split into their partitions, each partition's in input order, with their input
/// positions and their values beside them when asked for.
template <class Element, class Value = no_values>
struct partitioned_input {
  buffer<Element> elements;
  buffer<std::uint32_t> positions;    // empty without positions
  buffer<Value> values;               // empty without values
  std::vector<std::uint64_t> starts;  // partitions + 1
};

/// `values` is empty, or holds a value for each element.
template <class Element, class Value = no_values>
partitioned_input<Element, Value> split_into_partitions(std::span<const Element> elements, const partition_plan& plan,
                                                        bool with_positions, int threads,
                                                        std::span<const Value> values = {})
{
  const std::uint64_t n = elements.size();
  const std::uint32_t partitions = plan.partitions;
  const bool with_values = !values.empty();
  partitioned_input<Element, Value> split{
      make_buffer<Element>(host{}, n), make_buffer<std::uint32_t>(host{}, with_positions ? n : 0),
      make_buffer<Value>(host{}, with_values ? n : 0), std::vector<std::uint64_t>(partitions + 1, 0)};
  // offsets[t * partitions + p]: where thread t writes its next element of partition p.
  std::vector<std::uint64_t> offsets(static_cast<std::size_t>(threads) * partitions, 0);
  const auto slice = [&](int t) { return n * static_cast<std::uint64_t>(t) / static_cast<std::uint64_t>(threads); };
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    std::uint64_t* counts = offsets.data() + static_cast<std::size_t>(t) * partitions;
    for (std::uint64_t i = slice(t); i < slice(t + 1); ++i) { ++counts[plan.of(elements[i])]; }
#pragma omp barrier
#pragma omp single
    {
      std::uint64_t total = 0;
      for (std::uint32_t p = 0; p < partitions; ++p) {
        split.starts[p] = total;
        for (int u = 0; u < threads; ++u) {
          const std::uint64_t count = offsets[static_cast<std::size_t>(u) * partitions + p];
          offsets[static_cast<std::size_t>(u) * partitions + p] = total;
          total += count;
        }
      }
      split.starts[partitions] = total;
    }
    Element* out = split.elements.data();
    std::uint32_t* out_positions = split.positions.data();
    Value* out_values = split.values.data();
    for (std::uint64_t i = slice(t); i < slice(t + 1); ++i) {
      const std::uint64_t at = counts[plan.of(elements[i])]++;
      out[at] = elements[i];
      if (with_positions) { out_positions[at] = static_cast<std::uint32_t>(i); }
      if (with_values) { out_values[at] = values[i]; }
    }
  }
  return split;
}

/// A distinct element of a partition: its count, first position and, with values, their reduction.
template <class Element, class Value = no_values>
struct group {
  Element element;
  std::uint32_t first;
  std::uint32_t count;  // a partition holds fewer than 2^32 elements
  [[no_unique_address]] Value value;
};

/// Combines no values.
struct no_combine {
  no_values operator()(no_values, no_values) const { return {}; }
};

/// A thread's table: the groups of one partition in order of first occurrence, found by open addressing
/// (a slot holds a group's index + 1). With values, a group's value is `combine`d with each value of its
/// element in input order.
template <class Element, class Value = no_values, class Combine = no_combine>
class partition_table {
 public:
  explicit partition_table(Combine combine = {}) : combine_(combine), seed_(table_hash_seed()) {}

  /// `positions` and `values` may be null.
  void count(const Element* elements, const std::uint32_t* positions, const Value* values, std::uint64_t size)
  {
    groups.clear();
    groups.reserve(std::min(size, initial_limit));
    const std::uint64_t planned = std::bit_ceil(std::max<std::uint64_t>(16, 2 * std::min(size, initial_limit)));
    if (slots_.size() != planned) {
      slots_.assign(planned, 0);
    } else {
      std::fill(slots_.begin(), slots_.end(), 0U);
    }
    for (std::uint64_t i = 0; i < size; ++i) {
      add(elements[i], positions == nullptr ? 0 : positions[i], values == nullptr ? Value{} : values[i]);
    }
  }

  std::vector<group<Element, Value>> groups;

 private:
  /// Partitions larger than this (skew) start from this table and double it past half full.
  static constexpr std::uint64_t initial_limit = std::uint64_t{1} << 16;

  void add(const Element& element, std::uint32_t position, const Value& value)
  {
    if ((groups.size() + 1) * 2 > slots_.size()) { grow(); }
    const std::uint64_t last = slots_.size() - 1;
    for (std::uint64_t s = element_hash(element, seed_) & last;; s = (s + 1) & last) {
      const std::uint32_t slot = slots_[s];
      if (slot == 0) {
        slots_[s] = static_cast<std::uint32_t>(groups.size() + 1);
        groups.push_back(group<Element, Value>{element, position, 1, value});
        return;
      }
      group<Element, Value>& found = groups[slot - 1];
      if (found.element == element) {
        ++found.count;
        found.value = combine_(found.value, value);
        return;
      }
    }
  }

  void grow()
  {
    slots_.assign(2 * slots_.size(), 0);
    const std::uint64_t last = slots_.size() - 1;
    for (std::uint64_t g = 0; g < groups.size(); ++g) {
      std::uint64_t s = element_hash(groups[g].element, seed_) & last;
      while (slots_[s] != 0) { s = (s + 1) & last; }
      slots_[s] = static_cast<std::uint32_t>(g + 1);
    }
  }

  std::vector<std::uint32_t> slots_;
  Combine combine_;
  std::uint64_t seed_;
};

/// Threads for `n` elements.
int threads_for(std::uint64_t n)
{
  return n < host_min_parallel_elements ? 1 : omp_get_max_threads();
}

/// Every partition's groups, counted in parallel; `visit(p, groups)` runs once a partition on the thread
/// that counted it (and may take the groups away). Groups are in order of first occurrence within their
/// partition.
template <class Element, class Value = no_values, class Combine = no_combine, class Visit>
void count_partitions(const partitioned_input<Element, Value>& split, int threads, Visit&& visit, Combine combine = {})
{
  const auto partitions = static_cast<std::int64_t>(split.starts.size() - 1);
  const std::uint32_t* positions = split.positions.size() == 0 ? nullptr : split.positions.data();
  const Value* values = split.values.size() == 0 ? nullptr : split.values.data();
#pragma omp parallel num_threads(threads)
  {
    partition_table<Element, Value, Combine> table(combine);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t p = 0; p < partitions; ++p) {
      const std::uint64_t begin = split.starts[p];
      table.count(split.elements.data() + begin, positions == nullptr ? nullptr : positions + begin,
                  values == nullptr ? nullptr : values + begin, split.starts[p + 1] - begin);
      visit(static_cast<std::uint64_t>(p), table.groups);
    }
  }
}

/// Bits of the 0/1 bytes `flags`, 64 a word: plain byte stores mark positions without atomic
/// operations (positions are distinct, so no two threads store to one byte), and this one pass over the
/// bytes packs them.
template <class Word>
void pack_flags(const std::vector<std::uint8_t>& flags, Word* words, int threads)
{
  constexpr std::uint64_t bits = sizeof(Word) * 8;
  const std::uint64_t n = flags.size();
  const auto count = static_cast<std::int64_t>((n + bits - 1) / bits);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t w = 0; w < count; ++w) {
    const std::uint64_t begin = static_cast<std::uint64_t>(w) * bits;
    const std::uint64_t end = std::min(n, begin + bits);
    Word word = 0;
    for (std::uint64_t i = begin; i < end; ++i) { word |= static_cast<Word>(flags[i]) << (i - begin); }
    words[w] = word;
  }
}

}  // namespace

template <class Element>
buffer<std::uint32_t> host_partitioned_once_bitmap(const host& backend, std::span<const Element> elements)
{
  const std::uint64_t n = elements.size();
  auto bitmap = make_buffer<std::uint32_t>(backend, (n + 31) / 32);
  if (n == 0) { return bitmap; }
  const int threads = threads_for(n);
  const auto split = split_into_partitions(elements, plan_partitions(elements, threads), true, threads);
  // A singleton's one position is its first: its flag is set there.
  std::vector<std::uint8_t> once(n, 0);
  count_partitions(split, threads, [&](std::uint64_t, const std::vector<group<Element>>& groups) {
    for (const auto& g : groups) {
      if (g.count == 1) { once[g.first] = 1; }
    }
  });
  pack_flags(once, bitmap.data(), threads);
  return bitmap;
}

namespace {

/// Every group of every partition, in `order`: `allocate(distinct)` once the groups are counted, then
/// `write(place, group)` for each, in parallel. The split is released once counted, before the outputs
/// are allocated.
template <class Element, class Value, class Combine, class Allocate, class Write>
void place_groups(partitioned_input<Element, Value>&& split, element_order order, int threads, Combine combine,
                  Allocate&& allocate, Write&& write)
{
  const std::uint64_t n = split.elements.size();
  const bool first_order = order == element_order::first_occurrence;
  const std::uint64_t partitions = split.starts.size() - 1;
  std::vector<std::vector<group<Element, Value>>> found(partitions);
  // In order of first occurrence, a group's place is the number of first positions before its own: they
  // are flagged, packed into a bitmap and counted word by word.
  std::vector<std::uint8_t> first_flags(first_order ? n : 0, 0);
  count_partitions(
      split, threads,
      [&](std::uint64_t p, std::vector<group<Element, Value>>& groups) {
        found[p].swap(groups);
        if (first_order) {
          for (const auto& g : found[p]) { first_flags[g.first] = 1; }
        } else {
          // Partitions are ascending ranges: sorting each one orders them all.
          std::sort(found[p].begin(), found[p].end(),
                    [](const auto& a, const auto& b) { return a.element < b.element; });
        }
      },
      combine);
  split = {};
  std::vector<std::uint64_t> starts(partitions + 1, 0);
  for (std::uint64_t p = 0; p < partitions; ++p) { starts[p + 1] = starts[p] + found[p].size(); }
  allocate(starts[partitions]);
  std::vector<std::uint64_t> first_bits(first_order ? (n + 63) / 64 : 0);
  std::vector<std::uint64_t> bits_before(first_bits.size() + 1, 0);
  if (first_order) {
    pack_flags(first_flags, first_bits.data(), threads);
    for (std::size_t w = 0; w < first_bits.size(); ++w) {
      bits_before[w + 1] = bits_before[w] + static_cast<std::uint64_t>(std::popcount(first_bits[w]));
    }
  }
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
  for (std::int64_t p = 0; p < static_cast<std::int64_t>(partitions); ++p) {
    std::uint64_t at = starts[p];
    for (const auto& g : found[p]) {
      std::uint64_t place = at++;
      if (first_order) {
        const std::uint64_t below = first_bits[g.first / 64] & ((std::uint64_t{1} << (g.first % 64)) - 1);
        place = bits_before[g.first / 64] + static_cast<std::uint64_t>(std::popcount(below));
      }
      write(place, g);
    }
  }
}

template <group_reduction Reduction, class Key, class Value>
key_groups<Key, Value> group_with(std::span<const Key> keys, std::span<const Value> values, element_order order)
{
  const std::uint64_t n = keys.size();
  const int threads = threads_for(n);
  auto split = split_into_partitions(keys, plan_partitions(keys, threads),
                                           order == element_order::first_occurrence, threads, values);
  key_groups<Key, Value> result;
  place_groups(
      std::move(split), order, threads, reduce_values<Value, Reduction>{},
      [&](std::uint64_t distinct) {
        result = key_groups<Key, Value>{make_buffer<Key>(host{}, distinct), make_buffer<Value>(host{}, distinct),
                                        make_buffer<std::uint64_t>(host{}, distinct)};
      },
      [&](std::uint64_t place, const group<Key, Value>& g) {
        result.keys.data()[place] = g.element;
        result.values.data()[place] = g.value;
        result.counts.data()[place] = g.count;
      });
  return result;
}

}  // namespace

template <class Element>
element_counts<Element> host_partitioned_counts(const host& backend, std::span<const Element> elements,
                                                element_order order, bool with_counts, bool with_first_positions)
{
  const std::uint64_t n = elements.size();
  const int threads = threads_for(n);
  const bool with_positions = order == element_order::first_occurrence || with_first_positions;
  auto split = split_into_partitions(elements, plan_partitions(elements, threads), with_positions, threads);
  element_counts<Element> result;
  place_groups(
      std::move(split), order, threads, no_combine{},
      [&](std::uint64_t distinct) {
        result = element_counts<Element>{make_buffer<Element>(backend, distinct),
                                         make_buffer<std::uint64_t>(backend, with_counts ? distinct : 0),
                                         make_buffer<std::uint64_t>(backend, with_first_positions ? distinct : 0)};
      },
      [&](std::uint64_t place, const group<Element>& g) {
        result.elements.data()[place] = g.element;
        if (with_counts) { result.counts.data()[place] = g.count; }
        if (with_first_positions) { result.first_positions.data()[place] = g.first; }
      });
  return result;
}

template <class Key, class Value>
key_groups<Key, Value> host_partitioned_group_by(const host&, std::span<const Key> keys, std::span<const Value> values,
                                                 group_reduction reduction, element_order order)
{
  switch (reduction) {
    case group_reduction::sum:
      return group_with<group_reduction::sum>(keys, values, order);
    case group_reduction::min:
      return group_with<group_reduction::min>(keys, values, order);
    default:
      return group_with<group_reduction::max>(keys, values, order);
  }
}

#define WARPDEX_INSTANTIATE_HOST_PARTITIONED(Element)                                                          \
  template buffer<std::uint32_t> host_partitioned_once_bitmap<Element>(const host&, std::span<const Element>); \
  template element_counts<Element> host_partitioned_counts<Element>(const host&, std::span<const Element>,     \
                                                                    element_order, bool, bool);
WARPDEX_INSTANTIATE_HOST_PARTITIONED(std::uint32_t)
WARPDEX_INSTANTIATE_HOST_PARTITIONED(std::uint64_t)
WARPDEX_INSTANTIATE_HOST_PARTITIONED(uint32x2)
WARPDEX_INSTANTIATE_HOST_PARTITIONED(uint32x3)
WARPDEX_INSTANTIATE_HOST_PARTITIONED(uint32x4)
#undef WARPDEX_INSTANTIATE_HOST_PARTITIONED

#define WARPDEX_INSTANTIATE_HOST_GROUP_BY(Key, Value)                    \
  template key_groups<Key, Value> host_partitioned_group_by<Key, Value>( \
      const host&, std::span<const Key>, std::span<const Value>, group_reduction, element_order);
WARPDEX_INSTANTIATE_HOST_GROUP_BY(std::uint32_t, std::int64_t)
WARPDEX_INSTANTIATE_HOST_GROUP_BY(std::uint32_t, std::uint64_t)
WARPDEX_INSTANTIATE_HOST_GROUP_BY(std::uint64_t, std::int64_t)
WARPDEX_INSTANTIATE_HOST_GROUP_BY(std::uint64_t, std::uint64_t)
#undef WARPDEX_INSTANTIATE_HOST_GROUP_BY

}  // namespace warpdex::dpp::detail
