// The lsm_map workload of `warpdex lsm` and the demo tour.
#include "workloads.hpp"

#include "baselines.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/lsm/lsm_map.hpp>

#include <chrono>
#include <optional>

namespace warpdex::workloads {
namespace {

using key_type = std::uint32_t;
using value_type = std::uint32_t;

template <class Backend>
std::vector<measurement> lsm_on(const Backend& backend, const lsm_request& request, const timing_options& timing)
{
  const backend_choice choice = choice_of<Backend>();
  const std::uint64_t batch = std::uint64_t{1} << request.batch_log2;
  const std::uint64_t n = batch * request.batches;
  WARPDEX_EXPECTS(request.batches >= 1 && n <= UINT32_MAX, "lsm: between 1 and 2^32 - 1 keys in all");
  auto started = std::chrono::steady_clock::now();
  const key_set<key_type> set{n, request.seed, key_order::shuffled};
  auto keys = make_buffer<key_type>(backend, n);
  generate_keys(backend, set, keys.span());
  auto values = make_buffer<value_type>(backend, n);
  generate_keys(backend, key_set<value_type>{n, request.seed + 1}, values.span());
  auto queries = make_buffer<key_type>(backend, n);
  generate_queries(backend, set, 0.5, request.seed + 2, queries.span());
  auto found_values = make_buffer<value_type>(backend, n);
  auto found = make_buffer<std::uint8_t>(backend, n);
  auto positions = make_buffer<std::uint64_t>(backend, n);
  baselines::sorted_array_map sorted(choice, n);
  std::optional<lsm_map<key_type, value_type, Backend>> map;
  backend.synchronize();
  const double setup_seconds = seconds_since(started);

  const auto key_span = std::as_const(keys).span();
  const auto value_span = std::as_const(values).span();
  const auto query_span = std::as_const(queries).span();
  std::vector<measurement> results;
  {
    measurement m =
        make_measurement("lsm", "lsm_map insert, batches of " + size_text(batch), Backend::name, n, "Gpairs/s");
    m.setup_seconds = setup_seconds;
    m.baseline = baselines::sorted_array_map::name(choice);
    m.baseline_ms = median_ms(
        backend, timing,
        [&] {
          for (std::uint64_t first = 0; first < n; first += batch) {
            sorted.insert(backend, keys.data() + first, values.data() + first, batch);
          }
        },
        [&] { sorted.clear(); });
    m.median_ms = median_ms(
        backend, timing,
        [&] {
          for (std::uint64_t first = 0; first < n; first += batch) {
            map->insert(key_span.subspan(first, batch), value_span.subspan(first, batch));
          }
        },
        [&] {
          map.reset();
          map.emplace(backend, lsm_options{batch, 0.0});  // unique keys: nothing to clean, as in the benchmark
        });
    started = std::chrono::steady_clock::now();
    m.checked = true;
    m.passed = map->size() == n && sorted.size() == n;
    m.check = std::to_string(map->size()) + " live keys, expected " + std::to_string(n) + " (the lookups check values)";
    m.check_seconds = seconds_since(started);
    results.push_back(std::move(m));
  }
  {
    measurement m = make_measurement("lsm", "lsm_map lookup, half absent", Backend::name, n, "Gqueries/s");
    m.setup_seconds = setup_seconds;
    m.baseline = baselines::lower_bound_name(choice) + " on the sorted array";
    const std::span<const key_type> sorted_keys(sorted.keys(), sorted.size());
    m.baseline_ms =
        median_ms(backend, timing, [&] { baselines::lower_bound(backend, sorted_keys, query_span, positions.span()); });
    m.median_ms = median_ms(backend, timing, [&] { map->lookup(query_span, found_values.span(), found.span()); });
    started = std::chrono::steady_clock::now();
    // The oracle: the sorted array (its positions from the baseline's search) holds every inserted pair.
    buffer<key_type> copy_keys = make_buffer<key_type>(backend, sorted.size());
    buffer<value_type> copy_values = make_buffer<value_type>(backend, sorted.size());
    copy_keys.copy_from(std::span<const key_type>(sorted.keys(), sorted.size()));
    copy_values.copy_from(std::span<const value_type>(sorted.values(), sorted.size()));
    const auto host_keys = copy_keys.to_vector();
    const auto host_values = copy_values.to_vector();
    const auto host_queries = queries.to_vector();
    const auto host_positions = positions.to_vector();
    const auto host_found = found.to_vector();
    const auto host_found_values = found_values.to_vector();
    std::uint64_t wrong = 0;
    std::uint64_t present = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t at = host_positions[i];
      const bool is_present = at < host_keys.size() && host_keys[at] == host_queries[i];
      present += is_present ? 1 : 0;
      wrong +=
          (host_found[i] != (is_present ? 1 : 0) || (is_present && host_found_values[i] != host_values[at])) ? 1 : 0;
    }
    m.checked = true;
    m.passed = wrong == 0;
    m.check = std::to_string(wrong) + " answers differ from the sorted array (" + std::to_string(present) + " present)";
    m.check_seconds = seconds_since(started);
    results.push_back(std::move(m));
  }
  return results;
}

}  // namespace

std::vector<measurement> measure_lsm(backend_choice backend, const lsm_request& request, const timing_options& timing)
{
  return visit_backend(backend, [&](const auto& on) { return lsm_on(on, request, timing); });
}

}  // namespace warpdex::workloads
