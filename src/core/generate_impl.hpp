#pragma once
// The backend-independent half of the generators: validating the parameters and building the element
// functor. Each backend's translation unit includes this, defines `for_each_index` for its backend and
// instantiates the entry points.

#include <warpdex/core/detail/generate_element.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>

namespace warpdex::detail {

template <class Key>
void validate_key_set(const key_set<Key>& set, const char* caller)
{
  const std::uint64_t max_key = static_cast<std::uint64_t>(set.max_key);
  WARPDEX_EXPECTS(max_key == UINT64_MAX || set.size <= max_key + 1,
                  std::string(caller) + ": a set of " + std::to_string(set.size) +
                      " distinct keys does not fit in [0, " + std::to_string(max_key) + "]");
}

inline void validate_fraction(double fraction, const char* caller, const char* what)
{
  WARPDEX_EXPECTS(fraction >= 0.0 && fraction <= 1.0,
                  std::string(caller) + ": " + what + " must lie in [0, 1], got " + std::to_string(fraction));
}

template <class Backend, class Key>
void generate_keys_impl(const Backend& backend, const key_set<Key>& set, std::span<Key> out)
{
  validate_key_set(set, "generate_keys");
  WARPDEX_EXPECTS(out.size() == set.size, "generate_keys: the output holds " + std::to_string(out.size()) +
                                              " keys but the set has " + std::to_string(set.size));
  if (out.empty()) { return; }
  for_each_index(backend, out.size(), set_key_element<Key>{key_set_view<Key>(set), out.data()});
}

template <class Backend, class Key>
void generate_keys_with_duplicates_impl(const Backend& backend, std::span<Key> out, double duplicate_fraction,
                                        std::uint64_t seed, Key max_key)
{
  validate_fraction(duplicate_fraction, "generate_keys_with_duplicates", "duplicate_fraction");
  if (out.empty()) { return; }
  const std::uint64_t n = out.size();
  const auto repeats = static_cast<std::uint64_t>(std::floor(duplicate_fraction * static_cast<double>(n)));
  const std::uint64_t distinct = repeats >= n ? 1 : n - repeats;
  const key_set<Key> distinct_set{distinct, seed, key_order::shuffled, max_key};
  validate_key_set(distinct_set, "generate_keys_with_duplicates");
  for_each_index(backend, n,
                 duplicate_key_element<Key>{key_set_view<Key>(distinct_set), index_permutation(n - 1, seed + 1),
                                            distinct, seed, out.data()});
}

template <class Backend, class Key>
void generate_zipf_keys_impl(const Backend& backend, const key_set<Key>& pool, double exponent, std::uint64_t seed,
                             std::span<Key> out)
{
  validate_key_set(pool, "generate_zipf_keys");
  WARPDEX_EXPECTS(std::isfinite(exponent) && exponent >= 0.0,
                  "generate_zipf_keys: the exponent must be finite and >= 0, got " + std::to_string(exponent));
  if (out.empty()) { return; }
  WARPDEX_EXPECTS(pool.size > 0, "generate_zipf_keys: the pool of keys to draw from is empty");
  for_each_index(backend, out.size(),
                 zipf_key_element<Key>{key_set_view<Key>(pool), pool.size, exponent, seed, out.data()});
}

template <class Backend, class Key>
void generate_queries_impl(const Backend& backend, const key_set<Key>& set, double absent_fraction, std::uint64_t seed,
                           std::span<Key> out)
{
  validate_key_set(set, "generate_queries");
  validate_fraction(absent_fraction, "generate_queries", "absent_fraction");
  if (out.empty()) { return; }
  const std::uint64_t n = out.size();
  const auto absent = static_cast<std::uint64_t>(std::floor(absent_fraction * static_cast<double>(n)));
  WARPDEX_EXPECTS(absent == n || set.size > 0, "generate_queries: present queries need a non-empty key set");
  if (absent > 0) {
    const std::uint64_t max_key = static_cast<std::uint64_t>(set.max_key);
    const bool room = set.order == key_order::shuffled ? set.size <= max_key
                                                       : set.size == 0 || key_set_view<Key>::sorted_stride(set) >= 2;
    WARPDEX_EXPECTS(room, "generate_queries: a " + std::string(set.order == key_order::sorted ? "sorted" : "shuffled") +
                              " set of " + std::to_string(set.size) + " keys in [0, " + std::to_string(max_key) +
                              "] leaves no room for absent keys");
  }
  for_each_index(backend, n,
                 query_element<Key>{key_set_view<Key>(set), index_permutation(n - 1, seed + 1), absent, set.size, seed,
                                    out.data()});
}

}  // namespace warpdex::detail

namespace warpdex {

template <class Backend, class Key>
void generate_keys(const Backend& backend, const key_set<Key>& set, std::span<Key> out)
{
  detail::generate_keys_impl(backend, set, out);
}

template <class Backend, class Key>
void generate_keys_with_duplicates(const Backend& backend, std::span<Key> out, double duplicate_fraction,
                                   std::uint64_t seed, Key max_key)
{
  detail::generate_keys_with_duplicates_impl(backend, out, duplicate_fraction, seed, max_key);
}

template <class Backend, class Key>
void generate_zipf_keys(const Backend& backend, const key_set<Key>& pool, double exponent, std::uint64_t seed,
                        std::span<Key> out)
{
  detail::generate_zipf_keys_impl(backend, pool, exponent, seed, out);
}

template <class Backend, class Key>
void generate_queries(const Backend& backend, const key_set<Key>& set, double absent_fraction, std::uint64_t seed,
                      std::span<Key> out)
{
  detail::generate_queries_impl(backend, set, absent_fraction, seed, out);
}

}  // namespace warpdex

// Explicit instantiations of the public entry points for one backend and one key type.
#define WARPDEX_INSTANTIATE_GENERATORS(Backend, Key)                                                               \
  template void generate_keys<Backend, Key>(const Backend&, const key_set<Key>&, std::span<Key>);                  \
  template void generate_keys_with_duplicates<Backend, Key>(const Backend&, std::span<Key>, double, std::uint64_t, \
                                                            Key);                                                  \
  template void generate_zipf_keys<Backend, Key>(const Backend&, const key_set<Key>&, double, std::uint64_t,       \
                                                 std::span<Key>);                                                  \
  template void generate_queries<Backend, Key>(const Backend&, const key_set<Key>&, double, std::uint64_t,         \
                                               std::span<Key>);
