#pragma once
/// @file The two execution backends and a description of the GPU.
///
/// Every bulk operation of warpdex takes a backend object first: `warpdex::host{}` runs on the CPU's
/// cores (OpenMP), `warpdex::cuda{stream}` enqueues on a CUDA stream of the current device. Memory
/// passed to a `cuda` operation is device memory; memory passed to a `host` operation is host memory.
/// One API, one set of semantics: a result computed on one backend equals the other's.

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/config.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/memory_resource.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace warpdex {

/// Runs on the host's cores through OpenMP (`OMP_NUM_THREADS` bounds them).
struct host {
  static constexpr std::string_view name = "host";
  [[nodiscard]] memory_resource* resource() const { return host_resource(); }
  void synchronize() const {}
};

#if WARPDEX_HAS_CUDA
/// Runs on the current CUDA device, ordered on `stream` (nullptr: the default stream).
struct cuda {
  static constexpr std::string_view name = "cuda";
  stream_t stream = nullptr;
  [[nodiscard]] memory_resource* resource() const { return device_resource(); }
  void synchronize() const { detail::synchronize(stream); }
};
#endif

/// A buffer in the memory a backend's operations work on (host memory or device memory).
template <class T, class Backend>
buffer<T> make_buffer(const Backend& backend, std::size_t size)
{
  if constexpr (requires { backend.stream; }) {
    return buffer<T>(size, backend.resource(), backend.stream);
  } else {
    return buffer<T>(size, backend.resource());
  }
}

/// What the CUDA runtime says about one GPU.
struct device_info {
  int id = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessor_count = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t free_memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;
  std::size_t shared_memory_per_block_optin_bytes = 0;
  int memory_bus_width_bits = 0;
};

/// Whether this build has the CUDA backend and a CUDA device is usable. When not, `reason` (if given)
/// receives why, in words a user can act on.
[[nodiscard]] bool cuda_device_available(std::string* reason = nullptr);

/// The properties of device `id`; throws `warpdex::error` when there is no such device.
[[nodiscard]] device_info query_device(int id = 0);

/// The backend a user asked for on a command line or in a configuration.
enum class backend_choice { automatic, cuda, host };

/// Parses "auto", "cuda" or "host"; anything else throws `warpdex::error`.
[[nodiscard]] backend_choice parse_backend_choice(std::string_view text);

/// Resolves a choice to the backend that will run: `automatic` is cuda when a device is available,
/// else host; an explicit `cuda` without a device throws `warpdex::error` saying why.
[[nodiscard]] backend_choice resolve_backend(backend_choice choice);

/// Calls `function` with the backend object a resolved choice names (`host{}` or `cuda{}`), so code
/// written once as a generic lambda runs on either: `visit_backend(choice, [&](const auto& backend) {...})`.
template <class Function>
decltype(auto) visit_backend(backend_choice resolved, Function&& function)
{
#if WARPDEX_HAS_CUDA
  if (resolved == backend_choice::cuda) { return function(cuda{}); }
#endif
  WARPDEX_EXPECTS(resolved != backend_choice::automatic, "visit_backend: resolve the choice first");
  WARPDEX_EXPECTS(resolved == backend_choice::host, "visit_backend: this build has no CUDA backend");
  return function(host{});
}

}  // namespace warpdex
