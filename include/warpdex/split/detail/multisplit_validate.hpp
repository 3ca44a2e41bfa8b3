#pragma once
// The backend-independent checks of a multisplit call: sizes, aliasing, the identifier, the counted
// out-of-range ids. Every check runs before the call writes any output.

#include <warpdex/core/error.hpp>
#include <warpdex/split/bucket_identifiers.hpp>

#include <climits>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

namespace warpdex::detail {

template <class T>
struct is_splitter_buckets : std::false_type {
};
template <class T>
struct is_splitter_buckets<splitter_buckets<T>> : std::true_type {
};

template <class In, class Out>
bool ranges_overlap(std::span<In> in, std::span<Out> out)
{
  const auto* in_begin = reinterpret_cast<const char*>(in.data());
  const auto* out_begin = reinterpret_cast<const char*>(out.data());
  return in_begin < out_begin + out.size_bytes() && out_begin < in_begin + in.size_bytes();
}

template <class Key, class Value>
void validate_multisplit_spans(const char* caller, std::span<const Key> keys_in, std::span<Key> keys_out,
                               std::span<const Value> values_in, std::span<Value> values_out, bool with_values)
{
  const std::string name(caller);
  WARPDEX_EXPECTS(keys_out.size() == keys_in.size(), name + ": keys_out holds " + std::to_string(keys_out.size()) +
                                                         " keys but keys_in holds " + std::to_string(keys_in.size()));
  WARPDEX_EXPECTS(keys_in.empty() || !ranges_overlap(keys_in, keys_out),
                  name + ": keys_out overlaps keys_in; the multisplit is not in place");
  if (!with_values) { return; }
  WARPDEX_EXPECTS(values_in.size() == keys_in.size(), name + ": values_in holds " + std::to_string(values_in.size()) +
                                                          " values but keys_in holds " +
                                                          std::to_string(keys_in.size()));
  WARPDEX_EXPECTS(values_out.size() == keys_in.size(),
                  name + ": values_out holds " + std::to_string(values_out.size()) + " values but keys_in holds " +
                      std::to_string(keys_in.size()));
  WARPDEX_EXPECTS(keys_in.empty() || (!ranges_overlap(values_in, values_out) && !ranges_overlap(keys_in, values_out) &&
                                      !ranges_overlap(values_in, keys_out) && !ranges_overlap(keys_out, values_out)),
                  name + ": an output overlaps an input or the other output");
}

/// Splitters, read on the host: strictly increasing and not NaN.
template <class T>
void validate_splitters(const char* caller, std::span<const T> splitters)
{
  for (std::size_t i = 0; i < splitters.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      WARPDEX_EXPECTS(!std::isnan(splitters[i]),
                      std::string(caller) + ": splitter " + std::to_string(i) + " is NaN; splitters must be ordered");
    }
    WARPDEX_EXPECTS(i == 0 || splitters[i - 1] < splitters[i],
                    std::string(caller) + ": splitters must be strictly increasing, but splitter " + std::to_string(i) +
                        " (" + std::to_string(splitters[i]) + ") is not greater than splitter " +
                        std::to_string(i - 1) + " (" + std::to_string(splitters[i - 1]) + ")");
  }
}

/// Checks an identifier's parameters for keys of type Key. `host_splitters` is called only for splitter
/// buckets and returns the splitters readable on the host (a copy when they live in device memory).
template <class Key, class Identifier, class HostSplitters>
void validate_identifier(const char* caller, const Identifier& identifier, HostSplitters&& host_splitters)
{
  constexpr std::uint32_t key_bits = sizeof(Key) * CHAR_BIT;
  const std::string name(caller);
  if constexpr (std::is_same_v<Identifier, bit_field_buckets>) {
    WARPDEX_EXPECTS(identifier.bits <= bit_field_buckets::max_bits,
                    name + ": a bit field of " + std::to_string(identifier.bits) + " bits exceeds the maximum of " +
                        std::to_string(bit_field_buckets::max_bits) + " (sort the keys instead)");
    WARPDEX_EXPECTS(identifier.shift < key_bits && identifier.bits <= key_bits - identifier.shift,
                    name + ": the bit field [" + std::to_string(identifier.shift) + ", " +
                        std::to_string(std::uint64_t{identifier.shift} + identifier.bits) + ") does not fit in a " +
                        std::to_string(key_bits) + "-bit key");
  } else if constexpr (std::is_same_v<Identifier, delta_buckets>) {
    WARPDEX_EXPECTS(identifier.delta >= 1, name + ": delta buckets need delta >= 1");
  } else if constexpr (is_splitter_buckets<Identifier>::value) {
    WARPDEX_EXPECTS(identifier.splitter_count == 0 || identifier.splitters != nullptr,
                    name + ": the splitter pointer is null");
    using splitter_type = std::remove_cvref_t<decltype(*identifier.splitters)>;
    const auto splitters = host_splitters(identifier);
    validate_splitters(caller, std::span<const splitter_type>(splitters.data(), splitters.size()));
  }
  WARPDEX_EXPECTS(identifier.bucket_count() >= 1, name + ": the bucket count m must be at least 1");
}

/// The asynchronous calls' result memory: m + 1 offsets and a count word.
inline void validate_async_results(const char* caller, std::uint64_t offset_words, std::uint32_t bucket_count,
                                   const std::uint64_t* bad_id_count)
{
  const std::uint64_t needed = std::uint64_t{bucket_count} + 1;
  WARPDEX_EXPECTS(offset_words == needed, std::string(caller) + ": offsets holds " + std::to_string(offset_words) +
                                              " words, m + 1 = " + std::to_string(needed) + " needed");
  WARPDEX_EXPECTS(bad_id_count != nullptr, std::string(caller) + ": the bad-id count pointer is null");
}

inline void expect_no_bad_buckets(const char* caller, std::uint64_t bad, std::uint64_t n, std::uint32_t bucket_count)
{
  WARPDEX_EXPECTS(bad == 0, std::string(caller) + ": " + std::to_string(bad) + " of " + std::to_string(n) +
                                " keys have a bucket id outside [0, " + std::to_string(bucket_count) +
                                "); nothing was written (check the identifier's bucket count)");
}

}  // namespace warpdex::detail
