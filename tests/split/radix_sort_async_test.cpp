// The asynchronous radix sort (radix_sort_async, radix_sort_pairs_async) against the synchronous sort and
// std::stable_sort on every backend, with one workspace reused across sizes; on the cuda backend also
// captured into a CUDA graph and replayed on new keys.
#include "multisplit_oracle.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <gtest/gtest.h>

#if WARPDEX_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::testing {
namespace {

constexpr std::uint32_t poison = 0xdeadbeefU;
constexpr std::uint64_t poison64 = 0xdeadbeefdeadbeefULL;

/// Keys of a shape: 0 full-width random, 1 below 1000 (many repeats; stability orders their values).
template <class Key>
std::vector<Key> random_keys(std::uint64_t n, int shape, std::mt19937_64& random)
{
  std::vector<Key> keys(n);
  for (auto& key : keys) { key = static_cast<Key>(shape == 0 ? random() : random() % 1000); }
  return keys;
}

template <class Backend>
class radix_sort_async_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(radix_sort_async_test, all_backends, backend_names);

// One workspace for every call: sizes 2^10 .. 2^16, an odd size, then a smaller size again (which must
// not grow it); keys, pairs and 64-bit keys, both orders, 8-bit digits and 5-bit ones (7 passes, an odd
// count: the first pass writes the output).
TYPED_TEST(radix_sort_async_test, equals_the_synchronous_sort_with_one_workspace_across_sizes)
{
  const auto& backend = this->backend();
  const std::vector<std::uint64_t> sizes = sanitizer_sized()
                                               ? std::vector<std::uint64_t>{1024, 20001, 4096}
                                               : std::vector<std::uint64_t>{1024, 4096, 16384, 65536, 40961, 1, 2048};
  multisplit_workspace workspace;
  std::size_t largest_capacity = 0;
  for (const std::uint64_t seed : fixed_and_fresh_seeds(4401)) {
    std::mt19937_64 random(seed);
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      const std::uint64_t n = sizes[s];
      const int shape = static_cast<int>(s % 2);
      const sort_order order = s % 3 == 2 ? sort_order::descending : sort_order::ascending;
      const std::uint32_t digit_bits = s == 1 ? 5U : radix_sort_digit_bits;
      SCOPED_TRACE("n=" + std::to_string(n) + " shape=" + std::to_string(shape) +
                   (order == sort_order::ascending ? " ascending" : " descending") +
                   " digit_bits=" + std::to_string(digit_bits) + " seed=" + std::to_string(seed));
      const auto keys = random_keys<std::uint32_t>(n, shape, random);
      const auto positions = stable_order(keys, order);
      const auto expected_keys = gather(keys, positions);
      std::vector<std::uint32_t> values(n);
      std::iota(values.begin(), values.end(), std::uint32_t{0});

      const auto keys_in = make_buffer_from<std::uint32_t>(backend, keys);
      const auto values_in = make_buffer_from<std::uint32_t>(backend, values);
      auto sync_keys = make_filled_buffer<std::uint32_t>(backend, n, poison);
      auto sync_values = make_filled_buffer<std::uint32_t>(backend, n, poison);
      auto async_keys = make_filled_buffer<std::uint32_t>(backend, n, poison);
      auto async_values = make_filled_buffer<std::uint32_t>(backend, n, poison);
      radix_sort(backend, keys_in.span(), sync_keys.span(), order, digit_bits);
      radix_sort_async(backend, keys_in.span(), async_keys.span(), workspace, order, digit_bits);
      const auto async_sorted = async_keys.to_vector();  // waits for the stream
      EXPECT_EQ(async_sorted, sync_keys.to_vector());
      EXPECT_EQ(async_sorted, expected_keys);

      radix_sort_pairs(backend, keys_in.span(), values_in.span(), sync_keys.span(), sync_values.span(), order,
                       digit_bits);
      async_keys = make_filled_buffer<std::uint32_t>(backend, n, poison);
      radix_sort_pairs_async(backend, keys_in.span(), values_in.span(), async_keys.span(), async_values.span(),
                             workspace, order, digit_bits);
      EXPECT_EQ(async_keys.to_vector(), expected_keys);
      EXPECT_EQ(async_values.to_vector(), positions);
      EXPECT_EQ(async_values.to_vector(), sync_values.to_vector());

      const auto wide = random_keys<std::uint64_t>(n, shape, random);
      const auto wide_expected = gather(wide, stable_order(wide, order));
      const auto wide_in = make_buffer_from<std::uint64_t>(backend, wide);
      auto wide_out = make_filled_buffer<std::uint64_t>(backend, n, poison64);
      radix_sort_async(backend, wide_in.span(), wide_out.span(), workspace, order, digit_bits);
      EXPECT_EQ(wide_out.to_vector(), wide_expected);
      EXPECT_EQ(wide_in.to_vector(), wide);  // the input is left as it was

      if (n == 65536 || (sanitizer_sized() && n == 20001)) { largest_capacity = workspace.capacity_bytes(); }
      if (s + 1 == sizes.size()) {  // after the largest size, smaller calls reuse the memory held
        EXPECT_EQ(workspace.capacity_bytes(), largest_capacity);
      }
    }
  }
}

TYPED_TEST(radix_sort_async_test, rejects_bad_arguments_before_writing)
{
  multisplit_workspace workspace;
  const auto keys = make_buffer_from<std::uint32_t>(this->backend(), std::vector<std::uint32_t>{3, 1, 2});
  auto short_out = make_filled_buffer<std::uint32_t>(this->backend(), 2, poison);
  auto out = make_filled_buffer<std::uint32_t>(this->backend(), 3, poison);
  expect_error_mentioning<error>([&] { radix_sort_async(this->backend(), keys.span(), short_out.span(), workspace); },
                                 {"radix_sort_async", "keys_out"});
  expect_error_mentioning<error>(
      [&] {
        radix_sort_pairs_async(this->backend(), keys.span(), keys.span(), out.span(), short_out.span(), workspace);
      },
      {"radix_sort_pairs_async"});
  expect_error_mentioning<error>(
      [&] { radix_sort_async(this->backend(), keys.span(), out.span(), workspace, sort_order::ascending, 9); },
      {"radix_sort_async", "digit_bits"});
  EXPECT_EQ(out.to_vector(), std::vector<std::uint32_t>(3, poison));
  EXPECT_EQ(short_out.to_vector(), std::vector<std::uint32_t>(2, poison));
}

#if WARPDEX_HAS_CUDA
/// A non-blocking stream of the test's own (the legacy default stream cannot be captured).
struct owned_stream {
  cudaStream_t stream = nullptr;
  owned_stream() { EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  ~owned_stream() { (void)cudaStreamDestroy(stream); }
};

// The asynchronous calls captured into one graph (global capture mode: any allocation, synchronization
// or other unsafe call in them fails the capture), replayed twice on new keys written into the same
// input buffers; the workspace grown by one call before the capture.
TEST(radix_sort_async_capture, a_captured_graph_replays_on_new_keys)
{
  if (const std::string reason = cuda_unavailable_reason(); !reason.empty()) { GTEST_SKIP() << reason; }
  const owned_stream owner;  // outlives the buffers and the graph
  const cuda backend{owner.stream};
  const std::uint64_t n = full_or_sanitizer_sized<std::uint64_t>(65536, 20001);
  auto keys_in = make_filled_buffer<std::uint32_t>(backend, n, 0);
  auto values_in = make_filled_buffer<std::uint32_t>(backend, n, 0);
  auto wide_in = make_filled_buffer<std::uint64_t>(backend, n, 0);
  auto keys_out = make_filled_buffer<std::uint32_t>(backend, n, poison);
  auto pair_keys_out = make_filled_buffer<std::uint32_t>(backend, n, poison);
  auto values_out = make_filled_buffer<std::uint32_t>(backend, n, poison);
  auto wide_out = make_filled_buffer<std::uint64_t>(backend, n, poison64);
  multisplit_workspace keys_workspace;
  multisplit_workspace pairs_workspace;
  multisplit_workspace wide_workspace;
  const auto enqueue = [&] {
    radix_sort_async(backend, keys_in.span(), keys_out.span(), keys_workspace, sort_order::descending);
    radix_sort_pairs_async(backend, keys_in.span(), values_in.span(), pair_keys_out.span(), values_out.span(),
                           pairs_workspace);
    radix_sort_async(backend, wide_in.span(), wide_out.span(), wide_workspace);
  };
  enqueue();  // grows the workspaces
  ASSERT_EQ(cudaStreamSynchronize(owner.stream), cudaSuccess);
  const std::size_t capacities[] = {keys_workspace.capacity_bytes(), pairs_workspace.capacity_bytes(),
                                    wide_workspace.capacity_bytes()};

  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(owner.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  enqueue();
  ASSERT_EQ(cudaStreamEndCapture(owner.stream, &graph), cudaSuccess);
  cudaGraphExec_t executable = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&executable, graph, 0), cudaSuccess);
  EXPECT_EQ(keys_workspace.capacity_bytes(), capacities[0]);
  EXPECT_EQ(pairs_workspace.capacity_bytes(), capacities[1]);
  EXPECT_EQ(wide_workspace.capacity_bytes(), capacities[2]);

  for (const std::uint64_t seed : fixed_and_fresh_seeds(4402)) {
    for (int replay = 0; replay < 2; ++replay) {
      std::mt19937_64 random(seed + static_cast<std::uint64_t>(replay));
      SCOPED_TRACE("replay " + std::to_string(replay) + " seed=" + std::to_string(seed));
      const auto keys = random_keys<std::uint32_t>(n, replay, random);
      const auto wide = random_keys<std::uint64_t>(n, 0, random);
      std::vector<std::uint32_t> values(n);
      for (auto& value : values) { value = static_cast<std::uint32_t>(random()); }
      keys_in.copy_from(keys);
      values_in.copy_from(values);
      wide_in.copy_from(wide);
      ASSERT_EQ(cudaStreamSynchronize(owner.stream), cudaSuccess);
      ASSERT_EQ(cudaGraphLaunch(executable, owner.stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(owner.stream), cudaSuccess);
      EXPECT_EQ(keys_out.to_vector(), gather(keys, stable_order(keys, sort_order::descending)));
      const auto positions = stable_order(keys, sort_order::ascending);
      EXPECT_EQ(pair_keys_out.to_vector(), gather(keys, positions));
      EXPECT_EQ(values_out.to_vector(), gather(values, positions));
      EXPECT_EQ(wide_out.to_vector(), gather(wide, stable_order(wide, sort_order::ascending)));
    }
  }
  EXPECT_EQ(cudaGraphExecDestroy(executable), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}
#endif

}  // namespace
}  // namespace warpdex::testing
