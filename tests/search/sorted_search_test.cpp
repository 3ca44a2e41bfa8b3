// Sorted-array search against std::lower_bound / std::upper_bound on every backend and key type, for
// every algorithm: duplicates, empty arrays, queries below and above all keys, the largest key value; on
// cuda, small batches captured into a CUDA graph and replayed.
#include "search/search_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/search/sorted_search.hpp>

#if WARPDEX_HAS_CUDA
#include <warpdex/core/stream.hpp>
#endif

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace warpdex::testing {
namespace {

constexpr std::uint64_t poison = std::numeric_limits<std::uint64_t>::max();
constexpr search_algorithm every_algorithm[] = {search_algorithm::automatic, search_algorithm::binary,
                                                search_algorithm::btree, search_algorithm::kary,
                                                search_algorithm::sorted_queries};

template <class Key>
struct search_case {
  std::vector<Key> keys;  // sorted
  std::vector<Key> queries;
};

/// n sorted keys drawn from [0, value_range) (value_range small: many duplicates) plus `max_copies`
/// copies of the largest Key; queries drawn from slightly beyond the same range, with 0 and the largest
/// Key among them.
template <class Key>
search_case<Key> make_case(std::uint64_t n, std::uint64_t value_range, std::uint64_t max_copies,
                           std::uint64_t query_count, std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  const Key largest = std::numeric_limits<Key>::max();
  search_case<Key> c;
  for (std::uint64_t i = 0; i < n; ++i) { c.keys.push_back(static_cast<Key>(1 + random() % value_range)); }
  c.keys.insert(c.keys.end(), max_copies, largest);
  std::sort(c.keys.begin(), c.keys.end());
  const std::uint64_t query_range = value_range + 2;  // 0 when it wraps: the whole 64-bit range
  for (std::uint64_t i = 0; i < query_count; ++i) {
    c.queries.push_back(static_cast<Key>(query_range == 0 ? random() : random() % query_range));
  }
  c.queries.push_back(0);
  c.queries.push_back(largest);
  c.queries.push_back(largest - 1);
  std::shuffle(c.queries.begin(), c.queries.end(), random);
  return c;
}

template <class Config>
class sorted_search : public search_test<Config> {
 protected:
  using Key = typename Config::key_type;
  using Backend = typename Config::backend_type;

  void check_all_algorithms(const search_case<Key>& c)
  {
    const Backend& backend = this->backend();
    const auto keys = make_buffer_from<Key>(backend, c.keys);
    const auto queries = make_buffer_from<Key>(backend, c.queries);
    const std::size_t q = c.queries.size();
    std::vector<std::uint64_t> expected_lower(q);
    std::vector<std::uint64_t> expected_upper(q);
    for (std::size_t i = 0; i < q; ++i) {
      expected_lower[i] = std::lower_bound(c.keys.begin(), c.keys.end(), c.queries[i]) - c.keys.begin();
      expected_upper[i] = std::upper_bound(c.keys.begin(), c.keys.end(), c.queries[i]) - c.keys.begin();
    }
    const sorted_index<Key, Backend> index(backend, keys.span());
    for (const search_algorithm algorithm : every_algorithm) {
      SCOPED_TRACE(std::string(to_string(algorithm)));
      auto lower = make_filled_buffer<std::uint64_t>(backend, q, poison);
      index.lower_bound(queries.span(), lower.span(), algorithm);
      EXPECT_EQ(lower.to_vector(), expected_lower) << "lower_bound";

      auto upper = make_filled_buffer<std::uint64_t>(backend, q, poison);
      index.upper_bound(queries.span(), upper.span(), algorithm);
      EXPECT_EQ(upper.to_vector(), expected_upper) << "upper_bound";

      auto first = make_filled_buffer<std::uint64_t>(backend, q, poison);
      auto last = make_filled_buffer<std::uint64_t>(backend, q, poison);
      index.equal_range(queries.span(), first.span(), last.span(), algorithm);
      EXPECT_EQ(first.to_vector(), expected_lower) << "equal_range first";
      EXPECT_EQ(last.to_vector(), expected_upper) << "equal_range last";

      for (const bool poison_flag : {false, true}) {
        auto found = make_filled_buffer<std::uint8_t>(backend, q, poison_flag ? 1 : 0);
        index.contains(queries.span(), found.span(), algorithm);
        const auto got = found.to_vector();
        for (std::size_t i = 0; i < q; ++i) {
          ASSERT_EQ(got[i], expected_lower[i] != expected_upper[i] ? 1 : 0) << "contains, query " << i;
        }
      }
    }
  }
};

TYPED_TEST_SUITE(sorted_search, search_configs, search_config_names);

TYPED_TEST(sorted_search, random_with_duplicates_matches_std)
{
  using Key = typename TypeParam::key_type;
  // sizes around node and level boundaries of the B+-tree (32 keys per node)
  for (const std::uint64_t n : {1, 2, 31, 32, 33, 1000, 1024, 1025, 32 * 32 * 32 + 7, 100000}) {
    for (const std::uint64_t value_range : {n / 4 + 1, 4 * n + 10}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE("n " + std::to_string(n) + ", value range " + std::to_string(value_range) + ", seed " +
                   std::to_string(seed));
      this->check_all_algorithms(make_case<Key>(n, value_range, 0, 3000, seed));
    }
  }
}

TYPED_TEST(sorted_search, full_key_range_and_largest_key)
{
  using Key = typename TypeParam::key_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::uint64_t full_range = std::numeric_limits<Key>::max() - 1;
  for (const std::uint64_t max_copies : {1, 5, 40}) {
    this->check_all_algorithms(make_case<Key>(50000, full_range, max_copies, 5000, seed + max_copies));
  }
}

TYPED_TEST(sorted_search, only_largest_keys)
{
  using Key = typename TypeParam::key_type;
  this->check_all_algorithms(make_case<Key>(0, 1, 100, 50, fresh_seed()));
}

TYPED_TEST(sorted_search, empty_array_gives_position_zero)
{
  using Key = typename TypeParam::key_type;
  this->check_all_algorithms(make_case<Key>(0, 10, 0, 100, fresh_seed()));
}

TYPED_TEST(sorted_search, empty_batch_is_fine)
{
  using Key = typename TypeParam::key_type;
  search_case<Key> c = make_case<Key>(100, 1000, 0, 0, fresh_seed());
  c.queries.clear();
  this->check_all_algorithms(c);
}

TYPED_TEST(sorted_search, large_batch_takes_the_sorted_queries_path)
{
  using Key = typename TypeParam::key_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Large enough that automatic sorts the queries on the GPU (2^20 and up), small enough for the sanitizers.
  this->check_all_algorithms(make_case<Key>(std::uint64_t{1} << 20, std::uint64_t{1} << 22, 3, (1 << 20) - 3, seed));
}

TYPED_TEST(sorted_search, one_call_forms_match_the_index)
{
  using Key = typename TypeParam::key_type;
  const auto& backend = this->backend();
  const auto c = make_case<Key>(5000, 3000, 2, 2000, fresh_seed());
  const auto keys = make_buffer_from<Key>(backend, c.keys);
  const auto queries = make_buffer_from<Key>(backend, c.queries);
  const std::size_t q = c.queries.size();
  auto lower = make_filled_buffer<std::uint64_t>(backend, q, poison);
  auto upper = make_filled_buffer<std::uint64_t>(backend, q, poison);
  auto first = make_filled_buffer<std::uint64_t>(backend, q, poison);
  auto last = make_filled_buffer<std::uint64_t>(backend, q, poison);
  auto found = make_filled_buffer<std::uint8_t>(backend, q, 0);
  warpdex::lower_bound(backend, keys.span(), queries.span(), lower.span());
  warpdex::upper_bound(backend, keys.span(), queries.span(), upper.span());
  warpdex::equal_range(backend, keys.span(), queries.span(), first.span(), last.span());
  warpdex::contains(backend, keys.span(), queries.span(), found.span());
  const auto lower_host = lower.to_vector();
  const auto upper_host = upper.to_vector();
  const auto found_host = found.to_vector();
  EXPECT_EQ(first.to_vector(), lower_host);
  EXPECT_EQ(last.to_vector(), upper_host);
  for (std::size_t i = 0; i < q; ++i) {
    EXPECT_EQ(lower_host[i], std::lower_bound(c.keys.begin(), c.keys.end(), c.queries[i]) - c.keys.begin());
    EXPECT_EQ(upper_host[i], std::upper_bound(c.keys.begin(), c.keys.end(), c.queries[i]) - c.keys.begin());
    EXPECT_EQ(found_host[i], std::binary_search(c.keys.begin(), c.keys.end(), c.queries[i]) ? 1 : 0);
  }
}

TYPED_TEST(sorted_search, check_sorted_detects_order)
{
  using Key = typename TypeParam::key_type;
  const auto& backend = this->backend();
  const auto sorted_check = [&](std::vector<Key> values) {
    const auto buffer = make_buffer_from<Key>(backend, values);
    return check_sorted(backend, std::span<const Key>(buffer.span()));
  };
  const Key largest = std::numeric_limits<Key>::max();
  EXPECT_TRUE(sorted_check({}));
  EXPECT_TRUE(sorted_check({largest}));
  EXPECT_TRUE(sorted_check({1, 1, 1, 2, largest, largest}));
  EXPECT_FALSE(sorted_check({2, 1}));
  EXPECT_FALSE(sorted_check({0, 1, 2, 3, largest, 7}));
  std::vector<Key> long_sorted(100000);
  for (std::size_t i = 0; i < long_sorted.size(); ++i) { long_sorted[i] = static_cast<Key>(i / 3); }
  EXPECT_TRUE(sorted_check(long_sorted));
  std::swap(long_sorted[77777], long_sorted[77790]);
  EXPECT_FALSE(sorted_check(long_sorted));
}

TYPED_TEST(sorted_search, unsorted_keys_are_caught_in_debug_builds_and_stay_in_range_otherwise)
{
  using Key = typename TypeParam::key_type;
  const auto& backend = this->backend();
  std::vector<Key> unsorted(5000);
  std::mt19937_64 random(fresh_seed());
  for (Key& key : unsorted) { key = static_cast<Key>(random()); }
  const auto keys = make_buffer_from<Key>(backend, unsorted);
#ifndef NDEBUG
  expect_error_mentioning<error>([&] { sorted_index<Key, typename TypeParam::backend_type>(backend, keys.span()); },
                                 {"sorted_index", "not in ascending order"});
#else
  const auto queries = make_buffer_from<Key>(backend, unsorted);
  const sorted_index<Key, typename TypeParam::backend_type> index(backend, keys.span());
  for (const search_algorithm algorithm : every_algorithm) {
    auto positions = make_filled_buffer<std::uint64_t>(backend, unsorted.size(), poison);
    index.lower_bound(queries.span(), positions.span(), algorithm);
    for (const std::uint64_t position : positions.to_vector()) { ASSERT_LE(position, unsorted.size()); }
  }
#endif
}

TYPED_TEST(sorted_search, output_size_mismatch_is_rejected_before_writing)
{
  using Key = typename TypeParam::key_type;
  const auto& backend = this->backend();
  const auto c = make_case<Key>(100, 50, 0, 10, fresh_seed());
  const auto keys = make_buffer_from<Key>(backend, c.keys);
  const auto queries = make_buffer_from<Key>(backend, c.queries);
  const sorted_index<Key, typename TypeParam::backend_type> index(backend, keys.span());
  const std::size_t q = c.queries.size();
  auto short_output = make_filled_buffer<std::uint64_t>(backend, q - 1, poison);
  auto right_output = make_filled_buffer<std::uint64_t>(backend, q, poison);
  auto short_found = make_filled_buffer<std::uint8_t>(backend, q - 1, 0);
  expect_error_mentioning<error>([&] { index.lower_bound(queries.span(), short_output.span()); },
                                 {"lower_bound", "positions holds 12 elements", "13 queries"});
  expect_error_mentioning<error>([&] { index.upper_bound(queries.span(), short_output.span()); }, {"upper_bound"});
  expect_error_mentioning<error>([&] { index.equal_range(queries.span(), right_output.span(), short_output.span()); },
                                 {"equal_range", "last holds"});
  expect_error_mentioning<error>([&] { index.equal_range(queries.span(), short_output.span(), right_output.span()); },
                                 {"equal_range", "first holds"});
  expect_error_mentioning<error>([&] { index.contains(queries.span(), short_found.span()); }, {"contains", "found"});
  for (const std::uint64_t value : short_output.to_vector()) { EXPECT_EQ(value, poison); }
  for (const std::uint64_t value : right_output.to_vector()) { EXPECT_EQ(value, poison); }
}

TYPED_TEST(sorted_search, automatic_choice_follows_batch_size_and_order)
{
  using Key = typename TypeParam::key_type;
  using Backend = typename TypeParam::backend_type;
  const auto& backend = this->backend();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // 2^20 queries into 2^20 keys: the smallest batch and array that the GPU sorts the queries for.
  constexpr std::uint64_t large = std::uint64_t{1} << 20;
  const auto c = make_case<Key>(large, large << 2, 0, large - 3, seed);
  const auto keys = make_buffer_from<Key>(backend, c.keys);
  const sorted_index<Key, Backend> index(backend, keys.span());
  const auto choice = [&](const std::vector<Key>& batch) {
    const auto queries = make_buffer_from<Key>(backend, batch);
    return index.choose(std::span<const Key>(queries.span()));
  };
  const bool on_gpu = !std::is_same_v<Backend, host>;
  const search_algorithm large_random = on_gpu ? search_algorithm::sorted_queries : search_algorithm::binary;
  ASSERT_EQ(c.queries.size(), large);
  EXPECT_EQ(choice(c.queries), large_random) << "large random batch";

  std::vector<Key> sorted_queries = c.queries;
  std::sort(sorted_queries.begin(), sorted_queries.end());
  EXPECT_EQ(choice(sorted_queries), search_algorithm::binary) << "large sorted batch";
  // Out of order only at the last position (always sampled), and in reverse order.
  std::vector<Key> late_swap = sorted_queries;
  std::iter_swap(late_swap.end() - 1, late_swap.begin() + large / 2);
  EXPECT_EQ(choice(late_swap), large_random) << "sorted but for the last query";
  std::vector<Key> descending(sorted_queries.rbegin(), sorted_queries.rend());
  EXPECT_EQ(choice(descending), large_random) << "descending batch";

  const std::vector<Key> small_random(c.queries.begin(), c.queries.begin() + large / 2);
  EXPECT_EQ(choice(small_random), search_algorithm::binary) << "random batch below 2^20 queries";
  const std::vector<Key> few_keys(c.keys.begin(), c.keys.begin() + large / 2);
  const auto small_keys = make_buffer_from<Key>(backend, few_keys);
  const sorted_index<Key, Backend> small_index(backend, small_keys.span());
  const auto queries = make_buffer_from<Key>(backend, c.queries);
  EXPECT_EQ(small_index.choose(std::span<const Key>(queries.span())), search_algorithm::binary)
      << "random batch into fewer than 2^20 keys";
}

TEST(search_algorithm_names, round_trip_and_reject_unknown)
{
  for (const search_algorithm algorithm : every_algorithm) {
    EXPECT_EQ(parse_search_algorithm(to_string(algorithm)), algorithm);
  }
  expect_error_mentioning<error>([] { (void)parse_search_algorithm("ternary"); },
                                 {"unknown search algorithm", "ternary"});
}


#if WARPDEX_HAS_CUDA
// Batches below 2^20 queries are searched without looking at them (binary, one kernel, nothing waits), so
// a loop of small batches captures into a CUDA graph (core/stream.hpp) and replays on queries rewritten in
// place, every output poisoned before each replay, equal to std::lower_bound / upper_bound each time.
class sorted_search_graph : public cuda_test {};

TEST_F(sorted_search_graph, small_batches_replay_from_a_graph)
{
  using Key = std::uint32_t;
  const owned_stream own;
  const cuda on{own.get()};
  const auto c = make_case<Key>(1 << 20, 1 << 24, 3, 1021, 4439);
  const auto keys = make_buffer_from<Key>(on, c.keys);
  const sorted_index<Key, cuda> index(on, keys.span());
  constexpr std::size_t batches = 4;
  const std::size_t batch = c.queries.size();
  auto queries = make_buffer<Key>(on, batches * batch);
  auto lower = make_buffer<std::uint64_t>(on, batches * batch);
  auto upper = make_buffer<std::uint64_t>(on, batches * batch);
  auto found = make_buffer<std::uint8_t>(on, batches * batch);
  on.synchronize();  // the index is built
  const captured_graph graph(own.get(), [&] {
    for (std::size_t b = 0; b < batches; ++b) {
      const auto part = [&](auto& buffer) { return buffer.span().subspan(b * batch, batch); };
      const std::span<const Key> batch_queries = part(queries);
      index.lower_bound(batch_queries, part(lower));
      index.upper_bound(batch_queries, part(upper));
      index.contains(batch_queries, part(found));
    }
  });
  EXPECT_GE(graph.node_count(), 3 * batches);
  std::mt19937_64 random(4440);
  for (int replay = 0; replay < 2; ++replay) {
    std::vector<Key> host_queries(batches * batch);
    for (auto& query : host_queries) { query = static_cast<Key>(random() % ((1 << 24) + 2)); }
    host_queries[replay] = std::numeric_limits<Key>::max();
    queries.copy_from(std::span<const Key>(host_queries));
    lower.copy_from(std::span<const std::uint64_t>(std::vector<std::uint64_t>(lower.size(), poison)));
    upper.copy_from(std::span<const std::uint64_t>(std::vector<std::uint64_t>(upper.size(), poison)));
    found.copy_from(std::span<const std::uint8_t>(std::vector<std::uint8_t>(found.size(), 0xa5)));
    on.synchronize();
    graph.launch(own.get());
    const auto lower_host = lower.to_vector();  // waits for the stream
    const auto upper_host = upper.to_vector();
    const auto found_host = found.to_vector();
    for (std::size_t i = 0; i < host_queries.size(); ++i) {
      const auto first = std::lower_bound(c.keys.begin(), c.keys.end(), host_queries[i]) - c.keys.begin();
      const auto last = std::upper_bound(c.keys.begin(), c.keys.end(), host_queries[i]) - c.keys.begin();
      ASSERT_EQ(lower_host[i], static_cast<std::uint64_t>(first)) << "replay " << replay << ", query " << i;
      ASSERT_EQ(upper_host[i], static_cast<std::uint64_t>(last)) << "replay " << replay << ", query " << i;
      ASSERT_EQ(found_host[i], first != last ? 1 : 0) << "replay " << replay << ", query " << i;
    }
  }
}
#endif

}  // namespace
}  // namespace warpdex::testing
