#pragma once
// The identifiers the compiled library holds the distributed multisplit for (those the single-device multisplit
// of 32-bit keys is compiled for), and the sort, for one rank group: one line per translation unit of a group.

#include <warpdex/split/bucket_identifiers.hpp>

#define WARPDEX_DISTRIBUTED_SPLIT_INSTANCE(Group, Identifier)                                                         \
  template std::vector<rank_part> multisplit<Group, Identifier>(Group&, const per_rank<const std::uint32_t>&,         \
                                                                const std::vector<Identifier>&, const bucket_ranges&, \
                                                                call_phases*);

#define WARPDEX_DISTRIBUTED_SPLIT_INSTANCES(Group)                                                               \
  WARPDEX_DISTRIBUTED_SPLIT_INSTANCE(Group, bit_field_buckets)                                                   \
  WARPDEX_DISTRIBUTED_SPLIT_INSTANCE(Group, delta_buckets)                                                       \
  WARPDEX_DISTRIBUTED_SPLIT_INSTANCE(Group, splitter_buckets<std::uint32_t>)                                     \
  template std::vector<rank_part> sort<Group>(Group&, const per_rank<const std::uint32_t>&, const sort_options&, \
                                              call_phases*);
