// The C++ side of bench/python_overhead.py: times library calls made directly from C++, on data of the same size
// as the Python calls it is compared with, so the difference is what the Python layer adds per call.

#include "arrays.hpp"

#include <warpdex/hash/slab_map.hpp>
#include <warpdex/search/sorted_search.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <nanobind/stl/string.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace warpdex::python {
namespace {

/// Median seconds of `iterations` calls of `call` (each followed by the backend's synchronize), after
/// `iterations / 10 + 1` untimed ones.
template <class Backend, class Call>
double median_seconds(const Backend& backend, std::uint32_t iterations, Call&& call)
{
  for (std::uint32_t i = 0; i < iterations / 10 + 1; ++i) {
    call();
    backend.synchronize();
  }
  std::vector<double> seconds(iterations);
  for (double& elapsed : seconds) {
    const auto start = std::chrono::steady_clock::now();
    call();
    backend.synchronize();
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return seconds[seconds.size() / 2];
}

template <class Backend>
double time_calls(const Backend& backend, const std::string& kind, std::uint64_t size, std::uint32_t iterations)
{
  // Distinct keys below hash::max_user_key, in random order (seeded: the Python side draws its own).
  std::vector<std::uint32_t> host_keys(size);
  std::mt19937_64 generator(7);
  for (std::uint64_t i = 0; i < size; ++i) {
    host_keys[i] = static_cast<std::uint32_t>(i * 2654435761ULL % 4294967291ULL);
  }
  std::shuffle(host_keys.begin(), host_keys.end(), generator);
  auto keys = make_buffer<std::uint32_t>(backend, size);
  keys.copy_from(host_keys);
  auto values = make_buffer<std::uint32_t>(backend, size);
  auto statuses = make_buffer<hash::operation_status>(backend, size);
  backend.synchronize();
  if (kind == "slab_find" || kind == "slab_find_default" || kind == "slab_insert") {
    using map_type = hash::slab_map<std::uint32_t, std::uint32_t, Backend>;
    map_type map(backend, map_type::capacity_for(size));
    map.insert(keys.span(), keys.span());
    if (kind == "slab_find") {
      return median_seconds(backend, iterations, [&] { map.find(keys.span(), values.span(), statuses.span()); });
    }
    if (kind == "slab_find_default") {
      auto found = make_buffer<std::uint8_t>(backend, size);
      return median_seconds(backend, iterations, [&] { map.find(keys.span(), values.span(), found.span(), 0u); });
    }
    return median_seconds(backend, iterations, [&] { map.insert(keys.span(), keys.span(), statuses.span()); });
  }
  if (kind == "radix_sort") {
    return median_seconds(backend, iterations, [&] { radix_sort(backend, keys.span(), values.span()); });
  }
  if (kind == "lower_bound") {
    std::sort(host_keys.begin(), host_keys.end());
    auto sorted = make_buffer<std::uint32_t>(backend, size);
    sorted.copy_from(host_keys);
    auto positions = make_buffer<std::uint64_t>(backend, size);
    backend.synchronize();
    sorted_index<std::uint32_t, Backend> index(backend, sorted.span());
    return median_seconds(backend, iterations, [&] { index.lower_bound(keys.span(), positions.span()); });
  }
  throw nb::value_error(("measure_cpp_call: unknown kind '" + kind + "'").c_str());
}

double measure_cpp_call(const std::string& kind, std::uint64_t size, std::uint32_t iterations,
                        const std::string& device)
{
  const placement place = placement_of(device);
  return run_on(place, 0, [&](const auto& backend) { return time_calls(backend, kind, size, iterations); });
}

}  // namespace

void bind_overhead(nb::module_& module)
{
  module.def("measure_cpp_call", &measure_cpp_call, nb::arg("kind"), nb::arg("size"), nb::arg("iterations"),
             nb::arg("device"),
             "Median seconds of one library call made from C++ ('slab_find', 'slab_find_default', 'slab_insert', "
             "'radix_sort', 'lower_bound' on `size` uint32 keys), each followed by a synchronize; for "
             "bench/python_overhead.py.");
}

}  // namespace warpdex::python
