#pragma once
/// @file Compiling a slab table whose Hasher or KeyEqual is the user's (hashers.hpp).
///
/// The library compiles the tables with the default hasher and key equality. A table with types of
/// the user's is compiled by the user, once per backend it runs on, by one macro call in one
/// translation unit of each kind:
///
/// @code
///   // my_hash.hpp: the hasher, and the table types (names without commas, for the macro).
///   struct my_hash {
///     WARPDEX_HOST_DEVICE std::uint32_t operator()(std::uint32_t key) const { return key * 0x9e3779b1u; }
///   };
///   using host_map = warpdex::hash::slab_map<std::uint32_t, std::uint32_t, warpdex::host, 128, my_hash>;
///   using cuda_map = warpdex::hash::slab_map<std::uint32_t, std::uint32_t, warpdex::cuda, 128, my_hash>;
///
///   // my_hash_host.cpp: the host backend (an ordinary C++ file; OpenMP comes with warpdex::warpdex).
///   #include <warpdex/hash/detail/slab_table_host_impl.hpp>
///   #include <warpdex/hash/instantiate.hpp>
///   #include "my_hash.hpp"
///   WARPDEX_HASH_INSTANTIATE_TABLE(host_map)
///
///   // my_hash_cuda.cu: the cuda backend (compiled by nvcc, like warpdex's own kernels).
///   #include <warpdex/hash/detail/slab_table_cuda_impl.cuh>
///   #include <warpdex/hash/instantiate.hpp>
///   #include "my_hash.hpp"
///   WARPDEX_HASH_INSTANTIATE_TABLE(cuda_map)
/// @endcode
///
/// Every other file only includes slab_map.hpp (or slab_set.hpp, slab_multimap.hpp) and uses the
/// table. Rules: call the macro at global namespace scope, with a type name (an alias) rather than a
/// template-id (the macro cannot take commas); one call per table type per program; one backend's
/// implementation per translation unit (the two define the same templates); the macro refuses a table
/// with the default types (the library holds those). A map and a multimap with the same backend, slab
/// size, hasher and key equality share one layout, so one call serves both (a second is an error). The
/// same implementation headers, included in a file that uses the table, also instantiate it
/// implicitly, at the cost of compiling the backend in that file.

#include <warpdex/hash/detail/slab_table_instances.hpp>
