#pragma once
/// @file The host backend's multisplit for any identifier (include it to use custom_buckets on the host).
///
/// The keys are cut into one chunk per thread; each chunk counts its bucket ids, one exclusive scan over
/// the bucket-major (bucket, chunk) table gives every chunk its first slot in every bucket, and each
/// chunk scatters its keys in input order: stable, and identical to the cuda backend's result.

#include <warpdex/split/detail/multisplit_validate.hpp>
#include <warpdex/split/multisplit.hpp>

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace warpdex {
namespace detail {

/// Below this many keys per chunk, threads cost more than they save.
inline constexpr std::uint64_t host_min_chunk_keys = std::uint64_t{1} << 16;
/// Bounds the (bucket, chunk) table, so a huge m runs with fewer chunks instead of exhausting memory.
inline constexpr std::uint64_t host_max_table_entries = std::uint64_t{1} << 24;

/// Throws unless the identifier is valid for Key (its splitters are in host memory on this backend).
template <class Key, class Identifier>
void validate_host_identifier(const char* caller, const Identifier& identifier)
{
  validate_identifier<Key>(caller, identifier, [](const auto& splitter_identifier) {
    return std::span(splitter_identifier.splitters, splitter_identifier.splitter_count);
  });
}

/// Value = void for keys only. Writes the m + 1 offsets (offsets[m] = n) and the number of bad ids;
/// with bad ids it writes nothing else (neither the outputs nor the offsets).
template <class Key, class Value, class Identifier>
void host_multisplit(const char* caller, std::span<const Key> keys_in, std::span<Key> keys_out, const Value* values_in,
                     Value* values_out, const Identifier& identifier, std::span<std::uint64_t> offsets,
                     std::uint64_t* bad_id_count)
{
  validate_host_identifier<Key>(caller, identifier);
  const std::uint64_t n = keys_in.size();
  const std::uint32_t m = identifier.bucket_count();
  validate_async_results(caller, offsets.size(), m, bad_id_count);
  const auto signed_n = static_cast<std::int64_t>(n);

  std::vector<std::uint32_t> ids(n);
  std::uint64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad)
  for (std::int64_t i = 0; i < signed_n; ++i) {
    ids[i] = identifier(keys_in[i]);
    bad += ids[i] >= m ? 1 : 0;
  }
  *bad_id_count = bad;
  if (bad != 0) { return; }

  const std::uint64_t by_size = std::max<std::uint64_t>(1, n / host_min_chunk_keys);
  const std::uint64_t by_table = std::max<std::uint64_t>(1, host_max_table_entries / m);
  const auto chunks = static_cast<std::int64_t>(
      std::min({by_size, by_table, static_cast<std::uint64_t>(std::max(1, omp_get_max_threads()))}));
  const auto chunk_begin = [&](std::int64_t c) { return n * static_cast<std::uint64_t>(c) / chunks; };

  // table[b * chunks + c]: keys of bucket b in chunk c, then (after the scan) the first slot they take.
  std::vector<std::uint64_t> table(static_cast<std::uint64_t>(m) * chunks, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    std::vector<std::uint64_t> counts(m, 0);
    for (std::uint64_t i = chunk_begin(c); i < chunk_begin(c + 1); ++i) { ++counts[ids[i]]; }
    for (std::uint32_t b = 0; b < m; ++b) { table[b * chunks + c] = counts[b]; }
  }
  std::uint64_t running = 0;
  for (std::uint64_t& entry : table) { running = std::exchange(entry, running) + running; }

#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    std::vector<std::uint64_t> next(m);
    for (std::uint32_t b = 0; b < m; ++b) { next[b] = table[b * chunks + c]; }
    for (std::uint64_t i = chunk_begin(c); i < chunk_begin(c + 1); ++i) {
      const std::uint64_t slot = next[ids[i]]++;
      keys_out[slot] = keys_in[i];
      if constexpr (!std::is_void_v<Value>) { values_out[slot] = values_in[i]; }
    }
  }

  for (std::uint32_t b = 0; b < m; ++b) { offsets[b] = table[b * chunks]; }
  offsets[m] = n;
}

/// The synchronous calls: host_multisplit into m + 1 offsets, then the throw on bad ids.
template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> host_multisplit_checked(const char* caller, std::span<const Key> keys_in,
                                                   std::span<Key> keys_out, const Value* values_in, Value* values_out,
                                                   const Identifier& identifier)
{
  // The identifier first: a bit field wider than its maximum has no bucket count (the shift overflows).
  validate_host_identifier<Key>(caller, identifier);
  const std::uint32_t m = identifier.bucket_count();
  std::vector<std::uint64_t> offsets(std::uint64_t{m} + 1);
  std::uint64_t bad = 0;
  host_multisplit<Key, Value>(caller, keys_in, keys_out, values_in, values_out, identifier, offsets, &bad);
  expect_no_bad_buckets(caller, bad, keys_in.size(), m);
  offsets.pop_back();
  return offsets;
}

}  // namespace detail

template <class Key, class Identifier>
std::vector<std::uint64_t> multisplit(const host&, std::span<const std::type_identity_t<Key>> keys_in,
                                      std::span<Key> keys_out, const Identifier& identifier,
                                      multisplit_algorithm /*one host algorithm*/)
{
  constexpr const char* caller = "multisplit";
  detail::validate_multisplit_spans<Key, int>(caller, keys_in, keys_out, {}, {}, false);
  return detail::host_multisplit_checked<Key, void>(caller, keys_in, keys_out, nullptr, nullptr, identifier);
}

template <class Key, class Value, class Identifier>
std::vector<std::uint64_t> multisplit_pairs(const host&, std::span<const std::type_identity_t<Key>> keys_in,
                                            std::span<const std::type_identity_t<Value>> values_in,
                                            std::span<Key> keys_out, std::span<Value> values_out,
                                            const Identifier& identifier, multisplit_algorithm /*one host algorithm*/)
{
  constexpr const char* caller = "multisplit_pairs";
  detail::validate_multisplit_spans<Key, Value>(caller, keys_in, keys_out, values_in, values_out, true);
  return detail::host_multisplit_checked<Key, Value>(caller, keys_in, keys_out, values_in.data(), values_out.data(),
                                                     identifier);
}

template <class Key, class Identifier>
void multisplit_async(const host&, std::span<const std::type_identity_t<Key>> keys_in, std::span<Key> keys_out,
                      const Identifier& identifier, std::span<std::uint64_t> offsets, std::uint64_t* bad_id_count,
                      multisplit_workspace& /*unused on the host*/, multisplit_algorithm /*one host algorithm*/)
{
  constexpr const char* caller = "multisplit_async";
  detail::validate_multisplit_spans<Key, int>(caller, keys_in, keys_out, {}, {}, false);
  detail::host_multisplit<Key, void>(caller, keys_in, keys_out, nullptr, nullptr, identifier, offsets, bad_id_count);
}

template <class Key, class Value, class Identifier>
void multisplit_pairs_async(const host&, std::span<const std::type_identity_t<Key>> keys_in,
                            std::span<const std::type_identity_t<Value>> values_in, std::span<Key> keys_out,
                            std::span<Value> values_out, const Identifier& identifier, std::span<std::uint64_t> offsets,
                            std::uint64_t* bad_id_count, multisplit_workspace& /*unused on the host*/,
                            multisplit_algorithm /*one host algorithm*/)
{
  constexpr const char* caller = "multisplit_pairs_async";
  detail::validate_multisplit_spans<Key, Value>(caller, keys_in, keys_out, values_in, values_out, true);
  detail::host_multisplit<Key, Value>(caller, keys_in, keys_out, values_in.data(), values_out.data(), identifier,
                                      offsets, bad_id_count);
}

}  // namespace warpdex
