#pragma once
// The host backend's radix sort: LSD passes of the host multisplit, ping-ponging between the output
// and one temporary buffer so that the last pass writes the output (the cuda backend's is in
// radix_sort_cuda.cu; both give the same stable order).

#include <warpdex/core/backend.hpp>
#include <warpdex/split/bucket_identifiers.hpp>
#include <warpdex/split/detail/multisplit_validate.hpp>
#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <climits>
#include <cstdint>
#include <span>
#include <utility>

namespace warpdex::detail {

/// One pass per digit of the key: 4 for 32-bit keys, 8 for 64-bit keys.
template <class Key>
inline constexpr std::uint32_t radix_sort_passes = sizeof(Key) * CHAR_BIT / radix_sort_digit_bits;
static_assert(radix_sort_passes<std::uint32_t> % 2 == 0 && radix_sort_passes<std::uint64_t> % 2 == 0,
              "an even number of passes ends in the output buffer");

/// Values empty (and `with_values` false) for keys only.
template <class Backend, class Key>
void radix_sort_impl(const char* caller, const Backend& backend, std::span<const Key> keys_in,
                     std::span<const std::uint32_t> values_in, std::span<Key> keys_out,
                     std::span<std::uint32_t> values_out, bool with_values, sort_order order)
{
  validate_multisplit_spans<Key, std::uint32_t>(caller, keys_in, keys_out, values_in, values_out, with_values);
  const std::uint64_t n = keys_in.size();
  if (n == 0) { return; }
  auto key_temp = make_buffer<Key>(backend, n);
  auto value_temp = make_buffer<std::uint32_t>(backend, with_values ? n : 0);
  // Pass p reads `from` and writes `to`: in -> temp, temp -> out, out -> temp, ..., temp -> out.
  std::span<const Key> keys_from = keys_in;
  std::span<const std::uint32_t> values_from = values_in;
  for (std::uint32_t pass = 0; pass < radix_sort_passes<Key>; ++pass) {
    const bool to_temp = pass % 2 == 0;
    const std::span<Key> keys_to = to_temp ? key_temp.span() : keys_out;
    const std::span<std::uint32_t> values_to = to_temp ? value_temp.span() : values_out;
    const bit_field_buckets digit{pass * radix_sort_digit_bits, radix_sort_digit_bits, order == sort_order::descending};
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
                  sort_order order)                                                                                  \
  {                                                                                                                  \
    detail::radix_sort_impl("radix_sort", backend, keys_in, {}, keys_out, {}, false, order);                         \
  }                                                                                                                  \
  void radix_sort_pairs(const Backend& backend, std::span<const std::uint32_t> keys_in,                              \
                        std::span<const std::uint32_t> values_in, std::span<std::uint32_t> keys_out,                 \
                        std::span<std::uint32_t> values_out, sort_order order)                                       \
  {                                                                                                                  \
    detail::radix_sort_impl("radix_sort_pairs", backend, keys_in, values_in, keys_out, values_out, true, order);     \
  }                                                                                                                  \
  void radix_sort(const Backend& backend, std::span<const std::uint64_t> keys_in, std::span<std::uint64_t> keys_out, \
                  sort_order order)                                                                                  \
  {                                                                                                                  \
    detail::radix_sort_impl("radix_sort", backend, keys_in, {}, keys_out, {}, false, order);                         \
  }
