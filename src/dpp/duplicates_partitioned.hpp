#pragma once
// The partitioned engines of the duplicate search, which split the input by its leading bits instead of
// sorting it. The cuda one (32-bit elements): the distinct elements in ascending order, with or without
// their counts, and the once-flags; docs/dpp.md ("Duplicate search: the partitioned engine") gives the
// design and its bytes, duplicates_partitioned_cuda.cu the code. The host one (every element type, order
// and output): partitions sized for a core's caches, each counted by one thread in a hash table
// (duplicates_partitioned_host.cpp).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/dpp/duplicates.hpp>
#include <warpdex/dpp/element.hpp>
#include <warpdex/dpp/group_by.hpp>

#include <cstdint>
#include <span>
#include <type_traits>

namespace warpdex::dpp::detail {

/// Whether the partitioned engine is built for this element type and backend.
template <class Element, class Backend>
inline constexpr bool has_partitioned_engine = false;

#if WARPDEX_HAS_CUDA
template <>
inline constexpr bool has_partitioned_engine<std::uint32_t, cuda> = true;
#endif

/// The once-bitmap of `elements` (bit i of word i / 32 set when elements[i] occurs exactly once) by the
/// host's partitioned engine.
template <class Element>
buffer<std::uint32_t> host_partitioned_once_bitmap(const host& backend, std::span<const Element> elements);

/// The distinct elements of `elements` in `order`, with their counts and first positions where asked
/// (else those buffers are empty), by the host's partitioned engine.
template <class Element>
element_counts<Element> host_partitioned_counts(const host& backend, std::span<const Element> elements,
                                                element_order order, bool with_counts, bool with_first_positions);

/// Each distinct key with the reduction of its values and their count, in `order`, by the host's
/// partitioned engine (values moved beside the keys, reduced in input order in each partition's table).
template <class Key, class Value>
key_groups<Key, Value> host_partitioned_group_by(const host& backend, std::span<const Key> keys,
                                                 std::span<const Value> values, group_reduction reduction,
                                                 element_order order);

/// The distinct elements (ascending) and, when asked, their counts (else `counts` is empty).
struct partitioned_distinct_result {
  buffer<std::uint32_t> elements;
  buffer<std::uint64_t> counts;
};

/// The distinct elements of `elements` in ascending order (and their counts with `with_counts`), by the
/// partitioned engine. Synchronizes the backend's stream. Elements lie in device memory; n < 2^32.
#if WARPDEX_HAS_CUDA
partitioned_distinct_result partitioned_distinct(const cuda& backend, std::span<const std::uint32_t> elements,
                                                 bool with_counts);
/// The once-bitmap of `elements` (bit i of word i / 32 set when elements[i] occurs exactly once) by the
/// partitioned engine: the elements scattered into their buckets with their positions beside them, then
/// one block a bucket marks the values seen and seen twice in shared memory and sets the singletons' bits
/// at their positions. Synchronizes the backend's stream.
buffer<std::uint32_t> partitioned_once_bitmap(const cuda& backend, std::span<const std::uint32_t> elements);
#else
// Declared without CUDA too, so that the callers' `if constexpr (has_partitioned_engine<...>)` branches
// compile; never defined or called there (the engine is false for every backend).
template <class Backend>
partitioned_distinct_result partitioned_distinct(const Backend& backend, std::span<const std::uint32_t> elements,
                                                 bool with_counts);
template <class Backend>
buffer<std::uint32_t> partitioned_once_bitmap(const Backend& backend, std::span<const std::uint32_t> elements);
#endif

}  // namespace warpdex::dpp::detail
