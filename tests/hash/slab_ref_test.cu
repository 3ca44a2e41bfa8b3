// The device-side pieces in user kernels: the warp allocator hands out every slab of a pool exactly
// once and then reports exhaustion, and a map's ref (128- or 64-byte slabs) inserts, finds and erases
// from a user kernel with the results the host backend gives for the same operations.
#include "hash/slab_test_support.hpp"

#include <warpdex/core/cuda_check.hpp>
#include <warpdex/hash/slab_alloc_light.cuh>
#include <warpdex/hash/slab_ref.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace {

using namespace warpdex;
using namespace warpdex::testing;
using hash::operation_status;

constexpr unsigned threads_per_block = 128;

/// Each warp allocates until the allocator reports exhaustion; lane 0 records every slab it got.
template <class Allocator, class Pool>
__global__ void allocate_until_exhausted(Pool pool, std::uint32_t* slabs, unsigned long long* count,
                                         std::uint32_t capacity)
{
  Allocator allocator(pool, warp::global_warp_id());
  for (;;) {
    const std::uint32_t slab = allocator.allocate();
    if (slab == hash::null_slab) { return; }
    if (warp::lane_id() == 0) {
      const unsigned long long at = atomicAdd(count, 1ULL);
      if (at < capacity) { slabs[at] = slab; }
    }
  }
}

/// One warp frees `slab`, then allocates twice; lane 0 writes what it got.
__global__ void free_then_allocate_twice(hash::slab_pool_view<std::uint32_t> pool, std::uint32_t slab,
                                         std::uint32_t* got)
{
  hash::slab_warp_allocator<std::uint32_t> allocator(pool, 0);
  if (warp::lane_id() == 0) { allocator.free(slab); }
  __syncwarp();
  const std::uint32_t first = allocator.allocate();
  const std::uint32_t second = allocator.allocate();
  if (warp::lane_id() == 0) {
    got[0] = first;
    got[1] = second;
  }
}

class slab_alloc_test : public cuda_test {};

TEST_F(slab_alloc_test, LightHandsOutEverySlabOnceThenReportsExhaustion)
{
  const std::uint64_t pool_slabs = 3 * hash::slabs_per_block + 100;  // a partial last block
  const std::uint32_t blocks = 4;
  auto bitmap = make_device_buffer<std::uint32_t>(blocks * hash::bitmap_words_per_block);
  std::vector<std::uint32_t> words(bitmap.size());
  for (std::size_t word = 0; word < words.size(); ++word) { words[word] = hash::initial_bitmap_word(word, pool_slabs); }
  bitmap.copy_from(std::span<const std::uint32_t>(words));
  const hash::light_pool_view<std::uint32_t> pool{nullptr, bitmap.data(), blocks};
  const std::uint32_t capacity = static_cast<std::uint32_t>(pool_slabs) + 64;
  auto slabs = make_filled_buffer<std::uint32_t>(cuda{}, capacity, hash::null_slab);
  auto count = make_filled_buffer<unsigned long long>(cuda{}, 1, 0);
  allocate_until_exhausted<hash::light_warp_allocator<std::uint32_t>>
      <<<6, threads_per_block>>>(pool, slabs.data(), count.data(), capacity);
  WARPDEX_CHECK_LAUNCH("allocate_until_exhausted");
  ASSERT_EQ(count.to_vector()[0], pool_slabs);
  auto got = slabs.to_vector();
  got.resize(pool_slabs);
  std::sort(got.begin(), got.end());
  for (std::uint64_t i = 0; i < pool_slabs; ++i) { ASSERT_EQ(got[i], i) << "slab " << i << " missing or repeated"; }
  for (const std::uint32_t word : bitmap.to_vector()) { EXPECT_EQ(word, 0xffffffffU); }
}

TEST_F(slab_alloc_test, FullHandsOutEveryUnitOfEverySuperBlockOnceThenReportsExhaustion)
{
  // Three super blocks of different sizes, the first and last with a partial last block.
  const std::vector<std::uint64_t> super_slabs = {700, 2 * hash::slabs_per_block, hash::slabs_per_block + 33};
  std::vector<buffer<std::uint32_t>> bitmaps;
  std::vector<std::uint32_t*> bitmap_pointers;
  std::vector<std::uint32_t> first_blocks{0};
  std::vector<std::uint32_t> expected;
  for (std::uint32_t super = 0; super < super_slabs.size(); ++super) {
    const std::uint64_t blocks = (super_slabs[super] + hash::slabs_per_block - 1) / hash::slabs_per_block;
    std::vector<std::uint32_t> words(blocks * hash::bitmap_words_per_block);
    for (std::size_t word = 0; word < words.size(); ++word) {
      words[word] = hash::initial_bitmap_word(word, super_slabs[super]);
    }
    bitmaps.push_back(make_device_buffer<std::uint32_t>(words.size()));
    bitmaps.back().copy_from(std::span<const std::uint32_t>(words));
    bitmap_pointers.push_back(bitmaps.back().data());
    first_blocks.push_back(first_blocks.back() + static_cast<std::uint32_t>(blocks));
    for (std::uint64_t unit = 0; unit < super_slabs[super]; ++unit) {
      const auto in_super = static_cast<std::uint32_t>(unit);
      expected.push_back(hash::slab_address(super, in_super / hash::slabs_per_block, in_super % hash::slabs_per_block));
    }
  }
  auto bitmap_directory = make_device_buffer<std::uint32_t*>(bitmap_pointers.size());
  bitmap_directory.copy_from(std::span<std::uint32_t* const>(bitmap_pointers));
  auto first_block_table = make_device_buffer<std::uint32_t>(first_blocks.size());
  first_block_table.copy_from(std::span<const std::uint32_t>(first_blocks));
  hash::slab_pool_view<std::uint32_t> pool;
  pool.bitmaps = bitmap_directory.data();
  pool.first_blocks = first_block_table.data();
  pool.super_block_count = static_cast<std::uint32_t>(super_slabs.size());
  pool.block_count = first_blocks.back();
  const auto capacity = static_cast<std::uint32_t>(expected.size() + 64);
  auto slabs = make_filled_buffer<std::uint32_t>(cuda{}, capacity, hash::null_slab);
  auto count = make_filled_buffer<unsigned long long>(cuda{}, 1, 0);
  allocate_until_exhausted<hash::slab_warp_allocator<std::uint32_t>>
      <<<6, threads_per_block>>>(pool, slabs.data(), count.data(), capacity);
  WARPDEX_CHECK_LAUNCH("allocate_until_exhausted");
  ASSERT_EQ(count.to_vector()[0], expected.size());
  auto got = slabs.to_vector();
  got.resize(expected.size());
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected) << "a unit was missing, repeated or outside its super block";
  for (const auto& bitmap : bitmaps) {
    for (const std::uint32_t word : bitmap.to_vector()) { EXPECT_EQ(word, 0xffffffffU); }
  }

  // With the mark: exhaustion marks the pool swept full (its block count); a later allocation gives up
  // at once; a free clears the mark, and the freed slab is what the next allocation gets.
  auto mark = make_filled_buffer<std::uint32_t>(cuda{}, 1, 0);
  pool.swept_full = mark.data();
  count = make_filled_buffer<unsigned long long>(cuda{}, 1, 0);
  allocate_until_exhausted<hash::slab_warp_allocator<std::uint32_t>>
      <<<6, threads_per_block>>>(pool, slabs.data(), count.data(), capacity);
  WARPDEX_CHECK_LAUNCH("allocate_until_exhausted");
  EXPECT_EQ(count.to_vector()[0], 0U) << "the pool is still full";
  EXPECT_EQ(mark.to_vector()[0], pool.block_count);
  const std::uint32_t freed = expected[expected.size() / 2];
  auto got_after_free = make_filled_buffer<std::uint32_t>(cuda{}, 2, hash::null_slab);
  free_then_allocate_twice<<<1, warp::size>>>(pool, freed, got_after_free.data());
  WARPDEX_CHECK_LAUNCH("free_then_allocate_twice");
  EXPECT_EQ(got_after_free.to_vector(), (std::vector<std::uint32_t>{freed, hash::null_slab}));
  EXPECT_EQ(mark.to_vector()[0], pool.block_count) << "the second allocation swept the pool full again";
}

/// Lanes insert_or_assign (key, i) for their element, then every lane finds its key, then erases the
/// keys at odd positions; the statuses of each phase go to the outputs.
template <class Ref>
__global__ void use_ref(Ref ref, const typename Ref::key_type* keys, std::uint64_t n, operation_status* inserted,
                        operation_status* found, typename Ref::value_type* found_values, operation_status* erased)
{
  using value_type = typename Ref::value_type;
  auto allocator = ref.make_allocator(7);
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < n;
  const typename Ref::key_type key = active ? keys[i] : 0;
  const operation_status insert_status = ref.insert_or_assign(allocator, active, key, static_cast<value_type>(i));
  value_type value = ~value_type{0};
  const operation_status find_status = ref.find(active, key, value);
  const operation_status erase_status = ref.erase(active && i % 2 == 1, key);
  if (!active) { return; }
  inserted[i] = insert_status;
  found[i] = find_status;
  found_values[i] = value;
  erased[i] = erase_status;
}

/// Every lane finds its key through the coherent path in tiles of `TileLanes` lanes.
template <unsigned TileLanes>
__global__ void find_in_tiles(hash::slab_map_ref ref, const std::uint32_t* keys, std::uint64_t n,
                              operation_status* found, std::uint32_t* found_values)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < n;
  std::uint32_t value = poison_value;
  const operation_status status =
      ref.find<hash::detail::slab_reads::coherent, TileLanes>(active, active ? keys[i] : 0, value);
  if (!active) { return; }
  found[i] = status;
  found_values[i] = value;
}

class slab_ref_test : public cuda_test {};

/// A ref's coherent finds in tiles of 1, 4, 16 and 32 lanes (the bulk finds use the read-only path)
/// on lists about three slabs long, against the oracle.
TEST_F(slab_ref_test, CoherentFindsInEveryTileSizeMatchTheOracle)
{
  std::mt19937_64 random(std::random_device{}());
  const std::uint64_t n = 3000;
  const auto keys = distinct_keys(random, 2 * n);
  const std::vector<std::uint32_t> inserted(keys.begin(), keys.begin() + n);
  using map_type = hash::slab_map<std::uint32_t, std::uint32_t, cuda>;
  map_type map(cuda{}, hash::slab_capacity{static_cast<std::uint32_t>(n / 45), 4 * n / 15 + 4096});
  auto device_inserted = to_backend(cuda{}, inserted);
  map.insert(device_inserted.span(), device_inserted.span());
  auto device_keys = to_backend(cuda{}, keys);
  const auto blocks = static_cast<unsigned>((2 * n + threads_per_block - 1) / threads_per_block);
  auto check = [&](auto launch, unsigned lanes) {
    auto found = make_filled_buffer<operation_status>(cuda{}, 2 * n, operation_status::assigned);
    auto values = make_filled_buffer<std::uint32_t>(cuda{}, 2 * n, 0);
    launch(found.data(), values.data());
    WARPDEX_CHECK_LAUNCH("find_in_tiles");
    const auto host_found = found.to_vector();
    const auto host_values = values.to_vector();
    for (std::uint64_t i = 0; i < 2 * n; ++i) {
      ASSERT_EQ(host_found[i], i < n ? operation_status::found : operation_status::not_found) << lanes << " lanes";
      ASSERT_EQ(host_values[i], i < n ? keys[i] : poison_value) << lanes << " lanes";
    }
  };
  const hash::slab_map_ref ref(map.view());
  check(
      [&](operation_status* f, std::uint32_t* v) {
        find_in_tiles<1><<<blocks, threads_per_block>>>(ref, device_keys.data(), 2 * n, f, v);
      },
      1);
  check(
      [&](operation_status* f, std::uint32_t* v) {
        find_in_tiles<4><<<blocks, threads_per_block>>>(ref, device_keys.data(), 2 * n, f, v);
      },
      4);
  check(
      [&](operation_status* f, std::uint32_t* v) {
        find_in_tiles<16><<<blocks, threads_per_block>>>(ref, device_keys.data(), 2 * n, f, v);
      },
      16);
  check(
      [&](operation_status* f, std::uint32_t* v) {
        find_in_tiles<32><<<blocks, threads_per_block>>>(ref, device_keys.data(), 2 * n, f, v);
      },
      32);
}

/// `count` distinct keys of `Key` that use its high half (for 64-bit keys).
template <class Key>
std::vector<Key> distinct_wide_keys(std::mt19937_64& random, std::size_t count)
{
  if constexpr (sizeof(Key) == 4) {
    return distinct_keys(random, count);
  } else {
    std::unordered_map<Key, bool> seen;
    std::vector<Key> keys;
    while (keys.size() < count) {
      const Key key = random();
      if (!hash::is_reserved_key(key) && seen.emplace(key, true).second) { keys.push_back(key); }
    }
    return keys;
  }
}

template <class Map>
std::unordered_map<typename Map::key_type, typename Map::mapped_type> exported_pairs(const Map& map)
{
  auto keys = make_device_buffer<typename Map::key_type>(map.size());
  auto values = make_device_buffer<typename Map::mapped_type>(map.size());
  EXPECT_EQ(map.export_pairs(keys.span(), values.span()), keys.size());
  const auto host_keys = keys.to_vector();
  const auto host_values = values.to_vector();
  std::unordered_map<typename Map::key_type, typename Map::mapped_type> pairs;
  for (std::size_t i = 0; i < host_keys.size(); ++i) { pairs.emplace(host_keys[i], host_values[i]); }
  return pairs;
}

/// use_ref on a map of `Key`s and values with `SlabBytes` slabs, its ref deduced from the map's view,
/// against the oracle.
template <std::uint32_t SlabBytes, class Key = std::uint32_t>
void expect_user_kernel_matches_the_oracle()
{
  seeded_random random;
  const std::uint64_t n = 5000;
  const auto keys = distinct_wide_keys<Key>(random, n);
  using map_type = hash::slab_map<Key, Key, cuda, SlabBytes>;
  map_type map(cuda{}, map_type::capacity_for(n, 0.9));
  auto device_keys = to_backend(cuda{}, keys);
  auto inserted = make_device_buffer<operation_status>(n);
  auto found = make_device_buffer<operation_status>(n);
  auto found_values = make_device_buffer<Key>(n);
  auto erased = make_device_buffer<operation_status>(n);
  const hash::slab_table_ref ref(map.view());
  static_assert(std::is_same_v<decltype(ref), const hash::slab_table_ref<typename map_type::slots_type>>);
  use_ref<<<static_cast<unsigned>((n + threads_per_block - 1) / threads_per_block), threads_per_block>>>(
      ref, device_keys.data(), n, inserted.data(), found.data(), found_values.data(), erased.data());
  WARPDEX_CHECK_LAUNCH("use_ref");
  const auto host_inserted = inserted.to_vector();
  const auto host_found = found.to_vector();
  const auto host_values = found_values.to_vector();
  const auto host_erased = erased.to_vector();
  std::unordered_map<Key, Key> oracle;
  for (std::uint64_t i = 0; i < n; ++i) {
    ASSERT_EQ(host_inserted[i], operation_status::inserted);
    ASSERT_EQ(host_found[i], operation_status::found);
    ASSERT_EQ(host_values[i], i);
    ASSERT_EQ(host_erased[i], i % 2 == 1 ? operation_status::erased : operation_status::not_found);
    if (i % 2 == 0) { oracle.emplace(keys[i], static_cast<Key>(i)); }
  }
  EXPECT_EQ(exported_pairs(map), oracle);
}

/// Every thread inserts (keys[i % key_count], i) and then finds its key, all warps at once: the
/// insertions of one key race for one slot (a 64 / 64 pair's pending-slot protocol).
__global__ void contend_on_few_keys(hash::slab_map64_ref ref, const std::uint64_t* keys, std::uint64_t key_count,
                                    std::uint64_t n, operation_status* inserted, operation_status* found,
                                    std::uint64_t* found_values)
{
  auto allocator = ref.make_allocator(11);
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < n;
  const std::uint64_t key = active ? keys[i % key_count] : 0;
  const operation_status insert_status = ref.insert(allocator, active, key, i);
  std::uint64_t value = poison_value;
  const operation_status find_status = ref.find(active, key, value);
  if (!active) { return; }
  inserted[i] = insert_status;
  found[i] = find_status;
  found_values[i] = value;
}

TEST_F(slab_ref_test, UserKernelInsertsFindsAndErases)
{
  expect_user_kernel_matches_the_oracle<hash::default_slab_bytes>();
}

TEST_F(slab_ref_test, UserKernelInsertsFindsAndErasesInSixtyFourByteSlabs)
{
  expect_user_kernel_matches_the_oracle<64>();
}

TEST_F(slab_ref_test, UserKernelInsertsFindsAndErasesSixtyFourBitKeys)
{
  expect_user_kernel_matches_the_oracle<hash::default_slab_bytes, std::uint64_t>();
}

/// 64 / 64 insertions of 24 keys by 2^16 threads at once: each key inserted once (the value kept is
/// that element's), every later find of it in the same kernel sees that value.
TEST_F(slab_ref_test, ContendedSixtyFourBitInsertionsFromAUserKernelInsertEachKeyOnce)
{
  seeded_random random;
  const std::uint64_t key_count = 24;
  const std::uint64_t n = std::uint64_t{1} << 16;
  const auto keys = distinct_wide_keys<std::uint64_t>(random, key_count);
  using map_type = hash::slab_map<std::uint64_t, std::uint64_t, cuda>;
  map_type map(cuda{}, map_type::capacity_for(key_count));
  auto device_keys = to_backend(cuda{}, keys);
  auto inserted = make_device_buffer<operation_status>(n);
  auto found = make_device_buffer<operation_status>(n);
  auto found_values = make_device_buffer<std::uint64_t>(n);
  contend_on_few_keys<<<static_cast<unsigned>(n / threads_per_block), threads_per_block>>>(
      hash::slab_map64_ref(map.view()), device_keys.data(), key_count, n, inserted.data(), found.data(),
      found_values.data());
  WARPDEX_CHECK_LAUNCH("contend_on_few_keys");
  const auto held = exported_pairs(map);
  ASSERT_EQ(held.size(), key_count);
  const auto host_inserted = inserted.to_vector();
  const auto host_found = found.to_vector();
  const auto host_values = found_values.to_vector();
  std::vector<std::uint64_t> winners(key_count, 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t kept = held.at(keys[i % key_count]);
    ASSERT_EQ(kept % key_count, i % key_count) << "key " << i % key_count << " holds another key's element";
    ASSERT_TRUE(host_inserted[i] == operation_status::inserted ||
                host_inserted[i] == operation_status::already_present);
    if (host_inserted[i] == operation_status::inserted) {
      ++winners[i % key_count];
      ASSERT_EQ(kept, i) << "the inserted element's value was not kept";
    }
    ASSERT_EQ(host_found[i], operation_status::found) << "element " << i;
    ASSERT_EQ(host_values[i], kept) << "element " << i << " found a value its key never held";
  }
  EXPECT_EQ(winners, std::vector<std::uint64_t>(key_count, 1));
}

/// The same batches on both backends leave the same pairs and report the same statuses.
TEST_F(slab_ref_test, BackendsAgreeOnABatchOfDistinctKeys)
{
  std::mt19937_64 random(302);
  const auto keys = distinct_keys(random, 20000);
  std::vector<hash::operation> ops(keys.size());
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ops[i] = static_cast<hash::operation>(random() % hash::operation_count);
    values[i] = static_cast<std::uint32_t>(random());
  }
  const std::vector<std::uint32_t> first(keys.begin(), keys.begin() + 10000);
  auto run = [&](const auto& backend) {
    using backend_type = std::decay_t<decltype(backend)>;
    hash::slab_map<std::uint32_t, std::uint32_t, backend_type> map(backend, hash::slab_capacity{500, 2048});
    auto first_keys = to_backend(backend, first);
    map.insert(first_keys.span(), first_keys.span());
    auto device_ops = to_backend(backend, ops);
    auto device_keys = to_backend(backend, keys);
    auto device_values = to_backend(backend, values);
    auto values_out = make_filled_buffer<std::uint32_t>(backend, keys.size(), poison_value);
    auto statuses = make_filled_buffer<operation_status>(backend, keys.size(), operation_status::found);
    map.execute(device_ops.span(), device_keys.span(), device_values.span(), values_out.span(), statuses.span());
    return std::make_tuple(statuses.to_vector(), values_out.to_vector(), export_map(map));
  };
  EXPECT_EQ(run(cuda{}), run(host{}));
}

}  // namespace
