// Keys spread over ranks, sorted across them: afterwards rank r holds a contiguous range of key values, sorted, and
// the ranks' parts in rank order are all the keys sorted; then the same keys multisplit by their top 4 bits, each
// rank holding a range of the 16 buckets. On every GPU of this machine through NCCL when the library has it and a
// GPU is present, otherwise over four ranks emulated on the CPU. Checked; exits 1 when wrong.
#include <warpdex/distributed/distributed_split.hpp>
#include <warpdex/distributed/loopback_group.hpp>
#include <warpdex/warpdex.hpp>
#if WARPDEX_HAS_NCCL
#include <warpdex/distributed/communicator.hpp>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

template <class Group>
int run(Group& ranks, const char* where)
{
  namespace distributed = warpdex::distributed;
  constexpr std::uint32_t keys_per_rank = 1 << 18;
  const std::uint32_t locals = ranks.local_count();
  // Every rank's keys (each process draws them all, and passes its own ranks').
  std::vector<std::vector<std::uint32_t>> every_rank(ranks.rank_count(), std::vector<std::uint32_t>(keys_per_rank));
  std::mt19937 draw(7);
  for (auto& keys : every_rank) { std::generate(keys.begin(), keys.end(), std::ref(draw)); }
  std::vector<warpdex::buffer<std::uint32_t>> keys(locals);
  distributed::per_rank<const std::uint32_t> spans(locals);
  ranks.for_each_local([&](std::uint32_t local) {
    keys[local] = warpdex::make_buffer<std::uint32_t>(ranks.backend(local), keys_per_rank);  // the rank's memory
    keys[local].copy_from(every_rank[ranks.rank(local)]);
    ranks.backend(local).synchronize();
    spans[local] = keys[local].span();
  });

  // Every rank at once (a collective): splitters from a sample, the exchange, a local radix sort.
  std::vector<distributed::rank_part> sorted = distributed::sort(ranks, spans);
  // The same keys by their top 4 bits: the buckets, in order, each rank a contiguous range of them.
  std::vector<distributed::rank_part> split = distributed::multisplit(ranks, spans, warpdex::bit_field_buckets{28, 4});

  // Each part is its slice of the global result, which starts at global_offset.
  std::vector<std::uint32_t> all;
  for (const auto& rank_keys : every_rank) { all.insert(all.end(), rank_keys.begin(), rank_keys.end()); }
  std::vector<std::uint32_t> expected_sorted = all;
  std::sort(expected_sorted.begin(), expected_sorted.end());
  std::stable_sort(all.begin(), all.end(), [](std::uint32_t a, std::uint32_t b) { return a >> 28 < b >> 28; });
  bool ok = true;
  ranks.for_each_local([&](std::uint32_t local) {
    const auto check = [&](const distributed::rank_part& part, const std::vector<std::uint32_t>& expected) {
      const std::vector<std::uint32_t> mine = part.keys.to_vector();
      ok = ok &&
           std::equal(mine.begin(), mine.end(), expected.begin() + static_cast<std::ptrdiff_t>(part.global_offset));
    };
    check(sorted[local], expected_sorted);
    check(split[local], all);
    std::printf("rank %u: %zu keys sorted, from %llu on; buckets %u .. %zu of the split\n", ranks.rank(local),
                sorted[local].keys.size(), static_cast<unsigned long long>(sorted[local].global_offset),
                split[local].first_bucket, split[local].first_bucket + split[local].bucket_offsets.size() - 1);
    sorted[local] = {};  // each rank's memory freed with its GPU current
    split[local] = {};
    keys[local] = {};
  });
  std::printf("%s: %s\n", where, ok ? "ok: every part is its slice of the sorted and of the split keys" : "WRONG");
  return ok ? 0 : 1;
}

int main()
{
#if WARPDEX_HAS_NCCL
  if (warpdex::cuda_device_available()) {
    warpdex::distributed::communicator gpus(warpdex::distributed::communicator::visible_devices());
    return run(gpus, "every GPU of this machine, over NCCL");
  }
#endif
  warpdex::distributed::loopback_group<warpdex::host> ranks(4);
  return run(ranks, "four ranks emulated on the CPU");
}
