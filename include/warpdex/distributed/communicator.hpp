#pragma once
/// @file `communicator`: a rank group (rank_group.hpp) over NCCL, the GPUs of one or several processes and
/// nodes. Built only with NCCL (`WARPDEX_HAS_NCCL`, CMake option WARPDEX_ENABLE_NCCL).
///
/// Two ways to make one:
/// - one process per GPU: rank 0 calls make_unique_id(), passes the id to every other process
///   (bootstrap.hpp: a shared file, or MPI), and each process constructs `communicator(ranks, rank, id, gpu)`,
///   which returns once every rank has joined (ncclCommInitRank);
/// - one process driving several GPUs: `communicator(std::vector<int>{0, 1})` (ncclCommInitAll), rank i
///   on the i-th listed GPU; the structures run each GPU's local steps on a thread of their own and issue the
///   collectives of all GPUs together (NCCL group calls).
///
/// Each local rank has its own CUDA stream (non-blocking), on which every collective and every step of the
/// distributed structures runs; `backend(local)` is `cuda{that stream}`. Collectives block until their results
/// are on the host (the counts) or ordered on the streams (all_to_all). A failed NCCL call throws
/// warpdex::error with NCCL's message and its last error text. NVLink multicast (NVLS) is not needed: the
/// project's scripts set NCCL_NVLS_ENABLE=0.

#include <warpdex/core/backend.hpp>
#include <warpdex/distributed/bootstrap.hpp>
#include <warpdex/distributed/rank_group.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

struct ncclComm;  // NCCL's communicator (ncclComm_t is ncclComm*), declared so this header needs no nccl.h

namespace warpdex::distributed {

class communicator {
 public:
  using backend_type = cuda;

  /// A new id for the ranks of one communicator to share (ncclGetUniqueId); rank 0 makes it.
  [[nodiscard]] static unique_id make_unique_id();

  /// This process's one rank `rank` of `ranks`, on GPU `device`, joining the others that hold the same `id`.
  /// Blocks until all `ranks` have joined. Throws warpdex::error for rank >= ranks, a device that does not
  /// exist, or NCCL's failure.
  communicator(std::uint32_t ranks, std::uint32_t rank, const unique_id& id, int device);

  /// Every GPU of `devices` (distinct, at least one) as the ranks 0 .. devices.size() - 1 of one
  /// communicator driven by this process (ncclCommInitAll).
  explicit communicator(const std::vector<int>& devices);

  /// Every GPU of this process (CUDA_VISIBLE_DEVICES), or the first `count` of them. Throws warpdex::error
  /// when fewer are visible.
  [[nodiscard]] static std::vector<int> visible_devices(int count = -1);

  ~communicator();
  communicator(const communicator&) = delete;
  communicator& operator=(const communicator&) = delete;
  communicator(communicator&&) = delete;
  communicator& operator=(communicator&&) = delete;

  [[nodiscard]] std::uint32_t rank_count() const { return ranks_; }
  [[nodiscard]] std::uint32_t local_count() const { return static_cast<std::uint32_t>(locals_.size()); }
  [[nodiscard]] std::uint32_t rank(std::uint32_t local) const { return locals_.at(local).rank; }
  [[nodiscard]] int device(std::uint32_t local) const { return locals_.at(local).device; }
  [[nodiscard]] cuda backend(std::uint32_t local) const { return cuda{locals_.at(local).stream}; }
  /// The NCCL version of the library loaded at run time (e.g. 22809 for 2.28.9, NCCL_VERSION_CODE's encoding).
  [[nodiscard]] static int nccl_version();

  /// Calls function(local) for every local rank with its GPU current, on a thread per GPU when there are
  /// several; waits for all, then rethrows the first exception.
  template <class Function>
  void for_each_local(Function&& function) const
  {
    run_on_local_devices(std::function<void(std::uint32_t)>(std::forward<Function>(function)));
  }

  /// Element-wise sum over the ranks of their contributions (uint64, ncclAllReduce); the same on every rank.
  [[nodiscard]] std::vector<std::uint64_t> all_reduce_sum(
      const std::vector<std::vector<std::uint64_t>>& contributions) const;
  /// Every rank's contribution, rank after rank (ncclAllGather).
  [[nodiscard]] std::vector<std::uint64_t> all_gather(
      const std::vector<std::vector<std::uint64_t>>& contributions) const;
  /// The variable-size all-to-all: one group of ncclSend / ncclRecv per peer with data (a rank's own bucket
  /// is a device copy), or copies between the GPUs where `exchanges_by_copies()`; ordered on each local rank's
  /// stream either way.
  void all_to_all(std::span<const all_to_all_buffers> buffers, std::size_t element_bytes) const;
  /// Waits for every local rank's stream.
  void synchronize() const;

  /// How all_to_all moves the buckets when this process holds every rank and every pair of its GPUs reaches the
  /// other's memory (`can_exchange_by_copies`): by copies between the GPUs' memories, each receiver's stream pulling
  /// its buckets (true, the default there: they move at the link's speed, where NCCL's send / receive kernels
  /// reached about half of it on two NVLink-joined H200s), or through NCCL (false). Ignored elsewhere.
  void exchange_by_copies(bool enabled) { copies_wanted_ = enabled; }
  /// Whether all_to_all copies between the GPUs now (the setting and the possibility).
  [[nodiscard]] bool exchanges_by_copies() const { return copies_wanted_ && copies_possible_; }
  /// Whether this process holds every rank and its GPUs reach each other's memory.
  [[nodiscard]] bool can_exchange_by_copies() const { return copies_possible_; }

  /// The all-to-all by copies in two halves, so that a rank can work on its own bucket while the others travel
  /// (only where `exchanges_by_copies()`): `begin_all_to_all_from_others` enqueues the copies of every bucket that
  /// comes from another rank on a side stream of each receiver, after the work already on the senders' streams, and
  /// returns; a rank's own bucket is not moved. `end_all_to_all` orders every rank's stream after the buckets it
  /// receives and after every read of its send buffer: until then a receive buffer's buckets from others may be
  /// incomplete, and no send buffer may be freed or rewritten. Several begins may precede one end.
  void begin_all_to_all_from_others(std::span<const all_to_all_buffers> buffers, std::size_t element_bytes) const;
  void end_all_to_all() const;

 private:
  struct local_rank {
    std::uint32_t rank = 0;
    int device = 0;
    stream_t stream = nullptr;
    ncclComm* comm = nullptr;
    stream_t side_stream = nullptr;  // the copies of begin_all_to_all_from_others (one process driving every GPU)
  };
  void run_on_local_devices(const std::function<void(std::uint32_t)>& function) const;
  /// Each local rank's bucket for itself, copied on its stream.
  void copy_own_buckets(std::span<const all_to_all_buffers> buffers, std::size_t element_bytes) const;
  void all_to_all_by_copies(std::span<const all_to_all_buffers> buffers, std::size_t element_bytes) const;
  [[nodiscard]] std::vector<std::uint64_t> collective(const std::vector<std::vector<std::uint64_t>>& contributions,
                                                      bool gather) const;

  std::uint32_t ranks_ = 0;
  std::vector<local_rank> locals_;
  bool copies_possible_ = false;
  bool copies_wanted_ = true;
  mutable std::vector<void*> pulled_;  // per local rank: cudaEvent_t after its side stream's copies, until the end
};

}  // namespace warpdex::distributed
