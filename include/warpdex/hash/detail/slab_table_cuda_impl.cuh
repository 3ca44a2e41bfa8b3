#pragma once
// The cuda backend of the slab tables: batches run through the device ref (one tile of 1, 4, 8, 16 or
// 32 lanes per operation; finds through the non-coherent cache; an insertion that appends a slab on
// the whole warp), optionally in bucket order (a stable radix sort of (bucket, index) pairs first);
// list walks run one warp per bucket, flush one thread per bucket. Each slab size's layouts are
// instantiated in a translation unit of their own (src/hash/slab_table_cuda.cu, slab_table_cuda_64.cu),
// so the two compile in parallel; a table with a hasher of its own is instantiated by the user
// (hash/instantiate.hpp). It defines the same templates as slab_table_host_impl.hpp, so a translation
// unit includes one of the two.
// The kernels and device functors live in slab_table_cuda_kernels.cuh (batches, walks),
// slab_table_cuda_combine.cuh (combined batches) and slab_table_cuda_partition.cuh (insertion batches
// split by bucket range); this file defines the operations with them.
#include <warpdex/hash/detail/slab_table_cuda_combine.cuh>
#include <warpdex/hash/detail/slab_table_cuda_partition.cuh>

namespace warpdex::hash::detail {

using namespace cuda_backend;

template <class Slots, class Backend>
void initialize_table(const Backend& backend, const slab_table_view<Slots>& table)
{
  WARPDEX_CUDA_TRY(cudaMemsetAsync(table.heads, fresh_slab_byte, std::uint64_t{table.bucket_count} * Slots::slab_bytes,
                                   backend.stream));
  reset_swept_full(backend, table);
}

template <class Backend>
std::uint64_t batch_wave_threads_of(const Backend&)
{
  return batch_wave_threads();
}

template <class Backend>
void initialize_bitmap(const Backend& backend, std::uint32_t* bitmap, std::uint64_t words, std::uint64_t slabs)
{
  if (words == 0) { return; }
  initialize_bitmap_kernel<<<blocks_for(words), block_threads, 0, backend.stream>>>(bitmap, words, slabs);
  WARPDEX_CHECK_LAUNCH("initialize_bitmap_kernel");
}

template <class Backend, class Key>
batch_violations find_violations(const Backend& backend, const Key* keys, const operation* operations,
                                 std::uint64_t count, std::uint32_t unsupported)
{
  auto report = make_buffer<batch_report>(backend, 1);
  const batch_report initial{};  // the running minima and block count the check kernel starts from
  report.copy_from(std::span<const batch_report>(&initial, 1));
  enqueue_check(backend, keys, operations, count, unsupported, report.data());
  return copy_to_host(report).violations;
}

template <class Slots, class Backend>
std::uint64_t execute_batch(const Backend& backend, const slab_table_view<Slots>& table,
                            const batch_arguments<Slots>& batch)
{
  buffer<std::byte> scratch;  // freed on the stream, after the kernel that reads the order
  const std::uint32_t* order = bucket_order(backend, table, batch, scratch);
  // Uniform finds and erasures never allocate: no exhaustion count to read back.
  const bool never_allocates =
      batch.operations == nullptr && (batch.uniform == operation::find || batch.uniform == operation::erase);
  buffer<unsigned long long> exhausted;
  if (!never_allocates) {
    exhausted = make_buffer<unsigned long long>(backend, 1);
    WARPDEX_CUDA_TRY(cudaMemsetAsync(exhausted.data(), 0, exhausted.size_bytes(), backend.stream));
  }
  launch_planned(backend, table, batch, order, exhausted.data());
  return never_allocates ? 0 : copy_to_host(exhausted);
}

template <class Slots, class Backend>
bool enqueue_checked_batch(const Backend& backend, const slab_table_view<Slots>& table,
                           const batch_arguments<Slots>& batch, std::uint32_t unsupported, batch_report* report,
                           buffer<std::byte>& scratch)
{
  // Each element checks its own key in the batch kernel, or (many batches) every block its elements'
  // batches: nothing before it, no report.
  if (batch.check_each || batch.batch_offsets != nullptr) {
    batch_arguments<Slots> unreported = batch;
    if (batch.check_each) { unreported.batch_offsets = nullptr; }  // each key alone: the offsets change nothing
    const std::uint32_t* order = bucket_order(backend, table, unreported, scratch);
    launch_planned(backend, table, unreported, order, nullptr);
    return false;
  }
  batch_arguments<Slots> gated = batch;
  // The kernels write the whole report home (batch.report_home) when its exhausted count has one writer:
  // a self-checked batch's (block 0, or its last block), or none (finds and erasures never allocate).
  const bool never_allocates =
      batch.operations == nullptr && (batch.uniform == operation::find || batch.uniform == operation::erase);
  bool written_home = batch.report_home != nullptr;
  // A small uniform batch checks itself in its kernel (self_checked_rejects): one launch fewer.
  // An `_async` find whose outputs a rejection can all rewrite checks itself at any size, each block its
  // own elements (finish_find_check): one launch, as a small batch.
  const bool rewritable_find = batch.operations == nullptr && batch.uniform == operation::find && batch.mark_rejected &&
                               (batch.values_out == nullptr || batch.write_misses);
  if (batch.operations == nullptr && batch.count <= check_single_block_elements) {
    gated.self_check = report;
  } else if (rewritable_find) {
    gated.find_check = report;
  } else {
    written_home = written_home && never_allocates;
    enqueue_check(backend, batch.keys, batch.operations, batch.count, unsupported, report, batch.wave_threads,
                  written_home ? batch.report_home : nullptr);
    gated.gate = report;
    gated.report_home = nullptr;  // the check kernel wrote it (a gated kernel adds exhausted counts only)
    // Split after the check, which names the first reserved key by its index in the caller's order.
    gated = partitioned_batch(backend, table, gated, scratch);
  }
  const std::uint32_t* order = bucket_order(backend, table, batch, scratch);
  static_assert(sizeof(report->exhausted) == sizeof(unsigned long long));
  launch_planned(backend, table, gated, order, reinterpret_cast<unsigned long long*>(&report->exhausted));
  return written_home;
}

template <class Backend, class Key>
std::vector<Key> sample_keys(const Backend& backend, const Key* keys, std::uint64_t count, std::uint64_t samples)
{
  const std::uint64_t taken = std::min(count, samples);
  if (taken == 0) { return {}; }
  auto sample = make_buffer<Key>(backend, taken);
  sample_keys_kernel<<<blocks_for(taken), block_threads, 0, backend.stream>>>(keys, count, samples, sample.data(),
                                                                              taken);
  WARPDEX_CHECK_LAUNCH("sample_keys_kernel");
  return sample.to_vector();
}

template <class Slots, class Backend>
std::uint64_t execute_combined(const Backend& backend, const slab_table_view<Slots>& table,
                               const batch_arguments<Slots>& batch)
{
  using key_type = typename Slots::key_type;
  using value_type = typename Slots::value_type;
  constexpr int key_bits = 8 * sizeof(key_type);
  // CUB's radix sort counts its items in an int: a larger batch runs uncombined (still correct).
  if (batch.count > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    return execute_batch<Slots>(backend, table, batch);
  }
  const auto on = warpdex::detail::policy_nosync(backend);
  using counter = thrust::counting_iterator<std::uint64_t>;
  const counter first_position(0);

  // The elements that run, as order entries (a unique-key table's mixed batch packs their operations
  // in: batch_element), and their keys.
  const bool packs =
      table.mode == key_mode::unique && batch.operations != nullptr && batch.count <= max_packed_elements;
  auto elements = make_buffer<std::uint32_t>(backend, batch.count);
  std::uint64_t count = batch.count;
  buffer<key_type> element_keys;
  const key_type* keys_to_sort = batch.keys;
  if (batch.retry != nullptr) {
    const thrust::counting_iterator<std::uint32_t> first_element(0);
    count = static_cast<std::uint64_t>(thrust::copy_if(on, first_element, first_element + batch.count, elements.data(),
                                                       runs_this_attempt{batch.retry}) -
                                       elements.data());
    element_keys = make_buffer<key_type>(backend, count);
    thrust::gather(on, elements.data(), elements.data() + count, batch.keys, element_keys.data());
    keys_to_sort = element_keys.data();
    if (packs) {
      thrust::transform(on, elements.data(), elements.data() + count, elements.data(),
                        pack_operation{batch.operations});
    }
  } else if (packs) {
    const thrust::counting_iterator<std::uint32_t> first_element(0);
    thrust::transform(on, first_element, first_element + count, elements.data(), pack_operation{batch.operations});
  } else {
    thrust::sequence(on, elements.data(), elements.data() + count);
  }
  if (count == 0) { return 0; }

  // Sorted by key, each key's elements in input order (a stable radix sort).
  auto sorted_keys = make_buffer<key_type>(backend, count);
  auto order = make_buffer<std::uint32_t>(backend, count);
  const auto items = static_cast<int>(count);
  std::size_t temporary_bytes = 0;
  WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temporary_bytes, keys_to_sort, sorted_keys.data(),
                                                   elements.data(), order.data(), items, 0, key_bits, backend.stream));
  auto temporary = make_buffer<std::byte>(backend, temporary_bytes);
  WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temporary.data(), temporary_bytes, keys_to_sort, sorted_keys.data(),
                                                   elements.data(), order.data(), items, 0, key_bits, backend.stream));

  // Groups of equal keys: the 1-based group of each position, the first position of each group.
  auto groups = make_buffer<std::uint32_t>(backend, count);
  thrust::inclusive_scan(
      on, thrust::make_transform_iterator(first_position, starts_group<key_type>{sorted_keys.data()}),
      thrust::make_transform_iterator(first_position + count, starts_group<key_type>{sorted_keys.data()}),
      groups.data());
  const std::uint64_t group_count = warpdex::detail::read_back(backend, groups.data() + count - 1);
  auto group_first = make_buffer<std::uint64_t>(backend, group_count + 1);
  thrust::copy_if(on, first_position, first_position + count, group_first.data(),
                  is_group_start<key_type>{sorted_keys.data()});
  thrust::fill_n(on, group_first.data() + group_count, 1, count);
  auto group_keys = make_buffer<key_type>(backend, group_count);
  thrust::gather(on, group_first.data(), group_first.data() + group_count, sorted_keys.data(), group_keys.data());

  // One find per distinct key: its state before the batch.
  auto initial = make_buffer<operation_status>(backend, group_count);
  auto initial_values = make_buffer<value_type>(backend, Slots::has_values ? group_count : 0);
  execute_batch<Slots>(backend, table,
                       group_finds(group_keys.data(), Slots::has_values ? initial_values.data() : nullptr,
                                   initial.data(), group_count, batch.tile_lanes));

  const batch_element<value_type> elements_in{batch.operations, batch.uniform, batch.values_in, packs};
  const element_outputs<value_type> outputs{batch.values_out, batch.statuses, batch.found, batch.write_misses,
                                            batch.miss_value};
  if (table.mode == key_mode::duplicates) {
    // A multimap (multiset_outcome): each group's erasures and insertions counted and ranked, one
    // erasing walk and one appending walk per group, then every element's outcome.
    auto counts = make_buffer<std::uint64_t>(backend, count);
    auto ranks = make_buffer<std::uint64_t>(backend, count);
    thrust::transform(on, order.data(), order.data() + count, counts.data(),
                      erase_insert_count<value_type>{elements_in});
    thrust::exclusive_scan_by_key(on, groups.data(), groups.data() + count, counts.data(), ranks.data(),
                                  std::uint64_t{0});
    auto totals = make_buffer<std::uint64_t>(backend, group_count);
    thrust::for_each(on, first_position, first_position + group_count,
                     group_totals{group_first.data(), ranks.data(), counts.data(), totals.data()});
    auto insert_elements = make_buffer<std::uint32_t>(backend, count);
    thrust::copy_if(on, order.data(), order.data() + count, counts.data(), insert_elements.data(),
                    counts_an_insertion{});
    auto insert_first = make_buffer<std::uint64_t>(backend, group_count);
    thrust::transform_exclusive_scan(on, totals.data(), totals.data() + group_count, insert_first.data(),
                                     insertions_of{}, std::uint64_t{0}, thrust::plus<std::uint64_t>());
    auto erased = make_buffer<std::uint64_t>(backend, group_count);
    auto added = make_buffer<std::uint64_t>(backend, group_count);
    const unsigned group_blocks = blocks_for(group_count * warp::size);
    erase_instances_kernel<Slots><<<group_blocks, block_threads, 0, backend.stream>>>(
        table, group_keys.data(), totals.data(), group_count, erased.data());
    WARPDEX_CHECK_LAUNCH("erase_instances_kernel");
    append_instances_kernel<Slots><<<group_blocks, block_threads, 0, backend.stream>>>(
        table, group_keys.data(), totals.data(), insert_first.data(), insert_elements.data(), batch.values_in,
        group_count, next_launch_salt(), added.data());
    WARPDEX_CHECK_LAUNCH("append_instances_kernel");
    const multiset_element_outcome<value_type> outcome{order.data(),  groups.data(), ranks.data(), initial.data(),
                                                       erased.data(), added.data(),  elements_in};
    thrust::for_each(on, first_position, first_position + count,
                     fan_out_multiset_outcome<value_type>{outcome, initial_values.data(), outputs});
    return thrust::transform_reduce(on, first_position, first_position + count,
                                    is_exhausted_multiset_outcome<value_type>{outcome}, std::uint64_t{0},
                                    thrust::plus<std::uint64_t>());
  }

  // The run of the transitions before each element in its group (each computed from its order entry).
  auto prefix = make_buffer<key_transition>(backend, count);
  const auto transitions = thrust::make_transform_iterator(order.data(), transition_of_entry<value_type>{elements_in});
  thrust::exclusive_scan_by_key(on, groups.data(), groups.data() + count, transitions, prefix.data(),
                                unchanged_transition(), thrust::equal_to<std::uint32_t>(), compose_transitions{});

  // One write per group that changes its key.
  auto write_operations = make_buffer<operation>(backend, group_count);
  auto write_values = make_buffer<value_type>(backend, group_count);
  auto write_statuses = make_buffer<operation_status>(backend, group_count);
  thrust::for_each(on, first_position, first_position + group_count,
                   plan_group_write<Slots>{group_first.data(), prefix.data(), order.data(), initial.data(), elements_in,
                                           write_operations.data(), write_values.data(), write_statuses.data()});
  execute_batch<Slots>(backend, table,
                       group_writes(write_operations.data(), group_keys.data(), write_values.data(),
                                    write_statuses.data(), group_count, batch.tile_lanes));

  // Every element's outcome at its own index. Elements end out_of_memory only in groups whose write did:
  // those are counted first (a pass over the groups; usually none, and then the outcomes need not look).
  const bool any_exhausted = thrust::count(on, write_statuses.data(), write_statuses.data() + group_count,
                                           operation_status::out_of_memory) != 0;
  const combined_outcome<value_type> outcome{
      order.data(), groups.data(), prefix.data(), initial.data(), any_exhausted ? write_statuses.data() : nullptr,
      elements_in};
  const auto exhausted_elements = [&] {
    if (!any_exhausted) { return std::uint64_t{0}; }
    return thrust::transform_reduce(on, first_position, first_position + count,
                                    is_exhausted_outcome<value_type>{outcome}, std::uint64_t{0},
                                    thrust::plus<std::uint64_t>());
  };
  if constexpr (sizeof(value_type) <= sizeof(std::uint32_t)) {
    if (count >= sorted_outcomes_min_elements) {
      // Outcomes in sorted order with their elements, sorted back by element into the buffers of the
      // order's entries and of the prefixes (neither read after the exhausted count), written out.
      auto packed = make_buffer<std::uint64_t>(backend, count);
      thrust::for_each(
          on, first_position, first_position + count,
          pack_outcome<value_type>{outcome, initial_values.data(), outputs, elements.data(), packed.data()});
      const std::uint64_t exhausted = exhausted_elements();
      static_assert(sizeof(key_transition) == sizeof(std::uint64_t));
      cub::DoubleBuffer<std::uint32_t> element_keys(elements.data(), groups.data());
      cub::DoubleBuffer<std::uint64_t> packed_values(packed.data(), reinterpret_cast<std::uint64_t*>(prefix.data()));
      const int element_bits = std::bit_width(batch.count - 1);
      std::size_t back_bytes = 0;
      WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, back_bytes, element_keys, packed_values, items, 0,
                                                       element_bits, backend.stream));
      if (back_bytes > temporary.size_bytes()) { temporary = make_buffer<std::byte>(backend, back_bytes); }
      WARPDEX_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temporary.data(), back_bytes, element_keys, packed_values, items,
                                                       0, element_bits, backend.stream));
      thrust::for_each(on, first_position, first_position + count,
                       unpack_outcome<value_type>{element_keys.Current(), packed_values.Current(), outputs});
      return exhausted;
    }
  }
  thrust::for_each(on, first_position, first_position + count,
                   fan_out_outcome<value_type>{outcome, initial_values.data(), outputs});
  return exhausted_elements();
}

template <class Slots, class Backend>
chain_totals summarize_chains(const Backend& backend, const slab_table_view<Slots>& table)
{
  auto totals = make_buffer<chain_totals>(backend, 1);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(totals.data(), 0, totals.size_bytes(), backend.stream));
  const unsigned blocks = warpdex::detail::one_wave_blocks(summarize_kernel<Slots>, block_threads,
                                                           std::uint64_t{table.bucket_count} * warp::size);
  summarize_kernel<Slots><<<blocks, block_threads, 0, backend.stream>>>(table, totals.data());
  WARPDEX_CHECK_LAUNCH("summarize_kernel");
  return copy_to_host(totals);
}

template <class Slots, class Backend>
std::uint64_t export_live(const Backend& backend, const slab_table_view<Slots>& table,
                          typename Slots::key_type* keys_out, typename Slots::value_type* values_out,
                          std::uint64_t capacity)
{
  auto written = make_buffer<unsigned long long>(backend, 1);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(written.data(), 0, written.size_bytes(), backend.stream));
  const unsigned blocks = warpdex::detail::one_wave_blocks(export_kernel<Slots>, block_threads,
                                                           std::uint64_t{table.bucket_count} * warp::size);
  export_kernel<Slots>
      <<<blocks, block_threads, 0, backend.stream>>>(table, keys_out, values_out, capacity, written.data());
  WARPDEX_CHECK_LAUNCH("export_kernel");
  return copy_to_host(written);
}

template <class Slots, class Backend>
void walk_lists(const Backend& backend, const slab_table_view<Slots>& table, const walk_arguments<Slots>& walk)
{
  walk_kernel<Slots><<<blocks_for(walk.count * warp::size), block_threads, 0, backend.stream>>>(table, walk);
  WARPDEX_CHECK_LAUNCH("walk_kernel");
}

template <class Backend>
std::uint64_t counts_to_offsets(const Backend& backend, std::uint64_t* counts, std::uint64_t queries)
{
  WARPDEX_CUDA_TRY(cudaMemsetAsync(counts + queries, 0, sizeof(std::uint64_t), backend.stream));
  thrust::exclusive_scan(thrust::cuda::par.on(backend.stream), counts, counts + queries + 1, counts);
  std::uint64_t total = 0;
  WARPDEX_CUDA_TRY(cudaMemcpyAsync(&total, counts + queries, sizeof(total), cudaMemcpyDeviceToHost, backend.stream));
  WARPDEX_CUDA_TRY(cudaStreamSynchronize(backend.stream));
  return total;
}

template <class Slots, class Backend>
void flush_table(const Backend& backend, const slab_table_view<Slots>& table)
{
  flush_kernel<Slots><<<blocks_for(table.bucket_count), block_threads, 0, backend.stream>>>(table);
  WARPDEX_CHECK_LAUNCH("flush_kernel");
  reset_swept_full(backend, table);  // the flush freed slabs without the allocator
}

}  // namespace warpdex::hash::detail
