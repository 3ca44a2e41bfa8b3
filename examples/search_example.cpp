// Batched lower_bound of 2^16 queries (a quarter of them absent) in 2^22 sorted keys, on the GPU when
// one is present (otherwise on the CPU's cores), checked against std::lower_bound.
#include <warpdex/search/sorted_search.hpp>
#include <warpdex/warpdex.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <span>
#include <type_traits>
#include <vector>

int main()
{
  const std::size_t n = std::size_t{1} << 22;
  const std::size_t q = std::size_t{1} << 16;
  const warpdex::key_set<std::uint32_t> keys{n, /*seed=*/42, warpdex::key_order::sorted};

  const auto choice = warpdex::resolve_backend(warpdex::backend_choice::automatic);
  std::vector<std::uint32_t> sorted(n), queries(q);
  const std::vector<std::uint64_t> positions = warpdex::visit_backend(choice, [&](const auto& backend) {
    // Keys and queries generated where they are searched: device memory on cuda, host memory on host.
    auto keys_on = warpdex::make_buffer<std::uint32_t>(backend, n);
    auto queries_on = warpdex::make_buffer<std::uint32_t>(backend, q);
    auto positions_on = warpdex::make_buffer<std::uint64_t>(backend, q);
    warpdex::generate_keys(backend, keys, keys_on.span());
    warpdex::generate_queries(backend, keys, /*absent_fraction=*/0.25, /*seed=*/7, queries_on.span());

    // The index (a B+-tree over the keys, about n / 31 extra keys) serves any number of batches.
    using Backend = std::remove_cvref_t<decltype(backend)>;  // warpdex::cuda or warpdex::host
    const warpdex::sorted_index<std::uint32_t, Backend> index(backend, keys_on.span());
    index.lower_bound(queries_on.span(), positions_on.span());  // search_algorithm::automatic
    std::printf("lower_bound of %zu queries in %zu keys on the %s backend\n", q, n, backend.name.data());
    sorted = keys_on.to_vector();
    queries = queries_on.to_vector();
    return positions_on.to_vector();
  });

  bool ok = true;
  std::size_t absent = 0;
  for (std::size_t i = 0; i < q; ++i) {
    const auto expected = std::lower_bound(sorted.begin(), sorted.end(), queries[i]);
    ok = ok && positions[i] == static_cast<std::uint64_t>(expected - sorted.begin());
    absent += expected == sorted.end() || *expected != queries[i];
  }
  ok = ok && absent == q / 4;
  std::printf("%s (%zu of the queries absent)\n", ok ? "ok: every position is std::lower_bound's" : "WRONG", absent);
  return ok ? 0 : 1;
}
