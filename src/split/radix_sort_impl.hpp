#pragma once
// The host backend's radix sort: LSD passes of the host multisplit, ping-ponging between the output
// and one temporary buffer so that the last pass writes the output (the cuda backend's is in
// radix_sort_cuda.cu; both give the same stable order).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/config.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/split/bucket_identifiers.hpp>
#include <warpdex/split/detail/multisplit_validate.hpp>
#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <climits>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

namespace warpdex::detail {

/// Throws unless 1 <= digit_bits <= radix_sort_max_digit_bits.
inline void validate_digit_bits(const char* caller, std::uint32_t digit_bits)
{
  WARPDEX_EXPECTS(digit_bits >= 1 && digit_bits <= radix_sort_max_digit_bits,
                  std::string(caller) + ": digit_bits must lie in [1, " + std::to_string(radix_sort_max_digit_bits) +
                      "], got " + std::to_string(digit_bits));
}

/// Passes of a sort of Key with `digit_bits` bits per pass: ceil(key bits / digit_bits).
template <class Key>
constexpr std::uint32_t radix_sort_pass_count(std::uint32_t digit_bits)
{
  constexpr std::uint32_t key_bits = sizeof(Key) * CHAR_BIT;
  return (key_bits + digit_bits - 1) / digit_bits;
}

/// The bucket identifier of one pass: bits [pass * digit_bits, +digit_bits) of the key (the last pass
/// narrower when the width does not divide the key), reversed for the descending order.
template <class Key>
WARPDEX_HOST_DEVICE inline bit_field_buckets radix_sort_pass_digit(std::uint32_t pass, std::uint32_t digit_bits,
                                                                   bool descending)
{
  constexpr std::uint32_t key_bits = sizeof(Key) * CHAR_BIT;
  const std::uint32_t shift = pass * digit_bits;
  const std::uint32_t width = key_bits - shift < digit_bits ? key_bits - shift : digit_bits;
  return bit_field_buckets{shift, width, descending};
}

/// Values empty (and `with_values` false) for keys only.
template <class Backend, class Key>
void radix_sort_impl(const char* caller, const Backend& backend, std::span<const Key> keys_in,
                     std::span<const std::uint32_t> values_in, std::span<Key> keys_out,
                     std::span<std::uint32_t> values_out, bool with_values, sort_order order, std::uint32_t digit_bits)
{
  validate_multisplit_spans<Key, std::uint32_t>(caller, keys_in, keys_out, values_in, values_out, with_values);
  validate_digit_bits(caller, digit_bits);
  const std::uint64_t n = keys_in.size();
  if (n == 0) { return; }
  const std::uint32_t passes = radix_sort_pass_count<Key>(digit_bits);
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
    const bit_field_buckets digit = radix_sort_pass_digit<Key>(pass, digit_bits, order == sort_order::descending);
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
