// The cuda backend's hashfight_map (k32/v32 and k64/v64).
// Thrust's CUDA system. The partitioned rounds run here (fight_partitions_kernel): one block a partition.
#include <warpdex/split/multisplit.cuh>

#include "hashfight_impl.hpp"

#include <warpdex/core/cuda_check.hpp>

namespace warpdex::dpp::detail {
namespace {

constexpr int fight_threads = 512;

/// Keys a thread holds in registers: a partition of up to fight_threads * this pairs fights from them.
template <class Key>
constexpr int fight_items = sizeof(Key) == sizeof(std::uint32_t) ? 16 : 8;
static_assert(fight_threads * fight_items<std::uint32_t> == 8192 && 6144 <= 8192 && 3072 <= 4096,
              "hashfight_partition_pairs plans a partition's mean below the pairs a block holds");

__device__ __forceinline__ void shared_exchange(std::uint32_t* word, std::uint32_t value)
{
  atomicExch(word, value);
}
__device__ __forceinline__ void shared_exchange(std::uint64_t* word, std::uint64_t value)
{
  atomicExch(reinterpret_cast<unsigned long long*>(word), static_cast<unsigned long long>(value));
}
__device__ __forceinline__ void shared_or(std::uint64_t* word, std::uint64_t bits)
{
  atomicOr(reinterpret_cast<unsigned long long*>(word), static_cast<unsigned long long>(bits));
}
__device__ __forceinline__ void shared_max(std::uint32_t* word, std::uint32_t value)
{
  atomicMax(word, value);
}
__device__ __forceinline__ void shared_max(std::uint64_t* word, std::uint64_t value)
{
  atomicMax(reinterpret_cast<unsigned long long*>(word), static_cast<unsigned long long>(value));
}

/// One block a partition: its regions of every round in shared memory (all empty at first), then each
/// round, lane by lane of its buckets (one lane when a bucket is one slot), a fight (every active pair
/// exchanges its key into the lane of its bucket), one barrier, a check (a pair that finds its own key
/// leaves; after the rounds it raises the slot's value with an atomic max, the values
/// of a thread's winners loaded together: in the round they cost a dependent global load each, and the
/// fight kernel measured latency-bound at 0.69 TB/s, docs/dpp.md); the pairs that lost every lane set
/// their bits in their buckets' masks. A lane's check and the next lane's fight touch different words,
/// so one barrier a lane suffices; the rounds stop early
/// once no pair is active. Then the regions are written out in order (coalesced) and the pairs still
/// active appended to the leftovers (one global atomic add a block). A partition of at most
/// fight_threads * Items pairs keeps its keys in registers (item k of thread t: pair t + k * threads) and
/// its active pairs in a bit mask; a larger one (skew) reads its keys each round and keeps a flag a pair in
/// global memory.
template <class Key, class Value, int Items>
__global__ void __launch_bounds__(fight_threads, 2) fight_partitions_kernel(partitioned_fight<Key, Value> fight,
                                                                           unsigned long long* left_count)
{
  using entry = hashfight_entry<Key, Value>;
  constexpr Key empty = std::numeric_limits<Key>::max();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  entry* const table = reinterpret_cast<entry*>(shared_bytes);
  __shared__ std::uint32_t region_start[hashfight_max_partitioned_rounds + 1];
  __shared__ unsigned int block_left;
  __shared__ unsigned long long block_first;

  const std::uint32_t p = blockIdx.x;
  const std::uint64_t begin = fight.offsets[p];
  const std::uint64_t size = fight.offsets[p + 1] - begin;
  const std::uint32_t rounds = fight.layout.rounds;
  if (threadIdx.x == 0) {
    std::uint32_t at = 0;
    for (std::uint32_t r = 0; r < rounds; ++r) {
      region_start[r] = at;
      at += fight.layout.regions[r];
    }
    region_start[rounds] = at;
    block_left = 0;
  }
  __syncthreads();
  const std::uint32_t total = region_start[rounds];
  const std::uint32_t bucket_entries = fight.layout.bucket_entries;
  const std::uint32_t lanes = bucket_entries == 1 ? 1 : bucket_entries - 1;
  for (std::uint32_t i = threadIdx.x; i < total; i += fight_threads) {
    table[i] = is_mask_entry(i, bucket_entries) ? entry{Key{0}, Value{0}} : entry{empty, Value{0}};
  }

  const bool in_registers = size <= std::uint64_t{fight_threads} * Items;
  Key keys[Items];
  std::uint32_t active = 0;
  std::uint64_t won_round = 0;  // the round each item of the registers won, 4 bits an item
  if (in_registers) {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const std::uint64_t i = threadIdx.x + static_cast<std::uint64_t>(k) * fight_threads;
      if (i < size) {
        keys[k] = fight.keys[begin + i];
        active |= 1U << k;
      }
    }
  }
  const std::uint32_t loaded = active;
  static_assert(Items <= 16 && hashfight_max_partitioned_rounds <= 16, "a round number fits 4 bits an item");
  static_assert(hashfight_partition_bytes / sizeof(std::uint64_t) <= 0x10000, "an entry index fits 16 bits");
  __syncthreads();  // the regions are empty

  // Each round fights lane by lane (hashfight_map.hpp, "Buckets"), one barrier a lane: a lane's check
  // reads only that lane's key words and the next lane's fight writes only its own, so the check and the
  // next fight need no barrier between them; nor do the masks, which only the pairs that lost every lane
  // of a round touch.
  bool fighting = true;
  for (std::uint32_t r = 0; r < rounds && fighting; ++r) {
    const hashfight_subtable<Key, Value> own{
        table + region_start[r], fight.layout.regions[r], fight.seeds[r], fight.layout.regions[r], 0, 1,
        bucket_entries};
    // Each active item's bucket in this round's region, hashed once a round: 16 bits an item (a
    // partition's regions hold at most hashfight_partition_bytes / 8 entries).
    std::uint32_t bucket_at[(Items + 1) / 2] = {};
    if (in_registers) {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        if ((active >> k & 1U) != 0) {
          bucket_at[k / 2] |= static_cast<std::uint32_t>(slot_index(own, keys[k], 0)) << (16 * (k % 2));
        }
      }
    }
    const auto slot_of_item = [&](int k, std::uint32_t lane) {
      return own.entries + (bucket_at[k / 2] >> (16 * (k % 2)) & 0xffffU) + lane;
    };
    for (std::uint32_t lane = 0; lane < lanes; ++lane) {
      const bool first_fight = r == 0 && lane == 0;
      bool any = false;
      if (in_registers) {
#pragma unroll
        for (int k = 0; k < Items; ++k) {
          if ((active >> k & 1U) != 0) { shared_exchange(&slot_of_item(k, lane)->key, keys[k]); }
        }
        any = active != 0;
      } else {
        for (std::uint64_t i = threadIdx.x; i < size; i += fight_threads) {
          if (first_fight || fight.flags[begin + i] != 0) {
            const Key key = fight.keys[begin + i];
            shared_exchange(&(slot_of(own, key) + lane)->key, key);
            any = true;
          }
        }
      }
      if (__syncthreads_or(any ? 1 : 0) == 0) {
        fighting = false;
        break;
      }
      if (in_registers) {
#pragma unroll
        for (int k = 0; k < Items; ++k) {
          if ((active >> k & 1U) != 0 && slot_of_item(k, lane)->key == keys[k]) {
            active &= ~(1U << k);
            won_round |= static_cast<std::uint64_t>(r) << (4 * k);
          }
        }
      } else {
        for (std::uint64_t i = threadIdx.x; i < size; i += fight_threads) {
          if (first_fight || fight.flags[begin + i] != 0) {
            const Key key = fight.keys[begin + i];
            entry* slot = slot_of(own, key) + lane;
            const bool won = slot->key == key;
            if (won) { shared_max(&slot->value, fight.value_at(begin + i)); }
            fight.flags[begin + i] = won ? 0 : 1;
          }
        }
      }
    }
    if (bucket_entries > 1 && fighting) {
      // The pairs that lost every lane of this round mark their buckets for find.
      if (in_registers) {
#pragma unroll
        for (int k = 0; k < Items; ++k) {
          if ((active >> k & 1U) != 0) {
            shared_or(overflow_mask(slot_of_item(k, 0), bucket_entries), overflow_bit(round_hash(own, keys[k])));
          }
        }
      } else {
        for (std::uint64_t i = threadIdx.x; i < size; i += fight_threads) {
          if (fight.flags[begin + i] != 0) {
            const Key key = fight.keys[begin + i];
            shared_or(overflow_mask(slot_of(own, key), bucket_entries), overflow_bit(round_hash(own, key)));
          }
        }
      }
    }
  }
  if (in_registers) {
    // The winners' values, loaded together (no load waits behind a compare in a round), then raised into
    // their slots: only the pairs of a slot's key reach its value word, so the order does not matter.
    Value won_values[Items];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (((loaded & ~active) >> k & 1U) != 0) {
        won_values[k] = fight.value_at(begin + threadIdx.x + static_cast<std::uint64_t>(k) * fight_threads);
      }
    }
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (((loaded & ~active) >> k & 1U) != 0) {
        const auto r = static_cast<std::uint32_t>(won_round >> (4 * k) & 15U);
        const hashfight_subtable<Key, Value> own{
            table + region_start[r], fight.layout.regions[r], fight.seeds[r], fight.layout.regions[r], 0, 1,
            bucket_entries};
        // The lane the key won: the one of its bucket that holds it (a bucket holds each key once).
        entry* slot = slot_of(own, keys[k]);
        while (slot->key != keys[k]) { ++slot; }
        shared_max(&slot->value, won_values[k]);
      }
    }
  }
  __syncthreads();  // every check and every value is done

  for (std::uint32_t r = 0; r < rounds; ++r) {
    const std::uint32_t region = fight.layout.regions[r];
    entry* out = fight.tables[r] + std::uint64_t{p} * region;
    for (std::uint32_t i = threadIdx.x; i < region; i += fight_threads) { out[i] = table[region_start[r] + i]; }
  }

  // The pairs still active: counted, one global add a block, then written in the same order.
  const auto still_active = [&](std::uint64_t i) {
    return rounds > 0 && size > 0 && fight.flags[begin + i] != 0;
  };
  std::uint32_t mine = 0;
  if (in_registers) {
    mine = static_cast<std::uint32_t>(__popc(active));
  } else {
    for (std::uint64_t i = threadIdx.x; i < size; i += fight_threads) { mine += still_active(i) ? 1 : 0; }
  }
  const unsigned int first_mine = mine > 0 ? atomicAdd(&block_left, mine) : 0;
  __syncthreads();
  if (threadIdx.x == 0 && block_left > 0) { block_first = atomicAdd(left_count, block_left); }
  __syncthreads();
  if (mine == 0) { return; }
  unsigned long long at = block_first + first_mine;
  if (in_registers) {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if ((active >> k & 1U) != 0) {
        const std::uint64_t i = begin + threadIdx.x + static_cast<std::uint64_t>(k) * fight_threads;
        fight.left_keys[at] = keys[k];
        fight.left_values[at] = fight.value_at(i);
        ++at;
      }
    }
  } else {
    for (std::uint64_t i = threadIdx.x; i < size; i += fight_threads) {
      if (still_active(i)) {
        fight.left_keys[at] = fight.keys[begin + i];
        fight.left_values[at] = fight.value_at(begin + i);
        ++at;
      }
    }
  }
}

}  // namespace

/// The partitioned rounds on the GPU: one block a partition (fight_partitions_kernel), the leftover count
/// read back once.
template <class Key, class Value>
std::uint64_t fight_partitions(const cuda& backend, const partitioned_fight<Key, Value>& fight)
{
  using entry = hashfight_entry<Key, Value>;
  partitioned_fight<Key, Value> launched = fight;
  // A flag a pair, used only by partitions larger than a block holds in registers (sizing it by the
  // largest partition would need the offsets on the host first).
  auto flags = make_buffer<std::uint8_t>(backend, fight.pairs);
  launched.flags = flags.data();
  auto counter = make_buffer<unsigned long long>(backend, 1);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned long long), backend.stream));
  const std::size_t shared = fight.layout.partition_slots() * sizeof(entry);
  const auto kernel = fight_partitions_kernel<Key, Value, fight_items<Key>>;
  WARPDEX_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  kernel<<<fight.layout.partitions, fight_threads, shared, backend.stream>>>(launched, counter.data());
  WARPDEX_CHECK_LAUNCH("fight_partitions_kernel");
  unsigned long long left = 0;
  WARPDEX_CUDA_TRY(
      cudaMemcpyAsync(&left, counter.data(), sizeof(left), cudaMemcpyDeviceToHost, backend.stream));
  backend.synchronize();
  return left;
}

}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {
WARPDEX_INSTANTIATE_HASHFIGHT(cuda)
}  // namespace warpdex::dpp
