// The GPU at sizes where the fights really race (millions of elements, thousands of threads per slot
// set), cross-checked against the host backend on the same input: the outputs are deterministic, so
// they must be equal element for element. Skipped without a GPU.
#include "dpp_test_support.hpp"
#include "support/backend_fixture.hpp"

#include <warpdex/dpp/duplicates.hpp>
#include <warpdex/dpp/hashfight_map.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#if WARPDEX_HAS_CUDA
namespace {

using namespace warpdex::testing;
using namespace warpdex::dpp;
using warpdex::cuda;
using warpdex::host;

class dpp_at_scale : public cuda_test {};

template <class Element>
void once_flags_agree(const std::vector<Element>& elements)
{
  const auto on_device = make_buffer_from<Element>(cuda{}, elements);
  const auto on_host = make_buffer_from<Element>(host{}, elements);
  auto device_once = make_buffer<std::uint8_t>(cuda{}, elements.size());
  auto host_once = make_buffer<std::uint8_t>(host{}, elements.size());
  find_once(cuda{}, std::span<const Element>(on_device.data(), elements.size()), device_once.span(),
            duplicate_method::hash_fight);
  find_once(host{}, std::span<const Element>(on_host.data(), elements.size()), host_once.span(),
            duplicate_method::sort);
  EXPECT_EQ(device_once.to_vector(), host_once.to_vector());
  const auto device_counts = count_elements(cuda{}, std::span<const Element>(on_device.data(), elements.size()),
                                            element_order::first_occurrence);
  const auto host_counts = count_elements(host{}, std::span<const Element>(on_host.data(), elements.size()),
                                          element_order::first_occurrence);
  EXPECT_EQ(device_counts.elements.to_vector(), host_counts.elements.to_vector());
  EXPECT_EQ(device_counts.counts.to_vector(), host_counts.counts.to_vector());
  EXPECT_EQ(device_counts.first_positions.to_vector(), host_counts.first_positions.to_vector());
  const auto device_only = count_elements(cuda{}, std::span<const Element>(on_device.data(), elements.size()),
                                          element_order::ascending, count_outputs::counts_only);
  const auto host_only = count_elements(host{}, std::span<const Element>(on_host.data(), elements.size()),
                                        element_order::ascending, count_outputs::counts_only);
  EXPECT_EQ(device_only.elements.to_vector(), host_only.elements.to_vector());
  EXPECT_EQ(device_only.counts.to_vector(), host_only.counts.to_vector());
  // The sort method on the device (CUB radix sort of the pairs, the singleton bitmap) against hash
  // fighting on the host.
  const std::span<const Element> device_in(on_device.data(), elements.size());
  const std::span<const Element> host_in(on_host.data(), elements.size());
  auto device_sorted_once = make_buffer<std::uint8_t>(cuda{}, elements.size());
  find_once(cuda{}, device_in, device_sorted_once.span(), duplicate_method::sort);
  EXPECT_EQ(device_sorted_once.to_vector(), host_once.to_vector());
  EXPECT_EQ(elements_occurring_once(cuda{}, device_in, duplicate_method::sort).to_vector(),
            elements_occurring_once(host{}, host_in, duplicate_method::hash_fight).to_vector());
  EXPECT_EQ(unique_elements(cuda{}, device_in).to_vector(), unique_elements(host{}, host_in).to_vector());
}

TEST_F(dpp_at_scale, duplicate_search_agrees_with_the_host_backend)
{
  constexpr std::uint64_t n = std::uint64_t{1} << 22;
  once_flags_agree(elements_with_duplicates<std::uint32_t>(n, 0.5, case_seed(1)));
  once_flags_agree(elements_with_duplicates<std::uint64_t>(n, 0.01, case_seed(2)));
  once_flags_agree(zipf_elements<uint32x3>(n, 1.2, case_seed(3)));
  once_flags_agree(elements_with_duplicates<uint32x4>(n, 0.99, case_seed(4)));
}

template <class Key>
void hashfight_agrees(std::uint64_t n, hashfight_options options, std::uint64_t seed, double zipf_exponent = 0.0)
{
  // Keys with repeats (about 4 pairs per key; Zipf-skewed with an exponent), values that differ, queries
  // half absent.
  std::vector<Key> keys(n);
  std::vector<Key> values(n);
  std::vector<Key> queries(n);
  generate_zipf_keys(host{}, warpdex::key_set<Key>{n / 4, seed, warpdex::key_order::shuffled, Key(~Key{0} - 1)},
                     zipf_exponent, seed + 1, std::span<Key>(keys));
  generate_queries(host{}, warpdex::key_set<Key>{n / 4, seed, warpdex::key_order::shuffled, Key(~Key{0} - 1)}, 0.5,
                   seed + 2, std::span<Key>(queries));
  for (std::uint64_t i = 0; i < n; ++i) { values[i] = static_cast<Key>(warpdex::fmix64(i ^ seed) % (~Key{0})); }
  const auto device_keys = make_buffer_from<Key>(cuda{}, keys);
  const auto device_values = make_buffer_from<Key>(cuda{}, values);
  const auto device_queries = make_buffer_from<Key>(cuda{}, queries);
  const hashfight_map<Key, Key, cuda> device_map(cuda{}, std::span<const Key>(device_keys.data(), n),
                                                 std::span<const Key>(device_values.data(), n), options);
  const hashfight_map<Key, Key, host> host_map(host{}, std::span<const Key>(keys), std::span<const Key>(values),
                                               options);
  EXPECT_EQ(device_map.size(), host_map.size());
  auto device_found = make_buffer<Key>(cuda{}, n);
  std::vector<Key> host_found(n);
  device_map.find(std::span<const Key>(device_queries.data(), n), device_found.span());
  host_map.find(std::span<const Key>(queries), std::span<Key>(host_found));
  EXPECT_EQ(device_found.to_vector(), host_found);
}

TEST_F(dpp_at_scale, hashfight_agrees_with_the_host_backend)
{
  constexpr std::uint64_t n = std::uint64_t{1} << 22;
  hashfight_options fought;
  fought.leftover_limit = 1024;
  hashfight_agrees<std::uint32_t>(n, fought, case_seed(5));
  fought.load_factor = 2.0;
  hashfight_agrees<std::uint64_t>(n, fought, case_seed(6));
  hashfight_agrees<std::uint32_t>(n, hashfight_options{}, case_seed(7));
  // Chunked passes on the device (1 MiB ranges: the first sub-tables take dozens of passes), none on the
  // host: the same answers.
  hashfight_options chunked = fought;
  chunked.chunk_bytes = std::uint64_t{1} << 20;
  hashfight_agrees<std::uint32_t>(n, chunked, case_seed(8));
  hashfight_agrees<std::uint64_t>(n, chunked, case_seed(9));
  // Every bucket size of the partitioned rounds (one slot, 32 and 64 bytes), Zipf-skewed keys in one.
  hashfight_options slots = fought;
  slots.bucket_bytes = 8;
  hashfight_agrees<std::uint32_t>(n, slots, case_seed(10));
  hashfight_options small_buckets = fought;
  small_buckets.bucket_bytes = 32;
  small_buckets.load_factor = 1.5;
  hashfight_agrees<std::uint32_t>(n, small_buckets, case_seed(11), 1.1);
  hashfight_options wide_buckets = fought;
  wide_buckets.bucket_bytes = 64;
  wide_buckets.load_factor = 1.03;
  hashfight_agrees<std::uint64_t>(n, wide_buckets, fresh_seed(), 1.1);
}

}  // namespace
#endif
