#pragma once
// The per-rank steps of a distributed batch (and of the distributed multisplit), on either backend (compiled in
// src/distributed/: batch_steps_host.cpp and batch_steps_cuda.cu): the split of a batch by owner and the gathers and
// scatters that move elements and results between the caller's order and the owners' order. Spans in the backend's
// memory; all calls are ordered on the backend's stream.

#include <warpdex/core/backend.hpp>
#include <warpdex/distributed/owner.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace warpdex::distributed::detail {

/// The stable multisplit of `keys` by `owners` (multisplit_pairs of the keys with their positions 0 .. n - 1):
/// keys_out holds the keys grouped by owner rank (reserved keys last), positions_out[j] the position in `keys`
/// of keys_out[j]. Returns the owners.bucket_count() bucket offsets. Requires n < 2^32. Synchronizes.
std::vector<std::uint64_t> split_by_owner(const host& backend, std::span<const std::uint32_t> keys,
                                          std::span<std::uint32_t> keys_out, std::span<std::uint32_t> positions_out,
                                          owner_buckets owners);
/// The same split moving each key's value with it instead of its position (an insertion whose results do not go
/// back: no positions, no gather of the values afterwards). Synchronizes.
std::vector<std::uint64_t> split_pairs_by_owner(const host& backend, std::span<const std::uint32_t> keys,
                                                std::span<const std::uint32_t> values,
                                                std::span<std::uint32_t> keys_out, std::span<std::uint32_t> values_out,
                                                owner_buckets owners);

/// out[j] = source[positions[j]] for every j of `out` (the values of a batch, into the order of its split).
void gather(const host& backend, std::span<const std::uint32_t> source, std::span<const std::uint32_t> positions,
            std::span<std::uint32_t> out);
void gather(const host& backend, std::span<const hash::operation> source, std::span<const std::uint32_t> positions,
            std::span<hash::operation> out);
/// How many of `operations` are not operation codes (>= hash::operation_count). Synchronizes.
std::uint64_t count_invalid_operations(const host& backend, std::span<const hash::operation> operations);

/// out[positions[j]] = source[j] for every j of `source` (results, back to the caller's order).
void scatter(const host& backend, std::span<const hash::operation_status> source,
             std::span<const std::uint32_t> positions, std::span<hash::operation_status> out);

/// out[positions[j]] = values[j] for the j whose status is `found` (a find leaves the others unwritten), and, when
/// `statuses_out` is not empty, statuses_out[positions[j]] = statuses[j] for every j in the same pass (scatter's
/// work without reading the statuses and positions twice).
void scatter_found(const host& backend, std::span<const std::uint32_t> values,
                   std::span<const hash::operation_status> statuses, std::span<const std::uint32_t> positions,
                   std::span<std::uint32_t> out, std::span<hash::operation_status> statuses_out = {});

/// Copies contiguous segments: segment k is out[out_starts[k], out_starts[k + 1]) (the last one ends at out.size()),
/// read from source[source_starts[k], + its length). out_starts ascending from 0, as many as source_starts. The
/// distributed multisplit's reorder of a rank's received buckets from sender-major to bucket-major.
void copy_segments(const host& backend, std::span<const std::uint32_t> source, std::span<std::uint32_t> out,
                   const std::vector<std::uint64_t>& out_starts, const std::vector<std::uint64_t>& source_starts);

#if WARPDEX_HAS_CUDA
/// The stable multisplit of `keys` by `owners` (multisplit_pairs of the keys with their positions 0 .. n - 1):
/// keys_out holds the keys grouped by owner rank (reserved keys last), positions_out[j] the position in `keys`
/// of keys_out[j]. Returns the owners.bucket_count() bucket offsets. Requires n < 2^32. Synchronizes.
std::vector<std::uint64_t> split_by_owner(const cuda& backend, std::span<const std::uint32_t> keys,
                                          std::span<std::uint32_t> keys_out, std::span<std::uint32_t> positions_out,
                                          owner_buckets owners);
/// The same split moving each key's value with it instead of its position (an insertion whose results do not go
/// back: no positions, no gather of the values afterwards). Synchronizes.
std::vector<std::uint64_t> split_pairs_by_owner(const cuda& backend, std::span<const std::uint32_t> keys,
                                                std::span<const std::uint32_t> values,
                                                std::span<std::uint32_t> keys_out, std::span<std::uint32_t> values_out,
                                                owner_buckets owners);

/// out[j] = source[positions[j]] for every j of `out` (the values of a batch, into the order of its split).
void gather(const cuda& backend, std::span<const std::uint32_t> source, std::span<const std::uint32_t> positions,
            std::span<std::uint32_t> out);
void gather(const cuda& backend, std::span<const hash::operation> source, std::span<const std::uint32_t> positions,
            std::span<hash::operation> out);
/// How many of `operations` are not operation codes (>= hash::operation_count). Synchronizes.
std::uint64_t count_invalid_operations(const cuda& backend, std::span<const hash::operation> operations);

/// out[positions[j]] = source[j] for every j of `source` (results, back to the caller's order).
void scatter(const cuda& backend, std::span<const hash::operation_status> source,
             std::span<const std::uint32_t> positions, std::span<hash::operation_status> out);

/// out[positions[j]] = values[j] for the j whose status is `found` (a find leaves the others unwritten), and, when
/// `statuses_out` is not empty, statuses_out[positions[j]] = statuses[j] for every j in the same pass (scatter's
/// work without reading the statuses and positions twice).
void scatter_found(const cuda& backend, std::span<const std::uint32_t> values,
                   std::span<const hash::operation_status> statuses, std::span<const std::uint32_t> positions,
                   std::span<std::uint32_t> out, std::span<hash::operation_status> statuses_out = {});

/// As the host one (the segment tables on the host, copied to the device by the call).
void copy_segments(const cuda& backend, std::span<const std::uint32_t> source, std::span<std::uint32_t> out,
                   const std::vector<std::uint64_t>& out_starts, const std::vector<std::uint64_t>& source_starts);
#endif

}  // namespace warpdex::distributed::detail
