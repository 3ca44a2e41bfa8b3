#pragma once
/// @file Grouping with values (a group-by): each distinct key with the sum, minimum or maximum of its
/// values and their count, on either backend with the same results (docs/dpp.md, "Group-by"). Built only
/// with the CCCL headers, as the duplicate search.
///
/// Keys: std::uint32_t, std::uint64_t. Values: std::int64_t, std::uint64_t (integers, so that a sum is
/// the same in every order of addition: sums wrap around modulo 2^64, two's complement for signed
/// values). Every span lies in the backend's memory (device memory for `cuda`). Up to 2^32 - 2 pairs.
///
/// **Sort method** (both backends): in ascending order the (key, value) pairs sorted by key (CUB's radix
/// sort on cuda) and one reduction over the runs of equal keys: what a user of CUB writes as SortPairs +
/// ReduceByKey. In order of first occurrence a stable sort of (key, position) pairs, the reduction with
/// the values gathered by position, then the groups sorted by their first positions.
///
/// **Partitioned method** (host backend): the duplicate search's partitioned engine with the values
/// moved beside the keys; each partition's thread reduces a key's values in input order in its table.
/// On the cuda backend `partitioned` runs the sort method.
///
/// Errors: sizes that differ or too many pairs throw `warpdex::error` before anything is written;
/// exhausted memory throws `warpdex::out_of_memory`.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/dpp/duplicates.hpp>

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

namespace warpdex::dpp {

/// How `group_by` combines the values of one key.
enum class group_reduction {
  sum,  ///< their sum (modulo 2^64)
  min,  ///< the smallest
  max,  ///< the largest
};

/// "sum", "min" or "max"; anything else throws `warpdex::error`.
[[nodiscard]] group_reduction parse_group_reduction(std::string_view text);
[[nodiscard]] std::string_view group_reduction_name(group_reduction reduction);

/// The distinct keys with the reduction of each one's values and how many values it had.
template <class Key, class Value>
struct key_groups {
  buffer<Key> keys;
  buffer<Value> values;
  buffer<std::uint64_t> counts;
};

/// The key and value types `group_by` is instantiated for.
template <class Key, class Value>
inline constexpr bool is_group_by_pair_v = (std::is_same_v<Key, std::uint32_t> ||
                                            std::is_same_v<Key, std::uint64_t>)&&(std::is_same_v<Value, std::int64_t> ||
                                                                                  std::is_same_v<Value, std::uint64_t>);

/// The method `group_by` runs for `n` pairs on this backend: the partitioned engine on the host when
/// asked for or for `automatic` (from `host_partitioned_automatic_from`, as for counts), the sort
/// otherwise (on cuda always; hash fighting finds no groups, so asking for it runs the sort).
template <class Backend>
[[nodiscard]] constexpr duplicate_method resolve_group_by_method(duplicate_method method, std::uint64_t n)
{
  // The choice of counts of 64-bit keys: the host's engine, no engine on cuda.
  return resolve_distinct_method<std::uint64_t, Backend>(method, n, true);
}

/// Each distinct key of `keys` with the `reduction` of the values beside it (values[i] belongs to keys[i])
/// and their count, in `order` (ascending keys, or the order of each key's first occurrence). Requires
/// values.size() == keys.size(). Deterministic and equal for both methods and both backends.
template <class Key, class Value, class Backend>
[[nodiscard]] key_groups<Key, Value> group_by(const Backend& backend, std::span<const Key> keys,
                                              std::span<const Value> values, group_reduction reduction,
                                              element_order order = element_order::ascending,
                                              duplicate_method method = duplicate_method::automatic);

}  // namespace warpdex::dpp
