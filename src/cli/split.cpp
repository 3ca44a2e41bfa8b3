// `warpdex split`: a stable multisplit of generated keys or of a raw file of uint32 keys, timed warm next
// to the sort a user would call instead, checked against a stable counting sort on the host.
#include "commands.hpp"
#include "progress.hpp"
#include "workloads.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
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
  std::string input;  ///< raw little-endian uint32 keys; empty: generated keys
};

std::vector<key_type> read_keys(const std::string& path)
{
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  WARPDEX_EXPECTS(file.good(), "split: cannot open " + path);
  const auto bytes = static_cast<std::uint64_t>(file.tellg());
  WARPDEX_EXPECTS(bytes % sizeof(key_type) == 0,
                  "split: " + path + " holds " + std::to_string(bytes) + " bytes, not a whole number of uint32 keys");
  std::vector<key_type> keys(bytes / sizeof(key_type));
  file.seekg(0);
  file.read(reinterpret_cast<char*>(keys.data()), static_cast<std::streamsize>(bytes));
  WARPDEX_EXPECTS(file.good(), "split: reading " + path + " failed");
  return keys;
}

void split_command(const global_options& globals, const split_options& opts)
{
  std::vector<key_type> keys;
  if (opts.input.empty()) {
    keys.resize(std::uint64_t{1} << opts.size_log2);
    generate_keys(host{}, key_set<key_type>{keys.size(), opts.seed}, std::span<key_type>(keys));
  } else {
    keys = read_keys(opts.input);
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
  split->add_option("--shift", opts->request.shift, "First bit of the field (bits identifier)")
      ->check(CLI::Range(0, 31));
  split->add_flag("--pairs", opts->request.pairs, "Split key-value pairs (values: input positions) instead of keys");
  split->add_option("--size-log2", opts->size_log2, "Generated keys, as a power of two")->check(CLI::Range(0, 30));
  split->add_option("--seed", opts->seed, "Seed of the generated keys");
  split->add_option("--input", opts->input, "Raw file of little-endian uint32 keys instead of generated ones")
      ->check(CLI::ExistingFile);
  split->callback([opts, &globals] { split_command(globals, *opts); });
}

}  // namespace warpdex::cli
