// Bindings of the split family: multisplit (bit-field, delta and splitter buckets), radix sort, histograms.

#include "arrays.hpp"

#include <warpdex/split/histogram.hpp>
#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>

namespace warpdex::python {
namespace {

multisplit_algorithm algorithm_of(const std::string& name)
{
  if (name == "automatic") { return multisplit_algorithm::automatic; }
  if (name == "three_pass") { return multisplit_algorithm::three_pass; }
  if (name == "single_pass") { return multisplit_algorithm::single_pass; }
  if (name == "super_bucket") { return multisplit_algorithm::super_bucket; }
  if (name == "reduced_bit_sort") { return multisplit_algorithm::reduced_bit_sort; }
  if (name == "partition") { return multisplit_algorithm::partition; }
  if (name == "warp_tiles") { return multisplit_algorithm::warp_tiles; }
  throw nb::value_error(("multisplit: algorithm must be 'automatic', 'three_pass', 'single_pass', 'super_bucket', "
                         "'reduced_bit_sort', 'partition' or 'warp_tiles', got '" +
                         name + "'")
                            .c_str());
}

/// Runs a multisplit of `Key` keys (with uint32 values when given) with `identifier`; returns the m + 1
/// bucket offsets (the library's m, then n).
template <class Key, class Identifier>
nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>> split_keys(call_arrays& arrays, const input_array& keys_in,
                                                              const output_array& keys_out,
                                                              const std::optional<input_array>& values_in,
                                                              const std::optional<output_array>& values_out,
                                                              const Identifier& identifier,
                                                              multisplit_algorithm algorithm, stream_handle stream)
{
  const auto keys = arrays.span<Key>(keys_in, "keys");
  const auto out = arrays.span<Key>(keys_out, "keys_out");
  std::vector<std::uint64_t> offsets;
  if (values_in.has_value() != values_out.has_value()) {
    throw nb::value_error("multisplit: give values and values_out together");
  }
  if (values_in) {
    const auto values = arrays.span<std::uint32_t>(*values_in, "values");
    const auto values_written = arrays.span<std::uint32_t>(*values_out, "values_out");
    offsets = run_on(arrays.where(), stream, [&](const auto& backend) {
      return multisplit_pairs<Key, std::uint32_t>(backend, keys, values, out, values_written, identifier, algorithm);
    });
  } else {
    offsets = run_on(arrays.where(), stream,
                     [&](const auto& backend) { return multisplit<Key>(backend, keys, out, identifier, algorithm); });
  }
  offsets.push_back(keys.size());
  return host_array(std::move(offsets));
}

nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>> multisplit_bit_field(
    const input_array& keys_in, const output_array& keys_out, const std::optional<input_array>& values_in,
    const std::optional<output_array>& values_out, std::uint32_t shift, std::uint32_t bits, bool descending,
    const std::string& algorithm, stream_handle stream)
{
  call_arrays arrays("multisplit");
  const bit_field_buckets identifier{shift, bits, descending};
  if (call_arrays::holds<std::uint64_t>(keys_in)) {
    return split_keys<std::uint64_t>(arrays, keys_in, keys_out, values_in, values_out, identifier,
                                     algorithm_of(algorithm), stream);
  }
  return split_keys<std::uint32_t>(arrays, keys_in, keys_out, values_in, values_out, identifier,
                                   algorithm_of(algorithm), stream);
}

nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>> multisplit_delta(const input_array& keys_in,
                                                                    const output_array& keys_out,
                                                                    const std::optional<input_array>& values_in,
                                                                    const std::optional<output_array>& values_out,
                                                                    std::uint32_t delta, std::uint32_t count,
                                                                    const std::string& algorithm, stream_handle stream)
{
  call_arrays arrays("multisplit");
  const delta_buckets identifier{delta, count};
  if (call_arrays::holds<std::uint64_t>(keys_in)) {
    return split_keys<std::uint64_t>(arrays, keys_in, keys_out, values_in, values_out, identifier,
                                     algorithm_of(algorithm), stream);
  }
  return split_keys<std::uint32_t>(arrays, keys_in, keys_out, values_in, values_out, identifier,
                                   algorithm_of(algorithm), stream);
}

template <class Key>
nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>> split_by_splitters(
    call_arrays& arrays, const input_array& keys_in, const output_array& keys_out,
    const std::optional<input_array>& values_in, const std::optional<output_array>& values_out,
    const input_array& splitters, const std::string& algorithm, stream_handle stream)
{
  const auto splitter_span = arrays.span<Key>(splitters, "splitters");
  const splitter_buckets<Key> identifier{splitter_span.data(), static_cast<std::uint32_t>(splitter_span.size())};
  return split_keys<Key>(arrays, keys_in, keys_out, values_in, values_out, identifier, algorithm_of(algorithm), stream);
}

nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>> multisplit_splitters(
    const input_array& keys_in, const output_array& keys_out, const std::optional<input_array>& values_in,
    const std::optional<output_array>& values_out, const input_array& splitters, const std::string& algorithm,
    stream_handle stream)
{
  call_arrays arrays("multisplit");
  if (splitters.ndim() == 1 && splitters.shape(0) >= std::uint64_t{1} << 32) {
    throw nb::value_error("multisplit: at most 2^32 - 1 splitters");
  }
  if (call_arrays::holds<std::uint64_t>(keys_in)) {
    return split_by_splitters<std::uint64_t>(arrays, keys_in, keys_out, values_in, values_out, splitters, algorithm,
                                             stream);
  }
  if (call_arrays::holds<float>(keys_in)) {
    return split_by_splitters<float>(arrays, keys_in, keys_out, values_in, values_out, splitters, algorithm, stream);
  }
  return split_by_splitters<std::uint32_t>(arrays, keys_in, keys_out, values_in, values_out, splitters, algorithm,
                                           stream);
}

void radix_sort_binding(const input_array& keys_in, const output_array& keys_out,
                        const std::optional<input_array>& values_in, const std::optional<output_array>& values_out,
                        bool descending, std::uint32_t digit_bits, stream_handle stream)
{
  call_arrays arrays("radix_sort");
  const sort_order order = descending ? sort_order::descending : sort_order::ascending;
  if (values_in.has_value() != values_out.has_value()) {
    throw nb::value_error("radix_sort: give values and values_out together");
  }
  if (call_arrays::holds<std::uint64_t>(keys_in)) {
    if (values_in) { throw nb::value_error("radix_sort: values go with uint32 keys only (uint64 keys sort alone)"); }
    const auto keys = arrays.span<std::uint64_t>(keys_in, "keys");
    const auto out = arrays.span<std::uint64_t>(keys_out, "keys_out");
    run_on(arrays.where(), stream, [&](const auto& backend) { radix_sort(backend, keys, out, order, digit_bits); });
    return;
  }
  const auto keys = arrays.span<std::uint32_t>(keys_in, "keys");
  const auto out = arrays.span<std::uint32_t>(keys_out, "keys_out");
  if (values_in) {
    const auto values = arrays.span<std::uint32_t>(*values_in, "values");
    const auto values_written = arrays.span<std::uint32_t>(*values_out, "values_out");
    run_on(arrays.where(), stream, [&](const auto& backend) {
      radix_sort_pairs(backend, keys, values, out, values_written, order, digit_bits);
    });
    return;
  }
  run_on(arrays.where(), stream, [&](const auto& backend) { radix_sort(backend, keys, out, order, digit_bits); });
}

template <class Sample>
std::pair<nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>>, std::uint64_t> histogram_of(
    call_arrays& arrays, const input_array& samples, std::uint32_t bins, double lower, double upper,
    const std::optional<input_array>& boundaries, stream_handle stream)
{
  const auto sample_span = arrays.span<Sample>(samples, "samples");
  histogram_result result;
  if (boundaries) {
    const auto boundary_span = arrays.span<Sample>(*boundaries, "bins");
    result = run_on(arrays.where(), stream,
                    [&](const auto& backend) { return histogram_range(backend, sample_span, boundary_span); });
  } else {
    if constexpr (std::is_integral_v<Sample>) {
      if (lower < 0 || upper > 4294967295.0 || lower != static_cast<Sample>(lower) ||
          upper != static_cast<Sample>(upper)) {
        throw nb::value_error("histogram: the range of uint32 samples must be two integers in [0, 2^32)");
      }
    }
    const auto low = static_cast<Sample>(lower);
    const auto high = static_cast<Sample>(upper);
    result = run_on(arrays.where(), stream,
                    [&](const auto& backend) { return histogram_even(backend, sample_span, bins, low, high); });
  }
  return {host_array(std::move(result.counts)), result.not_counted};
}

std::pair<nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>>, std::uint64_t> histogram_binding(
    const input_array& samples, std::uint32_t bins, double lower, double upper,
    const std::optional<input_array>& boundaries, stream_handle stream)
{
  call_arrays arrays("histogram");
  if (call_arrays::holds<float>(samples)) {
    return histogram_of<float>(arrays, samples, bins, lower, upper, boundaries, stream);
  }
  return histogram_of<std::uint32_t>(arrays, samples, bins, lower, upper, boundaries, stream);
}

}  // namespace

void bind_split(nb::module_& module)
{
  module.def("multisplit_bit_field", &multisplit_bit_field, nb::arg("keys"), nb::arg("keys_out"),
             nb::arg("values").none(), nb::arg("values_out").none(), nb::arg("shift"), nb::arg("bits"),
             nb::arg("descending"), nb::arg("algorithm"), nb::arg("stream"),
             "Stable multisplit by the bit field [shift, shift + bits) of uint32 or uint64 keys; returns the m + 1 "
             "bucket offsets.");
  module.def("multisplit_delta", &multisplit_delta, nb::arg("keys"), nb::arg("keys_out"), nb::arg("values").none(),
             nb::arg("values_out").none(), nb::arg("delta"), nb::arg("count"), nb::arg("algorithm"), nb::arg("stream"),
             "Stable multisplit into `count` buckets of width `delta` (bucket = key // delta); returns the m + 1 "
             "offsets.");
  module.def("multisplit_splitters", &multisplit_splitters, nb::arg("keys"), nb::arg("keys_out"),
             nb::arg("values").none(), nb::arg("values_out").none(), nb::arg("splitters"), nb::arg("algorithm"),
             nb::arg("stream"),
             "Stable multisplit by strictly increasing splitters (bucket = splitters <= key); returns the m + 1 "
             "offsets.");
  module.def("radix_sort", &radix_sort_binding, nb::arg("keys"), nb::arg("keys_out"), nb::arg("values").none(),
             nb::arg("values_out").none(), nb::arg("descending"), nb::arg("digit_bits"), nb::arg("stream"),
             "Stable LSD radix sort of uint32 keys (optionally with uint32 values) or uint64 keys into the outputs.");
  module.def("histogram", &histogram_binding, nb::arg("samples"), nb::arg("bins"), nb::arg("lower"), nb::arg("upper"),
             nb::arg("boundaries").none(), nb::arg("stream"),
             "(counts, not_counted): even bins over [lower, upper) or range bins given by boundaries.");
}

}  // namespace warpdex::python
