#pragma once
// Duplicate search (include/warpdex/dpp/duplicates.hpp), written once against Thrust execution policies.
// The duplicates_*.cu / .cpp files include this and instantiate it for their backend and element types;
// the host ones select Thrust's OpenMP system, so they need no CUDA header.

#include "../core/radix_sort_backend.hpp"
#include <warpdex/core/detail/thrust_backend.hpp>
#include "dpp_common.hpp"
#include "duplicates_partitioned.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/dpp/detail/relaxed_atomic.hpp>
#include <warpdex/dpp/duplicates.hpp>

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>

namespace warpdex::dpp::detail {

using warpdex::detail::policy;
using warpdex::detail::policy_nosync;
using position_type = std::uint32_t;

inline void check_element_count(const char* operation, std::uint64_t n)
{
  WARPDEX_EXPECTS(n <= max_duplicate_search_elements, std::string("dpp::") + operation + ": " + std::to_string(n) +
                                                          " elements exceed the limit of " +
                                                          std::to_string(max_duplicate_search_elements));
}

/// The FNV-1a offset basis of fight round r: the reference basis first, then one drawn from r, so that
/// elements built to collide under the reference hash do not collide again.
WARPDEX_HOST_DEVICE constexpr std::uint32_t round_basis(std::uint32_t round)
{
  return round == 0 ? fnv1a_32_offset_basis : fnv1a_32_offset_basis ^ fmix32(round * 0x9e3779b9U);
}

// ---- sort method ----
//
// Bytes each sort-method output moves per 4-byte element (u32, n elements, u of them distinct), next to
// the benchmark's baseline, CUB's SortKeys + RunLengthEncode::Encode: a onesweep radix sort reads the
// keys once for its histograms and reads and writes them in each of 4 passes (36 bytes), the encode reads
// them and writes the distinct ones with their counts (4 + 8u): about 40 + 8u.
//  - unique (ascending): the same sort from the input into a new array (no copy first), a count of the
//    runs (4), the unique copy (4 + 4u): about 44 + 4u.
//  - counts without first positions: the same sort, the run count, reduce-by-key (4 + 12u, 64-bit
//    counts): about 44 + 12u.
//  - counts with first positions, once-flags, once-elements: a stable radix sort of (element, position)
//    pairs from the input (positions written first, 4; histograms 4; 4 passes of 16: 72), then one pass
//    over the sorted pairs (8). The once-flags set one bit per singleton in a bitmap of n / 8 bytes (32 MiB
//    at 2^28: it stays in the L2 cache, so the scattered bit sets cost no DRAM sectors, where the byte
//    scatter they replace touched a random 32-byte sector per element); the once-elements then count the
//    bits (1/8) and copy the input with the bitmap as stencil (4 + 4s for s singletons): about 84 + 4s.
//    Counts with first positions reduce the sorted pairs instead (8 + 20u): about 84 + 20u.
//    The pair sort is twice the key sort: this output keeps input positions, which the baseline's does not.

/// Elements sorted (stably) with their input positions beside them.
template <class Element>
struct sorted_elements {
  buffer<Element> elements;
  buffer<position_type> positions;
};

template <class Element, class Backend>
sorted_elements<Element> sort_with_positions(const Backend& backend, std::span<const Element> elements)
{
  const std::uint64_t n = elements.size();
  sorted_elements<Element> sorted{make_buffer<Element>(backend, n), make_buffer<position_type>(backend, n)};
  if constexpr (std::is_integral_v<Element>) {
    // A radix sort of the pairs from the input (CUB's on cuda), positions made beside it.
    auto positions = make_buffer<position_type>(backend, n);
    thrust::sequence(policy_nosync(backend), positions.data(), positions.data() + n, position_type{0});
    warpdex::detail::stable_sort_pairs(backend, elements.data(), positions.data(), sorted.elements.data(),
                                       sorted.positions.data(), n);
  } else {
    thrust::copy(policy_nosync(backend), elements.data(), elements.data() + n, sorted.elements.data());
    thrust::sequence(policy_nosync(backend), sorted.positions.data(), sorted.positions.data() + n, position_type{0});
    thrust::stable_sort_by_key(policy_nosync(backend), sorted.elements.data(), sorted.elements.data() + n,
                               sorted.positions.data());
  }
  return sorted;
}

/// The elements sorted into a new array (keys only; no positions).
template <class Element, class Backend>
buffer<Element> sorted_copy(const Backend& backend, std::span<const Element> elements)
{
  const std::uint64_t n = elements.size();
  auto sorted = make_buffer<Element>(backend, n);
  if constexpr (std::is_integral_v<Element>) {
    warpdex::detail::sort_keys(backend, elements.data(), sorted.data(), n);
  } else {
    thrust::copy(policy_nosync(backend), elements.data(), elements.data() + n, sorted.data());
    thrust::sort(policy_nosync(backend), sorted.data(), sorted.data() + n);
  }
  return sorted;
}

/// Sorted position j starts a run of equal elements.
template <class Element>
struct starts_run {
  const Element* sorted;
  WARPDEX_HOST_DEVICE bool operator()(std::uint64_t j) const { return j == 0 || sorted[j] != sorted[j - 1]; }
};

/// 32-bit words of a bitmap of `n` bits.
inline std::uint64_t bitmap_words(std::uint64_t n)
{
  return (n + 31) / 32;
}

/// Sets bit positions[j] of the once-bitmap when sorted element j is alone in its run. Singletons of one
/// word race to set their bits: atomic ors, so every bit is set whatever the order.
template <class Element>
struct mark_alone {
  const Element* sorted;
  const position_type* positions;
  std::uint64_t n;
  std::uint32_t* bitmap;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t j) const
  {
    const bool alone = (j == 0 || sorted[j] != sorted[j - 1]) && (j + 1 == n || sorted[j + 1] != sorted[j]);
    if (alone) {
      const position_type position = positions[j];
      relaxed_fetch_or(bitmap + position / 32, std::uint32_t{1} << (position % 32));
    }
  }
};

/// Bit p of a bitmap, as a flag.
struct bit_of {
  const std::uint32_t* bitmap;
  WARPDEX_HOST_DEVICE std::uint8_t operator()(std::uint64_t p) const
  {
    return static_cast<std::uint8_t>((bitmap[p / 32] >> (p % 32)) & 1U);
  }
};

/// Set bits of a bitmap word.
struct bits_set {
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint32_t word) const
  {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint64_t>(__popc(word));
#else
    return static_cast<std::uint64_t>(std::popcount(word));
#endif
  }
};

/// The once-bitmap of `elements` by sorting: bit i set when elements[i] occurs exactly once.
template <class Element, class Backend>
buffer<std::uint32_t> sorted_once_bitmap(const Backend& backend, std::span<const Element> elements)
{
  const std::uint64_t n = elements.size();
  auto bitmap = make_buffer<std::uint32_t>(backend, bitmap_words(n));
  thrust::fill(policy_nosync(backend), bitmap.data(), bitmap.data() + bitmap.size(), std::uint32_t{0});
  if (n == 0) { return bitmap; }
  const auto sorted = sort_with_positions(backend, elements);
  thrust::for_each(policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                   thrust::counting_iterator<std::uint64_t>(n),
                   mark_alone<Element>{sorted.elements.data(), sorted.positions.data(), n, bitmap.data()});
  return bitmap;
}

/// The once-bitmap by the partitioned engine where `method` (sort or partitioned, resolved for the
/// once-flags) asks for it and it exists, else by sorting: the same bits either way.
template <class Element, class Backend>
buffer<std::uint32_t> once_bitmap(const Backend& backend, std::span<const Element> elements, duplicate_method method)
{
  if (resolve_once_method<Element, Backend>(method, elements.size()) == duplicate_method::partitioned) {
    if constexpr (std::is_same_v<Backend, host>) {
      return host_partitioned_once_bitmap(backend, elements);
    } else if constexpr (has_partitioned_engine<Element, Backend>) {
      return partitioned_once_bitmap(backend, elements);
    }
  }
  return sorted_once_bitmap(backend, elements);
}

/// The once-flags of `elements` by sorting.
template <class Element, class Backend>
void sorted_once(const Backend& backend, std::span<const Element> elements, std::uint8_t* once)
{
  const std::uint64_t n = elements.size();
  if (n == 0) { return; }
  const auto bitmap = sorted_once_bitmap(backend, elements);
  thrust::transform(policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                    thrust::counting_iterator<std::uint64_t>(n), once, bit_of{bitmap.data()});
}

// ---- hash fighting ----

/// The slot of an element in a table of `slots` slots in one round.
template <class Element>
WARPDEX_HOST_DEVICE std::uint32_t fight_slot(const Element& element, std::uint32_t basis, std::uint32_t slots)
{
  return element_fnv1a(element, basis) % slots;
}

/// Fight: every active element stores its position into its slot; racing stores, one survives.
template <class Element>
struct fight_for_slot {
  const Element* elements;
  position_type* table;
  std::uint32_t basis;
  std::uint32_t slots;
  WARPDEX_HOST_DEVICE void operator()(position_type position) const
  {
    relaxed_store(table + fight_slot(elements[position], basis, slots), position);
  }
};

/// Check: reads the slot's winner. Equal to the winner: both are duplicates (flags cleared; concurrent
/// clears of the winner's flag store one value) and the element is done, as is the winner itself. A
/// different element won (a collision): the element stays active (collided[k] = 1).
template <class Element>
struct check_winner {
  const Element* elements;
  const position_type* actives;
  position_type* table;
  std::uint32_t basis;
  std::uint32_t slots;
  std::uint8_t* once;
  std::uint8_t* collided;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t k) const
  {
    const position_type position = actives[k];
    const Element element = elements[position];
    const position_type winner = relaxed_load(table + fight_slot(element, basis, slots));
    bool stays = false;
    if (winner != position) {
      if (elements[winner] == element) {
        relaxed_store(once + position, std::uint8_t{0});
        // Read first: the many copies of a frequent element would otherwise all store into one word.
        if (relaxed_load(once + winner) != 0) { relaxed_store(once + winner, std::uint8_t{0}); }
      } else {
        stays = true;
      }
    }
    collided[k] = stays ? 1 : 0;
  }
};

template <class Element, class Backend>
duplicate_search_stats fought_once(const Backend& backend, std::span<const Element> elements, std::uint8_t* once,
                                   std::uint32_t max_rounds)
{
  const std::uint64_t n = elements.size();
  duplicate_search_stats stats;
  if (n == 0) { return stats; }
  const auto table_slots = [](std::uint64_t active) {
    return static_cast<std::uint32_t>(
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(hash_fight_table_factor * active))));
  };
  auto actives = make_buffer<position_type>(backend, n);
  auto survivors = make_buffer<position_type>(backend, n);
  auto collided = make_buffer<std::uint8_t>(backend, n);
  auto table = make_buffer<position_type>(backend, table_slots(n));
  // Relaxed atomic stores: the fight's check clears flags with them, so every write to `once` is one.
  thrust::fill(policy_nosync(backend), once, once + n, std::uint8_t{1});
  thrust::sequence(policy_nosync(backend), actives.data(), actives.data() + n, position_type{0});
  std::uint64_t active = n;
  while (active > 0 && stats.rounds < max_rounds) {
    const std::uint32_t basis = round_basis(stats.rounds);
    const std::uint32_t slots = table_slots(active);
    // Two algorithm calls: every store of the fight is visible to the check.
    thrust::for_each(policy_nosync(backend), actives.data(), actives.data() + active,
                     fight_for_slot<Element>{elements.data(), table.data(), basis, slots});
    thrust::for_each(
        policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
        thrust::counting_iterator<std::uint64_t>(active),
        check_winner<Element>{elements.data(), actives.data(), table.data(), basis, slots, once, collided.data()});
    const auto end = thrust::copy_if(policy(backend), actives.data(), actives.data() + active, collided.data(),
                                     survivors.data(), is_set{});
    active = static_cast<std::uint64_t>(end - survivors.data());
    actives.swap(survivors);
    ++stats.rounds;
  }
  if (active > 0) {
    // Every copy of a remaining element is still active (copies leave together), so sorting the
    // remainder alone decides their flags.
    stats.sorted_remainder = active;
    auto remainder = make_buffer<Element>(backend, active);
    thrust::gather(policy_nosync(backend), actives.data(), actives.data() + active, elements.data(), remainder.data());
    sorted_once(backend, std::span<const Element>(remainder.data(), active), collided.data());
    thrust::scatter(policy_nosync(backend), collided.data(), collided.data() + active, actives.data(), once);
  }
  backend.synchronize();
  return stats;
}

// ---- counts ----

/// (count, first position) of a run: counts add, the first position is the smaller.
struct combine_runs {
  WARPDEX_HOST_DEVICE thrust::tuple<std::uint64_t, std::uint64_t> operator()(
      const thrust::tuple<std::uint64_t, std::uint64_t>& a, const thrust::tuple<std::uint64_t, std::uint64_t>& b) const
  {
    const std::uint64_t first_a = thrust::get<1>(a);
    const std::uint64_t first_b = thrust::get<1>(b);
    return thrust::make_tuple(thrust::get<0>(a) + thrust::get<0>(b), first_a < first_b ? first_a : first_b);
  }
};

struct widen_position {
  WARPDEX_HOST_DEVICE std::uint64_t operator()(position_type position) const { return position; }
};

template <class Element, class Backend>
std::uint64_t count_runs(const Backend& backend, const Element* sorted, std::uint64_t n)
{
  return static_cast<std::uint64_t>(thrust::count_if(policy(backend), thrust::counting_iterator<std::uint64_t>(0),
                                                     thrust::counting_iterator<std::uint64_t>(n),
                                                     starts_run<Element>{sorted}));
}

}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {

template <class Element, class Backend>
duplicate_search_stats find_once(const Backend& backend, std::span<const Element> elements,
                                 std::span<std::uint8_t> once, duplicate_method method, std::uint32_t max_rounds)
{
  detail::check_element_count("find_once", elements.size());
  WARPDEX_EXPECTS(once.size() == elements.size(), "dpp::find_once: " + std::to_string(elements.size()) +
                                                      " elements but " + std::to_string(once.size()) + " once-flags");
  return detail::reporting_allocation_failure("find_once", [&] {
    if (resolve_once_method<Element, Backend>(method, elements.size()) == duplicate_method::hash_fight) {
      return detail::fought_once(backend, elements, once.data(), max_rounds);
    }
    const std::uint64_t n = elements.size();
    if (n == 0) { return duplicate_search_stats{}; }
    const auto bitmap = detail::once_bitmap(backend, elements, method);
    thrust::transform(detail::policy_nosync(backend), thrust::counting_iterator<std::uint64_t>(0),
                      thrust::counting_iterator<std::uint64_t>(n), once.data(), detail::bit_of{bitmap.data()});
    backend.synchronize();
    return duplicate_search_stats{};
  });
}

template <class Element, class Backend>
buffer<Element> elements_occurring_once(const Backend& backend, std::span<const Element> elements,
                                        duplicate_method method)
{
  detail::check_element_count("elements_occurring_once", elements.size());
  return detail::reporting_allocation_failure("elements_occurring_once", [&] {
    const std::uint64_t n = elements.size();
    if (resolve_once_method<Element, Backend>(method, n) != duplicate_method::hash_fight) {
      // The once-bitmap as stencil: no byte per element is written or read back.
      const auto bitmap = detail::once_bitmap(backend, elements, method);
      const auto kept = thrust::transform_reduce(detail::policy(backend), bitmap.data(), bitmap.data() + bitmap.size(),
                                                 detail::bits_set{}, std::uint64_t{0}, thrust::plus<std::uint64_t>());
      auto result = make_buffer<Element>(backend, kept);
      const auto flags =
          thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0), detail::bit_of{bitmap.data()});
      thrust::copy_if(detail::policy(backend), elements.data(), elements.data() + n, flags, result.data(),
                      detail::is_set{});
      backend.synchronize();
      return result;
    }
    auto once = make_buffer<std::uint8_t>(backend, n);
    find_once(backend, elements, once.span(), method, hash_fight_max_rounds);
    const auto kept = static_cast<std::uint64_t>(
        thrust::count(detail::policy(backend), once.data(), once.data() + n, std::uint8_t{1}));
    auto result = make_buffer<Element>(backend, kept);
    thrust::copy_if(detail::policy(backend), elements.data(), elements.data() + n, once.data(), result.data(),
                    detail::is_set{});
    backend.synchronize();
    return result;
  });
}

template <class Element, class Backend>
element_counts<Element> count_elements(const Backend& backend, std::span<const Element> elements, element_order order,
                                       count_outputs outputs, duplicate_method method)
{
  detail::check_element_count("count_elements", elements.size());
  return detail::reporting_allocation_failure("count_elements", [&] {
    const std::uint64_t n = elements.size();
    if (n == 0) {
      return element_counts<Element>{make_buffer<Element>(backend, 0), make_buffer<std::uint64_t>(backend, 0),
                                     make_buffer<std::uint64_t>(backend, 0)};
    }
    if (resolve_distinct_method<Element, Backend>(method, n, true, order, outputs) == duplicate_method::partitioned) {
      if constexpr (std::is_same_v<Backend, host>) {
        // First positions as the sort method gives them: asked for, or with the order of first occurrence.
        return detail::host_partitioned_counts(
            backend, elements, order, true,
            outputs == count_outputs::with_first_positions || order == element_order::first_occurrence);
      } else if constexpr (detail::has_partitioned_engine<Element, Backend>) {
        auto distinct = detail::partitioned_distinct(backend, elements, true);
        return element_counts<Element>{std::move(distinct.elements), std::move(distinct.counts),
                                       make_buffer<std::uint64_t>(backend, 0)};
      }
    }
    if (outputs == count_outputs::counts_only && order == element_order::ascending) {
      // No positions: the elements alone are sorted, as the baseline's run-length encode sorts them.
      const auto sorted = detail::sorted_copy(backend, elements);
      const std::uint64_t runs = detail::count_runs(backend, sorted.data(), n);
      element_counts<Element> result{make_buffer<Element>(backend, runs), make_buffer<std::uint64_t>(backend, runs),
                                     make_buffer<std::uint64_t>(backend, 0)};
      thrust::reduce_by_key(detail::policy_nosync(backend), sorted.data(), sorted.data() + n,
                            thrust::constant_iterator<std::uint64_t>(1), result.elements.data(), result.counts.data());
      backend.synchronize();
      return result;
    }
    const auto sorted = detail::sort_with_positions(backend, elements);
    const std::uint64_t runs = detail::count_runs(backend, sorted.elements.data(), n);
    element_counts<Element> result{make_buffer<Element>(backend, runs), make_buffer<std::uint64_t>(backend, runs),
                                   make_buffer<std::uint64_t>(backend, runs)};
    const auto values = thrust::make_zip_iterator(
        thrust::make_tuple(thrust::constant_iterator<std::uint64_t>(1),
                           thrust::make_transform_iterator(sorted.positions.data(), detail::widen_position{})));
    thrust::reduce_by_key(
        detail::policy_nosync(backend), sorted.elements.data(), sorted.elements.data() + n, values,
        result.elements.data(),
        thrust::make_zip_iterator(thrust::make_tuple(result.counts.data(), result.first_positions.data())),
        thrust::equal_to<Element>(), detail::combine_runs{});
    if (order == element_order::first_occurrence) {
      thrust::sort_by_key(detail::policy_nosync(backend), result.first_positions.data(),
                          result.first_positions.data() + runs,
                          thrust::make_zip_iterator(thrust::make_tuple(result.elements.data(), result.counts.data())));
    }
    backend.synchronize();
    return result;
  });
}

template <class Element, class Backend>
buffer<Element> unique_elements(const Backend& backend, std::span<const Element> elements, element_order order,
                                duplicate_method method)
{
  detail::check_element_count("unique_elements", elements.size());
  return detail::reporting_allocation_failure("unique_elements", [&] {
    const std::uint64_t n = elements.size();
    if (resolve_distinct_method<Element, Backend>(method, n, false, order) == duplicate_method::partitioned) {
      if constexpr (std::is_same_v<Backend, host>) {
        return detail::host_partitioned_counts(backend, elements, order, false, false).elements;
      } else if constexpr (detail::has_partitioned_engine<Element, Backend>) {
        return detail::partitioned_distinct(backend, elements, false).elements;
      }
    }
    if (order == element_order::first_occurrence) {
      return count_elements(backend, elements, order, count_outputs::with_first_positions, duplicate_method::sort)
          .elements;
    }
    const auto sorted = detail::sorted_copy(backend, elements);
    const std::uint64_t runs = detail::count_runs(backend, sorted.data(), n);
    auto result = make_buffer<Element>(backend, runs);
    thrust::unique_copy(detail::policy_nosync(backend), sorted.data(), sorted.data() + n, result.data());
    backend.synchronize();
    return result;
  });
}

}  // namespace warpdex::dpp

/// Instantiates the duplicate search for one element type on one backend.
#define WARPDEX_INSTANTIATE_DUPLICATES(Element, Backend)                                                              \
  template duplicate_search_stats find_once<Element, Backend>(                                                        \
      const Backend&, std::span<const Element>, std::span<std::uint8_t>, duplicate_method, std::uint32_t);            \
  template buffer<Element> elements_occurring_once<Element, Backend>(const Backend&, std::span<const Element>,        \
                                                                     duplicate_method);                               \
  template element_counts<Element> count_elements<Element, Backend>(const Backend&, std::span<const Element>,         \
                                                                    element_order, count_outputs, duplicate_method);  \
  template buffer<Element> unique_elements<Element, Backend>(const Backend&, std::span<const Element>, element_order, \
                                                             duplicate_method);
