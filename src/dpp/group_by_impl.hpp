#pragma once
// group_by (include/warpdex/dpp/group_by.hpp): the sort method written once against Thrust execution
// policies, and the dispatch to the host's partitioned engine. group_by_host.cpp and group_by_cuda.cu
// include this and instantiate it for their backend.

#include "duplicates_impl.hpp"
#include "group_by_reduce.hpp"

#include <warpdex/dpp/group_by.hpp>

#include <thrust/iterator/permutation_iterator.h>

namespace warpdex::dpp::detail {

/// (count, first position, value) of two runs of one key combined: counts add, the first position is the
/// smaller, the values reduce.
template <class Value, group_reduction Reduction>
struct combine_groups {
  using run = thrust::tuple<std::uint64_t, std::uint64_t, Value>;
  WARPDEX_HOST_DEVICE run operator()(const run& a, const run& b) const
  {
    const std::uint64_t first_a = thrust::get<1>(a);
    const std::uint64_t first_b = thrust::get<1>(b);
    return run(thrust::get<0>(a) + thrust::get<0>(b), first_a < first_b ? first_a : first_b,
               reduce_values<Value, Reduction>{}(thrust::get<2>(a), thrust::get<2>(b)));
  }
};

/// (count, value) of two runs of one key combined, in ascending order where no position is kept.
template <class Value, group_reduction Reduction>
struct combine_counted {
  using run = thrust::tuple<std::uint64_t, Value>;
  WARPDEX_HOST_DEVICE run operator()(const run& a, const run& b) const
  {
    return run(thrust::get<0>(a) + thrust::get<0>(b),
               reduce_values<Value, Reduction>{}(thrust::get<1>(a), thrust::get<1>(b)));
  }
};

/// The sort method. Ascending order: the (key, value) pairs sorted by key (CUB's radix sort on cuda, what
/// the baseline's SortPairs does) and one reduction over the runs. First-occurrence order: a stable sort
/// of (key, position), one reduction over the runs with the values gathered by position, and a sort of
/// the groups by first position.
template <group_reduction Reduction, class Key, class Value, class Backend>
key_groups<Key, Value> sorted_groups(const Backend& backend, std::span<const Key> keys, std::span<const Value> values,
                                     element_order order)
{
  const std::uint64_t n = keys.size();
  if (n == 0) {
    return key_groups<Key, Value>{make_buffer<Key>(backend, 0), make_buffer<Value>(backend, 0),
                                  make_buffer<std::uint64_t>(backend, 0)};
  }
  if (order == element_order::ascending) {
    auto sorted_keys = make_buffer<Key>(backend, n);
    auto sorted_values = make_buffer<Value>(backend, n);
    warpdex::detail::stable_sort_pairs(backend, keys.data(), values.data(), sorted_keys.data(), sorted_values.data(),
                                       n);
    const std::uint64_t runs = count_runs(backend, sorted_keys.data(), n);
    key_groups<Key, Value> result{make_buffer<Key>(backend, runs), make_buffer<Value>(backend, runs),
                                  make_buffer<std::uint64_t>(backend, runs)};
    thrust::reduce_by_key(policy_nosync(backend), sorted_keys.data(), sorted_keys.data() + n,
                          thrust::make_zip_iterator(
                              thrust::make_tuple(thrust::constant_iterator<std::uint64_t>(1), sorted_values.data())),
                          result.keys.data(),
                          thrust::make_zip_iterator(thrust::make_tuple(result.counts.data(), result.values.data())),
                          thrust::equal_to<Key>(), combine_counted<Value, Reduction>{});
    backend.synchronize();
    return result;
  }
  const auto sorted = sort_with_positions(backend, keys);
  const std::uint64_t runs = count_runs(backend, sorted.elements.data(), n);
  key_groups<Key, Value> result{make_buffer<Key>(backend, runs), make_buffer<Value>(backend, runs),
                                make_buffer<std::uint64_t>(backend, runs)};
  auto firsts = make_buffer<std::uint64_t>(backend, runs);
  const auto in = thrust::make_zip_iterator(
      thrust::make_tuple(thrust::constant_iterator<std::uint64_t>(1),
                         thrust::make_transform_iterator(sorted.positions.data(), widen_position{}),
                         thrust::make_permutation_iterator(values.data(), sorted.positions.data())));
  thrust::reduce_by_key(
      policy_nosync(backend), sorted.elements.data(), sorted.elements.data() + n, in, result.keys.data(),
      thrust::make_zip_iterator(thrust::make_tuple(result.counts.data(), firsts.data(), result.values.data())),
      thrust::equal_to<Key>(), combine_groups<Value, Reduction>{});
  thrust::sort_by_key(
      policy_nosync(backend), firsts.data(), firsts.data() + runs,
      thrust::make_zip_iterator(thrust::make_tuple(result.keys.data(), result.values.data(), result.counts.data())));
  backend.synchronize();
  return result;
}

}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {

template <class Key, class Value, class Backend>
key_groups<Key, Value> group_by(const Backend& backend, std::span<const Key> keys, std::span<const Value> values,
                                group_reduction reduction, element_order order, duplicate_method method)
{
  static_assert(is_group_by_pair_v<Key, Value>,
                "group_by: keys std::uint32_t or std::uint64_t, values "
                "std::int64_t or std::uint64_t");
  detail::check_element_count("group_by", keys.size());
  WARPDEX_EXPECTS(values.size() == keys.size(), "dpp::group_by: " + std::to_string(keys.size()) + " keys but " +
                                                    std::to_string(values.size()) + " values");
  WARPDEX_EXPECTS(
      reduction == group_reduction::sum || reduction == group_reduction::min || reduction == group_reduction::max,
      "dpp::group_by: unknown reduction");
  return detail::reporting_allocation_failure("group_by", [&] {
    if constexpr (std::is_same_v<Backend, host>) {
      if (resolve_group_by_method<Backend>(method, keys.size()) == duplicate_method::partitioned) {
        return detail::host_partitioned_group_by(backend, keys, values, reduction, order);
      }
    }
    switch (reduction) {
      case group_reduction::sum:
        return detail::sorted_groups<group_reduction::sum>(backend, keys, values, order);
      case group_reduction::min:
        return detail::sorted_groups<group_reduction::min>(backend, keys, values, order);
      default:
        return detail::sorted_groups<group_reduction::max>(backend, keys, values, order);
    }
  });
}

}  // namespace warpdex::dpp

/// Instantiates group_by for one key type on one backend (both value types).
#define WARPDEX_INSTANTIATE_GROUP_BY(Key, Backend)                                                          \
  template key_groups<Key, std::int64_t> group_by<Key, std::int64_t, Backend>(                              \
      const Backend&, std::span<const Key>, std::span<const std::int64_t>, group_reduction, element_order,  \
      duplicate_method);                                                                                    \
  template key_groups<Key, std::uint64_t> group_by<Key, std::uint64_t, Backend>(                            \
      const Backend&, std::span<const Key>, std::span<const std::uint64_t>, group_reduction, element_order, \
      duplicate_method);
