// Bindings of the distributed family: DistributedSlabMapCore, a distributed_slab_map over GPUs of this process (an
// NCCL communicator of its own, one rank per GPU). Compiled in every build, so that the module's stubs are the same
// everywhere; without NCCL its constructor says so.

#include "arrays.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#if WARPDEX_PYTHON_HAS_NCCL
#include <warpdex/core/cuda_check.hpp>
#include <warpdex/distributed/communicator.hpp>
#include <warpdex/distributed/distributed_slab_map.hpp>

#include <cuda_runtime_api.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace warpdex::python {
namespace {

#if WARPDEX_PYTHON_HAS_NCCL
using group_type = distributed::communicator;
using map_type = distributed::distributed_slab_map<group_type>;

/// Rank i's span of array i, after checking that it is a contiguous one-dimensional array of T on GPU devices[i].
/// Status arrays (T = hash::operation_status) may hold int32 or uint32 codes.
template <class T, class Array>
auto rank_span(const std::vector<Array>& arrays, std::size_t rank, int device, const std::string& function,
               const char* name)
{
  const std::string label = std::string(name) + "[" + std::to_string(rank) + "]";
  call_arrays checked(function.c_str());
  using element = std::conditional_t<std::is_const_v<std::remove_pointer_t<decltype(arrays[rank].data())>>, const T, T>;
  std::span<element> span;
  if constexpr (std::is_same_v<T, hash::operation_status>) {
    if (call_arrays::holds<std::int32_t>(arrays[rank])) {
      const auto words = checked.span<std::int32_t>(arrays[rank], label.c_str());
      span = {reinterpret_cast<element*>(words.data()), words.size()};
    } else {
      const auto words = checked.span<std::uint32_t>(arrays[rank], label.c_str());
      span = {reinterpret_cast<element*>(words.data()), words.size()};
    }
  } else {
    span = checked.span<T>(arrays[rank], label.c_str());
  }
  const placement& where = checked.where();
  if (!where.cuda || where.device != device) {
    throw nb::value_error((function + ": " + label + " lives on " +
                           (where.cuda ? "cuda:" + std::to_string(where.device) : std::string("cpu")) + "; rank " +
                           std::to_string(rank) + " is GPU cuda:" + std::to_string(device))
                              .c_str());
  }
  return span;
}

/// The distributed map and the communicator it runs over.
class distributed_binding {
 public:
  distributed_binding(std::uint64_t expected_keys, const std::optional<std::vector<int>>& devices)
  {
    ::setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);  // NVLink multicast off unless the user says otherwise
    devices_ = devices ? *devices : group_type::visible_devices();
    nb::gil_scoped_release released;
    group_ = std::make_unique<group_type>(devices_);
    map_ = std::make_unique<map_type>(*group_, expected_keys);
  }

  ~distributed_binding()
  {
    map_.reset();  // the tables before the communicator whose GPUs hold them
    group_.reset();
  }
  distributed_binding(const distributed_binding&) = delete;
  distributed_binding& operator=(const distributed_binding&) = delete;

  void insert(const std::vector<input_array>& keys, const std::vector<input_array>& values,
              const std::optional<std::vector<output_array>>& statuses, bool assign)
  {
    const std::string function = assign ? "DistributedSlabMap.insert_or_assign" : "DistributedSlabMap.insert";
    expect_ranks(function, keys.size(), "keys");
    expect_ranks(function, values.size(), "values");
    distributed::per_rank<const std::uint32_t> key_spans, value_spans;
    distributed::per_rank<hash::operation_status> status_spans;
    for (std::size_t rank = 0; rank < devices_.size(); ++rank) {
      key_spans.push_back(rank_span<std::uint32_t>(keys, rank, devices_[rank], function, "keys"));
      value_spans.push_back(rank_span<std::uint32_t>(values, rank, devices_[rank], function, "values"));
    }
    if (statuses) {
      expect_ranks(function, statuses->size(), "statuses");
      for (std::size_t rank = 0; rank < devices_.size(); ++rank) {
        status_spans.push_back(
            rank_span<hash::operation_status>(*statuses, rank, devices_[rank], function, "statuses"));
      }
    }
    call([&] {
      if (assign) {
        map_->insert_or_assign(key_spans, value_spans, status_spans);
      } else {
        map_->insert(key_spans, value_spans, status_spans);
      }
    });
  }

  void find(const std::vector<input_array>& keys, const std::vector<output_array>& values,
            const std::vector<output_array>& statuses)
  {
    const std::string function = "DistributedSlabMap.find";
    expect_ranks(function, keys.size(), "keys");
    expect_ranks(function, values.size(), "values");
    expect_ranks(function, statuses.size(), "statuses");
    distributed::per_rank<const std::uint32_t> key_spans;
    distributed::per_rank<std::uint32_t> value_spans;
    distributed::per_rank<hash::operation_status> status_spans;
    for (std::size_t rank = 0; rank < devices_.size(); ++rank) {
      key_spans.push_back(rank_span<std::uint32_t>(keys, rank, devices_[rank], function, "keys"));
      value_spans.push_back(rank_span<std::uint32_t>(values, rank, devices_[rank], function, "values"));
      status_spans.push_back(rank_span<hash::operation_status>(statuses, rank, devices_[rank], function, "statuses"));
    }
    call([&] { map_->find(key_spans, value_spans, status_spans); });
  }

  void erase(const std::vector<input_array>& keys, const std::optional<std::vector<output_array>>& statuses)
  {
    const std::string function = "DistributedSlabMap.erase";
    expect_ranks(function, keys.size(), "keys");
    distributed::per_rank<const std::uint32_t> key_spans;
    distributed::per_rank<hash::operation_status> status_spans;
    for (std::size_t rank = 0; rank < devices_.size(); ++rank) {
      key_spans.push_back(rank_span<std::uint32_t>(keys, rank, devices_[rank], function, "keys"));
    }
    if (statuses) {
      expect_ranks(function, statuses->size(), "statuses");
      for (std::size_t rank = 0; rank < devices_.size(); ++rank) {
        status_spans.push_back(
            rank_span<hash::operation_status>(*statuses, rank, devices_[rank], function, "statuses"));
      }
    }
    call([&] { map_->erase(key_spans, status_spans); });
  }

  [[nodiscard]] std::uint64_t size() const
  {
    nb::gil_scoped_release released;
    return map_->size();
  }

  [[nodiscard]] std::vector<std::uint64_t> sizes() const
  {
    std::vector<std::uint64_t> per_gpu(devices_.size(), 0);
    nb::gil_scoped_release released;
    group_->for_each_local([&](std::uint32_t local) { per_gpu[local] = map_->local_table(local).size(); });
    return per_gpu;
  }

  [[nodiscard]] std::vector<int> devices() const { return devices_; }
  [[nodiscard]] bool exchanges_by_copies() const { return group_->exchanges_by_copies(); }

 private:
  void expect_ranks(const std::string& function, std::size_t count, const char* name) const
  {
    if (count != devices_.size()) {
      throw nb::value_error((function + ": " + name + " holds " + std::to_string(count) +
                             " arrays; pass one per GPU of the map (" + std::to_string(devices_.size()) + ")")
                                .c_str());
    }
  }

  /// Runs a collective call with the GIL released, after every GPU's pending work (the arrays may have been
  /// written on any stream); it returns with its results written.
  template <class Function>
  void call(Function&& function)
  {
    nb::gil_scoped_release released;
    int previous = 0;
    WARPDEX_CUDA_TRY(cudaGetDevice(&previous));
    for (const int device : devices_) {
      WARPDEX_CUDA_TRY(cudaSetDevice(device));
      WARPDEX_CUDA_TRY(cudaDeviceSynchronize());
    }
    WARPDEX_CUDA_TRY(cudaSetDevice(previous));
    function();
  }

  std::vector<int> devices_;
  std::unique_ptr<group_type> group_;
  std::unique_ptr<map_type> map_;
};
#else
/// This build has no NCCL: the class exists (the same stubs in every build) and cannot be made.
class distributed_binding {
 public:
  distributed_binding(std::uint64_t /*expected_keys*/, const std::optional<std::vector<int>>& /*devices*/)
  {
    throw std::runtime_error(
        "DistributedSlabMap: this build of warpdex has no NCCL (it needs the CUDA backend and NCCL: the "
        "nvidia-nccl-cu13 wheel or the CUDA toolkit's, found when the library is configured)");
  }
  void insert(const std::vector<input_array>&, const std::vector<input_array>&,
              const std::optional<std::vector<output_array>>&, bool)
  {
  }
  void find(const std::vector<input_array>&, const std::vector<output_array>&, const std::vector<output_array>&) {}
  void erase(const std::vector<input_array>&, const std::optional<std::vector<output_array>>&) {}
  [[nodiscard]] std::uint64_t size() const { return 0; }
  [[nodiscard]] std::vector<std::uint64_t> sizes() const { return {}; }
  [[nodiscard]] std::vector<int> devices() const { return {}; }
  [[nodiscard]] bool exchanges_by_copies() const { return false; }
};
#endif

}  // namespace

void bind_distributed(nb::module_& module)
{
  module.attr("has_nccl") = static_cast<bool>(WARPDEX_PYTHON_HAS_NCCL);
  nb::class_<distributed_binding>(module, "DistributedSlabMapCore")
      .def(nb::init<std::uint64_t, const std::optional<std::vector<int>>&>(), nb::arg("expected_keys"),
           nb::arg("devices").none())
      .def("insert", &distributed_binding::insert, nb::arg("keys"), nb::arg("values"), nb::arg("statuses").none(),
           nb::arg("assign"))
      .def("find", &distributed_binding::find, nb::arg("keys"), nb::arg("values"), nb::arg("statuses"))
      .def("erase", &distributed_binding::erase, nb::arg("keys"), nb::arg("statuses").none())
      .def("size", &distributed_binding::size)
      .def("sizes", &distributed_binding::sizes)
      .def_prop_ro("devices", &distributed_binding::devices)
      .def_prop_ro("exchanges_by_copies", &distributed_binding::exchanges_by_copies);
}

}  // namespace warpdex::python
