// `warpdex split`: a stable multisplit of generated keys or of a raw file of uint32 keys, timed warm next
// to the sort a user would call instead, checked against a stable counting sort on the host.
#include "commands.hpp"
#include "input.hpp"
#include "progress.hpp"
#include "gpus.hpp"
#include "workloads.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace warpdex::cli {
namespace {

using key_type = std::uint32_t;

struct split_options {
  split_request request;
  std::uint32_t size_log2 = 24;
  std::uint64_t seed = 1;
  std::string input;       ///< raw little-endian uint32 keys; empty: generated keys
  std::uint32_t gpus = 0;  ///< > 0: the distributed multisplit and sort over that many GPUs of this process
};

/// Host bytes a run needs per key: the keys, the backend's input and output, the oracle's order, its
/// stable_sort buffer and the output read back; with --pairs, the values' four arrays too (measured on
/// the host backend for 2^22 keys: 21 and 36 bytes a key).
std::uint64_t host_bytes_per_key(bool pairs)
{
  return (pairs ? 10 : 6) * sizeof(key_type);
}

void split_command(const global_options& globals, const split_options& opts)
{
  if (opts.gpus > 0) {
    WARPDEX_EXPECTS(opts.request.identifier == "bits" && !opts.request.pairs,
                    "split --gpus: the distributed workload splits keys by bits (--identifier bits, no --pairs)");
    WARPDEX_EXPECTS(selected_backend(globals) == backend_choice::cuda,
                    "split --gpus: the distributed multisplit and sort run on GPUs, and the selected backend is host "
                    "(no GPU here, or --backend host)");
    const bit_field_buckets buckets{opts.request.shift, bucket_bits(opts.request.buckets)};
    WARPDEX_EXPECTS(buckets.shift + buckets.bits <= 32,
                    "split --gpus: the bit field [" + std::to_string(buckets.shift) + ", " +
                        std::to_string(buckets.shift + buckets.bits) + ") passes bit 32");
    print_distributed_split(opts.gpus, opts.size_log2, opts.seed, buckets);
    return;
  }
  std::vector<key_type> keys;
  if (opts.input.empty()) {
    keys.resize(std::uint64_t{1} << opts.size_log2);
    generate_keys(host{}, key_set<key_type>{keys.size(), opts.seed}, std::span<key_type>(keys));
  } else {
    keys = read_raw_keys("split --input", opts.input, host_bytes_per_key(opts.request.pairs));
  }
  const backend_choice backend = selected_backend(globals);
  const split_request& request = opts.request;
  std::printf("warpdex split: backend %s, %s %s, %s buckets m = %u%s\n",
              backend == backend_choice::cuda ? "cuda" : "host", size_text(keys.size()).c_str(),
              request.pairs ? "pairs" : "keys", request.identifier.c_str(), request.buckets,
              request.identifier == "bits" ? (", shift " + std::to_string(request.shift)).c_str() : "");
  measurement m;
  {
    progress shown("multisplit, its baseline and the check");
    m = measure_multisplit(backend, keys, request, cli_timing);
  }
  print_measurement(m);
  WARPDEX_EXPECTS(m.ok(), "split: the multisplit differs from the stable oracle");
}

}  // namespace

void add_split_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<split_options>();
  CLI::App* split = app.add_subcommand("split", "Stable multisplit of generated keys or a raw uint32 file, checked");
  split->add_option("--identifier", opts->request.identifier, "Bucket identifier: bits, delta or splitters")
      ->check(CLI::IsMember({"bits", "delta", "splitters"}));
  split->add_option("--buckets,-m", opts->request.buckets, "Number of buckets m (a power of two for bits)")
      ->check(CLI::Range(1U, 1U << 24));
  CLI::Option* shift = split->add_option("--shift", opts->request.shift, "First bit of the field (bits identifier)")
                           ->check(CLI::Range(0, 31));
  CLI::Option* delta =
      split->add_option("--delta", opts->request.delta, "Keys per bucket (delta identifier); default ceil(2^32 / m)")
          ->check(CLI::Range(1U, UINT32_MAX));
  split->add_flag("--pairs", opts->request.pairs, "Split key-value pairs (values: input positions) instead of keys");
  CLI::Option* size =
      split->add_option("--size-log2", opts->size_log2, "Generated keys, as a power of two")->check(CLI::Range(0, 30));
  CLI::Option* seed = split->add_option("--seed", opts->seed, "Seed of the generated keys");
  split->add_option("--input", opts->input, "Raw file of little-endian uint32 keys instead of generated ones")
      ->type_name("FILE")
      ->excludes(size)
      ->excludes(seed);
  split
      ->add_option("--gpus", opts->gpus,
                   "Multisplit (by bits) and sort across the first N GPUs, one process driving them all (NCCL), per "
                   "GPU and in total, next to one GPU with every key")
      ->type_name("N")
      ->check(CLI::Range(1, 1024))
      ->excludes("--input");
  split->callback([opts, &globals, shift, delta] {
    if (shift->count() > 0 && opts->request.identifier != "bits") {
      usage_error("--shift applies to --identifier bits only, not " + opts->request.identifier);
    }
    if (delta->count() > 0 && opts->request.identifier != "delta") {
      usage_error("--delta applies to --identifier delta only, not " + opts->request.identifier);
    }
    if (opts->request.identifier == "bits" && !std::has_single_bit(opts->request.buckets)) {
      usage_error("--buckets/-m: bit-field buckets need m to be a power of two, got " +
                  std::to_string(opts->request.buckets));
    }
    split_command(globals, *opts);
  });
}

}  // namespace warpdex::cli
