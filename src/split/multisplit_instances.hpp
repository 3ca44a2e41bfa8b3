#pragma once
// The identifiers the compiled library instantiates, for both backends (see multisplit.hpp).

#include <warpdex/split/multisplit.hpp>

#include <cstdint>
#include <span>
#include <vector>

#define WARPDEX_INSTANTIATE_MULTISPLIT(Backend, Key, Identifier)                                                      \
  template std::vector<std::uint64_t> multisplit<Key, Identifier>(                                                    \
      const Backend&, std::span<const Key>, std::span<Key>, const Identifier&, multisplit_algorithm);                 \
  template std::vector<std::uint64_t> multisplit_pairs<Key, std::uint32_t, Identifier>(                               \
      const Backend&, std::span<const Key>, std::span<const std::uint32_t>, std::span<Key>, std::span<std::uint32_t>, \
      const Identifier&, multisplit_algorithm);                                                                       \
  template void multisplit_async<Key, Identifier>(const Backend&, std::span<const Key>, std::span<Key>,               \
                                                  const Identifier&, std::span<std::uint64_t>, std::uint64_t*,        \
                                                  multisplit_workspace&, multisplit_algorithm);                       \
  template void multisplit_pairs_async<Key, std::uint32_t, Identifier>(                                               \
      const Backend&, std::span<const Key>, std::span<const std::uint32_t>, std::span<Key>, std::span<std::uint32_t>, \
      const Identifier&, std::span<std::uint64_t>, std::uint64_t*, multisplit_workspace&, multisplit_algorithm);

/// 32-bit keys (one translation unit per key width keeps the cuda instantiations compiling in parallel).
#define WARPDEX_INSTANTIATE_MULTISPLITS_32(Backend)                                       \
  WARPDEX_INSTANTIATE_MULTISPLIT(Backend, std::uint32_t, bit_field_buckets)               \
  WARPDEX_INSTANTIATE_MULTISPLIT(Backend, std::uint32_t, delta_buckets)                   \
  WARPDEX_INSTANTIATE_MULTISPLIT(Backend, std::uint32_t, splitter_buckets<std::uint32_t>) \
  WARPDEX_INSTANTIATE_MULTISPLIT(Backend, float, splitter_buckets<float>)

/// 64-bit keys.
#define WARPDEX_INSTANTIATE_MULTISPLITS_64(Backend)                         \
  WARPDEX_INSTANTIATE_MULTISPLIT(Backend, std::uint64_t, bit_field_buckets) \
  WARPDEX_INSTANTIATE_MULTISPLIT(Backend, std::uint64_t, delta_buckets)     \
  WARPDEX_INSTANTIATE_MULTISPLIT(Backend, std::uint64_t, splitter_buckets<std::uint64_t>)
