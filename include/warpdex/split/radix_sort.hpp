#pragma once
/// @file Radix sort built on the stable multisplit: least-significant-digit passes of 8-bit buckets.
///
/// Sorts 32-bit or 64-bit unsigned keys, or 32-bit keys with 32-bit values, ascending or descending.
/// `digit_bits` (1 to 8) sets the bits per pass: ceil(key bits / digit_bits) passes, the last one
/// narrower when the width does not divide the key.
/// Stable: equal keys keep their input order (so a pair's value order is deterministic and equal on both
/// backends). Each pass is one multisplit over 256 buckets (12 bytes per 32-bit key moved, 20 per pair,
/// 24 per 64-bit key), four passes for 32-bit keys and eight for 64-bit keys; the outputs serve as the
/// ping-pong buffers together with one temporary array of n elements (of keys, and of values).
///
/// Preconditions (`warpdex::error`, nothing written): output sizes equal the input size; outputs do not
/// overlap the inputs; 1 <= digit_bits <= radix_sort_max_digit_bits. Synchronizes the backend's stream.
/// On the cuda backend a synchronous sort of fewer than radix_sort_host_read_from keys is the asynchronous
/// form below into scratch memory the library keeps per device (grown on demand, safe to call from several
/// host threads at once, freed at exit) plus one wait; from there on it reads the digit counts on the host
/// and skips the passes whose keys share one digit.
///
/// Asynchronous form (`radix_sort_async`, `radix_sort_pairs_async`): the same sort with its scratch memory
/// (the temporary arrays, the digit counts and starts, the split's look-back words) carved from a caller's
/// `multisplit_workspace`, which grows to what a call needs and is kept for the next one. On the cuda
/// backend the call enqueues a memset, the digit count, one scan of every pass's counts and one split per
/// pass on the backend's stream and returns: no synchronization, no read on the host and, once the
/// workspace has grown, no allocation, so it can be captured into a CUDA graph (let the workspace grow
/// outside the capture first: a call that grows it allocates, ordered on the stream). Every pass runs
/// (the synchronous call from radix_sort_host_read_from keys skips the passes whose keys share one digit,
/// which it learns on the host). The host backend computes the sort before it returns, its temporaries in
/// the workspace.
/// ```
/// warpdex::multisplit_workspace workspace;
/// warpdex::radix_sort_async(warpdex::cuda{stream}, keys, sorted, workspace);  // keys, sorted on the device
/// ```

#include <warpdex/core/backend.hpp>
#include <warpdex/split/multisplit.hpp>

#include <cstdint>
#include <span>

namespace warpdex {

enum class sort_order { ascending, descending };

/// Bits of one radix sort pass unless the caller names another width: 256 buckets, the direct
/// multisplit's largest bucket count (a per-GPU default comes from the rows `radix_sort/keys32/digit=<d>`).
inline constexpr std::uint32_t radix_sort_digit_bits = 8;
/// The widest digit a pass takes (`digit_bits` must lie in [1, this]).
inline constexpr std::uint32_t radix_sort_max_digit_bits = 8;
/// The synchronous sort on the cuda backend reads the digit counts on the host from this many keys on, and
/// skips the passes whose keys all share one digit; below, it is the asynchronous sort into scratch memory
/// the library keeps (every pass runs, nothing allocated once warm) and one wait (docs/split.md).
inline constexpr std::uint64_t radix_sort_host_read_from = std::uint64_t{1} << 24;

void radix_sort(const host& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                sort_order order = sort_order::ascending, std::uint32_t digit_bits = radix_sort_digit_bits);
void radix_sort_pairs(const host& backend, std::span<const std::uint32_t> keys_in,
                      std::span<const std::uint32_t> values_in, std::span<std::uint32_t> keys_out,
                      std::span<std::uint32_t> values_out, sort_order order = sort_order::ascending,
                      std::uint32_t digit_bits = radix_sort_digit_bits);
void radix_sort(const host& backend, std::span<const std::uint64_t> keys_in, std::span<std::uint64_t> keys_out,
                sort_order order = sort_order::ascending, std::uint32_t digit_bits = radix_sort_digit_bits);

/// The asynchronous sorts on the host backend (computed before they return; see the file comment).
void radix_sort_async(const host& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                      multisplit_workspace& workspace, sort_order order = sort_order::ascending,
                      std::uint32_t digit_bits = radix_sort_digit_bits);
void radix_sort_pairs_async(const host& backend, std::span<const std::uint32_t> keys_in,
                            std::span<const std::uint32_t> values_in, std::span<std::uint32_t> keys_out,
                            std::span<std::uint32_t> values_out, multisplit_workspace& workspace,
                            sort_order order = sort_order::ascending, std::uint32_t digit_bits = radix_sort_digit_bits);
void radix_sort_async(const host& backend, std::span<const std::uint64_t> keys_in, std::span<std::uint64_t> keys_out,
                      multisplit_workspace& workspace, sort_order order = sort_order::ascending,
                      std::uint32_t digit_bits = radix_sort_digit_bits);

#if WARPDEX_HAS_CUDA
void radix_sort(const cuda& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                sort_order order = sort_order::ascending, std::uint32_t digit_bits = radix_sort_digit_bits);
void radix_sort_pairs(const cuda& backend, std::span<const std::uint32_t> keys_in,
                      std::span<const std::uint32_t> values_in, std::span<std::uint32_t> keys_out,
                      std::span<std::uint32_t> values_out, sort_order order = sort_order::ascending,
                      std::uint32_t digit_bits = radix_sort_digit_bits);
void radix_sort(const cuda& backend, std::span<const std::uint64_t> keys_in, std::span<std::uint64_t> keys_out,
                sort_order order = sort_order::ascending, std::uint32_t digit_bits = radix_sort_digit_bits);

/// The asynchronous sorts in device memory (see the file comment): enqueued on the backend's stream, the
/// outputs written when the stream reaches them. The preconditions are checked on the host before
/// anything is enqueued. Use one workspace with one stream at a time.
void radix_sort_async(const cuda& backend, std::span<const std::uint32_t> keys_in, std::span<std::uint32_t> keys_out,
                      multisplit_workspace& workspace, sort_order order = sort_order::ascending,
                      std::uint32_t digit_bits = radix_sort_digit_bits);
void radix_sort_pairs_async(const cuda& backend, std::span<const std::uint32_t> keys_in,
                            std::span<const std::uint32_t> values_in, std::span<std::uint32_t> keys_out,
                            std::span<std::uint32_t> values_out, multisplit_workspace& workspace,
                            sort_order order = sort_order::ascending, std::uint32_t digit_bits = radix_sort_digit_bits);
void radix_sort_async(const cuda& backend, std::span<const std::uint64_t> keys_in, std::span<std::uint64_t> keys_out,
                      multisplit_workspace& workspace, sort_order order = sort_order::ascending,
                      std::uint32_t digit_bits = radix_sort_digit_bits);
#endif

}  // namespace warpdex
