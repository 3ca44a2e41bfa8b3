#pragma once
/// @file `loopback_group<Backend>`: a rank group (rank_group.hpp) whose ranks all live in this process on one
/// backend, exchanging by copies. It runs the distributed structures' whole protocol (split by owner, the
/// exchanges, the un-permutation, the agreement on failures) without NCCL and without a second GPU: on the
/// host backend in any build, and on the cuda backend with every rank on the current GPU.
///
/// Example (four ranks on the host):
/// @code
///   warpdex::distributed::loopback_group<warpdex::host> ranks(4);
///   warpdex::distributed::distributed_slab_map map(ranks, 1 << 20);
/// @endcode

#include <warpdex/core/backend.hpp>
#include <warpdex/core/buffer.hpp>
#include <warpdex/distributed/rank_group.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace warpdex::distributed {

template <class Backend>
class loopback_group {
 public:
  using backend_type = Backend;

  /// `ranks` ranks (>= 1), all local, all running on `backend`. Throws warpdex::error for 0 ranks.
  explicit loopback_group(std::uint32_t ranks, Backend backend = {}) : ranks_(ranks), backend_(backend)
  {
    WARPDEX_EXPECTS(ranks >= 1, "loopback_group: at least one rank");
  }

  [[nodiscard]] std::uint32_t rank_count() const { return ranks_; }
  [[nodiscard]] std::uint32_t local_count() const { return ranks_; }
  [[nodiscard]] std::uint32_t rank(std::uint32_t local) const { return local; }
  [[nodiscard]] const Backend& backend(std::uint32_t /*local*/) const { return backend_; }

  /// One rank after the other (they share the backend, which is parallel within each call).
  template <class Function>
  void for_each_local(Function&& function) const
  {
    for (std::uint32_t local = 0; local < ranks_; ++local) { function(local); }
  }

  [[nodiscard]] std::vector<std::uint64_t> all_reduce_sum(
      const std::vector<std::vector<std::uint64_t>>& contributions) const
  {
    detail::check_contributions(contributions, ranks_, "loopback_group::all_reduce_sum");
    std::vector<std::uint64_t> sum(contributions.front().size(), 0);
    for (const auto& contribution : contributions) {
      for (std::size_t i = 0; i < sum.size(); ++i) { sum[i] += contribution[i]; }
    }
    return sum;
  }

  [[nodiscard]] std::vector<std::uint64_t> all_gather(
      const std::vector<std::vector<std::uint64_t>>& contributions) const
  {
    detail::check_contributions(contributions, ranks_, "loopback_group::all_gather");
    std::vector<std::uint64_t> gathered;
    for (const auto& contribution : contributions) {
      gathered.insert(gathered.end(), contribution.begin(), contribution.end());
    }
    return gathered;
  }

  /// Copies every bucket to its receiver, ordered on the backend's stream.
  void all_to_all(std::span<const all_to_all_buffers> buffers, std::size_t element_bytes) const
  {
    WARPDEX_EXPECTS(buffers.size() == ranks_, "loopback_group::all_to_all: " + std::to_string(buffers.size()) +
                                                  " buffers for " + std::to_string(ranks_) + " ranks");
    for (std::uint32_t sender = 0; sender < ranks_; ++sender) {
      const exchange_layout& from = *buffers[sender].layout;
      for (std::uint32_t receiver = 0; receiver < ranks_; ++receiver) {
        const exchange_layout& to = *buffers[receiver].layout;
        WARPDEX_EXPECTS(from.send_counts[receiver] == to.receive_counts[sender],
                        "loopback_group::all_to_all: rank " + std::to_string(sender) + " sends " +
                            std::to_string(from.send_counts[receiver]) + " elements to rank " +
                            std::to_string(receiver) + ", which expects " + std::to_string(to.receive_counts[sender]));
        const std::size_t bytes = from.send_counts[receiver] * element_bytes;
        if (bytes == 0) { continue; }
        const auto* source =
            static_cast<const std::byte*>(buffers[sender].send) + from.send_offsets[receiver] * element_bytes;
        auto* destination =
            static_cast<std::byte*>(buffers[receiver].receive) + to.receive_offsets[sender] * element_bytes;
        if constexpr (std::is_same_v<Backend, host>) {
          std::memcpy(destination, source, bytes);
        } else {
          warpdex::detail::copy_device_bytes(destination, source, bytes, backend_.stream);
        }
      }
    }
  }

 private:
  std::uint32_t ranks_;
  Backend backend_;
};

}  // namespace warpdex::distributed
