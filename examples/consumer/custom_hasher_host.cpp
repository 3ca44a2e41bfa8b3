// The host backend of fibonacci_map, compiled here once (warpdex/hash/instantiate.hpp). A cuda table
// would be instantiated the same way in a .cu file with <warpdex/hash/detail/slab_table_cuda_impl.cuh>.
#include <warpdex/hash/detail/slab_table_host_impl.hpp>
#include <warpdex/hash/instantiate.hpp>

#include "custom_hasher.hpp"

WARPDEX_HASH_INSTANTIATE_TABLE(fibonacci_map)
