// `warpdex split`: a stable multisplit of generated keys or of a raw file of uint32 keys, checked against
// the stable-sort oracle on the host, with both throughputs.
#include "commands.hpp"
#include "input.hpp"
#include "progress.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/split/multisplit.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::cli {
namespace {

using key_type = std::uint32_t;

struct split_options {
  std::string identifier = "bits";
  std::uint32_t buckets = 32;
  std::uint32_t shift = 0;
  bool pairs = false;
  std::uint32_t size_log2 = 24;
  std::uint64_t seed = 1;
  std::string input;   ///< raw little-endian uint32 keys; empty: generated keys
  key_type delta = 0;  ///< the delta identifier's bucket width; 0: ceil(2^32 / m)
};

/// Host bytes a run needs per key: the keys, the backend's input and output, the oracle's order, its
/// stable_sort buffer and the output read back; with --pairs, the values' four arrays too (measured on
/// the host backend for 2^22 keys: 21 and 36 bytes a key).
std::uint64_t host_bytes_per_key(bool pairs)
{
  return (pairs ? 10 : 6) * sizeof(key_type);
}

/// The delta of the delta identifier: --delta, or ceil(2^32 / m) (the key space in m even buckets; for
/// m = 1, 2^32 - 1, so that every key but 0xffffffff fits).
key_type delta_of(const split_options& opts)
{
  if (opts.delta != 0) { return opts.delta; }
  const std::uint64_t even = ((std::uint64_t{1} << 32) + opts.buckets - 1) / opts.buckets;
  return static_cast<key_type>(std::min<std::uint64_t>(even, UINT32_MAX));
}

std::uint32_t bucket_bits(std::uint32_t m)
{
  std::uint32_t bits = 0;
  while ((std::uint64_t{1} << bits) < m) { ++bits; }
  WARPDEX_EXPECTS((std::uint64_t{1} << bits) == m,
                  "split: bit-field buckets need m to be a power of two, got " + std::to_string(m));
  return bits;
}

double seconds_since(std::chrono::steady_clock::time_point started)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

/// Runs the multisplit on the backend and checks it against a stable sort of positions by bucket id.
template <class Backend, class HostIdentifier, class BackendIdentifier>
void run_split(const Backend& backend, const split_options& opts, const std::vector<key_type>& keys,
               const HostIdentifier& host_identifier, const BackendIdentifier& identifier)
{
  const std::uint64_t n = keys.size();
  auto keys_in = make_buffer<key_type>(backend, n);
  keys_in.copy_from(keys);
  auto keys_out = make_buffer<key_type>(backend, n);
  auto values_in = make_buffer<std::uint32_t>(backend, opts.pairs ? n : 0);
  auto values_out = make_buffer<std::uint32_t>(backend, opts.pairs ? n : 0);
  std::vector<std::uint32_t> positions(opts.pairs ? n : 0);
  std::iota(positions.begin(), positions.end(), std::uint32_t{0});
  values_in.copy_from(positions);
  backend.synchronize();

  std::vector<std::uint64_t> offsets;
  double split_seconds = 0;
  {
    progress shown("multisplit");
    const auto started = std::chrono::steady_clock::now();
    offsets = opts.pairs ? multisplit_pairs(backend, std::as_const(keys_in).span(), std::as_const(values_in).span(),
                                            keys_out.span(), values_out.span(), identifier)
                         : multisplit(backend, std::as_const(keys_in).span(), keys_out.span(), identifier);
    split_seconds = seconds_since(started);
  }

  progress shown("checking with std::stable_sort");
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return host_identifier(keys[a]) < host_identifier(keys[b]);
  });
  const double oracle_seconds = seconds_since(started);

  const auto out = keys_out.to_vector();
  const auto out_positions = values_out.to_vector();
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    wrong += out[i] != keys[order[i]] || (opts.pairs && out_positions[i] != order[i]) ? 1 : 0;
  }
  std::uint64_t offset_errors = 0;
  for (std::uint64_t b = 1; b < offsets.size(); ++b) {
    const std::uint64_t at = offsets[b];
    offset_errors +=
        at > n || (at < n && host_identifier(out[at]) < b) || (at > 0 && host_identifier(out[at - 1]) >= b);
  }
  std::printf("multisplit (%s, m = %u, %s) of %llu keys on %s\n", opts.identifier.c_str(),
              static_cast<unsigned>(offsets.size()), opts.pairs ? "pairs" : "keys", static_cast<unsigned long long>(n),
              std::string(Backend::name).c_str());
  std::printf("  warpdex multisplit   %10.3f Mkeys/s\n", static_cast<double>(n) / split_seconds / 1e6);
  std::printf("  baseline: std::stable_sort of positions by bucket (one host thread)   %10.3f Mkeys/s\n",
              static_cast<double>(n) / oracle_seconds / 1e6);
  std::printf("  check: %llu misplaced outputs, %llu wrong bucket offsets\n", static_cast<unsigned long long>(wrong),
              static_cast<unsigned long long>(offset_errors));
  WARPDEX_EXPECTS(wrong == 0 && offset_errors == 0, "split: the multisplit differs from the stable oracle");
}

template <class Backend>
void split_on(const Backend& backend, const split_options& opts, const std::vector<key_type>& keys)
{
  const std::uint32_t m = opts.buckets;
  WARPDEX_EXPECTS(m >= 1, "split: --buckets must be at least 1");
  if (opts.identifier == "bits") {
    const bit_field_buckets identifier{opts.shift, bucket_bits(m)};
    run_split(backend, opts, keys, identifier, identifier);
  } else if (opts.identifier == "delta") {
    const delta_buckets identifier{delta_of(opts), m};
    run_split(backend, opts, keys, identifier, identifier);
  } else {
    // m - 1 evenly spaced splitters over the 32-bit key space.
    std::vector<key_type> splitters(m - 1);
    const std::uint64_t spacing = (std::uint64_t{1} << 32) / m;
    for (std::uint32_t i = 0; i + 1 < m; ++i) { splitters[i] = static_cast<key_type>((i + 1) * spacing); }
    auto stored = make_buffer<key_type>(backend, splitters.size());
    stored.copy_from(splitters);
    run_split(backend, opts, keys, splitter_buckets<key_type>{splitters.data(), m - 1},
              splitter_buckets<key_type>{stored.data(), m - 1});
  }
}

void split_command(const global_options& globals, const split_options& opts)
{
  std::vector<key_type> keys;
  if (opts.input.empty()) {
    keys.resize(std::uint64_t{1} << opts.size_log2);
    generate_keys(host{}, key_set<key_type>{keys.size(), opts.seed}, std::span<key_type>(keys));
  } else {
    keys = read_raw_keys("split --input", opts.input, host_bytes_per_key(opts.pairs));
  }
  WARPDEX_EXPECTS(keys.size() <= UINT32_MAX, "split: at most 2^32 - 1 keys");
  visit_backend(selected_backend(globals), [&](const auto& backend) { split_on(backend, opts, keys); });
}

}  // namespace

void add_split_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<split_options>();
  CLI::App* split = app.add_subcommand("split", "Stable multisplit of generated keys or a raw uint32 file, checked");
  split->add_option("--identifier", opts->identifier, "Bucket identifier: bits, delta or splitters")
      ->check(CLI::IsMember({"bits", "delta", "splitters"}));
  split->add_option("--buckets,-m", opts->buckets, "Number of buckets m (a power of two for bits)")
      ->check(CLI::Range(1U, 1U << 24));
  CLI::Option* shift =
      split->add_option("--shift", opts->shift, "First bit of the field (bits identifier)")->check(CLI::Range(0, 31));
  CLI::Option* delta =
      split->add_option("--delta", opts->delta, "Keys per bucket (delta identifier); default ceil(2^32 / m)")
          ->check(CLI::Range(1U, UINT32_MAX));
  split->add_flag("--pairs", opts->pairs, "Split key-value pairs (values: input positions) instead of keys");
  CLI::Option* size =
      split->add_option("--size-log2", opts->size_log2, "Generated keys, as a power of two")->check(CLI::Range(0, 30));
  CLI::Option* seed = split->add_option("--seed", opts->seed, "Seed of the generated keys");
  split->add_option("--input", opts->input, "Raw file of little-endian uint32 keys instead of generated ones")
      ->type_name("FILE")
      ->excludes(size)
      ->excludes(seed);
  split->callback([opts, &globals, shift, delta] {
    if (shift->count() > 0 && opts->identifier != "bits") {
      usage_error("--shift applies to --identifier bits only, not " + opts->identifier);
    }
    if (delta->count() > 0 && opts->identifier != "delta") {
      usage_error("--delta applies to --identifier delta only, not " + opts->identifier);
    }
    split_command(globals, *opts);
  });
}

}  // namespace warpdex::cli
