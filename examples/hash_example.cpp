// A slab hash map built from 2^20 (key, value) pairs, then queried with 2^18 keys of which a quarter are
// absent, on the GPU when one is present (otherwise on the CPU's cores), checked against
// std::unordered_map.
#include <warpdex/hash/slab_map.hpp>
#include <warpdex/warpdex.hpp>

#include <cstdint>
#include <cstdio>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <vector>

int main()
{
  using warpdex::hash::operation_status;
  const std::size_t n = std::size_t{1} << 20;
  const std::size_t q = std::size_t{1} << 18;
  // Distinct keys below the two reserved ones (hash::empty_key, hash::erased_key); values are any.
  const warpdex::key_set<std::uint32_t> key_set{n, /*seed=*/3, warpdex::key_order::shuffled,
                                                warpdex::hash::max_user_key};
  std::vector<std::uint32_t> keys(n), values(n), queries(q);
  warpdex::generate_keys(warpdex::host{}, key_set, std::span(keys));
  warpdex::generate_queries(warpdex::host{}, key_set, /*absent_fraction=*/0.25, /*seed=*/4, std::span(queries));
  for (std::size_t i = 0; i < n; ++i) { values[i] = keys[i] ^ 0x9e3779b9u; }

  const auto choice = warpdex::resolve_backend(warpdex::backend_choice::automatic);
  std::vector<std::uint32_t> found_values;
  std::vector<operation_status> statuses;
  std::uint64_t size = 0;
  warpdex::visit_backend(choice, [&](const auto& backend) {
    using Backend = std::remove_cvref_t<decltype(backend)>;  // warpdex::cuda or warpdex::host
    using map_type = warpdex::hash::slab_map<std::uint32_t, std::uint32_t, Backend>;
    // Every span a table takes is in the backend's memory: device memory on cuda.
    auto keys_on = warpdex::make_buffer<std::uint32_t>(backend, n);
    auto values_on = warpdex::make_buffer<std::uint32_t>(backend, n);
    auto queries_on = warpdex::make_buffer<std::uint32_t>(backend, q);
    auto found_on = warpdex::make_buffer<std::uint32_t>(backend, q);
    auto statuses_on = warpdex::make_buffer<operation_status>(backend, q);
    keys_on.copy_from(keys);
    values_on.copy_from(values);
    queries_on.copy_from(queries);

    map_type map(backend, map_type::capacity_for(n));  // buckets for n keys at 60% of a slab each
    map.insert(keys_on.span(), values_on.span());
    map.find(queries_on.span(), found_on.span(), statuses_on.span());
    size = map.size();
    std::printf("slab_map of %llu pairs, %zu finds on the %s backend\n", static_cast<unsigned long long>(size), q,
                backend.name.data());
    found_values = found_on.to_vector();
    statuses = statuses_on.to_vector();
  });

  const std::unordered_map<std::uint32_t, std::uint32_t> oracle = [&] {
    std::unordered_map<std::uint32_t, std::uint32_t> m;
    for (std::size_t i = 0; i < n; ++i) { m.emplace(keys[i], values[i]); }
    return m;
  }();
  bool ok = size == n;
  std::size_t absent = 0;
  for (std::size_t i = 0; i < q; ++i) {
    const auto it = oracle.find(queries[i]);
    if (it == oracle.end()) {
      ++absent;
      ok = ok && statuses[i] == operation_status::not_found;
    } else {
      ok = ok && statuses[i] == operation_status::found && found_values[i] == it->second;
    }
  }
  ok = ok && absent == q / 4;
  std::printf("%s (%zu of the queries absent)\n", ok ? "ok: every find agrees with std::unordered_map" : "WRONG",
              absent);
  return ok ? 0 : 1;
}
