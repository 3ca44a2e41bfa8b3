#pragma once
// The explicit instantiations of the slab table's backend entry points (declared in
// <warpdex/hash/detail/slab_table.hpp>), shared by the host and cuda translation units so both
// backends always provide the same set, and the one a user calls for a table with a hasher of its own.
// Included after the backend's implementation (slab_table_host_impl.hpp or slab_table_cuda_impl.cuh).

#include <warpdex/hash/detail/slab_table.hpp>

#include <type_traits>

/// Every entry point of 32-bit keys a backend defines: those that do not depend on the layout, and the
/// map and set layouts of every slab size. (The 64-bit key layouts: WARPDEX_INSTANTIATE_SLAB_TABLE_KEY64.)
#define WARPDEX_INSTANTIATE_SLAB_TABLE_BACKEND(Backend) \
  WARPDEX_INSTANTIATE_SLAB_TABLE_SHARED(Backend)        \
  WARPDEX_INSTANTIATE_SLAB_TABLE_SIZE(128, Backend)     \
  WARPDEX_INSTANTIATE_SLAB_TABLE_SIZE(64, Backend)

/// The entry points that do not depend on the layout, and those of 32-bit keys.
#define WARPDEX_INSTANTIATE_SLAB_TABLE_SHARED(Backend)                                                    \
  template std::uint64_t counts_to_offsets<Backend>(const Backend&, std::uint64_t*, std::uint64_t);       \
  template std::uint64_t batch_wave_threads_of<Backend>(const Backend&);                                  \
  template void initialize_bitmap<Backend>(const Backend&, std::uint32_t*, std::uint64_t, std::uint64_t); \
  WARPDEX_INSTANTIATE_SLAB_TABLE_KEYS(std::uint32_t, Backend)

/// The entry points that depend on the key type only.
#define WARPDEX_INSTANTIATE_SLAB_TABLE_KEYS(Key, Backend)                                                              \
  template batch_violations find_violations<Backend, Key>(const Backend&, const Key*, const operation*, std::uint64_t, \
                                                          std::uint32_t);                                              \
  template std::vector<Key> sample_keys<Backend, Key>(const Backend&, const Key*, std::uint64_t, std::uint64_t);

/// The 64-bit key layouts (128-byte slabs): the 64 / 64 map (and multimap) and the set of 64-bit keys.
/// The cuda backend compiles the two in translation units of their own (MAP64 and SET64).
#define WARPDEX_INSTANTIATE_SLAB_TABLE_KEY64(Backend) \
  WARPDEX_INSTANTIATE_SLAB_TABLE_MAP64(Backend)       \
  WARPDEX_INSTANTIATE_SLAB_TABLE_SET64(Backend)
#define WARPDEX_INSTANTIATE_SLAB_TABLE_MAP64(Backend)                                                 \
  WARPDEX_INSTANTIATE_SLAB_TABLE_KEYS(std::uint64_t, Backend)                                         \
  WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(map64_slots, Backend)                                        \
  template void walk_lists<map64_slots, Backend>(const Backend&, const slab_table_view<map64_slots>&, \
                                                 const walk_arguments<map64_slots>&);
#define WARPDEX_INSTANTIATE_SLAB_TABLE_SET64(Backend) WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(set64_slots, Backend)

/// The map and set layouts of slabs of `SlabBytes` (walk_lists: the map layout only).
#define WARPDEX_INSTANTIATE_SLAB_TABLE_SIZE(SlabBytes, Backend)                                                     \
  WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(basic_map_slots<SlabBytes>, Backend)                                       \
  WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(basic_set_slots<SlabBytes>, Backend)                                       \
  template void walk_lists<basic_map_slots<SlabBytes>, Backend>(const Backend&,                                     \
                                                                const slab_table_view<basic_map_slots<SlabBytes>>&, \
                                                                const walk_arguments<basic_map_slots<SlabBytes>>&);

#define WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(Slots, Backend)                                                     \
  template void initialize_table<Slots, Backend>(const Backend&, const slab_table_view<Slots>&);                   \
  template std::uint64_t execute_batch<Slots, Backend>(const Backend&, const slab_table_view<Slots>&,              \
                                                       const batch_arguments<Slots>&);                             \
  template bool enqueue_checked_batch<Slots, Backend>(const Backend&, const slab_table_view<Slots>&,               \
                                                      const batch_arguments<Slots>&, std::uint32_t, batch_report*, \
                                                      buffer<std::byte>&);                                         \
  template std::uint64_t execute_combined<Slots, Backend>(const Backend&, const slab_table_view<Slots>&,           \
                                                          const batch_arguments<Slots>&);                          \
  template chain_totals summarize_chains<Slots, Backend>(const Backend&, const slab_table_view<Slots>&);           \
  template std::uint64_t export_live<Slots, Backend>(const Backend&, const slab_table_view<Slots>&,                \
                                                     typename Slots::key_type*, typename Slots::value_type*,       \
                                                     std::uint64_t);                                               \
  template void flush_table<Slots, Backend>(const Backend&, const slab_table_view<Slots>&);

/// Every entry point of the table type `Table` (a slab_map, slab_set or slab_multimap with a Hasher or
/// KeyEqual of the user's) on its backend; expands at global namespace scope (instantiate.hpp).
#define WARPDEX_HASH_INSTANTIATE_TABLE(Table)                                                                 \
  namespace warpdex::hash::detail {                                                                           \
  static_assert(!std::is_same_v<Table::hasher, default_key_hash<Table::key_type>> ||                          \
                    !compares_key_bits<Table::slots_type>,                                                    \
                "WARPDEX_HASH_INSTANTIATE_TABLE: " #Table                                                     \
                " has the default hasher and key equality, which the "                                        \
                "library already instantiates");                                                              \
  WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(Table::slots_type, Table::backend_type)                              \
  template void walk_lists<Table::slots_type, Table::backend_type>(const Table::backend_type&,                \
                                                                   const slab_table_view<Table::slots_type>&, \
                                                                   const walk_arguments<Table::slots_type>&); \
  }
