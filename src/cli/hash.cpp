// `warpdex hash`: builds a slab_map from generated unique keys (or the raw keys of a file), queries present
// and absent keys, runs a mixed batch, and prints each step's warm throughput next to the baseline table,
// its check, and the table's utilization (hash_workload.cpp).
// With --multimap it does the same for a slab_multimap: keys with several values each, count, find_all,
// erase of one instance and of all instances, and a mixed batch. With --grow it inserts the keys in
// batches into a map built for one batch and grows it with rehash(), showing each step. --slab-bytes
// picks the slab size of any table; --key-bits 64 runs --grow on a map of 64-bit keys and values.
// --batch-log2 K measures the latency of one batch of 2^K keys, call to results on the host, and the
// throughput of a stream of such batches.
#include "commands.hpp"
#include "input.hpp"
#include "progress.hpp"
#include "gpus.hpp"
#include "workloads.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/hash/batch_latency.hpp>
#include <warpdex/hash/slab_map.hpp>
#include <warpdex/hash/slab_multimap.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::cli {
namespace {

using hash::operation;
using hash::operation_status;

struct hash_options {
  std::uint32_t size_log2 = 22;
  double base_fill = 0.6;
  std::uint64_t seed = 1;
  bool multimap = false;
  std::string input;  ///< a file of raw little-endian 32-bit keys; empty: generated keys
  std::uint32_t slab_bytes = hash::default_slab_bytes;  ///< 128 or 64 (hash::is_supported_slab_size)
  bool grow = false;                ///< build in batches past the table's size, growing it with rehash
  std::uint32_t key_bits = 32;      ///< 32, or 64 (64-bit keys and values; with --grow)
  std::uint32_t gpus = 0;           ///< > 0: the distributed map over that many GPUs of this process
  std::uint32_t batch_log2 = 0;     ///< > 0: the latency of batches of 2^batch_log2 keys instead
  std::uint32_t resident_log2 = 0;  ///< with batch_log2: > 0, the maps also hold 2^resident_log2 other keys
};

/// Calls `run` with the slab size as a std::integral_constant, for the tables' template argument.
template <class Run>
auto visit_slab_bytes(std::uint32_t slab_bytes, Run&& run)
{
  constexpr std::uint32_t small_slab_bytes = 64;
  if (slab_bytes == small_slab_bytes) { return run(std::integral_constant<std::uint32_t, small_slab_bytes>{}); }
  return run(std::integral_constant<std::uint32_t, hash::default_slab_bytes>{});
}

/// The largest count of distinct keys an --input file may hold: absent keys are drawn by rejection, so
/// at least half of the key space must stay free.
constexpr std::uint64_t max_input_distinct_keys = std::uint64_t{hash::max_user_key} / 2;

/// Host bytes an --input run needs per key of the file, with a margin: the keys, their sorted copy, as
/// many absent keys, the table and the answers (measured: 282 MB peak for 2^22 keys on the host backend,
/// 67 bytes a key).
constexpr std::uint64_t input_host_bytes_per_key = 80;

/// Reads `path` as raw little-endian 32-bit keys. Throws warpdex::error, before anything is built, when
/// the file cannot be read, is empty or not a whole number of keys, or holds a reserved key.
std::vector<std::uint32_t> read_key_file(const std::string& path)
{
  std::vector<std::uint32_t> keys = read_raw_keys("hash --input", path, input_host_bytes_per_key);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (hash::is_reserved_key(keys[i])) {
      char hex[16];
      std::snprintf(hex, sizeof(hex), "0x%08x", keys[i]);
      WARPDEX_FAIL("hash --input: key " + std::to_string(i) + " of '" + path + "' is " + hex +
                   ", a reserved key (empty_key or erased_key); keys must be <= " + std::to_string(hash::max_user_key));
    }
  }
  return keys;
}

/// The workload of a key file: its keys, and absent keys drawn by rejection from a counter-based hash.
hash_request file_workload(const std::string& path, std::uint64_t seed)
{
  hash_request work;
  work.keys = read_key_file(path);
  std::vector<std::uint32_t> sorted = work.keys;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t first = 0; first < sorted.size();) {
    const std::size_t end = static_cast<std::size_t>(
        std::upper_bound(sorted.begin() + static_cast<std::ptrdiff_t>(first), sorted.end(), sorted[first]) -
        sorted.begin());
    work.most_repeated = std::max<std::uint64_t>(work.most_repeated, end - first);
    first = end;
  }
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  work.distinct = sorted.size();
  WARPDEX_EXPECTS(work.distinct <= max_input_distinct_keys,
                  "hash --input: '" + path + "' holds " + std::to_string(work.distinct) + " distinct keys; at most " +
                      std::to_string(max_input_distinct_keys) + " are supported");
  for (std::uint64_t draw = 0; work.absent.size() < work.keys.size(); ++draw) {
    const auto candidate = static_cast<std::uint32_t>(fmix64(seed ^ (draw * 0x9e3779b97f4a7c15ULL)));
    if (!hash::is_reserved_key(candidate) && !std::binary_search(sorted.begin(), sorted.end(), candidate)) {
      work.absent.push_back(candidate);
    }
  }
  return work;
}

/// Values each key holds in the multimap run.
constexpr std::uint64_t values_per_key = 4;

struct timed_step {
  std::string what;
  std::uint64_t operations = 0;
  double seconds = 0;
  std::string check;
  bool passed = false;
};

template <class Backend, class Work>
double seconds_of(const Backend& backend, Work&& work)
{
  const auto started = std::chrono::steady_clock::now();
  work();
  backend.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

std::uint64_t count_of(const std::vector<operation_status>& statuses, operation_status wanted)
{
  return static_cast<std::uint64_t>(std::count(statuses.begin(), statuses.end(), wanted));
}

/// Pairs of the multimap run: 2^size_log2, rounded down to whole keys, at least one key's values.
std::uint64_t multimap_pairs(const hash_options& opts)
{
  return std::max(values_per_key, std::uint64_t{1} << opts.size_log2) / values_per_key * values_per_key;
}

/// The multimap run: n pairs, values_per_key per key (key j holds values_per_key * j + r for each r),
/// then count, find_all, erase of one instance per key, erase_all of half the keys and a mixed batch,
/// each checked.
template <std::uint32_t SlabBytes, class Backend>
std::vector<timed_step> run_multimap(const Backend& backend, const hash_options& opts, hash::slab_statistics& stats)
{
  using multimap_type = hash::slab_multimap<std::uint32_t, std::uint32_t, Backend, SlabBytes>;
  const std::uint64_t key_count = multimap_pairs(opts) / values_per_key;
  const key_set<std::uint32_t> set{key_count, opts.seed, key_order::shuffled, hash::max_user_key};
  auto distinct = make_buffer<std::uint32_t>(backend, key_count);
  generate_keys(backend, set, distinct.span());
  const std::vector<std::uint32_t> host_distinct = distinct.to_vector();
  std::vector<std::uint32_t> host_keys(key_count * values_per_key);
  std::vector<std::uint32_t> host_values(host_keys.size());
  for (std::uint64_t i = 0; i < host_keys.size(); ++i) {
    host_keys[i] = host_distinct[i / values_per_key];
    host_values[i] = static_cast<std::uint32_t>(i);
  }
  auto keys = make_buffer<std::uint32_t>(backend, host_keys.size());
  keys.copy_from(std::span<const std::uint32_t>(host_keys));
  auto values = make_buffer<std::uint32_t>(backend, host_values.size());
  values.copy_from(std::span<const std::uint32_t>(host_values));
  auto statuses = make_buffer<operation_status>(backend, host_keys.size());
  auto offsets = make_buffer<std::uint64_t>(backend, key_count + 1);
  auto found = make_buffer<std::uint32_t>(backend, host_keys.size());
  multimap_type multimap(
      backend,
      multimap_type::capacity_for(host_keys.size(), opts.base_fill, static_cast<std::uint32_t>(values_per_key)),
      opts.seed);
  const auto distinct_span = std::span<const std::uint32_t>(distinct.data(), key_count);
  std::vector<timed_step> steps;

  {
    progress shown("build");
    timed_step step{"build (insert)", host_keys.size()};
    step.seconds = seconds_of(backend, [&] { multimap.insert(keys.span(), values.span(), statuses.span()); });
    const std::uint64_t inserted = count_of(statuses.to_vector(), operation_status::inserted);
    step.check = std::to_string(inserted) + " of " + std::to_string(host_keys.size()) + " pairs inserted";
    step.passed = inserted == host_keys.size() && multimap.size() == host_keys.size();
    steps.push_back(step);
  }
  stats = multimap.statistics();
  {
    progress shown("find_all");
    timed_step step{"find_all", key_count};
    std::uint64_t total = 0;
    step.seconds = seconds_of(backend, [&] {
      total = multimap.find_all_offsets(distinct_span, offsets.span());
      multimap.find_all(distinct_span, offsets.span(), found.span());
    });
    // Key j's values are values_per_key * j + r: each range, sorted, must be exactly those.
    const auto host_offsets = offsets.to_vector();
    auto host_found = found.to_vector();
    bool ranges_match = total == host_keys.size();
    for (std::uint64_t j = 0; ranges_match && j < key_count; ++j) {
      ranges_match = host_offsets[j] == j * values_per_key;
      const auto first = host_found.begin() + static_cast<std::ptrdiff_t>(j * values_per_key);
      std::sort(first, first + static_cast<std::ptrdiff_t>(values_per_key));
      for (std::uint64_t r = 0; ranges_match && r < values_per_key; ++r) {
        ranges_match = host_found[j * values_per_key + r] == j * values_per_key + r;
      }
    }
    step.check = std::to_string(total) + " values found, expected " + std::to_string(host_keys.size()) +
                 (ranges_match ? ", every key's values" : ", WRONG values");
    step.passed = ranges_match;
    steps.push_back(step);
  }
  {
    progress shown("erase");
    timed_step step{"erase one each", key_count};
    auto erase_statuses = make_buffer<operation_status>(backend, key_count);
    step.seconds = seconds_of(backend, [&] { multimap.erase(distinct_span, erase_statuses.span()); });
    const std::uint64_t erased = count_of(erase_statuses.to_vector(), operation_status::erased);
    const std::uint64_t expected_size = host_keys.size() - key_count;
    step.check = std::to_string(erased) + " erased, " + std::to_string(multimap.size()) + " pairs left, expected " +
                 std::to_string(expected_size);
    step.passed = erased == key_count && multimap.size() == expected_size;
    steps.push_back(step);
  }
  {
    progress shown("erase_all");
    const std::uint64_t half = key_count / 2;
    timed_step step{"erase_all (half)", half};
    auto erase_statuses = make_buffer<operation_status>(backend, half);
    step.seconds = seconds_of(backend, [&] { multimap.erase_all(distinct_span.first(half), erase_statuses.span()); });
    auto counts = make_buffer<std::uint64_t>(backend, key_count);
    multimap.count(distinct_span, counts.span());
    const auto host_counts = counts.to_vector();
    bool counts_match = count_of(erase_statuses.to_vector(), operation_status::erased) == half;
    for (std::uint64_t j = 0; j < key_count; ++j) {
      counts_match = counts_match && host_counts[j] == (j < half ? 0 : values_per_key - 1);
    }
    step.check = std::string("counts after: ") + (counts_match ? "as expected" : "WRONG");
    step.passed = counts_match;
    steps.push_back(step);
  }
  {
    progress shown("mixed batch");
    // One element per key, a quarter each: insert a new value, erase one instance, find (twice). Keys
    // below half hold nothing now, the others values_per_key - 1 of their values, so each outcome is known.
    const std::uint64_t half = key_count / 2;
    std::vector<operation> host_ops(key_count);
    std::vector<std::uint32_t> new_values(key_count);
    for (std::uint64_t j = 0; j < key_count; ++j) {
      host_ops[j] = j % 4 == 0 ? operation::insert : j % 4 == 1 ? operation::erase : operation::find;
      new_values[j] = static_cast<std::uint32_t>(host_keys.size() + j);
    }
    auto ops = make_buffer<operation>(backend, key_count);
    ops.copy_from(std::span<const operation>(host_ops));
    auto values_in = make_buffer<std::uint32_t>(backend, key_count);
    values_in.copy_from(std::span<const std::uint32_t>(new_values));
    auto mixed_statuses = make_buffer<operation_status>(backend, key_count);
    const std::uint64_t size_before = multimap.size();
    timed_step step{"mixed batch", key_count};
    step.seconds = seconds_of(backend, [&] {
      multimap.execute(ops.span(), distinct_span, values_in.span(), found.span().first(key_count),
                       mixed_statuses.span());
    });
    const auto host_statuses = mixed_statuses.to_vector();
    const auto host_found = found.to_vector();
    std::uint64_t wrong = 0;
    for (std::uint64_t j = 0; j < key_count; ++j) {
      const bool holds = j >= half;
      const operation_status expected = host_ops[j] == operation::insert  ? operation_status::inserted
                                        : !holds                          ? operation_status::not_found
                                        : host_ops[j] == operation::erase ? operation_status::erased
                                                                          : operation_status::found;
      const bool value_ok = expected != operation_status::found || host_found[j] / values_per_key == j;
      wrong += host_statuses[j] == expected && value_ok ? 0 : 1;
    }
    const std::uint64_t expected_size = size_before + count_of(host_statuses, operation_status::inserted) -
                                        count_of(host_statuses, operation_status::erased);
    const std::uint64_t size_after = multimap.size();
    step.check = std::to_string(wrong) + " wrong outcomes, " + std::to_string(size_after) + " pairs after, expected " +
                 std::to_string(expected_size);
    step.passed = wrong == 0 && size_after == expected_size;
    steps.push_back(step);
  }
  return steps;
}

/// Batches the --grow run inserts its keys in; the table starts with buckets for one of them.
constexpr std::uint64_t growth_batches = 16;

/// The --grow run: n generated keys of `Key` (values equal to the keys) inserted in growth_batches
/// batches into a map built for one batch, rehash() after a batch whenever the load needs twice the
/// buckets the map has; then every key found. One step per batch that rehashed, and the check of the whole.
template <std::uint32_t SlabBytes, class Key, class Backend>
std::vector<timed_step> run_growth(const Backend& backend, const hash_options& opts, hash::slab_statistics& stats)
{
  using map_type = hash::slab_map<Key, Key, Backend, SlabBytes>;
  const std::uint64_t n = std::uint64_t{1} << opts.size_log2;
  const std::uint64_t batch = std::max<std::uint64_t>(1, n / growth_batches);
  const key_set<Key> set{n, opts.seed, key_order::shuffled, hash::key_encoding<Key>::max_user};
  auto keys = make_buffer<Key>(backend, n);
  generate_keys(backend, set, keys.span());
  const auto all = std::span<const Key>(keys.data(), n);
  map_type map(backend, map_type::capacity_for(batch, opts.base_fill), opts.seed);
  std::vector<timed_step> steps;
  progress shown("grow");
  for (std::uint64_t first = 0; first < n; first += batch) {
    const auto part = all.subspan(first, std::min(batch, n - first));
    const std::uint32_t buckets_before = map.capacity().bucket_count;
    timed_step step{"insert " + std::to_string(first / batch + 1) + "/" + std::to_string(growth_batches), part.size()};
    step.seconds = seconds_of(backend, [&] { map.insert(part, part); });
    const hash::slab_statistics before = map.statistics();
    const std::uint32_t needed = map_type::capacity_for(before.live, opts.base_fill).bucket_count;
    step.passed = before.live == first + part.size();
    step.check = std::to_string(before.live) + " keys, longest list " + std::to_string(before.longest_chain) +
                 " slabs, " + std::to_string(before.super_block_count) + " super blocks";
    if (needed >= 2 * buckets_before) {
      const double rehash_seconds = seconds_of(backend, [&] { map.rehash(); });
      step.check += "; rehash() " + std::to_string(buckets_before) + " -> " +
                    std::to_string(map.capacity().bucket_count) + " buckets in " +
                    std::to_string(rehash_seconds * 1e3) + " ms, longest list " +
                    std::to_string(map.statistics().longest_chain);
    }
    steps.push_back(step);
  }
  auto values = make_buffer<Key>(backend, n);
  auto statuses = make_buffer<operation_status>(backend, n);
  timed_step find_step{"find every key", n};
  find_step.seconds = seconds_of(backend, [&] { map.find(all, values.span(), statuses.span()); });
  const std::uint64_t found = count_of(statuses.to_vector(), operation_status::found);
  const std::vector<Key> host_keys = keys.to_vector();
  const bool values_match = values.to_vector() == host_keys;
  find_step.check = std::to_string(found) + " of " + std::to_string(n) + " found" +
                    (values_match ? ", each with its value" : ", WRONG values");
  find_step.passed = found == n && values_match;
  steps.push_back(find_step);
  stats = map.statistics();
  return steps;
}

/// Prints the steps of a run that has no benchmark rows (each step once, timed alone) and the table's
/// statistics; fails when a step did.
void print_steps(const std::vector<timed_step>& steps, const hash::slab_statistics& stats, const char* when)
{
  bool all_passed = true;
  std::printf("%-18s %12s  %s\n", "step (one run)", "Mops/s", "check");
  for (const timed_step& step : steps) {
    std::printf("%-18s %12.1f  %s: %s\n", step.what.c_str(), static_cast<double>(step.operations) / step.seconds / 1e6,
                step.passed ? "ok" : "FAILED", step.check.c_str());
    all_passed = all_passed && step.passed;
  }
  std::printf(
      "%s: %llu buckets, %.3f slabs per bucket (longest %llu), memory utilization %.3f, "
      "%.2f bytes per live pair, %.1f MB reserved\n",
      when, static_cast<unsigned long long>(stats.bucket_count), stats.mean_slabs_per_bucket,
      static_cast<unsigned long long>(stats.longest_chain), stats.memory_utilization, stats.bytes_per_live_entry,
      static_cast<double>(stats.reserved_bytes) / 1e6);
  WARPDEX_EXPECTS(all_passed, "hash: a step failed its check");
}

/// The --batch-log2 run: the latency of one batch from the call to its results on the host
/// (hash::measure_batch_latency, as the benchmark rows hash/slab_map/latency/... measure it).
void print_batch_latency(backend_choice choice, const hash_options& opts)
{
  const std::uint64_t batch = std::uint64_t{1} << opts.batch_log2;
  const std::uint64_t resident = opts.resident_log2 > 0 ? std::uint64_t{1} << opts.resident_log2 : 0;
  const hash::batch_latency measured = visit_backend(choice, [&](const auto& backend) {
    return hash::measure_batch_latency(backend, batch, cli_timing, opts.seed, {}, resident);
  });
  std::printf(
      "warpdex hash --batch-log2 %u: slab_map on backend %s, batches of %llu keys into maps holding %llu other "
      "keys; median of %d runs from the call to the results in host memory (the stream waited for), seed %llu\n",
      opts.batch_log2, choice == backend_choice::cuda ? "cuda" : "host", static_cast<unsigned long long>(batch),
      static_cast<unsigned long long>(resident), measured.runs, static_cast<unsigned long long>(opts.seed));
  // The lines read as the benchmark's rows (tools/cli_vs_bench.py pairs them): rate, then the time.
  constexpr double us_per_ms = 1000.0;
  auto print_line = [&](const char* what, double ms) {
    std::string operation = std::string("slab_map ") + what + ", batches of 2^" + std::to_string(opts.batch_log2);
    if (opts.resident_log2 > 0) { operation += ", 2^" + std::to_string(opts.resident_log2) + " resident"; }
    std::printf("  warpdex %-48s %10.4f Gops/s  (median %.1f us per batch)\n", operation.c_str(),
                static_cast<double>(batch) / (ms * 1e6), ms * us_per_ms);
  };
  print_line("insert_async", measured.insert_async_ms);
  print_line("insert (synchronous)", measured.insert_ms);
  print_line("insert_async, each key checked, statuses into pinned host memory", measured.insert_to_host_async_ms);
  print_line("find_async", measured.find_async_ms);
  print_line("find (synchronous)", measured.find_ms);
  print_line("find_async, values alone (a default for misses)", measured.find_values_async_ms);
  print_line("find_async, values written into host memory by the find (pinned; no copy)",
             measured.find_values_to_host_async_ms);
  print_line("find (synchronous), values into host memory by the find", measured.find_values_to_host_ms);
  print_line("floor (device copy + results home)", measured.floor_ms);
  if (measured.own_stream_find_values_async_ms > 0) {
    print_line("find_async, values alone, on a non-blocking stream", measured.own_stream_find_values_async_ms);
    print_line("floor on that stream", measured.own_stream_floor_ms);
  }
  const hash::batch_stream stream = visit_backend(choice, [&](const auto& backend) {
    return hash::measure_batch_stream(backend, batch, cli_timing, opts.seed, {}, resident);
  });
  std::printf(
      "  streams of %llu batches enqueued back to back, each with its results copied home, one wait (the "
      "rows hash/slab_map/stream/...):\n",
      static_cast<unsigned long long>(stream.batches));
  print_line("insert_async stream", stream.insert_ms);
  print_line("find_async stream", stream.find_ms);
  print_line("find_async stream, values alone", stream.values_find_ms);
  print_line("insert_async, the stream's keys in one batch", stream.bulk_insert_ms);
  print_line("find_async, the stream's keys in one batch", stream.bulk_find_ms);
  if (stream.graph_find_ms > 0) {
    std::printf(
        "  the same streams captured once into a CUDA graph (%zu operations), each run one launch and one wait:\n",
        stream.graph_nodes);
    print_line("insert_async stream, graph", stream.graph_insert_ms);
    print_line("find_async stream, graph", stream.graph_find_ms);
  }
  // A row as calls and replayed from a graph of them.
  auto print_pair = [&](const std::string& what, const hash::calls_and_graph_ms& ms) {
    print_line(what.c_str(), ms.calls);
    print_line((what + ", graph").c_str(), ms.graph);
  };
  if (stream.own_values_find.calls > 0) {
    std::printf(
        "  on the map's own stream, the values-alone finds as calls and replayed from a graph, and the floor of "
        "such a stream (device copies of the keys, the values home; the rows hash/slab_map/stream/find_values...):\n");
    print_pair("find_async stream, values alone", stream.own_values_find);
    print_pair("find_async stream, values into pinned host memory", stream.values_to_host);
    print_pair("stream floor (device copy + values home)", stream.floor);
  }
  if (stream.insert_each_checked.calls > 0) {
    std::printf(
        "  on the map's own stream, the insertions with their statuses written by the kernel into pinned host "
        "memory, under the whole batch's check and each key's, and each key's with the statuses left on the device, "
        "as calls and replayed from a graph (the rows hash/slab_map/stream/insert_to_host..., "
        "insert_each_checked...):\n");
    print_pair("insert_async stream, statuses into pinned host memory", stream.insert_to_host);
    print_pair("insert_async stream, each key checked, statuses to host", stream.insert_each_checked);
    print_pair("insert_async stream, each key checked, statuses on device", stream.insert_each_checked_device);
  }
  if (stream.find_many_to_host.calls > 0) {
    std::printf(
        "  on the map's own stream, the same batches as one many-batch call (one kernel; results into pinned host "
        "memory, each batch checked whole and alone), per batch, as a call and replayed from a graph (the rows "
        "hash/slab_map/stream/find_many_to_host..., insert_many_to_host...):\n");
    print_pair("find_many_async, values into pinned host memory", stream.find_many_to_host);
    print_pair("insert_many_async, statuses into pinned host memory", stream.insert_many_to_host);
  }
  const bool verified = measured.verified && stream.verified;
  std::printf("  check: %s\n", verified ? "ok (every insertion inserted, every find found its value)" : "FAILED");
  WARPDEX_EXPECTS(verified, "hash --batch-log2: a batch reported wrong results");
}

void print_hash(const global_options& globals, const hash_options& opts)
{
  if (opts.batch_log2 > 0) {
    print_batch_latency(selected_backend(globals), opts);
    return;
  }
  if (opts.gpus > 0) {
    if (opts.key_bits != 32) {
      usage_error("hash --gpus: the distributed map takes 32-bit keys; --key-bits " + std::to_string(opts.key_bits) +
                  " runs with --grow on one device");
    }
    WARPDEX_EXPECTS(selected_backend(globals) == backend_choice::cuda,
                    "hash --gpus: the distributed map runs on GPUs, and the selected backend is host (no GPU here, "
                    "or --backend host)");
    print_sharded_hash(opts.gpus, opts.size_log2, opts.seed);
    return;
  }
  if (opts.key_bits != 32 && !(opts.grow && opts.slab_bytes == hash::default_slab_bytes)) {
    usage_error(
        "hash --key-bits 64: runs with --grow and 128-byte slabs (the other runs compare with a 32-bit "
        "baseline table; the benchmark rows slab_map/.*/key64 measure 64-bit keys)");
  }
  const backend_choice choice = selected_backend(globals);
  const unsigned slab_bytes = opts.slab_bytes;
  // A key file is read and checked before anything is printed or built.
  hash_request from_file = opts.input.empty() ? hash_request{} : file_workload(opts.input, opts.seed);
  if (opts.grow) {
    std::printf(
        "warpdex hash --grow: slab_map of %u-byte slabs on backend %s, n = 2^%u unique %u-bit keys in %llu "
        "batches into a map built for one batch, rehash() when the load needs twice its buckets, base fill "
        "%.2f, seed %llu\n",
        slab_bytes, choice == backend_choice::cuda ? "cuda" : "host", opts.size_log2, opts.key_bits,
        static_cast<unsigned long long>(growth_batches), opts.base_fill, static_cast<unsigned long long>(opts.seed));
    hash::slab_statistics stats;
    const auto steps = visit_backend(choice, [&](const auto& backend) {
      if (opts.key_bits == 64) { return run_growth<hash::default_slab_bytes, std::uint64_t>(backend, opts, stats); }
      return visit_slab_bytes(opts.slab_bytes, [&](auto slab_bytes) {
        return run_growth<decltype(slab_bytes)::value, std::uint32_t>(backend, opts, stats);
      });
    });
    print_steps(steps, stats, "at the end");
    return;
  }
  if (opts.multimap) {
    std::printf(
        "warpdex hash: slab_multimap of %u-byte slabs on backend %s, n = %llu pairs, %llu values per key, base "
        "fill %.2f, seed %llu\n",
        slab_bytes, choice == backend_choice::cuda ? "cuda" : "host",
        static_cast<unsigned long long>(multimap_pairs(opts)), static_cast<unsigned long long>(values_per_key),
        opts.base_fill, static_cast<unsigned long long>(opts.seed));
  } else if (!opts.input.empty()) {
    std::printf("warpdex hash: slab_map of %u-byte slabs on backend %s, keys of '%s', base fill %.2f, seed %llu\n",
                slab_bytes, choice == backend_choice::cuda ? "cuda" : "host", opts.input.c_str(), opts.base_fill,
                static_cast<unsigned long long>(opts.seed));
    const std::uint64_t keys = from_file.keys.size();
    std::printf(
        "  %llu keys, %llu distinct; the most frequent key %llu times (%.1f%% of the keys); rates count every key, "
        "repeats included\n",
        static_cast<unsigned long long>(keys), static_cast<unsigned long long>(from_file.distinct),
        static_cast<unsigned long long>(from_file.most_repeated),
        100.0 * static_cast<double>(from_file.most_repeated) / static_cast<double>(keys));
  } else {
    std::printf(
        "warpdex hash: slab_map of %u-byte slabs on backend %s, n = 2^%u unique 32-bit keys, base fill %.2f, seed "
        "%llu\n",
        slab_bytes, choice == backend_choice::cuda ? "cuda" : "host", opts.size_log2, opts.base_fill,
        static_cast<unsigned long long>(opts.seed));
  }
  if (!opts.multimap) {
    // A key file is read and checked before any table is built.
    hash_request request =
        opts.input.empty() ? generated_hash_request(opts.size_log2, opts.seed) : std::move(from_file);
    request.base_fill = opts.base_fill;
    request.seed = opts.seed;
    request.slab_bytes = opts.slab_bytes;
    std::string statistics;
    std::vector<measurement> results;
    {
      progress shown("build, finds and a mixed batch, each next to the baseline table");
      results = measure_hash(choice, request, cli_timing, statistics);
    }
    bool all_passed = true;
    for (const measurement& m : results) {
      std::printf("%s\n", m.operation.c_str());
      print_measurement(m);
      all_passed = all_passed && m.ok();
    }
    std::printf("%s\n", statistics.c_str());
    WARPDEX_EXPECTS(all_passed, "hash: a step failed its check");
    return;
  }
  // The multimap has no benchmark rows: each of its steps runs once, timed alone.
  hash::slab_statistics stats;
  const auto steps = visit_backend(choice, [&](const auto& backend) {
    return visit_slab_bytes(opts.slab_bytes, [&](auto slab_bytes) {
      return run_multimap<decltype(slab_bytes)::value>(backend, opts, stats);
    });
  });
  print_steps(steps, stats, "after build");
}

}  // namespace

void add_hash_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<hash_options>();
  CLI::App* command = app.add_subcommand("hash",
                                         "Build, query and update a slab hash map; print throughput and "
                                         "utilization");
  CLI::Option* size = command->add_option("--size-log2", opts->size_log2, "Keys to build from, as a power of two")
                          ->check(CLI::Range(1, 30));
  command->add_option("--base-fill", opts->base_fill, "Average fill of the base slabs after the build, in [0.01, 0.8]")
      ->check(CLI::Range(0.01, 0.8));
  command->add_option("--seed", opts->seed, "Seed of the keys and of the bucket hash");
  CLI::Option* multimap =
      command->add_flag("--multimap", opts->multimap,
                        "Use a slab_multimap: keys with several values; count, find_all, erase one / all instances");
  command->add_option("--slab-bytes", opts->slab_bytes, "Bytes in a slab of the table: 128 (default) or 64")
      ->check(whole_number_in({64, 128}));
  CLI::Option* grow = command->add_flag(
      "--grow", opts->grow,
      "Insert the keys in 16 batches into a map built for one batch, growing it with rehash() when the load needs "
      "twice its buckets; print each batch, each rehash and the lists");
  grow->excludes(multimap);
  command
      ->add_option("--key-bits", opts->key_bits,
                   "Bits of the keys and values: 32 (default) or 64 (with --grow: a map of 64-bit keys and values)")
      ->check(whole_number_in({32, 64}));
  command
      ->add_option("--input", opts->input,
                   "Build from the keys of FILE: raw little-endian 32-bit keys (repeats allowed; the reserved keys "
                   "0xfffffffe and 0xffffffff are rejected)")
      ->type_name("FILE")
      ->excludes(size)
      ->excludes(multimap)
      ->excludes(grow);
  command
      ->add_option("--gpus", opts->gpus,
                   "Shard the map over the first N GPUs, one process driving them all (NCCL): build and find, per GPU "
                   "and in total, next to one GPU holding every key, and NCCL's all-to-all bandwidth")
      ->type_name("N")
      ->check(CLI::Range(1, 1024))
      ->excludes(multimap)
      ->excludes(grow)
      ->excludes("--input")
      ->excludes("--slab-bytes");
  CLI::Option* batch_log2 =
      command
          ->add_option("--batch-log2", opts->batch_log2,
                       "Measure the latency of one batch of 2^K keys instead: insert_async and find_async (and the "
                       "synchronous calls) from the call to the results on the host, as the benchmark rows "
                       "hash/slab_map/latency/... do, and the throughput of streams of such batches (the rows "
                       "hash/slab_map/stream/...)")
          ->type_name("K")
          ->check(CLI::Range(1, 24))
          ->excludes(size)
          ->excludes(multimap)
          ->excludes(grow)
          ->excludes("--input")
          ->excludes("--gpus")
          ->excludes("--slab-bytes")
          ->excludes("--key-bits")
          ->excludes("--base-fill");
  command
      ->add_option("--resident-log2", opts->resident_log2,
                   "With --batch-log2: the maps also hold 2^R other keys, as a table fed many small batches does "
                   "(the rows hash/slab_map/latency/.../resident=2^R)")
      ->type_name("R")
      ->check(CLI::Range(1, 26))
      ->needs(batch_log2);
  command->callback([opts, &globals] { print_hash(globals, *opts); });
}

}  // namespace warpdex::cli
