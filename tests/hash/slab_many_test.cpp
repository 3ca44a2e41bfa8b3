// The many-batch calls of slab_map (slab_table.hpp, "Many batches in one call") on every backend, against
// std::unordered_map: batches laid end to end with offsets (empty ones, one batch, many tiny ones, some
// longer than the whole-batch check), keys repeated within and across batches, a reserved key rejecting
// its own batch alone, the retry of exhausted elements after grow_pool, offsets that do not rise; on the
// cuda backend a capture replayed on rewritten keys and offsets, and two maps' calls on two streams at once.
#include "hash/slab_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/core/stream.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::operation_status;
using hash::run_elements;
using oracle_map = std::unordered_map<std::uint32_t, std::uint32_t>;

/// A status no operation writes.
constexpr auto poison_status = static_cast<operation_status>(0xdead);
/// The default of the finds: no value the tests insert (their values are drawn below it).
constexpr std::uint32_t missing = 0xfffffff0U;

template <class Backend>
class slab_many_test : public slab_backend_test<Backend> {
 protected:
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, Backend>;
};
TYPED_TEST_SUITE(slab_many_test, all_backends, backend_names);

/// Offsets of batches of the given sizes, laid end to end.
std::vector<std::uint64_t> offsets_of(const std::vector<std::uint64_t>& sizes)
{
  std::vector<std::uint64_t> offsets{0};
  for (const std::uint64_t size : sizes) { offsets.push_back(offsets.back() + size); }
  return offsets;
}

/// The layouts of the randomized case: one batch, many tiny ones (empty ones among them), and random
/// sizes up to past the whole-batch check's length, with empty batches at both ends.
std::vector<std::vector<std::uint64_t>> batch_layouts(std::mt19937_64& random)
{
  std::vector<std::uint64_t> tiny(400);
  for (auto& size : tiny) { size = random() % 4; }
  std::vector<std::uint64_t> mixed{0};
  for (int b = 0; b < 12; ++b) { mixed.push_back(random() % 3000); }
  mixed.push_back(hash::detail::many_whole_check_elements + 1);
  mixed.push_back(0);
  return {{1500}, tiny, mixed};
}

std::vector<std::uint32_t> values_below_missing(std::mt19937_64& random, std::size_t count)
{
  std::vector<std::uint32_t> values(count);
  for (auto& value : values) { value = static_cast<std::uint32_t>(random() % missing); }
  return values;
}

// Insertions with keys repeated within and across batches into a map holding some of them, then finds
// (values with a default, and with statuses) of present and absent keys: each distinct absent key is
// inserted by exactly one of its elements, whose value stays; every other element of it reports
// already_present; the finds agree with the oracle.
TYPED_TEST(slab_many_test, BatchesEqualTheOracle)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  for (const auto& sizes : batch_layouts(random)) {
    const std::vector<std::uint64_t> offsets = offsets_of(sizes);
    const std::size_t n = offsets.back();
    SCOPED_TRACE(std::to_string(sizes.size()) + " batches, " + std::to_string(n) + " keys");
    const auto pool = distinct_keys(random, n / 2 + 1);
    std::vector<std::uint32_t> keys(n);
    for (auto& key : keys) { key = pool[random() % pool.size()]; }
    const auto values = values_below_missing(random, n);
    map_type map(this->backend(), map_type::capacity_for(n));
    oracle_map oracle;
    std::vector<std::uint32_t> held(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(pool.size() / 3));
    const auto held_values = values_below_missing(random, held.size());
    for (std::size_t i = 0; i < held.size(); ++i) { oracle.emplace(held[i], held_values[i]); }
    auto device_held = this->put(held);
    auto device_held_values = this->put(held_values);
    map.insert(device_held.span(), device_held_values.span());

    auto device_keys = this->put(keys);
    auto device_values = this->put(values);
    auto device_offsets = this->put(offsets);
    auto statuses = this->poisoned(n, poison_status);
    map.insert_many_async(device_keys.span(), device_values.span(), device_offsets.span(), statuses.span());
    const auto inserted = statuses.to_vector();
    std::unordered_map<std::uint32_t, std::size_t> inserted_by;
    for (std::size_t i = 0; i < n; ++i) {
      if (oracle.contains(keys[i])) {
        ASSERT_EQ(inserted[i], operation_status::already_present) << "element " << i;
      } else if (inserted[i] == operation_status::inserted) {
        ASSERT_TRUE(inserted_by.emplace(keys[i], i).second) << "key " << keys[i] << " inserted twice";
      } else {
        ASSERT_EQ(inserted[i], operation_status::already_present) << "element " << i;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!oracle.contains(keys[i])) {
        ASSERT_TRUE(inserted_by.contains(keys[i])) << "key " << keys[i] << " inserted by none";
      }
    }
    for (const auto& [key, element] : inserted_by) { oracle.emplace(key, values[element]); }
    EXPECT_EQ(export_map(map), oracle);

    // Finds: the same layout over the pool's keys and as many absent ones.
    const auto absent = distinct_keys(random, n);
    std::vector<std::uint32_t> queries(n);
    for (std::size_t i = 0; i < n; ++i) { queries[i] = random() % 2 == 0 ? keys[i] : absent[i]; }
    auto device_queries = this->put(queries);
    auto found_values = this->poisoned(n, poison_value);
    auto values_with_statuses = this->poisoned(n, poison_value);
    auto find_statuses = this->poisoned(n, poison_status);
    map.find_many_async(device_queries.span(), device_offsets.span(), found_values.span(), missing);
    map.find_many_async(device_queries.span(), device_offsets.span(), values_with_statuses.span(),
                        find_statuses.span());
    const auto found = found_values.to_vector();
    const auto with_statuses = values_with_statuses.to_vector();
    const auto statuses_found = find_statuses.to_vector();
    for (std::size_t i = 0; i < n; ++i) {
      const auto at = oracle.find(queries[i]);
      if (at == oracle.end()) {
        ASSERT_EQ(found[i], missing) << "element " << i;
        ASSERT_EQ(statuses_found[i], operation_status::not_found) << "element " << i;
        ASSERT_EQ(with_statuses[i], poison_value) << "element " << i << ": a miss writes no value";
      } else {
        ASSERT_EQ(found[i], at->second) << "element " << i;
        ASSERT_EQ(statuses_found[i], operation_status::found) << "element " << i;
        ASSERT_EQ(with_statuses[i], at->second) << "element " << i;
      }
    }
  }
}

// A reserved key rejects its own batch alone (whole-batch check, the default): every element of a short
// batch holding one reports rejected and inserts nothing, while the batches beside it take effect; in a
// batch longer than the whole check only the reserved element is rejected. A short batch with more
// reserved keys than a block notes by position is rejected too. Under batch_check::each_element only
// the reserved elements are. The finds write the default over a rejected batch.
TYPED_TEST(slab_many_test, ReservedKeyRejectsItsBatchAlone)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  const std::uint64_t long_batch = hash::detail::many_whole_check_elements + 100;
  const std::vector<std::uint64_t> sizes{300, 300, 0, 200, long_batch, 1, 300};
  const std::vector<std::uint64_t> offsets = offsets_of(sizes);
  const std::size_t n = offsets.back();
  const auto fresh = distinct_keys(random, n);
  const auto values = values_below_missing(random, n);
  std::vector<std::uint32_t> keys = fresh;
  const std::size_t one_reserved = offsets[1] + random() % sizes[1];  // batch 1: one reserved key
  for (std::size_t i = offsets[3]; i < offsets[3] + 60; ++i) {        // batch 3: sixty of them
    keys[i] = i % 2 == 0 ? hash::empty_key : hash::erased_key;
  }
  const std::size_t in_long = offsets[4] + random() % long_batch;  // batch 4: longer than the check
  keys[one_reserved] = hash::empty_key;
  keys[in_long] = hash::empty_key;
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  auto device_offsets = this->put(offsets);
  auto batch_of = [&](std::size_t i) {
    return static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), i) - offsets.begin()) - 1;
  };
  for (const hash::batch_check check : {hash::batch_check::whole_batch, hash::batch_check::each_element}) {
    SCOPED_TRACE(check == hash::batch_check::whole_batch ? "whole_batch" : "each_element");
    const bool whole = check == hash::batch_check::whole_batch;
    auto rejected = [&](std::size_t i) {
      const std::size_t b = batch_of(i);
      const bool reserved = keys[i] > hash::max_user_key;
      return reserved || (whole && (b == 1 || b == 3));
    };
    map_type map(this->backend(), map_type::capacity_for(n));
    map.set_batch_options({.check = check});
    auto statuses = this->poisoned(n, poison_status);
    map.insert_many_async(device_keys.span(), device_values.span(), device_offsets.span(), statuses.span());
    const auto inserted = statuses.to_vector();
    oracle_map oracle;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(inserted[i], rejected(i) ? operation_status::rejected : operation_status::inserted) << "element " << i;
      if (!rejected(i)) { oracle.emplace(keys[i], values[i]); }
    }
    EXPECT_EQ(export_map(map), oracle);

    // Finds of every key the layout holds, the same rejections.
    auto found_values = this->poisoned(n, poison_value);
    auto find_statuses = this->poisoned(n, poison_status);
    auto with_statuses = this->poisoned(n, poison_value);
    map.find_many_async(device_keys.span(), device_offsets.span(), found_values.span(), missing);
    map.find_many_async(device_keys.span(), device_offsets.span(), with_statuses.span(), find_statuses.span());
    const auto found = found_values.to_vector();
    const auto statuses_found = find_statuses.to_vector();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(found[i], rejected(i) ? missing : values[i]) << "element " << i;
      ASSERT_EQ(statuses_found[i], rejected(i) ? operation_status::rejected : operation_status::found)
          << "element " << i;
    }
  }
}

// Exhausted elements of a many-batch insertion into a pool that does not grow by itself report
// out_of_memory and change nothing; after grow_pool the same call with run_elements::out_of_memory_only
// runs them alone, until every pair is in.
TYPED_TEST(slab_many_test, ExhaustedElementsRetryAfterGrowth)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  const hash::slab_capacity limited{256, 0, /*grows=*/true, /*super_block_limit=*/2};
  const std::size_t n = (limited.bucket_count + 2 * hash::slabs_per_block) * map_type::pairs_per_slab + 1000;
  std::vector<std::uint64_t> sizes;
  for (std::size_t left = n; left > 0;) {
    sizes.push_back(std::min<std::size_t>(left, 1 + random() % 1500));
    left -= sizes.back();
  }
  const auto offsets = offsets_of(sizes);
  const auto keys = distinct_keys(random, n);
  const auto values = values_below_missing(random, n);
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  auto device_offsets = this->put(offsets);
  map_type map(this->backend(), limited);
  auto statuses = this->poisoned(n, poison_status);
  map.insert_many_async(device_keys.span(), device_values.span(), device_offsets.span(), statuses.span());
  const auto first = statuses.to_vector();
  const auto exhausted = std::count(first.begin(), first.end(), operation_status::out_of_memory);
  EXPECT_EQ(std::count(first.begin(), first.end(), operation_status::inserted) + exhausted,
            static_cast<std::ptrdiff_t>(n));
  EXPECT_GT(exhausted, 0);
  EXPECT_EQ(map.size(), n - static_cast<std::size_t>(exhausted)) << "an exhausted element changes nothing";
  int growths = 0;
  for (auto now = first; std::count(now.begin(), now.end(), operation_status::out_of_memory) > 0;
       now = statuses.to_vector()) {
    ASSERT_TRUE(map.grow_pool()) << "growth " << growths << " is within the limit";
    ++growths;
    map.insert_many_async(device_keys.span(), device_values.span(), device_offsets.span(), statuses.span(),
                          run_elements::out_of_memory_only);
  }
  const auto last = statuses.to_vector();
  EXPECT_TRUE(std::all_of(last.begin(), last.end(), [](operation_status s) { return s == operation_status::inserted; }))
      << "the retries ran the exhausted elements only";
  oracle_map oracle;
  for (std::size_t i = 0; i < n; ++i) { oracle.emplace(keys[i], values[i]); }
  EXPECT_EQ(export_map(map), oracle);
}

// Offsets that do not rise from 0 to the key count: the host backend throws at the call, changing
// nothing; the cuda backend rejects each element they place in no batch (here those before the first
// offset and past the last) and runs the others. No offsets at all throw on both.
TYPED_TEST(slab_many_test, OffsetsThatDoNotRiseAreTheCallersError)
{
  using map_type = typename TestFixture::map_type;
  seeded_random random;
  constexpr std::size_t n = 600;
  const auto keys = distinct_keys(random, n);
  const auto values = values_below_missing(random, n);
  auto device_keys = this->put(keys);
  auto device_values = this->put(values);
  // Not from 0, batch 1 ending before it starts, not up to n: the search places [100, 300) in batch 2
  // and [300, 500) in batch 3.
  const std::vector<std::uint64_t> offsets{100, 200, 100, 300, 500};
  auto device_offsets = this->put(offsets);
  map_type map(this->backend(), map_type::capacity_for(n));
  auto statuses = this->poisoned(n, poison_status);
  expect_error_mentioning<error>(
      [&] { map.insert_many_async(device_keys.span(), device_values.span(), {}, statuses.span()); },
      {"slab_map", "offsets"});
  if constexpr (std::is_same_v<TypeParam, host>) {
    expect_error_mentioning<error>(
        [&] {
          map.insert_many_async(device_keys.span(), device_values.span(), device_offsets.span(), statuses.span());
        },
        {"offsets", "rise"});
    EXPECT_EQ(map.size(), 0u);
    return;
  }
  map.insert_many_async(device_keys.span(), device_values.span(), device_offsets.span(), statuses.span());
  const auto seen = statuses.to_vector();
  oracle_map oracle;
  for (std::size_t i = 0; i < n; ++i) {
    const bool placed = i >= 100 && i < 500;
    ASSERT_EQ(seen[i], placed ? operation_status::inserted : operation_status::rejected) << "element " << i;
    if (placed) { oracle.emplace(keys[i], values[i]); }
  }
  EXPECT_EQ(export_map(map), oracle);
}

#if WARPDEX_HAS_CUDA
class slab_many_graph_test : public cuda_test {};

// A loop of many-batch calls (an insertion, then finds into device memory and into pinned host memory)
// captured once: one kernel node each; replayed on keys and offsets rewritten in place (the same key
// count, the boundaries moved, a reserved key in one replay's batch), each replay equal to the oracle.
TEST_F(slab_many_graph_test, CaptureReplaysOnRewrittenKeysAndOffsets)
{
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;
  seeded_random random;
  constexpr std::size_t batches = 40;
  constexpr std::size_t n = 40 * 300;
  constexpr std::size_t replays = 3;
  const owned_stream own;
  const cuda on{own.get()};
  map_type map(on, map_type::capacity_for(replays * n));
  auto device_keys = make_buffer<std::uint32_t>(on, n);
  auto device_values = make_buffer<std::uint32_t>(on, n);
  auto device_offsets = make_buffer<std::uint64_t>(on, batches + 1);
  auto statuses = make_buffer<operation_status>(on, n);
  auto found_values = make_buffer<std::uint32_t>(on, n);
  auto pinned_values = make_pinned_buffer<std::uint32_t>(n);
  const captured_graph graph(own.get(), [&] {
    map.insert_many_async(device_keys.span(), device_values.span(), device_offsets.span(), statuses.span());
    map.find_many_async(device_keys.span(), device_offsets.span(), found_values.span(), missing);
    map.find_many_async(device_keys.span(), device_offsets.span(), pinned_values.span(), missing);
  });
  EXPECT_EQ(graph.node_count(), 3u) << "one kernel a call";
  EXPECT_EQ(map.size(), 0u) << "nothing runs at the capture";
  const auto all_keys = distinct_keys(random, replays * n);
  oracle_map oracle;
  for (std::size_t replay = 0; replay < replays; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    std::vector<std::uint64_t> cuts(batches - 1);
    for (auto& cut : cuts) { cut = random() % (n + 1); }
    std::sort(cuts.begin(), cuts.end());
    std::vector<std::uint64_t> offsets{0};
    offsets.insert(offsets.end(), cuts.begin(), cuts.end());
    offsets.push_back(n);
    std::vector<std::uint32_t> keys(all_keys.begin() + static_cast<std::ptrdiff_t>(replay * n),
                                    all_keys.begin() + static_cast<std::ptrdiff_t>((replay + 1) * n));
    const std::size_t reserved_at = replay == 1 ? random() % n : n;
    if (reserved_at < n) { keys[reserved_at] = hash::empty_key; }
    const auto values = values_below_missing(random, n);
    device_keys.copy_from(std::span<const std::uint32_t>(keys));
    device_values.copy_from(std::span<const std::uint32_t>(values));
    device_offsets.copy_from(std::span<const std::uint64_t>(offsets));
    std::fill_n(pinned_values.data(), n, poison_value);
    const std::vector<operation_status> poisoned_statuses(n, poison_status);
    statuses.copy_from(std::span<const operation_status>(poisoned_statuses));
    on.synchronize();
    graph.launch(own.get());
    on.synchronize();
    const auto inserted = statuses.to_vector();
    const auto found = found_values.to_vector();
    const std::size_t rejected_batch =
        reserved_at < n ? static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), reserved_at) -
                                                   offsets.begin()) -
                              1
                        : batches;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t b =
          static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), i) - offsets.begin()) - 1;
      const bool rejected =
          b == rejected_batch && offsets[b + 1] - offsets[b] <= hash::detail::many_whole_check_elements;
      ASSERT_EQ(inserted[i], rejected ? operation_status::rejected : operation_status::inserted) << "element " << i;
      ASSERT_EQ(found[i], rejected ? missing : values[i]) << "element " << i;
      ASSERT_EQ(pinned_values.data()[i], rejected ? missing : values[i]) << "element " << i;
      if (!rejected) { oracle.emplace(keys[i], values[i]); }
    }
    EXPECT_EQ(export_map(map), oracle);
  }
}

// Two maps on two streams, each fed many-batch insertions and finds back to back with one wait at the
// end, running at once: each ends equal to its oracle, its finds equal to it.
TEST_F(slab_many_graph_test, CallsOnTwoStreamsAtOnce)
{
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;
  seeded_random random;
  constexpr std::size_t rounds = 8;
  constexpr std::size_t batches = 16;
  constexpr std::size_t per_round = batches * 256;
  const owned_stream first_stream;
  const owned_stream second_stream;
  const cuda streams[] = {cuda{first_stream.get()}, cuda{second_stream.get()}};
  struct fed_map {
    map_type map;
    buffer<std::uint32_t> keys, values, found;
    buffer<operation_status> statuses;
    std::vector<std::uint32_t> host_keys, host_values;
  };
  std::vector<fed_map> maps;
  const auto offsets = offsets_of(std::vector<std::uint64_t>(batches, per_round / batches));
  auto device_offsets = make_buffer_from<std::uint64_t>(cuda{}, std::span<const std::uint64_t>(offsets));
  const auto all_keys = distinct_keys(random, 2 * rounds * per_round);
  for (std::size_t s = 0; s < 2; ++s) {
    const auto keys =
        std::vector<std::uint32_t>(all_keys.begin() + static_cast<std::ptrdiff_t>(s * rounds * per_round),
                                   all_keys.begin() + static_cast<std::ptrdiff_t>((s + 1) * rounds * per_round));
    const auto values = values_below_missing(random, keys.size());
    maps.push_back({map_type(streams[s], map_type::capacity_for(keys.size())),
                    make_buffer_from<std::uint32_t>(streams[s], std::span<const std::uint32_t>(keys)),
                    make_buffer_from<std::uint32_t>(streams[s], std::span<const std::uint32_t>(values)),
                    make_buffer<std::uint32_t>(streams[s], keys.size()),
                    make_buffer<operation_status>(streams[s], keys.size()), keys, values});
  }
  streams[0].synchronize();
  streams[1].synchronize();
  for (std::size_t round = 0; round < rounds; ++round) {
    for (fed_map& fed : maps) {
      const auto part = [&](auto& buffer) { return buffer.span().subspan(round * per_round, per_round); };
      fed.map.insert_many_async(part(fed.keys), part(fed.values), device_offsets.span(), part(fed.statuses));
      fed.map.find_many_async(part(fed.keys), device_offsets.span(), part(fed.found), missing);
    }
  }
  streams[0].synchronize();
  streams[1].synchronize();
  for (fed_map& fed : maps) {
    const auto inserted = fed.statuses.to_vector();
    const auto found = fed.found.to_vector();
    oracle_map oracle;
    for (std::size_t i = 0; i < fed.host_keys.size(); ++i) {
      ASSERT_EQ(inserted[i], operation_status::inserted) << "element " << i;
      ASSERT_EQ(found[i], fed.host_values[i]) << "element " << i;
      oracle.emplace(fed.host_keys[i], fed.host_values[i]);
    }
    EXPECT_EQ(export_map(fed.map), oracle);
  }
}
#endif

}  // namespace
