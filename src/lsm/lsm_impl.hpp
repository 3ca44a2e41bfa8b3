#pragma once
// The LSM, written once against Thrust execution policies: `policy(backend)` is thrust::cuda::par on the
// backend's stream for warpdex::cuda and thrust::omp::par for warpdex::host. lsm_cuda.cu and
// lsm_host.cpp include this and instantiate lsm_map for their backend; the host translation unit selects
// Thrust's OpenMP and C++ systems, so it needs no CUDA header. This file holds lsm_map's members; what
// they compose is in lsm_queries.hpp (per query), lsm_level_build.hpp (per entry of a level being built)
// and lsm_levels.hpp (the level operations).

#include "../core/radix_sort_backend.hpp"
#include <warpdex/core/detail/thrust_backend.hpp>

#include <warpdex/core/config.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/lsm/lsm_map.hpp>
#include <warpdex/search/search_device.hpp>

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/merge.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>
#if defined(__CUDACC__)
#include <warpdex/core/cuda_check.hpp>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/system/cuda/execution_policy.h>
#else
#include <thrust/system/omp/execution_policy.h>
#endif

#include <algorithm>
#include <atomic>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lsm_levels.hpp"

namespace warpdex {

template <class Key, class Value, class Backend>
lsm_map<Key, Value, Backend>::lsm_map(const Backend& backend, lsm_options options)
    : backend_(backend), options_(options)
{
  WARPDEX_EXPECTS(options.batch_size > 0, "lsm_map: the batch size must be > 0");
  set_cleanup_threshold(options.cleanup_threshold);
  counters_ = detail::zero_counters(backend_);
}

template <class Key, class Value, class Backend>
lsm_map<Key, Value, Backend>::~lsm_map() = default;
template <class Key, class Value, class Backend>
lsm_map<Key, Value, Backend>::lsm_map(lsm_map&&) noexcept = default;
template <class Key, class Value, class Backend>
lsm_map<Key, Value, Backend>& lsm_map<Key, Value, Backend>::operator=(lsm_map&&) noexcept = default;

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::set_cleanup_threshold(double threshold)
{
  WARPDEX_EXPECTS(std::isfinite(threshold) && threshold >= 0.0 && threshold <= 1.0,
                  "lsm_map: the cleanup threshold must be 0 (off) or in (0, 1], got " + std::to_string(threshold));
  options_.cleanup_threshold = threshold;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::update(std::span<const Key> keys, std::span<const Value> values,
                                          std::span<const lsm_operation> operations)
{
  WARPDEX_EXPECTS(keys.size() == values.size() && keys.size() == operations.size(),
                  "lsm_map::update: " + std::to_string(keys.size()) + " keys, " + std::to_string(values.size()) +
                      " values and " + std::to_string(operations.size()) + " operations; the sizes must agree");
  if (keys.empty()) { return; }
  detail::expect_positioned_chunks("update", options_.batch_size, keys.size());
  const auto unknown = thrust::count_if(detail::policy(backend_), operations.data(),
                                        operations.data() + operations.size(), detail::is_unknown_operation{});
  WARPDEX_EXPECTS(unknown == 0, "lsm_map::update: " + std::to_string(unknown) +
                                    " operations are neither lsm_operation::insert nor lsm_operation::erase");
  apply_batch(keys, values, operations, true);
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::apply_batch(std::span<const Key> keys, std::span<const Value> values,
                                               std::span<const lsm_operation> operations, bool may_erase)
{
  adopt_async();
  if (keys.empty()) { return; }
  std::uint64_t chunks = 0;
  detail::reporting_allocation_failure("update", [&] {
    // The counts change on a copy, installed with the levels, so that a failure leaves both as they were.
    detail::copy_counters(backend_, counters_, staged_counters_);
    std::uint64_t* counters = staged_counters_.data();
    level_list staged = levels_;
    for (std::uint64_t offset = 0; offset < keys.size(); offset += options_.batch_size) {
      const std::uint64_t chunk = std::min<std::uint64_t>(options_.batch_size, keys.size() - offset);
      std::shared_ptr<const level> carry = detail::sorted_batch(
          backend_, keys.subspan(offset, chunk), values.subspan(offset, chunk),
          may_erase ? operations.subspan(offset, chunk) : std::span<const lsm_operation>{}, counters, &sort_scratch_);
      // Binary addition: merge into the carry every occupied level up to the first empty one.
      std::size_t index = 0;
      for (; index < staged.size() && staged[index]; ++index) {
        carry = detail::merge_levels(backend_, *carry, *staged[index], counters);
        staged[index] = nullptr;
      }
      if (index == staged.size()) { staged.emplace_back(); }
      staged[index] = carry;
      ++chunks;
    }
    std::swap(counters_, staged_counters_);
    commit(std::move(staged));
  });
  // An insert makes no tombstones, only stale entries when it overwrites: it reads the counts back (the
  // only wait it would have) every 8th chunk.
  unchecked_chunks_ += static_cast<std::uint32_t>(std::min<std::uint64_t>(chunks, 8));
  if (may_erase || unchecked_chunks_ >= 8) {
    unchecked_chunks_ = 0;
    maybe_cleanup();
  }
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::insert(std::span<const Key> keys, std::span<const Value> values)
{
  WARPDEX_EXPECTS(keys.size() == values.size(), "lsm_map::insert: " + std::to_string(keys.size()) + " keys but " +
                                                    std::to_string(values.size()) + " values");
  apply_batch(keys, values, {}, false);
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::erase(std::span<const Key> keys)
{
  detail::expect_positioned_chunks("erase", options_.batch_size, keys.size());
  auto operations = make_buffer<lsm_operation>(backend_, keys.size());
  auto values = make_buffer<Value>(backend_, keys.size());
  const auto run = detail::policy_nosync(backend_);
  thrust::fill(run, operations.data(), operations.data() + keys.size(), lsm_operation::erase);
  thrust::fill(run, values.data(), values.data() + keys.size(), Value{0});
  apply_batch(keys, std::span<const Value>(values.data(), keys.size()),
              std::span<const lsm_operation>(operations.data(), keys.size()), true);
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::bulk_build(std::span<const Key> keys, std::span<const Value> values)
{
  adopt_async();
  WARPDEX_EXPECTS(keys.size() == values.size(), "lsm_map::bulk_build: " + std::to_string(keys.size()) + " keys but " +
                                                    std::to_string(values.size()) + " values");
  detail::reporting_allocation_failure("bulk_build", [&] {
    // One sort and one pass: repeated keys stay as stale entries (the last pair of a key wins).
    auto counters = detail::zero_counters(backend_);
    level_list staged;
    if (!keys.empty()) {
      auto built = detail::sorted_batch(backend_, keys, values, std::span<const lsm_operation>{}, counters.data(),
                                        static_cast<buffer<std::uint8_t>*>(nullptr));
      staged.resize(detail::level_for(built->size, options_.batch_size) + 1);
      staged.back() = std::move(built);
    }
    counters_ = std::move(counters);
    commit(std::move(staged));
  });
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::reserve_async(std::uint64_t batches)
{
  adopt_async();
  const std::uint64_t b = options_.batch_size;
  WARPDEX_EXPECTS(batches > 0, "lsm_map::reserve_async: reserve at least one batch");
  WARPDEX_EXPECTS(b % detail::lsm_async_batch_multiple == 0,
                  "lsm_map::reserve_async: the batch size must be a multiple of " +
                      std::to_string(detail::lsm_async_batch_multiple) + ", got " + std::to_string(b));
  WARPDEX_EXPECTS(levels_.empty(), "lsm_map::reserve_async: the map must hold nothing (clear() empties it)");
  const auto levels = static_cast<std::uint32_t>(std::bit_width(batches));
  WARPDEX_EXPECTS(levels < 63 && ((b << levels) >> levels) == b,
                  "lsm_map::reserve_async: " + std::to_string(batches) + " batches of " + std::to_string(b) +
                      " pairs are too many");
  const std::uint64_t entries = b << levels;
  detail::reporting_allocation_failure("reserve_async", [&] {
    auto keys = make_buffer<Key>(backend_, entries);
    auto values = make_buffer<Value>(backend_, entries);
    auto status = make_buffer<std::uint8_t>(backend_, entries);
    auto control = make_buffer<std::uint64_t>(backend_, detail::lsm_async_word_count);
    const auto run = detail::policy_nosync(backend_);
    thrust::fill(run, control.data(), control.data() + control.size(), std::uint64_t{0});
    thrust::fill(run, keys.data(), keys.data() + b, Key{0});
    thrust::fill(run, values.data(), values.data() + b, Value{0});
    // The sort's workspace takes its size here, once (a sort into level 0's home, empty now), so that
    // insert_async allocates nothing; batches sorted by rank need none.
    buffer<std::uint8_t> scratch;
    if (!detail::lsm_async_ranked<Backend>(b)) {
      detail::sort_batch(backend_, keys.data(), values.data(), keys.data() + b, values.data() + b, b, &scratch);
    }
    backend_.synchronize();
    async_keys_ = std::move(keys);
    async_values_ = std::move(values);
    async_status_ = std::move(status);
    async_control_ = std::move(control);
    async_sort_scratch_ = std::move(scratch);
  });
  async_capacity_ = (std::uint64_t{1} << levels) - 1;
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<Backend, host>) { async_grid_ = detail::lsm_async_grid(b << (levels - 1)); }
#endif
  async_called_ = 0;
  async_open_ = true;
  async_adopted_ = 0;
  async_seen_stale_ = 0;
  async_seen_dropped_ = 0;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::insert_async(std::span<const Key> keys, std::span<const Value> values)
{
  const std::uint64_t b = options_.batch_size;
  WARPDEX_EXPECTS(!async_control_.empty(), "lsm_map::insert_async: nothing reserved; call reserve_async first");
  WARPDEX_EXPECTS(async_open_, "lsm_map::insert_async: a synchronous change (update, insert, erase, bulk_build or "
                               "cleanup) replaced the reserved levels; clear() reopens them");
  WARPDEX_EXPECTS(keys.size() == b && values.size() == b,
                  "lsm_map::insert_async: a batch is exactly batch_size = " + std::to_string(b) + " pairs, got " +
                      std::to_string(keys.size()) + " keys and " + std::to_string(values.size()) + " values");
  WARPDEX_EXPECTS(async_called_ < async_capacity_,
                  "lsm_map::insert_async: the reservation holds " + std::to_string(async_capacity_) +
                      " batches, all taken; clear() or a larger reserve_async on an empty map");
  // The batch sorted into its slot, each key's newest pair first (its in-batch stale entries counted
  // apart until the batch is applied), then the one merge launch.
  const detail::lsm_async_arena<Key, Value> arena{async_keys_.data(),    async_values_.data(), async_status_.data(),
                                                  async_control_.data(), b,                    async_capacity_};
  std::uint64_t* batch_counters = async_control_.data() + detail::lsm_async_batch_stale - detail::lsm_stale_count;
  if (detail::lsm_async_ranked<Backend>(b)) {
    detail::rank_async_batch(backend_, keys.data(), values.data(), b, arena, batch_counters);
  } else {
    detail::sort_batch(backend_, keys.data(), values.data(), async_keys_.data(), async_values_.data(), b,
                       &async_sort_scratch_);
    using reduce = detail::reduce_sorted_inserts<Key, Value>;
    const auto elements = thrust::counting_iterator<std::uint64_t>(0);
    thrust::for_each(detail::policy_nosync(backend_), elements, elements + reduce::groups(b),
                     reduce{async_keys_.data(), async_values_.data(), async_status_.data(), b, batch_counters});
  }
  detail::merge_async_batch(backend_, arena, async_grid_);
  ++async_called_;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::clear()
{
  adopt_async();
  levels_.clear();
  counters_ = detail::zero_counters(backend_);
  views_current_ = false;
  index_current_ = false;
  live_before_.clear();
  unchecked_chunks_ = 0;
  if (async_control_.empty()) { return; }
  std::vector<std::uint64_t> control(detail::lsm_async_word_count, 0);
  control[detail::lsm_async_dropped] = async_seen_dropped_;
  async_control_.copy_from(control);
  backend_.synchronize();
  async_called_ = 0;
  async_open_ = true;
  async_adopted_ = 0;
  async_seen_stale_ = 0;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::adopt_async() const
{
  if (async_control_.empty()) { return; }
  const std::vector<std::uint64_t> control = async_control_.to_vector();  // waits for the stream
  const std::uint64_t dropped = control[detail::lsm_async_dropped] - async_seen_dropped_;
  async_seen_dropped_ = control[detail::lsm_async_dropped];
  if (async_open_) {
    const std::uint64_t applied = control[detail::lsm_async_batches];
    async_called_ = applied;
    const std::uint64_t stale = control[detail::lsm_stale_count] - async_seen_stale_;
    async_seen_stale_ = control[detail::lsm_stale_count];
    if (stale > 0) {
      std::vector<std::uint64_t> counts = counters_.to_vector();
      counts[detail::lsm_stale_count] += stale;
      counters_.copy_from(counts);
      backend_.synchronize();
    }
    if (applied != async_adopted_) {
      // Level i of the arena is full where bit i of the batch count is set; the levels only read it.
      const std::uint64_t b = options_.batch_size;
      level_list levels;
      for (std::uint32_t i = 0; (applied >> i) != 0; ++i) {
        if (((applied >> i) & 1) == 0) { continue; }
        auto home = std::make_shared<level>();
        const std::uint64_t at = b << i;
        home->keys = const_cast<Key*>(async_keys_.data()) + at;
        home->values = const_cast<Value*>(async_values_.data()) + at;
        home->status = const_cast<std::uint8_t*>(async_status_.data()) + at;
        home->size = b << i;
        levels.resize(i + 1);
        levels[i] = std::move(home);
      }
      levels_ = std::move(levels);
      views_current_ = false;
      index_current_ = false;
      live_before_.clear();
      async_adopted_ = applied;
    }
  }
  WARPDEX_EXPECTS(dropped == 0,
                  "lsm_map: " + std::to_string(dropped) +
                      " insert_async batches were dropped, unapplied: " +
                      (async_open_ ? "the reservation of " + std::to_string(async_capacity_) + " batches was full"
                                   : std::string("a synchronous change had ended the reserved mode")) +
                      " (a graph replayed past it?)");
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::close_async()
{
  async_open_ = false;
  const auto closed = detail::policy_nosync(backend_);
  thrust::fill(closed, async_control_.data() + detail::lsm_async_batches,
               async_control_.data() + detail::lsm_async_batches + 1, detail::lsm_async_closed);
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::commit(level_list levels)
{
  if (async_open_) { close_async(); }
  while (!levels.empty() && !levels.back()) { levels.pop_back(); }
  levels_ = std::move(levels);
  views_current_ = false;
  index_current_ = false;
  live_before_.clear();
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::ensure_views() const
{
  if (views_current_) { return; }
  std::vector<detail::lsm_level_view<Key, Value>> views;
  for (const auto& occupied : levels_) {
    if (!occupied) { continue; }
    constexpr std::uint64_t stride = detail::lsm_sample_stride<Key>;
    const std::uint64_t sample_count = (occupied->size + stride - 1) / stride;
    const std::uint64_t coarse_count = sample_count > stride ? (sample_count + stride - 1) / stride : 0;
    if (occupied->samples.size() != sample_count) {
      occupied->samples = make_buffer<Key>(backend_, sample_count);
      thrust::for_each(detail::policy_nosync(backend_), thrust::counting_iterator<std::uint64_t>(0),
                       thrust::counting_iterator<std::uint64_t>(sample_count),
                       detail::sample_keys<Key>{occupied->keys, occupied->samples.data()});
      occupied->coarse = make_buffer<Key>(backend_, coarse_count);
      thrust::for_each(detail::policy_nosync(backend_), thrust::counting_iterator<std::uint64_t>(0),
                       thrust::counting_iterator<std::uint64_t>(coarse_count),
                       detail::sample_keys<Key>{occupied->samples.data(), occupied->coarse.data()});
    }
    views.push_back({occupied->keys, occupied->values, occupied->status, nullptr, occupied->size,
                     occupied->samples.data(), sample_count, coarse_count > 0 ? occupied->coarse.data() : nullptr,
                     coarse_count});
  }
  views_ = make_buffer<detail::lsm_level_view<Key, Value>>(backend_, views.size());
  views_.copy_from(views);
  backend_.synchronize();  // the views' staging copy is done before `views` goes away
  views_current_ = true;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::ensure_liveness_index() const
{
  if (index_current_) { return; }
  ensure_views();
  std::vector<detail::lsm_level_view<Key, Value>> views = views_.to_vector();
  std::vector<buffer<std::uint64_t>> index;
  const auto policy = detail::policy(backend_);
  for (std::uint32_t l = 0; l < views.size(); ++l) {
    auto live_before = make_buffer<std::uint64_t>(backend_, views[l].size + 1);
    thrust::fill(policy, live_before.data(), live_before.data() + 1, std::uint64_t{0});
    thrust::for_each(policy, thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(views[l].size),
                     detail::live_flag_element<Key, Value>{views_.data(), l, views[l], live_before.data() + 1});
    thrust::inclusive_scan(policy, live_before.data() + 1, live_before.data() + 1 + views[l].size,
                           live_before.data() + 1);
    views[l].live_before = live_before.data();
    index.push_back(std::move(live_before));
  }
  views_.copy_from(views);
  backend_.synchronize();
  live_before_ = std::move(index);
  index_current_ = true;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::maybe_cleanup()
{
  const double threshold = options_.cleanup_threshold;
  if (threshold <= 0.0) { return; }
  const auto counts = counters_.to_vector();
  const auto dead = counts[detail::lsm_tombstone_count] + counts[detail::lsm_stale_count];
  if (static_cast<double>(dead) <= threshold * static_cast<double>(resident_entries())) { return; }
  try {
    cleanup();
  } catch (const out_of_memory&) {
    // The update itself is complete and the map valid; the next update tries again.
  }
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::lookup(std::span<const Key> queries, std::span<Value> values,
                                          std::span<std::uint8_t> found) const
{
  adopt_async();
  WARPDEX_EXPECTS(values.size() == queries.size() && found.size() == queries.size(),
                  "lsm_map::lookup: " + std::to_string(queries.size()) + " queries need as many values (got " +
                      std::to_string(values.size()) + ") and found flags (got " + std::to_string(found.size()) + ")");
  if (queries.empty()) { return; }
  ensure_views();
  const auto level_count = static_cast<std::uint32_t>(views_.size());
  if (detail::sorts_queries<Backend>(queries.size())) {
    detail::reporting_allocation_failure("lookup", [&] {
      const auto sorted = detail::sort_queries(backend_, queries.data(), queries.size());
      thrust::for_each(detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
                       thrust::counting_iterator<std::uint64_t>(queries.size()),
                       detail::lookup_element<Key, Value>{views_.data(), level_count, sorted.keys.data(), values.data(),
                                                          found.data(), sorted.order.data()});
    });
    return;
  }
  thrust::for_each(
      detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
      thrust::counting_iterator<std::uint64_t>(queries.size()),
      detail::lookup_element<Key, Value>{views_.data(), level_count, queries.data(), values.data(), found.data()});
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::count(std::span<const Key> lower, std::span<const Key> upper,
                                         std::span<std::uint64_t> counts) const
{
  adopt_async();
  WARPDEX_EXPECTS(lower.size() == upper.size() && counts.size() == lower.size(),
                  "lsm_map::count: " + std::to_string(lower.size()) + " lower bounds, " + std::to_string(upper.size()) +
                      " upper bounds and " + std::to_string(counts.size()) + " counts; the sizes must agree");
  if (lower.empty()) { return; }
  ensure_liveness_index();
  const auto level_count = static_cast<std::uint32_t>(views_.size());
  // As lookups: many queries are counted in the order of their lower bounds, then put back in place.
  if (detail::sorts_queries<Backend>(lower.size())) {
    detail::reporting_allocation_failure("count", [&] {
      const std::uint64_t n = lower.size();
      const auto sorted = detail::sort_queries(backend_, lower.data(), n, upper.data());
      auto sorted_counts = make_buffer<std::uint64_t>(backend_, n);
      detail::count_ranges(backend_, views_.data(), level_count, sorted.keys.data(), sorted.upper.data(), n,
                           sorted_counts.data(), static_cast<detail::range_bounds*>(nullptr));
      thrust::scatter(detail::policy(backend_), sorted_counts.data(), sorted_counts.data() + n, sorted.order.data(),
                      counts.data());
    });
    return;
  }
  detail::count_ranges(backend_, views_.data(), level_count, lower.data(), upper.data(), lower.size(), counts.data(),
                       static_cast<detail::range_bounds*>(nullptr));
}

template <class Key, class Value, class Backend>
lsm_range_result<Key, Value> lsm_map<Key, Value, Backend>::range(std::span<const Key> lower,
                                                                 std::span<const Key> upper) const
{
  adopt_async();
  WARPDEX_EXPECTS(lower.size() == upper.size(), "lsm_map::range: " + std::to_string(lower.size()) +
                                                    " lower bounds but " + std::to_string(upper.size()) +
                                                    " upper bounds");
  const std::uint64_t queries = lower.size();
  lsm_range_result<Key, Value> result;
  result.offsets = make_buffer<std::uint64_t>(backend_, queries + 1);
  std::uint64_t* offsets = result.offsets.data();
  const auto policy = detail::policy(backend_);
  thrust::fill(policy, offsets + queries, offsets + queries + 1, std::uint64_t{0});
  if (queries == 0) { return result; }
  ensure_liveness_index();
  const auto level_count = static_cast<std::uint32_t>(views_.size());
  // On the GPU the count keeps each range's bounds in every level for the fill, which then searches no
  // level again, where they fit in a modest buffer (24 bytes per query and level).
  buffer<detail::range_bounds> bounds;
  if constexpr (!std::is_same_v<Backend, host>) {
    if (queries * level_count * sizeof(detail::range_bounds) <= detail::lsm_range_bounds_budget) {
      bounds = make_buffer<detail::range_bounds>(backend_, queries * level_count);
    }
  }
  // As lookups: many queries are counted and filled in the order of their lower bounds. Each range's
  // pairs still go to its place in the caller's order (the fill reads a range's offset, not its index).
  const Key* first = lower.data();
  const Key* last = upper.data();
  detail::sorted_queries<Key> sorted;
  buffer<std::uint64_t> sorted_counts;
  const bool sorting = detail::sorts_queries<Backend>(queries);
  if (sorting) {
    sorted = detail::sort_queries(backend_, lower.data(), queries, upper.data());
    sorted_counts = make_buffer<std::uint64_t>(backend_, queries);
    first = sorted.keys.data();
    last = sorted.upper.data();
  }
  detail::count_ranges(backend_, views_.data(), level_count, first, last, queries,
                       sorting ? sorted_counts.data() : offsets, bounds.size() > 0 ? bounds.data() : nullptr);
  if (sorting) {
    thrust::scatter(detail::policy_nosync(backend_), sorted_counts.data(), sorted_counts.data() + queries,
                    sorted.order.data(), offsets);
  }
  thrust::exclusive_scan(policy, offsets, offsets + queries + 1, offsets);
  const std::uint64_t total = detail::read_back(backend_, offsets + queries);
  result.keys = make_buffer<Key>(backend_, total);
  result.values = make_buffer<Value>(backend_, total);
  if (total == 0) { return result; }
  const std::uint64_t* fill_offsets = offsets;
  if (sorting) {  // the sorted ranges' offsets, in the counts' buffer
    thrust::gather(detail::policy_nosync(backend_), sorted.order.data(), sorted.order.data() + queries, offsets,
                   sorted_counts.data());
    fill_offsets = sorted_counts.data();
  }
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<Backend, host>) {
    if (detail::launch_range_fill(backend_, views_.data(), level_count, first, last, queries, fill_offsets,
                                  result.keys.data(), result.values.data(), total / queries + 1,
                                  bounds.size() > 0 ? bounds.data() : nullptr)) {
      return result;
    }
  }
#endif
  {
    thrust::for_each(policy, thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(queries * level_count),
                     detail::range_fill_element<Key, Value>{views_.data(), level_count, first, last, fill_offsets,
                                                            result.keys.data(), result.values.data()});
  }
  return result;
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::successor(std::span<const Key> queries, std::span<Key> keys, std::span<Value> values,
                                             std::span<std::uint8_t> found) const
{
  adopt_async();
  WARPDEX_EXPECTS(
      keys.size() == queries.size() && values.size() == queries.size() && found.size() == queries.size(),
      "lsm_map::successor: " + std::to_string(queries.size()) + " queries need as many keys, values and found flags");
  if (queries.empty()) { return; }
  ensure_liveness_index();
  thrust::for_each(
      detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
      thrust::counting_iterator<std::uint64_t>(queries.size()),
      detail::neighbor_element<Key, Value, true>{views_.data(), static_cast<std::uint32_t>(views_.size()),
                                                 queries.data(), keys.data(), values.data(), found.data()});
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::predecessor(std::span<const Key> queries, std::span<Key> keys,
                                               std::span<Value> values, std::span<std::uint8_t> found) const
{
  adopt_async();
  WARPDEX_EXPECTS(
      keys.size() == queries.size() && values.size() == queries.size() && found.size() == queries.size(),
      "lsm_map::predecessor: " + std::to_string(queries.size()) + " queries need as many keys, values and found flags");
  if (queries.empty()) { return; }
  ensure_liveness_index();
  thrust::for_each(
      detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
      thrust::counting_iterator<std::uint64_t>(queries.size()),
      detail::neighbor_element<Key, Value, false>{views_.data(), static_cast<std::uint32_t>(views_.size()),
                                                  queries.data(), keys.data(), values.data(), found.data()});
}

template <class Key, class Value, class Backend>
void lsm_map<Key, Value, Backend>::cleanup()
{
  adopt_async();
  detail::reporting_allocation_failure("cleanup", [&] {
    auto scratch = detail::zero_counters(backend_);  // the merges' counts: every dead entry goes
    std::vector<std::shared_ptr<const level>> occupied;
    for (const auto& candidate : levels_) {
      if (candidate) { occupied.push_back(candidate); }
    }
    // Newest first, pairwise; the last merge (into the oldest level) keeps only the live entries.
    std::shared_ptr<const level> merged;
    if (occupied.size() == 1) { merged = detail::regular_entries(backend_, *occupied.front()); }
    if (occupied.size() > 1) {
      merged = occupied.front();
      for (std::size_t l = 1; l + 1 < occupied.size(); ++l) {
        merged = detail::merge_levels(backend_, *merged, *occupied[l], scratch.data());
      }
      merged = detail::merge_live_levels(backend_, *merged, *occupied.back(), scratch.data());
    }
    level_list staged;
    if (merged && merged->size > 0) {
      staged.resize(detail::level_for(merged->size, options_.batch_size) + 1);
      staged.back() = merged;
    }
    auto counters = detail::zero_counters(backend_);
    counters_ = std::move(counters);
    commit(std::move(staged));
  });
}

template <class Key, class Value, class Backend>
lsm_contents<Key, Value> lsm_map<Key, Value, Backend>::retrieve_all() const
{
  adopt_async();
  const std::uint64_t live = size();
  lsm_contents<Key, Value> contents{make_buffer<Key>(backend_, live), make_buffer<Value>(backend_, live)};
  const std::vector<detail::lsm_level_view<Key, Value>> views = views_.to_vector();
  const auto level_count = static_cast<std::uint32_t>(views.size());
  for (const auto& level : views) {
    thrust::for_each(detail::policy(backend_), thrust::counting_iterator<std::uint64_t>(0),
                     thrust::counting_iterator<std::uint64_t>(level.size),
                     detail::export_element<Key, Value>{views_.data(), level_count, level, contents.keys.data(),
                                                        contents.values.data()});
  }
  backend_.synchronize();
  return contents;
}

template <class Key, class Value, class Backend>
std::uint64_t lsm_map<Key, Value, Backend>::size() const
{
  adopt_async();
  ensure_liveness_index();
  std::uint64_t live = 0;
  for (std::size_t l = 0; l < live_before_.size(); ++l) {
    live += detail::read_back(backend_, live_before_[l].data() + live_before_[l].size() - 1);
  }
  return live;
}

template <class Key, class Value, class Backend>
std::uint64_t lsm_map<Key, Value, Backend>::resident_entries() const
{
  adopt_async();
  std::uint64_t entries = 0;
  for (const auto& occupied : levels_) { entries += occupied ? occupied->size : 0; }
  return entries;
}

template <class Key, class Value, class Backend>
std::uint64_t lsm_map<Key, Value, Backend>::resident_tombstones() const
{
  adopt_async();
  return detail::read_back(backend_, counters_.data() + detail::lsm_tombstone_count);
}

template <class Key, class Value, class Backend>
std::uint64_t lsm_map<Key, Value, Backend>::resident_stale() const
{
  adopt_async();
  return detail::read_back(backend_, counters_.data() + detail::lsm_stale_count);
}

template <class Key, class Value, class Backend>
std::size_t lsm_map<Key, Value, Backend>::occupied_levels() const
{
  adopt_async();
  return static_cast<std::size_t>(
      std::count_if(levels_.begin(), levels_.end(), [](const auto& occupied) { return occupied != nullptr; }));
}

}  // namespace warpdex

#define WARPDEX_INSTANTIATE_LSM(Backend)                         \
  template class lsm_map<std::uint32_t, std::uint32_t, Backend>; \
  template class lsm_map<std::uint64_t, std::uint32_t, Backend>;
