#pragma once
// Helpers of the slab table suites: the (backend, slab size) parameters of the typed suites, moving
// vectors to and from a backend, random distinct keys, fresh seeds, and exporting a table into an oracle
// container for comparison.

#include "support/backend_fixture.hpp"

#include <warpdex/hash/slab_map.hpp>
#include <warpdex/hash/slab_set.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <source_location>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace warpdex::testing {

/// A parameter of the typed slab suites: the backend and the slab size (hash::is_supported_slab_size).
template <class Backend, std::uint32_t SlabBytes>
struct slab_config {
  using backend_type = Backend;
  static constexpr std::uint32_t slab_bytes = SlabBytes;
};

/// Every backend of the build with each slab size.
#if WARPDEX_HAS_CUDA
using all_slab_configs = ::testing::Types<slab_config<host, hash::default_slab_bytes>, slab_config<host, 64>,
                                          slab_config<cuda, hash::default_slab_bytes>, slab_config<cuda, 64>>;
#else
using all_slab_configs = ::testing::Types<slab_config<host, hash::default_slab_bytes>, slab_config<host, 64>>;
#endif

/// Names the typed cases after the backend, with the slab size when it is not the default
/// ("suite/host.test", "suite/cuda_slab64.test").
struct slab_config_names {
  template <class Config>
  static std::string GetName(int /*index*/)
  {
    std::string name(Config::backend_type::name);
    if (Config::slab_bytes != hash::default_slab_bytes) { name += "_slab" + std::to_string(Config::slab_bytes); }
    return name;
  }
};

/// A random engine seeded afresh on every run; while it lives, a failing assertion prints its seed.
class seeded_random : public std::mt19937_64 {
 public:
  explicit seeded_random(std::uint64_t seed = std::random_device{}(),
                         std::source_location where = std::source_location::current())
      : std::mt19937_64(seed), trace_(where.file_name(), static_cast<int>(where.line()), "seed " + std::to_string(seed))
  {
  }

 private:
  ::testing::ScopedTrace trace_;
};

/// A value no operation writes: outputs are filled with it to show which elements were left alone.
inline constexpr std::uint32_t poison_value = 0xa5a5a5a5U;

template <class T, class Backend>
buffer<T> to_backend(const Backend& backend, const std::vector<T>& values)
{
  return make_buffer_from<T>(backend, std::span<const T>(values));
}

/// The fixture of the slab table suites: a backend test with shorthands for moving data to the backend.
template <class Backend>
class slab_backend_test : public backend_test<Backend> {
 protected:
  /// A copy of `values` in the backend's memory.
  template <class T>
  buffer<T> put(const std::vector<T>& values) const
  {
    return to_backend(this->backend(), values);
  }
  /// `size` elements in the backend's memory, each `value`.
  template <class T>
  buffer<T> poisoned(std::size_t size, T value) const
  {
    return make_filled_buffer<T>(this->backend(), size, value);
  }
  /// Runs a mixed batch on `map` (a map or a set); returns its statuses and values_out (poisoned where
  /// unwritten).
  template <class Map>
  std::pair<std::vector<hash::operation_status>, std::vector<std::uint32_t>> execute(
      Map& map, const std::vector<hash::operation>& ops, const std::vector<std::uint32_t>& keys,
      const std::vector<std::uint32_t>& values) const
  {
    auto device_ops = put(ops);
    auto device_keys = put(keys);
    auto device_values = put(values);
    auto values_out = poisoned<std::uint32_t>(keys.size(), poison_value);
    auto statuses = poisoned<hash::operation_status>(keys.size(), static_cast<hash::operation_status>(0xdead));
    map.execute(device_ops.span(), device_keys.span(), device_values.span(), values_out.span(), statuses.span());
    return {statuses.to_vector(), values_out.to_vector()};
  }
};

/// `count` distinct keys in [0, max_key], drawn from `random`.
inline std::vector<std::uint32_t> distinct_keys(std::mt19937_64& random, std::size_t count,
                                                std::uint32_t max_key = hash::max_user_key)
{
  std::unordered_set<std::uint32_t> seen;
  std::vector<std::uint32_t> keys;
  std::uniform_int_distribution<std::uint32_t> draw(0, max_key);
  while (keys.size() < count) {
    const std::uint32_t key = draw(random);
    if (seen.insert(key).second) { keys.push_back(key); }
  }
  return keys;
}

/// `count` keys drawn from `universe` with probability proportional to (rank + 1)^-exponent, rank being
/// the position in `universe` (a Zipf-skewed workload; exponent 0 draws uniformly).
inline std::vector<std::uint32_t> zipf_draws(std::mt19937_64& random, const std::vector<std::uint32_t>& universe,
                                             std::size_t count, double exponent)
{
  std::vector<double> weights(universe.size());
  for (std::size_t rank = 0; rank < universe.size(); ++rank) {
    weights[rank] = std::pow(static_cast<double>(rank + 1), -exponent);
  }
  std::discrete_distribution<std::size_t> draw(weights.begin(), weights.end());
  std::vector<std::uint32_t> keys(count);
  for (std::uint32_t& key : keys) { key = universe[draw(random)]; }
  return keys;
}

template <class Backend, std::uint32_t SlabBytes, class Hasher, class KeyEqual>
std::unordered_map<std::uint32_t, std::uint32_t> export_map(
    const hash::slab_map<std::uint32_t, std::uint32_t, Backend, SlabBytes, Hasher, KeyEqual>& map)
{
  const std::uint64_t size = map.size();
  auto keys = make_buffer<std::uint32_t>(map.backend(), size);
  auto values = make_buffer<std::uint32_t>(map.backend(), size);
  EXPECT_EQ(map.export_pairs(keys.span(), values.span()), size);
  const auto host_keys = keys.to_vector();
  const auto host_values = values.to_vector();
  std::unordered_map<std::uint32_t, std::uint32_t> pairs;
  for (std::size_t i = 0; i < host_keys.size(); ++i) {
    EXPECT_TRUE(pairs.emplace(host_keys[i], host_values[i]).second) << "key " << host_keys[i] << " exported twice";
  }
  return pairs;
}

/// What one element of a mixed batch on a key no other element touches must report: its status, and
/// the value a found find writes (poison_value otherwise: values_out stays unwritten). Runs the
/// operation on `oracle`, which it updates.
struct expected_outcome {
  hash::operation_status status = hash::operation_status::not_found;
  std::uint32_t value_out = poison_value;
};
inline expected_outcome apply_to_oracle(std::unordered_map<std::uint32_t, std::uint32_t>& oracle, hash::operation op,
                                        std::uint32_t key, std::uint32_t value)
{
  using hash::operation_status;
  const auto at = oracle.find(key);
  const bool present = at != oracle.end();
  expected_outcome expected;
  switch (op) {
    case hash::operation::find:
      if (present) { expected = {operation_status::found, at->second}; }
      break;
    case hash::operation::insert:
      expected.status = present ? operation_status::already_present : operation_status::inserted;
      if (!present) { oracle.emplace(key, value); }
      break;
    case hash::operation::insert_or_assign:
      expected.status = present ? operation_status::assigned : operation_status::inserted;
      oracle[key] = value;
      break;
    case hash::operation::erase:
      expected.status = present ? operation_status::erased : operation_status::not_found;
      oracle.erase(key);
      break;
  }
  return expected;
}

template <class Backend, std::uint32_t SlabBytes, class Hasher, class KeyEqual>
std::unordered_set<std::uint32_t> export_set(
    const hash::slab_set<std::uint32_t, Backend, SlabBytes, Hasher, KeyEqual>& set)
{
  const std::uint64_t size = set.size();
  auto keys = make_buffer<std::uint32_t>(set.backend(), size);
  EXPECT_EQ(set.export_keys(keys.span()), size);
  std::unordered_set<std::uint32_t> result;
  for (const std::uint32_t key : keys.to_vector()) {
    EXPECT_TRUE(result.insert(key).second) << "key " << key << " exported twice";
  }
  return result;
}

}  // namespace warpdex::testing
