#pragma once
// How the extension takes arrays from Python and chooses the backend: every array argument is checked
// (one dimension, contiguous, the element type the operation needs, all on one device) and handed to
// the library as a span over the caller's own memory, with no copy.

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
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

/// The backend type of a generic lambda's `const auto& backend` parameter.
template <class BackendReference>
using backend_of = std::decay_t<BackendReference>;

/// One structure of the library (`Structure<host>`, or `Structure<cuda>` in CUDA builds) on the backend
/// of a placement: made once, then used through `visit`, which checks the device, releases the GIL and,
/// on cuda, waits for the structure's stream afterwards (when it has `backend()`), so that its results
/// are complete whichever stream the caller reads them on.
template <template <class> class Structure>
class on_backend {
 public:
  /// `make(backend)` returns a std::unique_ptr to the structure on that backend (run with the GIL released).
  template <class Make>
  on_backend(const placement& place, stream_handle stream, Make&& make) : place_(place)
  {
    run_on(place, stream, [&](const auto& backend) {
      if constexpr (std::is_same_v<backend_of<decltype(backend)>, host>) {
        host_ = make(backend);
      }
#if WARPDEX_HAS_CUDA
      else {
        cuda_ = make(backend);
      }
#endif
    });
  }

  [[nodiscard]] const placement& where() const
  {
    return place_;
  }

  template <class Function>
  decltype(auto) visit(Function&& function) const
  {
    check_device(place_, "");
    nb::gil_scoped_release released;
#if WARPDEX_HAS_CUDA
    if (cuda_) { return wait_after(*cuda_, function); }
#endif
    return function(*host_);
  }

  /// `visit`, after checking that the call's arrays are on the structure's device (`what` names it).
  template <class Function>
  decltype(auto) visit(const call_arrays& arrays, const char* what, Function&& function) const
  {
    arrays.require(place_, what);
    return visit(std::forward<Function>(function));
  }

  [[nodiscard]] std::string device() const
  {
    return place_.cuda ? "cuda:" + std::to_string(place_.device) : std::string("cpu");
  }

 private:
#if WARPDEX_HAS_CUDA
  template <class Function>
  static decltype(auto) wait_after(Structure<cuda>& structure, Function& function)
  {
    constexpr bool has_stream = requires
    {
      structure.backend().synchronize();
    };
    if constexpr (std::is_void_v<decltype(function(structure))>) {
      function(structure);
      if constexpr (has_stream) { structure.backend().synchronize(); }
    } else {
      auto result = function(structure);
      if constexpr (has_stream) { structure.backend().synchronize(); }
      return result;
    }
  }
#endif

  placement place_;
  std::unique_ptr<Structure<host>> host_;
#if WARPDEX_HAS_CUDA
  std::unique_ptr<Structure<cuda>> cuda_;
#endif
};

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
void bind_grep(nb::module_& module);
void bind_lsm(nb::module_& module);
void bind_dpp(nb::module_& module);
void bind_graph(nb::module_& module);
void bind_faces(nb::module_& module);
void bind_segment(nb::module_& module);
void bind_overhead(nb::module_& module);
void bind_distributed(nb::module_& module);  // distributed.cpp: DistributedSlabMapCore (NCCL builds; else it refuses)

}  // namespace warpdex::python
