// The cuda backend of the custom-hasher tests' tables, instantiated as a user would (hash/instantiate.hpp).
#include <warpdex/hash/detail/slab_table_cuda_impl.cuh>
#include <warpdex/hash/instantiate.hpp>

#include "hash/custom_hashers.hpp"

WARPDEX_HASH_INSTANTIATE_TABLE(warpdex::testing::cuda_class_map)
WARPDEX_HASH_INSTANTIATE_TABLE(warpdex::testing::cuda_constant_set)
WARPDEX_HASH_INSTANTIATE_TABLE(warpdex::testing::cuda_multiply_map)
