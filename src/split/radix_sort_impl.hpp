#pragma once
// The radix sort for any backend: LSD passes of the backend's multisplit, ping-ponging between the
// output and one temporary buffer so that the last pass writes the output.

#include <warpdex/core/backend.hpp>
#include <warpdex/split/bucket_identifiers.hpp>
#include <warpdex/split/detail/multisplit_validate.hpp>
#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

namespace warpdex::detail {

/// Values empty (and `with_values` false) for keys only.
template <class Backend, class Key>
void radix_sort_impl(const char* caller, const Backend& backend, std::span<const Key> keys_in,
                     std::span<const std::uint32_t> values_in, std::span<Key> keys_out,
                     std::span<std::uint32_t> values_out, bool with_values, sort_order order, std::uint32_t digit_bits)
{
  validate_multisplit_spans<Key, std::uint32_t>(caller, keys_in, keys_out, values_in, values_out, with_values);
  WARPDEX_EXPECTS(digit_bits >= 1 && digit_bits <= radix_sort_max_digit_bits,
                  std::string(caller) + ": digit_bits must lie in [1, " + std::to_string(radix_sort_max_digit_bits) +
                      "], got " + std::to_string(digit_bits));
  const std::uint64_t n = keys_in.size();
  if (n == 0) { return; }
  constexpr std::uint32_t key_bits = sizeof(Key) * CHAR_BIT;
  const std::uint32_t passes = (key_bits + digit_bits - 1) / digit_bits;
  auto key_temp = make_buffer<Key>(backend, n);
  auto value_temp = make_buffer<std::uint32_t>(backend, with_values ? n : 0);
  // Pass p reads `from` and writes `to`, alternating between the output and the temporary buffer so
  // that the last pass writes the output: ..., out -> temp, temp -> out.
  std::span<const Key> keys_from = keys_in;
  std::span<const std::uint32_t> values_from = values_in;
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    const bool to_temp = (passes - 1 - pass) % 2 == 1;
    const std::span<Key> keys_to = to_temp ? key_temp.span() : keys_out;
    const std::span<std::uint32_t> values_to = to_temp ? value_temp.span() : values_out;
    const std::uint32_t shift = pass * digit_bits;
    const bit_field_buckets digit{shift, std::min(digit_bits, key_bits - shift), order == sort_order::descending};
    if (with_values) {
      (void)multisplit_pairs(backend, keys_from, values_from, keys_to, values_to, digit);
    } else {
      (void)multisplit(backend, keys_from, keys_to, digit);
    }
    keys_from = keys_to;
    values_from = values_to;
  }
}

}  // namespace warpdex::detail

// The public functions of one backend.
#define WARPDEX_DEFINE_RADIX_SORT(Backend)                                                                           \
  void radix_sort(const Backend& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out, \
                  sort_order order, std::uint32_t digit_bits)                                                        \
  {                                                                                                                  \
    detail::radix_sort_impl("radix_sort", backend, keys_in, {}, keys_out, {}, false, order, digit_bits);             \
  }                                                                                                                  \
  void radix_sort_pairs(const Backend& backend, std::span<const std::uint32_t> keys_in,                              \
                        std::span<const std::uint32_t> values_in, std::span<std::uint32_t> keys_out,                 \
                        std::span<std::uint32_t> values_out, sort_order order, std::uint32_t digit_bits)             \
  {                                                                                                                  \
    detail::radix_sort_impl("radix_sort_pairs", backend, keys_in, values_in, keys_out, values_out, true, order,      \
                            digit_bits);                                                                             \
  }                                                                                                                  \
  void radix_sort(const Backend& backend, std::span<const std::uint64_t> keys_in, std::span<std::uint64_t> keys_out, \
                  sort_order order, std::uint32_t digit_bits)                                                        \
  {                                                                                                                  \
    detail::radix_sort_impl("radix_sort", backend, keys_in, {}, keys_out, {}, false, order, digit_bits);             \
  }
