#pragma once
/// @file The latency of one small batch of a slab_map as a caller sees it: from the host call to the
/// results in host memory, measured the one way that `warpdex hash --batch-log2` and the benchmark rows
/// hash/slab_map/latency/... both report.
///
/// Each timed run, on the host's steady clock: the `_async` call, the copy of its outputs into host
/// memory (statuses; a find's values too) enqueued after it, and the wait for the stream. The same
/// run with the synchronous call, and a floor: a device copy of the batch's keys plus the same copy to
/// the host and wait, the least any GPU batch whose results reach the host costs (two enqueues and a
/// wait). Insertions run into a map emptied (clear, untimed) before every run, finds on a map built
/// from the batch's keys, so every run does the same work. With `resident` keys, both maps also hold
/// that many other keys, as a table fed many small batches does: the insertion map is sized for them and
/// the batch, and after each insertion run the batch is erased and the map flushed (untimed), so every
/// run meets the same lists. Without them, a batch's keys are all its table holds: the batch's
/// insertions meet in few lists, which is the slowest case (a 2^10-key batch in about 110 lists).

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/stream.hpp>
#include <warpdex/core/timing.hpp>
#include <warpdex/hash/slab_map.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

namespace warpdex::hash {

/// Median milliseconds per batch of each way of running it, and whether the results were right.
struct batch_latency {
  std::uint64_t batch_size = 0;
  std::uint64_t resident = 0;  ///< other keys the maps held
  int runs = 0;                ///< timed runs behind each median
  double insert_async_ms = 0;  ///< insert_async into an empty map + statuses to the host + wait
  double find_async_ms = 0;    ///< find_async of present keys + values and statuses to the host + wait
  double insert_ms = 0;        ///< the synchronous insert, timed the same way
  /// insert_async with the statuses written by its kernel straight into pinned host memory (no copy
  /// home), each key checked alone (batch_check::each_element: the insertion kernel alone at any size) +
  /// wait; into a map emptied before every run as insert_async_ms
  double insert_to_host_async_ms = 0;
  double find_ms = 0;  ///< the synchronous find, timed the same way
  /// find_async(keys, values, default_value) of present keys + the values alone to the host + wait: one
  /// output, the contract of cuCollections' find (a sentinel for a missing key), so one copy home
  double find_values_async_ms = 0;
  /// The same find with the values written by its kernel straight into pinned host memory (no copy): the
  /// `_async` call + wait, and the synchronous call (its report read back, one wait) alone
  double find_values_to_host_async_ms = 0;
  double find_values_to_host_ms = 0;
  /// find_values_async_ms and floor_ms on a stream of the map's own (cudaStreamNonBlocking, as a
  /// library's caller often has) instead of the legacy default stream; 0 on the host backend
  double own_stream_find_values_async_ms = 0;
  double own_stream_floor_ms = 0;
  double floor_ms = 0;    ///< a device copy of the keys + statuses' bytes to the host + wait
  bool verified = false;  ///< every insertion reported inserted, every find found its value
};

/// Timed runs of each latency on the cuda backend (at least this many, more when the timing options ask
/// for more): single runs last microseconds and vary with the host thread's scheduling, so the median
/// needs many of them. The host backend times the runs the options ask for (its runs are longer).
inline constexpr int min_latency_repetitions = 200;

namespace detail {
/// Copies `bytes` from the backend's memory to host memory or the backend's memory, ordered on its stream.
template <class Backend>
void copy_bytes_on(const Backend& backend, void* destination, const void* source, std::size_t bytes)
{
  if constexpr (requires { backend.stream; }) {
    warpdex::detail::copy_device_bytes(destination, source, bytes, backend.stream);
  } else {
    std::memcpy(destination, source, bytes);
  }
}

/// Host memory for a backend's results: pinned on the cuda backend, so the copies there are plain
/// asynchronous copies.
template <class T, class Backend>
buffer<T> host_side_buffer(std::size_t size)
{
#if WARPDEX_HAS_CUDA
  if constexpr (std::is_same_v<Backend, cuda>) { return make_pinned_buffer<T>(size); }
#endif
  return make_host_buffer<T>(size);
}

/// The timed runs of a latency measurement: the warm-up and repetitions of `timing`, on the cuda backend
/// at least min_latency_repetitions.
template <class Backend>
timing_options latency_runs(const timing_options& timing)
{
  return {timing.warmup,
          std::is_same_v<Backend, host> ? timing.repetitions : std::max(timing.repetitions, min_latency_repetitions)};
}

/// `count` distinct generated keys: the measured batches' first, then the residents'.
template <class Backend>
buffer<std::uint32_t> distinct_generated_keys(const Backend& backend, std::uint64_t count, std::uint64_t seed)
{
  auto keys = make_buffer<std::uint32_t>(backend, count);
  generate_keys(backend, key_set<std::uint32_t>{count, seed, key_order::shuffled, max_user_key}, keys.span());
  return keys;
}

/// A map with `options` holding the residents (value = key), sized for them and `measured` keys more.
template <class Map>
Map map_holding(const typename Map::backend_type& backend, std::uint64_t measured,
                std::span<const std::uint32_t> residents, const batch_options& options)
{
  Map map(backend, Map::capacity_for(measured + residents.size()));
  map.set_batch_options(options);
  if (!residents.empty()) { map.insert(residents, residents); }
  return map;
}

/// Takes `measured` keys back out of `map` (untimed, between runs): clears a map without residents;
/// else erases them and flushes, or every run would meet more erased slots.
template <class Map>
void take_back(Map& map, std::span<const std::uint32_t> measured, bool has_residents)
{
  if (!has_residents) {
    map.clear();
  } else {
    map.erase(measured);
    map.flush();
  }
  map.backend().synchronize();
}
}  // namespace detail

/// Measures batch_latency for batches of `batch_size` distinct generated keys (values = keys + 1) on
/// `backend`, the maps holding `resident` other keys, running with `options`, with the warm-up of `timing`
/// and its repetitions (on the cuda backend at least min_latency_repetitions). O(runs * batch_size) timed;
/// with residents, O(runs * (batch_size + resident)) in all (the flushes).
template <class Backend>
batch_latency measure_batch_latency(const Backend& backend, std::uint64_t batch_size, const timing_options& timing,
                                    std::uint64_t seed, const batch_options& options = {}, std::uint64_t resident = 0)
{
  using map_type = slab_map<std::uint32_t, std::uint32_t, Backend>;
  const timing_options runs = detail::latency_runs<Backend>(timing);
  auto all_keys = detail::distinct_generated_keys(backend, batch_size + resident, seed);
  const auto keys = all_keys.span().subspan(0, batch_size);
  const auto resident_keys = all_keys.span().subspan(batch_size);
  std::vector<std::uint32_t> host_keys = all_keys.to_vector();
  host_keys.resize(batch_size);
  std::vector<std::uint32_t> host_values(batch_size);
  std::transform(host_keys.begin(), host_keys.end(), host_values.begin(), [](std::uint32_t key) { return key + 1; });
  auto values = make_buffer<std::uint32_t>(backend, batch_size);
  values.copy_from(std::span<const std::uint32_t>(host_values));
  auto statuses = make_buffer<operation_status>(backend, batch_size);
  auto values_out = make_buffer<std::uint32_t>(backend, batch_size);
  auto copied_keys = make_buffer<std::uint32_t>(backend, batch_size);
  auto host_statuses = detail::host_side_buffer<operation_status, Backend>(batch_size);
  auto host_found = detail::host_side_buffer<std::uint32_t, Backend>(batch_size);
  const std::size_t status_bytes = statuses.size_bytes();
  auto statuses_home = [&] { detail::copy_bytes_on(backend, host_statuses.data(), statuses.data(), status_bytes); };
  auto results_home = [&] {
    statuses_home();
    detail::copy_bytes_on(backend, host_found.data(), values_out.data(), values_out.size_bytes());
  };
  auto all_are = [&](operation_status wanted) {
    return std::all_of(host_statuses.data(), host_statuses.data() + batch_size,
                       [&](operation_status status) { return status == wanted; });
  };

  batch_latency result;
  result.batch_size = batch_size;
  result.resident = resident;
  result.runs = runs.repetitions;
  // One timed run: the call, the copy of its outputs home, the wait.
  auto time_runs = [&](const std::function<void()>& call, const std::function<void()>& home,
                       const std::function<void()>& prepare) {
    return median_ms(
        host{}, runs,
        [&] {
          call();
          home();
          backend.synchronize();
        },
        prepare);
  };
  const std::span<const std::uint32_t> batch_keys = keys;
  auto holding_residents = [&] { return detail::map_holding<map_type>(backend, batch_size, resident_keys, options); };
  map_type inserted = holding_residents();
  auto without_batch = [&] { detail::take_back(inserted, batch_keys, resident > 0); };
  result.insert_async_ms = time_runs([&] { inserted.insert_async(batch_keys, values.span(), statuses.span()); },
                                     statuses_home, without_batch);
  bool verified = all_are(operation_status::inserted) && inserted.size() == batch_size + resident;
  result.insert_ms =
      time_runs([&] { inserted.insert(batch_keys, values.span(), statuses.span()); }, statuses_home, without_batch);
  verified = verified && all_are(operation_status::inserted);
  {
    batch_options each_key = options;
    each_key.check = batch_check::each_element;
    inserted.set_batch_options(each_key);
    const std::span<operation_status> statuses_at_home(host_statuses.data(), batch_size);
    std::fill_n(host_statuses.data(), batch_size, operation_status::rejected);
    result.insert_to_host_async_ms =
        time_runs([&] { inserted.insert_async(batch_keys, values.span(), statuses_at_home); }, [] {}, without_batch);
    verified = verified && all_are(operation_status::inserted);
    inserted.set_batch_options(options);
  }

  map_type built = holding_residents();
  built.insert(batch_keys, values.span());
  auto found_all = [&] {
    return all_are(operation_status::found) && std::equal(host_values.begin(), host_values.end(), host_found.data());
  };
  result.find_async_ms =
      time_runs([&] { built.find_async(batch_keys, values_out.span(), statuses.span()); }, results_home, {});
  verified = verified && found_all();
  result.find_ms = time_runs([&] { built.find(batch_keys, values_out.span(), statuses.span()); }, results_home, {});
  verified = verified && found_all();
  auto values_home = [&] {
    detail::copy_bytes_on(backend, host_found.data(), values_out.data(), values_out.size_bytes());
  };
  constexpr std::uint32_t missing = 0;  // no key's value (values are keys + 1, keys below the reserved ones)
  std::fill_n(host_found.data(), batch_size, missing);
  result.find_values_async_ms =
      time_runs([&] { built.find_async(batch_keys, values_out.span(), missing); }, values_home, {});
  verified = verified && std::equal(host_values.begin(), host_values.end(), host_found.data());

  // Results where the caller asked: the kernel writes the values into the pinned host buffer itself.
  const std::span<std::uint32_t> values_at_home(host_found.data(), batch_size);
  auto nothing_home = [] {};
  std::fill_n(host_found.data(), batch_size, missing);
  result.find_values_to_host_async_ms =
      time_runs([&] { built.find_async(batch_keys, values_at_home, missing); }, nothing_home, {});
  verified = verified && std::equal(host_values.begin(), host_values.end(), host_found.data());
  std::fill_n(host_found.data(), batch_size, missing);
  result.find_values_to_host_ms = time_runs([&] { built.find(batch_keys, values_at_home, missing); }, nothing_home, {});
  verified = verified && std::equal(host_values.begin(), host_values.end(), host_found.data());

  result.floor_ms = time_runs(
      [&] { detail::copy_bytes_on(backend, copied_keys.data(), keys.data(), keys.size_bytes()); }, statuses_home, {});
  verified = verified && copied_keys.to_vector() == host_keys;

#if WARPDEX_HAS_CUDA
  if constexpr (std::is_same_v<Backend, cuda>) {
    // The values find and the floor again with the map on a non-blocking stream of its own.
    backend.synchronize();
    const owned_stream own;
    const cuda on_own{own.get()};
    map_type own_built = detail::map_holding<map_type>(on_own, batch_size, resident_keys, options);
    own_built.insert(batch_keys, values.span());
    auto own_values_home = [&] {
      detail::copy_bytes_on(on_own, host_found.data(), values_out.data(), values_out.size_bytes());
    };
    auto own_runs = [&](const std::function<void()>& call, const std::function<void()>& home) {
      return median_ms(host{}, runs,
                       [&] {
                         call();
                         home();
                         on_own.synchronize();
                       },
                       {});
    };
    std::fill_n(host_found.data(), batch_size, missing);
    result.own_stream_find_values_async_ms =
        own_runs([&] { own_built.find_async(batch_keys, values_out.span(), missing); }, own_values_home);
    verified = verified && std::equal(host_values.begin(), host_values.end(), host_found.data());
    result.own_stream_floor_ms =
        own_runs([&] { detail::copy_bytes_on(on_own, copied_keys.data(), keys.data(), keys.size_bytes()); },
                 [&] { detail::copy_bytes_on(on_own, host_statuses.data(), statuses.data(), status_bytes); });
  }
#endif
  result.verified = verified;
  return result;
}

/// A stream on the map's own stream timed two ways, per batch: as calls (one wait a stream) and replayed
/// from a CUDA graph captured once of the same calls (core/stream.hpp). 0 on the host backend.
struct calls_and_graph_ms {
  double calls = 0;
  double graph = 0;
  [[nodiscard]] double& of(bool replayed) { return replayed ? graph : calls; }
};

/// Milliseconds per batch of a stream of small batches, the way a table fed many of them is used: each
/// batch's `_async` call and the copy of its outputs into host memory enqueued back to back, one wait
/// after the last; next to the same keys in one batch (the bulk rate a stream of small batches can at
/// best approach). Measured like batch_latency, into maps holding `resident` other keys.
struct batch_stream {
  std::uint64_t batch_size = 0;
  std::uint64_t resident = 0;
  std::uint64_t batches = 0;  ///< batches in each timed stream
  int runs = 0;               ///< timed runs behind each median
  double insert_ms = 0;       ///< per batch: insert_async + statuses home, one wait at the end
  double find_ms = 0;         ///< per batch: find_async of present keys + values and statuses home
  double bulk_insert_ms = 0;  ///< per batch's worth: one insert_async of every batch's keys + statuses home + wait
  double bulk_find_ms = 0;    ///< the same for one find_async
  /// Per batch: find_async(keys, values, default_value) + the values alone home, one wait at the end
  double values_find_ms = 0;
  /// Per batch: the stream's insert_async calls and copies home captured once into a CUDA graph
  /// (core/stream.hpp), each run one launch of it and one wait; the maps on a stream of their own. 0 on
  /// the host backend.
  double graph_insert_ms = 0;
  double graph_find_ms = 0;     ///< the same for the find stream
  std::size_t graph_nodes = 0;  ///< operations in the find stream's graph (kernels and copies)
  /// The values-alone finds on the map's own stream, per batch, one wait a stream: `values_find_ms`'s
  /// calls (find_async(keys, values, default_value) + the values home); and the same find writing its
  /// values into pinned host memory (no copy).
  calls_and_graph_ms own_values_find;
  calls_and_graph_ms values_to_host;
  /// The floor of a stream on the map's own stream, per batch: a device copy of the batch's keys and the
  /// values' bytes home.
  calls_and_graph_ms floor;
  /// The insertion stream on the map's own stream with its statuses written by the kernel straight into
  /// pinned host memory (no copy home), per batch: under the whole batch's input check
  /// (batch_check::whole_batch: past 2048 keys a check kernel and the insertion) and under each element's
  /// (batch_check::each_element: the insertion kernel alone).
  calls_and_graph_ms insert_to_host;
  calls_and_graph_ms insert_each_checked;
  /// The same one-kernel insertions (each key checked alone) with the statuses left in device memory, no
  /// copy home: the kernel's own pace.
  calls_and_graph_ms insert_each_checked_device;
  /// The stream's batches as one many-batch call (slab_map::find_many_async, insert_many_async: the
  /// batches laid end to end, offsets marking them, one kernel), its results written into pinned host
  /// memory (the finds' values; the insertions' statuses, each batch checked whole and alone), per
  /// batch: the one call and a wait, and replayed from a graph of it. Beside values_to_host and
  /// insert_to_host, the same batches as calls of their own.
  calls_and_graph_ms find_many_to_host;
  calls_and_graph_ms insert_many_to_host;
  bool verified = false;  ///< every insertion inserted, every find found its value, in every form
};

/// The batches of a stream of `batch_size`-key batches: 64, or fewer so that a stream holds at most 2^20
/// keys (at least one batch).
[[nodiscard]] inline std::uint64_t stream_batches_for(std::uint64_t batch_size)
{
  constexpr std::uint64_t most_batches = 64;
  constexpr std::uint64_t most_keys = std::uint64_t{1} << 20;
  return std::max<std::uint64_t>(1, std::min(most_batches, most_keys / std::max<std::uint64_t>(batch_size, 1)));
}

/// Measures batch_stream for stream_batches_for(batch_size) batches of distinct generated keys (values =
/// keys + 1) on `backend`, with the runs of measure_batch_latency. Insertions run into a map holding the
/// residents, the stream's keys erased and the map flushed (untimed) after every run; finds on a map
/// holding the residents and every batch. O(runs * (stream keys + resident)).
template <class Backend>
batch_stream measure_batch_stream(const Backend& backend, std::uint64_t batch_size, const timing_options& timing,
                                  std::uint64_t seed, const batch_options& options = {}, std::uint64_t resident = 0)
{
  using map_type = slab_map<std::uint32_t, std::uint32_t, Backend>;
  const timing_options runs = detail::latency_runs<Backend>(timing);
  batch_stream result;
  result.batch_size = batch_size;
  result.resident = resident;
  result.batches = stream_batches_for(batch_size);
  result.runs = runs.repetitions;
  const std::uint64_t stream_keys = batch_size * result.batches;
  auto all_keys = detail::distinct_generated_keys(backend, stream_keys + resident, seed);
  const std::span<const std::uint32_t> keys = all_keys.span().subspan(0, stream_keys);
  const std::span<const std::uint32_t> resident_keys = all_keys.span().subspan(stream_keys);
  std::vector<std::uint32_t> host_values = all_keys.to_vector();
  host_values.resize(stream_keys);
  for (std::uint32_t& value : host_values) { value += 1; }
  auto values = make_buffer<std::uint32_t>(backend, stream_keys);
  values.copy_from(std::span<const std::uint32_t>(host_values));
  auto statuses = make_buffer<operation_status>(backend, stream_keys);
  auto values_out = make_buffer<std::uint32_t>(backend, stream_keys);
  auto host_statuses = detail::host_side_buffer<operation_status, Backend>(stream_keys);
  auto host_found = detail::host_side_buffer<std::uint32_t, Backend>(stream_keys);

  auto holding_residents = [&] { return detail::map_holding<map_type>(backend, stream_keys, resident_keys, options); };
  // The stream's batches, and all of it as one batch (bulk): where each starts and its size. Made once,
  // outside the timed runs.
  struct part {
    std::uint64_t first, count;
  };
  std::vector<part> stream_parts;
  for (std::uint64_t b = 0; b < result.batches; ++b) { stream_parts.push_back({b * batch_size, batch_size}); }
  const std::vector<part> bulk_parts{{0, stream_keys}};
  auto parts = [&](bool bulk) -> const std::vector<part>& { return bulk ? bulk_parts : stream_parts; };
  auto home_on = [&](const Backend& on, const part& p, bool with_values) {
    detail::copy_bytes_on(on, host_statuses.data() + p.first, statuses.data() + p.first,
                          p.count * sizeof(operation_status));
    if (with_values) {
      detail::copy_bytes_on(on, host_found.data() + p.first, values_out.data() + p.first,
                            p.count * sizeof(std::uint32_t));
    }
  };
  auto home = [&](const part& p, bool with_values) { home_on(backend, p, with_values); };
  auto all_are = [&](operation_status wanted) {
    return std::all_of(host_statuses.data(), host_statuses.data() + stream_keys,
                       [&](operation_status status) { return status == wanted; });
  };
  auto per_batch = [&](double ms) { return ms / static_cast<double>(result.batches); };

  map_type inserted = holding_residents();
  auto without_stream = [&] { detail::take_back(inserted, keys, resident > 0); };
  auto insert_ms = [&](bool bulk) {
    return per_batch(median_ms(
        host{}, runs,
        [&] {
          for (const part& p : parts(bulk)) {
            inserted.insert_async(keys.subspan(p.first, p.count), values.span().subspan(p.first, p.count),
                                  statuses.span().subspan(p.first, p.count));
            home(p, false);
          }
          backend.synchronize();
        },
        without_stream));
  };
  result.insert_ms = insert_ms(false);
  bool verified = all_are(operation_status::inserted) && inserted.size() == stream_keys + resident;
  result.bulk_insert_ms = insert_ms(true);
  verified = verified && all_are(operation_status::inserted);

  map_type built = holding_residents();
  built.insert(keys, values.span());
  auto find_ms = [&](bool bulk) {
    return per_batch(median_ms(host{}, runs,
                               [&] {
                                 for (const part& p : parts(bulk)) {
                                   built.find_async(keys.subspan(p.first, p.count),
                                                    values_out.span().subspan(p.first, p.count),
                                                    statuses.span().subspan(p.first, p.count));
                                   home(p, true);
                                 }
                                 backend.synchronize();
                               },
                               {}));
  };
  auto found_all = [&] {
    return all_are(operation_status::found) && std::equal(host_values.begin(), host_values.end(), host_found.data());
  };
  result.find_ms = find_ms(false);
  verified = verified && found_all();
  result.bulk_find_ms = find_ms(true);
  verified = verified && found_all();
  constexpr std::uint32_t missing = 0;  // no key's value (values are keys + 1)
  std::fill_n(host_found.data(), stream_keys, missing);
  result.values_find_ms = per_batch(median_ms(
      host{}, runs,
      [&] {
        for (const part& p : stream_parts) {
          built.find_async(keys.subspan(p.first, p.count), values_out.span().subspan(p.first, p.count), missing);
          detail::copy_bytes_on(backend, host_found.data() + p.first, values_out.data() + p.first,
                                p.count * sizeof(std::uint32_t));
        }
        backend.synchronize();
      },
      {}));
  verified = verified && std::equal(host_values.begin(), host_values.end(), host_found.data());

#if WARPDEX_HAS_CUDA
  if constexpr (std::is_same_v<Backend, cuda>) {
    // The same streams captured once and replayed: the maps on a stream of their own (the legacy default
    // stream cannot be captured), the outputs poisoned before each check.
    backend.synchronize();
    const owned_stream own;
    const cuda on_own{own.get()};
    auto poison = [&] {
      std::fill_n(host_statuses.data(), stream_keys, operation_status::rejected);
      std::fill_n(host_found.data(), stream_keys, std::uint32_t{0});
    };
    auto graph_ms = [&](map_type& map, bool finds, const std::function<void()>& prepare) {
      const captured_graph graph(own.get(), [&] {
        for (const part& p : stream_parts) {
          const auto batch_keys = keys.subspan(p.first, p.count);
          if (finds) {
            map.find_async(batch_keys, values_out.span().subspan(p.first, p.count),
                           statuses.span().subspan(p.first, p.count));
          } else {
            map.insert_async(batch_keys, values.span().subspan(p.first, p.count),
                             statuses.span().subspan(p.first, p.count));
          }
          home_on(on_own, p, finds);
        }
      });
      if (finds) { result.graph_nodes = graph.node_count(); }
      poison();
      return per_batch(median_ms(
          host{}, runs,
          [&] {
            graph.launch(own.get());
            on_own.synchronize();
          },
          prepare));
    };
    map_type graph_inserted = detail::map_holding<map_type>(on_own, stream_keys, resident_keys, options);
    result.graph_insert_ms =
        graph_ms(graph_inserted, false, [&] { detail::take_back(graph_inserted, keys, resident > 0); });
    verified = verified && all_are(operation_status::inserted) && graph_inserted.size() == stream_keys + resident;
    map_type graph_built = detail::map_holding<map_type>(on_own, stream_keys, resident_keys, options);
    graph_built.insert(keys, values.span());
    result.graph_find_ms = graph_ms(graph_built, true, {});
    verified = verified && found_all();

    // The insertions with their statuses written into pinned host memory, under either input check, and
    // the one-kernel form with its statuses left in device memory; each loop timed uncaptured and
    // replayed from a graph of it, into a map of its own.
    for (int form = 0; form < 3; ++form) {  // whole batch's check, each key's, each key's into device memory
      const batch_check check = form == 0 ? batch_check::whole_batch : batch_check::each_element;
      const bool on_device = form == 2;
      batch_options checked = options;
      checked.check = check;
      map_type to_host = detail::map_holding<map_type>(on_own, stream_keys, resident_keys, checked);
      auto insert_loop = [&] {
        for (const part& p : stream_parts) {
          to_host.insert_async(keys.subspan(p.first, p.count), values.span().subspan(p.first, p.count),
                               on_device ? statuses.span().subspan(p.first, p.count)
                                         : std::span(host_statuses.data() + p.first, p.count));
        }
      };
      auto take_back = [&] { detail::take_back(to_host, keys, resident > 0); };
      calls_and_graph_ms* const timed[] = {&result.insert_to_host, &result.insert_each_checked,
                                           &result.insert_each_checked_device};
      auto statuses_home = [&] {  // the device statuses checked after the timed runs, untimed
        if (on_device) {
          detail::copy_bytes_on(on_own, host_statuses.data(), statuses.data(), stream_keys * sizeof(operation_status));
        }
        on_own.synchronize();
      };
      auto poison_outputs = [&] {  // the host's statuses, and the device's from them
        poison();
        if (on_device) {
          detail::copy_bytes_on(on_own, statuses.data(), host_statuses.data(), stream_keys * sizeof(operation_status));
        }
        on_own.synchronize();
      };
      poison_outputs();
      timed[form]->calls = per_batch(median_ms(
          host{}, runs,
          [&] {
            insert_loop();
            on_own.synchronize();
          },
          take_back));
      statuses_home();
      verified = verified && all_are(operation_status::inserted) && to_host.size() == stream_keys + resident;
      const captured_graph graph(own.get(), insert_loop);
      poison_outputs();
      timed[form]->graph = per_batch(median_ms(
          host{}, runs,
          [&] {
            graph.launch(own.get());
            on_own.synchronize();
          },
          take_back));
      statuses_home();
      verified = verified && all_are(operation_status::inserted) && to_host.size() == stream_keys + resident;
    }

    // The values-alone finds and the floor, each loop timed uncaptured and replayed from a graph of it.
    auto values_found = [&] { return std::equal(host_values.begin(), host_values.end(), host_found.data()); };
    auto loop_ms = [&](const std::function<void()>& loop, bool captured) {
      std::fill_n(host_found.data(), stream_keys, missing);
      if (!captured) {
        return per_batch(median_ms(host{}, runs,
                                   [&] {
                                     loop();
                                     on_own.synchronize();
                                   },
                                   {}));
      }
      const captured_graph graph(own.get(), loop);
      return per_batch(median_ms(host{}, runs,
                                 [&] {
                                   graph.launch(own.get());
                                   on_own.synchronize();
                                 },
                                 {}));
    };
    auto values_home_loop = [&] {
      for (const part& p : stream_parts) {
        graph_built.find_async(keys.subspan(p.first, p.count), values_out.span().subspan(p.first, p.count), missing);
        detail::copy_bytes_on(on_own, host_found.data() + p.first, values_out.data() + p.first,
                              p.count * sizeof(std::uint32_t));
      }
    };
    auto values_to_host_loop = [&] {
      for (const part& p : stream_parts) {
        graph_built.find_async(keys.subspan(p.first, p.count), std::span(host_found.data() + p.first, p.count),
                               missing);
      }
    };
    auto floor_loop = [&] {
      for (const part& p : stream_parts) {
        detail::copy_bytes_on(on_own, values_out.data() + p.first, keys.data() + p.first,
                              p.count * sizeof(std::uint32_t));
        detail::copy_bytes_on(on_own, host_found.data() + p.first, values_out.data() + p.first,
                              p.count * sizeof(std::uint32_t));
      }
    };
    // The whole stream as one many-batch call, into pinned host memory.
    std::vector<std::uint64_t> host_offsets{0};
    for (const part& p : stream_parts) { host_offsets.push_back(p.first + p.count); }
    auto offsets = make_buffer<std::uint64_t>(on_own, host_offsets.size());
    offsets.copy_from(std::span<const std::uint64_t>(host_offsets));
    const std::span<std::uint32_t> values_at_home(host_found.data(), stream_keys);
    const std::span<operation_status> statuses_at_home(host_statuses.data(), stream_keys);
    auto find_many_loop = [&] { graph_built.find_many_async(keys, offsets.span(), values_at_home, missing); };
    map_type many_inserted = detail::map_holding<map_type>(on_own, stream_keys, resident_keys, options);
    auto insert_many_loop = [&] {
      many_inserted.insert_many_async(keys, values.span(), offsets.span(), statuses_at_home);
    };
    auto take_back_many = [&] { detail::take_back(many_inserted, keys, resident > 0); };
    for (const bool captured : {false, true}) {
      result.find_many_to_host.of(captured) = loop_ms(find_many_loop, captured);
      verified = verified && values_found();
      poison();
      std::optional<captured_graph> graph;
      if (captured) { graph.emplace(own.get(), insert_many_loop); }
      result.insert_many_to_host.of(captured) = per_batch(median_ms(
          host{}, runs,
          [&] {
            if (graph) {
              graph->launch(own.get());
            } else {
              insert_many_loop();
            }
            on_own.synchronize();
          },
          take_back_many));
      verified = verified && all_are(operation_status::inserted) && many_inserted.size() == stream_keys + resident;
    }

    for (const bool captured : {false, true}) {
      result.own_values_find.of(captured) = loop_ms(values_home_loop, captured);
      verified = verified && values_found();
      result.values_to_host.of(captured) = loop_ms(values_to_host_loop, captured);
      verified = verified && values_found();
      result.floor.of(captured) = loop_ms(floor_loop, captured);
      verified = verified && std::equal(host_values.begin(), host_values.end(), host_found.data(),
                                        [](std::uint32_t value, std::uint32_t key) { return value == key + 1; });
    }
  }
#endif
  result.verified = verified;
  return result;
}

}  // namespace warpdex::hash
