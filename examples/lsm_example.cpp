// The GPU LSM as an ordered dictionary: 2^18 keys inserted in batches, a quarter of them erased, then
// looked up and counted in ranges, on the GPU when one is present (otherwise on the CPU's cores), checked
// against std::map. Needs the library built with the CCCL headers (see docs/lsm.md).
#include <warpdex/lsm/lsm_map.hpp>
#include <warpdex/warpdex.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <span>
#include <type_traits>
#include <vector>

int main()
{
  const std::size_t n = std::size_t{1} << 18;
  const std::size_t erased = n / 4;
  const std::size_t q = std::size_t{1} << 16;
  const warpdex::key_set<std::uint32_t> key_set{n, /*seed=*/5};
  std::vector<std::uint32_t> keys(n), values(n), queries(q);
  warpdex::generate_keys(warpdex::host{}, key_set, std::span(keys));
  warpdex::generate_queries(warpdex::host{}, key_set, /*absent_fraction=*/0.5, /*seed=*/6, std::span(queries));
  for (std::size_t i = 0; i < n; ++i) { values[i] = static_cast<std::uint32_t>(i); }
  // One update batch erasing the first quarter of the keys (any mix of inserts and erases is allowed).
  const std::vector<warpdex::lsm_operation> erase_ops(erased, warpdex::lsm_operation::erase);
  // Range counts [lower, lower + 2^20] over the same queries.
  std::vector<std::uint32_t> upper(q);
  for (std::size_t i = 0; i < q; ++i) { upper[i] = queries[i] + std::min<std::uint32_t>(1u << 20, ~queries[i]); }

  const auto choice = warpdex::resolve_backend(warpdex::backend_choice::automatic);
  std::vector<std::uint32_t> found_values;
  std::vector<std::uint8_t> found;
  std::vector<std::uint64_t> counts;
  warpdex::visit_backend(choice, [&](const auto& backend) {
    using Backend = std::remove_cvref_t<decltype(backend)>;  // warpdex::cuda or warpdex::host
    // Every span the map takes is in the backend's memory: device memory on cuda.
    auto keys_on = warpdex::make_buffer<std::uint32_t>(backend, n);
    auto values_on = warpdex::make_buffer<std::uint32_t>(backend, n);
    auto ops_on = warpdex::make_buffer<warpdex::lsm_operation>(backend, erased);
    auto queries_on = warpdex::make_buffer<std::uint32_t>(backend, q);
    auto upper_on = warpdex::make_buffer<std::uint32_t>(backend, q);
    auto found_values_on = warpdex::make_buffer<std::uint32_t>(backend, q);
    auto found_on = warpdex::make_buffer<std::uint8_t>(backend, q);
    auto counts_on = warpdex::make_buffer<std::uint64_t>(backend, q);
    keys_on.copy_from(keys);
    values_on.copy_from(values);
    ops_on.copy_from(erase_ops);
    queries_on.copy_from(queries);
    upper_on.copy_from(upper);

    warpdex::lsm_map<std::uint32_t, std::uint32_t, Backend> map(backend, {.batch_size = std::uint64_t{1} << 14});
    map.insert(keys_on.span(), values_on.span());  // 16 batches of 2^14: levels merge like a binary counter
    map.update(keys_on.span().first(erased), values_on.span().first(erased), ops_on.span());
    map.lookup(queries_on.span(), found_values_on.span(), found_on.span());
    map.count(queries_on.span(), upper_on.span(), counts_on.span());  // inclusive bounds
    std::printf("lsm_map of %llu live keys, %zu lookups and range counts on the %s backend\n",
                static_cast<unsigned long long>(map.size()), q, backend.name.data());
    found_values = found_values_on.to_vector();
    found = found_on.to_vector();
    counts = counts_on.to_vector();
  });

  std::map<std::uint32_t, std::uint32_t> oracle;
  for (std::size_t i = erased; i < n; ++i) { oracle.emplace(keys[i], values[i]); }
  bool ok = true;
  for (std::size_t i = 0; i < q; ++i) {
    const auto it = oracle.find(queries[i]);
    ok = ok && found[i] == (it != oracle.end()) && (it == oracle.end() || found_values[i] == it->second);
    const auto in_range = std::distance(oracle.lower_bound(queries[i]), oracle.upper_bound(upper[i]));
    ok = ok && counts[i] == static_cast<std::uint64_t>(in_range);
  }
  std::printf("%s\n", ok ? "ok: every lookup and count agrees with std::map" : "WRONG");
  return ok ? 0 : 1;
}
