#pragma once
/// @file The scratch memory of the split family's synchronous calls on the cuda backend (multisplit,
/// histograms, the radix sort below radix_sort_host_read_from keys): the library keeps it, per device, in
/// slots that grow to what a call needs, so a warm synchronous call allocates nothing. A call leases a
/// slot (sync_scratch), runs the asynchronous path into it, copies its few result words into the slot's
/// pinned host memory and waits once on its stream; then the slot goes back idle. Calls from several host
/// threads at once lease different slots (a mutex guards the idle lists only, not the calls). Idle slots
/// are freed at exit (or by release_sync_scratch).

#include <warpdex/core/backend.hpp>
#include <warpdex/split/multisplit.hpp>

#include <cstddef>
#include <cstdint>

namespace warpdex::detail {

#if WARPDEX_HAS_CUDA
struct sync_scratch_slot;

/// One slot of the current device's pool, held for the lifetime of the lease. Its memory is not tied
/// to a stream: the holder orders its uses on its own stream and waits on it before the lease ends.
class sync_scratch {
 public:
  /// Takes a slot of the current device's pool for a call on `backend`'s stream.
  explicit sync_scratch(const cuda& backend);
  /// Gives the slot back; leaving by an exception, waits for the stream first.
  ~sync_scratch();
  sync_scratch(const sync_scratch&) = delete;
  sync_scratch& operator=(const sync_scratch&) = delete;

  /// Scratch memory of the asynchronous paths (device memory; grows in the call that needs more).
  [[nodiscard]] multisplit_workspace& workspace();
  /// At least `count` words of device memory apart from workspace(): where an asynchronous path leaves
  /// its results (offsets, counts). Contents lost when it grows.
  [[nodiscard]] std::uint64_t* device_words(std::size_t count);
  /// At least `count` words of pinned host memory: where the results are copied home. Contents lost
  /// when it grows.
  [[nodiscard]] std::uint64_t* host_words(std::size_t count);

 private:
  stream_t stream_ = nullptr;
  int exceptions_ = 0;  // std::uncaught_exceptions() when the lease began
  int device_ = 0;
  sync_scratch_slot* slot_ = nullptr;
};

/// What the pools hold now, over every device: for tests and diagnostics.
struct sync_scratch_statistics {
  std::uint64_t allocations = 0;  ///< device and pinned allocations made since the start of the process
  std::uint64_t slots = 0;        ///< slots made and not released (idle or leased)
  std::uint64_t leased = 0;       ///< slots leased now
  std::size_t bytes = 0;          ///< device and pinned bytes the slots hold
};
[[nodiscard]] sync_scratch_statistics sync_scratch_now();

/// Frees the memory of every idle slot (leased slots keep theirs) and forgets them.
void release_sync_scratch();
#endif

}  // namespace warpdex::detail
