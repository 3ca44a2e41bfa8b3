// Bindings of the hash family: SlabMap, the slab hash map of uint32 keys and values, on either backend.

#include "arrays.hpp"

#include <warpdex/hash/slab_map.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <memory>
#include <optional>
#include <string>

namespace warpdex::python {
namespace {

template <class Backend>
using map_on = hash::slab_map<std::uint32_t, std::uint32_t, Backend>;
using host_map = map_on<host>;

/// Status and operation codes travel as uint32 or int32 arrays (the same codes; PyTorch has int32 arithmetic
/// on every device, uint32 on few): the span reinterprets them as the library's enum.
template <class Code, class Array>
auto code_span(call_arrays& arrays, const Array& array, const char* name)
{
  if (call_arrays::holds<std::int32_t>(array)) {
    auto words = arrays.span<std::int32_t>(array, name);
    using element = std::conditional_t<std::is_const_v<typename decltype(words)::element_type>, const Code, Code>;
    return std::span<element>(reinterpret_cast<element*>(words.data()), words.size());
  }
  auto words = arrays.span<std::uint32_t>(array, name);
  using element = std::conditional_t<std::is_const_v<typename decltype(words)::element_type>, const Code, Code>;
  return std::span<element>(reinterpret_cast<element*>(words.data()), words.size());
}

class slab_map_binding {
 public:
  slab_map_binding(std::uint64_t expected_keys, double base_fill, bool grows, std::uint64_t seed,
                   const std::string& device, stream_handle stream)
      : map_(placement_of(device), stream, [&](const auto& backend) {
          hash::slab_capacity capacity = host_map::capacity_for(expected_keys, base_fill);
          capacity.grows = grows;
          return std::make_unique<map_on<backend_of<decltype(backend)>>>(backend, capacity, seed);
        })
  {
  }

  void insert(const input_array& keys, const input_array& values, const std::optional<output_array>& statuses,
              bool assign)
  {
    const char* name = assign ? "SlabMap.insert_or_assign" : "SlabMap.insert";
    call_arrays arrays(name);
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto value_span = arrays.span<std::uint32_t>(values, "values");
    expect_same_size(name, key_span.size(), "keys", value_span.size(), "values");
    std::span<hash::operation_status> status_span;
    if (statuses) {
      status_span = code_span<hash::operation_status>(arrays, *statuses, "statuses");
      expect_same_size(name, key_span.size(), "keys", status_span.size(), "statuses");
    }
    map_.visit(arrays, "map", [&](auto& map) {
      if (assign) {
        statuses ? map.insert_or_assign(key_span, value_span, status_span) : map.insert_or_assign(key_span, value_span);
      } else {
        statuses ? map.insert(key_span, value_span, status_span) : map.insert(key_span, value_span);
      }
    });
  }

  void erase(const input_array& keys, const std::optional<output_array>& statuses)
  {
    call_arrays arrays("SlabMap.erase");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    if (statuses) {
      const auto status_span = code_span<hash::operation_status>(arrays, *statuses, "statuses");
      expect_same_size("SlabMap.erase", key_span.size(), "keys", status_span.size(), "statuses");
      map_.visit(arrays, "map", [&](auto& map) { map.erase(key_span, status_span); });
    } else {
      map_.visit(arrays, "map", [&](auto& map) { map.erase(key_span); });
    }
  }

  void find(const input_array& keys, const output_array& values, const output_array& statuses)
  {
    call_arrays arrays("SlabMap.find");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto value_span = arrays.span<std::uint32_t>(values, "values");
    const auto status_span = code_span<hash::operation_status>(arrays, statuses, "statuses");
    expect_same_size("SlabMap.find", key_span.size(), "keys", value_span.size(), "values");
    expect_same_size("SlabMap.find", key_span.size(), "keys", status_span.size(), "statuses");
    map_.visit(arrays, "map", [&](auto& map) { map.find(key_span, value_span, status_span); });
  }

  void contains(const input_array& keys, const output_array& found)
  {
    call_arrays arrays("SlabMap.contains");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto found_span = arrays.span<std::uint8_t>(found, "found");
    expect_same_size("SlabMap.contains", key_span.size(), "keys", found_span.size(), "found");
    map_.visit(arrays, "map", [&](auto& map) { map.contains(key_span, found_span); });
  }

  void execute(const input_array& operations, const input_array& keys, const input_array& values_in,
               const output_array& values_out, const output_array& statuses)
  {
    call_arrays arrays("SlabMap.execute");
    const auto operation_span = code_span<hash::operation>(arrays, operations, "operations");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto value_span = arrays.span<std::uint32_t>(values_in, "values");
    const auto out_span = arrays.span<std::uint32_t>(values_out, "values_out");
    const auto status_span = code_span<hash::operation_status>(arrays, statuses, "statuses");
    map_.visit(arrays, "map",
               [&](auto& map) { map.execute(operation_span, key_span, value_span, out_span, status_span); });
  }

  /// The live pairs as two arrays in the map's memory, owned by the arrays.
  nb::tuple items(const std::string& library)
  {
    auto [keys, values] = map_.visit([&](auto& map) {
      const std::uint64_t live = map.size();
      auto key_buffer = make_buffer<std::uint32_t>(map.backend(), live);
      auto value_buffer = make_buffer<std::uint32_t>(map.backend(), live);
      map.export_pairs(key_buffer.span(), value_buffer.span());
      map.backend().synchronize();
      return std::make_pair(std::move(key_buffer), std::move(value_buffer));
    });
    return nb::make_tuple(owned_array(std::move(keys), map_.where(), library),
                          owned_array(std::move(values), map_.where(), library));
  }

  std::uint64_t size()
  {
    return map_.visit([](auto& map) { return map.size(); });
  }
  void clear()
  {
    map_.visit([](auto& map) { map.clear(); });
  }
  void flush()
  {
    map_.visit([](auto& map) { map.flush(); });
  }
  void rehash(std::uint64_t expected_keys, double base_fill)
  {
    map_.visit([&](auto& map) {
      hash::slab_capacity capacity = host_map::capacity_for(expected_keys, base_fill);
      capacity.grows = map.capacity().grows;
      map.rehash(capacity);
    });
  }

  nb::dict statistics()
  {
    const hash::slab_statistics stats = map_.visit([](auto& map) { return map.statistics(); });
    nb::dict result;
    result["bucket_count"] = stats.bucket_count;
    result["pool_slabs"] = stats.pool_slabs;
    result["super_block_count"] = stats.super_block_count;
    result["slabs_in_use"] = stats.slabs_in_use;
    result["live"] = stats.live;
    result["erased"] = stats.erased;
    result["longest_chain"] = stats.longest_chain;
    result["mean_slabs_per_bucket"] = stats.mean_slabs_per_bucket;
    result["memory_utilization"] = stats.memory_utilization;
    result["bytes_per_live_entry"] = stats.bytes_per_live_entry;
    result["reserved_bytes"] = stats.reserved_bytes;
    return result;
  }

  [[nodiscard]] std::string device() const { return map_.device(); }

 private:
  on_backend<map_on> map_;
};

}  // namespace

void bind_hash(nb::module_& module)
{
  module.attr("slab_empty_key") = hash::empty_key;
  module.attr("slab_erased_key") = hash::erased_key;
  module.attr("slab_max_user_key") = hash::max_user_key;
  module.attr("slab_default_seed") = host_map::default_seed;
  nb::class_<slab_map_binding>(module, "SlabMapCore", "The compiled slab hash map; use warpdex.SlabMap.")
      .def(nb::init<std::uint64_t, double, bool, std::uint64_t, const std::string&, stream_handle>(),
           nb::arg("expected_keys"), nb::arg("base_fill"), nb::arg("grows"), nb::arg("seed"), nb::arg("device"),
           nb::arg("stream"))
      .def("insert", &slab_map_binding::insert, nb::arg("keys"), nb::arg("values"), nb::arg("statuses").none(),
           nb::arg("assign"))
      .def("erase", &slab_map_binding::erase, nb::arg("keys"), nb::arg("statuses").none())
      .def("find", &slab_map_binding::find, nb::arg("keys"), nb::arg("values"), nb::arg("statuses"))
      .def("contains", &slab_map_binding::contains, nb::arg("keys"), nb::arg("found"))
      .def("execute", &slab_map_binding::execute, nb::arg("operations"), nb::arg("keys"), nb::arg("values"),
           nb::arg("values_out"), nb::arg("statuses"))
      .def("items", &slab_map_binding::items, nb::arg("library"))
      .def("size", &slab_map_binding::size)
      .def("clear", &slab_map_binding::clear)
      .def("flush", &slab_map_binding::flush)
      .def("rehash", &slab_map_binding::rehash, nb::arg("expected_keys"), nb::arg("base_fill"))
      .def("statistics", &slab_map_binding::statistics)
      .def_prop_ro("device", &slab_map_binding::device);
}

}  // namespace warpdex::python
