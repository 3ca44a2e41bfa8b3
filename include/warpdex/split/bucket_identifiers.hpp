#pragma once
/// @file Bucket identifiers: the functions that assign each key of a multisplit to one of m buckets.
///
/// An identifier is any copyable object with `bucket_count()` (m, at least 1) and a call operator that
/// maps a key to a bucket id in [0, m). It may hold state (splitters, a divisor) and must be a pure
/// function of the key: the multisplit evaluates it more than once per key. For the cuda backend both
/// members must be `__host__ __device__`. An id outside [0, m) is an error that the multisplit reports
/// before it writes any output.

#include <warpdex/core/config.hpp>

#include <cstdint>
#include <type_traits>

namespace warpdex {

/// Bucket = the `bits`-bit field of the key starting at bit `shift`: (key >> shift) & (2^bits - 1),
/// so m = 2^bits; with `descending`, 2^bits - 1 minus that (buckets in descending field order).
/// Keys are unsigned integers of 32 or 64 bits. Requires bits <= max_bits and shift + bits <= the key's
/// width (32 or 64).
struct bit_field_buckets {
  /// The widest field: m = 2^31 buckets (a full 32-bit field is a sort, see radix_sort).
  static constexpr std::uint32_t max_bits = 31;

  std::uint32_t shift = 0;
  std::uint32_t bits = 0;
  bool descending = false;

  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t bucket_count() const { return std::uint32_t{1} << bits; }
  template <class Key>
  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t operator()(Key key) const
  {
    static_assert(std::is_unsigned_v<Key>, "bit fields are taken from unsigned integer keys");
    const std::uint32_t mask = bucket_count() - 1;
    return (static_cast<std::uint32_t>(key >> shift) & mask) ^ (descending ? mask : 0U);
  }
};

/// Delta buckets: bucket = floor(key / delta), for m buckets, over unsigned 32- or 64-bit keys. Keys at
/// or above m * delta produce ids outside [0, m) and are reported as an error (a 64-bit quotient of
/// 2^32 or more saturates to 2^32 - 1, outside every m). Requires delta >= 1 and m >= 1.
struct delta_buckets {
  std::uint32_t delta = 1;
  std::uint32_t count = 1;  ///< m

  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t bucket_count() const { return count; }
  template <class Key>
  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t operator()(Key key) const
  {
    static_assert(std::is_unsigned_v<Key>, "delta buckets divide unsigned integer keys");
    const Key quotient = key / delta;
    if constexpr (sizeof(Key) > sizeof(std::uint32_t)) {
      constexpr Key widest_id = ~std::uint32_t{0};
      return static_cast<std::uint32_t>(quotient < widest_id ? quotient : widest_id);
    } else {
      return static_cast<std::uint32_t>(quotient);
    }
  }
};

/// Range buckets over m - 1 splitters s_0 < s_1 < ... < s_{m-2}: bucket = the number of splitters <= key,
/// so bucket 0 holds keys below s_0 and bucket m-1 keys at or above s_{m-2}. The splitters live in the
/// memory of the backend that runs the multisplit (device memory for cuda); they must be strictly
/// increasing and not NaN, which the multisplit checks before it writes anything. A NaN key compares
/// false with every splitter and lands in bucket 0.
template <class T>
struct splitter_buckets {
  static_assert(std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t> || std::is_same_v<T, float>,
                "splitters are uint32, uint64 or float");

  const T* splitters = nullptr;  ///< m - 1 strictly increasing values
  std::uint32_t splitter_count = 0;

  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t bucket_count() const { return splitter_count + 1; }
  /// Binary search: the first splitter greater than the key (upper bound).
  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t operator()(T key) const
  {
    std::uint32_t low = 0;
    std::uint32_t high = splitter_count;
    while (low < high) {
      const std::uint32_t middle = (low + high) / 2;
      if (splitters[middle] <= key) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }
};

/// Wraps any functor `key -> bucket id` with its bucket count m, making it an identifier.
template <class Function>
struct custom_buckets {
  Function function;
  std::uint32_t count = 1;  ///< m

  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t bucket_count() const { return count; }
  template <class Key>
  [[nodiscard]] WARPDEX_HOST_DEVICE std::uint32_t operator()(const Key& key) const
  {
    return static_cast<std::uint32_t>(function(key));
  }
};

template <class Function>
custom_buckets<Function> make_custom_buckets(Function function, std::uint32_t bucket_count)
{
  return custom_buckets<Function>{function, bucket_count};
}

}  // namespace warpdex
