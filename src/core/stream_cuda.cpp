// owned_stream and captured_graph (core/stream.hpp) over the CUDA runtime's streams and graphs.
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/stream.hpp>

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

namespace warpdex {

owned_stream::owned_stream() { WARPDEX_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

owned_stream::~owned_stream() { (void)cudaStreamDestroy(stream_); }

captured_graph::captured_graph(stream_t stream, const std::function<void()>& enqueue)
{
  WARPDEX_EXPECTS(stream != nullptr, "captured_graph: the legacy default stream cannot be captured; use a stream of "
                                     "one's own (owned_stream)");
  // Thread-local mode: other threads' calls into the runtime go on, only this thread's unsafe calls fail.
  WARPDEX_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t graph = nullptr;
  try {
    enqueue();
  } catch (...) {
    (void)cudaStreamEndCapture(stream, &graph);  // ends the broken capture; the graph is dropped
    if (graph != nullptr) { (void)cudaGraphDestroy(graph); }
    (void)cudaGetLastError();
    throw;
  }
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (ended != cudaSuccess || graph == nullptr) {
    if (graph != nullptr) { (void)cudaGraphDestroy(graph); }
    (void)cudaGetLastError();
    throw error(std::string("captured_graph: the capture failed (") + cudaGetErrorString(ended) +
                "): the captured calls waited, read device memory on the host, or used another stream");
  }
  cudaGraphExec_t executable = nullptr;
  const cudaError_t made = cudaGraphInstantiate(&executable, graph, 0);
  std::size_t nodes = 0;
  (void)cudaGraphGetNodes(graph, nullptr, &nodes);
  (void)cudaGraphDestroy(graph);
  WARPDEX_CUDA_TRY(made);
  executable_ = executable;
  nodes_ = nodes;
}

captured_graph::~captured_graph()
{
  if (executable_ != nullptr) { (void)cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(executable_)); }
}

captured_graph::captured_graph(captured_graph&& other) noexcept
    : executable_(std::exchange(other.executable_, nullptr)), nodes_(std::exchange(other.nodes_, 0))
{
}

captured_graph& captured_graph::operator=(captured_graph&& other) noexcept
{
  if (this != &other) {
    if (executable_ != nullptr) { (void)cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(executable_)); }
    executable_ = std::exchange(other.executable_, nullptr);
    nodes_ = std::exchange(other.nodes_, 0);
  }
  return *this;
}

void captured_graph::launch(stream_t stream) const
{
  WARPDEX_CUDA_TRY(cudaGraphLaunch(static_cast<cudaGraphExec_t>(executable_), stream));
}

}  // namespace warpdex
