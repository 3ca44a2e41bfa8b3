#pragma once
// The cuda backend's bulk build by partition (batch_order::by_partition; docs/hash.md, "Bulk builds by
// partition"): a large insertion batch is split by the high bits of its keys' buckets with the library's
// multisplit (keys with their values, one single pass over at most 256 bucket ranges), then runs as one
// grid over the split arrays. Blocks start roughly in order, so the warps in flight at any moment insert
// into one or two ranges of consecutive buckets whose base slabs stay in L2, and each base slab is read
// from DRAM about once for all its insertions instead of once each.
#include <warpdex/hash/batch_options.hpp>
#include <warpdex/hash/detail/slab_table_cuda_kernels.cuh>
#include <warpdex/split/multisplit.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace warpdex::hash::detail::cuda_backend {

/// The most bucket ranges a batch is split into: what one pass of the multisplit takes.
constexpr std::uint32_t max_bucket_ranges = 256;

/// The ranges of a table of `bucket_count` buckets: as many as its base slabs fill `partition_bytes`
/// each (at least one, at most max_bucket_ranges and the bucket count). At 2^26 keys and 60% fill of
/// 128-byte slabs (954 MB) and 24 MiB a range, 38 ranges of 196K buckets; the 67K insertions in flight
/// on an H200 (8 a warp) then meet about one to three buckets in ten.
template <class Slots>
std::uint32_t bucket_ranges(std::uint32_t bucket_count, std::uint64_t partition_bytes)
{
  const std::uint64_t range_bytes = partition_bytes != 0 ? partition_bytes : default_partition_bytes;
  const std::uint64_t wanted = (std::uint64_t{bucket_count} * Slots::slab_bytes + range_bytes - 1) / range_bytes;
  const std::uint64_t most = std::min<std::uint64_t>(max_bucket_ranges, bucket_count);
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(wanted, 1, most));
}

/// A key's bucket range, the multisplit's bucket identifier: its bucket scaled to [0, ranges) by a 32.32
/// fixed-point factor, so each range is a run of consecutive buckets (no division per key).
template <class Slots>
struct bucket_range_of {
  slab_table_view<Slots> table;
  std::uint64_t scale;  ///< floor(2^32 * ranges / bucket_count), at most 2^32 (ranges <= bucket_count)

  __host__ __device__ std::uint32_t operator()(typename Slots::key_type key) const
  {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(table.bucket_of(key)) * scale) >> 32);
  }
};

/// Whether a layout's batches can be split: 32-bit keys and values, what the multisplit moves.
template <class Slots>
inline constexpr bool splittable_layout = sizeof(typename Slots::key_type) == sizeof(std::uint32_t) &&
                                          (!Slots::has_values ||
                                           sizeof(typename Slots::value_type) == sizeof(std::uint32_t));

/// Whether the backend splits `batch` by bucket range: asked for (batch.by_partition), a uniform
/// insertion batch writing no outputs into a unique-key table (its elements' results are not tied to
/// their indices), a splittable layout, fewer than 2^32 elements.
template <class Slots>
bool splits_by_partition(const slab_table_view<Slots>& table, const batch_arguments<Slots>& batch)
{
  const bool inserts = batch.operations == nullptr &&
                       (batch.uniform == operation::insert || batch.uniform == operation::insert_or_assign);
  const bool no_outputs = batch.statuses == nullptr && batch.values_out == nullptr && batch.found == nullptr;
  return splittable_layout<Slots> && batch.by_partition && inserts && no_outputs && table.mode == key_mode::unique &&
         batch.retry == nullptr && batch.batch_offsets == nullptr && !batch.check_each &&
         batch.count <= std::numeric_limits<std::uint32_t>::max();
}

/// partitioned_batch for a splittable layout.
template <class Slots, class Backend>
batch_arguments<Slots> split_by_bucket_range(const Backend& backend, const slab_table_view<Slots>& table,
                                             const batch_arguments<Slots>& batch, buffer<std::byte>& scratch)
{
  if (!splits_by_partition(table, batch)) { return batch; }
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  WARPDEX_CUDA_TRY(cudaStreamIsCapturing(backend.stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) { return batch; }

  using key_type = typename Slots::key_type;
  // A set moves its keys alone (the multisplit's keys-only form).
  using split_value = std::conditional_t<Slots::has_values, typename Slots::value_type, void>;
  const std::uint64_t count = batch.count;
  const std::uint32_t ranges = bucket_ranges<Slots>(table.bucket_count, batch.partition_bytes);
  if (ranges == 1) { return batch; }  // the whole table is one range: nothing to split
  const std::size_t key_bytes = aligned_bytes(count * sizeof(key_type));
  const std::size_t value_bytes = Slots::has_values ? aligned_bytes(count * sizeof(typename Slots::value_type)) : 0;
  const std::size_t result_words = std::size_t{ranges} + 2;  // offsets[0 .. ranges], the bad-id count
  const std::size_t needed = key_bytes + value_bytes + result_words * sizeof(std::uint64_t);
  if (scratch.size() < needed) { scratch = make_buffer<std::byte>(backend, needed); }
  auto* keys_out = reinterpret_cast<key_type*>(scratch.data());
  auto* results = reinterpret_cast<std::uint64_t*>(scratch.data() + key_bytes + value_bytes);

  const std::uint64_t scale = (std::uint64_t{ranges} << 32) / table.bucket_count;
  const auto identifier = make_custom_buckets(bucket_range_of<Slots>{table, scale}, ranges);
  // Every id lies in [0, ranges), so the split writes every element; the offsets are not needed after it.
  const warpdex::detail::split_target target{results, results + ranges + 1};
  multisplit_workspace workspace;  // freed on the stream, after the split's kernels
  batch_arguments<Slots> split = batch;
  split.keys = keys_out;
  if constexpr (Slots::has_values) {
    auto* values_out = reinterpret_cast<typename Slots::value_type*>(scratch.data() + key_bytes);
    warpdex::detail::cuda_single_pass_async<key_type, split_value>("slab table bulk build", backend, batch.keys,
                                                                   keys_out, batch.values_in, values_out, count,
                                                                   identifier, workspace, target);
    split.values_in = values_out;
  } else {
    warpdex::detail::cuda_single_pass_async<key_type, split_value>(
        "slab table bulk build", backend, batch.keys, keys_out, static_cast<const void*>(nullptr),
        static_cast<void*>(nullptr), count, identifier, workspace, target);
  }
  split.by_partition = false;
  split.drop_warp_duplicates = true;
  return split;
}

/// `batch` split by bucket range into `scratch` (grown when too small): its keys and values point there,
/// and its warps drop duplicate keys (drop_warp_duplicates: a hot key, whose elements share a range,
/// fills whole warps there, and one lane of each runs it). `batch` as it is when it is not split
/// (splits_by_partition), or when its stream is being captured into a graph (the multisplit's scratch is a
/// stream-ordered allocation; bucket_order says why a captured batch allocates nothing). Enqueued on the
/// backend's stream; nothing waits.
template <class Slots, class Backend>
batch_arguments<Slots> partitioned_batch(const Backend& backend, const slab_table_view<Slots>& table,
                                         const batch_arguments<Slots>& batch, buffer<std::byte>& scratch)
{
  if constexpr (!splittable_layout<Slots>) {
    return batch;
  } else {
    return split_by_bucket_range(backend, table, batch, scratch);
  }
}

}  // namespace warpdex::hash::detail::cuda_backend
