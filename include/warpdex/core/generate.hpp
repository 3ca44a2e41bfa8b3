#pragma once
/// @file Data generators for tests, benchmarks and the CLI.
///
/// Every generator is counter-based: element i is a pure function of (i, parameters, seed), so the host
/// and cuda backends produce identical arrays, any size can be generated in parallel, and a run is
/// reproduced from its seed alone. Supported key types: std::uint32_t and std::uint64_t.
///
/// A `key_set` names a set of distinct keys without storing it: key(i) for i in [0, size) are pairwise
/// distinct and lie in [0, max_key]. Queries, duplicates and Zipf draws refer to such a set, which is
/// how "absent" queries are guaranteed absent.

#include <warpdex/core/backend.hpp>

#include <cstdint>
#include <limits>
#include <span>

namespace warpdex {

enum class key_order {
  shuffled,  ///< keys spread pseudo-randomly over [0, max_key] (a keyed permutation of the key space)
  /// strictly increasing keys: key i lies at a random place in [i * stride, (i + 1) * stride) with
  /// stride = floor((max_key + 1) / size), so the keys fill [0, stride * size) evenly
  sorted,
};

template <class Key>
struct key_set {
  std::uint64_t size = 0;  ///< how many distinct keys the set holds
  std::uint64_t seed = 0;
  key_order order = key_order::shuffled;
  Key max_key = std::numeric_limits<Key>::max();  ///< keys lie in [0, max_key] (exclude reserved values)
};

/// out[i] = set.key(i) for every i; requires out.size() == set.size <= max_key + 1.
template <class Backend, class Key>
void generate_keys(const Backend& backend, const key_set<Key>& set, std::span<Key> out);

/// out.size() keys of which exactly out.size() - floor(duplicate_fraction * out.size()) are distinct
/// (at least one when out is not empty); the repeats are spread over positions at random.
/// duplicate_fraction in [0, 1].
template <class Backend, class Key>
void generate_keys_with_duplicates(const Backend& backend, std::span<Key> out, double duplicate_fraction,
                                   std::uint64_t seed, Key max_key = std::numeric_limits<Key>::max());

/// Draws with replacement from `pool` with Zipf-skewed frequencies: pool.key(r - 1) has probability
/// proportional to 1 / r^exponent (rank r in [1, pool.size]). Uses the continuous inverse CDF, so
/// frequencies follow the law up to discretization; exponent >= 0 (0 is uniform).
template <class Backend, class Key>
void generate_zipf_keys(const Backend& backend, const key_set<Key>& pool, double exponent, std::uint64_t seed,
                        std::span<Key> out);

/// Queries against `set`: exactly floor(absent_fraction * out.size()) of them are keys outside the set
/// (but inside [0, max_key]), the rest are keys of the set drawn uniformly with replacement, the two
/// kinds mixed at random positions. absent_fraction in [0, 1]; absent queries need a set that leaves
/// room for them (shuffled: size <= max_key; sorted: size <= (max_key + 1) / 2, or an empty set).
template <class Backend, class Key>
void generate_queries(const Backend& backend, const key_set<Key>& set, double absent_fraction, std::uint64_t seed,
                      std::span<Key> out);

}  // namespace warpdex
