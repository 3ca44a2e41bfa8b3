#pragma once
/// @file Stable multisplit: reorder keys (or key-value pairs) so that the keys of each bucket are
/// contiguous, buckets in ascending id order, and keys of one bucket in their input order.
///
/// ```
/// // keys and out in device memory; bucket = bits [4, 9) of the key, 32 buckets
/// const auto offsets = warpdex::multisplit(warpdex::cuda{stream}, keys, out, warpdex::bit_field_buckets{4, 5});
/// // out[offsets[b] .. offsets[b + 1]) holds the keys of bucket b (the last bucket ends at n)
/// ```
///
/// Identifiers (bucket_identifiers.hpp): bit fields, delta buckets, splitters, and any functor. The
/// compiled library instantiates uint32 keys with bit fields, delta buckets and uint32 splitters, float
/// keys with float splitters and uint64 keys with bit fields, all with uint32 values. Keys are 32 or 64
/// bits wide (the bucket id is 32-bit). Other identifiers and key types (custom_buckets with
/// your functor) need the definitions: include <warpdex/split/multisplit_host.hpp> in C++ code for the
/// host backend and <warpdex/split/multisplit.cuh> in CUDA code for the cuda backend.
///
/// Preconditions and errors (checked before any output is written; `warpdex::error`):
/// - output sizes equal the input size; outputs do not overlap the inputs;
/// - the identifier is valid (bit field within the key's 32 or 64 bits, delta >= 1, splitters strictly increasing and
///   not NaN, m >= 1);
/// - every key's bucket id lies in [0, m): the ids are counted first, and any outside makes the call
///   throw with their number, leaving the outputs untouched.
///
/// Complexity: O(n + m * n / tile) work. The cuda backend for m <= 256 reads the keys twice and writes
/// them once (12 bytes per 32-bit key, 20 per pair) plus m words per tile of 4096 keys (7680 in the
/// single pass; m <= 3, the partition: m - 1 words); for larger m it counts the full ids and runs
/// ceil(log2(m) / 8) such passes over digits of the id (super buckets), or (reduced_bit_sort) labels
/// the keys and sorts (label, index) pairs over ceil(log2 m) bits. 64-bit keys move 24 bytes per key
/// and pass (28 per pair). The call synchronizes the backend's stream (it needs the bucket counts on
/// the host to report bad ids).

#include <warpdex/core/backend.hpp>
#include <warpdex/split/bucket_identifiers.hpp>

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace warpdex {

/// How the cuda backend splits (docs/split.md). All give the same output; the host backend has one
/// algorithm and accepts any value. With m > 256, three_pass and single_pass run the super-bucket
/// passes with that algorithm; with m <= 256, super_bucket is one pass (as automatic).
enum class multisplit_algorithm {
  automatic,         ///< the default: per m and keys or pairs, from measurements (docs/split.md)
  three_pass,        ///< count per tile, scan the (bucket, tile) table, scatter
  single_pass,       ///< bucket totals, then one pass with CUB's block ranking and decoupled look-back
  super_bucket,      ///< count the full ids, then one stable pass per digit of up to 8 bits of the id
  reduced_bit_sort,  ///< label every key, sort (label, index) over ceil(log2 m) bits, gather; n < 2^32
  /// m <= 3: count the buckets, then one pass ranking with ballots and decoupled look-back, every
  /// bucket written forward at its start (stable); with more buckets, as automatic
  partition,
};

/// Stable multisplit of keys on the host backend. Returns the m bucket offsets: bucket b occupies
/// keys_out[offsets[b], offsets[b + 1]) (the last bucket ends at n).
template <class Key, class Identifier>
std::vector<std::uint64_t> multisplit(const host& backend, std::span<const std::type_identity_t<Key>> keys_in,
                                      std::span<Key> keys_out, const Identifier& identifier,
                                      multisplit_algorithm algorithm = multisplit_algorithm::automatic);

/// Stable multisplit of key-value pairs on the host backend: each value moves with its key.
template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> multisplit_pairs(const host& backend, std::span<const std::type_identity_t<Key>> keys_in,
                                            std::span<const std::type_identity_t<Value>> values_in,
                                            std::span<Key> keys_out, std::span<Value> values_out,
                                            const Identifier& identifier,
                                            multisplit_algorithm algorithm = multisplit_algorithm::automatic);

#if WARPDEX_HAS_CUDA
/// Stable multisplit of keys in device memory on the cuda backend (same contract as the host one).
template <class Key, class Identifier>
std::vector<std::uint64_t> multisplit(const cuda& backend, std::span<const std::type_identity_t<Key>> keys_in,
                                      std::span<Key> keys_out, const Identifier& identifier,
                                      multisplit_algorithm algorithm = multisplit_algorithm::automatic);

/// Stable multisplit of key-value pairs in device memory on the cuda backend.
template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> multisplit_pairs(const cuda& backend, std::span<const std::type_identity_t<Key>> keys_in,
                                            std::span<const std::type_identity_t<Value>> values_in,
                                            std::span<Key> keys_out, std::span<Value> values_out,
                                            const Identifier& identifier,
                                            multisplit_algorithm algorithm = multisplit_algorithm::automatic);
#endif

}  // namespace warpdex
