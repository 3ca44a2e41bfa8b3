// The extension module warpdex._warpdex: array checks, the backend choice, the translation of the
// library's exceptions, the families' bindings (split.cpp, hash.cpp, search.cpp, grep.cpp, lsm.cpp, dpp.cpp,
// graph.cpp) and the C++ timings of bench/python_overhead.py (overhead.cpp).

#include "arrays.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/version.hpp>

#include <nanobind/stl/string.h>

#if WARPDEX_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

#include <exception>
#include <string>

namespace warpdex::python {

std::string dtype_name(nb::dlpack::dtype type)
{
  std::string name;
  switch (static_cast<nb::dlpack::dtype_code>(type.code)) {
    case nb::dlpack::dtype_code::Int:
      name = "int";
      break;
    case nb::dlpack::dtype_code::UInt:
      name = "uint";
      break;
    case nb::dlpack::dtype_code::Float:
      name = "float";
      break;
    case nb::dlpack::dtype_code::Bool:
      return "bool";
    default:
      name = "type" + std::to_string(type.code) + "_";
      break;
  }
  name += std::to_string(type.bits);
  if (type.lanes != 1) { name += "x" + std::to_string(type.lanes); }
  return name;
}

void call_arrays::check_shape(std::size_t ndim, std::size_t size, std::int64_t stride, nb::dlpack::dtype type,
                              nb::dlpack::dtype expected, const char* name) const
{
  const std::string where = std::string(function_) + ": " + name;
  if (ndim != 1) {
    throw nb::value_error(
        (where + " must be a one-dimensional array, got " + std::to_string(ndim) + " dimensions").c_str());
  }
  if (type != expected) {
    throw nb::value_error((where + " must hold " + dtype_name(expected) + " elements, got " + dtype_name(type) +
                           " (convert it first, e.g. numpy.asarray(x, dtype=numpy." + dtype_name(expected) + "))")
                              .c_str());
  }
  if (size > 1 && stride != 1) {
    throw nb::value_error((where + " must be contiguous (its stride is " + std::to_string(stride) +
                           " elements); pass a contiguous copy, e.g. numpy.ascontiguousarray(x)")
                              .c_str());
  }
}

namespace {
std::string device_text(const placement& place)
{
  return place.cuda ? "cuda:" + std::to_string(place.device) : std::string("cpu");
}
}  // namespace

void call_arrays::add_device(int device_type, int device_id, const char* name)
{
  placement place;
  if (device_type == nb::device::cuda::value || device_type == nb::device::cuda_managed::value) {
    place.cuda = true;
    place.device = device_id;
  } else if (device_type != nb::device::cpu::value) {
    throw nb::value_error((std::string(function_) + ": " + name + " lives on DLPack device type " +
                           std::to_string(device_type) + "; warpdex takes host (cpu) and CUDA arrays")
                              .c_str());
  }
  if (!placed_) {
    place_ = place;
    placed_ = true;
    return;
  }
  if (place.cuda != place_.cuda || place.device != place_.device) {
    throw nb::value_error((std::string(function_) + ": " + name + " is on " + device_text(place) +
                           " but the other arrays are on " + device_text(place_) + "; put them on one device")
                              .c_str());
  }
}

void call_arrays::require(const placement& expected, const char* what) const
{
  if (placed_ && (expected.cuda != place_.cuda || expected.device != place_.device)) {
    throw nb::value_error((std::string(function_) + ": the arrays are on " + device_text(place_) + " but the " + what +
                           " lives on " + device_text(expected) + "; pass arrays of its device")
                              .c_str());
  }
}

void expect_same_size(const char* function, std::size_t size, const char* name, std::size_t other_size,
                      const char* other_name)
{
  if (size != other_size) {
    throw nb::value_error((std::string(function) + ": " + other_name + " has " + std::to_string(other_size) +
                           " elements but " + name + " has " + std::to_string(size) + "; they must be equal")
                              .c_str());
  }
}

void check_device(const placement& place, const char* function)
{
  if (!place.cuda) { return; }
#if WARPDEX_HAS_CUDA
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) {
    cudaGetLastError();
    throw nb::value_error((std::string(function) + "the arrays are on cuda:" + std::to_string(place.device) +
                           " but no CUDA device is usable here")
                              .c_str());
  }
  if (current != place.device) {
    throw nb::value_error(("the arrays are on cuda:" + std::to_string(place.device) +
                           " but the current device is cuda:" + std::to_string(current) +
                           "; make it current first (cupy.cuda.Device(" + std::to_string(place.device) +
                           ") or torch.cuda.device(" + std::to_string(place.device) + ") as a context manager)")
                              .c_str());
  }
#else
  throw nb::value_error((std::string(function) + "these are CUDA arrays, but this build of warpdex has no CUDA "
                                                 "backend (it was built without nvcc); use host (cpu) arrays")
                            .c_str());
#endif
}

placement placement_of(const std::string& device)
{
  placement place;
  if (device == "cpu" || device == "host") { return place; }
  if (device == "cuda" || device.rfind("cuda:", 0) == 0) {
    place.cuda = true;
#if WARPDEX_HAS_CUDA
    int current = 0;
    if (cudaGetDevice(&current) == cudaSuccess) { place.device = current; }
    cudaGetLastError();
#endif
    if (device.size() > 5) {
      const int asked = std::stoi(device.substr(5));
      if (asked != place.device) {
        throw nb::value_error(("device " + device + " is not the current CUDA device (cuda:" +
                               std::to_string(place.device) + "); make it current first")
                                  .c_str());
      }
    }
    check_device(place, "");
    std::string reason;
    if (!cuda_device_available(&reason)) { throw nb::value_error(("device 'cuda': " + reason).c_str()); }
    return place;
  }
  throw nb::value_error(
      ("device must be 'cpu' or 'cuda' (or 'cuda:N' for the current device N), got '" + device + "'").c_str());
}

}  // namespace warpdex::python

NB_MODULE(_warpdex, module)
{
  namespace nb = nanobind;
  using namespace warpdex::python;

  module.doc() = "The compiled core of the warpdex package: use the functions and classes of `warpdex`.";

  // The library's exceptions, with its message: bad input is ValueError, exhausted memory MemoryError,
  // a failing CUDA call RuntimeError.
  nb::register_exception_translator([](const std::exception_ptr& exception, void*) {
    try {
      std::rethrow_exception(exception);
    } catch (const warpdex::out_of_memory& error) {
      PyErr_SetString(PyExc_MemoryError, error.what());
    } catch (const warpdex::cuda_error& error) {
      PyErr_SetString(PyExc_RuntimeError, error.what());
    } catch (const warpdex::error& error) {
      PyErr_SetString(PyExc_ValueError, error.what());
    }
  });

  module.attr("__version__") = WARPDEX_VERSION_STRING;
  module.attr("has_cuda") = static_cast<bool>(WARPDEX_HAS_CUDA);
  module.def(
      "cuda_available",
      []() {
        std::string reason;
        const bool available = warpdex::cuda_device_available(&reason);
        return nb::make_tuple(available, reason);
      },
      "(available, reason): whether this build has the CUDA backend and a CUDA device is usable, and if not, why.");

  bind_split(module);
  bind_hash(module);
  bind_search(module);
  bind_grep(module);
  bind_overhead(module);
  bind_distributed(module);
#if WARPDEX_PYTHON_HAS_LSM
  bind_lsm(module);
  bind_dpp(module);
  bind_graph(module);
  bind_faces(module);
  bind_segment(module);
#endif
  module.attr("has_lsm") = static_cast<bool>(WARPDEX_PYTHON_HAS_LSM);
}
