// The NCCL communicator (built with NCCL only): one rank bootstrapped from a unique id passed through a file,
// one process driving every visible GPU, and two processes of one GPU each (this executable starting itself
// as rank 1); in each, the distributed map, multisplit and sort checked. Cases that need more GPUs than are visible
// skip, saying how many they need.

#include "distributed/distributed_test_support.hpp"
#include "distributed/split_check.hpp"
#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"
#include "distributed_hash_workload.hpp"
#include "distributed_split_workload.hpp"

#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/memory_resource.hpp>

#include <warpdex/distributed/bootstrap.hpp>
#include <warpdex/distributed/communicator.hpp>
#include <warpdex/distributed/distributed_slab_map.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace warpdex::testing {
namespace {

using distributed::communicator;

// NVLink multicast (NVLS) stays off for every program of the project that runs NCCL (the GPU machines' setting,
// as in tools/gpu.sh); a value already in the environment is kept.
const bool nvls_off = ::setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0) == 0;

int visible_gpus()
{
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

class communicator_test : public cuda_test {
 protected:
  void require_gpus(int needed)
  {
    if (visible_gpus() < needed) { GTEST_SKIP() << "needs " << needed << " GPUs, " << visible_gpus() << " visible"; }
  }
};

TEST(communicator_arguments, BadRanksAndDeviceListsAreRejectedBeforeNcclRuns)
{
  expect_error_mentioning<error>([] { communicator(2, 2, distributed::unique_id{}, 0); }, {"rank 2 of 2 ranks"});
  expect_error_mentioning<error>([] { communicator(std::vector<int>{}); }, {"no GPUs listed"});
  expect_error_mentioning<error>([] { communicator(std::vector<int>{0, 0}); }, {"listed twice"});
}

/// The collectives of `group`: an all-reduce and an all-gather of counts, and an all-to-all in which rank r
/// sends peer p the words r * 1000 + p, p + 1 times.
void check_collectives(communicator& group)
{
  const std::uint32_t ranks = group.rank_count();
  std::vector<std::vector<std::uint64_t>> contributions;
  for (std::uint32_t local = 0; local < group.local_count(); ++local) {
    contributions.push_back({group.rank(local) + 1ULL, 7});
  }
  EXPECT_EQ(group.all_reduce_sum(contributions),
            (std::vector<std::uint64_t>{ranks * (ranks + 1ULL) / 2, 7ULL * ranks}));
  std::vector<std::uint64_t> gathered_expected;
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    gathered_expected.insert(gathered_expected.end(), {rank + 1ULL, 7});
  }
  EXPECT_EQ(group.all_gather(contributions), gathered_expected);

  std::vector<distributed::exchange_layout> layouts(group.local_count());
  std::vector<std::vector<std::uint32_t>> sent(group.local_count());
  for (std::uint32_t local = 0; local < group.local_count(); ++local) {
    const std::uint32_t rank = group.rank(local);
    std::vector<std::uint64_t> row;
    for (std::uint32_t sender = 0; sender < ranks; ++sender) {
      for (std::uint32_t peer = 0; peer < ranks; ++peer) { row.push_back(peer + 1); }
    }
    layouts[local] = distributed::layout_of_rank(rank, ranks, row, ranks);
    for (std::uint32_t peer = 0; peer < ranks; ++peer) {
      sent[local].insert(sent[local].end(), peer + 1, rank * 1000 + peer);
    }
  }
  per_rank_buffers<std::uint32_t, communicator> send(group, sent);
  std::vector<std::size_t> receive_sizes;
  for (const auto& layout : layouts) { receive_sizes.push_back(layout.total_received()); }
  per_rank_buffers<std::uint32_t, communicator> receive(group, receive_sizes, poison_value);
  std::vector<distributed::all_to_all_buffers> buffers;
  for (std::uint32_t local = 0; local < group.local_count(); ++local) {
    buffers.push_back({send.in()[local].data(), receive.out()[local].data(), &layouts[local]});
  }
  group.all_to_all(buffers, sizeof(std::uint32_t));
  group.synchronize();
  const auto received = receive.read(group);
  for (std::uint32_t local = 0; local < group.local_count(); ++local) {
    const std::uint32_t rank = group.rank(local);
    std::vector<std::uint32_t> expected;
    for (std::uint32_t sender = 0; sender < ranks; ++sender) {
      expected.insert(expected.end(), rank + 1, sender * 1000 + rank);
    }
    EXPECT_EQ(received[local], expected) << "rank " << rank;
  }
}

TEST_F(communicator_test, OneRankFromAUniqueIdPassedThroughAFile)
{
  const std::string path = (std::filesystem::temp_directory_path() / "warpdex_communicator_test_id").string();
  std::filesystem::remove(path);
  distributed::write_unique_id(path, communicator::make_unique_id());
  const auto id = distributed::read_unique_id(path, std::chrono::seconds(5));
  std::filesystem::remove(path);
  ASSERT_TRUE(nvls_off);
  communicator group(1, 0, id, 0);
  EXPECT_EQ(group.rank_count(), 1U);
  EXPECT_EQ(group.local_count(), 1U);
  EXPECT_GE(communicator::nccl_version(), 21800);
  check_collectives(group);
  run_checked_workload(group, 3);
  run_checked_split_and_sort(group, 3);
}

TEST_F(communicator_test, OneProcessDrivingEveryVisibleGpu)
{
  communicator group(communicator::visible_devices());
  EXPECT_EQ(group.local_count(), static_cast<std::uint32_t>(visible_gpus()));
  check_collectives(group);
  run_checked_workload(group, 5);
  run_checked_workload(group, std::random_device{}(), 20000);
  run_checked_split_and_sort(group, 5);
  run_checked_split_and_sort(group, std::random_device{}(), 200000);
}

TEST_F(communicator_test, OneProcessDrivingTwoGpus)
{
  require_gpus(2);
  if (IsSkipped()) { return; }
  communicator group(communicator::visible_devices(2));
  // Both ways of the all-to-all: copies between the GPUs (where peer access joins them) and NCCL's send / receive.
  EXPECT_EQ(group.exchanges_by_copies(), group.can_exchange_by_copies());
  check_collectives(group);
  run_checked_workload(group, 9, 50000);
  run_checked_split_and_sort(group, 9, 100000);
  group.exchange_by_copies(false);
  EXPECT_FALSE(group.exchanges_by_copies());
  check_collectives(group);
  run_checked_workload(group, 10, 50000);
  run_checked_split_and_sort(group, 10, 100000);
}

TEST_F(communicator_test, CopiesBetweenTwoGpusPoolsWithAndWithoutPeerAccess)
{
  require_gpus(2);
  if (IsSkipped()) { return; }
  constexpr std::size_t count = (std::size_t{1} << 24) + 12345;  // more than one staging chunk
  std::vector<std::uint32_t> words(count);
  for (std::size_t i = 0; i < count; ++i) { words[i] = static_cast<std::uint32_t>(i * 2654435761U); }
  const auto copy_from_gpu1_to_gpu0 = [&] {
    buffer<std::uint32_t> source;
    {
      WARPDEX_CUDA_TRY(cudaSetDevice(1));
      source = make_buffer<std::uint32_t>(cuda{}, count);  // GPU 1's pool
      source.copy_from(words);
      WARPDEX_CUDA_TRY(cudaDeviceSynchronize());
    }
    WARPDEX_CUDA_TRY(cudaSetDevice(0));
    auto destination = make_buffer<std::uint32_t>(cuda{}, count);
    destination.copy_from(std::vector<std::uint32_t>(count, poison_value));
    copy_between_devices(destination.data(), 0, source.data(), 1, count * sizeof(std::uint32_t), nullptr);
    EXPECT_EQ(destination.to_vector(), words);
    WARPDEX_CUDA_TRY(cudaSetDevice(1));
    source = {};
    WARPDEX_CUDA_TRY(cudaSetDevice(0));
  };
  // Through host memory while the GPUs are not joined (when no earlier case of this process joined them).
  if (!peer_access_enabled(0, 1)) { copy_from_gpu1_to_gpu0(); }
  const std::size_t unreachable = enable_peer_access({0, 1});
  EXPECT_EQ(peer_access_enabled(0, 1), unreachable == 0) << unreachable << " pairs cannot be joined";
  copy_from_gpu1_to_gpu0();
  EXPECT_EQ(enable_peer_access({0, 1}), unreachable);  // idempotent
}

/// Insertions without statuses (keys and values split together) and finds, on every visible GPU, with the buckets
/// travelling while each owner inserts its own (the default where copies exchange them) and with phases measured
/// (no overlap): nothing lost, every value its key's.
TEST_F(communicator_test, InsertsWithoutStatusesLoseNothingWithAndWithoutOverlap)
{
  communicator group(communicator::visible_devices());
  const std::uint32_t ranks = group.rank_count();
  for (const bool measured : {false, true}) {
    distributed::distributed_slab_map<communicator> map(group, 200000);
    map.measure_phases(measured);
    std::vector<std::vector<std::uint32_t>> keys(ranks), values(ranks);
    for (std::uint32_t rank = 0; rank < ranks; ++rank) {
      for (std::uint32_t i = 0; i < 50000; ++i) {
        keys[rank].push_back((i * ranks + rank) * 2654435761U % 0xfffffff0U);  // distinct over all ranks
        values[rank].push_back(keys[rank].back() ^ 0x5a5a5a5aU);
      }
    }
    per_rank_buffers<std::uint32_t, communicator> key_buffers(group, keys);
    per_rank_buffers<std::uint32_t, communicator> value_buffers(group, values);
    map.insert(key_buffers.in(), value_buffers.in());
    EXPECT_EQ(map.size(), 50000ULL * ranks) << (measured ? "measured" : "overlapped");
    per_rank_buffers<std::uint32_t, communicator> found(group, sizes_of(keys), poison_value);
    per_rank_buffers<hash::operation_status, communicator> statuses(group, sizes_of(keys),
                                                                    hash::operation_status::out_of_memory);
    map.find(key_buffers.in(), found.out(), statuses.out());
    const auto found_values = found.read(group);
    const auto found_statuses = statuses.read(group);
    for (std::uint32_t rank = 0; rank < ranks; ++rank) {
      for (std::size_t i = 0; i < keys[rank].size(); ++i) {
        ASSERT_EQ(found_statuses[rank][i], hash::operation_status::found) << "key " << keys[rank][i] << " lost";
        ASSERT_EQ(found_values[rank][i], values[rank][i]) << "key " << keys[rank][i];
      }
    }
  }
}

/// What `warpdex hash --gpus N` and `warpdex split --gpus N` run (their keys generated on the first GPU, each GPU's
/// slice copied to it), at a small size on every visible GPU: each checks itself against one GPU.
TEST_F(communicator_test, TheCommandsWorkloadsOnEveryVisibleGpu)
{
  communicator group(communicator::visible_devices());
  const timing_options once{0, 1};
  distributed::sharded_hash_options hash_options;
  hash_options.keys = 300001;
  hash_options.timing = once;
  const auto hashed = distributed::measure_sharded_hash(group, hash_options);
  EXPECT_TRUE(hashed.passed) << hashed.check;
  EXPECT_TRUE(hashed.all_to_all_verified);
  EXPECT_EQ(hashed.copies_all_to_all_verified, group.can_exchange_by_copies());
  EXPECT_EQ(hashed.keys_per_gpu.size(), group.rank_count());
  distributed::split_workload_options split_options;
  split_options.keys = 400003;
  split_options.timing = once;
  const auto split = distributed::measure_distributed_split(group, split_options);
  EXPECT_TRUE(split.multisplit.passed && split.sort.passed) << split.check;
}

/// Rank 1 of OneProcessPerGpuOverAFile, when this executable is started as it (the environment says so).
constexpr const char* rank_variable = "WARPDEX_COMMUNICATOR_TEST_RANK";
constexpr const char* id_file_variable = "WARPDEX_COMMUNICATOR_TEST_ID_FILE";

TEST_F(communicator_test, OneProcessPerGpuOverAFile)
{
  require_gpus(2);
  if (IsSkipped()) { return; }
  const char* given_rank = std::getenv(rank_variable);
  const std::uint32_t rank = given_rank != nullptr ? static_cast<std::uint32_t>(std::atoi(given_rank)) : 0;
  std::string path;
  pid_t peer = 0;
  if (rank == 0) {
    path = (std::filesystem::temp_directory_path() / ("warpdex_id_" + std::to_string(::getpid()))).string();
    std::filesystem::remove(path);
    // Rank 1: this executable, this test alone, told its rank and the file.
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string filter = "--gtest_filter=communicator_test.OneProcessPerGpuOverAFile";
    std::vector<std::string> environment{std::string(rank_variable) + "=1", std::string(id_file_variable) + "=" + path};
    for (char** variable = environ; *variable != nullptr; ++variable) { environment.emplace_back(*variable); }
    std::vector<char*> arguments{const_cast<char*>(self.c_str()), const_cast<char*>(filter.c_str()), nullptr};
    std::vector<char*> variables;
    for (auto& variable : environment) { variables.push_back(variable.data()); }
    variables.push_back(nullptr);
    ASSERT_EQ(posix_spawn(&peer, self.c_str(), nullptr, nullptr, arguments.data(), variables.data()), 0);
    distributed::write_unique_id(path, communicator::make_unique_id());
  } else {
    path = std::getenv(id_file_variable);
  }
  {
    communicator group(2, rank, distributed::read_unique_id(path, std::chrono::seconds(60)), static_cast<int>(rank));
    check_collectives(group);
    run_checked_workload(group, 13, 30000);
    run_checked_split_and_sort(group, 13, 30000);
  }
  if (rank == 0) {
    int status = 0;
    ASSERT_EQ(waitpid(peer, &status, 0), peer);
    std::filesystem::remove(path);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "rank 1 failed (its output is above)";
  }
}

}  // namespace
}  // namespace warpdex::testing
