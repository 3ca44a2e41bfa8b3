#pragma once
// The explicit instantiations of the slab table's backend entry points (declared in
// <warpdex/hash/detail/slab_table.hpp>), shared by the host and cuda translation units so both
// backends always provide the same set, and the one a user calls for a table with a hasher of its own.
// Included after the backend's implementation (slab_table_host_impl.hpp or slab_table_cuda_impl.cuh).

#include <warpdex/hash/detail/slab_table.hpp>

#include <type_traits>

/// Every entry point a backend defines: those that do not depend on the layout, and the map and set
/// layouts of every slab size.
#define WARPDEX_INSTANTIATE_SLAB_TABLE_BACKEND(Backend) \
  WARPDEX_INSTANTIATE_SLAB_TABLE_SHARED(Backend)        \
  WARPDEX_INSTANTIATE_SLAB_TABLE_SIZE(128, Backend)     \
  WARPDEX_INSTANTIATE_SLAB_TABLE_SIZE(64, Backend)

/// The entry points that do not depend on the layout.
#define WARPDEX_INSTANTIATE_SLAB_TABLE_SHARED(Backend)                                                          \
  template batch_violations find_violations<Backend>(const Backend&, const std::uint32_t*, const operation*,    \
                                                     std::uint64_t, std::uint32_t);                             \
  template std::uint64_t counts_to_offsets<Backend>(const Backend&, std::uint64_t*, std::uint64_t);             \
  template std::vector<std::uint32_t> sample_keys<Backend>(const Backend&, const std::uint32_t*, std::uint64_t, \
                                                           std::uint64_t);                                      \
  template void initialize_bitmap<Backend>(const Backend&, std::uint32_t*, std::uint64_t, std::uint64_t);

/// The map and set layouts of slabs of `SlabBytes` (walk_lists: the map layout only).
#define WARPDEX_INSTANTIATE_SLAB_TABLE_SIZE(SlabBytes, Backend)               \
  WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(basic_map_slots<SlabBytes>, Backend) \
  WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(basic_set_slots<SlabBytes>, Backend) \
  template void walk_lists<basic_map_slots<SlabBytes>, Backend>(              \
      const Backend&, const slab_table_view<basic_map_slots<SlabBytes>>&, const walk_arguments&);

#define WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(Slots, Backend)                                                      \
  template void initialize_table<Slots, Backend>(const Backend&, const slab_table_view<Slots>&);                    \
  template std::uint64_t execute_batch<Slots, Backend>(const Backend&, const slab_table_view<Slots>&,               \
                                                       const batch_arguments&);                                     \
  template std::uint64_t execute_combined<Slots, Backend>(const Backend&, const slab_table_view<Slots>&,            \
                                                          const batch_arguments&);                                  \
  template chain_totals summarize_chains<Slots, Backend>(const Backend&, const slab_table_view<Slots>&);            \
  template std::uint64_t export_live<Slots, Backend>(const Backend&, const slab_table_view<Slots>&, std::uint32_t*, \
                                                     std::uint32_t*, std::uint64_t);                                \
  template void flush_table<Slots, Backend>(const Backend&, const slab_table_view<Slots>&);

/// Every entry point of the table type `Table` (a slab_map, slab_set or slab_multimap with a Hasher or
/// KeyEqual of the user's) on its backend; expands at global namespace scope (instantiate.hpp).
#define WARPDEX_HASH_INSTANTIATE_TABLE(Table)                                                                 \
  namespace warpdex::hash::detail {                                                                           \
  static_assert(!std::is_same_v<Table::hasher, universal_key_hash> || !compares_key_bits<Table::slots_type>,  \
                "WARPDEX_HASH_INSTANTIATE_TABLE: " #Table                                                     \
                " has the default hasher and key equality, which the "                                        \
                "library already instantiates");                                                              \
  WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(Table::slots_type, Table::backend_type)                              \
  template void walk_lists<Table::slots_type, Table::backend_type>(const Table::backend_type&,                \
                                                                   const slab_table_view<Table::slots_type>&, \
                                                                   const walk_arguments&);                    \
  }
