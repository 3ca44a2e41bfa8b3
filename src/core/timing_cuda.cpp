// CUDA-event timing on the cuda backend (plain C++ over the CUDA runtime API, like memory_cuda.cpp).
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/timing.hpp>

#include "timing_median.hpp"

#include <cuda_runtime_api.h>

#include <vector>

namespace warpdex {
namespace {

/// A pair of CUDA events, destroyed with the object.
class event_pair {
 public:
  event_pair()
  {
    WARPDEX_CUDA_TRY(cudaEventCreate(&start_));
    WARPDEX_CUDA_TRY(cudaEventCreate(&stop_));
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
  ~event_pair()
  {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  void start(stream_t stream) { WARPDEX_CUDA_TRY(cudaEventRecord(start_, stream)); }
  double stop_ms(stream_t stream)
  {
    WARPDEX_CUDA_TRY(cudaEventRecord(stop_, stream));
    WARPDEX_CUDA_TRY(cudaEventSynchronize(stop_));
    float milliseconds = 0;
    WARPDEX_CUDA_TRY(cudaEventElapsedTime(&milliseconds, start_, stop_));
    return milliseconds;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace

double median_ms(const cuda& backend, const timing_options& options, const std::function<void()>& work,
                 const std::function<void()>& prepare)
{
  detail::check_timing_options(options);
  for (int i = 0; i < options.warmup; ++i) {
    if (prepare) { prepare(); }
    work();
  }
  WARPDEX_CUDA_TRY(cudaStreamSynchronize(backend.stream));
  event_pair events;
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(options.repetitions));
  for (int i = 0; i < options.repetitions; ++i) {
    if (prepare) { prepare(); }
    events.start(backend.stream);
    work();
    times.push_back(events.stop_ms(backend.stream));
  }
  return detail::median(std::move(times));
}

}  // namespace warpdex
