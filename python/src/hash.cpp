// Bindings of the hash family: SlabMap and SlabMultimap, the slab hash of uint32 keys and values in unique-key
// and multimap mode, on either backend.

#include "arrays.hpp"

#include <warpdex/hash/slab_map.hpp>
#include <warpdex/hash/slab_multimap.hpp>

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
template <class Backend>
using multimap_on = hash::slab_multimap<std::uint32_t, std::uint32_t, Backend>;

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

/// A slab table (`TableOn<Backend>`: a slab_map or a slab_multimap) on either backend, with the operations
/// both have; the mode's own are added where `multimap` says.
template <template <class> class TableOn>
class slab_binding {
 public:
  static constexpr bool multimap = std::is_same_v<TableOn<host>, multimap_on<host>>;
  static constexpr const char* name = multimap ? "SlabMultimap" : "SlabMap";

  static hash::slab_capacity capacity_of(std::uint64_t expected, double base_fill, std::uint32_t values_per_key)
  {
    if constexpr (multimap) {
      return TableOn<host>::capacity_for(expected, base_fill, values_per_key);
    } else {
      return TableOn<host>::capacity_for(expected, base_fill);
    }
  }

  slab_binding(std::uint64_t expected, double base_fill, std::uint32_t values_per_key, bool grows, std::uint64_t seed,
               const std::string& device, stream_handle stream)
      : map_(placement_of(device), stream, [&](const auto& backend) {
          hash::slab_capacity capacity = capacity_of(expected, base_fill, values_per_key);
          capacity.grows = grows;
          return std::make_unique<TableOn<backend_of<decltype(backend)>>>(backend, capacity, seed);
        })
  {
  }

  void insert(const input_array& keys, const input_array& values, const std::optional<output_array>& statuses,
              bool assign)
  {
    const std::string function = std::string(name) + (assign ? ".insert_or_assign" : ".insert");
    call_arrays arrays(function.c_str());
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto value_span = arrays.span<std::uint32_t>(values, "values");
    expect_same_size(arrays.function(), key_span.size(), "keys", value_span.size(), "values");
    std::span<hash::operation_status> status_span;
    if (statuses) {
      status_span = code_span<hash::operation_status>(arrays, *statuses, "statuses");
      expect_same_size(arrays.function(), key_span.size(), "keys", status_span.size(), "statuses");
    }
    map_.visit(arrays, "map", [&](auto& map) {
      if constexpr (!multimap) {
        if (assign) {
          statuses ? map.insert_or_assign(key_span, value_span, status_span)
                   : map.insert_or_assign(key_span, value_span);
          return;
        }
      }
      statuses ? map.insert(key_span, value_span, status_span) : map.insert(key_span, value_span);
    });
  }

  /// Erases one instance of each key (the only one in a map); with `every_instance` (multimaps, statuses
  /// required) all of them.
  void erase(const input_array& keys, const std::optional<output_array>& statuses, bool every_instance)
  {
    const std::string function = std::string(name) + (every_instance ? ".erase_all" : ".erase");
    call_arrays arrays(function.c_str());
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    if (statuses) {
      const auto status_span = code_span<hash::operation_status>(arrays, *statuses, "statuses");
      expect_same_size(arrays.function(), key_span.size(), "keys", status_span.size(), "statuses");
      map_.visit(arrays, "map", [&](auto& map) {
        if constexpr (multimap) {
          if (every_instance) {
            map.erase_all(key_span, status_span);
            return;
          }
        }
        map.erase(key_span, status_span);
      });
    } else {
      map_.visit(arrays, "map", [&](auto& map) { map.erase(key_span); });
    }
  }

  void find(const input_array& keys, const output_array& values, const output_array& statuses) requires(!multimap)
  {
    call_arrays arrays("SlabMap.find");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto value_span = arrays.span<std::uint32_t>(values, "values");
    const auto status_span = code_span<hash::operation_status>(arrays, statuses, "statuses");
    expect_same_size("SlabMap.find", key_span.size(), "keys", value_span.size(), "values");
    expect_same_size("SlabMap.find", key_span.size(), "keys", status_span.size(), "statuses");
    map_.visit(arrays, "map", [&](auto& map) { map.find(key_span, value_span, status_span); });
  }

  /// The find writing `default_value` for misses and a found flag (one pass).
  void find_or_default(const input_array& keys, const output_array& values, const output_array& found,
                       std::uint32_t default_value) requires(!multimap)
  {
    call_arrays arrays("SlabMap.find");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto value_span = arrays.span<std::uint32_t>(values, "values");
    const auto found_span = arrays.span<std::uint8_t>(found, "found");
    expect_same_size("SlabMap.find", key_span.size(), "keys", value_span.size(), "values");
    expect_same_size("SlabMap.find", key_span.size(), "keys", found_span.size(), "found");
    map_.visit(arrays, "map", [&](auto& map) { map.find(key_span, value_span, found_span, default_value); });
  }

  /// Many insertion batches in one call (slab_map::insert_many_async, waited for): batch b is the pairs
  /// [offsets[b], offsets[b + 1]); a batch holding a reserved key is rejected alone.
  void insert_many(const input_array& keys, const input_array& values, const input_array& offsets,
                   const output_array& statuses) requires(!multimap)
  {
    call_arrays arrays("SlabMap.insert_many");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto value_span = arrays.span<std::uint32_t>(values, "values");
    const auto offset_span = arrays.span<std::uint64_t>(offsets, "offsets");
    const auto status_span = code_span<hash::operation_status>(arrays, statuses, "statuses");
    expect_same_size(arrays.function(), key_span.size(), "keys", value_span.size(), "values");
    expect_same_size(arrays.function(), key_span.size(), "keys", status_span.size(), "statuses");
    map_.visit(arrays, "map",
               [&](auto& map) { map.insert_many_async(key_span, value_span, offset_span, status_span); });
  }

  /// Many find batches in one call (slab_map::find_many_async with statuses, waited for).
  void find_many(const input_array& keys, const input_array& offsets, const output_array& values,
                 const output_array& statuses) requires(!multimap)
  {
    call_arrays arrays("SlabMap.find_many");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto offset_span = arrays.span<std::uint64_t>(offsets, "offsets");
    const auto value_span = arrays.span<std::uint32_t>(values, "values");
    const auto status_span = code_span<hash::operation_status>(arrays, statuses, "statuses");
    expect_same_size(arrays.function(), key_span.size(), "keys", value_span.size(), "values");
    expect_same_size(arrays.function(), key_span.size(), "keys", status_span.size(), "statuses");
    map_.visit(arrays, "map", [&](auto& map) { map.find_many_async(key_span, offset_span, value_span, status_span); });
  }

  void count(const input_array& keys, const output_array& counts) requires multimap
  {
    call_arrays arrays("SlabMultimap.count");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto count_span = arrays.span<std::uint64_t>(counts, "counts");
    expect_same_size("SlabMultimap.count", key_span.size(), "keys", count_span.size(), "counts");
    map_.visit(arrays, "map", [&](auto& map) { map.count(key_span, count_span); });
  }

  /// The count pass of find_all: writes the n + 1 offsets and returns the total.
  std::uint64_t find_all_offsets(const input_array& keys, const output_array& offsets) requires multimap
  {
    call_arrays arrays("SlabMultimap.find_all");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto offset_span = arrays.span<std::uint64_t>(offsets, "offsets");
    return map_.visit(arrays, "map", [&](auto& map) { return map.find_all_offsets(key_span, offset_span); });
  }

  /// The fill pass of find_all.
  void find_all(const input_array& keys, const input_array& offsets, const output_array& values) requires multimap
  {
    call_arrays arrays("SlabMultimap.find_all");
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto offset_span = arrays.span<std::uint64_t>(offsets, "offsets");
    const auto value_span = arrays.span<std::uint32_t>(values, "values");
    map_.visit(arrays, "map", [&](auto& map) { map.find_all(key_span, offset_span, value_span); });
  }

  void contains(const input_array& keys, const output_array& found)
  {
    const std::string function = std::string(name) + ".contains";
    call_arrays arrays(function.c_str());
    const auto key_span = arrays.span<std::uint32_t>(keys, "keys");
    const auto found_span = arrays.span<std::uint8_t>(found, "found");
    expect_same_size(arrays.function(), key_span.size(), "keys", found_span.size(), "found");
    map_.visit(arrays, "map", [&](auto& map) { map.contains(key_span, found_span); });
  }

  void execute(const input_array& operations, const input_array& keys, const input_array& values_in,
               const output_array& values_out, const output_array& statuses)
  {
    const std::string function = std::string(name) + ".execute";
    call_arrays arrays(function.c_str());
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
      hash::slab_capacity capacity = capacity_of(expected_keys, base_fill, 1);
      capacity.grows = map.capacity().grows;
      capacity.super_block_limit = map.capacity().super_block_limit;
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
  on_backend<TableOn> map_;
};

template <template <class> class TableOn>
nb::class_<slab_binding<TableOn>> bind_slab_table(nb::module_& module, const char* name, const char* doc)
{
  using binding = slab_binding<TableOn>;
  return nb::class_<binding>(module, name, doc)
      .def(nb::init<std::uint64_t, double, std::uint32_t, bool, std::uint64_t, const std::string&, stream_handle>(),
           nb::arg("expected"), nb::arg("base_fill"), nb::arg("values_per_key"), nb::arg("grows"), nb::arg("seed"),
           nb::arg("device"), nb::arg("stream"))
      .def("insert", &binding::insert, nb::arg("keys"), nb::arg("values"), nb::arg("statuses").none(),
           nb::arg("assign"))
      .def("erase", &binding::erase, nb::arg("keys"), nb::arg("statuses").none(), nb::arg("every_instance"))
      .def("contains", &binding::contains, nb::arg("keys"), nb::arg("found"))
      .def("execute", &binding::execute, nb::arg("operations"), nb::arg("keys"), nb::arg("values"),
           nb::arg("values_out"), nb::arg("statuses"))
      .def("items", &binding::items, nb::arg("library"))
      .def("size", &binding::size)
      .def("clear", &binding::clear)
      .def("flush", &binding::flush)
      .def("rehash", &binding::rehash, nb::arg("expected_keys"), nb::arg("base_fill"))
      .def("statistics", &binding::statistics)
      .def_prop_ro("device", &binding::device);
}

}  // namespace

void bind_hash(nb::module_& module)
{
  module.attr("slab_empty_key") = hash::empty_key;
  module.attr("slab_erased_key") = hash::erased_key;
  module.attr("slab_max_user_key") = hash::max_user_key;
  module.attr("slab_default_seed") = map_on<host>::default_seed;
  bind_slab_table<map_on>(module, "SlabMapCore", "The compiled slab hash map; use warpdex.SlabMap.")
      .def("find", &slab_binding<map_on>::find, nb::arg("keys"), nb::arg("values"), nb::arg("statuses"))
      .def("find_or_default", &slab_binding<map_on>::find_or_default, nb::arg("keys"), nb::arg("values"),
           nb::arg("found"), nb::arg("default"))
      .def("insert_many", &slab_binding<map_on>::insert_many, nb::arg("keys"), nb::arg("values"), nb::arg("offsets"),
           nb::arg("statuses"))
      .def("find_many", &slab_binding<map_on>::find_many, nb::arg("keys"), nb::arg("offsets"), nb::arg("values"),
           nb::arg("statuses"));
  bind_slab_table<multimap_on>(module, "SlabMultimapCore", "The compiled slab hash multimap; use warpdex.SlabMultimap.")
      .def("count", &slab_binding<multimap_on>::count, nb::arg("keys"), nb::arg("counts"))
      .def("find_all_offsets", &slab_binding<multimap_on>::find_all_offsets, nb::arg("keys"), nb::arg("offsets"))
      .def("find_all", &slab_binding<multimap_on>::find_all, nb::arg("keys"), nb::arg("offsets"), nb::arg("values"));
}

}  // namespace warpdex::python
