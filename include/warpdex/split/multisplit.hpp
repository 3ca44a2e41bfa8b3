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
///
/// Asynchronous form (`multisplit_async`, `multisplit_pairs_async`): the offsets and the number of
/// bad ids go to memory of the backend instead of the host, and the call never synchronizes the stream
/// for m <= 256 (see multisplit_async for what it checks and what happens with bad ids). The
/// synchronous calls are this form plus one copy of the results to the host and one synchronization; on
/// the cuda backend their scratch memory comes from slots the library keeps per device (grown on demand,
/// one slot per call in flight, so several host threads may call at once; freed at exit): a warm call
/// allocates nothing.

#include <warpdex/core/backend.hpp>
#include <warpdex/split/bucket_identifiers.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace warpdex {

/// Reusable scratch memory of the asynchronous multisplit (multisplit_async): it grows to what a call
/// needs (an allocation from the backend's memory resource, ordered on its stream) and is kept for the
/// next call, so repeated calls of the same or smaller size allocate nothing. The cuda backend needs
/// about 16 bytes per 4096-key tile and bucket (less for m <= 3) plus, for m > 256, a copy of the keys
/// (and values); the host backend uses none. Use one workspace with one stream at a time: calls on
/// different streams that may overlap need their own workspaces. Moving it keeps the memory; destroying
/// it frees the memory ordered on the stream of the call that allocated it.
class multisplit_workspace {
 public:
  multisplit_workspace() = default;
  /// A workspace that grows from `unordered`, memory with no stream order (allocated and freed at once),
  /// and serves a call on any stream: whoever holds it orders its uses (the library's synchronous calls,
  /// each of which waits for its stream before the next use).
  explicit multisplit_workspace(memory_resource* unordered) : unordered_(unordered) {}

  /// Bytes held now (0 before the first call that needed scratch memory).
  [[nodiscard]] std::size_t capacity_bytes() const noexcept { return storage_.size(); }
  /// Frees the memory now (ordered on the stream of the call that allocated it).
  void release() noexcept { storage_ = buffer<std::uint8_t>(); }

  /// At least `bytes` bytes of the backend's memory, reallocated (contents lost) when the memory held is
  /// smaller or lives on another stream; valid until the next reserve or release. For the library's calls.
  template <class Backend>
  std::uint8_t* reserve(const Backend& backend, std::size_t bytes)
  {
    if (unordered_ != nullptr) {
      if (storage_.size() < bytes) {
        storage_ = buffer<std::uint8_t>();
        storage_ = buffer<std::uint8_t>(bytes, unordered_);
      }
      return storage_.data();
    }
    bool other_stream = false;
    if constexpr (requires { backend.stream; }) { other_stream = storage_.stream() != backend.stream; }
    if (storage_.size() < bytes || (other_stream && bytes > 0)) {
      storage_ = buffer<std::uint8_t>();  // give the old memory back first
      storage_ = make_buffer<std::uint8_t>(backend, bytes);
    }
    return storage_.data();
  }

 private:
  buffer<std::uint8_t> storage_;
  memory_resource* unordered_ = nullptr;  // null: the backend's stream-ordered memory
};

/// How the cuda backend splits (docs/split.md). All give the same output; the host backend has one
/// algorithm and accepts any value. With m > 256, three_pass and single_pass run the super-bucket
/// passes with that algorithm; with m <= 256, super_bucket is one pass (as automatic).
enum class multisplit_algorithm {
  automatic,         ///< the default: per m, keys or pairs, key width and n, from measurements (docs/split.md)
  three_pass,        ///< count per tile, scan the (bucket, tile) table, scatter
  single_pass,       ///< bucket totals, then one pass with CUB's block ranking and decoupled look-back
  super_bucket,      ///< count the full ids, then one stable pass per digit of up to 8 bits of the id
  reduced_bit_sort,  ///< label every key, sort keys (or packed pairs) by label over ceil(log2 m) bits; n < 2^32
  /// m <= 3: a table of each warp tile's counts, scanned, then one pass ranking with ballots that writes
  /// every bucket forward at its start (stable); with more buckets, as automatic
  partition,
  /// m <= 32: as the partition, each warp reordering its tile in shared memory before it writes; with
  /// more buckets, as automatic
  warp_tiles,
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

/// The asynchronous multisplit of keys on the host backend: the same API as the cuda backend's (below),
/// computed before it returns. With bad ids it writes none of keys_out.
template <class Key, class Identifier>
void multisplit_async(const host& backend, std::span<const std::type_identity_t<Key>> keys_in, std::span<Key> keys_out,
                      const Identifier& identifier, std::span<std::uint64_t> offsets, std::uint64_t* bad_id_count,
                      multisplit_workspace& workspace,
                      multisplit_algorithm algorithm = multisplit_algorithm::automatic);

/// The asynchronous multisplit of key-value pairs on the host backend.
template <class Key, class Value, class Identifier>
void multisplit_pairs_async(const host& backend, std::span<const std::type_identity_t<Key>> keys_in,
                            std::span<const std::type_identity_t<Value>> values_in, std::span<Key> keys_out,
                            std::span<Value> values_out, const Identifier& identifier, std::span<std::uint64_t> offsets,
                            std::uint64_t* bad_id_count, multisplit_workspace& workspace,
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

/// Stable multisplit of keys in device memory, enqueued on the backend's stream without waiting for it:
/// the results stay in device memory.
///
/// `offsets` (device memory, m + 1 words) receives the bucket offsets: bucket b occupies
/// keys_out[offsets[b], offsets[b + 1]), offsets[m] = n. `*bad_id_count` (device memory, one word)
/// receives the number of keys whose bucket id lies outside [0, m). Both are written on the stream:
/// read them after the stream has reached that point (an event, a later kernel or a copy on the stream).
///
/// Checked on the host before anything is enqueued (`warpdex::error`): as the synchronous call (sizes,
/// overlap, the identifier's parameters), and offsets.size() == m + 1 and a non-null bad_id_count;
/// except that splitter_buckets' splitters are not read (that would wait for the stream): unsorted or
/// NaN splitters give some bucket order but never an access out of bounds. The synchronous call checks
/// them.
///
/// Bad ids: when *bad_id_count ends up non-zero, keys_out and offsets are unspecified (some kernels
/// write nothing, others write keys in an unspecified order; no write leaves keys_out); the synchronous
/// call reads the count and throws, and then has written none of keys_out.
///
/// Synchronization: none for m <= 256 (every algorithm): allocation happens only when `workspace` has to
/// grow. With m > 256 the call synchronizes the stream as the synchronous call does and writes the
/// results to device memory before returning.
///
/// Launches (m <= 256): the single pass a memset and 2 kernels (the histogram's last block scans the
/// totals); the partition (m <= 3) a memset and 2 kernels (and CUB's scan past 2,048 warp tiles); the
/// three passes a memset, 2 kernels, CUB's scan (1 or 2) and a kernel for the offsets. Every one of them
/// can be captured into a CUDA graph (core/stream.hpp) once `workspace` has grown.
template <class Key, class Identifier>
void multisplit_async(const cuda& backend, std::span<const std::type_identity_t<Key>> keys_in, std::span<Key> keys_out,
                      const Identifier& identifier, std::span<std::uint64_t> offsets, std::uint64_t* bad_id_count,
                      multisplit_workspace& workspace,
                      multisplit_algorithm algorithm = multisplit_algorithm::automatic);

/// The asynchronous stable multisplit of key-value pairs in device memory (as multisplit_async).
template <class Key, class Value, class Identifier>
void multisplit_pairs_async(const cuda& backend, std::span<const std::type_identity_t<Key>> keys_in,
                            std::span<const std::type_identity_t<Value>> values_in, std::span<Key> keys_out,
                            std::span<Value> values_out, const Identifier& identifier, std::span<std::uint64_t> offsets,
                            std::uint64_t* bad_id_count, multisplit_workspace& workspace,
                            multisplit_algorithm algorithm = multisplit_algorithm::automatic);
#endif

}  // namespace warpdex
