// The sorted-array search workload of `warpdex search` and the demo tour.
#include "workloads.hpp"

#include "baselines.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/search/sorted_search.hpp>

#include <algorithm>
#include <chrono>

namespace warpdex::workloads {
namespace {

using key_type = std::uint32_t;

template <class Backend>
std::vector<measurement> search_on(const Backend& backend, const search_request& request,
                                   const std::vector<std::string>& algorithms, const timing_options& timing)
{
  const backend_choice choice = choice_of<Backend>();
  const std::uint64_t n = std::uint64_t{1} << request.keys_log2;
  const std::uint64_t q = std::uint64_t{1} << request.queries_log2;
  auto started = std::chrono::steady_clock::now();
  const key_set<key_type> set{n, request.seed, key_order::sorted};
  auto keys = make_buffer<key_type>(backend, n);
  auto queries = make_buffer<key_type>(backend, q);
  generate_keys(backend, set, keys.span());
  generate_queries(backend, set, request.absent_fraction, request.seed + 1, queries.span());
  if (request.sorted_queries) {
    auto host_queries = queries.to_vector();
    std::sort(host_queries.begin(), host_queries.end());
    queries.copy_from(std::span<const key_type>(host_queries));
  }
  const sorted_index<key_type, Backend> index(backend, std::as_const(keys).span());
  auto positions = make_buffer<std::uint64_t>(backend, q);
  auto expected = make_buffer<std::uint64_t>(backend, q);
  backend.synchronize();
  const double setup_seconds = seconds_since(started);

  const auto key_span = std::as_const(keys).span();
  const auto query_span = std::as_const(queries).span();
  const double baseline_ms =
      median_ms(backend, timing, [&] { baselines::lower_bound(backend, key_span, query_span, expected.span()); });
  const auto expected_positions = expected.to_vector();
  std::vector<measurement> results;
  for (const std::string& name : algorithms) {
    const search_algorithm algorithm = parse_search_algorithm(name);
    const std::string chosen = algorithm == search_algorithm::automatic
                                   ? " (" + std::string(to_string(index.choose(query_span))) + ")"
                                   : std::string();
    measurement m = make_measurement(
        "search", "lower_bound " + name + chosen + ", " + (request.sorted_queries ? "sorted" : "random") + " queries",
        Backend::name, q, "Gqueries/s");
    m.setup_seconds = setup_seconds;
    m.baseline = baselines::lower_bound_name(choice) + " over " + size_text(n) + " keys";
    m.baseline_ms = baseline_ms;
    m.median_ms = median_ms(backend, timing, [&] { index.lower_bound(query_span, positions.span(), algorithm); });
    started = std::chrono::steady_clock::now();
    check_against_baseline(m, positions.to_vector(), expected_positions, "positions");
    m.check_seconds = seconds_since(started);
    results.push_back(std::move(m));
  }
  return results;
}

}  // namespace

std::vector<measurement> measure_search(backend_choice backend, const search_request& request,
                                        const std::vector<std::string>& algorithms, const timing_options& timing)
{
  return visit_backend(backend, [&](const auto& on) { return search_on(on, request, algorithms, timing); });
}

}  // namespace warpdex::workloads
