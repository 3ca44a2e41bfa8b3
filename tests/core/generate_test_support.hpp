#pragma once
// Helpers shared by the generator suites: running a generator so that unwritten output is caught, and
// small oracles over its result.

#include "support/backend_fixture.hpp"

#include <warpdex/core/generate.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace warpdex::testing {

/// Two fill patterns that differ in every bit.
template <class T>
inline constexpr T poison = static_cast<T>(0xa5a5a5a5a5a5a5a5ULL);
template <class T>
inline constexpr T other_poison = static_cast<T>(~poison<T>);

/// Runs `generate(out)` on the backend into a buffer of `size` elements poisoned with one pattern, then
/// into one poisoned with another, and returns the output. Generators are deterministic, so the two runs
/// agree except where an element was left unwritten (it keeps its poison): the test fails there.
template <class T, class Backend, class Generate>
std::vector<T> generate_checked(const Backend& backend, std::size_t size, Generate&& generate)
{
  auto first = make_filled_buffer<T>(backend, size, poison<T>);
  auto second = make_filled_buffer<T>(backend, size, other_poison<T>);
  generate(first.span());
  generate(second.span());
  const std::vector<T> result = first.to_vector();
  const std::vector<T> check = second.to_vector();
  std::size_t unwritten = 0;
  for (std::size_t i = 0; i < size; ++i) { unwritten += result[i] != check[i] ? 1 : 0; }
  EXPECT_EQ(unwritten, 0U) << "elements left unwritten (or generated non-deterministically) out of " << size;
  return result;
}

/// Runs `generate(out)`, which must throw warpdex::error, and checks it left the poisoned output as it was.
template <class T, class Backend, class Generate>
void expect_rejected_without_writing(const Backend& backend, std::size_t size, Generate&& generate)
{
  auto out = make_filled_buffer<T>(backend, size, poison<T>);
  EXPECT_THROW(generate(out.span()), warpdex::error);
  const std::vector<T> after = out.to_vector();
  EXPECT_TRUE(std::all_of(after.begin(), after.end(), [](T value) { return value == poison<T>; }))
      << "a rejected call wrote to its output";
}

template <class T>
std::size_t distinct_count(std::vector<T> values)
{
  std::sort(values.begin(), values.end());
  return static_cast<std::size_t>(std::unique(values.begin(), values.end()) - values.begin());
}

/// The keys of `set`, generated on the backend.
template <class Key, class Backend>
std::vector<Key> generate_set(const Backend& backend, const key_set<Key>& set)
{
  return generate_checked<Key>(backend, set.size, [&](std::span<Key> out) { generate_keys(backend, set, out); });
}

/// "shuffled set of 1000 32-bit keys in [0, 999], seed 7": for SCOPED_TRACE.
template <class Key>
std::string describe(const key_set<Key>& set)
{
  return std::string(set.order == key_order::sorted ? "sorted" : "shuffled") + " set of " + std::to_string(set.size) +
         " " + std::to_string(8 * sizeof(Key)) + "-bit keys in [0, " + std::to_string(set.max_key) + "], seed " +
         std::to_string(set.seed);
}

}  // namespace warpdex::testing
