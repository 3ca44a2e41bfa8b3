// A hash map sharded over ranks: every rank inserts a batch of its own and looks up keys that other ranks
// inserted; each key lives on the rank that owns it, and the answers come back in each caller's order. On every
// GPU of this machine through NCCL when the library has it and a GPU is present, otherwise over four ranks
// emulated on the CPU (the same protocol, the exchanges being copies). Checked; exits 1 when wrong.
#include <warpdex/distributed/distributed_slab_map.hpp>
#include <warpdex/distributed/loopback_group.hpp>
#include <warpdex/warpdex.hpp>
#if WARPDEX_HAS_NCCL
#include <warpdex/distributed/communicator.hpp>
#endif

#include <cstdint>
#include <cstdio>
#include <vector>

template <class Group>
int run(Group& ranks, const char* where)
{
  namespace distributed = warpdex::distributed;
  constexpr std::uint32_t keys_per_rank = 1 << 16;
  const std::uint32_t rank_count = ranks.rank_count();
  const std::uint32_t locals = ranks.local_count();
  // Rank r inserts the keys r, r + R, r + 2R, ... with the value 3 * key, then looks up the keys that rank r + 1
  // inserted: most of them live on other ranks.
  std::vector<warpdex::buffer<std::uint32_t>> keys(locals), values(locals), queries(locals), found(locals);
  std::vector<warpdex::buffer<warpdex::hash::operation_status>> statuses(locals);
  ranks.for_each_local([&](std::uint32_t local) {
    const auto on = ranks.backend(local);  // the rank's memory: its GPU's for cuda
    const std::uint32_t rank = ranks.rank(local);
    std::vector<std::uint32_t> mine(keys_per_rank), tripled(keys_per_rank), theirs(keys_per_rank);
    for (std::uint32_t i = 0; i < keys_per_rank; ++i) {
      mine[i] = rank + i * rank_count;
      tripled[i] = 3 * mine[i];
      theirs[i] = (rank + 1) % rank_count + i * rank_count;
    }
    keys[local] = warpdex::make_buffer<std::uint32_t>(on, keys_per_rank);
    values[local] = warpdex::make_buffer<std::uint32_t>(on, keys_per_rank);
    queries[local] = warpdex::make_buffer<std::uint32_t>(on, keys_per_rank);
    found[local] = warpdex::make_buffer<std::uint32_t>(on, keys_per_rank);
    statuses[local] = warpdex::make_buffer<warpdex::hash::operation_status>(on, keys_per_rank);
    keys[local].copy_from(mine);
    values[local].copy_from(tripled);
    queries[local].copy_from(theirs);
    on.synchronize();
  });
  distributed::per_rank<const std::uint32_t> key_spans, value_spans, query_spans;
  distributed::per_rank<std::uint32_t> found_spans;
  distributed::per_rank<warpdex::hash::operation_status> status_spans;
  for (std::uint32_t local = 0; local < locals; ++local) {
    key_spans.push_back(keys[local].span());
    value_spans.push_back(values[local].span());
    query_spans.push_back(queries[local].span());
    found_spans.push_back(found[local].span());
    status_spans.push_back(statuses[local].span());
  }

  distributed::distributed_slab_map map(ranks, std::uint64_t{keys_per_rank} * rank_count);
  map.insert(key_spans, value_spans);  // every rank at once: a collective
  map.find(query_spans, found_spans, status_spans);

  std::uint64_t wrong = 0;
  ranks.for_each_local([&](std::uint32_t local) {
    const auto asked = queries[local].to_vector();
    const auto answers = found[local].to_vector();
    const auto outcomes = statuses[local].to_vector();
    for (std::uint32_t i = 0; i < keys_per_rank; ++i) {
      wrong += outcomes[i] != warpdex::hash::operation_status::found || answers[i] != 3 * asked[i];
    }
  });
  const std::uint64_t size = map.size();
  std::printf("%s: %u ranks, %llu keys in the map, %llu of the lookups wrong\n", where, rank_count,
              static_cast<unsigned long long>(size), static_cast<unsigned long long>(wrong));
  return wrong == 0 && size == std::uint64_t{keys_per_rank} * rank_count ? 0 : 1;
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
