#pragma once
// The open-addressing baseline of the hash-table benchmarks (slab_hash.cu, dpp_hashfight.cu): a static
// table of 64-bit (value << 32 | key) slots with linear probing, one thread per key, CAS inserts, in the
// style of cuCollections' static_map. Statuses as the slab table reports them.

#include <warpdex/core/hash.hpp>
#include <warpdex/hash/slab_layout.hpp>

#include <cstdint>

namespace warpdex::bench::open_addressing {

inline constexpr std::uint64_t open_empty = ~std::uint64_t{0};
inline constexpr std::uint32_t open_erased_key = hash::erased_key;

struct open_table {
  unsigned long long* slots;
  std::uint64_t mask;  // slot count - 1 (a power of two)
};

__device__ inline std::uint64_t open_home(const open_table& table, std::uint32_t key)
{
  return fmix32(key) & table.mask;
}

/// One element of a batch on the baseline table; returns its status as the slab table would.
__device__ inline hash::operation_status open_apply(const open_table& table, hash::operation op, std::uint32_t key,
                                                    std::uint32_t value, std::uint32_t& found_value)
{
  using hash::operation;
  using hash::operation_status;
  for (std::uint64_t at = open_home(table, key);; at = (at + 1) & table.mask) {
    unsigned long long seen = __ldcg(table.slots + at);
    const auto seen_key = static_cast<std::uint32_t>(seen);
    if (seen_key == key) {
      if (op == operation::find) {
        found_value = static_cast<std::uint32_t>(seen >> 32);
        return operation_status::found;
      }
      if (op == operation::erase) {
        const unsigned long long erased = (seen & 0xffffffff00000000ULL) | open_erased_key;
        return atomicCAS(table.slots + at, seen, erased) == seen ? operation_status::erased
                                                                 : operation_status::not_found;
      }
      return operation_status::already_present;
    }
    if (seen == open_empty) {
      if (op != operation::insert) { return operation_status::not_found; }
      const unsigned long long pair = (static_cast<unsigned long long>(value) << 32) | key;
      seen = atomicCAS(table.slots + at, open_empty, pair);
      if (seen == open_empty) { return operation_status::inserted; }
      if (static_cast<std::uint32_t>(seen) == key) { return operation_status::already_present; }
    }
  }
}

/// One thread per element: ops[i] (or `uniform` when ops is null) on keys[i]; found values and statuses
/// are written where their pointers are not null.
__global__ inline void open_batch(open_table table, const hash::operation* ops, hash::operation uniform,
                                  const std::uint32_t* keys, const std::uint32_t* values, std::uint32_t* values_out,
                                  hash::operation_status* statuses, std::uint64_t n)
{
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  std::uint32_t found_value = 0;
  const hash::operation op = ops != nullptr ? ops[i] : uniform;
  const hash::operation_status status = open_apply(table, op, keys[i], values != nullptr ? values[i] : 0, found_value);
  if (status == hash::operation_status::found && values_out != nullptr) { values_out[i] = found_value; }
  if (statuses != nullptr) { statuses[i] = status; }
}

}  // namespace warpdex::bench::open_addressing
