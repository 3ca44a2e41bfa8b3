#pragma once
/// @file Bootstrapping a communicator of one process per GPU: the NCCL unique id that rank 0 creates
/// (communicator::make_unique_id) and every other rank must receive before it joins. Pass it with MPI
/// (MPI_Bcast of its bytes) when the processes have MPI, or through a file that every process can read (a
/// shared file system across nodes), with the helpers below.
///
/// Example (rank 0 writes, the others wait for the file):
/// @code
///   warpdex::distributed::unique_id id;
///   if (rank == 0) {
///     id = warpdex::distributed::communicator::make_unique_id();
///     warpdex::distributed::write_unique_id(path, id);
///   } else {
///     id = warpdex::distributed::read_unique_id(path, std::chrono::seconds(60));
///   }
///   warpdex::distributed::communicator ranks(rank_count, rank, id, /*device=*/local_gpu);
/// @endcode

#include <array>
#include <chrono>
#include <cstddef>
#include <string>

namespace warpdex::distributed {

/// The bytes of an `ncclUniqueId` (NCCL_UNIQUE_ID_BYTES, 128 in every NCCL 2.x), held without nccl.h so that
/// code which only passes the id around needs no NCCL headers.
struct unique_id {
  static constexpr std::size_t size = 128;
  std::array<char, size> bytes{};
};

/// Writes `id` to `path` so that no reader sees a partial file: into `path`.tmp, then renamed. Throws
/// warpdex::error when the file cannot be written.
void write_unique_id(const std::string& path, const unique_id& id);

/// Waits until `path` exists (polling every few milliseconds) and reads the id. Throws warpdex::error when it
/// does not appear within `timeout`, or holds anything but unique_id::size bytes.
[[nodiscard]] unique_id read_unique_id(const std::string& path, std::chrono::milliseconds timeout);

}  // namespace warpdex::distributed
