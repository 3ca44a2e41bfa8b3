#pragma once
// How the extension takes arrays from Python and chooses the backend: every array argument is checked
// (one dimension, contiguous, the element type the operation needs, all on one device) and handed to
// the library as a span over the caller's own memory, with no copy.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::python {

namespace nb = nanobind;

/// An array the operation reads (NumPy, CuPy, PyTorch, JAX or any DLPack / buffer-protocol producer).
using input_array = nb::ndarray<nb::ro>;
/// An array the operation writes.
using output_array = nb::ndarray<>;
/// A CUDA stream handle as Python passes it (cudaStream_t as an integer; 0: the legacy default stream).
using stream_handle = std::uintptr_t;

/// Where the arrays of one call live.
struct placement {
  bool cuda = false;
  int device = 0;
};

/// The text of a DLPack element type ("uint32", "float32", ...), for messages.
std::string dtype_name(nb::dlpack::dtype type);

/// Collects the placement of a call's arrays and refuses arrays on different devices.
class call_arrays {
 public:
  explicit call_arrays(const char* function) : function_(function) {}

  /// The elements of `array` as a span of T, after checking its element type, shape and device.
  template <class T, class Array>
  auto span(const Array& array, const char* name)
  {
    check(array, nb::dtype<T>(), name);
    using element = std::conditional_t<std::is_const_v<std::remove_pointer_t<decltype(array.data())>>, const T, T>;
    return std::span<element>(static_cast<element*>(array.data()), array.shape(0));
  }

  /// Whether `array` holds elements of T (for functions that accept several key types).
  template <class T, class Array>
  static bool holds(const Array& array)
  {
    return array.dtype() == nb::dtype<T>();
  }

  [[nodiscard]] const placement& where() const { return place_; }
  [[nodiscard]] const char* function() const { return function_; }

  /// Adds the device of an array whose shape and type the caller checks itself (two-dimensional tuples).
  template <class Array>
  void place(const Array& array, const char* name)
  {
    add_device(array.device_type(), array.device_id(), name);
  }

  /// Requires the arrays to be on `expected` (a structure's own device); `what` names the structure.
  void require(const placement& expected, const char* what) const;

 private:
  template <class Array>
  void check(const Array& array, nb::dlpack::dtype type, const char* name)
  {
    check_shape(array.ndim(), array.ndim() == 1 ? array.shape(0) : 0, array.ndim() == 1 ? array.stride(0) : 1,
                array.dtype(), type, name);
    add_device(array.device_type(), array.device_id(), name);
  }
  void check_shape(std::size_t ndim, std::size_t size, std::int64_t stride, nb::dlpack::dtype type,
                   nb::dlpack::dtype expected, const char* name) const;
  void add_device(int device_type, int device_id, const char* name);

  const char* function_;
  placement place_;
  bool placed_ = false;
};

/// Throws ValueError unless two spans (by their names) have the same size.
void expect_same_size(const char* function, std::size_t size, const char* name, std::size_t other_size,
                      const char* other_name);

/// Runs `function(backend)` on the backend of `place`: `warpdex::host{}` for host memory, and
/// `warpdex::cuda{stream}` for memory of the current CUDA device (ValueError for another device, or in a
/// build without the CUDA backend). The GIL is released while the library runs.
template <class Function>
decltype(auto) run_on(const placement& place, stream_handle stream, Function&& function);

/// Fails unless `place` is usable by this build and is the current CUDA device.
void check_device(const placement& place, const char* function);

template <class Function>
decltype(auto) run_on(const placement& place, stream_handle stream, Function&& function)
{
  check_device(place, "");
  nb::gil_scoped_release released;
#if WARPDEX_HAS_CUDA
  if (place.cuda) { return function(warpdex::cuda{reinterpret_cast<warpdex::stream_t>(stream)}); }
#else
  (void)stream;
#endif
  return function(warpdex::host{});
}

#if WARPDEX_HAS_CUDA
/// `function(structure)`, then a wait for the structure's stream, so that its results are complete when
/// Python gets them, whichever stream the caller reads them on.
template <class Structure, class Function>
decltype(auto) wait_after(Structure& structure, Function&& function)
{
  if constexpr (std::is_void_v<decltype(function(structure))>) {
    function(structure);
    structure.backend().synchronize();
  } else {
    auto result = function(structure);
    structure.backend().synchronize();
    return result;
  }
}
#endif

/// A host vector returned as a NumPy-compatible array that owns it (no copy).
template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> host_array(std::vector<T>&& values)
{
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* pointer) noexcept { delete static_cast<std::vector<T>*>(pointer); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), {owned->size()}, owner);
}

/// A library buffer (host or device memory of `place`) returned as an array that owns it (no copy): a NumPy
/// array on the host; on a CUDA device a CuPy array or a PyTorch tensor as `library` says ("cupy",
/// "torch"), else a DLPack capsule. Elements of `columns` > 1 Scalars (tuples) make a two-dimensional
/// array of shape (size, columns).
template <class Element, class Scalar = Element>
nb::object owned_array(buffer<Element>&& values, const placement& place, const std::string& library,
                       std::size_t columns = 1)
{
  auto* owned = new buffer<Element>(std::move(values));
  nb::capsule owner(owned, [](void* pointer) noexcept { delete static_cast<buffer<Element>*>(pointer); });
  const int device_type = place.cuda ? nb::device::cuda::value : nb::device::cpu::value;
  const int device_id = place.cuda ? place.device : 0;
  const std::size_t shape[2] = {owned->size(), columns};
  const std::size_t ndim = columns == 1 ? 1 : 2;
  auto* data = reinterpret_cast<Scalar*>(owned->data());
  const auto make = [&]<class... Framework>() {
    return nb::cast(nb::ndarray<Framework..., Scalar>(data, ndim, shape, owner, nullptr, nb::dtype<Scalar>(),
                                                      device_type, device_id),
                    nb::rv_policy::reference);
  };
  if (!place.cuda) { return make.template operator()<nb::numpy>(); }
  if (library == "cupy") { return make.template operator()<nb::cupy>(); }
  if (library == "torch") { return make.template operator()<nb::pytorch>(); }
  return make.template operator()<>();
}

/// The placement a structure is made on: "cpu" (the host backend) or "cuda" (the current device).
placement placement_of(const std::string& device);

void bind_split(nb::module_& module);
void bind_hash(nb::module_& module);
void bind_search(nb::module_& module);
void bind_lsm(nb::module_& module);
void bind_dpp(nb::module_& module);
void bind_graph(nb::module_& module);
void bind_overhead(nb::module_& module);

}  // namespace warpdex::python
