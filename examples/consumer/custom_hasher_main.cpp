// A slab_map with the consumer's own hasher on the host backend: inserts 2^16 pairs, finds them and
// as many absent keys, grows the buckets with rehash(), and checks every answer against
// std::unordered_map.
#include "custom_hasher.hpp"

#include <warpdex/warpdex.hpp>

#include <cstdint>
#include <cstdio>
#include <span>
#include <unordered_map>
#include <vector>

int main()
{
  using warpdex::hash::operation_status;
  const std::size_t n = std::size_t{1} << 16;
  std::vector<std::uint32_t> keys(n), values(n), queries(2 * n), found(2 * n);
  std::vector<operation_status> statuses(2 * n);
  std::unordered_map<std::uint32_t, std::uint32_t> oracle;
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<std::uint32_t>(3 * i + 1);
    values[i] = static_cast<std::uint32_t>(i);
    oracle.emplace(keys[i], values[i]);
    queries[2 * i] = keys[i];
    queries[2 * i + 1] = static_cast<std::uint32_t>(3 * i + 2);  // never inserted
  }
  const warpdex::host backend{};
  // Built for a sixteenth of the keys: the pool grows, then rehash() sizes the buckets for the load.
  fibonacci_map map(backend, fibonacci_map::capacity_for(n / 16), fibonacci_hash{});
  map.insert(std::span<const std::uint32_t>(keys), std::span<const std::uint32_t>(values));
  map.rehash();
  map.find(std::span<const std::uint32_t>(queries), std::span<std::uint32_t>(found),
           std::span<operation_status>(statuses));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto at = oracle.find(queries[i]);
    const bool ok = at == oracle.end() ? statuses[i] == operation_status::not_found
                                       : statuses[i] == operation_status::found && found[i] == at->second;
    wrong += ok ? 0 : 1;
  }
  std::printf("fibonacci_map: %llu pairs in %u buckets, %zu of %zu finds wrong\n",
              static_cast<unsigned long long>(map.size()), map.capacity().bucket_count, wrong, queries.size());
  return wrong == 0 && map.size() == n ? 0 : 1;
}
