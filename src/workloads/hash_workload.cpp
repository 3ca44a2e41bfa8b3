// The slab_map workload of `warpdex hash` and the demo tour.
#include "workloads.hpp"

#include "hash_baseline.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/hash/slab_map.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <type_traits>

namespace warpdex::workloads {
namespace {

using hash::operation;
using hash::operation_status;

std::uint64_t count_of(const std::vector<operation_status>& statuses, operation_status wanted)
{
  return static_cast<std::uint64_t>(std::count(statuses.begin(), statuses.end(), wanted));
}

template <std::uint32_t SlabBytes, class Backend>
std::vector<measurement> hash_on(const Backend& backend, const hash_request& request, const timing_options& timing,
                                 std::string& statistics)
{
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, Backend, SlabBytes>;
  const std::uint64_t n = request.keys.size();
  WARPDEX_EXPECTS(n > 0, "hash: no keys to build from");
  auto started = std::chrono::steady_clock::now();
  auto keys = make_buffer<std::uint32_t>(backend, n);
  keys.copy_from(std::span<const std::uint32_t>(request.keys));
  auto absent = make_buffer<std::uint32_t>(backend, n);
  absent.copy_from(std::span<const std::uint32_t>(request.absent));
  auto values = make_buffer<std::uint32_t>(backend, n);
  auto statuses = make_buffer<operation_status>(backend, n);
  // A quarter each: insert absent keys, erase built keys, find built keys, find absent keys.
  std::vector<operation> host_ops(n);
  std::vector<std::uint32_t> mixed_keys(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    host_ops[i] = i % 4 == 0 ? operation::insert : i % 4 == 1 ? operation::erase : operation::find;
    mixed_keys[i] = i % 4 == 0 || i % 4 == 3 ? request.absent[i] : request.keys[i];
  }
  auto ops = make_buffer<operation>(backend, n);
  ops.copy_from(std::span<const operation>(host_ops));
  auto mixed = make_buffer<std::uint32_t>(backend, n);
  mixed.copy_from(std::span<const std::uint32_t>(mixed_keys));
  // The table holds at most the distinct keys plus the mixed batch's insertions of absent keys (a
  // quarter of n). Buckets for that peak at 1.25 times base_fill, so distinct keys (peak 1.25 n) fill
  // the base slabs to base_fill after the build and the pool holds the insertions; repeated keys
  // (a peak far above the distinct keys) get the buckets their insertions need, where buckets for the
  // distinct keys alone would crowd the insertions into a few long lists (one key repeated n times:
  // one bucket, and a mixed batch quadratic in n).
  const std::uint64_t peak_keys = request.distinct + (n + 3) / 4;
  constexpr double uniform_peak_ratio = 1.25;
  map_type map(backend, map_type::capacity_for(peak_keys, uniform_peak_ratio * request.base_fill), request.seed);
  auto baseline = make_hash_baseline(backend, peak_keys);
  backend.synchronize();
  const double setup_seconds = seconds_since(started);

  const auto key_span = std::as_const(keys).span();
  const auto absent_span = std::as_const(absent).span();
  const auto op_span = std::as_const(ops).span();
  const auto mixed_span = std::as_const(mixed).span();
  const auto build = [&] { map.insert(key_span, key_span, statuses.span()); };
  const auto rebuild = [&] {
    map.clear();
    build();
  };
  const auto baseline_build = [&] { baseline.apply(backend, {}, operation::insert, key_span, key_span, {}, {}); };
  const auto baseline_rebuild = [&] {
    baseline.clear();
    baseline_build();
  };
  const auto step = [&](std::string operation_name) {
    measurement m = make_measurement("hash", std::move(operation_name), Backend::name, n, "Gops/s");
    m.setup_seconds = setup_seconds;
    m.baseline = std::remove_cvref_t<decltype(baseline)>::name();
    m.checked = true;
    return m;
  };
  std::vector<measurement> results;

  {
    measurement m = step("slab_map build");
    m.baseline_ms = median_ms(backend, timing, baseline_build, [&] { baseline.clear(); });
    m.median_ms = median_ms(backend, timing, build, [&] { map.clear(); });
    started = std::chrono::steady_clock::now();
    const auto host_statuses = statuses.to_vector();
    const std::uint64_t inserted = count_of(host_statuses, operation_status::inserted);
    const std::uint64_t repeated = count_of(host_statuses, operation_status::already_present);
    m.passed = inserted == request.distinct && inserted + repeated == n && map.size() == request.distinct;
    m.check = std::to_string(inserted) + " inserted, " + std::to_string(repeated) + " repeated, expected " +
              std::to_string(request.distinct) + " distinct";
    m.check_seconds = seconds_since(started);
    results.push_back(std::move(m));
  }
  const hash::slab_statistics stats = map.statistics();
  char text[256];
  std::snprintf(text, sizeof text,
                "after build: %llu buckets, %.3f slabs per bucket (longest %llu), memory utilization %.3f, %.2f bytes "
                "per live pair, %.1f MB reserved",
                static_cast<unsigned long long>(stats.bucket_count), stats.mean_slabs_per_bucket,
                static_cast<unsigned long long>(stats.longest_chain), stats.memory_utilization,
                stats.bytes_per_live_entry, static_cast<double>(stats.reserved_bytes) / 1e6);
  statistics = text;

  for (const bool present : {true, false}) {
    if (!present && !request.mixed) { break; }
    measurement m = step(present ? "slab_map find present" : "slab_map find absent");
    const auto queries = present ? key_span : absent_span;
    m.baseline_ms = median_ms(backend, timing, [&] {
      baseline.apply(backend, {}, operation::find, queries, {}, values.span(), statuses.span());
    });
    m.median_ms = median_ms(backend, timing, [&] { map.find(queries, values.span(), statuses.span()); });
    started = std::chrono::steady_clock::now();
    const auto host_statuses = statuses.to_vector();
    const auto host_values = values.to_vector();
    const std::uint64_t found = count_of(host_statuses, operation_status::found);
    std::uint64_t wrong_values = 0;
    for (std::uint64_t i = 0; present && i < n; ++i) { wrong_values += host_values[i] != request.keys[i] ? 1 : 0; }
    m.passed = found == (present ? n : 0) && wrong_values == 0;
    m.check = std::to_string(found) + " found, expected " + std::to_string(present ? n : 0) + ", " +
              std::to_string(wrong_values) + " wrong values";
    m.check_seconds = seconds_since(started);
    results.push_back(std::move(m));
  }
  if (request.mixed) {
    measurement m = step("slab_map mixed batch");
    m.baseline_ms = median_ms(
        backend, timing,
        [&] {
          baseline.apply(backend, op_span, operation::find, mixed_span, mixed_span, values.span(), statuses.span());
        },
        baseline_rebuild);
    m.median_ms = median_ms(
        backend, timing, [&] { map.execute(op_span, mixed_span, mixed_span, values.span(), statuses.span()); },
        rebuild);
    started = std::chrono::steady_clock::now();
    const auto host_statuses = statuses.to_vector();
    const std::uint64_t size = map.size();
    const std::uint64_t expected = request.distinct + count_of(host_statuses, operation_status::inserted) -
                                   count_of(host_statuses, operation_status::erased);
    m.passed = size == expected && count_of(host_statuses, operation_status::out_of_memory) == 0;
    m.check = std::to_string(size) + " keys after, expected " + std::to_string(expected);
    m.check_seconds = seconds_since(started);
    results.push_back(std::move(m));
  }
  return results;
}

}  // namespace

std::vector<measurement> measure_hash(backend_choice backend, const hash_request& request, const timing_options& timing,
                                      std::string& statistics)
{
  WARPDEX_EXPECTS(hash::is_supported_slab_size(request.slab_bytes),
                  "hash --slab-bytes: slabs are 64 or 128 bytes, got " + std::to_string(request.slab_bytes));
  WARPDEX_EXPECTS(request.absent.size() == request.keys.size(), "hash: one absent key per built key");
  return visit_backend(backend, [&](const auto& on) {
    constexpr std::uint32_t small_slab_bytes = 64;
    if (request.slab_bytes == small_slab_bytes) { return hash_on<small_slab_bytes>(on, request, timing, statistics); }
    return hash_on<hash::default_slab_bytes>(on, request, timing, statistics);
  });
}

hash_request generated_hash_request(std::uint32_t size_log2, std::uint64_t seed)
{
  const std::uint64_t n = std::uint64_t{1} << size_log2;
  const key_set<std::uint32_t> set{n, seed, key_order::shuffled, hash::max_user_key};
  hash_request request;
  request.keys.resize(n);
  request.absent.resize(n);
  generate_keys(host{}, set, std::span<std::uint32_t>(request.keys));
  generate_queries(host{}, set, 1.0, seed + 1, std::span<std::uint32_t>(request.absent));
  request.distinct = n;
  request.seed = seed;
  return request;
}

}  // namespace warpdex::workloads
