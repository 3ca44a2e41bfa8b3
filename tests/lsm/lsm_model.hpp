#pragma once
// The oracle of the LSM tests: a std::map replaying the same batches with the documented semantics, and
// checks of every query of an lsm_map against it (outputs poisoned first, so unwritten slots show).

#include "support/backend_fixture.hpp"

#include <warpdex/lsm/lsm_map.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <vector>

namespace warpdex::testing {

using lsm_value = std::uint32_t;
inline constexpr lsm_value value_poison = 0xdeadbeef;
inline constexpr std::uint8_t flag_poison = 0xab;
inline constexpr std::uint64_t count_poison = 0xfeedfacecafebeef;

template <class Key>
struct lsm_batch {
  std::vector<Key> keys;
  std::vector<lsm_value> values;
  std::vector<lsm_operation> operations;
};

/// The documented semantics: chunks of batch_size in order; inside a chunk any erase of a key erases it,
/// else its last insert wins.
template <class Key>
void apply_to_model(std::map<Key, lsm_value>& model, const lsm_batch<Key>& batch, std::uint64_t batch_size)
{
  for (std::size_t begin = 0; begin < batch.keys.size(); begin += batch_size) {
    const std::size_t end = std::min<std::size_t>(batch.keys.size(), begin + batch_size);
    std::map<Key, std::pair<bool, lsm_value>> outcome;  // key -> (erased, last inserted value)
    for (std::size_t i = begin; i < end; ++i) {
      auto& [erased, value] = outcome[batch.keys[i]];
      if (batch.operations[i] == lsm_operation::erase) {
        erased = true;
      } else {
        value = batch.values[i];
      }
    }
    for (const auto& [key, result] : outcome) {
      if (result.first) {
        model.erase(key);
      } else {
        model[key] = result.second;
      }
    }
  }
}

template <class Key, class Backend>
void apply_to_map(const Backend& backend, lsm_map<Key, lsm_value, Backend>& map, const lsm_batch<Key>& batch)
{
  const auto keys = make_buffer_from<Key>(backend, batch.keys);
  const auto values = make_buffer_from<lsm_value>(backend, batch.values);
  const auto operations = make_buffer_from<lsm_operation>(backend, batch.operations);
  map.update(keys.span(), values.span(), operations.span());
}

/// A random batch over a small key universe (so keys repeat across and inside batches), with the
/// extreme keys 0 and max now and then.
template <class Key>
lsm_batch<Key> random_batch(std::mt19937_64& random, std::size_t size, double erase_fraction, Key universe)
{
  lsm_batch<Key> batch;
  std::bernoulli_distribution erase(erase_fraction);
  std::uniform_int_distribution<Key> key(0, universe);
  std::uniform_int_distribution<int> extreme(0, 63);
  for (std::size_t i = 0; i < size; ++i) {
    const int pick = extreme(random);
    batch.keys.push_back(pick == 0 ? Key{0} : pick == 1 ? std::numeric_limits<Key>::max() : key(random));
    batch.values.push_back(static_cast<lsm_value>(random()));
    batch.operations.push_back(erase(random) ? lsm_operation::erase : lsm_operation::insert);
  }
  return batch;
}

/// Query keys: keys of the model, random ones, and the extremes.
template <class Key>
std::vector<Key> random_queries(std::mt19937_64& random, const std::map<Key, lsm_value>& model, std::size_t size,
                                Key universe)
{
  std::vector<Key> resident;
  for (const auto& entry : model) { resident.push_back(entry.first); }
  std::uniform_int_distribution<Key> key(0, universe);
  std::vector<Key> queries = {Key{0}, std::numeric_limits<Key>::max()};
  while (queries.size() < size) {
    if (!resident.empty() && random() % 2 == 0) {
      queries.push_back(resident[random() % resident.size()]);
    } else {
      queries.push_back(key(random));
    }
  }
  return queries;
}

template <class Key, class Backend>
void expect_lookup_matches(const Backend& backend, const lsm_map<Key, lsm_value, Backend>& map,
                           const std::map<Key, lsm_value>& model, const std::vector<Key>& queries)
{
  const auto query_buffer = make_buffer_from<Key>(backend, queries);
  auto values = make_filled_buffer<lsm_value>(backend, queries.size(), value_poison);
  auto found = make_filled_buffer<std::uint8_t>(backend, queries.size(), flag_poison);
  map.lookup(query_buffer.span(), values.span(), found.span());
  const auto got_values = values.to_vector();
  const auto got_found = found.to_vector();
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto entry = model.find(queries[i]);
    const bool present = entry != model.end();
    ASSERT_EQ(got_found[i], present ? 1 : 0) << "lookup of key " << queries[i];
    ASSERT_EQ(got_values[i], present ? entry->second : 0u) << "lookup of key " << queries[i];
  }
}

template <class Key, class Backend>
void expect_count_and_range_match(const Backend& backend, const lsm_map<Key, lsm_value, Backend>& map,
                                  const std::map<Key, lsm_value>& model, const std::vector<Key>& lower,
                                  const std::vector<Key>& upper)
{
  const auto lower_buffer = make_buffer_from<Key>(backend, lower);
  const auto upper_buffer = make_buffer_from<Key>(backend, upper);
  auto counts = make_filled_buffer<std::uint64_t>(backend, lower.size(), count_poison);
  map.count(lower_buffer.span(), upper_buffer.span(), counts.span());
  const auto got_counts = counts.to_vector();
  const auto result = map.range(lower_buffer.span(), upper_buffer.span());
  const auto offsets = result.offsets.to_vector();
  const auto keys = result.keys.to_vector();
  const auto values = result.values.to_vector();
  ASSERT_EQ(offsets.size(), lower.size() + 1);
  ASSERT_EQ(offsets.front(), 0u);
  ASSERT_EQ(offsets.back(), keys.size());
  ASSERT_EQ(values.size(), keys.size());
  for (std::size_t i = 0; i < lower.size(); ++i) {
    std::vector<std::pair<Key, lsm_value>> expected;
    if (lower[i] <= upper[i]) { expected.assign(model.lower_bound(lower[i]), model.upper_bound(upper[i])); }
    ASSERT_EQ(got_counts[i], expected.size()) << "count of [" << lower[i] << ", " << upper[i] << "]";
    ASSERT_EQ(offsets[i + 1] - offsets[i], expected.size()) << "range of [" << lower[i] << ", " << upper[i] << "]";
    for (std::size_t j = 0; j < expected.size(); ++j) {
      ASSERT_EQ(keys[offsets[i] + j], expected[j].first) << "range of [" << lower[i] << ", " << upper[i] << "]";
      ASSERT_EQ(values[offsets[i] + j], expected[j].second) << "range of [" << lower[i] << ", " << upper[i] << "]";
    }
  }
}

template <class Key, class Backend>
void expect_neighbors_match(const Backend& backend, const lsm_map<Key, lsm_value, Backend>& map,
                            const std::map<Key, lsm_value>& model, const std::vector<Key>& queries)
{
  const auto query_buffer = make_buffer_from<Key>(backend, queries);
  for (const bool successor : {true, false}) {
    auto keys = make_filled_buffer<Key>(backend, queries.size(), Key{1});
    auto values = make_filled_buffer<lsm_value>(backend, queries.size(), value_poison);
    auto found = make_filled_buffer<std::uint8_t>(backend, queries.size(), flag_poison);
    if (successor) {
      map.successor(query_buffer.span(), keys.span(), values.span(), found.span());
    } else {
      map.predecessor(query_buffer.span(), keys.span(), values.span(), found.span());
    }
    const auto got_keys = keys.to_vector();
    const auto got_values = values.to_vector();
    const auto got_found = found.to_vector();
    for (std::size_t i = 0; i < queries.size(); ++i) {
      auto expected = model.end();
      if (successor) {
        expected = model.upper_bound(queries[i]);
      } else {
        const auto at = model.lower_bound(queries[i]);
        if (at != model.begin()) { expected = std::prev(at); }
      }
      const bool any = expected != model.end();
      const char* what = successor ? "successor of " : "predecessor of ";
      ASSERT_EQ(got_found[i], any ? 1 : 0) << what << queries[i];
      ASSERT_EQ(got_keys[i], any ? expected->first : Key{0}) << what << queries[i];
      ASSERT_EQ(got_values[i], any ? expected->second : 0u) << what << queries[i];
    }
  }
}

template <class Key, class Backend>
void expect_contents_match(const lsm_map<Key, lsm_value, Backend>& map, const std::map<Key, lsm_value>& model)
{
  ASSERT_EQ(map.size(), model.size());
  const auto contents = map.retrieve_all();
  const auto keys = contents.keys.to_vector();
  const auto values = contents.values.to_vector();
  ASSERT_EQ(keys.size(), model.size());
  ASSERT_EQ(values.size(), model.size());
  std::size_t i = 0;
  for (const auto& [key, value] : model) {
    ASSERT_EQ(keys[i], key) << "retrieve_all at " << i;
    ASSERT_EQ(values[i], value) << "retrieve_all at " << i;
    ++i;
  }
}

/// Every query of the map against the model, on random inputs drawn from `random`.
template <class Key, class Backend>
void expect_matches_model(const Backend& backend, const lsm_map<Key, lsm_value, Backend>& map,
                          const std::map<Key, lsm_value>& model, std::mt19937_64& random, Key universe,
                          std::size_t query_count = 512)
{
  const std::vector<Key> queries = random_queries(random, model, query_count, universe);
  expect_lookup_matches(backend, map, model, queries);
  std::vector<Key> lower = random_queries(random, model, query_count, universe);
  std::vector<Key> upper = random_queries(random, model, query_count, universe);
  for (std::size_t i = 0; i < lower.size(); i += 3) {  // mostly well-formed ranges, some reversed ones
    if (lower[i] > upper[i]) { std::swap(lower[i], upper[i]); }
  }
  lower.push_back(0);
  upper.push_back(std::numeric_limits<Key>::max());
  expect_count_and_range_match(backend, map, model, lower, upper);
  expect_neighbors_match(backend, map, model, queries);
  expect_contents_match(map, model);
}

}  // namespace warpdex::testing
