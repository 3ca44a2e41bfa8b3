// The `_async` batches of the slab tables (slab_table.hpp, "Asynchronous batches") on every backend:
// equal to the synchronous calls, many small batches in a row on one stream with one wait at the end,
// out_of_memory reported per element without growth and retried after grow_pool, rejected batches,
// outputs poisoned beforehand so that every element written (and none other) shows, and finds writing
// their outputs into pinned host memory.
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/core/stream.hpp>
#include <warpdex/hash/slab_multimap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::operation;
using hash::operation_status;
using hash::run_elements;
using oracle_map = std::unordered_map<std::uint32_t, std::uint32_t>;

/// A status no operation writes.
constexpr auto poison_status = static_cast<operation_status>(0xdead);
/// A found flag no operation writes.
constexpr std::uint8_t poison_flag = 7;

template <class Backend>
class slab_async_test : public slab_backend_test<Backend> {
 protected:
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, Backend>;
  using set_type = hash::slab_set<std::uint32_t, Backend>;
  using multimap_type = hash::slab_multimap<std::uint32_t, std::uint32_t, Backend>;

  buffer<operation_status> statuses_for(std::size_t size) const { return this->poisoned(size, poison_status); }
  buffer<std::uint32_t> values_for(std::size_t size) const { return this->poisoned(size, poison_value); }
};
TYPED_TEST_SUITE(slab_async_test, all_backends, backend_names);

std::vector<std::uint32_t> random_values(std::mt19937_64& random, std::size_t count)
{
  std::vector<std::uint32_t> values(count);
  for (auto& value : values) { value = static_cast<std::uint32_t>(random()); }
  return values;
}

/// Every output of a run of batches, as numbers.
using outputs = std::vector<std::vector<std::uint32_t>>;

template <class T>
std::vector<std::uint32_t> as_numbers(const buffer<T>& values)
{
  const auto host_values = values.to_vector();
  std::vector<std::uint32_t> numbers(host_values.size());
  std::transform(host_values.begin(), host_values.end(), numbers.begin(),
                 [](T value) { return static_cast<std::uint32_t>(value); });
  return numbers;
}

TYPED_TEST(slab_async_test, MapBatchesEqualTheSynchronousOnes)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  constexpr std::size_t n = 3000;
  const auto keys = distinct_keys(random, 2 * n);
  const auto values = random_values(random, 2 * n);
  const auto new_values = random_values(random, 2 * n);
  std::vector<operation> ops(2 * n);
  for (auto& op : ops) { op = static_cast<operation>(random() % hash::operation_count); }
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  auto device_new_values = this->put(new_values);
  auto device_ops = this->put(ops);
  const std::span<const std::uint32_t> all_keys = device_keys.span();
  const std::span<const std::uint32_t> all_values = device_values.span();
  const std::span<const std::uint32_t> all_new_values = device_new_values.span();
  constexpr std::uint32_t default_value = 17;

  // The same steps on two maps, synchronously and asynchronously (the async outputs read at the end).
  auto run_steps = [&](map_type& map, bool async) {
    std::vector<buffer<operation_status>> statuses;
    std::vector<buffer<std::uint32_t>> values_out;
    for (int step = 0; step < 7; ++step) {
      statuses.push_back(this->statuses_for(2 * n));
      values_out.push_back(this->values_for(2 * n));
    }
    auto found = this->poisoned(2 * n, poison_flag);
    const std::size_t three_halves = n + n / 2;
    if (async) {
      map.insert_async(all_keys.first(n), all_values.first(n), statuses[0].span().first(n));
      map.find_async(all_keys, values_out[1].span(), statuses[1].span());
      map.insert_or_assign_async(all_keys.first(three_halves), all_new_values.first(three_halves),
                                 statuses[2].span().first(three_halves));
      map.erase_async(all_keys.subspan(n / 2, n), statuses[3].span().first(n));
      map.execute_async(device_ops.span(), all_keys, all_values, values_out[4].span(), statuses[4].span());
      map.find_async(all_keys, values_out[5].span(), found.span(), default_value);
      map.find_async(all_keys, values_out[6].span(), default_value);
    } else {
      map.insert(all_keys.first(n), all_values.first(n), statuses[0].span().first(n));
      map.find(all_keys, values_out[1].span(), statuses[1].span());
      map.insert_or_assign(all_keys.first(three_halves), all_new_values.first(three_halves),
                           statuses[2].span().first(three_halves));
      map.erase(all_keys.subspan(n / 2, n), statuses[3].span().first(n));
      map.execute(device_ops.span(), all_keys, all_values, values_out[4].span(), statuses[4].span());
      map.find(all_keys, values_out[5].span(), found.span(), default_value);
      map.find(all_keys, values_out[6].span(), default_value);
    }
    outputs result;
    for (int step = 0; step < 7; ++step) {
      result.push_back(as_numbers(statuses[step]));
      result.push_back(as_numbers(values_out[step]));
    }
    result.push_back(as_numbers(found));
    return result;
  };
  map_type sync_map(this->backend(), map_type::capacity_for(n));
  map_type async_map(this->backend(), map_type::capacity_for(n));
  const outputs expected = run_steps(sync_map, false);
  const outputs actual = run_steps(async_map, true);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t output = 0; output < expected.size(); ++output) {
    EXPECT_EQ(actual[output], expected[output]) << "output " << output;
  }
  EXPECT_EQ(export_map(async_map), export_map(sync_map));
  EXPECT_GT(async_map.size(), 0u);
}

TYPED_TEST(slab_async_test, ManySmallBatchesInARowWaitOnce)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  constexpr std::size_t batch = 512;
  constexpr std::size_t batches = 48;
  const auto keys = distinct_keys(random, batch * (batches + 1));
  const auto values = random_values(random, keys.size());
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  map_type map(this->backend(), map_type::capacity_for(keys.size()));
  // Batch b inserts chunk b, then finds chunks b (just inserted) and b + 1 (not yet): each batch must
  // see the one before it. One wait, at the end.
  auto insert_statuses = this->statuses_for(batch * batches);
  auto find_statuses = this->statuses_for(2 * batch * batches);
  auto found_values = this->values_for(2 * batch * batches);
  for (std::size_t b = 0; b < batches; ++b) {
    const auto chunk_keys = device_keys.span().subspan(b * batch, batch);
    const auto chunk_values = device_values.span().subspan(b * batch, batch);
    map.insert_async(chunk_keys, chunk_values, insert_statuses.span().subspan(b * batch, batch));
    map.find_async(device_keys.span().subspan(b * batch, 2 * batch),
                   found_values.span().subspan(2 * b * batch, 2 * batch),
                   find_statuses.span().subspan(2 * b * batch, 2 * batch));
  }
  const auto inserted = insert_statuses.to_vector();
  const auto finds = find_statuses.to_vector();
  const auto found = found_values.to_vector();
  EXPECT_TRUE(std::all_of(inserted.begin(), inserted.end(),
                          [](operation_status status) { return status == operation_status::inserted; }));
  for (std::size_t b = 0; b < batches; ++b) {
    for (std::size_t j = 0; j < 2 * batch; ++j) {
      const std::size_t at = 2 * b * batch + j;
      if (j < batch) {
        ASSERT_EQ(finds[at], operation_status::found) << "batch " << b << " element " << j;
        ASSERT_EQ(found[at], values[b * batch + j]);
      } else {
        ASSERT_EQ(finds[at], operation_status::not_found) << "batch " << b << " element " << j;
        ASSERT_EQ(found[at], poison_value) << "a miss leaves its value unwritten";
      }
    }
  }
  EXPECT_EQ(map.size(), batch * batches);
}

TYPED_TEST(slab_async_test, OutOfMemoryReportedPerElementThenRetriedAfterGrowPool)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  // 256 buckets and no pool, which may reach 2 super blocks (a growth from nothing adds 2 memory
  // blocks, the next one as many): the async insert never grows, so most keys run out; one growth
  // cannot hold them all (more keys than slots), two make room for all of them.
  const hash::slab_capacity limited{256, 0, /*grows=*/true, /*super_block_limit=*/2};
  const std::size_t n = (limited.bucket_count + 2 * hash::slabs_per_block) * map_type::pairs_per_slab + 1000;
  const auto keys = distinct_keys(random, n);
  const auto values = random_values(random, n);
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  map_type map(this->backend(), limited);
  auto statuses = this->statuses_for(n);
  map.insert_async(device_keys.span(), device_values.span(), statuses.span());
  auto first = statuses.to_vector();
  const auto inserted_first =
      static_cast<std::uint64_t>(std::count(first.begin(), first.end(), operation_status::inserted));
  const auto exhausted_first =
      static_cast<std::uint64_t>(std::count(first.begin(), first.end(), operation_status::out_of_memory));
  EXPECT_EQ(inserted_first + exhausted_first, n) << "every element reports inserted or out_of_memory";
  EXPECT_GT(exhausted_first, 0u);
  EXPECT_EQ(map.size(), inserted_first) << "an exhausted element changes nothing";
  EXPECT_EQ(map.statistics().super_block_count, 0u) << "an async batch never grows the pool";

  int growths = 0;
  for (auto now = first; std::count(now.begin(), now.end(), operation_status::out_of_memory) > 0;
       now = statuses.to_vector()) {
    ASSERT_TRUE(map.grow_pool()) << "growth " << growths << " is within the limit";
    ++growths;
    map.insert_async(device_keys.span(), device_values.span(), statuses.span(), run_elements::out_of_memory_only);
  }
  EXPECT_EQ(growths, 2);
  EXPECT_FALSE(map.grow_pool()) << "the pool is at its limit";
  const auto last = statuses.to_vector();
  EXPECT_TRUE(std::all_of(last.begin(), last.end(), [](operation_status s) { return s == operation_status::inserted; }))
      << "the retries ran the exhausted elements only (a rerun of the others would say already_present)";
  oracle_map oracle;
  for (std::size_t i = 0; i < n; ++i) { oracle.emplace(keys[i], values[i]); }
  EXPECT_EQ(export_map(map), oracle);

  map_type fixed(this->backend(), hash::slab_capacity{16, 0, /*grows=*/false});
  EXPECT_FALSE(fixed.grow_pool()) << "a fixed pool does not grow";
}

// The cuda backend spreads batches smaller than a wave of its kernels over more lanes (up to a warp an
// element), and checks uniform batches of at most 2048 elements in their own kernel: batches on both
// sides of those sizes, against the oracle.
TYPED_TEST(slab_async_test, BatchesOfEverySizeMatchTheOracle)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  for (const std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{2048}, std::size_t{2049}, std::size_t{5000},
                              std::size_t{70001}, std::size_t{300000}}) {
    SCOPED_TRACE("batch of " + std::to_string(n));
    // Half the batch's keys are in the map before it.
    const auto keys = distinct_keys(random, n);
    const auto values = random_values(random, n);
    map_type map(this->backend(), map_type::capacity_for(n));
    oracle_map oracle;
    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    const std::size_t before = n / 2;
    map.insert(device_keys.span().first(before), device_values.span().first(before));
    for (std::size_t i = 0; i < before; ++i) { oracle.emplace(keys[i], values[i]); }

    auto inserted = this->statuses_for(n);
    auto found = this->statuses_for(n);
    auto found_values = this->values_for(n);
    auto erased = this->statuses_for(n / 3);
    map.insert_async(device_keys.span(), device_values.span(), inserted.span());
    map.erase_async(device_keys.span().first(n / 3), erased.span());
    map.find_async(device_keys.span(), found_values.span(), found.span());
    const auto inserted_host = inserted.to_vector();
    const auto erased_host = erased.to_vector();
    const auto found_host = found.to_vector();
    const auto found_values_host = found_values.to_vector();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(inserted_host[i], i < before ? operation_status::already_present : operation_status::inserted)
          << "element " << i;
      oracle.emplace(keys[i], values[i]);
    }
    for (std::size_t i = 0; i < n / 3; ++i) {
      ASSERT_EQ(erased_host[i], operation_status::erased) << "element " << i;
      oracle.erase(keys[i]);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const bool present = i >= n / 3;
      ASSERT_EQ(found_host[i], present ? operation_status::found : operation_status::not_found) << "element " << i;
      ASSERT_EQ(found_values_host[i], present ? values[i] : poison_value) << "element " << i;
    }
    EXPECT_EQ(export_map(map), oracle);
  }
}

// Insertion batches that run out of slabs one after another, each counting its exhausted elements
// exactly (the cuda backend: batches of at most 2048 elements check themselves and sum the count without
// zeroing a counter before each batch, larger ones count into the report their check kernel zeroed; a
// count left over from the batch before would show here), then ones that run out nowhere. The statusless
// calls throw the count; the map's size says how many took effect.
TYPED_TEST(slab_async_test, SmallBatchesCountTheirExhaustedElementsExactly)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  // 16 lists and no pool: 16 head slabs hold every pair there is room for.
  map_type map(this->backend(), hash::slab_capacity{16, 0, /*grows=*/false});
  const auto keys = distinct_keys(random, 12000);
  const auto values = random_values(random, keys.size());
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  std::size_t done = 0;
  for (const std::size_t n :
       {std::size_t{2000}, std::size_t{700}, std::size_t{1}, std::size_t{5000}, std::size_t{1299}, std::size_t{2500}}) {
    SCOPED_TRACE("batch of " + std::to_string(n));
    ASSERT_LE(done + n, keys.size());
    const std::uint64_t size_before = map.size();
    std::string message;
    try {
      map.insert(device_keys.span().subspan(done, n), device_values.span().subspan(done, n));
    } catch (const warpdex::out_of_memory& exhausted) {
      message = exhausted.what();
    }
    const std::uint64_t inserted = map.size() - size_before;
    const std::uint64_t exhausted = n - inserted;
    if (exhausted == 0) {
      EXPECT_EQ(message, "") << "nothing ran out, nothing thrown";
    } else {
      EXPECT_NE(message.find(std::to_string(exhausted) + " of " + std::to_string(n) + " elements"), std::string::npos)
          << message;
    }
    done += n;
  }
  EXPECT_GE(map.size(), 16u * (map_type::pairs_per_slab - 1)) << "the head slabs are (nearly) full";
  // Keys the map holds: none needs a slab, so the count must come back zero (the call would throw).
  std::vector<std::uint32_t> held_keys;
  for (const auto& [key, value] : export_map(map)) { held_keys.push_back(key); }
  auto held = this->put(held_keys);
  auto statuses = this->statuses_for(held_keys.size());
  map.insert(held.span(), held.span(), statuses.span());
  for (const operation_status status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::already_present); }
  map.insert(held.span(), held.span());  // the statusless call: throws if a count is left over
  // The same keys repeated past 2048 elements (the cuda backend's check kernel): none needs a slab.
  std::vector<std::uint32_t> repeated;
  while (repeated.size() <= 2048) { repeated.insert(repeated.end(), held_keys.begin(), held_keys.end()); }
  auto held_repeated = this->put(repeated);
  map.insert(held_repeated.span(), held_repeated.span());
  auto repeated_statuses = this->statuses_for(repeated.size());
  map.insert_async(held_repeated.span(), held_repeated.span(), repeated_statuses.span());
  for (const operation_status status : repeated_statuses.to_vector()) {
    ASSERT_EQ(status, operation_status::already_present);
  }
  map.insert(held.span(), held.span());  // and nothing left over after it
}

TYPED_TEST(slab_async_test, RejectedBatchesChangeNothingAndMarkEveryElement)
{
  using map_type = typename TestFixture::map_type;
  using set_type = typename TestFixture::set_type;
  seeded_random random;
  constexpr std::size_t n = 2000;
  auto keys = distinct_keys(random, n);
  const auto values = random_values(random, n);
  map_type map(this->backend(), map_type::capacity_for(n));
  auto device_good = this->put(keys);
  auto device_values = this->put(values);
  map.insert(device_good.span(), device_values.span());
  keys[n / 3] = hash::erased_key;
  auto device_keys = this->put(keys);

  auto statuses = this->statuses_for(n);
  auto values_out = this->values_for(n);
  map.insert_or_assign_async(device_keys.span(), device_values.span(), statuses.span());
  for (const operation_status status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::rejected); }
  map.find_async(device_keys.span(), values_out.span(), statuses.span());
  for (const operation_status status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::rejected); }
  for (const std::uint32_t value : values_out.to_vector()) {
    ASSERT_EQ(value, poison_value) << "values stay unwritten";
  }
  // A find with a default for misses writes it for every element of a rejected batch (with and without
  // found flags), so no poisoned value is left for a caller to read.
  constexpr std::uint32_t missing = 5;
  map.find_async(device_keys.span(), values_out.span(), missing);
  for (const std::uint32_t value : values_out.to_vector()) { ASSERT_EQ(value, missing); }
  auto rejected_found = this->poisoned(n, poison_flag);
  auto values_with_flags = this->values_for(n);
  map.find_async(device_keys.span(), values_with_flags.span(), rejected_found.span(), missing);
  for (const std::uint8_t flag : rejected_found.to_vector()) { ASSERT_EQ(flag, 0); }
  for (const std::uint32_t value : values_with_flags.to_vector()) { ASSERT_EQ(value, missing); }
  expect_error_mentioning<error>([&] { map.find(device_keys.span(), values_out.span(), missing); },
                                 {"slab_map::find", "element " + std::to_string(n / 3), "reserved key"});
  auto found = this->poisoned(n, poison_flag);
  map.contains_async(device_keys.span(), found.span());
  for (const std::uint8_t flag : found.to_vector()) { ASSERT_EQ(flag, 0); }
  map.erase_async(device_keys.span(), statuses.span());
  std::vector<operation> ops(n, operation::find);
  ops[n - 1] = static_cast<operation>(hash::operation_count);
  auto device_ops = this->put(ops);
  auto statuses_again = this->statuses_for(n);
  map.execute_async(device_ops.span(), device_good.span(), device_values.span(), values_out.span(),
                    statuses_again.span());
  for (const operation_status status : statuses_again.to_vector()) { ASSERT_EQ(status, operation_status::rejected); }
  EXPECT_EQ(map.size(), n) << "no rejected batch changed the map";

  // The synchronous call still throws naming the element, and leaves its outputs alone.
  auto untouched = this->statuses_for(n);
  expect_error_mentioning<error>([&] { map.erase(device_keys.span(), untouched.span()); },
                                 {"slab_map::erase", "element " + std::to_string(n / 3), "reserved key"});
  for (const operation_status status : untouched.to_vector()) { ASSERT_EQ(status, poison_status); }
  // Spans of mismatched sizes throw at the call.
  expect_error_mentioning<error>(
      [&] { map.find_async(device_keys.span(), values_out.span().first(n - 1), statuses.span()); },
      {"slab_map::find_async", "values holds"});
  expect_error_mentioning<error>(
      [&] {
        map.insert_async(device_good.span(), device_values.span(), statuses.span(), static_cast<run_elements>(9));
      },
      {"unknown run_elements"});

  set_type set(this->backend(), set_type::capacity_for(n));
  set.insert_async(device_keys.span(), statuses.span());
  for (const operation_status status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::rejected); }
  EXPECT_EQ(set.size(), 0u);
}

// Batches past 2048 elements are checked by a kernel of several blocks, which take their minima through
// the report (the cuda backend): a reserved key anywhere rejects the whole batch, the first one is named,
// and the batch after runs as usual (the report's running minima were left reset).
TYPED_TEST(slab_async_test, LargerBatchesRejectWholeAndLeaveTheNextOneAlone)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  for (const std::size_t n : {std::size_t{5000}, std::size_t{60001}}) {
    SCOPED_TRACE("batch of " + std::to_string(n));
    auto keys = distinct_keys(random, n);
    const auto values = random_values(random, n);
    map_type map(this->backend(), map_type::capacity_for(n));
    auto device_good = this->put(keys);
    auto device_values = this->put(values);
    const std::size_t first_bad = static_cast<std::size_t>(random() % (n - 1));
    keys[first_bad] = hash::erased_key;
    keys[n - 1] = hash::empty_key;
    auto device_bad = this->put(keys);
    for (int round = 0; round < 2; ++round) {
      auto statuses = this->statuses_for(n);
      auto values_out = this->values_for(n);
      map.insert_async(device_bad.span(), device_values.span(), statuses.span());
      for (const operation_status status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::rejected); }
      map.find_async(device_bad.span(), values_out.span(), statuses.span());
      for (const operation_status status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::rejected); }
      for (const std::uint32_t value : values_out.to_vector()) { ASSERT_EQ(value, poison_value); }
      // Finds whose outputs a rejection rewrites whole check themselves at any size (cuda: each block its
      // own elements, the last one rewriting every output): values with a default, found flags.
      constexpr std::uint32_t missing = 9;
      auto flags = this->poisoned(n, poison_flag);
      map.find_async(device_bad.span(), values_out.span(), flags.span(), missing);
      for (const std::uint8_t flag : flags.to_vector()) { ASSERT_EQ(flag, 0); }
      for (const std::uint32_t value : values_out.to_vector()) { ASSERT_EQ(value, missing); }
      auto values_alone = this->values_for(n);
      map.find_async(device_bad.span(), values_alone.span(), missing);
      for (const std::uint32_t value : values_alone.to_vector()) { ASSERT_EQ(value, missing); }
      auto contained = this->poisoned(n, poison_flag);
      map.contains_async(device_bad.span(), contained.span());
      for (const std::uint8_t flag : contained.to_vector()) { ASSERT_EQ(flag, 0); }
      map.erase_async(device_bad.span(), statuses.span());
      for (const operation_status status : statuses.to_vector()) { ASSERT_EQ(status, operation_status::rejected); }
      EXPECT_EQ(map.size(), round == 0 ? 0u : n);
      expect_error_mentioning<error>([&] { map.insert(device_bad.span(), device_values.span()); },
                                     {"slab_map::insert", "element " + std::to_string(first_bad), "reserved key"});
      // A good batch after: it runs whole.
      map.insert_async(device_good.span(), device_values.span(), statuses.span());
      const auto inserted = statuses.to_vector();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(inserted[i], round == 0 ? operation_status::inserted : operation_status::already_present);
      }
      map.find_async(device_good.span(), values_out.span(), statuses.span());
      const auto found = statuses.to_vector();
      const auto found_values = values_out.to_vector();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(found[i], operation_status::found);
        ASSERT_EQ(found_values[i], values[i]);
      }
      // And a self-checked find after a rejected one: the report's running minimum was left reset.
      map.find_async(device_good.span(), values_alone.span(), missing);
      EXPECT_EQ(values_alone.to_vector(), values);
      map.contains_async(device_good.span(), contained.span());
      for (const std::uint8_t flag : contained.to_vector()) { ASSERT_EQ(flag, 1); }
    }
  }
}

TYPED_TEST(slab_async_test, SetAndMultimapBatchesMatchTheirOracles)
{
  using set_type = typename TestFixture::set_type;
  using multimap_type = typename TestFixture::multimap_type;
  seeded_random random;
  constexpr std::size_t n = 2500;
  const auto keys = distinct_keys(random, 2 * n);
  auto device_keys = this->put(keys);
  const auto first = device_keys.span().first(n);

  set_type set(this->backend(), set_type::capacity_for(n));
  auto statuses = this->statuses_for(2 * n);
  set.insert_async(first, statuses.span().first(n));
  auto found = this->poisoned(2 * n, poison_flag);
  set.contains_async(device_keys.span(), found.span());
  auto erase_statuses = this->statuses_for(n);
  set.erase_async(device_keys.span().subspan(n / 2, n), erase_statuses.span());
  std::vector<operation> ops(2 * n);
  for (auto& op : ops) { op = random() % 2 == 0 ? operation::insert : operation::erase; }
  auto device_ops = this->put(ops);
  auto mixed = this->statuses_for(2 * n);
  set.execute_async(device_ops.span(), device_keys.span(), mixed.span());
  // The oracle, step by step.
  std::unordered_set<std::uint32_t> oracle(keys.begin(), keys.begin() + n);
  const auto flags = found.to_vector();
  for (std::size_t i = 0; i < 2 * n; ++i) { ASSERT_EQ(flags[i], i < n ? 1 : 0) << "element " << i; }
  const auto erased = erase_statuses.to_vector();
  for (std::size_t j = 0; j < n; ++j) {
    const bool present = oracle.erase(keys[n / 2 + j]) > 0;
    ASSERT_EQ(erased[j], present ? operation_status::erased : operation_status::not_found);
  }
  const auto mixed_statuses = mixed.to_vector();
  for (std::size_t i = 0; i < 2 * n; ++i) {
    const bool present = oracle.count(keys[i]) > 0;
    if (ops[i] == operation::insert) {
      ASSERT_EQ(mixed_statuses[i], present ? operation_status::already_present : operation_status::inserted);
      oracle.insert(keys[i]);
    } else {
      ASSERT_EQ(mixed_statuses[i], present ? operation_status::erased : operation_status::not_found);
      oracle.erase(keys[i]);
    }
  }
  EXPECT_EQ(export_set(set), oracle);

  // A multimap: every key three times, one async batch; each key then counts 3, and one erase_async
  // per key leaves 2.
  multimap_type multimap(this->backend(), multimap_type::capacity_for(3 * n));
  std::vector<std::uint32_t> repeated;
  for (int copy = 0; copy < 3; ++copy) { repeated.insert(repeated.end(), keys.begin(), keys.begin() + n); }
  auto device_repeated = this->put(repeated);
  auto repeated_statuses = this->statuses_for(3 * n);
  multimap.insert_async(device_repeated.span(), device_repeated.span(), repeated_statuses.span());
  multimap.erase_async(first, erase_statuses.span());
  for (const operation_status status : repeated_statuses.to_vector()) { ASSERT_EQ(status, operation_status::inserted); }
  for (const operation_status status : erase_statuses.to_vector()) { ASSERT_EQ(status, operation_status::erased); }
  auto counts = this->poisoned(n, std::uint64_t{0});
  multimap.count(first, counts.span());
  for (const std::uint64_t count : counts.to_vector()) { ASSERT_EQ(count, 2u); }
}

/// Host memory a device kernel can write (pinned on the cuda backend), filled with `poison`.
template <class T, class Backend>
buffer<T> host_outputs(std::size_t size, T poison)
{
#if WARPDEX_HAS_CUDA
  if constexpr (std::is_same_v<Backend, cuda>) {
    auto pinned = make_pinned_buffer<T>(size);
    std::fill_n(pinned.data(), size, poison);
    return pinned;
  }
#endif
  auto plain = make_host_buffer<T>(size);
  std::fill_n(plain.data(), size, poison);
  return plain;
}

// Finds whose outputs are pinned host memory (results where the caller asked, no copy home): the kernel
// writes them there itself; every form, `_async` and synchronous, at sizes that check themselves in
// every block, in the last block, and after a check kernel, against the oracle; a rejected batch marks
// every element there too.
TYPED_TEST(slab_async_test, FindsWriteIntoPinnedHostMemory)
{
  using map_type = typename TestFixture::map_type;
  using backend_type = TypeParam;
  seeded_random random;
  constexpr std::uint32_t missing = 3;
  for (const std::size_t n :
       {std::size_t{1}, std::size_t{1024}, std::size_t{2048}, std::size_t{2049}, std::size_t{9000}}) {
    SCOPED_TRACE("batch of " + std::to_string(n));
    // Every other key is in the map; values are random but never `missing`.
    const auto keys = distinct_keys(random, n);
    auto values = random_values(random, n);
    for (auto& value : values) { value = value == missing ? missing + 1 : value; }
    map_type map(this->backend(), map_type::capacity_for(n));
    std::vector<std::uint32_t> present_keys;
    std::vector<std::uint32_t> present_values;
    for (std::size_t i = 0; i < n; i += 2) {
      present_keys.push_back(keys[i]);
      present_values.push_back(values[i]);
    }
    auto device_present = this->put(present_keys);
    auto device_present_values = this->put(present_values);
    map.insert(device_present.span(), device_present_values.span());
    auto device_keys = this->put(keys);

    auto home_values = host_outputs<std::uint32_t, backend_type>(n, poison_value);
    auto home_statuses = host_outputs<operation_status, backend_type>(n, poison_status);
    auto home_found = host_outputs<std::uint8_t, backend_type>(n, poison_flag);
    auto expect_found = [&](const char* form, bool with_statuses, bool with_flags, bool misses_written) {
      this->backend().synchronize();
      for (std::size_t i = 0; i < n; ++i) {
        const bool present = i % 2 == 0;
        const std::uint32_t expected = present ? values[i] : (misses_written ? missing : poison_value);
        ASSERT_EQ(home_values.data()[i], expected) << form << ", element " << i;
        if (with_statuses) {
          ASSERT_EQ(home_statuses.data()[i], present ? operation_status::found : operation_status::not_found)
              << form << ", element " << i;
        }
        if (with_flags) { ASSERT_EQ(home_found.data()[i], present ? 1 : 0) << form << ", element " << i; }
      }
      std::fill_n(home_values.data(), n, poison_value);
      std::fill_n(home_statuses.data(), n, poison_status);
      std::fill_n(home_found.data(), n, poison_flag);
    };
    map.find_async(device_keys.span(), home_values.span(), missing);
    expect_found("find_async with a default", false, false, true);
    map.find_async(device_keys.span(), home_values.span(), home_statuses.span());
    expect_found("find_async with statuses", true, false, false);
    map.find_async(device_keys.span(), home_values.span(), home_found.span(), missing);
    expect_found("find_async with found flags", false, true, true);
    map.find(device_keys.span(), home_values.span(), missing);
    expect_found("find with a default", false, false, true);
    map.find(device_keys.span(), home_values.span(), home_statuses.span());
    expect_found("find with statuses", true, false, false);
    map.contains_async(device_keys.span(), home_found.span());
    this->backend().synchronize();
    for (std::size_t i = 0; i < n; ++i) { ASSERT_EQ(home_found.data()[i], i % 2 == 0 ? 1 : 0) << "contains_async"; }
    std::fill_n(home_found.data(), n, poison_flag);

    // A reserved key anywhere: the `_async` finds mark every element where the caller asked; the
    // synchronous find throws naming it.
    auto rejected_keys = keys;
    const std::size_t reserved_at = random() % n;
    rejected_keys[reserved_at] = hash::empty_key;
    auto device_rejected = this->put(rejected_keys);
    map.find_async(device_rejected.span(), home_values.span(), missing);
    map.find_async(device_rejected.span(), home_values.span(), home_statuses.span());
    this->backend().synchronize();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(home_values.data()[i], missing) << "rejected, element " << i;
      ASSERT_EQ(home_statuses.data()[i], operation_status::rejected) << "rejected, element " << i;
    }
    expect_error_mentioning<error>([&] { map.find(device_rejected.span(), home_values.span(), missing); },
                                   {"slab_map::find", "element " + std::to_string(reserved_at), "reserved key"});
  }
}

// Insertions whose statuses are pinned host memory (results where the caller asked, no copy home), with
// both input checks (batch_options::check): the whole batch's (a self-checked batch, one after a check
// kernel) and each element's own (one kernel at any size). Random present and new keys against the oracle,
// then batches with reserved keys at random places and at both ends: rejected whole, or only those
// elements, the others taking effect (insertions, then finds, contains and erasures of the same keys,
// their outputs in pinned host memory too). Then a retry after grow_pool under each element's check: the
// out_of_memory statuses read back from host memory by the kernel, the reserved key still rejected.
TYPED_TEST(slab_async_test, InsertionsWriteStatusesIntoPinnedHostMemoryUnderEitherCheck)
{
  using map_type = typename TestFixture::map_type;
  using backend_type = TypeParam;
  seeded_random random;
  constexpr std::uint32_t missing = 3;
  for (const auto check : {hash::batch_check::whole_batch, hash::batch_check::each_element}) {
    const bool each = check == hash::batch_check::each_element;
    for (const std::size_t n : {std::size_t{1000}, std::size_t{2049}, std::size_t{9000}}) {
      SCOPED_TRACE(std::string(each ? "each element" : "whole batch") + ", batch of " + std::to_string(n));
      // 2n keys: the first half held before, a quarter of the batch from it, the rest new.
      const auto pool = distinct_keys(random, 2 * n);
      auto values = random_values(random, 2 * n);
      for (auto& value : values) { value = value == missing ? missing + 1 : value; }
      map_type map(this->backend(), map_type::capacity_for(2 * n));
      map.set_batch_options({.check = check});
      auto held_keys = this->put(std::vector<std::uint32_t>(pool.begin(), pool.begin() + n));
      auto held_values = this->put(std::vector<std::uint32_t>(values.begin(), values.begin() + n));
      map.insert(held_keys.span(), held_values.span());
      oracle_map oracle;
      for (std::size_t i = 0; i < n; ++i) { oracle.emplace(pool[i], values[i]); }

      std::vector<std::uint32_t> keys(n), batch_values(n);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t from = i % 4 == 0 ? random() % n : n + i;
        keys[i] = pool[from];
        batch_values[i] = values[from] ^ 1U;  // an insertion of a held key must not take it
      }
      // Repeats of one key in a batch report in the order the elements run: keep the batch's keys distinct.
      std::unordered_set<std::uint32_t> seen;
      for (std::size_t i = 0; i < n; ++i) {
        if (!seen.insert(keys[i]).second) { keys[i] = pool[n + i]; }
      }
      // The round with reserved keys: at both ends and at up to three random places.
      auto rejected_keys = keys;
      std::vector<bool> reserved(n, false);
      rejected_keys[0] = hash::empty_key;
      rejected_keys[n - 1] = hash::erased_key;
      reserved[0] = reserved[n - 1] = true;
      for (std::uint64_t r = random() % 4; r > 0; --r) {
        const std::size_t at = random() % n;
        rejected_keys[at] = random() % 2 == 0 ? hash::empty_key : hash::erased_key;
        reserved[at] = true;
      }
      auto device_values = this->put(batch_values);
      auto home_statuses = host_outputs<operation_status, backend_type>(n, poison_status);
      auto home_values = host_outputs<std::uint32_t, backend_type>(n, poison_value);
      auto home_found = host_outputs<std::uint8_t, backend_type>(n, poison_flag);
      for (const bool with_reserved : {false, true}) {
        SCOPED_TRACE(with_reserved ? "reserved keys" : "valid keys");
        const auto& round_keys = with_reserved ? rejected_keys : keys;
        auto device_keys = this->put(round_keys);
        const bool whole_rejected = with_reserved && !each;
        auto rejected_at = [&](std::size_t i) { return whole_rejected || (with_reserved && reserved[i]); };
        map.insert_async(device_keys.span(), device_values.span(), home_statuses.span());
        this->backend().synchronize();
        for (std::size_t i = 0; i < n; ++i) {
          operation_status expected = operation_status::rejected;
          if (!rejected_at(i)) {
            expected = oracle.emplace(round_keys[i], batch_values[i]).second ? operation_status::inserted
                                                                             : operation_status::already_present;
          }
          ASSERT_EQ(home_statuses.data()[i], expected) << "insert_async, element " << i;
        }
        EXPECT_EQ(export_map(map), oracle) << "only the elements that took effect changed the map";

        // Finds, contains and erasures of the same keys, into pinned host memory.
        std::fill_n(home_statuses.data(), n, poison_status);
        map.find_async(device_keys.span(), home_values.span(), home_statuses.span());
        this->backend().synchronize();
        for (std::size_t i = 0; i < n; ++i) {
          if (rejected_at(i)) {
            ASSERT_EQ(home_statuses.data()[i], operation_status::rejected) << "find_async, element " << i;
            ASSERT_EQ(home_values.data()[i], poison_value) << "find_async, element " << i;
            continue;
          }
          const auto held = oracle.find(round_keys[i]);
          ASSERT_EQ(home_statuses.data()[i],
                    held != oracle.end() ? operation_status::found : operation_status::not_found)
              << "find_async, element " << i;
          if (held != oracle.end()) { ASSERT_EQ(home_values.data()[i], held->second) << "find_async, element " << i; }
        }
        map.find_async(device_keys.span(), home_values.span(), home_found.span(), missing);
        map.contains_async(device_keys.span(), home_found.span());
        this->backend().synchronize();
        for (std::size_t i = 0; i < n; ++i) {
          const auto held = rejected_at(i) ? oracle.end() : oracle.find(round_keys[i]);
          ASSERT_EQ(home_values.data()[i], held != oracle.end() ? held->second : missing) << "find, element " << i;
          ASSERT_EQ(home_found.data()[i], held != oracle.end() ? 1 : 0) << "contains_async, element " << i;
        }
        // Every third key erased.
        std::vector<std::uint32_t> erase_keys;
        for (std::size_t i = 0; i < n; i += 3) { erase_keys.push_back(round_keys[i]); }
        auto device_erase = this->put(erase_keys);
        std::fill_n(home_statuses.data(), n, poison_status);
        map.erase_async(device_erase.span(), home_statuses.span().first(erase_keys.size()));
        this->backend().synchronize();
        const bool erase_rejected_whole = with_reserved && !each;  // erase_keys[0] is rejected_keys[0]
        for (std::size_t j = 0; j < erase_keys.size(); ++j) {
          operation_status expected = operation_status::rejected;
          if (!erase_rejected_whole && !(with_reserved && reserved[3 * j])) {
            expected = oracle.erase(erase_keys[j]) == 1 ? operation_status::erased : operation_status::not_found;
          }
          ASSERT_EQ(home_statuses.data()[j], expected) << "erase_async, element " << j;
        }
        EXPECT_EQ(export_map(map), oracle);
        std::fill_n(home_statuses.data(), n, poison_status);
        std::fill_n(home_values.data(), n, poison_value);
        std::fill_n(home_found.data(), n, poison_flag);
      }
    }
  }

  // A retry after grow_pool under each element's check: a reserved key among elements that ran out.
  const hash::slab_capacity limited{256, 0, /*grows=*/true, /*super_block_limit=*/2};
  const std::size_t n = (limited.bucket_count + 2 * hash::slabs_per_block) * map_type::pairs_per_slab + 1000;
  auto keys = distinct_keys(random, n);
  const std::size_t reserved_at = random() % n;
  keys[reserved_at] = hash::empty_key;
  const auto values = random_values(random, n);
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  map_type map(this->backend(), limited);
  map.set_batch_options({.check = hash::batch_check::each_element});
  auto home_statuses = host_outputs<operation_status, backend_type>(n, poison_status);
  map.insert_async(device_keys.span(), device_values.span(), home_statuses.span());
  this->backend().synchronize();
  ASSERT_EQ(home_statuses.data()[reserved_at], operation_status::rejected);
  EXPECT_GT(std::count(home_statuses.data(), home_statuses.data() + n, operation_status::out_of_memory), 0);
  int growths = 0;
  while (std::count(home_statuses.data(), home_statuses.data() + n, operation_status::out_of_memory) > 0) {
    ASSERT_TRUE(map.grow_pool()) << "growth " << growths << " is within the limit";
    ++growths;
    map.insert_async(device_keys.span(), device_values.span(), home_statuses.span(), run_elements::out_of_memory_only);
    this->backend().synchronize();
  }
  oracle_map oracle;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == reserved_at) {
      ASSERT_EQ(home_statuses.data()[i], operation_status::rejected) << "element " << i;
      continue;
    }
    ASSERT_EQ(home_statuses.data()[i], operation_status::inserted) << "element " << i;
    oracle.emplace(keys[i], values[i]);
  }
  EXPECT_EQ(export_map(map), oracle);
  expect_error_mentioning<error>([&] { map.set_batch_options({.check = static_cast<hash::batch_check>(5)}); },
                                 {"unknown batch_check"});
}

#if WARPDEX_HAS_CUDA
class slab_graph_test : public cuda_test {};

/// CapturedBatchLoopReplaysLikeTheCalls with batches of `batch` keys.
void captured_batch_loop_replays_like_the_calls(std::size_t batch)
{
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;
  seeded_random random;
  constexpr std::size_t batches = 6;
  const std::size_t n = batch * batches;
  const owned_stream own;
  const cuda on{own.get()};
  map_type map(on, map_type::capacity_for(2 * n));
  const auto keys = distinct_keys(random, 2 * n);
  const auto values = random_values(random, 2 * n);
  auto device_keys = make_buffer<std::uint32_t>(on, n);
  auto device_values = make_buffer<std::uint32_t>(on, n);
  auto insert_statuses = make_buffer<operation_status>(on, n);
  auto find_statuses = make_buffer<operation_status>(on, n);
  auto found_values = make_buffer<std::uint32_t>(on, n);
  auto values_alone = make_buffer<std::uint32_t>(on, n);
  constexpr std::uint32_t missing = 3;
  const captured_graph graph(own.get(), [&] {
    for (std::size_t b = 0; b < batches; ++b) {
      const auto part = [&](auto& buffer) { return buffer.span().subspan(b * batch, batch); };
      const std::span<const std::uint32_t> part_keys = part(device_keys);
      map.insert_async(part_keys, part(device_values), part(insert_statuses));
      map.find_async(part_keys, part(found_values), part(find_statuses));
      map.find_async(part_keys, part(values_alone), missing);
    }
  });
  EXPECT_GE(graph.node_count(), 3 * batches);
  EXPECT_EQ(map.size(), 0u) << "nothing runs at the capture";

  auto poison = [&](auto& buffer, auto value) {
    const std::vector<std::remove_cvref_t<decltype(value)>> poisoned(buffer.size(), value);
    buffer.copy_from(std::span(poisoned));
  };
  for (std::size_t replay = 0; replay < 2; ++replay) {
    const auto replay_keys = std::span(keys).subspan(replay * n, n);
    const auto replay_values = std::span(values).subspan(replay * n, n);
    device_keys.copy_from(replay_keys);
    device_values.copy_from(replay_values);
    poison(insert_statuses, poison_status);
    poison(find_statuses, poison_status);
    poison(found_values, poison_value);
    poison(values_alone, poison_value);
    graph.launch(own.get());
    on.synchronize();
    const auto inserted = insert_statuses.to_vector();
    const auto found = find_statuses.to_vector();
    const auto found_host = found_values.to_vector();
    const auto alone_host = values_alone.to_vector();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(inserted[i], operation_status::inserted) << "replay " << replay << ", element " << i;
      ASSERT_EQ(found[i], operation_status::found) << "replay " << replay << ", element " << i;
      ASSERT_EQ(found_host[i], replay_values[i]) << "replay " << replay << ", element " << i;
      ASSERT_EQ(alone_host[i], replay_values[i]) << "replay " << replay << ", element " << i;
    }
  }
  EXPECT_EQ(map.size(), 2 * n);
  // The same inputs again: every key is there already.
  graph.launch(own.get());
  on.synchronize();
  for (const operation_status status : insert_statuses.to_vector()) {
    ASSERT_EQ(status, operation_status::already_present);
  }
  EXPECT_EQ(map.size(), 2 * n);
}

// A loop of small batches captured once into a CUDA graph and replayed (core/stream.hpp): the `_async`
// calls enqueue without waiting, so the capture takes them; nothing runs at the capture; each replay does
// what the calls would, on the inputs as they are at the replay (rewritten in place between replays).
// Batches of 1000 (insertions checked in every block, the exhausted count summed through the report) and
// of 4100 (a check kernel of several blocks before each, its minima taken through the report's running
// minima, which each batch must leave reset for the next and for the next replay).
TEST_F(slab_graph_test, CapturedBatchLoopReplaysLikeTheCalls)
{
  for (const std::size_t batch : {std::size_t{1000}, std::size_t{4100}}) {
    SCOPED_TRACE("batches of " + std::to_string(batch));
    captured_batch_loop_replays_like_the_calls(batch);
  }
}

/// ReplaysEqualTheUncapturedCalls with batches of `batch` keys in `order` under `check`; with each
/// element's check the insertions write their statuses into pinned host memory.
void replays_equal_the_uncaptured_calls(std::size_t batch, hash::batch_order order,
                                        hash::batch_check check = hash::batch_check::whole_batch)
{
  const bool each = check == hash::batch_check::each_element;
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;
  seeded_random random;
  constexpr std::size_t batches = 4;
  constexpr std::size_t rounds = 3;
  const std::size_t n = batch * batches;   // insertions and finds of a round
  const std::size_t erased = batch / 2;    // erasures of a batch
  const std::size_t m = erased * batches;  // erasures of a round
  const owned_stream captured_stream;
  const owned_stream direct_stream;
  const cuda on_captured{captured_stream.get()};
  const cuda on_direct{direct_stream.get()};
  const hash::batch_options options{hash::tile_lanes::automatic, order, hash::batch_combine::automatic, check};
  map_type captured(on_captured, map_type::capacity_for(rounds * n));
  map_type direct(on_direct, map_type::capacity_for(rounds * n));
  captured.set_batch_options(options);
  direct.set_batch_options(options);
  const auto pool = distinct_keys(random, (rounds + 1) * n);  // the last n are never inserted

  // The inputs both maps read, rewritten in place before each round.
  auto insert_keys = make_buffer<std::uint32_t>(on_captured, n);
  auto insert_values = make_buffer<std::uint32_t>(on_captured, n);
  auto erase_keys = make_buffer<std::uint32_t>(on_captured, m);
  auto queries = make_buffer<std::uint32_t>(on_captured, n);
  // Each map's outputs: device statuses and values, and values written into pinned host memory.
  struct outputs_of {
    buffer<operation_status> inserted, erased, found;
    buffer<std::uint32_t> values, values_home;
  };
  auto outputs_on = [&](const cuda& on) {
    return outputs_of{each ? make_pinned_buffer<operation_status>(n) : make_buffer<operation_status>(on, n),
                      make_buffer<operation_status>(on, m), make_buffer<operation_status>(on, n),
                      make_buffer<std::uint32_t>(on, n), make_pinned_buffer<std::uint32_t>(n)};
  };
  outputs_of from_graph = outputs_on(on_captured);
  outputs_of from_calls = outputs_on(on_direct);
  constexpr std::uint32_t missing = 0x5a5a5a5aU;
  // One round's calls: batch b inserts, erases, then finds with statuses and into pinned host memory.
  auto calls = [&](map_type& map, outputs_of& out) {
    for (std::size_t b = 0; b < batches; ++b) {
      const auto part = [&](auto& buffer) { return buffer.span().subspan(b * batch, batch); };
      const auto erase_part = [&](auto& buffer) { return buffer.span().subspan(b * erased, erased); };
      const std::span<const std::uint32_t> batch_queries = part(queries);
      map.insert_async(std::span<const std::uint32_t>(part(insert_keys)), part(insert_values), part(out.inserted));
      map.erase_async(std::span<const std::uint32_t>(erase_part(erase_keys)), erase_part(out.erased));
      map.find_async(batch_queries, part(out.values), part(out.found));
      map.find_async(batch_queries, std::span(out.values_home.data() + b * batch, batch), missing);
    }
  };
  auto capture = [&] { return captured_graph(captured_stream.get(), [&] { calls(captured, from_graph); }); };
  captured_graph graph = capture();
  EXPECT_EQ(captured.size(), 0u) << "nothing runs at the capture";

  std::vector<std::uint32_t> held;  // keys inserted so far, once each (some erased since)
  std::unordered_set<std::uint32_t> held_once;
  for (std::size_t round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    if (order == hash::batch_order::by_bucket && round == 1) {
      // Captured in bucket order before any batch of this size ran uncaptured, the batches ran in input
      // order (the scratch cannot grow in a graph); one uncaptured batch grows it, and a capture after it
      // holds the bucket sort's kernels too.
      const std::size_t nodes_in_input_order = graph.node_count();
      auto unused = make_buffer<std::uint32_t>(on_captured, batch);
      captured.find_async(queries.span().subspan(0, batch), unused.span(), missing);
      on_captured.synchronize();
      graph = capture();
      EXPECT_GT(graph.node_count(), nodes_in_input_order) << "the bucket sort captured once the scratch is grown";
    }
    // New keys to insert, a tenth of them held already; erasures of held keys, this round's and absent
    // ones; queries of this round's keys (found or not depending on whether their batch ran first),
    // held, erased and absent keys.
    // Keys repeat across batches only: the outcomes of repeats in one batch would depend on the order
    // its elements run in.
    std::vector<std::uint32_t> keys(pool.begin() + round * n, pool.begin() + (round + 1) * n);
    std::shuffle(held.begin(), held.end(), random);
    for (std::size_t i = 0; i < n / 10 && i < held.size(); ++i) { keys[10 * i] = held[i]; }
    const auto values = random_values(random, n);
    const auto any_of = [&](std::size_t kind) {
      switch (kind) {
        case 0:
          return keys[random() % n];
        case 1:
          return held.empty() ? keys[random() % n] : held[random() % held.size()];
        default:
          return pool[rounds * n + random() % n];
      }
    };
    std::vector<std::uint32_t> erase_host(m), query_host(n);
    std::unordered_set<std::uint32_t> erased_in_batch;
    for (std::size_t i = 0; i < m; ++i) {
      if (i % erased == 0) { erased_in_batch.clear(); }
      do {
        erase_host[i] = any_of(random() % 3);
      } while (!erased_in_batch.insert(erase_host[i]).second);
    }
    for (auto& key : query_host) { key = any_of(random() % 3); }
    if (round == rounds - 1) {
      // Reserved keys: the insertion of batch 1 and the finds of batch 2 are rejected, whole (or, under
      // each element's check, those two elements alone); the other batches of the replay run as the
      // calls do.
      keys[batch + random() % batch] = hash::empty_key;
      query_host[2 * batch + random() % batch] = hash::erased_key;
    }
    insert_keys.copy_from(std::span<const std::uint32_t>(keys));
    insert_values.copy_from(std::span<const std::uint32_t>(values));
    erase_keys.copy_from(std::span<const std::uint32_t>(erase_host));
    queries.copy_from(std::span<const std::uint32_t>(query_host));
    // Every output poisoned, differently for the two maps: an output neither writes cannot agree.
    auto poison = [](auto& buffer, auto value) {
      const std::vector<std::remove_cvref_t<decltype(value)>> poisoned(buffer.size(), value);
      buffer.copy_from(std::span(poisoned));
    };
    const auto poison_all = [&](outputs_of& out, std::uint32_t salt) {
      poison(out.inserted, static_cast<operation_status>(0xdead + salt));
      poison(out.erased, static_cast<operation_status>(0xdead + salt));
      poison(out.found, static_cast<operation_status>(0xdead + salt));
      poison(out.values, poison_value + salt);
      std::fill_n(out.values_home.data(), n, poison_value + salt);
    };
    poison_all(from_graph, 0);
    poison_all(from_calls, 1);
    on_captured.synchronize();
    on_direct.synchronize();

    graph.launch(captured_stream.get());
    on_captured.synchronize();
    calls(direct, from_calls);
    on_direct.synchronize();

    EXPECT_EQ(as_numbers(from_graph.inserted), as_numbers(from_calls.inserted)) << "insert_async statuses";
    EXPECT_EQ(as_numbers(from_graph.erased), as_numbers(from_calls.erased)) << "erase_async statuses";
    EXPECT_EQ(as_numbers(from_graph.found), as_numbers(from_calls.found)) << "find_async statuses";
    // Values are written where a key was found; elsewhere each map's poison stays.
    const auto found = from_calls.found.to_vector();
    const auto graph_values = from_graph.values.to_vector();
    const auto call_values = from_calls.values.to_vector();
    for (std::size_t i = 0; i < n; ++i) {
      const bool was_found = found[i] == operation_status::found;
      ASSERT_EQ(graph_values[i], was_found ? call_values[i] : poison_value) << "find_async values, element " << i;
      ASSERT_EQ(call_values[i], was_found ? graph_values[i] : poison_value + 1) << "find_async values, element " << i;
    }
    EXPECT_TRUE(
        std::equal(from_graph.values_home.data(), from_graph.values_home.data() + n, from_calls.values_home.data()))
        << "find_async values written into pinned host memory";
    EXPECT_EQ(captured.size(), direct.size());
    // The round meant something: some finds found, some did not, and the last round rejected.
    EXPECT_GT(std::count(found.begin(), found.end(), operation_status::found), 0);
    EXPECT_GT(std::count(found.begin(), found.end(), operation_status::not_found), 0);
    const auto rejected = std::count(found.begin(), found.end(), operation_status::rejected);
    const std::ptrdiff_t rejected_in_round = round == rounds - 1 ? (each ? 1 : static_cast<std::ptrdiff_t>(batch)) : 0;
    EXPECT_EQ(rejected, rejected_in_round);
    const auto inserted = from_calls.inserted.to_vector();
    EXPECT_EQ(std::count(inserted.begin(), inserted.end(), operation_status::rejected), rejected_in_round);
    for (std::size_t i = 0; i < n; ++i) {
      if (inserted[i] == operation_status::inserted && held_once.insert(keys[i]).second) { held.push_back(keys[i]); }
    }
  }
}

// A captured loop of insert_async, erase_async and find_async batches (statuses and values; values with a
// default written into pinned host memory) replays exactly what the same calls do uncaptured on a twin
// map, round after round on inputs rewritten in place: finds that depend on the batches before them,
// erasures of held, new and absent keys, and a replay whose batches hold reserved keys. Batches of 1000
// (self-checked) and 3000 (a check kernel, or none for the default-value find), in input order and in
// bucket order (captured first before the scratch had grown: input order; then after it had); and under
// each element's check (one kernel a batch, insertion statuses written into pinned host memory).
TEST_F(slab_graph_test, ReplaysEqualTheUncapturedCalls)
{
  for (const auto order : {hash::batch_order::automatic, hash::batch_order::by_bucket}) {
    for (const std::size_t batch : {std::size_t{1000}, std::size_t{3000}}) {
      SCOPED_TRACE("batches of " + std::to_string(batch) +
                   (order == hash::batch_order::by_bucket ? ", bucket order" : ", automatic order"));
      replays_equal_the_uncaptured_calls(batch, order);
    }
  }
  for (const std::size_t batch : {std::size_t{1000}, std::size_t{3000}}) {
    SCOPED_TRACE("batches of " + std::to_string(batch) + ", each element checked");
    replays_equal_the_uncaptured_calls(batch, hash::batch_order::automatic, hash::batch_check::each_element);
  }
}

// What a capture cannot take is refused, naming why, and the stream and the table work on after it.
TEST_F(slab_graph_test, CapturesThatWaitOrUseTheDefaultStreamAreRefused)
{
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;
  expect_error_mentioning<error>([] { const captured_graph graph(nullptr, [] {}); },
                                 {"captured_graph", "legacy default stream"});
  if (under_compute_sanitizer()) { GTEST_SKIP() << "a refused capture is a failed CUDA call by design"; }
  seeded_random random;
  constexpr std::size_t n = 500;
  const owned_stream own;
  const cuda on{own.get()};
  map_type map(on, map_type::capacity_for(n));
  const auto keys = distinct_keys(random, n);
  auto device_keys = make_buffer_from<std::uint32_t>(on, std::span<const std::uint32_t>(keys));
  // The synchronous insert reads its report back and waits: a capture cannot hold that.
  EXPECT_THROW(captured_graph(own.get(), [&] { map.insert(device_keys.span(), device_keys.span()); }), error);
  map.insert(device_keys.span(), device_keys.span());
  EXPECT_EQ(map.size(), n);
}
#endif

}  // namespace
