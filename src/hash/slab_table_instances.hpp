#pragma once
// The explicit instantiations of the slab table's backend entry points (declared in
// <warpdex/hash/detail/slab_table.hpp>), shared by the host and cuda translation units so both
// backends always provide the same set.

/// Every entry point a backend defines, for the map and set layouts (walk_lists: the map layout only).
#define WARPDEX_INSTANTIATE_SLAB_TABLE_BACKEND(Backend)                                                      \
  WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(map_slots, Backend)                                                 \
  WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(set_slots, Backend)                                                 \
  template batch_violations find_violations<Backend>(const Backend&, const std::uint32_t*, const operation*, \
                                                     std::uint64_t);                                         \
  template void walk_lists<map_slots, Backend>(const Backend&, const slab_table_view<map_slots>&,            \
                                               const walk_arguments&);                                       \
  template std::uint64_t counts_to_offsets<Backend>(const Backend&, std::uint64_t*, std::uint64_t);          \
  template void initialize_bitmap<Backend>(const Backend&, std::uint32_t*, std::uint64_t, std::uint64_t);

#define WARPDEX_DETAIL_INSTANTIATE_SLAB_LAYOUT(Slots, Backend)                                                      \
  template void initialize_table<Slots, Backend>(const Backend&, const slab_table_view<Slots>&);                    \
  template std::uint64_t execute_batch<Slots, Backend>(const Backend&, const slab_table_view<Slots>&,               \
                                                       const batch_arguments&);                                     \
  template chain_totals summarize_chains<Slots, Backend>(const Backend&, const slab_table_view<Slots>&);            \
  template std::uint64_t export_live<Slots, Backend>(const Backend&, const slab_table_view<Slots>&, std::uint32_t*, \
                                                     std::uint32_t*, std::uint64_t);                                \
  template void flush_table<Slots, Backend>(const Backend&, const slab_table_view<Slots>&);
