#pragma once
// The workloads the family commands and the demo tour share: each runs one family's operation on the
// chosen backend, times it warm next to its baseline (baselines.hpp), checks the result against an
// oracle on the host, and returns the measurement. Inputs live on the host; copying them to the backend
// is setup, timed apart.

#include "measurement.hpp"

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/split/bucket_identifiers.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace warpdex::workloads {

/// A copy of host values in the backend's memory (setup of a workload).
template <class T, class Backend>
buffer<T> to_backend(const Backend& backend, std::span<const T> values)
{
  auto result = make_buffer<T>(backend, values.size());
  result.copy_from(values);
  return result;
}

/// Records in `m` the check of a result against the baseline's: how many elements differ, in words
/// naming `what` they are.
template <class T>
void check_against_baseline(measurement& m, const std::vector<T>& result, const std::vector<T>& expected,
                            const std::string& what)
{
  std::uint64_t wrong = result.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < std::min(result.size(), expected.size()); ++i) {
    wrong += result[i] != expected[i] ? 1 : 0;
  }
  m.checked = true;
  m.passed = wrong == 0;
  m.check = std::to_string(wrong) + " " + what + " differ from the baseline's";
}

/// A multisplit as `warpdex split` describes it.
struct split_request {
  std::string identifier = "bits";  ///< bits, delta or splitters
  std::uint32_t buckets = 32;       ///< m
  std::uint32_t shift = 0;          ///< first bit of the field (bits)
  std::uint32_t delta = 0;          ///< keys per bucket (delta); 0: ceil(2^32 / m)
  bool pairs = false;               ///< split key-value pairs (values: input positions)
};

/// log2(m) for bit-field buckets; throws warpdex::error unless m is a power of two.
[[nodiscard]] std::uint32_t bucket_bits(std::uint32_t m);

/// Stable multisplit of `keys` next to the sort a user would call instead (the same bits for bit
/// fields, the reduced-bit sort otherwise), checked against a stable counting sort by bucket.
[[nodiscard]] measurement measure_multisplit(backend_choice backend, const std::vector<std::uint32_t>& keys,
                                             const split_request& request, const timing_options& timing);

/// warpdex::radix_sort of 32-bit keys next to the library sort of the backend, checked against it.
[[nodiscard]] measurement measure_radix_sort(backend_choice backend, const std::vector<std::uint32_t>& keys,
                                             const timing_options& timing);

/// Sorted-array search as `warpdex search` describes it.
struct search_request {
  std::uint32_t keys_log2 = 24;
  std::uint32_t queries_log2 = 22;
  double absent_fraction = 0.5;
  bool sorted_queries = false;
  std::uint64_t seed = 1;
};

/// lower_bound of generated queries over generated sorted keys with each algorithm named (automatic
/// first by default), each next to thrust::lower_bound / std::lower_bound and checked against it.
[[nodiscard]] std::vector<measurement> measure_search(backend_choice backend, const search_request& request,
                                                      const std::vector<std::string>& algorithms,
                                                      const timing_options& timing);

}  // namespace warpdex::workloads

namespace warpdex::workloads {

/// The slab_map workload of `warpdex hash` and the demo tour: a table sized for the distinct keys at
/// `base_fill` (its pool also holds the mixed batch's insertions), then each step timed warm next to the
/// baseline table (baselines::unordered_map_baseline on the host, baselines::open_addressing_map on
/// cuda): build (the table cleared before every run), find of the built keys, find of absent keys, and
/// a mixed batch (a quarter each insert absent keys, erase built keys, find built and absent keys; the
/// table rebuilt before every run).
struct hash_request {
  std::vector<std::uint32_t> keys;    ///< built in this order; may repeat
  std::uint64_t distinct = 0;         ///< distinct keys among them
  std::uint64_t most_repeated = 1;    ///< how often the most frequent key occurs among them
  std::vector<std::uint32_t> absent;  ///< keys.size() keys, none of them built
  double base_fill = 0.6;
  std::uint64_t seed = 1;
  std::uint32_t slab_bytes = 128;
  bool mixed = true;  ///< also the find of absent keys and the mixed batch
};

/// The steps' measurements; `statistics` receives the table's after the build (memory utilization,
/// bytes per pair) as one line of text.
[[nodiscard]] std::vector<measurement> measure_hash(backend_choice backend, const hash_request& request,
                                                    const timing_options& timing, std::string& statistics);

/// 2^size_log2 generated unique user keys and as many absent ones, for measure_hash.
[[nodiscard]] hash_request generated_hash_request(std::uint32_t size_log2, std::uint64_t seed);

}  // namespace warpdex::workloads

namespace warpdex::workloads {

/// The LSM workload: `batches` batches of 2^batch_log2 generated unique keys inserted into a fresh
/// lsm_map (every run starts from an empty map), then as many lookups (half of them absent), next to
/// baselines::sorted_array_map (insertion) and a binary search of its array (lookups).
struct lsm_request {
  std::uint32_t batch_log2 = 16;
  std::uint64_t batches = 64;
  std::uint64_t seed = 1;
};
[[nodiscard]] std::vector<measurement> measure_lsm(backend_choice backend, const lsm_request& request,
                                                   const timing_options& timing);

/// Fixed-string matching: occurrences of a generated pattern of 8 bytes in 2^text_log2 bytes of
/// generated text (count_matches, automatic algorithm), next to std::boyer_moore_horspool_searcher over
/// the host's threads, checked against it.
struct string_match_request {
  std::uint32_t text_log2 = 24;
  std::uint64_t seed = 1;
};
[[nodiscard]] std::vector<measurement> measure_string_match(backend_choice backend, const string_match_request& request,
                                                            const timing_options& timing);

}  // namespace warpdex::workloads
