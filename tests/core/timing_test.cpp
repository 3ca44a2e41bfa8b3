// warpdex::median_ms: how many times it runs the work and the preparation, and what it rejects.
#include "support/expect_error.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/core/timing.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

TEST(MedianMs, RunsWarmupAndRepetitionsEachAfterItsPreparation)
{
  std::vector<char> calls;
  const double ms = warpdex::median_ms(
      warpdex::host{}, warpdex::timing_options{2, 5}, [&] { calls.push_back('w'); }, [&] { calls.push_back('p'); });
  EXPECT_GE(ms, 0.0);
  EXPECT_EQ(std::string(calls.begin(), calls.end()), "pwpwpwpwpwpwpw");
}

TEST(MedianMs, WithoutPreparationRunsTheWorkOnly)
{
  int runs = 0;
  (void)warpdex::median_ms(warpdex::host{}, warpdex::timing_options{0, 3}, [&] { ++runs; });
  EXPECT_EQ(runs, 3);
}

TEST(MedianMs, RejectsNoTimedRunsAndNegativeWarmup)
{
  using warpdex::testing::expect_error_mentioning;
  expect_error_mentioning<warpdex::error>(
      [] {
        (void)warpdex::median_ms(warpdex::host{}, warpdex::timing_options{1, 0}, [] {});
      },
      {"at least one timed run"});
  expect_error_mentioning<warpdex::error>(
      [] {
        (void)warpdex::median_ms(warpdex::host{}, warpdex::timing_options{-1, 3}, [] {});
      },
      {"warm-up runs cannot be negative"});
}

#if WARPDEX_HAS_CUDA
TEST(MedianMs, CudaRunsEveryRunAndTimesOnTheStream)
{
  std::string reason;
  if (!warpdex::cuda_device_available(&reason)) { GTEST_SKIP() << "no CUDA device: " << reason; }
  int prepared = 0;
  int runs = 0;
  const double ms = warpdex::median_ms(
      warpdex::cuda{}, warpdex::timing_options{1, 4}, [&] { ++runs; }, [&] { ++prepared; });
  EXPECT_GE(ms, 0.0);
  EXPECT_EQ(runs, 5);
  EXPECT_EQ(prepared, 5);
}
#endif

}  // namespace
