#pragma once
/// @file Streams of one's own and CUDA graphs captured from them: a loop of small `_async` calls captured
/// once and replayed with one launch, so the host's calls per batch (a launch costs microseconds of host
/// time, about what a small batch's kernel runs) no longer set the pace. docs/hash.md, "Small batches".

#include <warpdex/core/config.hpp>

#include <functional>

#if WARPDEX_HAS_CUDA
namespace warpdex {

/// A CUDA stream created for its owner (not ordered with the legacy default stream, which cannot be
/// captured), destroyed with it.
class owned_stream {
 public:
  owned_stream();
  ~owned_stream();
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  [[nodiscard]] stream_t get() const { return stream_; }

 private:
  stream_t stream_ = nullptr;
};

/// The work that `enqueue` puts on `stream` (kernels, copies, stream-ordered allocations), captured into a
/// CUDA graph and instantiated: launch() replays all of it on a stream with one call. Every warpdex `_async`
/// call can be captured (it neither waits nor reads device memory on the host). What the captured calls
/// read and write are the same addresses at every replay: rewrite the inputs in place between replays.
/// Throws warpdex::error when `enqueue` waits or does anything else a capture refuses, or when `stream`
/// is the legacy default stream.
class captured_graph {
 public:
  captured_graph(stream_t stream, const std::function<void()>& enqueue);
  ~captured_graph();
  captured_graph(captured_graph&& other) noexcept;
  captured_graph& operator=(captured_graph&& other) noexcept;
  captured_graph(const captured_graph&) = delete;
  captured_graph& operator=(const captured_graph&) = delete;

  /// Enqueues one replay on `stream`; waits for nothing.
  void launch(stream_t stream) const;
  /// The graph's nodes (kernels, copies, ...): how many operations one launch replaces.
  [[nodiscard]] std::size_t node_count() const { return nodes_; }

 private:
  void* executable_ = nullptr;  // cudaGraphExec_t
  std::size_t nodes_ = 0;
};

}  // namespace warpdex
#endif
