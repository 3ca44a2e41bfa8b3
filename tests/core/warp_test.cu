// warp.cuh's helpers in tiny kernels: every thread reports what it saw, and the host checks each lane
// against the definition of the intrinsic.
#include "support/backend_fixture.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/warp.cuh>

#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

namespace warp = warpdex::warp;
using warpdex::testing::make_buffer_from;

static_assert(warp::size == 32 && warp::full_mask == 0xffffffffU);

// Three warps per block, so warp_in_block and global_warp_id differ from each other; four blocks.
constexpr unsigned lanes = warp::size;
constexpr unsigned warps_per_block = 3;
constexpr unsigned block_count = 4;
constexpr unsigned threads_per_block = warps_per_block * lanes;
constexpr unsigned warp_count = warps_per_block * block_count;
constexpr unsigned thread_count = threads_per_block * block_count;

/// A device output of one `Result` per thread, filled with a byte pattern so unwritten lanes show.
template <class Result>
warpdex::buffer<Result> make_poisoned_output()
{
  auto out = warpdex::make_device_buffer<Result>(thread_count);
  WARPDEX_CUDA_TRY(cudaMemset(out.data(), 0xa5, out.size_bytes()));
  return out;
}

__device__ unsigned thread_index()
{
  return blockIdx.x * blockDim.x + threadIdx.x;
}

unsigned lanes_below(unsigned lane)
{
  return (1U << lane) - 1U;
}  // lane < 32

struct lane_identity {
  unsigned lane;
  unsigned warp_in_block;
  std::uint64_t global_warp;
  unsigned lanemask_lt;
  unsigned lanemask_le;
  unsigned lanemask_gt;
  unsigned lanemask_ge;
};

__global__ void report_lane_identity(lane_identity* out)
{
  out[thread_index()] = {warp::lane_id(),     warp::warp_in_block(), warp::global_warp_id(), warp::lanemask_lt(),
                         warp::lanemask_le(), warp::lanemask_gt(),   warp::lanemask_ge()};
}

class warp_test : public warpdex::testing::cuda_test {};

TEST_F(warp_test, lane_and_warp_indices_and_lane_masks)
{
  auto out = make_poisoned_output<lane_identity>();
  report_lane_identity<<<block_count, threads_per_block>>>(out.data());
  WARPDEX_CHECK_LAUNCH("report_lane_identity");
  const std::vector<lane_identity> reports = out.to_vector();
  for (unsigned thread = 0; thread < thread_count; ++thread) {
    SCOPED_TRACE("thread " + std::to_string(thread));
    const lane_identity& seen = reports[thread];
    const unsigned lane = thread % lanes;
    ASSERT_EQ(seen.lane, lane);
    ASSERT_EQ(seen.warp_in_block, (thread % threads_per_block) / lanes);
    ASSERT_EQ(seen.global_warp, thread / lanes);
    ASSERT_EQ(seen.lanemask_lt, lanes_below(lane));
    ASSERT_EQ(seen.lanemask_le, lanes_below(lane) | (1U << lane));
    ASSERT_EQ(seen.lanemask_gt, ~(lanes_below(lane) | (1U << lane)));
    ASSERT_EQ(seen.lanemask_ge, ~lanes_below(lane));
  }
}

struct vote_report {
  unsigned ballot;
  int rank;
  int any;
  int all;
  unsigned even_lanes_ballot;  // a ballot among the even lanes only; odd lanes leave it 0
};

/// Lane l of warp w votes bit l of patterns[w].
__global__ void report_votes(const unsigned* patterns, vote_report* out)
{
  const unsigned lane = warp::lane_id();
  const bool predicate = ((patterns[thread_index() / lanes] >> lane) & 1U) != 0;
  const unsigned ballot = warp::ballot(predicate);
  constexpr unsigned even_lanes = 0x55555555U;
  const unsigned even_lanes_ballot = lane % 2 == 0 ? warp::ballot(predicate, even_lanes) : 0U;
  out[thread_index()] = {ballot, warp::rank_in(ballot), warp::any(predicate), warp::all(predicate), even_lanes_ballot};
}

TEST_F(warp_test, ballot_rank_any_all)
{
  std::vector<unsigned> patterns = {0U, 0xffffffffU, 1U, 0x80000000U, 0x0000ffffU, 0xfffffffeU};
  std::mt19937 random(61);
  while (patterns.size() < warp_count) { patterns.push_back(static_cast<unsigned>(random())); }
  const auto device_patterns = make_buffer_from<unsigned>(warpdex::cuda{}, patterns);
  auto out = make_poisoned_output<vote_report>();
  report_votes<<<block_count, threads_per_block>>>(device_patterns.data(), out.data());
  WARPDEX_CHECK_LAUNCH("report_votes");
  const std::vector<vote_report> reports = out.to_vector();
  for (unsigned thread = 0; thread < thread_count; ++thread) {
    const unsigned pattern = patterns[thread / lanes];
    const unsigned lane = thread % lanes;
    SCOPED_TRACE("thread " + std::to_string(thread) + ", votes " + std::to_string(pattern));
    const vote_report& seen = reports[thread];
    ASSERT_EQ(seen.ballot, pattern);
    ASSERT_EQ(seen.rank, std::popcount(pattern & lanes_below(lane)));
    ASSERT_EQ(seen.any, pattern != 0U ? 1 : 0);
    ASSERT_EQ(seen.all, pattern == 0xffffffffU ? 1 : 0);
    ASSERT_EQ(seen.even_lanes_ballot, lane % 2 == 0 ? pattern & 0x55555555U : 0U);
  }
}

template <class T>
struct shuffle_report {
  T from_source_lane;
  T up;
  T down;
  T butterfly;
  T segment_broadcast;  // width 8: lane 2 of each group of 8
  T segment_up;         // width 8, delta 1
  T segment_down;       // width 16, delta 2
};

template <class T>
__global__ void report_shuffles(const T* values, const int* source_lanes, shuffle_report<T>* out)
{
  const T value = values[thread_index()];
  out[thread_index()] = {warp::shfl(value, source_lanes[thread_index()]),
                         warp::shfl_up(value, 3),
                         warp::shfl_down(value, 5),
                         warp::shfl_xor(value, 6),
                         warp::shfl(value, 2, 8),
                         warp::shfl_up(value, 1, 8),
                         warp::shfl_down(value, 2, 16)};
}

template <class T>
void expect_shuffles_move_values(std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  std::vector<T> values(thread_count);
  std::vector<int> source_lanes(thread_count);
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<T>(random());
    source_lanes[i] = static_cast<int>(random() % lanes);
  }
  const auto device_values = make_buffer_from<T>(warpdex::cuda{}, values);
  const auto device_source_lanes = make_buffer_from<int>(warpdex::cuda{}, source_lanes);
  auto out = make_poisoned_output<shuffle_report<T>>();
  report_shuffles<<<block_count, threads_per_block>>>(device_values.data(), device_source_lanes.data(), out.data());
  WARPDEX_CHECK_LAUNCH("report_shuffles");
  const std::vector<shuffle_report<T>> reports = out.to_vector();

  for (unsigned thread = 0; thread < thread_count; ++thread) {
    SCOPED_TRACE("thread " + std::to_string(thread));
    const unsigned lane = thread % lanes;
    const unsigned warp_start = thread - lane;
    // The value of `other_lane` of this warp, or this lane's own when the intrinsic leaves it in place.
    const auto value_of = [&](unsigned other_lane) { return values[warp_start + other_lane]; };
    const shuffle_report<T>& seen = reports[thread];
    ASSERT_EQ(seen.from_source_lane, value_of(source_lanes[thread]));
    ASSERT_EQ(seen.up, value_of(lane >= 3 ? lane - 3 : lane));
    ASSERT_EQ(seen.down, value_of(lane + 5 < lanes ? lane + 5 : lane));
    ASSERT_EQ(seen.butterfly, value_of(lane ^ 6U));
    ASSERT_EQ(seen.segment_broadcast, value_of((lane & ~7U) + 2));
    ASSERT_EQ(seen.segment_up, value_of(lane % 8 >= 1 ? lane - 1 : lane));
    ASSERT_EQ(seen.segment_down, value_of(lane % 16 + 2 < 16 ? lane + 2 : lane));
  }
}

TEST_F(warp_test, shuffles_of_32_bit_values)
{
  expect_shuffles_move_values<std::uint32_t>(71);
}
TEST_F(warp_test, shuffles_of_64_bit_values)
{
  expect_shuffles_move_values<std::uint64_t>(72);
}
TEST_F(warp_test, shuffles_of_doubles)
{
  expect_shuffles_move_values<double>(73);
}

template <class T>
__global__ void report_matches(const T* values, unsigned* out)
{
  out[thread_index()] = warp::match_any(values[thread_index()]);
}

/// Values from a few classes per warp; `class_stride` spaces the classes so that 64-bit values differ
/// only in their upper half.
template <class T>
void expect_match_any_groups_equal_values(T class_stride, std::uint64_t seed)
{
  std::mt19937 random(static_cast<unsigned>(seed));
  std::vector<T> values(thread_count);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const unsigned classes = 1U + static_cast<unsigned>(i / lanes) % 5;  // 1 to 5 classes in a warp
    values[i] = static_cast<T>(random() % classes) * class_stride;
  }
  const auto device_values = make_buffer_from<T>(warpdex::cuda{}, values);
  auto out = make_poisoned_output<unsigned>();
  report_matches<<<block_count, threads_per_block>>>(device_values.data(), out.data());
  WARPDEX_CHECK_LAUNCH("report_matches");
  const std::vector<unsigned> masks = out.to_vector();

  for (unsigned thread = 0; thread < thread_count; ++thread) {
    const unsigned warp_start = thread - thread % lanes;
    unsigned expected = 0;
    for (unsigned lane = 0; lane < lanes; ++lane) {
      expected |= values[warp_start + lane] == values[thread] ? 1U << lane : 0U;
    }
    ASSERT_EQ(masks[thread], expected) << "thread " << thread;
  }
}

TEST_F(warp_test, match_any_groups_lanes_with_equal_values)
{
  expect_match_any_groups_equal_values<std::uint32_t>(1U, 81);
  expect_match_any_groups_equal_values<std::uint64_t>(1ULL << 40, 82);
}

struct bit_count_report {
  int popc;
  int ffs;
};

__global__ void report_bit_counts(const unsigned* words, bit_count_report* out)
{
  const unsigned word = words[thread_index()];
  out[thread_index()] = {warp::popc(word), warp::ffs(word)};
}

TEST_F(warp_test, popc_and_ffs)
{
  std::vector<unsigned> words = {0U, 1U, 2U, 0x80000000U, 0xffffffffU, 0x00010000U, 0xf0f0f0f0U};
  std::mt19937 random(91);
  while (words.size() < thread_count) {
    const unsigned sparsity = random() % 32;  // also words with many leading zeros
    words.push_back(static_cast<unsigned>(random()) >> sparsity);
  }
  const auto device_words = make_buffer_from<unsigned>(warpdex::cuda{}, words);
  auto out = make_poisoned_output<bit_count_report>();
  report_bit_counts<<<block_count, threads_per_block>>>(device_words.data(), out.data());
  WARPDEX_CHECK_LAUNCH("report_bit_counts");
  const std::vector<bit_count_report> reports = out.to_vector();
  for (std::size_t i = 0; i < words.size(); ++i) {
    SCOPED_TRACE("word " + std::to_string(words[i]));
    ASSERT_EQ(reports[i].popc, std::popcount(words[i]));
    ASSERT_EQ(reports[i].ffs, words[i] == 0 ? 0 : std::countr_zero(words[i]) + 1);
  }
}

}  // namespace
