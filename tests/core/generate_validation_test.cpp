// The generators' parameter checks on every backend: bad input throws warpdex::error before anything is
// written, and empty outputs are fine.
#include "generate_test_support.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/core/generate.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <string>

namespace {

using std::uint32_t;
using warpdex::key_order;
using warpdex::key_set;
using warpdex::testing::describe;
using warpdex::testing::expect_rejected_without_writing;

constexpr auto max_u32 = std::numeric_limits<uint32_t>::max();
constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

template <class Backend>
class generate_validation_test : public warpdex::testing::backend_test<Backend> {
};
TYPED_TEST_SUITE(generate_validation_test, warpdex::testing::all_backends, warpdex::testing::backend_names);

TYPED_TEST(generate_validation_test, fractions_outside_zero_to_one_are_rejected)
{
  const auto& backend = this->backend();
  const key_set<uint32_t> set{1000, 1, key_order::shuffled, max_u32};
  for (const double fraction : {-0.01, 1.01, -infinity, infinity, not_a_number}) {
    SCOPED_TRACE("fraction " + std::to_string(fraction));
    expect_rejected_without_writing<uint32_t>(backend, 1000, [&](std::span<uint32_t> out) {
      warpdex::generate_keys_with_duplicates(backend, out, fraction, 2);
    });
    expect_rejected_without_writing<uint32_t>(
        backend, 1000, [&](std::span<uint32_t> out) { warpdex::generate_queries(backend, set, fraction, 3, out); });
  }
}

TYPED_TEST(generate_validation_test, zipf_exponent_must_be_finite_and_non_negative)
{
  const auto& backend = this->backend();
  const key_set<uint32_t> pool{1000, 4, key_order::shuffled, max_u32};
  for (const double exponent : {-0.5, infinity, not_a_number}) {
    SCOPED_TRACE("exponent " + std::to_string(exponent));
    expect_rejected_without_writing<uint32_t>(
        backend, 1000, [&](std::span<uint32_t> out) { warpdex::generate_zipf_keys(backend, pool, exponent, 5, out); });
  }
}

TYPED_TEST(generate_validation_test, zipf_draws_need_a_non_empty_pool)
{
  const auto& backend = this->backend();
  const key_set<uint32_t> empty_pool{0, 6, key_order::shuffled, max_u32};
  expect_rejected_without_writing<uint32_t>(
      backend, 1000, [&](std::span<uint32_t> out) { warpdex::generate_zipf_keys(backend, empty_pool, 1.0, 7, out); });
}

TYPED_TEST(generate_validation_test, sets_larger_than_their_key_range_are_rejected)
{
  const auto& backend = this->backend();
  for (const key_order order : {key_order::shuffled, key_order::sorted}) {
    const key_set<uint32_t> oversized{1001, 8, order, 999};
    SCOPED_TRACE(describe(oversized));
    expect_rejected_without_writing<uint32_t>(
        backend, 1001, [&](std::span<uint32_t> out) { warpdex::generate_keys(backend, oversized, out); });
    expect_rejected_without_writing<uint32_t>(
        backend, 1000, [&](std::span<uint32_t> out) { warpdex::generate_queries(backend, oversized, 0.0, 9, out); });
    expect_rejected_without_writing<uint32_t>(
        backend, 1000, [&](std::span<uint32_t> out) { warpdex::generate_zipf_keys(backend, oversized, 1.0, 10, out); });
  }
  // 1000 distinct keys do not fit in [0, 998].
  expect_rejected_without_writing<uint32_t>(backend, 1000, [&](std::span<uint32_t> out) {
    warpdex::generate_keys_with_duplicates(backend, out, 0.0, 11, uint32_t{998});
  });
}

TYPED_TEST(generate_validation_test, output_size_must_equal_the_set_size)
{
  const auto& backend = this->backend();
  const key_set<uint32_t> set{1000, 12, key_order::shuffled, max_u32};
  for (const std::size_t wrong_size : {999, 1001}) {
    expect_rejected_without_writing<uint32_t>(
        backend, wrong_size, [&](std::span<uint32_t> out) { warpdex::generate_keys(backend, set, out); });
  }
}

TYPED_TEST(generate_validation_test, absent_queries_need_room_outside_the_set)
{
  const auto& backend = this->backend();
  // Full domains, and a sorted set with one key per slot (floor(1999 / 1000) = 1): no key can be absent.
  const key_set<uint32_t> full_sets[] = {
      {1000, 13, key_order::shuffled, 999}, {1000, 14, key_order::sorted, 999}, {1000, 15, key_order::sorted, 1998}};
  for (const auto& set : full_sets) {
    SCOPED_TRACE(describe(set));
    expect_rejected_without_writing<uint32_t>(
        backend, 1000, [&](std::span<uint32_t> out) { warpdex::generate_queries(backend, set, 0.1, 16, out); });
    // Present queries alone are fine.
    auto out = warpdex::make_buffer<uint32_t>(backend, 1000);
    EXPECT_NO_THROW(warpdex::generate_queries(backend, set, 0.0, 17, out.span()));
  }
  warpdex::testing::expect_error_mentioning<warpdex::error>(
      [&] {
        auto out = warpdex::make_buffer<uint32_t>(backend, 1000);
        warpdex::generate_queries(backend, full_sets[1], 0.5, 18, out.span());
      },
      {"generate_queries", "sorted set of 1000 keys in [0, 999]", "no room for absent keys"});
}

TYPED_TEST(generate_validation_test, present_queries_need_a_non_empty_set)
{
  const auto& backend = this->backend();
  const key_set<uint32_t> empty_set{0, 19, key_order::shuffled, max_u32};
  for (const double absent_fraction : {0.0, 0.5}) {
    expect_rejected_without_writing<uint32_t>(backend, 1000, [&](std::span<uint32_t> out) {
      warpdex::generate_queries(backend, empty_set, absent_fraction, 20, out);
    });
  }
}

TYPED_TEST(generate_validation_test, empty_outputs_are_fine)
{
  const auto& backend = this->backend();
  auto empty = warpdex::make_buffer<std::uint64_t>(backend, 0);
  const key_set<std::uint64_t> empty_set{0, 21, key_order::sorted};
  const key_set<std::uint64_t> pool{1000, 22, key_order::shuffled};
  EXPECT_NO_THROW(warpdex::generate_keys(backend, empty_set, empty.span()));
  EXPECT_NO_THROW(warpdex::generate_keys_with_duplicates(backend, empty.span(), 0.5, 23));
  EXPECT_NO_THROW(warpdex::generate_zipf_keys(backend, pool, 1.0, 24, empty.span()));
  EXPECT_NO_THROW(warpdex::generate_queries(backend, pool, 0.5, 25, empty.span()));
  backend.synchronize();
}

}  // namespace
