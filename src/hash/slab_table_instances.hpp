#pragma once
// The explicit instantiations of the slab table's backend entry points (declared in
// <warpdex/hash/detail/slab_table.hpp>), shared by the host and cuda translation units so both
// backends always provide the same set.

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
