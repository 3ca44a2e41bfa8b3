#pragma once
/// @file Duplicate-element search (Lessley, Ch. III): which elements of an array occur exactly once, the
/// elements that do, the distinct elements, and each distinct element with its count, by sorting or by
/// hash fighting, on either backend with the same results. Built only with the CCCL headers (docs/dpp.md).
///
/// Element types: std::uint32_t, std::uint64_t, dpp::uint32x2, uint32x3, uint32x4 (element.hpp). Every
/// span lies in the backend's memory (device memory for `cuda`). Inputs of up to 2^32 - 2 elements.
///
/// **Sort method.** Stable sort of (element, position) → runs of equal elements → counts, first
/// positions and the once-flags (a bitmap of one bit per element, set for the singletons); the distinct
/// elements, and counts without first positions, sort the elements alone. O(n log n) work (radix sort
/// for the integer types, from the input into a new array with no copy first, on the GPU; merge sort for
/// tuples).
///
/// **Hash-fighting method** (once-indicator and once-elements only). Round r hashes every active element
/// (all of them at first) with 32-bit FNV-1a (round 0: the reference offset basis; round r > 0 a basis
/// drawn from r, so elements whose reference hashes were made to collide part ways) into a table of
/// `ceil(hash_fight_table_factor * active)` slots of element positions, and then:
///  1. *Fight* (one algorithm call): every active element stores its position into its slot with a
///     relaxed atomic store. Several elements race for a slot; exactly one store, any one, survives
///     (last writer wins). The race is the method: no element waits, and the stores are atomic only so
///     that the race is defined behaviour in C++ and no position tears.
///  2. *Check* (a later call, so every store of the fight is visible): every active element reads its
///     slot's winner. The winner itself is done. An element equal to the winner's element is a
///     duplicate: it clears its own once-flag and the winner's (several losers may clear the winner's
///     flag at once: relaxed atomic stores of one value, so the outcome is the same whoever writes) and
///     is done. An element unequal to the winner's (a hash collision) stays active.
///  3. The actives shrink to the survivors (order kept), and the table to the new count.
/// Every element equal to a round's winner leaves in that round, so a distinct element's copies leave
/// together and the flags are exact whatever the race's outcome: the once-indicator is deterministic.
/// Each occupied slot retires at least one distinct element per round, so the rounds are at most the
/// largest number of distinct elements sharing a slot (thesis bound); with a fresh basis each round that
/// shrinks geometrically in expectation (about 1/e of the distinct actives collide at a table factor of
/// 1). After `hash_fight_max_rounds` rounds any remaining actives (possible only with input built against
/// the hash) are finished by the sort method, so the worst case is bounded by the sort's.
///
/// **Output order** (deterministic, equal for both methods and both backends): the once-indicator is per
/// input position; the once-elements are in input order; distinct elements and counts are in ascending
/// element order (`element_order::ascending`) or in the order of each element's first occurrence
/// (`element_order::first_occurrence`).
///
/// Errors: a size mismatch or too many elements throws `warpdex::error` before anything is written;
/// exhausted memory throws `warpdex::out_of_memory` (outputs may then be partly written).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/dpp/element.hpp>

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

namespace warpdex::dpp {

/// How the duplicate search finds equal elements.
enum class duplicate_method {
  automatic,   ///< the method the benchmarks found faster for the element type (see `resolve_method`)
  sort,        ///< stable sort by element, then runs of equal elements
  hash_fight,  ///< hash fighting (once-indicator and once-elements; the others sort)
  /// the partitioned engine: on the cuda backend for ascending distinct elements, counts-only,
  /// once-indicator and once-elements of std::uint32_t (a scatter into 2^14 buckets by the top bits, with
  /// the positions beside the elements for the once-outputs, then shared-memory bitmaps a bucket; every
  /// other call and type there sorts); on the host backend for every call and type (ranges of the leading
  /// bits sized for a core's caches, each counted by one thread in a hash table)
  partitioned,
};

/// "auto", "sort", "hash" (also "hash_fight") or "partitioned"; anything else throws `warpdex::error`.
[[nodiscard]] duplicate_method parse_duplicate_method(std::string_view text);
[[nodiscard]] std::string_view duplicate_method_name(duplicate_method method);

/// The method `automatic` stands for with this element type: sort for 32- and 64-bit integers (one
/// radix sort beats the random scatters of fighting on GPUs), hash fighting for tuples (which sort by
/// comparison).
template <class Element>
[[nodiscard]] constexpr duplicate_method resolve_method(duplicate_method method)
{
  if (method != duplicate_method::automatic) { return method; }
  return std::is_integral_v<Element> ? duplicate_method::sort : duplicate_method::hash_fight;
}

/// Hash fighting's table slots per active element: 1 (the thesis's choice); the slot array is 4 bytes
/// an active element, so larger tables cost more traffic than the fewer collisions save.
inline constexpr double hash_fight_table_factor = 1.0;
/// Rounds of hash fighting before the remaining actives are handed to the sort method.
inline constexpr std::uint32_t hash_fight_max_rounds = 32;
/// The fewest elements for which `automatic` runs the partitioned engine for unique elements and counts
/// only (where it exists): on an H200 (6509e72, the host out of the engine's path) it measured 1.47x to
/// 1.54x the sort at 2^26 for unique elements and 1.32x to 1.36x for counts (all distinct, half
/// repeated), more at 2^28, and lost to it below: unique 0.89x to 1.03x at 2^24 (all distinct, half and
/// 99% repeated, Zipf), counts 0.74x to 0.91x, less at 2^22 (its fixed cost: 2^14 blocks a kernel over the
/// buckets' bitmaps; docs/dpp.md). 2^25 is not measured.
inline constexpr std::uint64_t partitioned_automatic_from = std::uint64_t{1} << 26;
/// The fewest elements for which `automatic` runs the partitioned engine for the once-indicator and the
/// once-elements (where it exists; see `resolve_once_method`): on an H200 (6509e72) it measured 1.19x to
/// 1.38x the sort at 2^24 on all-distinct, half and 99% repeated inputs and 1.00x on Zipf-repeated keys
/// (0.748 against 0.747 ms), 1.43x to 1.79x at 2^26 and 1.58x to 1.64x at 2^28; at 2^22 0.87x to 0.99x
/// (docs/dpp.md). 2^23 is not measured.
inline constexpr std::uint64_t partitioned_once_automatic_from = std::uint64_t{1} << 24;
/// The fewest elements for which `automatic` runs the host backend's partitioned engine for unique
/// elements and counts: every size. On 2 cores (half repeated, first-occurrence order) it measured
/// 1.7-7.6x the sort from 2^14 to 2^22 elements for 32- and 64-bit integers and triples, and 3-4x at
/// 2^10 (0.05 against 0.17-0.22 ms) (docs/dpp.md).
inline constexpr std::uint64_t host_partitioned_automatic_from = 0;
/// The fewest elements for which `automatic` runs the host's engine for the once-indicator and
/// once-elements: at 2^20 and 2^22 it measured 1.2-3.1x the faster of the sort and hash fighting, at 2^18
/// 0.89-2.4x (uint64 lost to the sort in one of two runs), and at 2^14 0.78-1.41x (docs/dpp.md).
inline constexpr std::uint64_t host_partitioned_once_automatic_from = std::uint64_t{1} << 18;
/// The most elements one call accepts: positions are 32-bit, and one value is kept free.
inline constexpr std::uint64_t max_duplicate_search_elements = 0xfffffffeULL;

/// The order of distinct elements in `unique_elements` and `count_elements`.
enum class element_order {
  ascending,         ///< ascending element order (tuples lexicographically)
  first_occurrence,  ///< the order of each element's first position in the input
};

/// What `count_elements` computes besides the distinct elements and their counts.
enum class count_outputs {
  with_first_positions,  ///< each distinct element's first position too (a sort of (element, position) pairs)
  counts_only,  ///< no first positions (`first_positions` is empty): a sort of the elements alone, half the bytes;
                ///< `element_order::first_occurrence` needs the positions and computes them regardless
};

/// Distinct elements with the number of times each occurs and the position of its first occurrence.
template <class Element>
struct element_counts {
  buffer<Element> elements;
  buffer<std::uint64_t> counts;
  buffer<std::uint64_t> first_positions;
};

/// What a hash-fighting run did (zero rounds for the sort method).
struct duplicate_search_stats {
  std::uint32_t rounds = 0;            ///< fight rounds run
  std::uint64_t sorted_remainder = 0;  ///< actives handed to the sort method after the last round
};

/// once[i] = 1 when elements[i] occurs exactly once in `elements`, else 0. Requires
/// once.size() == elements.size(). Deterministic (see the file comment). `max_rounds` bounds hash
/// fighting's rounds before the sort method finishes the rest (tests lower it to reach that path).
template <class Element, class Backend>
duplicate_search_stats find_once(const Backend& backend, std::span<const Element> elements,
                                 std::span<std::uint8_t> once, duplicate_method method = duplicate_method::automatic,
                                 std::uint32_t max_rounds = hash_fight_max_rounds);

/// The elements that occur exactly once, in input order ("remove all duplicates").
template <class Element, class Backend>
[[nodiscard]] buffer<Element> elements_occurring_once(const Backend& backend, std::span<const Element> elements,
                                                      duplicate_method method = duplicate_method::automatic);

/// The method `unique_elements` (`counts` false) and `count_elements` (`counts` true, with `outputs`) run
/// for `n` elements of this type on this backend in `order`: `partitioned` where an engine serves the call
/// (the host's: every type, order and output; the cuda one: std::uint32_t, ascending order, no first
/// positions) and was asked for, or for `automatic` from `host_partitioned_automatic_from` elements on the
/// host and `partitioned_automatic_from` on cuda, where it measured faster than the sort for unique
/// elements and for counts alike (docs/dpp.md: `counts` no longer changes the cuda choice; the engine's
/// counts lost to the sort on all-distinct input before its scatter ranked warp by warp); the sort
/// otherwise (hash fighting finds no distinct elements).
template <class Element, class Backend>
[[nodiscard]] constexpr duplicate_method resolve_distinct_method(duplicate_method method, std::uint64_t n, bool counts,
                                                                 element_order order = element_order::ascending,
                                                                 count_outputs outputs = count_outputs::counts_only)
{
  constexpr bool on_host = std::is_same_v<Backend, host>;
  const bool engine = on_host || (std::is_same_v<Element, std::uint32_t> && order == element_order::ascending &&
                                  (!counts || outputs == count_outputs::counts_only));
  if (!engine) { return duplicate_method::sort; }
  if (method == duplicate_method::partitioned) { return method; }
  if (method == duplicate_method::automatic &&
      n >= (on_host ? host_partitioned_automatic_from : partitioned_automatic_from)) {
    return duplicate_method::partitioned;
  }
  return duplicate_method::sort;
}

/// The method `find_once` and `elements_occurring_once` run for `n` elements of this type on this backend:
/// `partitioned` when asked for where the engine exists (every type on the host, std::uint32_t on cuda;
/// the sort elsewhere), or for `automatic` from `host_partitioned_once_automatic_from` elements on the
/// host and `partitioned_once_automatic_from` on cuda where the engine exists; otherwise
/// `resolve_method`'s choice.
template <class Element, class Backend>
[[nodiscard]] constexpr duplicate_method resolve_once_method(duplicate_method method, std::uint64_t n)
{
  constexpr bool on_host = std::is_same_v<Backend, host>;
  constexpr bool engine = on_host || std::is_same_v<Element, std::uint32_t>;
  if (method == duplicate_method::automatic && engine &&
      n >= (on_host ? host_partitioned_once_automatic_from : partitioned_once_automatic_from)) {
    return duplicate_method::partitioned;
  }
  if (method == duplicate_method::partitioned && !engine) { return duplicate_method::sort; }
  return resolve_method<Element>(method);
}

/// The distinct elements (one of each), in `order`. Sort method, or the partitioned engine (see
/// `resolve_distinct_method`); the same result either way.
template <class Element, class Backend>
[[nodiscard]] buffer<Element> unique_elements(const Backend& backend, std::span<const Element> elements,
                                              element_order order = element_order::ascending,
                                              duplicate_method method = duplicate_method::automatic);

/// The distinct elements with their counts and (unless `outputs` is `counts_only` with ascending order)
/// first positions, in `order`. Sort method, or the partitioned engine (see `resolve_distinct_method`);
/// the same result either way.
template <class Element, class Backend>
[[nodiscard]] element_counts<Element> count_elements(const Backend& backend, std::span<const Element> elements,
                                                     element_order order = element_order::ascending,
                                                     count_outputs outputs = count_outputs::with_first_positions,
                                                     duplicate_method method = duplicate_method::automatic);

}  // namespace warpdex::dpp
