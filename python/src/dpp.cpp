// Bindings of the dpp family's duplicate search: the once-indicator, the elements occurring once, the
// distinct elements and their counts, over uint32 / uint64 arrays or (n, k) uint32 tuples (k = 2, 3, 4);
// and its group-by: uint32 / uint64 keys with int64 / uint64 values.

#include "arrays.hpp"

#include <warpdex/dpp/duplicates.hpp>
#include <warpdex/dpp/element.hpp>
#include <warpdex/dpp/group_by.hpp>

#include <nanobind/stl/string.h>

#include <string>

namespace warpdex::python {
namespace {

/// Calls `function(span<const Element>)` with the elements of `array`: one-dimensional uint32 or uint64, or
/// a C-contiguous (n, k) uint32 array of tuples, k in {2, 3, 4}.
template <class Function>
decltype(auto) with_elements(call_arrays& arrays, const input_array& array, Function&& function)
{
  if (array.ndim() == 2) {
    const std::size_t words = array.shape(1);
    // An empty array is contiguous whatever its strides say (NumPy 2.4 reports zeros for them).
    const bool contiguous =
        array.shape(0) == 0 ||
        ((array.shape(0) == 1 || array.stride(0) == static_cast<std::int64_t>(words)) && array.stride(1) == 1);
    if (array.dtype() != nb::dtype<std::uint32_t>() || words < 2 || words > 4 || !contiguous) {
      throw nb::value_error((std::string(arrays.function()) +
                             ": two-dimensional elements must be a C-contiguous (n, k) uint32 array of tuples with "
                             "k = 2, 3 or 4, got shape (" +
                             std::to_string(array.shape(0)) + ", " + std::to_string(words) + ") of " +
                             dtype_name(array.dtype()))
                                .c_str());
    }
    arrays.place(array, "elements");
    const auto* data = array.data();
    const std::size_t size = array.shape(0);
    if (words == 2) { return function(std::span<const dpp::uint32x2>(static_cast<const dpp::uint32x2*>(data), size)); }
    if (words == 3) { return function(std::span<const dpp::uint32x3>(static_cast<const dpp::uint32x3*>(data), size)); }
    return function(std::span<const dpp::uint32x4>(static_cast<const dpp::uint32x4*>(data), size));
  }
  if (call_arrays::holds<std::uint64_t>(array)) { return function(arrays.span<std::uint64_t>(array, "elements")); }
  return function(arrays.span<std::uint32_t>(array, "elements"));
}

/// Words per element: 1 for integers, k for tuples of k uint32.
template <class Element>
constexpr std::size_t columns_of()
{
  if constexpr (std::is_integral_v<Element>) {
    return 1;
  } else {
    return sizeof(Element) / sizeof(std::uint32_t);
  }
}

template <class Element>
using scalar_of = std::conditional_t<std::is_integral_v<Element>, Element, std::uint32_t>;

template <class Element>
nb::object owned_elements(buffer<Element>&& elements, const placement& place, const std::string& library)
{
  return owned_array<Element, scalar_of<Element>>(std::move(elements), place, library, columns_of<Element>());
}

dpp::element_order order_of(const std::string& order)
{
  if (order == "ascending") { return dpp::element_order::ascending; }
  if (order == "first_occurrence") { return dpp::element_order::first_occurrence; }
  throw nb::value_error(("order must be 'ascending' or 'first_occurrence', got '" + order + "'").c_str());
}

std::uint32_t find_once_binding(const input_array& elements, const output_array& once, const std::string& method,
                                stream_handle stream)
{
  call_arrays arrays("find_once");
  const dpp::duplicate_method chosen = dpp::parse_duplicate_method(method);
  return with_elements(arrays, elements, [&](auto element_span) {
    const auto once_span = arrays.span<std::uint8_t>(once, "once");
    expect_same_size("find_once", element_span.size(), "elements", once_span.size(), "once");
    return run_on(arrays.where(), stream, [&](const auto& backend) {
      const auto stats = dpp::find_once(backend, element_span, once_span, chosen);
      backend.synchronize();
      return stats.rounds;
    });
  });
}

nb::object once_elements_binding(const input_array& elements, const std::string& method, const std::string& library,
                                 stream_handle stream)
{
  call_arrays arrays("elements_occurring_once");
  const dpp::duplicate_method chosen = dpp::parse_duplicate_method(method);
  return with_elements(arrays, elements, [&](auto element_span) {
    auto found = run_on(arrays.where(), stream, [&](const auto& backend) {
      auto result = dpp::elements_occurring_once(backend, element_span, chosen);
      backend.synchronize();
      return result;
    });
    return owned_elements(std::move(found), arrays.where(), library);
  });
}

nb::object unique_binding(const input_array& elements, const std::string& order, const std::string& method,
                          const std::string& library, stream_handle stream)
{
  call_arrays arrays("unique_elements");
  const dpp::element_order chosen = order_of(order);
  const dpp::duplicate_method chosen_method = dpp::parse_duplicate_method(method);
  return with_elements(arrays, elements, [&](auto element_span) {
    auto found = run_on(arrays.where(), stream, [&](const auto& backend) {
      auto result = dpp::unique_elements(backend, element_span, chosen, chosen_method);
      backend.synchronize();
      return result;
    });
    return owned_elements(std::move(found), arrays.where(), library);
  });
}

nb::tuple count_binding(const input_array& elements, const std::string& order, bool first_positions,
                        const std::string& method, const std::string& library, stream_handle stream)
{
  call_arrays arrays("count_elements");
  const dpp::element_order chosen = order_of(order);
  const auto outputs = first_positions ? dpp::count_outputs::with_first_positions : dpp::count_outputs::counts_only;
  const dpp::duplicate_method chosen_method = dpp::parse_duplicate_method(method);
  return with_elements(arrays, elements, [&](auto element_span) {
    auto counted = run_on(arrays.where(), stream, [&](const auto& backend) {
      auto result = dpp::count_elements(backend, element_span, chosen, outputs, chosen_method);
      backend.synchronize();
      return result;
    });
    nb::object positions = nb::none();
    if (first_positions) { positions = owned_array(std::move(counted.first_positions), arrays.where(), library); }
    return nb::make_tuple(owned_elements(std::move(counted.elements), arrays.where(), library),
                          owned_array(std::move(counted.counts), arrays.where(), library), positions);
  });
}

/// Calls `function(keys, values)` with the spans of a uint32 or uint64 key array and an int64 or uint64
/// value array.
template <class Function>
decltype(auto) with_keys_and_values(call_arrays& arrays, const input_array& keys, const input_array& values,
                                    Function&& function)
{
  const auto with_values = [&](auto key_span) {
    if (call_arrays::holds<std::uint64_t>(values)) {
      return function(key_span, arrays.span<std::uint64_t>(values, "values"));
    }
    return function(key_span, arrays.span<std::int64_t>(values, "values"));
  };
  if (call_arrays::holds<std::uint64_t>(keys)) { return with_values(arrays.span<std::uint64_t>(keys, "keys")); }
  return with_values(arrays.span<std::uint32_t>(keys, "keys"));
}

nb::tuple group_by_binding(const input_array& keys, const input_array& values, const std::string& reduction,
                           const std::string& order, const std::string& method, const std::string& library,
                           stream_handle stream)
{
  call_arrays arrays("group_by");
  const dpp::group_reduction chosen = dpp::parse_group_reduction(reduction);
  const dpp::element_order chosen_order = order_of(order);
  const dpp::duplicate_method chosen_method = dpp::parse_duplicate_method(method);
  return with_keys_and_values(arrays, keys, values, [&](auto key_span, auto value_span) {
    expect_same_size("group_by", key_span.size(), "keys", value_span.size(), "values");
    auto grouped = run_on(arrays.where(), stream, [&](const auto& backend) {
      auto result = dpp::group_by(backend, key_span, value_span, chosen, chosen_order, chosen_method);
      backend.synchronize();
      return result;
    });
    return nb::make_tuple(owned_array(std::move(grouped.keys), arrays.where(), library),
                          owned_array(std::move(grouped.values), arrays.where(), library),
                          owned_array(std::move(grouped.counts), arrays.where(), library));
  });
}

}  // namespace

void bind_dpp(nb::module_& module)
{
  module.attr("max_duplicate_search_elements") = dpp::max_duplicate_search_elements;
  module.def("find_once", &find_once_binding, nb::arg("elements"), nb::arg("once"), nb::arg("method"),
             nb::arg("stream"), "once[i] = 1 where elements[i] occurs exactly once; returns the fight rounds run.");
  module.def("elements_occurring_once", &once_elements_binding, nb::arg("elements"), nb::arg("method"),
             nb::arg("library"), nb::arg("stream"), "The elements occurring exactly once, in input order.");
  module.def("unique_elements", &unique_binding, nb::arg("elements"), nb::arg("order"), nb::arg("method"),
             nb::arg("library"), nb::arg("stream"), "The distinct elements, ascending or in order of first occurrence.");
  module.def("count_elements", &count_binding, nb::arg("elements"), nb::arg("order"), nb::arg("first_positions"),
             nb::arg("method"), nb::arg("library"), nb::arg("stream"),
             "(elements, counts, first_positions or None): the distinct elements with their counts.");
  module.def("group_by", &group_by_binding, nb::arg("keys"), nb::arg("values"), nb::arg("reduction"), nb::arg("order"),
             nb::arg("method"), nb::arg("library"), nb::arg("stream"),
             "(keys, values, counts): each distinct key with the reduction of its values and their count.");
}

}  // namespace warpdex::python
