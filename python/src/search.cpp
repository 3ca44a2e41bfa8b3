// Bindings of the search family: SortedIndex (batched searches of a sorted array) and exact string
// matching (count_matches, find_matches).

#include "arrays.hpp"

#include <warpdex/search/sorted_search.hpp>
#include <warpdex/search/string_match.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

namespace warpdex::python {
namespace {

search_algorithm search_algorithm_of(const std::string& name)
{
  return parse_search_algorithm(name);  // warpdex::error (ValueError) for an unknown name
}

/// A sorted_index over the caller's keys (not copied: the Python object keeps them alive) on either backend.
template <class Key>
class sorted_index_binding {
  template <class Backend>
  using index_on = sorted_index<Key, Backend>;

  static placement placement_of_keys(const input_array& keys)
  {
    call_arrays arrays("SortedIndex");
    arrays.span<Key>(keys, "keys");
    return arrays.where();
  }

 public:
  sorted_index_binding(const input_array& keys, bool check, stream_handle stream)
      : index_(placement_of_keys(keys), stream, [&](const auto& backend) {
          const std::span<const Key> key_span(static_cast<const Key*>(keys.data()), keys.shape(0));
          if (check) {
            WARPDEX_EXPECTS(check_sorted(backend, key_span), "SortedIndex: the keys are not in ascending order");
          }
          return std::make_unique<index_on<backend_of<decltype(backend)>>>(backend, key_span);
        })
  {
  }

  void bound(const input_array& queries, const output_array& positions, bool upper, const std::string& algorithm)
  {
    call_arrays arrays(upper ? "SortedIndex.upper_bound" : "SortedIndex.lower_bound");
    const auto query_span = arrays.span<Key>(queries, "queries");
    const auto position_span = arrays.span<std::uint64_t>(positions, "positions");
    const search_algorithm chosen = search_algorithm_of(algorithm);
    index_.visit(arrays, "index", [&](const auto& index) {
      upper ? index.upper_bound(query_span, position_span, chosen)
            : index.lower_bound(query_span, position_span, chosen);
    });
  }

  void equal_range(const input_array& queries, const output_array& first, const output_array& last,
                   const std::string& algorithm)
  {
    call_arrays arrays("SortedIndex.equal_range");
    const auto query_span = arrays.span<Key>(queries, "queries");
    const auto first_span = arrays.span<std::uint64_t>(first, "first");
    const auto last_span = arrays.span<std::uint64_t>(last, "last");
    const search_algorithm chosen = search_algorithm_of(algorithm);
    index_.visit(arrays, "index",
                 [&](const auto& index) { index.equal_range(query_span, first_span, last_span, chosen); });
  }

  void contains(const input_array& queries, const output_array& found, const std::string& algorithm)
  {
    call_arrays arrays("SortedIndex.contains");
    const auto query_span = arrays.span<Key>(queries, "queries");
    const auto found_span = arrays.span<std::uint8_t>(found, "found");
    const search_algorithm chosen = search_algorithm_of(algorithm);
    index_.visit(arrays, "index", [&](const auto& index) { index.contains(query_span, found_span, chosen); });
  }

  [[nodiscard]] std::uint64_t size() const
  {
    return index_.visit([](const auto& index) { return index.size(); });
  }

 private:
  on_backend<index_on> index_;
};

template <class Key>
void bind_sorted_index(nb::module_& module, const char* name)
{
  using binding = sorted_index_binding<Key>;
  nb::class_<binding>(module, name, "The compiled sorted index; use warpdex.SortedIndex.")
      .def(nb::init<const input_array&, bool, stream_handle>(), nb::arg("keys"), nb::arg("check"), nb::arg("stream"))
      .def("bound", &binding::bound, nb::arg("queries"), nb::arg("positions"), nb::arg("upper"), nb::arg("algorithm"))
      .def("equal_range", &binding::equal_range, nb::arg("queries"), nb::arg("first"), nb::arg("last"),
           nb::arg("algorithm"))
      .def("contains", &binding::contains, nb::arg("queries"), nb::arg("found"), nb::arg("algorithm"))
      .def("size", &binding::size);
}

std::span<const std::uint8_t> bytes_of(const nb::bytes& pattern)
{
  return {reinterpret_cast<const std::uint8_t*>(pattern.c_str()), pattern.size()};
}

std::uint64_t count_matches_binding(const input_array& text, const nb::bytes& pattern, const std::string& algorithm,
                                    stream_handle stream)
{
  call_arrays arrays("count_matches");
  const auto text_span = arrays.span<std::uint8_t>(text, "text");
  const match_algorithm chosen = parse_match_algorithm(algorithm);
  const auto pattern_span = bytes_of(pattern);
  return run_on(arrays.where(), stream,
                [&](const auto& backend) { return count_matches(backend, text_span, pattern_span, chosen); });
}

nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>> count_patterns_binding(const input_array& text,
                                                                          const std::vector<nb::bytes>& patterns,
                                                                          stream_handle stream)
{
  call_arrays arrays("count_matches");
  const auto text_span = arrays.span<std::uint8_t>(text, "text");
  std::vector<std::span<const std::uint8_t>> pattern_spans;
  pattern_spans.reserve(patterns.size());
  for (const nb::bytes& pattern : patterns) { pattern_spans.push_back(bytes_of(pattern)); }
  auto counts = run_on(arrays.where(), stream, [&](const auto& backend) {
    return count_matches(backend, text_span, std::span<const std::span<const std::uint8_t>>(pattern_spans));
  });
  return host_array(std::move(counts));
}

nb::object find_matches_binding(const input_array& text, const nb::bytes& pattern, const std::string& algorithm,
                                const std::string& library, stream_handle stream)
{
  call_arrays arrays("find_matches");
  const auto text_span = arrays.span<std::uint8_t>(text, "text");
  const match_algorithm chosen = parse_match_algorithm(algorithm);
  const auto pattern_span = bytes_of(pattern);
  auto positions = run_on(arrays.where(), stream, [&](const auto& backend) {
    auto found = find_matches(backend, text_span, pattern_span, chosen);
    backend.synchronize();
    return found;
  });
  return owned_array(std::move(positions), arrays.where(), library);
}

}  // namespace

void bind_search(nb::module_& module)
{
  bind_sorted_index<std::uint32_t>(module, "SortedIndexCore32");
  bind_sorted_index<std::uint64_t>(module, "SortedIndexCore64");
  module.attr("max_patterns_per_pass") = max_patterns_per_pass;
  module.def("count_matches", &count_matches_binding, nb::arg("text"), nb::arg("pattern"), nb::arg("algorithm"),
             nb::arg("stream"), "Occurrences (overlapping) of one pattern in a uint8 text.");
  module.def("count_patterns", &count_patterns_binding, nb::arg("text"), nb::arg("patterns"), nb::arg("stream"),
             "Occurrences of each of several patterns in one pass over a uint8 text.");
  module.def("find_matches", &find_matches_binding, nb::arg("text"), nb::arg("pattern"), nb::arg("algorithm"),
             nb::arg("library"), nb::arg("stream"), "Every starting position of the pattern, ascending (uint64).");
}

}  // namespace warpdex::python
