#pragma once
// The line count's grouping of a block on the GPU, over Thrust (line_dedup_cuda.cu): find the newlines, hash every
// line, stable-sort the hashes with the line positions, compare every line with the first line of its hash, and return
// each first line with the lines equal to it counted, plus every line that is not equal to the first of its hash (a
// collision), in position order. Every pass is a device-wide one over the block's lines (the host groups its own way:
// line_dedup_host.cpp, where per-thread hash tables beat sorting by an order of magnitude).

#include "dpp_common.hpp"
#include "line_dedup_stream.hpp"

#include <warpdex/core/detail/thrust_backend.hpp>
#include <warpdex/dpp/line_dedup.hpp>

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace warpdex::dpp::detail {

/// Where line i of a block lies: [begin, end), without its '\n' and a '\r' just before it.
struct line_bounds {
  const char* bytes;
  const std::uint32_t* newlines;  ///< the position of every '\n' of the block, ascending

  WARPDEX_HOST_DEVICE std::uint32_t begin(std::uint32_t i) const { return i == 0 ? 0 : newlines[i - 1] + 1; }
  WARPDEX_HOST_DEVICE std::uint32_t end(std::uint32_t i) const
  {
    const std::uint32_t newline = newlines[i];
    return newline > begin(i) && bytes[newline - 1] == '\r' ? newline - 1 : newline;
  }
};

struct is_newline {
  WARPDEX_HOST_DEVICE bool operator()(char byte) const { return byte == '\n'; }
};

struct is_nonzero {
  WARPDEX_HOST_DEVICE bool operator()(std::uint32_t value) const { return value != 0; }
};

struct is_zero {
  WARPDEX_HOST_DEVICE bool operator()(std::uint32_t value) const { return value == 0; }
};

/// The (masked) hash of line i.
struct hash_of_line {
  line_bounds lines;
  std::uint64_t mask;
  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint32_t i) const
  {
    const std::uint32_t begin = lines.begin(i);
    return line_hash(reinterpret_cast<const unsigned char*>(lines.bytes) + begin, lines.end(i) - begin) & mask;
  }
};

/// 1 when line `position` equals line `first` byte for byte, else 0.
struct equals_first_line {
  line_bounds lines;
  WARPDEX_HOST_DEVICE std::uint32_t operator()(std::uint32_t position, std::uint32_t first) const
  {
    if (position == first) { return 1; }
    const std::uint32_t begin = lines.begin(position);
    const std::uint32_t first_begin = lines.begin(first);
    const std::uint32_t length = lines.end(position) - begin;
    if (length != lines.end(first) - first_begin) { return 0; }
    for (std::uint32_t i = 0; i < length; ++i) {
      if (lines.bytes[begin + i] != lines.bytes[first_begin + i]) { return 0; }
    }
    return 1;
  }
};

/// The group of the line at `position`: where it lies, its hash and its count.
struct group_at {
  line_bounds lines;
  const std::uint64_t* hashes;
  const std::uint32_t* counts;
  WARPDEX_HOST_DEVICE line_group operator()(std::uint32_t position) const
  {
    line_group group;
    group.offset = lines.begin(position);
    group.length = lines.end(position) - group.offset;
    group.hash = hashes[position];
    group.count = counts[position];
    return group;
  }
};

template <class Backend>
class thrust_line_grouper final : public line_grouper {
 public:
  explicit thrust_line_grouper(const Backend& backend) : backend_(backend) {}

  [[nodiscard]] std::uint64_t default_chunk_bytes() const override { return line_dedup_default_cuda_chunk_bytes; }

  [[nodiscard]] buffer<char> allocate_block(std::size_t bytes) override
  {
    return make_pinned_buffer<char>(bytes);  // copied to the device asynchronously, at full speed
  }

  void group(std::span<const char> lines, std::uint64_t hash_mask, std::vector<line_group>& groups) override
  {
    reporting_allocation_failure("count_lines", [&] { group_lines(lines, hash_mask, groups); });
  }

 private:
  void group_lines(std::span<const char> block, std::uint64_t hash_mask, std::vector<line_group>& groups)
  {
    using thrust::counting_iterator;
    const auto policy = warpdex::detail::policy(backend_);
    const auto size = static_cast<std::uint32_t>(block.size());
    if (device_block_.size() < size) { device_block_ = make_buffer<char>(backend_, size); }
    device_block_.copy_from(block);
    const char* bytes = device_block_.data();
    const auto n = static_cast<std::uint32_t>(thrust::count(policy, bytes, bytes + size, '\n'));
    auto newlines = make_buffer<std::uint32_t>(backend_, n);
    thrust::copy_if(policy, counting_iterator<std::uint32_t>(0), counting_iterator<std::uint32_t>(size), bytes,
                    newlines.data(), is_newline{});
    const line_bounds lines{bytes, newlines.data()};

    // Hashes by position, and sorted with the positions: within a run of one hash the positions ascend.
    auto hashes = make_buffer<std::uint64_t>(backend_, n);
    thrust::transform(policy, counting_iterator<std::uint32_t>(0), counting_iterator<std::uint32_t>(n), hashes.data(),
                      hash_of_line{lines, hash_mask});
    auto sorted_hashes = make_buffer<std::uint64_t>(backend_, n);
    thrust::copy(policy, hashes.data(), hashes.data() + n, sorted_hashes.data());
    auto positions = make_buffer<std::uint32_t>(backend_, n);
    thrust::sequence(policy, positions.data(), positions.data() + n);
    thrust::stable_sort_by_key(policy, sorted_hashes.data(), sorted_hashes.data() + n, positions.data());
    // The first position of each line's hash, and whether the line equals that first line.
    auto firsts = make_buffer<std::uint32_t>(backend_, n);
    thrust::inclusive_scan_by_key(policy, sorted_hashes.data(), sorted_hashes.data() + n, positions.data(),
                                  firsts.data(), thrust::equal_to<std::uint64_t>(), thrust::minimum<std::uint32_t>());
    auto equal = make_buffer<std::uint32_t>(backend_, n);
    thrust::transform(policy, positions.data(), positions.data() + n, firsts.data(), equal.data(),
                      equals_first_line{lines});
    // Counts by position: each first line its equal lines, each unequal line 1, every other line 0.
    auto run_firsts = make_buffer<std::uint32_t>(backend_, n);
    auto run_counts = make_buffer<std::uint32_t>(backend_, n);
    const auto runs_end = thrust::reduce_by_key(policy, firsts.data(), firsts.data() + n, equal.data(),
                                                run_firsts.data(), run_counts.data());
    auto counts = make_buffer<std::uint32_t>(backend_, n);
    thrust::fill(policy, counts.data(), counts.data() + n, 0U);
    thrust::scatter(policy, run_counts.data(), runs_end.second, run_firsts.data(), counts.data());
    thrust::scatter_if(policy, thrust::constant_iterator<std::uint32_t>(1),
                       thrust::constant_iterator<std::uint32_t>(1) + n, positions.data(), equal.data(), counts.data(),
                       is_zero{});
    // The groups, in position order.
    auto group_positions = make_buffer<std::uint32_t>(backend_, n);
    const std::uint32_t* group_positions_end =
        thrust::copy_if(policy, counting_iterator<std::uint32_t>(0), counting_iterator<std::uint32_t>(n), counts.data(),
                        group_positions.data(), is_nonzero{});
    const auto group_count = static_cast<std::size_t>(group_positions_end - group_positions.data());
    auto found = make_buffer<line_group>(backend_, group_count);
    thrust::transform(policy, group_positions.data(), group_positions.data() + group_count, found.data(),
                      group_at{lines, hashes.data(), counts.data()});
    groups = found.to_vector();
  }

  Backend backend_;
  buffer<char> device_block_;  ///< the block on the device
};

}  // namespace warpdex::dpp::detail
