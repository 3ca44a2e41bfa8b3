// The NCCL rank group (communicator.hpp).

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/device_scope.hpp>
#include <warpdex/core/memory_resource.hpp>
#include <warpdex/distributed/communicator.hpp>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <set>
#include <string>
#include <thread>

namespace warpdex::distributed {

static_assert(unique_id::size == NCCL_UNIQUE_ID_BYTES, "unique_id must hold exactly an ncclUniqueId");

namespace {

[[noreturn]] void throw_nccl_error(ncclResult_t status, const char* what, ncclComm_t comm, const char* file, int line)
{
  std::string message = std::string("NCCL error in ") + what + ": " + ncclGetErrorString(status);
  const char* detail = ncclGetLastError(comm);
  if (detail != nullptr && detail[0] != '\0') { message += std::string(": ") + detail; }
  if (status == ncclSystemError || status == ncclRemoteError) {
    message += " (a peer failed or a connection broke; NCCL_DEBUG=WARN says more)";
  }
  throw error(message, std::string(file) + ":" + std::to_string(line));
}

#define WARPDEX_NCCL_TRY(call, comm)                                             \
  do {                                                                           \
    const ncclResult_t warpdex_nccl_status_ = (call);                            \
    if (warpdex_nccl_status_ != ncclSuccess) {                                   \
      throw_nccl_error(warpdex_nccl_status_, #call, (comm), __FILE__, __LINE__); \
    }                                                                            \
  } while (0)

using warpdex::detail::device_scope;

/// Ends an NCCL group when it goes out of scope, also when a call inside it threw.
class nccl_group {
 public:
  nccl_group() { WARPDEX_NCCL_TRY(ncclGroupStart(), nullptr); }
  ~nccl_group() noexcept(false)
  {
    const ncclResult_t status = ncclGroupEnd();
    if (status != ncclSuccess && std::uncaught_exceptions() == 0) {
      throw_nccl_error(status, "ncclGroupEnd()", nullptr, __FILE__, __LINE__);
    }
  }
  nccl_group(const nccl_group&) = delete;
  nccl_group& operator=(const nccl_group&) = delete;
};

stream_t make_stream()
{
  cudaStream_t stream = nullptr;
  WARPDEX_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream;
}

}  // namespace

unique_id communicator::make_unique_id()
{
  ncclUniqueId id;
  WARPDEX_NCCL_TRY(ncclGetUniqueId(&id), nullptr);
  unique_id result;
  std::memcpy(result.bytes.data(), id.internal, unique_id::size);
  return result;
}

int communicator::nccl_version()
{
  int version = 0;
  WARPDEX_NCCL_TRY(ncclGetVersion(&version), nullptr);
  return version;
}

std::vector<int> communicator::visible_devices(int count)
{
  int visible = 0;
  WARPDEX_CUDA_TRY(cudaGetDeviceCount(&visible));
  if (count < 0) { count = visible; }
  WARPDEX_EXPECTS(count >= 1 && count <= visible, "communicator: " + std::to_string(count) + " GPUs asked for, " +
                                                      std::to_string(visible) + " visible (CUDA_VISIBLE_DEVICES)");
  std::vector<int> devices(static_cast<std::size_t>(count));
  for (int device = 0; device < count; ++device) { devices[static_cast<std::size_t>(device)] = device; }
  return devices;
}

communicator::communicator(std::uint32_t ranks, std::uint32_t rank, const unique_id& id, int device) : ranks_(ranks)
{
  WARPDEX_EXPECTS(ranks >= 1 && rank < ranks, "communicator: rank " + std::to_string(rank) + " of " +
                                                  std::to_string(ranks) + " ranks does not exist");
  int visible = 0;
  WARPDEX_CUDA_TRY(cudaGetDeviceCount(&visible));
  WARPDEX_EXPECTS(device >= 0 && device < visible, "communicator: GPU " + std::to_string(device) + " does not exist (" +
                                                       std::to_string(visible) + " visible)");
  const device_scope on(device);
  ncclUniqueId nccl_id;
  std::memcpy(nccl_id.internal, id.bytes.data(), unique_id::size);
  local_rank local{rank, device, make_stream(), nullptr};
  const ncclResult_t status = ncclCommInitRank(&local.comm, static_cast<int>(ranks), nccl_id, static_cast<int>(rank));
  if (status != ncclSuccess) {
    (void)cudaStreamDestroy(local.stream);
    throw_nccl_error(status, "ncclCommInitRank", nullptr, __FILE__, __LINE__);
  }
  locals_.push_back(local);
}

communicator::communicator(const std::vector<int>& devices) : ranks_(static_cast<std::uint32_t>(devices.size()))
{
  WARPDEX_EXPECTS(!devices.empty(), "communicator: no GPUs listed");
  WARPDEX_EXPECTS(std::set<int>(devices.begin(), devices.end()).size() == devices.size(),
                  "communicator: a GPU is listed twice (one rank per GPU)");
  int visible = 0;
  WARPDEX_CUDA_TRY(cudaGetDeviceCount(&visible));
  for (const int device : devices) {
    WARPDEX_EXPECTS(device >= 0 && device < visible, "communicator: GPU " + std::to_string(device) +
                                                         " does not exist (" + std::to_string(visible) + " visible)");
  }
  std::vector<stream_t> streams;
  const auto destroy_streams = [&] {
    for (std::size_t i = 0; i < streams.size(); ++i) {
      if (cudaSetDevice(devices[i]) == cudaSuccess) { (void)cudaStreamDestroy(streams[i]); }
    }
  };
  try {
    for (const int device : devices) {
      const device_scope on(device);
      streams.push_back(make_stream());
    }
  } catch (...) {
    destroy_streams();
    throw;
  }
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  const ncclResult_t status = ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data());
  if (status != ncclSuccess) {
    destroy_streams();
    throw_nccl_error(status, "ncclCommInitAll", nullptr, __FILE__, __LINE__);
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    locals_.push_back({static_cast<std::uint32_t>(i), devices[i], streams[i], comms[i]});
  }
  for (auto& local : locals_) {
    const device_scope on(local.device);
    local.side_stream = make_stream();
  }
  // One process's GPUs reach each other's memory (their pools' included) where the hardware allows: copies
  // between them, as the workloads make from the first GPU's keys, need it.
  copies_possible_ = enable_peer_access(devices) == 0;
}

communicator::~communicator()
{
  int previous = 0;
  (void)cudaGetDevice(&previous);
  for (auto& local : locals_) {
    if (cudaSetDevice(local.device) == cudaSuccess && local.stream != nullptr) {
      (void)cudaStreamSynchronize(local.stream);
      if (local.side_stream != nullptr) { (void)cudaStreamSynchronize(local.side_stream); }
    }
  }
  for (std::size_t local = 0; local < pulled_.size(); ++local) {
    if (pulled_[local] != nullptr && cudaSetDevice(locals_[local].device) == cudaSuccess) {
      (void)cudaEventDestroy(static_cast<cudaEvent_t>(pulled_[local]));
    }
  }
  // Finalizing synchronizes the ranks of a communicator: one thread holding several of them finalizes them in one
  // group, else the first would wait for the others forever. Then each is destroyed, and its stream.
  (void)ncclGroupStart();
  for (auto& local : locals_) {
    if (local.comm != nullptr) { (void)ncclCommFinalize(local.comm); }
  }
  (void)ncclGroupEnd();
  for (auto& local : locals_) {
    if (cudaSetDevice(local.device) != cudaSuccess) { continue; }
    if (local.comm != nullptr) { (void)ncclCommDestroy(local.comm); }
    if (local.stream != nullptr) { (void)cudaStreamDestroy(local.stream); }
    if (local.side_stream != nullptr) { (void)cudaStreamDestroy(local.side_stream); }
  }
  locals_.clear();
  (void)cudaSetDevice(previous);
}

void communicator::run_on_local_devices(const std::function<void(std::uint32_t)>& function) const
{
  if (locals_.size() == 1) {
    const device_scope on(locals_.front().device);
    function(0);
    return;
  }
  std::vector<std::exception_ptr> failures(locals_.size());
  std::vector<std::thread> threads;
  threads.reserve(locals_.size());
  for (std::uint32_t local = 0; local < locals_.size(); ++local) {
    threads.emplace_back([&, local] {
      try {
        WARPDEX_CUDA_TRY(cudaSetDevice(locals_[local].device));
        function(local);
      } catch (...) {
        failures[local] = std::current_exception();
      }
    });
  }
  for (auto& thread : threads) { thread.join(); }
  for (const auto& failure : failures) {
    if (failure) { std::rethrow_exception(failure); }
  }
}

std::vector<std::uint64_t> communicator::collective(const std::vector<std::vector<std::uint64_t>>& contributions,
                                                    bool gather) const
{
  const char* name = gather ? "communicator::all_gather" : "communicator::all_reduce_sum";
  detail::check_contributions(contributions, local_count(), name);
  const std::size_t length = contributions.front().size();
  const std::size_t result_length = gather ? length * ranks_ : length;
  std::vector<std::uint64_t> result(result_length, 0);
  if (result_length == 0) { return result; }
  std::vector<buffer<std::uint64_t>> sent;
  std::vector<buffer<std::uint64_t>> received;
  for (std::uint32_t local = 0; local < local_count(); ++local) {
    const device_scope on(locals_[local].device);
    sent.push_back(make_buffer<std::uint64_t>(backend(local), length));
    received.push_back(make_buffer<std::uint64_t>(backend(local), result_length));
    sent.back().copy_from(contributions[local]);
  }
  {
    const nccl_group group;
    for (std::uint32_t local = 0; local < local_count(); ++local) {
      const local_rank& on = locals_[local];
      if (gather) {
        WARPDEX_NCCL_TRY(
            ncclAllGather(sent[local].data(), received[local].data(), length, ncclUint64, on.comm, on.stream), on.comm);
      } else {
        WARPDEX_NCCL_TRY(
            ncclAllReduce(sent[local].data(), received[local].data(), length, ncclUint64, ncclSum, on.comm, on.stream),
            on.comm);
      }
    }
  }
  for (std::uint32_t local = 0; local < local_count(); ++local) {
    const device_scope on(locals_[local].device);
    // Every local rank received the same; the first one's copy is the answer, the others are waited for.
    if (local == 0) { result = received[local].to_vector(); }
    WARPDEX_CUDA_TRY(cudaStreamSynchronize(locals_[local].stream));
    sent[local] = {};
    received[local] = {};
  }
  return result;
}

std::vector<std::uint64_t> communicator::all_reduce_sum(
    const std::vector<std::vector<std::uint64_t>>& contributions) const
{
  return collective(contributions, false);
}

std::vector<std::uint64_t> communicator::all_gather(const std::vector<std::vector<std::uint64_t>>& contributions) const
{
  return collective(contributions, true);
}

void communicator::all_to_all(std::span<const all_to_all_buffers> buffers, std::size_t element_bytes) const
{
  WARPDEX_EXPECTS(buffers.size() == local_count(), "communicator::all_to_all: " + std::to_string(buffers.size()) +
                                                       " buffers for " + std::to_string(local_count()) +
                                                       " local ranks");
  for (std::uint32_t local = 0; local < local_count(); ++local) {
    const exchange_layout& layout = *buffers[local].layout;
    const std::uint32_t rank = locals_[local].rank;
    WARPDEX_EXPECTS(layout.send_counts[rank] == layout.receive_counts[rank],
                    "communicator::all_to_all: rank " + std::to_string(rank) + " sends itself " +
                        std::to_string(layout.send_counts[rank]) + " elements but expects " +
                        std::to_string(layout.receive_counts[rank]));
  }
  if (exchanges_by_copies()) {
    all_to_all_by_copies(buffers, element_bytes);
    return;
  }
  copy_own_buckets(buffers, element_bytes);  // outside the group
  const nccl_group group;
  for (std::uint32_t local = 0; local < local_count(); ++local) {
    const local_rank& on = locals_[local];
    const exchange_layout& layout = *buffers[local].layout;
    for (std::uint32_t peer = 0; peer < ranks_; ++peer) {
      if (peer == on.rank) { continue; }
      if (layout.send_counts[peer] > 0) {
        WARPDEX_NCCL_TRY(
            ncclSend(static_cast<const std::byte*>(buffers[local].send) + layout.send_offsets[peer] * element_bytes,
                     layout.send_counts[peer] * element_bytes, ncclUint8, static_cast<int>(peer), on.comm, on.stream),
            on.comm);
      }
      if (layout.receive_counts[peer] > 0) {
        WARPDEX_NCCL_TRY(
            ncclRecv(static_cast<std::byte*>(buffers[local].receive) + layout.receive_offsets[peer] * element_bytes,
                     layout.receive_counts[peer] * element_bytes, ncclUint8, static_cast<int>(peer), on.comm,
                     on.stream),
            on.comm);
      }
    }
  }
}

void communicator::copy_own_buckets(std::span<const all_to_all_buffers> buffers, std::size_t element_bytes) const
{
  for (std::uint32_t local = 0; local < local_count(); ++local) {
    const local_rank& on = locals_[local];
    const exchange_layout& layout = *buffers[local].layout;
    const std::size_t bytes = layout.send_counts[on.rank] * element_bytes;
    if (bytes > 0) {
      const device_scope device(on.device);
      warpdex::detail::copy_device_bytes(
          static_cast<std::byte*>(buffers[local].receive) + layout.receive_offsets[on.rank] * element_bytes,
          static_cast<const std::byte*>(buffers[local].send) + layout.send_offsets[on.rank] * element_bytes, bytes,
          on.stream);
    }
  }
}

void communicator::all_to_all_by_copies(std::span<const all_to_all_buffers> buffers, std::size_t element_bytes) const
{
  copy_own_buckets(buffers, element_bytes);  // the others are pulled on the side streams meanwhile
  begin_all_to_all_from_others(buffers, element_bytes);
  end_all_to_all();
}

void communicator::begin_all_to_all_from_others(std::span<const all_to_all_buffers> buffers,
                                                std::size_t element_bytes) const
{
  WARPDEX_EXPECTS(exchanges_by_copies(),
                  "communicator::begin_all_to_all_from_others: needs every rank in this process, joined by peer "
                  "access, and exchange_by_copies (exchanges_by_copies() is false)");
  WARPDEX_EXPECTS(buffers.size() == local_count(),
                  "communicator::begin_all_to_all_from_others: " + std::to_string(buffers.size()) + " buffers for " +
                      std::to_string(local_count()) + " local ranks");
  // Every rank is local here, local index = rank (ncclCommInitAll). Each receiver's side stream waits for every
  // sender's stream to have its bucket ready, then pulls it (cudaMemcpyAsync over the peer mapping).
  const std::size_t count = locals_.size();
  pulled_.resize(count, nullptr);
  std::vector<cudaEvent_t> ready(count, nullptr);
  const auto destroy_ready = [&] {
    for (std::size_t local = 0; local < count; ++local) {
      if (ready[local] == nullptr) { continue; }
      const device_scope on(locals_[local].device);
      (void)cudaEventDestroy(ready[local]);  // released once its waits are done
    }
  };
  try {
    for (std::size_t local = 0; local < count; ++local) {
      const device_scope on(locals_[local].device);
      WARPDEX_CUDA_TRY(cudaEventCreateWithFlags(&ready[local], cudaEventDisableTiming));
      WARPDEX_CUDA_TRY(cudaEventRecord(ready[local], locals_[local].stream));
      if (pulled_[local] == nullptr) {
        cudaEvent_t event = nullptr;
        WARPDEX_CUDA_TRY(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
        pulled_[local] = event;
      }
    }
    for (std::size_t receiver = 0; receiver < count; ++receiver) {
      const local_rank& on = locals_[receiver];
      const device_scope device(on.device);
      const exchange_layout& layout = *buffers[receiver].layout;
      for (std::size_t sender = 0; sender < count; ++sender) {
        if (sender == receiver) { continue; }
        const exchange_layout& sender_layout = *buffers[sender].layout;
        const std::uint64_t elements = layout.receive_counts[sender];
        WARPDEX_EXPECTS(elements == sender_layout.send_counts[receiver],
                        "communicator::all_to_all: rank " + std::to_string(receiver) + " expects " +
                            std::to_string(elements) + " elements from rank " + std::to_string(sender) +
                            ", which sends " + std::to_string(sender_layout.send_counts[receiver]));
        if (elements == 0) { continue; }
        WARPDEX_CUDA_TRY(cudaStreamWaitEvent(on.side_stream, ready[sender], 0));
        WARPDEX_CUDA_TRY(cudaMemcpyAsync(
            static_cast<std::byte*>(buffers[receiver].receive) + layout.receive_offsets[sender] * element_bytes,
            static_cast<const std::byte*>(buffers[sender].send) + sender_layout.send_offsets[receiver] * element_bytes,
            elements * element_bytes, cudaMemcpyDefault, on.side_stream));
      }
      // The side stream is in order: this event covers the copies of every begin since the last end.
      WARPDEX_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(pulled_[receiver]), on.side_stream));
    }
  } catch (...) {
    destroy_ready();
    throw;
  }
  destroy_ready();
}

void communicator::end_all_to_all() const
{
  if (pulled_.empty()) { return; }
  // Each receiver's stream after its buckets; each sender's after every receiver's reads of its send buffer.
  for (std::size_t local = 0; local < locals_.size(); ++local) {
    const device_scope device(locals_[local].device);
    for (std::size_t other = 0; other < locals_.size(); ++other) {
      WARPDEX_CUDA_TRY(cudaStreamWaitEvent(locals_[local].stream, static_cast<cudaEvent_t>(pulled_[other]), 0));
    }
  }
}

void communicator::synchronize() const
{
  for (const auto& local : locals_) {
    const device_scope on(local.device);
    WARPDEX_CUDA_TRY(cudaStreamSynchronize(local.stream));
  }
}

}  // namespace warpdex::distributed
