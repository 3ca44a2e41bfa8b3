// warpdex::buffer and the memory resources: ownership, copies, alignment and failures, on every kind of
// memory the build has.
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/memory_resource.hpp>

#include <gtest/gtest.h>

#if WARPDEX_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using warpdex::memory_kind;
using warpdex::testing::expect_error_mentioning;
using warpdex::testing::make_buffer_from;

template <class T>
std::vector<T> random_values(std::size_t size, std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  std::vector<T> values(size);
  for (T& value : values) { value = static_cast<T>(random()); }
  return values;
}

/// Host memory that counts what is live, to see exactly when a buffer allocates and frees.
class counting_resource final : public warpdex::memory_resource {
 public:
  [[nodiscard]] memory_kind kind() const noexcept override { return memory_kind::host; }
  [[nodiscard]] int live_allocations() const { return live_allocations_; }
  [[nodiscard]] std::size_t live_bytes() const { return live_bytes_; }

 private:
  void* do_allocate(std::size_t bytes, warpdex::stream_t) override
  {
    ++live_allocations_;
    live_bytes_ += bytes;
    return warpdex::host_resource()->allocate(bytes);
  }
  void do_deallocate(void* pointer, std::size_t bytes, warpdex::stream_t) noexcept override
  {
    --live_allocations_;
    live_bytes_ -= bytes;
    warpdex::host_resource()->deallocate(pointer, bytes);
  }

  int live_allocations_ = 0;
  std::size_t live_bytes_ = 0;
};

TEST(host_buffer, round_trips_values)
{
  const std::vector<std::uint64_t> values = random_values<std::uint64_t>(100003, 1);
  auto buffer = warpdex::make_host_buffer<std::uint64_t>(values.size());
  EXPECT_EQ(buffer.kind(), memory_kind::host);
  EXPECT_EQ(buffer.size(), values.size());
  EXPECT_EQ(buffer.size_bytes(), values.size() * sizeof(std::uint64_t));
  buffer.copy_from(values);
  EXPECT_EQ(buffer.to_vector(), values);
}

TEST(host_buffer, copies_a_shorter_source_into_its_prefix)
{
  const std::vector<int> initial(10, -1);
  const std::vector<int> prefix = {1, 2, 3};
  auto buffer = make_buffer_from<int>(warpdex::host{}, initial);
  buffer.copy_from(prefix);
  EXPECT_EQ(buffer.to_vector(), (std::vector<int>{1, 2, 3, -1, -1, -1, -1, -1, -1, -1}));
}

TEST(host_buffer, rejects_a_source_larger_than_itself_and_keeps_its_contents)
{
  const std::vector<int> initial = {7, 8, 9};
  auto buffer = make_buffer_from<int>(warpdex::host{}, initial);
  const std::vector<int> too_long(4, 0);
  expect_error_mentioning<warpdex::error>([&] { buffer.copy_from(too_long); },
                                          {"copy_from", "4 elements do not fit in a buffer of 3"});
  EXPECT_EQ(buffer.to_vector(), initial);
}

TEST(host_resource, aligns_every_allocation)
{
  warpdex::memory_resource* resource = warpdex::host_resource();
  EXPECT_EQ(resource->kind(), memory_kind::host);
  for (const std::size_t bytes : {1, 3, 17, 127, 128, 129, 1000, 1 << 20}) {
    std::vector<void*> allocations;
    for (int i = 0; i < 8; ++i) { allocations.push_back(resource->allocate(bytes)); }
    for (void* pointer : allocations) {
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(pointer) % warpdex::host_memory_alignment, 0U) << bytes << " bytes";
      resource->deallocate(pointer, bytes);
    }
  }
  auto buffer = warpdex::make_host_buffer<char>(5);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % warpdex::host_memory_alignment, 0U);
}

TEST(host_resource, allocates_nothing_for_zero_bytes)
{
  EXPECT_EQ(warpdex::host_resource()->allocate(0), nullptr);
  auto empty = warpdex::make_host_buffer<int>(0);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_TRUE(empty.to_vector().empty());
}

TEST(host_resource, reports_exhaustion_as_out_of_memory)
{
  // 2^62 bytes exceed any machine's address space, so the allocation fails at once.
  expect_error_mentioning<warpdex::out_of_memory>([] { (void)warpdex::make_host_buffer<std::byte>(1ULL << 62); },
                                                  {"host memory exhausted"});
}

TEST(buffer, move_construction_transfers_ownership)
{
  counting_resource resource;
  {
    warpdex::buffer<int> source(100, &resource);
    std::iota(source.data(), source.data() + source.size(), 0);
    int* const memory = source.data();
    warpdex::buffer<int> moved(std::move(source));
    EXPECT_EQ(moved.data(), memory);
    EXPECT_EQ(moved.size(), 100U);
    EXPECT_EQ(moved.to_vector()[99], 99);
    EXPECT_EQ(source.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is under test
    EXPECT_TRUE(source.empty());
    EXPECT_EQ(resource.live_allocations(), 1);
  }
  EXPECT_EQ(resource.live_allocations(), 0);
  EXPECT_EQ(resource.live_bytes(), 0U);
}

TEST(buffer, move_assignment_frees_the_old_memory)
{
  counting_resource resource;
  {
    warpdex::buffer<int> kept(100, &resource);
    warpdex::buffer<int> replaced(50, &resource);
    int* const memory = kept.data();
    replaced = std::move(kept);
    EXPECT_EQ(resource.live_allocations(), 1);
    EXPECT_EQ(resource.live_bytes(), 100 * sizeof(int));
    EXPECT_EQ(replaced.data(), memory);

    auto& same = replaced;  // self-move through a reference: must keep the memory
    replaced = std::move(same);
    EXPECT_EQ(replaced.data(), memory);
    EXPECT_EQ(resource.live_allocations(), 1);

    kept = warpdex::buffer<int>(10, &resource);  // a moved-from buffer can be reused
    EXPECT_EQ(kept.size(), 10U);
    EXPECT_EQ(resource.live_allocations(), 2);
  }
  EXPECT_EQ(resource.live_allocations(), 0);
  EXPECT_EQ(resource.live_bytes(), 0U);
}

TEST(buffer, swap_exchanges_contents)
{
  auto first = warpdex::make_host_buffer<int>(3);
  auto second = warpdex::make_host_buffer<int>(5);
  int* const first_memory = first.data();
  int* const second_memory = second.data();
  first.swap(second);
  EXPECT_EQ(first.data(), second_memory);
  EXPECT_EQ(first.size(), 5U);
  EXPECT_EQ(second.data(), first_memory);
  EXPECT_EQ(second.size(), 3U);
}

TEST(buffer, rejects_sizes_that_overflow_before_allocating)
{
  counting_resource resource;
  const std::size_t too_many = std::numeric_limits<std::size_t>::max() / sizeof(std::uint64_t) + 1;
  expect_error_mentioning<warpdex::error>([&] { warpdex::buffer<std::uint64_t> huge(too_many, &resource); },
                                          {"overflow the address space"});
  EXPECT_EQ(resource.live_allocations(), 0);
}

TEST(buffer, rejects_a_null_resource)
{
  EXPECT_THROW(warpdex::buffer<int>(10, nullptr), warpdex::error);
}

// The same checks on the memory of every backend.
template <class Backend>
class backend_buffer_test : public warpdex::testing::backend_test<Backend> {
};
TYPED_TEST_SUITE(backend_buffer_test, warpdex::testing::all_backends, warpdex::testing::backend_names);

TYPED_TEST(backend_buffer_test, lives_in_the_backends_memory)
{
  const memory_kind expected = std::is_same_v<TypeParam, warpdex::host> ? memory_kind::host : memory_kind::device;
  EXPECT_EQ(this->backend().resource()->kind(), expected);
  EXPECT_EQ(warpdex::make_buffer<int>(this->backend(), 10).kind(), expected);
}

TYPED_TEST(backend_buffer_test, round_trips_values)
{
  for (const std::size_t size : {1, 31, 1000, 1 << 20}) {
    const std::vector<std::uint32_t> values = random_values<std::uint32_t>(size, size);
    const auto buffer = make_buffer_from<std::uint32_t>(this->backend(), values);
    EXPECT_EQ(buffer.size(), size);
    EXPECT_EQ(buffer.to_vector(), values) << size << " elements";
  }
  EXPECT_TRUE(warpdex::make_buffer<std::uint32_t>(this->backend(), 0).to_vector().empty());
}

TYPED_TEST(backend_buffer_test, copies_between_buffers_of_the_backend)
{
  const std::vector<double> values = {0.5, -1.25, 3e300, 1e-300};
  const auto source = make_buffer_from<double>(this->backend(), values);
  auto destination = warpdex::make_buffer<double>(this->backend(), values.size());
  destination.copy_from(source.span());
  EXPECT_EQ(destination.to_vector(), values);
}

#if WARPDEX_HAS_CUDA

class device_buffer_test : public warpdex::testing::cuda_test {};

TEST_F(device_buffer_test, round_trips_values)
{
  const std::vector<std::uint64_t> values = random_values<std::uint64_t>(1 << 20, 2);
  auto buffer = warpdex::make_device_buffer<std::uint64_t>(values.size());
  EXPECT_EQ(buffer.kind(), memory_kind::device);
  buffer.copy_from(values);
  EXPECT_EQ(buffer.to_vector(), values);
}

TEST_F(device_buffer_test, works_on_a_stream_of_its_own)
{
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  {
    const std::vector<std::uint32_t> values = random_values<std::uint32_t>(100003, 3);
    auto buffer = warpdex::make_device_buffer<std::uint32_t>(values.size(), stream);
    EXPECT_EQ(buffer.stream(), stream);
    buffer.copy_from(values);
    auto copy = warpdex::make_buffer<std::uint32_t>(warpdex::cuda{stream}, values.size());
    copy.copy_from(buffer.span());
    EXPECT_EQ(copy.to_vector(), values);
  }
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(device_buffer_test, pinned_memory_is_host_accessible_and_feeds_the_device)
{
  const std::vector<std::uint32_t> values = random_values<std::uint32_t>(4099, 4);
  auto pinned = warpdex::make_pinned_buffer<std::uint32_t>(values.size());
  EXPECT_EQ(pinned.kind(), memory_kind::pinned);
  std::copy(values.begin(), values.end(), pinned.data());  // written directly by the host
  EXPECT_EQ(pinned.to_vector(), values);

  auto device = warpdex::make_device_buffer<std::uint32_t>(values.size());
  device.copy_from(pinned.span());
  EXPECT_EQ(device.to_vector(), values);
}

TEST_F(device_buffer_test, a_freed_pinned_block_is_reused_only_after_the_copies_using_it_land)
{
  // 37 MiB of pinned memory (a size no other test uses) is cached when freed: the next allocation of that
  // rounded size gets it back, and a copy queued from it before it was freed has landed by then (the
  // device was synchronized).
  constexpr std::size_t count = (std::size_t{37} << 20) / sizeof(std::uint32_t);
  const std::vector<std::uint32_t> values = random_values<std::uint32_t>(count, 5);
  auto device = warpdex::make_device_buffer<std::uint32_t>(count);
  const std::uint32_t* first_address = nullptr;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  {
    auto pinned = warpdex::make_pinned_buffer<std::uint32_t>(count);
    first_address = pinned.data();
    std::copy(values.begin(), values.end(), pinned.data());
    ASSERT_EQ(cudaMemcpyAsync(device.data(), pinned.data(), count * sizeof(std::uint32_t), cudaMemcpyHostToDevice,
                              stream),
              cudaSuccess);
  }  // freed with the copy possibly in flight on a stream of its own
  auto again = warpdex::make_pinned_buffer<std::uint32_t>(count - 7);  // the same 2 MiB-rounded size
  EXPECT_EQ(again.data(), first_address);
  std::fill(again.data(), again.data() + again.size(), 0U);  // must not change what the copy read
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(device.to_vector(), values);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(device_buffer_test, exhaustion_throws_out_of_memory_and_leaves_the_device_usable)
{
  if (warpdex::testing::under_compute_sanitizer()) {
    GTEST_SKIP() << "compute-sanitizer would report the deliberately failing allocation as an error";
  }
  // 2^50 bytes (a petabyte) exceed any GPU's memory.
  expect_error_mentioning<warpdex::out_of_memory>([] { (void)warpdex::make_device_buffer<std::byte>(1ULL << 50); },
                                                  {"device memory exhausted"});
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failed allocation left a CUDA error behind";

  const std::vector<int> values = {1, 2, 3, 4, 5};
  auto buffer = warpdex::make_device_buffer<int>(values.size());
  buffer.copy_from(values);
  EXPECT_EQ(buffer.to_vector(), values);
}

// The pool caches freed memory; a later allocation larger than what is free beside the cache must still
// succeed (the pool gives its cache back first). Uses most of the device's memory, so the sanitizer runs
// leave it out (`Huge`).
TEST_F(device_buffer_test, cached_memory_is_returned_when_an_allocation_needs_it_Huge)
{
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  const std::size_t first = free_bytes / 10 * 6;
  const std::size_t second = free_bytes / 10 * 8;  // fits only once the first one's memory is back
  {
    auto cached = warpdex::make_device_buffer<std::byte>(first);
    ASSERT_EQ(cudaMemsetAsync(cached.data(), 1, first, cached.stream()), cudaSuccess);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto large = warpdex::make_device_buffer<std::byte>(second);
  ASSERT_EQ(cudaMemsetAsync(large.data(), 2, second, large.stream()), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::byte last{};
  ASSERT_EQ(cudaMemcpy(&last, large.data() + second - 1, 1, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(last, std::byte{2});
}
TEST_F(device_buffer_test, device_resource_is_one_per_device)
{
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(warpdex::device_resource(), warpdex::device_resource(current));
  EXPECT_EQ(warpdex::device_resource()->kind(), memory_kind::device);
  int device_count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&device_count), cudaSuccess);
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::device_resource(device_count); },
                                          {"no CUDA device " + std::to_string(device_count)});
}

#endif  // WARPDEX_HAS_CUDA

}  // namespace
