// Choosing a backend and describing the GPU: the answers differ with and without a device, and each
// case is checked on the machine where it applies (skipped, visibly, elsewhere).
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <warpdex/core/backend.hpp>
#include <warpdex/core/error.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace {

using warpdex::backend_choice;
using warpdex::testing::expect_error_mentioning;

TEST(parse_backend_choice, accepts_the_three_names)
{
  EXPECT_EQ(warpdex::parse_backend_choice("auto"), backend_choice::automatic);
  EXPECT_EQ(warpdex::parse_backend_choice("cuda"), backend_choice::cuda);
  EXPECT_EQ(warpdex::parse_backend_choice("host"), backend_choice::host);
}

TEST(parse_backend_choice, rejects_anything_else_naming_the_choices)
{
  for (const std::string_view text : {"", "CUDA", "gpu", "host ", "automatic", "cpu"}) {
    expect_error_mentioning<warpdex::error>([&] { (void)warpdex::parse_backend_choice(text); },
                                            {"unknown backend '" + std::string(text) + "'", "auto, cuda or host"});
  }
}

TEST(resolve_backend, keeps_host)
{
  EXPECT_EQ(warpdex::resolve_backend(backend_choice::host), backend_choice::host);
}

TEST(resolve_backend, automatic_picks_cuda_exactly_when_a_device_is_available)
{
  const bool available = warpdex::cuda_device_available();
  EXPECT_EQ(warpdex::resolve_backend(backend_choice::automatic),
            available ? backend_choice::cuda : backend_choice::host);
}

TEST(resolve_backend, explicit_cuda_without_a_device_says_why_and_what_to_do)
{
  std::string reason;
  if (warpdex::cuda_device_available(&reason)) { GTEST_SKIP() << "a CUDA device is available"; }
  expect_error_mentioning<warpdex::error>([] { (void)warpdex::resolve_backend(backend_choice::cuda); },
                                          {"cuda backend was requested", reason, "--backend host"});
}

TEST(cuda_device_available, gives_a_reason_when_it_says_no)
{
  std::string reason;
  const bool available = warpdex::cuda_device_available(&reason);
  EXPECT_EQ(warpdex::cuda_device_available(nullptr), available);
  if (available) {
    EXPECT_TRUE(reason.empty()) << reason;
  } else {
    EXPECT_FALSE(reason.empty());
  }
#if !WARPDEX_HAS_CUDA
  EXPECT_FALSE(available);
  EXPECT_NE(reason.find("without its CUDA backend"), std::string::npos) << reason;
#endif
}

TEST(query_device, fails_without_a_device)
{
  if (warpdex::cuda_device_available()) { GTEST_SKIP() << "a CUDA device is available"; }
  EXPECT_THROW((void)warpdex::query_device(), warpdex::error);
}

class device_query_test : public warpdex::testing::cuda_test {};

TEST_F(device_query_test, explicit_cuda_is_kept)
{
  EXPECT_EQ(warpdex::resolve_backend(backend_choice::cuda), backend_choice::cuda);
}

TEST_F(device_query_test, describes_the_device_sensibly)
{
  const warpdex::device_info info = warpdex::query_device(0);
  EXPECT_EQ(info.id, 0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.compute_capability_major, 7) << "warp.cuh's match_any needs sm_70 or newer";
  EXPECT_GE(info.compute_capability_minor, 0);
  EXPECT_GT(info.multiprocessor_count, 0);
  EXPECT_GT(info.global_memory_bytes, std::size_t{1} << 30);
  EXPECT_GT(info.free_memory_bytes, 0U);
  EXPECT_LE(info.free_memory_bytes, info.global_memory_bytes);
  EXPECT_GT(info.l2_cache_bytes, 0U);
  EXPECT_GT(info.shared_memory_per_block_optin_bytes, std::size_t{48} << 10);
  EXPECT_GT(info.memory_bus_width_bits, 0);
}

TEST_F(device_query_test, rejects_devices_that_do_not_exist)
{
  EXPECT_THROW((void)warpdex::query_device(-1), warpdex::error);
  EXPECT_THROW((void)warpdex::query_device(1 << 20), warpdex::error);
}

}  // namespace
