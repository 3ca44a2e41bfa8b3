#pragma once
// What the slab_multimap tests compare a multimap by: its pairs as a sorted multiset of values per key,
// and its count / find_all answers for a set of queries, both against such an oracle.

#include "hash/slab_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace warpdex::testing {

/// A multiset of values per key (each key's values sorted), order-free: what two multimaps are
/// compared by. A key absent from it holds no value.
using value_multisets = std::map<std::uint32_t, std::vector<std::uint32_t>>;

/// slab_backend_test with the multimap checks, for any multimap type (any slab size).
template <class Backend>
class multimap_backend_test : public slab_backend_test<Backend> {
 protected:
  /// Every live pair of `multimap`, exported.
  template <class Multimap>
  value_multisets exported(const Multimap& multimap) const
  {
    const std::uint64_t size = multimap.size();
    auto keys = make_buffer<std::uint32_t>(this->backend(), size);
    auto values = make_buffer<std::uint32_t>(this->backend(), size);
    EXPECT_EQ(multimap.export_pairs(keys.span(), values.span()), size);
    const auto host_keys = keys.to_vector();
    const auto host_values = values.to_vector();
    value_multisets pairs;
    for (std::size_t i = 0; i < host_keys.size(); ++i) { pairs[host_keys[i]].push_back(host_values[i]); }
    for (auto& [key, key_values] : pairs) { std::sort(key_values.begin(), key_values.end()); }
    return pairs;
  }

  /// Runs count and both passes of find_all on `queries` and checks each query against the oracle:
  /// counts, offsets, and the values of each query's range as a multiset; poison past the total stays.
  template <class Multimap>
  void expect_queries_match(const Multimap& multimap, const std::vector<std::uint32_t>& queries,
                            const value_multisets& oracle) const
  {
    constexpr std::uint64_t poison_count = 0xdeadbeefULL;
    constexpr std::size_t spare_values = 7;
    auto device_queries = this->put(queries);
    auto counts = this->template poisoned<std::uint64_t>(queries.size(), poison_count);
    multimap.count(device_queries.span(), counts.span());
    auto offsets = this->template poisoned<std::uint64_t>(queries.size() + 1, poison_count);
    const std::uint64_t total = multimap.find_all_offsets(device_queries.span(), offsets.span());
    auto values = this->template poisoned<std::uint32_t>(total + spare_values, poison_value);
    multimap.find_all(device_queries.span(), offsets.span(), values.span());

    const auto host_counts = counts.to_vector();
    const auto host_offsets = offsets.to_vector();
    const auto host_values = values.to_vector();
    std::uint64_t expected_offset = 0;
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto at = oracle.find(queries[i]);
      const std::vector<std::uint32_t> expected = at == oracle.end() ? std::vector<std::uint32_t>{} : at->second;
      ASSERT_EQ(host_counts[i], expected.size()) << "query " << i << " key " << queries[i];
      ASSERT_EQ(host_offsets[i], expected_offset) << "query " << i;
      std::vector<std::uint32_t> got(
          host_values.begin() + static_cast<std::ptrdiff_t>(expected_offset),
          host_values.begin() + static_cast<std::ptrdiff_t>(expected_offset + expected.size()));
      std::sort(got.begin(), got.end());
      ASSERT_EQ(got, expected) << "query " << i << " key " << queries[i];
      expected_offset += expected.size();
    }
    ASSERT_EQ(host_offsets[queries.size()], expected_offset);
    ASSERT_EQ(total, expected_offset);
    for (std::size_t i = total; i < host_values.size(); ++i) {
      ASSERT_EQ(host_values[i], poison_value) << "find_all wrote past the total";
    }
  }
};

}  // namespace warpdex::testing
