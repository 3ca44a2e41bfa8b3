// Bindings of the LSM family: LSMMap, the GPU LSM ordered dictionary of uint32 or uint64 keys to uint32
// values, on either backend.

#include "arrays.hpp"

#include <warpdex/lsm/lsm_map.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <optional>
#include <string>

namespace warpdex::python {
namespace {

template <class Key>
class lsm_map_binding {
  template <class Backend>
  using map_on = lsm_map<Key, std::uint32_t, Backend>;

 public:
  lsm_map_binding(std::uint64_t batch_size, double cleanup_threshold, const std::string& device, stream_handle stream)
      : map_(placement_of(device), stream, [&](const auto& backend) {
          lsm_options options;
          options.batch_size = batch_size;
          options.cleanup_threshold = cleanup_threshold;
          return std::make_unique<map_on<backend_of<decltype(backend)>>>(backend, options);
        })
  {
  }

  void update(const input_array& keys, const std::optional<input_array>& values,
              const std::optional<input_array>& operations, const std::string& kind)
  {
    const std::string name = "LSMMap." + kind;
    call_arrays arrays(name.c_str());
    const auto key_span = arrays.span<Key>(keys, "keys");
    std::span<const std::uint32_t> value_span;
    if (values) {
      value_span = arrays.span<std::uint32_t>(*values, "values");
      expect_same_size(name.c_str(), key_span.size(), "keys", value_span.size(), "values");
    }
    std::span<const lsm_operation> operation_span;
    if (operations) {
      const auto codes = arrays.span<std::uint8_t>(*operations, "operations");
      operation_span = {reinterpret_cast<const lsm_operation*>(codes.data()), codes.size()};
    }
    map_.visit(arrays, "map", [&](auto& map) {
      if (kind == "update") {
        map.update(key_span, value_span, operation_span);
      } else if (kind == "insert") {
        map.insert(key_span, value_span);
      } else if (kind == "erase") {
        map.erase(key_span);
      } else {
        map.bulk_build(key_span, value_span);
      }
    });
  }

  void lookup(const input_array& queries, const output_array& values, const output_array& found)
  {
    call_arrays arrays("LSMMap.lookup");
    const auto query_span = arrays.span<Key>(queries, "queries");
    const auto value_span = arrays.span<std::uint32_t>(values, "values");
    const auto found_span = arrays.span<std::uint8_t>(found, "found");
    map_.visit(arrays, "map", [&](const auto& map) { map.lookup(query_span, value_span, found_span); });
  }

  void count(const input_array& lower, const input_array& upper, const output_array& counts)
  {
    call_arrays arrays("LSMMap.count");
    const auto lower_span = arrays.span<Key>(lower, "lower");
    const auto upper_span = arrays.span<Key>(upper, "upper");
    const auto count_span = arrays.span<std::uint64_t>(counts, "counts");
    map_.visit(arrays, "map", [&](const auto& map) { map.count(lower_span, upper_span, count_span); });
  }

  nb::tuple range(const input_array& lower, const input_array& upper, const std::string& library)
  {
    call_arrays arrays("LSMMap.range");
    const auto lower_span = arrays.span<Key>(lower, "lower");
    const auto upper_span = arrays.span<Key>(upper, "upper");
    auto result = map_.visit(arrays, "map", [&](const auto& map) { return map.range(lower_span, upper_span); });
    // The pairs are written on the map's stream (the buffers'): done before Python reads them.
    if (map_.where().cuda) { detail::synchronize(result.keys.stream()); }
    return nb::make_tuple(owned_array(std::move(result.offsets), map_.where(), library),
                          owned_array(std::move(result.keys), map_.where(), library),
                          owned_array(std::move(result.values), map_.where(), library));
  }

  void neighbour(const input_array& queries, const output_array& keys, const output_array& values,
                 const output_array& found, bool successor)
  {
    call_arrays arrays(successor ? "LSMMap.successor" : "LSMMap.predecessor");
    const auto query_span = arrays.span<Key>(queries, "queries");
    const auto key_span = arrays.span<Key>(keys, "keys");
    const auto value_span = arrays.span<std::uint32_t>(values, "values");
    const auto found_span = arrays.span<std::uint8_t>(found, "found");
    map_.visit(arrays, "map", [&](const auto& map) {
      successor ? map.successor(query_span, key_span, value_span, found_span)
                : map.predecessor(query_span, key_span, value_span, found_span);
    });
  }

  nb::tuple items(const std::string& library)
  {
    auto contents = map_.visit([&](const auto& map) { return map.retrieve_all(); });  // synchronizes
    return nb::make_tuple(owned_array(std::move(contents.keys), map_.where(), library),
                          owned_array(std::move(contents.values), map_.where(), library));
  }

  void cleanup()
  {
    map_.visit([](auto& map) { map.cleanup(); });
  }
  std::uint64_t size()
  {
    return map_.visit([](const auto& map) { return map.size(); });
  }
  std::uint64_t resident_entries()
  {
    return map_.visit([](const auto& map) { return map.resident_entries(); });
  }
  std::uint64_t resident_stale()
  {
    return map_.visit([](const auto& map) { return map.resident_stale(); });
  }
  std::uint64_t resident_tombstones()
  {
    return map_.visit([](const auto& map) { return map.resident_tombstones(); });
  }
  std::uint64_t occupied_levels()
  {
    return map_.visit([](const auto& map) { return static_cast<std::uint64_t>(map.occupied_levels()); });
  }
  void set_cleanup_threshold(double threshold)
  {
    map_.visit([&](auto& map) { map.set_cleanup_threshold(threshold); });
  }
  [[nodiscard]] std::string device() const { return map_.device(); }

 private:
  on_backend<map_on> map_;
};

template <class Key>
void bind_lsm_map(nb::module_& module, const char* name)
{
  using binding = lsm_map_binding<Key>;
  nb::class_<binding>(module, name, "The compiled LSM; use warpdex.LSMMap.")
      .def(nb::init<std::uint64_t, double, const std::string&, stream_handle>(), nb::arg("batch_size"),
           nb::arg("cleanup_threshold"), nb::arg("device"), nb::arg("stream"))
      .def("update", &binding::update, nb::arg("keys"), nb::arg("values").none(), nb::arg("operations").none(),
           nb::arg("kind"))
      .def("lookup", &binding::lookup, nb::arg("queries"), nb::arg("values"), nb::arg("found"))
      .def("count", &binding::count, nb::arg("lower"), nb::arg("upper"), nb::arg("counts"))
      .def("range", &binding::range, nb::arg("lower"), nb::arg("upper"), nb::arg("library"))
      .def("neighbour", &binding::neighbour, nb::arg("queries"), nb::arg("keys"), nb::arg("values"), nb::arg("found"),
           nb::arg("successor"))
      .def("items", &binding::items, nb::arg("library"))
      .def("cleanup", &binding::cleanup)
      .def("size", &binding::size)
      .def("resident_entries", &binding::resident_entries)
      .def("resident_stale", &binding::resident_stale)
      .def("resident_tombstones", &binding::resident_tombstones)
      .def("occupied_levels", &binding::occupied_levels)
      .def("set_cleanup_threshold", &binding::set_cleanup_threshold, nb::arg("threshold"))
      .def_prop_ro("device", &binding::device);
}

}  // namespace

void bind_lsm(nb::module_& module)
{
  bind_lsm_map<std::uint32_t>(module, "LSMMapCore32");
  bind_lsm_map<std::uint64_t>(module, "LSMMapCore64");
}

}  // namespace warpdex::python
