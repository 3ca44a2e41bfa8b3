// A stable multisplit of 2^20 keys into 32 buckets by bits [4, 9) of the key, on the GPU when one is
// present (otherwise on the CPU's cores), checked against a stable sort by bucket.
#include <warpdex/split/multisplit.hpp>
#include <warpdex/warpdex.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

int main()
{
  const std::size_t n = std::size_t{1} << 20;
  const warpdex::bit_field_buckets buckets{/*shift=*/4, /*bits=*/5};  // bucket = (key >> 4) & 31

  // Input keys in host memory (any source will do; here the library's generator).
  std::vector<std::uint32_t> keys(n);
  warpdex::generate_keys(warpdex::host{}, warpdex::key_set<std::uint32_t>{n, /*seed=*/1}, std::span(keys));

  const auto choice = warpdex::resolve_backend(warpdex::backend_choice::automatic);
  std::vector<std::uint64_t> offsets;  // bucket b is split[offsets[b], offsets[b + 1]), the last one ends at n
  const std::vector<std::uint32_t> split = warpdex::visit_backend(choice, [&](const auto& backend) {
    auto in = warpdex::make_buffer<std::uint32_t>(backend, n);  // device memory on cuda, host memory on host
    auto out = warpdex::make_buffer<std::uint32_t>(backend, n);
    in.copy_from(keys);
    offsets = warpdex::multisplit(backend, in.span(), out.span(), buckets);
    std::printf("multisplit of %zu keys into %u buckets on the %s backend\n", n, buckets.bucket_count(),
                backend.name.data());
    return out.to_vector();
  });

  // The oracle: a stable sort by bucket id; bucket b starts where the first key of a bucket >= b is.
  std::vector<std::uint32_t> expected = keys;
  std::stable_sort(expected.begin(), expected.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return buckets(a) < buckets(b); });
  bool ok = split == expected && offsets.size() == buckets.bucket_count();
  for (std::uint32_t b = 0; ok && b < buckets.bucket_count(); ++b) {
    const auto first =
        std::partition_point(expected.begin(), expected.end(), [&](std::uint32_t key) { return buckets(key) < b; });
    ok = offsets[b] == static_cast<std::uint64_t>(first - expected.begin());
  }
  std::printf("%s\n", ok ? "ok: stable, and every bucket where the offsets say" : "WRONG");
  return ok ? 0 : 1;
}
