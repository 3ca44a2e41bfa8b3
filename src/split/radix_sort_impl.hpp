#pragma once
// The host backend's radix sort: LSD passes of the host multisplit, ping-ponging between the output
// and one temporary buffer so that the last pass writes the output (the cuda backend's is in
// radix_sort_cuda.cu; both give the same stable order).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
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

/// Values empty (and `with_values` false) for keys only. With a workspace (the asynchronous form) the
/// temporaries and each pass's offsets are carved from it and each pass is the host's multisplit_async;
/// without one they are allocated for the call.
template <class Backend, class Key>
void radix_sort_impl(const char* caller, const Backend& backend, std::span<const Key> keys_in,
                     std::span<const std::uint32_t> values_in, std::span<Key> keys_out,
                     std::span<std::uint32_t> values_out, bool with_values, sort_order order, std::uint32_t digit_bits,
                     multisplit_workspace* workspace = nullptr)
{
  validate_multisplit_spans<Key, std::uint32_t>(caller, keys_in, keys_out, values_in, values_out, with_values);
  validate_digit_bits(caller, digit_bits);
  const std::uint64_t n = keys_in.size();
  if (n == 0) { return; }
  const std::uint32_t passes = radix_sort_pass_count<Key>(digit_bits);
  buffer<Key> key_buffer;
  buffer<std::uint32_t> value_buffer;
  std::span<Key> key_temp;
  std::span<std::uint32_t> value_temp;
  std::span<std::uint64_t> offsets;  // the asynchronous passes' m + 1 offsets, then the bad-id count
  if (workspace == nullptr) {
    key_buffer = make_buffer<Key>(backend, n);
    value_buffer = make_buffer<std::uint32_t>(backend, with_values ? n : 0);
    key_temp = key_buffer.span();
    value_temp = value_buffer.span();
  } else {
    // Pieces in the order keys, values, offsets, each starting at a multiple of 8 bytes.
    constexpr std::uint64_t offset_words = (std::uint64_t{1} << radix_sort_max_digit_bits) + 2;
    const std::uint64_t key_bytes = (n * sizeof(Key) + 7) / 8 * 8;
    const std::uint64_t value_bytes = with_values ? n * sizeof(std::uint32_t) : 0;
    const std::uint64_t value_padded = (value_bytes + 7) / 8 * 8;
    std::uint8_t* base = workspace->reserve(backend, key_bytes + value_padded + offset_words * sizeof(std::uint64_t));
    key_temp = {reinterpret_cast<Key*>(base), n};
    value_temp = {reinterpret_cast<std::uint32_t*>(base + key_bytes), with_values ? n : 0};
    offsets = {reinterpret_cast<std::uint64_t*>(base + key_bytes + value_padded), offset_words};
  }
  // Pass p reads `from` and writes `to`, alternating between the output and the temporary buffer so
  // that the last pass writes the output: ..., out -> temp, temp -> out.
  std::span<const Key> keys_from = keys_in;
  std::span<const std::uint32_t> values_from = values_in;
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    const bool to_temp = (passes - 1 - pass) % 2 == 1;
    const std::span<Key> keys_to = to_temp ? key_temp : keys_out;
    const std::span<std::uint32_t> values_to = to_temp ? value_temp : values_out;
    const bit_field_buckets digit = radix_sort_pass_digit<Key>(pass, digit_bits, order == sort_order::descending);
    if (workspace != nullptr) {
      const std::span<std::uint64_t> pass_offsets = offsets.first(std::uint64_t{digit.bucket_count()} + 1);
      std::uint64_t* bad = offsets.data() + offsets.size() - 1;  // a bit field's ids are all good
      if (with_values) {
        multisplit_pairs_async(backend, keys_from, values_from, keys_to, values_to, digit, pass_offsets, bad,
                               *workspace);
      } else {
        multisplit_async(backend, keys_from, keys_to, digit, pass_offsets, bad, *workspace);
      }
    } else if (with_values) {
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

// The asynchronous functions of the host backend (computed before they return).
#define WARPDEX_DEFINE_RADIX_SORT_HOST_ASYNC()                                                                       \
  void radix_sort_async(const host& backend, std::span<const std::uint32_t> keys_in,                                 \
                        std::span<std::uint32_t> keys_out, multisplit_workspace& workspace, sort_order order,        \
                        std::uint32_t digit_bits)                                                                    \
  {                                                                                                                  \
    detail::radix_sort_impl("radix_sort_async", backend, keys_in, {}, keys_out, {}, false, order, digit_bits,        \
                            &workspace);                                                                             \
  }                                                                                                                  \
  void radix_sort_pairs_async(const host& backend, std::span<const std::uint32_t> keys_in,                           \
                              std::span<const std::uint32_t> values_in, std::span<std::uint32_t> keys_out,           \
                              std::span<std::uint32_t> values_out, multisplit_workspace& workspace,                  \
                              sort_order order, std::uint32_t digit_bits)                                            \
  {                                                                                                                  \
    detail::radix_sort_impl("radix_sort_pairs_async", backend, keys_in, values_in, keys_out, values_out, true,       \
                            order, digit_bits, &workspace);                                                          \
  }                                                                                                                  \
  void radix_sort_async(const host& backend, std::span<const std::uint64_t> keys_in,                                 \
                        std::span<std::uint64_t> keys_out, multisplit_workspace& workspace, sort_order order,        \
                        std::uint32_t digit_bits)                                                                    \
  {                                                                                                                  \
    detail::radix_sort_impl("radix_sort_async", backend, keys_in, {}, keys_out, {}, false, order, digit_bits,        \
                            &workspace);                                                                             \
  }
