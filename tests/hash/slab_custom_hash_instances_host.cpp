// The host backend of the custom-hasher tests' tables, instantiated as a user would (hash/instantiate.hpp),
// in a file of its own: a file that includes one backend's implementation and uses the other backend's
// tables would instantiate those implicitly with the wrong backend's code.
#include <warpdex/hash/detail/slab_table_host_impl.hpp>
#include <warpdex/hash/instantiate.hpp>

#include "hash/custom_hashers.hpp"

WARPDEX_HASH_INSTANTIATE_TABLE(warpdex::testing::host_class_map)
WARPDEX_HASH_INSTANTIATE_TABLE(warpdex::testing::host_constant_set)
WARPDEX_HASH_INSTANTIATE_TABLE(warpdex::testing::host_multiply_map)
