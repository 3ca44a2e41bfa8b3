#pragma once
/// @file Fixtures that write a suite once and run it on every backend of the build, plus buffer helpers.
///
/// A typed suite over `all_backends` runs on `warpdex::host` always and on `warpdex::cuda` in CUDA
/// builds; on a machine without a GPU its cuda cases are reported as skipped, with the reason, rather
/// than silently absent. Results come back to the host with `buffer::to_vector()`.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace warpdex::testing {

#if WARPDEX_HAS_CUDA
using all_backends = ::testing::Types<host, cuda>;
#else
using all_backends = ::testing::Types<host>;
#endif

/// Names the typed cases after the backend ("suite/host.test", "suite/cuda.test") instead of an index.
struct backend_names {
  template <class Backend>
  static std::string GetName(int /*index*/)
  {
    return std::string(Backend::name);
  }
};

/// Why the CUDA backend cannot run here, or an empty string when it can.
inline std::string cuda_unavailable_reason()
{
  std::string reason;
  return cuda_device_available(&reason) ? std::string() : reason;
}

/// Whether compute-sanitizer runs this process (it sets NV_SANITIZER_INJECTION_* for the programs it
/// launches). A test whose CUDA call fails on purpose skips then: the sanitizer counts every failed
/// call as an error.
inline bool under_compute_sanitizer()
{
  return std::getenv("NV_SANITIZER_INJECTION_PORT_BASE") != nullptr;
}

/// Whether this run asks for sanitizer-sized cases (`WARPDEX_TEST_SIZE=sanitizer`, which tools/gpu.sh
/// sets for racecheck, whose cost grows with every shared-memory access): a suite that honours it
/// shrinks its large inputs to sizes that still reach every kernel path and leaves out its fresh
/// random seeds (the fixed ones stay).
inline bool sanitizer_sized()
{
  const char* size = std::getenv("WARPDEX_TEST_SIZE");
  return size != nullptr && std::string(size) == "sanitizer";
}

/// `full`, or `sanitizer` in a sanitizer-sized run.
template <class T>
T full_or_sanitizer_sized(T full, T sanitizer)
{
  return sanitizer_sized() ? sanitizer : full;
}

/// The seeds of a randomized case: the fixed one, plus a fresh one unless the run is sanitizer-sized.
inline std::vector<std::uint64_t> fixed_and_fresh_seeds(std::uint64_t fixed)
{
  if (sanitizer_sized()) { return {fixed}; }
  return {fixed, std::uint64_t{std::random_device{}()}};
}

/// Use with TYPED_TEST_SUITE(suite, all_backends, backend_names). Every backend but host needs a device.
template <class Backend>
class backend_test : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if constexpr (!std::is_same_v<Backend, host>) {
      const std::string reason = cuda_unavailable_reason();
      if (!reason.empty()) { GTEST_SKIP() << "no CUDA device: " << reason; }
    }
  }

  [[nodiscard]] const Backend& backend() const { return backend_; }

 private:
  Backend backend_{};
};

/// For tests that only make sense with a GPU (device memory, kernels): skipped without one.
class cuda_test : public ::testing::Test {
 protected:
  void SetUp() override
  {
    const std::string reason = cuda_unavailable_reason();
    if (!reason.empty()) { GTEST_SKIP() << "no CUDA device: " << reason; }
  }
};

/// A buffer in the backend's memory holding a copy of `values`.
template <class T, class Backend>
buffer<T> make_buffer_from(const Backend& backend, std::span<const T> values)
{
  auto result = make_buffer<T>(backend, values.size());
  result.copy_from(values);
  return result;
}

/// A buffer in the backend's memory whose every element is `value`: poison an output with it to see
/// which elements an operation left unwritten.
template <class T, class Backend>
buffer<T> make_filled_buffer(const Backend& backend, std::size_t size, T value)
{
  const std::vector<T> values(size, value);
  return make_buffer_from<T>(backend, values);
}

}  // namespace warpdex::testing
