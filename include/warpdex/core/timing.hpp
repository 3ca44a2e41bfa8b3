#pragma once
/// @file Warm timing of an operation on a backend: the one helper the benchmarks, the demo tour and the
/// command-line tool use, so that their numbers agree.

#include <warpdex/core/backend.hpp>

#include <functional>

namespace warpdex {

/// How an operation is timed: `warmup` untimed runs (caches, allocator pools and lazily built state
/// settle), then `repetitions` timed runs, of which the median is reported.
struct timing_options {
  int warmup = 3;
  int repetitions = 15;
};

/// The median time in milliseconds of `repetitions` runs of `work` on the host backend after `warmup`
/// untimed ones, each run timed alone with a steady clock. `prepare`, when given, runs untimed before
/// every run (e.g. to restore the input that `work` changes). Throws `warpdex::error` when
/// `repetitions < 1` or `warmup < 0`.
[[nodiscard]] double median_ms(const host& backend, const timing_options& options, const std::function<void()>& work,
                               const std::function<void()>& prepare = {});

#if WARPDEX_HAS_CUDA
/// The same on the cuda backend: each run is timed alone with CUDA events recorded on `backend.stream`
/// around it, so the time is the GPU's, not the launch overhead of the host thread alone.
[[nodiscard]] double median_ms(const cuda& backend, const timing_options& options, const std::function<void()>& work,
                               const std::function<void()>& prepare = {});
#endif

}  // namespace warpdex
