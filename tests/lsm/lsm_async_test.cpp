// lsm_map::insert_async (reserved levels, one merge launch a batch) against a std::map replaying the same
// batches, on every backend: batches whose merges reach several levels, queries between batches, the
// refusals, a loop of batches captured into a CUDA graph and replayed on new keys past changes of the
// merge plan and past the reservation, and maps fed from two streams at once.
#include "lsm_model.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/lsm/lsm_map.hpp>
#if WARPDEX_HAS_CUDA
#include <warpdex/core/stream.hpp>
#endif

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace {

using namespace warpdex::testing;
using warpdex::lsm_map;
using warpdex::lsm_operation;
using warpdex::lsm_options;

template <class Backend>
class lsm_async_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(lsm_async_test, all_backends, backend_names);

/// A batch of inserts only, over a universe small enough that keys repeat inside and across batches.
template <class Key>
lsm_batch<Key> insert_batch(std::mt19937_64& random, std::size_t size, Key universe)
{
  return random_batch<Key>(random, size, 0.0, universe);
}

/// The map's levels after `batches` batches of inserts: level i is full where bit i of the count is set.
template <class Key, class Backend>
void expect_levels_of(const lsm_map<Key, lsm_value, Backend>& map, std::uint64_t batches)
{
  EXPECT_EQ(map.resident_entries(), batches * map.options().batch_size);
  EXPECT_EQ(map.occupied_levels(), static_cast<std::size_t>(std::popcount(batches)));
  EXPECT_EQ(map.resident_tombstones(), 0u);
}

/// And its stale entries (a newer entry of the key in the same level) are those of `twin`, fed the same
/// batches by the synchronous insert: the same binary addition of full batches.
template <class Key, class Backend>
void expect_levels_of(const lsm_map<Key, lsm_value, Backend>& map, const lsm_map<Key, lsm_value, Backend>& twin,
                      std::uint64_t batches)
{
  expect_levels_of(map, batches);
  EXPECT_EQ(twin.resident_entries(), batches * map.options().batch_size);
  EXPECT_EQ(map.resident_stale(), twin.resident_stale());
}

template <class Key, class Backend>
void batches_match_the_model(const Backend& backend, std::uint64_t b, std::uint64_t batches, Key universe,
                             std::uint64_t seed)
{
  SCOPED_TRACE("seed " + std::to_string(seed) + ", batches of " + std::to_string(b));
  std::mt19937_64 random(seed);
  lsm_map<Key, lsm_value, Backend> map(backend, lsm_options{b, 0.5});
  map.reserve_async(batches);
  lsm_map<Key, lsm_value, Backend> twin(backend, lsm_options{b, 0.0});
  std::map<Key, lsm_value> model;
  for (std::uint64_t t = 1; t <= batches; ++t) {
    const auto batch = insert_batch<Key>(random, b, universe);
    apply_to_model(model, batch, b);
    const auto keys = make_buffer_from<Key>(backend, batch.keys);
    const auto values = make_buffer_from<lsm_value>(backend, batch.values);
    map.insert_async(keys.span(), values.span());
    twin.insert(keys.span(), values.span());
    // Queries now and then (each takes over the levels the device built), after merges of 1 to 5 levels.
    if (std::has_single_bit(t) || t == batches || t % 5 == 3) {
      expect_matches_model(backend, map, model, random, universe, 128);
      expect_levels_of(map, twin, t);
    }
  }
  expect_matches_model(backend, map, model, random, universe, 256);
}

TYPED_TEST(lsm_async_test, batches_match_the_model)
{
  for (const std::uint64_t seed : fixed_and_fresh_seeds(0x1a5c)) {
    // 40 batches of 64 over 1500 keys (most keys repeat), then 11 of 128 64-bit keys over a wide universe.
    batches_match_the_model<std::uint32_t>(this->backend(), 64, 40, 1500, seed);
    batches_match_the_model<std::uint64_t>(this->backend(), 128, 11, std::uint64_t{1} << 40, seed + 1);
  }
}

TYPED_TEST(lsm_async_test, misuse_is_refused_before_anything_is_queued)
{
  using map_type = lsm_map<std::uint32_t, lsm_value, TypeParam>;
  const auto& backend = this->backend();
  std::mt19937_64 random(0xbad);
  constexpr std::uint64_t b = 64;
  std::map<std::uint32_t, lsm_value> model;
  const auto batch = insert_batch<std::uint32_t>(random, b, 1000);
  const auto keys = make_buffer_from<std::uint32_t>(backend, batch.keys);
  const auto values = make_buffer_from<lsm_value>(backend, batch.values);
  const auto batch_span = [&](std::size_t size) { return keys.span().first(size); };

  map_type odd(backend, lsm_options{96, 0.0});
  expect_error_mentioning<warpdex::error>([&] { odd.reserve_async(4); }, {"multiple of 64"});
  map_type map(backend, lsm_options{b, 0.0});
  expect_error_mentioning<warpdex::error>([&] { map.insert_async(keys.span(), values.span()); }, {"reserve_async"});
  map.reserve_async(3);  // 3 batches: levels 0 and 1
  expect_error_mentioning<warpdex::error>([&] { map.insert_async(batch_span(b - 1), values.span().first(b - 1)); },
                                          {"exactly batch_size", "63 keys"});
  for (int t = 0; t < 3; ++t) {
    map.insert_async(keys.span(), values.span());
    apply_to_model(model, batch, b);
  }
  expect_error_mentioning<warpdex::error>([&] { map.insert_async(keys.span(), values.span()); }, {"3 batches"});
  expect_error_mentioning<warpdex::error>([&] { map.reserve_async(8); }, {"hold nothing"});
  expect_matches_model(backend, map, model, random, 1000u, 64);
  // A synchronous insert replaces the reserved levels: insert_async is refused until clear().
  const auto more = insert_batch<std::uint32_t>(random, b, 1000);
  const auto more_keys = make_buffer_from<std::uint32_t>(backend, more.keys);
  const auto more_values = make_buffer_from<lsm_value>(backend, more.values);
  map.insert(more_keys.span(), more_values.span());
  apply_to_model(model, more, b);
  expect_matches_model(backend, map, model, random, 1000u, 64);
  expect_error_mentioning<warpdex::error>([&] { map.insert_async(keys.span(), values.span()); }, {"clear()"});
  map.clear();
  model.clear();
  EXPECT_EQ(map.resident_entries(), 0u);
  map.insert_async(more_keys.span(), more_values.span());
  apply_to_model(model, more, b);
  expect_matches_model(backend, map, model, random, 1000u, 64);
  expect_levels_of(map, 1);
}

#if WARPDEX_HAS_CUDA
class lsm_graph_test : public cuda_test {};

using warpdex::captured_graph;
using warpdex::cuda;
using warpdex::owned_stream;
using cuda_map = lsm_map<std::uint32_t, lsm_value, cuda>;

/// A loop of `loop` insert_async batches of `b` keys captured once, replayed on new keys: the plans of
/// the replays differ (batch t merges the trailing ones of t), and the graph, which reads t on the
/// device, follows them; past the reservation a replay's batches are dropped and reported.
void captured_loop_replays_on_new_keys(std::uint64_t b, std::uint64_t loop, std::uint64_t seed)
{
  SCOPED_TRACE("batches of " + std::to_string(b) + ", seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  const owned_stream own;
  const cuda on{own.get()};
  constexpr std::uint32_t universe = 1u << 20;
  constexpr std::uint64_t replays = 3;
  cuda_map map(on, lsm_options{b, 0.0});
  cuda_map twin(on, lsm_options{b, 0.0});  // the same batches, inserted synchronously
  map.reserve_async(replays * loop);
  const std::uint64_t capacity = std::bit_ceil(replays * loop + 1) - 1;  // 2^L - 1, L its bit width
  auto keys = warpdex::make_buffer<std::uint32_t>(on, loop * b);
  auto values = warpdex::make_buffer<lsm_value>(on, loop * b);
  const captured_graph graph(own.get(), [&] {
    for (std::uint64_t i = 0; i < loop; ++i) {
      map.insert_async(keys.span().subspan(i * b, b), values.span().subspan(i * b, b));
    }
  });
  std::map<std::uint32_t, lsm_value> model;
  EXPECT_EQ(map.resident_entries(), 0u) << "nothing runs at the capture";
  std::uint64_t applied = 0;
  auto replay = [&](std::uint64_t applies) {
    lsm_batch<std::uint32_t> all;
    for (std::uint64_t i = 0; i < loop; ++i) {
      const auto batch = insert_batch<std::uint32_t>(random, b, universe);
      if (i < applies) { apply_to_model(model, batch, b); }
      all.keys.insert(all.keys.end(), batch.keys.begin(), batch.keys.end());
      all.values.insert(all.values.end(), batch.values.begin(), batch.values.end());
    }
    keys.copy_from(all.keys);
    values.copy_from(all.values);
    graph.launch(own.get());
    for (std::uint64_t i = 0; i < applies; ++i) {
      twin.insert(keys.span().subspan(i * b, b), values.span().subspan(i * b, b));
    }
    on.synchronize();
    applied += applies;
  };
  for (std::uint64_t r = 0; r < replays; ++r) {
    replay(loop);
    expect_matches_model(on, map, model, random, universe, 256);
    expect_levels_of(map, twin, applied);
  }
  // Past the reservation: the batches that fit are applied, the rest dropped, and the next call says so.
  const std::uint64_t fit = capacity - applied;
  ASSERT_LT(fit, loop) << "the test wants a replay that overflows";
  replay(fit);
  expect_error_mentioning<warpdex::error>([&] { (void)map.size(); },
                                          {std::to_string(loop - fit) + " insert_async batches were dropped"});
  expect_matches_model(on, map, model, random, universe, 256);
  // A synchronous change closes the reserved levels: a replay then drops every batch; clear() reopens.
  const auto more = insert_batch<std::uint32_t>(random, b, universe);
  const auto more_keys = make_buffer_from<std::uint32_t>(on, more.keys);
  const auto more_values = make_buffer_from<lsm_value>(on, more.values);
  map.insert(more_keys.span(), more_values.span());
  apply_to_model(model, more, b);
  replay(0);
  expect_error_mentioning<warpdex::error>([&] { (void)map.size(); },
                                          {std::to_string(loop) + " insert_async batches were dropped"});
  expect_matches_model(on, map, model, random, universe, 128);
  map.clear();
  model.clear();
  twin.clear();
  applied = 0;
  replay(loop);
  expect_matches_model(on, map, model, random, universe, 256);
  expect_levels_of(map, twin, applied);
}

// Batches of 64 (CUB's sort of one tile) and of 2^14 (the batch sort's cooperative launch, captured too;
// left out of sanitizer-sized runs, whose racecheck of the batch sort's shared memory takes minutes).
TEST_F(lsm_graph_test, captured_loop_replays_on_new_keys)
{
  for (const std::uint64_t seed : fixed_and_fresh_seeds(0x9a4f)) {
    captured_loop_replays_on_new_keys(64, 4, seed);
    if (!sanitizer_sized()) { captured_loop_replays_on_new_keys(std::uint64_t{1} << 14, 2, seed); }
  }
}

// Two maps fed batch by batch from two streams at once, neither waiting for the other: each ends equal
// to its own model.
TEST_F(lsm_graph_test, maps_on_two_streams_at_once)
{
  std::mt19937_64 random(0x2517);
  constexpr std::uint64_t b = 128;
  constexpr std::uint64_t batches = 21;
  constexpr std::uint32_t universe = 4000;
  const owned_stream first_stream;
  const owned_stream second_stream;
  const cuda first{first_stream.get()};
  const cuda second{second_stream.get()};
  cuda_map first_map(first, lsm_options{b, 0.0});
  cuda_map second_map(second, lsm_options{b, 0.0});
  first_map.reserve_async(batches);
  second_map.reserve_async(batches);
  std::map<std::uint32_t, lsm_value> first_model;
  std::map<std::uint32_t, lsm_value> second_model;
  std::vector<warpdex::buffer<std::uint32_t>> inputs;  // alive until both streams are done
  for (std::uint64_t t = 0; t < batches; ++t) {
    for (const bool into_first : {true, false}) {
      const auto batch = insert_batch<std::uint32_t>(random, b, universe);
      apply_to_model(into_first ? first_model : second_model, batch, b);
      const cuda& on = into_first ? first : second;
      inputs.push_back(make_buffer_from<std::uint32_t>(on, batch.keys));
      inputs.push_back(make_buffer_from<lsm_value>(on, batch.values));
      (into_first ? first_map : second_map).insert_async(inputs[inputs.size() - 2].span(), inputs.back().span());
    }
  }
  expect_matches_model(first, first_map, first_model, random, universe, 256);
  expect_matches_model(second, second_map, second_model, random, universe, 256);
  expect_levels_of(first_map, batches);
  expect_levels_of(second_map, batches);
}
#endif

}  // namespace
