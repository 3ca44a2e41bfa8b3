// Generates a key set and queries against it on the best backend present, then checks the answer.
#include <warpdex/warpdex.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

int main()
{
  const auto choice = warpdex::resolve_backend(warpdex::backend_choice::automatic);
  const warpdex::key_set<std::uint32_t> keys{1 << 16, /*seed=*/42, warpdex::key_order::sorted};

  const auto queries = warpdex::visit_backend(choice, [&](const auto& backend) {
    auto out = warpdex::make_buffer<std::uint32_t>(backend, 1 << 12);
    warpdex::generate_queries(backend, keys, /*absent_fraction=*/0.25, /*seed=*/7, out.span());
    return out.to_vector();
  });

  std::vector<std::uint32_t> sorted(keys.size);
  warpdex::generate_keys(warpdex::host{}, keys, std::span<std::uint32_t>(sorted));
  const auto absent = std::count_if(queries.begin(), queries.end(), [&](std::uint32_t q) {
    return !std::binary_search(sorted.begin(), sorted.end(), q);
  });
  std::printf("%zu queries, %ld absent (expected %d)\n", queries.size(), static_cast<long>(absent), (1 << 12) / 4);
  return absent == (1 << 12) / 4 ? 0 : 1;
}
