// The multisplit and radix sort workloads of `warpdex split` and the demo tour.
#include "workloads.hpp"

#include "baselines.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <utility>

namespace warpdex::workloads {

std::uint32_t bucket_bits(std::uint32_t m)
{
  std::uint32_t bits = 0;
  while ((std::uint64_t{1} << bits) < m) { ++bits; }
  WARPDEX_EXPECTS((std::uint64_t{1} << bits) == m,
                  "split: bit-field buckets need m to be a power of two, got " + std::to_string(m));
  return bits;
}

namespace {

using key_type = std::uint32_t;

/// The stable oracle: a counting sort of input positions by bucket (O(n + m)).
template <class Identifier>
std::vector<std::uint32_t> stable_order(const std::vector<key_type>& keys, const Identifier& identifier)
{
  const std::uint32_t m = identifier.bucket_count();
  std::vector<std::uint64_t> starts(std::uint64_t{m} + 1, 0);
  for (const key_type key : keys) { ++starts[identifier(key) + 1]; }
  std::partial_sum(starts.begin(), starts.end(), starts.begin());
  std::vector<std::uint32_t> order(keys.size());
  for (std::uint64_t i = 0; i < keys.size(); ++i) {
    order[starts[identifier(keys[i])]++] = static_cast<std::uint32_t>(i);
  }
  return order;
}

template <class Backend, class HostIdentifier, class BackendIdentifier, class Baseline>
measurement run_split(const Backend& backend, const std::vector<key_type>& keys, const split_request& request,
                      const timing_options& timing, const HostIdentifier& host_identifier,
                      const BackendIdentifier& identifier, std::string baseline_name, Baseline&& baseline)
{
  const std::uint64_t n = keys.size();
  measurement m = make_measurement("split",
                                   std::string("multisplit ") + (request.pairs ? "pairs" : "keys") + ", " +
                                       request.identifier + " m=" + std::to_string(identifier.bucket_count()),
                                   Backend::name, n, request.pairs ? "Gpairs/s" : "Gkeys/s");

  auto started = std::chrono::steady_clock::now();
  auto keys_in = make_buffer<key_type>(backend, n);
  keys_in.copy_from(keys);
  auto keys_out = make_buffer<key_type>(backend, n);
  auto values_in = make_buffer<std::uint32_t>(backend, request.pairs ? n : 0);
  auto values_out = make_buffer<std::uint32_t>(backend, request.pairs ? n : 0);
  if (request.pairs) {
    std::vector<std::uint32_t> positions(n);
    std::iota(positions.begin(), positions.end(), std::uint32_t{0});
    values_in.copy_from(positions);
  }
  backend.synchronize();
  m.setup_seconds = seconds_since(started);

  const auto keys_span = std::as_const(keys_in).span();
  const auto values_span = std::as_const(values_in).span();
  std::vector<std::uint64_t> offsets;
  const auto split = [&] {
    offsets = request.pairs
                  ? multisplit_pairs(backend, keys_span, values_span, keys_out.span(), values_out.span(), identifier)
                  : multisplit(backend, keys_span, keys_out.span(), identifier);
  };
  m.baseline = std::move(baseline_name);
  m.baseline_ms =
      median_ms(backend, timing, [&] { baseline(keys_span, keys_out.span(), values_span, values_out.span()); });
  m.median_ms = median_ms(backend, timing, split);  // last, so that the outputs checked are the multisplit's

  started = std::chrono::steady_clock::now();
  const auto order = stable_order(keys, host_identifier);
  const auto out = keys_out.to_vector();
  const auto out_positions = values_out.to_vector();
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    wrong += out[i] != keys[order[i]] || (request.pairs && out_positions[i] != order[i]) ? 1 : 0;
  }
  // m offsets: bucket b starts at offsets[b] (the last bucket ends at n).
  std::uint64_t offset_errors =
      offsets.size() == identifier.bucket_count() && (offsets.empty() || offsets[0] == 0) ? 0 : 1;
  for (std::uint64_t b = 1; b < offsets.size(); ++b) {
    const std::uint64_t at = offsets[b];
    offset_errors +=
        at > n || (at < n && host_identifier(out[at]) < b) || (at > 0 && host_identifier(out[at - 1]) >= b);
  }
  m.checked = true;
  m.passed = wrong == 0 && offset_errors == 0;
  m.check = std::to_string(wrong) + " misplaced outputs, " + std::to_string(offset_errors) +
            " wrong bucket offsets (stable counting sort by bucket)";
  m.check_seconds = seconds_since(started);
  return m;
}

template <class Backend>
measurement split_on(const Backend& backend, const std::vector<key_type>& keys, const split_request& request,
                     const timing_options& timing)
{
  const std::uint32_t m = request.buckets;
  WARPDEX_EXPECTS(m >= 1, "split: --buckets must be at least 1");
  baselines::scratch temp;
  const backend_choice choice = choice_of<Backend>();
  if (request.identifier == "bits") {
    const bit_field_buckets identifier{request.shift, bucket_bits(m)};
    WARPDEX_EXPECTS(request.shift + identifier.bits <= 32, "split: the bit field [" + std::to_string(request.shift) +
                                                               ", " + std::to_string(request.shift + identifier.bits) +
                                                               ") does not fit in 32-bit keys");
    const int begin_bit = static_cast<int>(request.shift);
    // A field of no bits (m = 1) is a copy: the sort over one bit that holds is its baseline.
    const int end_bit = begin_bit + std::max<int>(1, static_cast<int>(identifier.bits));
    return run_split(backend, keys, request, timing, identifier, identifier,
                     baselines::sort_by_bits_name(choice, request.pairs, begin_bit, end_bit),
                     [&](auto keys_in, auto keys_out, auto values_in, auto values_out) {
                       baselines::sort_by_bits(backend, keys_in, keys_out, values_in, values_out, begin_bit, end_bit,
                                               temp);
                     });
  }
  if (request.identifier == "delta") {
    // delta = ceil(2^32 / m) unless given, so that every 32-bit key falls in [0, m); with m = 1 the
    // widest delta, 2^32 - 1, leaves the one key 2^32 - 1 outside, which the multisplit reports.
    const std::uint64_t delta = request.delta != 0
                                    ? request.delta
                                    : std::min<std::uint64_t>(((std::uint64_t{1} << 32) + m - 1) / m, UINT32_MAX);
    const delta_buckets identifier{static_cast<key_type>(delta), m};
    return run_split(backend, keys, request, timing, identifier, identifier, baselines::sort_by_bucket_name(choice),
                     [&](auto keys_in, auto keys_out, auto values_in, auto values_out) {
                       baselines::sort_by_bucket(backend, keys_in, keys_out, values_in, values_out, identifier, temp);
                     });
  }
  // m - 1 evenly spaced splitters over the 32-bit key space.
  std::vector<key_type> splitters(m - 1);
  const std::uint64_t spacing = (std::uint64_t{1} << 32) / m;
  for (std::uint32_t i = 0; i + 1 < m; ++i) { splitters[i] = static_cast<key_type>((i + 1) * spacing); }
  auto stored = make_buffer<key_type>(backend, splitters.size());
  stored.copy_from(splitters);
  const splitter_buckets<key_type> identifier{stored.data(), m - 1};
  return run_split(backend, keys, request, timing, splitter_buckets<key_type>{splitters.data(), m - 1}, identifier,
                   baselines::sort_by_bucket_name(choice),
                   [&](auto keys_in, auto keys_out, auto values_in, auto values_out) {
                     baselines::sort_by_bucket(backend, keys_in, keys_out, values_in, values_out, identifier, temp);
                   });
}

template <class Backend>
measurement radix_sort_on(const Backend& backend, const std::vector<key_type>& keys, const timing_options& timing)
{
  const std::uint64_t n = keys.size();
  const backend_choice choice = choice_of<Backend>();
  measurement m = make_measurement("split", "radix_sort keys32", Backend::name, n, "Gkeys/s");
  auto started = std::chrono::steady_clock::now();
  auto keys_in = make_buffer<key_type>(backend, n);
  keys_in.copy_from(keys);
  auto keys_out = make_buffer<key_type>(backend, n);
  auto expected = make_buffer<key_type>(backend, n);
  backend.synchronize();
  m.setup_seconds = seconds_since(started);

  const auto input = std::as_const(keys_in).span();
  baselines::scratch temp;
  m.baseline = baselines::sort_by_bits_name(choice, false, 0, 32);
  m.baseline_ms = median_ms(backend, timing,
                            [&] { baselines::sort_by_bits(backend, input, expected.span(), {}, {}, 0, 32, temp); });
  m.median_ms = median_ms(backend, timing, [&] { radix_sort(backend, input, keys_out.span()); });

  started = std::chrono::steady_clock::now();
  check_against_baseline(m, keys_out.to_vector(), expected.to_vector(), "keys");
  m.check_seconds = seconds_since(started);
  return m;
}

}  // namespace

measurement measure_multisplit(backend_choice backend, const std::vector<std::uint32_t>& keys,
                               const split_request& request, const timing_options& timing)
{
  WARPDEX_EXPECTS(keys.size() <= UINT32_MAX, "split: at most 2^32 - 1 keys");
  return visit_backend(backend, [&](const auto& on) { return split_on(on, keys, request, timing); });
}

measurement measure_radix_sort(backend_choice backend, const std::vector<std::uint32_t>& keys,
                               const timing_options& timing)
{
  return visit_backend(backend, [&](const auto& on) { return radix_sort_on(on, keys, timing); });
}

}  // namespace warpdex::workloads
