#pragma once
// Batches spread over the local ranks of a rank group, and the check of one distributed call against the
// allowed outcomes of one concurrent batch (hash/outcome_check.hpp), for the distributed suites.

#include "hash/outcome_check.hpp"
#include "support/backend_fixture.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/distributed/distributed_slab_map.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace warpdex::testing {

/// Per-rank host vectors copied into buffers on each local rank (its GPU for cuda), with spans to pass.
template <class T, class Group>
class per_rank_buffers {
 public:
  per_rank_buffers(Group& group, const std::vector<std::vector<T>>& values) : buffers_(group.local_count())
  {
    group.for_each_local([&](std::uint32_t local) {
      buffers_[local] = make_buffer<T>(group.backend(local), values[local].size());
      buffers_[local].copy_from(values[local]);
      group.backend(local).synchronize();
    });
  }
  /// Buffers of the given sizes, every element `poison`.
  per_rank_buffers(Group& group, const std::vector<std::size_t>& sizes, T poison)
      : per_rank_buffers(group, filled(sizes, poison))
  {
  }
  [[nodiscard]] distributed::per_rank<const T> in() const
  {
    distributed::per_rank<const T> spans;
    for (const auto& buffer : buffers_) { spans.push_back(buffer.span()); }
    return spans;
  }
  [[nodiscard]] distributed::per_rank<T> out()
  {
    distributed::per_rank<T> spans;
    for (auto& buffer : buffers_) { spans.push_back(buffer.span()); }
    return spans;
  }
  /// Every rank's contents, read back (each on its own GPU).
  [[nodiscard]] std::vector<std::vector<T>> read(Group& group) const
  {
    std::vector<std::vector<T>> values(buffers_.size());
    group.for_each_local([&](std::uint32_t local) { values[local] = buffers_[local].to_vector(); });
    return values;
  }

 private:
  static std::vector<std::vector<T>> filled(const std::vector<std::size_t>& sizes, T poison)
  {
    std::vector<std::vector<T>> values;
    for (const std::size_t size : sizes) { values.emplace_back(size, poison); }
    return values;
  }
  std::vector<buffer<T>> buffers_;
};

template <class Inner>
std::vector<std::size_t> sizes_of(const std::vector<std::vector<Inner>>& values)
{
  std::vector<std::size_t> sizes;
  for (const auto& inner : values) { sizes.push_back(inner.size()); }
  return sizes;
}

/// The value no test writes: an output element still holding it was left unwritten.
inline constexpr std::uint32_t poison_value = 0xdeadbeefU;

/// Per-rank batches of random keys in [0, key_range) (repeats within and across ranks) with values unique over a
/// sequence of up to 16 calls: call c's rank r element i has the value c * 2^28 + r * 2^20 + i (so a value read
/// back names the one write that left it). Requires ranks <= 256 and per_rank < 2^20.
struct random_batches {
  std::vector<std::vector<std::uint32_t>> keys;
  std::vector<std::vector<std::uint32_t>> values;
};
inline random_batches make_random_batches(std::uint32_t ranks, std::size_t per_rank, std::uint32_t key_range,
                                          std::uint64_t seed, std::uint32_t call = 0)
{
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<std::uint32_t> key(0, key_range - 1);
  random_batches batches;
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    // Uneven sizes, one rank possibly empty.
    const std::size_t size = rank == 1 ? per_rank / 3 : (rank == 2 ? 0 : per_rank);
    std::vector<std::uint32_t> rank_keys(size), rank_values(size);
    for (std::size_t i = 0; i < size; ++i) {
      rank_keys[i] = key(generator);
      rank_values[i] = (call << 28) | (rank << 20) | static_cast<std::uint32_t>(i);
    }
    batches.keys.push_back(std::move(rank_keys));
    batches.values.push_back(std::move(rank_values));
  }
  return batches;
}

/// One distributed call, checked key by key against the allowed outcomes of one concurrent batch: every element
/// did `op`, or operations[rank][i] for a mixed batch; `before` is the map's content before the call (updated to
/// after it, read back with a find of every key seen), `statuses` and `found_values` what the call returned per
/// rank and element (found_values poisoned beforehand: only the finds that found may have written theirs).
template <class Map, class Group>
void check_call(Map& map, Group& group, hash::operation op, const random_batches& batches,
                const std::vector<std::vector<hash::operation_status>>& statuses,
                const std::vector<std::vector<std::uint32_t>>& found_values,
                std::map<std::uint32_t, std::uint32_t>& before,
                const std::vector<std::vector<hash::operation>>* operations = nullptr)
{
  std::map<std::uint32_t, key_history> histories;
  for (std::size_t rank = 0; rank < batches.keys.size(); ++rank) {
    for (std::size_t i = 0; i < batches.keys[rank].size(); ++i) {
      const std::uint32_t key = batches.keys[rank][i];
      auto& history = histories[key];
      const hash::operation element_op = operations != nullptr ? (*operations)[rank][i] : op;
      key_operation element{element_op, batches.values[rank][i], statuses[rank][i], std::nullopt};
      if (element_op == hash::operation::find && element.status == hash::operation_status::found) {
        element.value_out = found_values[rank][i];
      } else {
        EXPECT_EQ(found_values[rank][i], poison_value) << "an element that found nothing wrote a value, key " << key;
      }
      history.operations.push_back(element);
    }
  }
  // The state after the call: a find of every key seen, on local rank 0.
  std::vector<std::vector<std::uint32_t>> probe(group.local_count());
  for (const auto& [key, history] : histories) { probe[0].push_back(key); }
  per_rank_buffers<std::uint32_t, Group> probe_keys(group, probe);
  per_rank_buffers<std::uint32_t, Group> probe_values(group, sizes_of(probe), poison_value);
  per_rank_buffers<hash::operation_status, Group> probe_statuses(group, sizes_of(probe),
                                                                 hash::operation_status::inserted);
  map.find(probe_keys.in(), probe_values.out(), probe_statuses.out());
  const auto after_values = probe_values.read(group)[0];
  const auto after_statuses = probe_statuses.read(group)[0];
  std::size_t index = 0;
  for (auto& [key, history] : histories) {
    const auto found = before.find(key);
    if (found != before.end()) { history.initial = found->second; }
    if (after_statuses[index] == hash::operation_status::found) {
      history.final = after_values[index];
      before[key] = after_values[index];
    } else {
      EXPECT_EQ(after_statuses[index], hash::operation_status::not_found);
      before.erase(key);
    }
    const std::string why = why_not_linearizable(history);
    EXPECT_TRUE(why.empty()) << "key " << key << ": " << why;
    ++index;
  }
}

/// Inserts, finds (present and absent keys), erases and inserts-or-assigns random batches on every rank of
/// `group`, checking every call key by key and the size after it, then that every key lives in its owner's table.
template <class Group>
void run_checked_workload(Group& group, std::uint64_t seed, std::size_t per_rank = 1500)
{
  distributed::distributed_slab_map<Group> map(group, 4 * per_rank);
  const std::uint32_t ranks = group.rank_count();
  const std::uint32_t key_range = static_cast<std::uint32_t>(2 * per_rank);
  std::map<std::uint32_t, std::uint32_t> content;
  std::uint64_t call = 0;
  for (const hash::operation op :
       {hash::operation::insert, hash::operation::find, hash::operation::insert, hash::operation::erase,
        hash::operation::insert_or_assign, hash::operation::find, hash::operation::erase}) {
    // Every rank of a multi-process group draws every rank's batch, and passes its own.
    auto batches = make_random_batches(ranks, per_rank, key_range, seed * 131 + call, static_cast<std::uint32_t>(call));
    ++call;
    random_batches local;
    for (std::uint32_t index = 0; index < group.local_count(); ++index) {
      local.keys.push_back(batches.keys[group.rank(index)]);
      local.values.push_back(batches.values[group.rank(index)]);
    }
    per_rank_buffers<std::uint32_t, Group> keys(group, local.keys);
    per_rank_buffers<std::uint32_t, Group> values(group, local.values);
    per_rank_buffers<std::uint32_t, Group> found(group, sizes_of(local.keys), poison_value);
    per_rank_buffers<hash::operation_status, Group> statuses(group, sizes_of(local.keys),
                                                             hash::operation_status::out_of_memory);
    switch (op) {
      case hash::operation::insert:
        map.insert(keys.in(), values.in(), statuses.out());
        break;
      case hash::operation::insert_or_assign:
        map.insert_or_assign(keys.in(), values.in(), statuses.out());
        break;
      case hash::operation::erase:
        map.erase(keys.in(), statuses.out());
        break;
      case hash::operation::find:
        map.find(keys.in(), found.out(), statuses.out());
        break;
    }
    if (group.local_count() == ranks) {  // the whole call is visible here: check it key by key
      check_call(map, group, op, local, statuses.read(group), found.read(group), content);
      ASSERT_EQ(map.size(), content.size()) << "after call " << call;
    } else {  // this process sees its own elements: each status is one its operation can report
      for (const auto& rank_statuses : statuses.read(group)) {
        for (const hash::operation_status status : rank_statuses) {
          ASSERT_NE(status, hash::operation_status::out_of_memory);
        }
      }
    }
  }
  // A mixed batch: each element of each rank a random operation.
  {
    auto batches = make_random_batches(ranks, per_rank, key_range, seed * 131 + call, static_cast<std::uint32_t>(call));
    std::mt19937 draw(static_cast<std::uint32_t>(seed + call));
    random_batches local;
    std::vector<std::vector<hash::operation>> operations;
    for (std::uint32_t index = 0; index < group.local_count(); ++index) {
      const std::uint32_t rank = group.rank(index);
      local.keys.push_back(batches.keys[rank]);
      local.values.push_back(batches.values[rank]);
      operations.emplace_back(batches.keys[rank].size());
      for (auto& operation : operations.back()) {
        operation = static_cast<hash::operation>(draw() % hash::operation_count);
      }
    }
    per_rank_buffers<std::uint32_t, Group> keys(group, local.keys);
    per_rank_buffers<std::uint32_t, Group> values(group, local.values);
    per_rank_buffers<hash::operation, Group> ops(group, operations);
    per_rank_buffers<std::uint32_t, Group> found(group, sizes_of(local.keys), poison_value);
    per_rank_buffers<hash::operation_status, Group> statuses(group, sizes_of(local.keys),
                                                             hash::operation_status::out_of_memory);
    map.execute(ops.in(), keys.in(), values.in(), found.out(), statuses.out());
    if (group.local_count() == ranks) {
      check_call(map, group, hash::operation::find, local, statuses.read(group), found.read(group), content,
                 &operations);
      ASSERT_EQ(map.size(), content.size()) << "after the mixed batch";
    }
  }
  // Every key lives in its owner's table.
  group.for_each_local([&](std::uint32_t index) {
    const auto& table = map.local_table(index);
    const std::uint64_t size = table.size();
    auto table_keys = make_buffer<std::uint32_t>(group.backend(index), size);
    auto table_values = make_buffer<std::uint32_t>(group.backend(index), size);
    ASSERT_EQ(table.export_pairs(table_keys.span(), table_values.span()), size);
    for (const std::uint32_t key : table_keys.to_vector()) {
      ASSERT_EQ(map.owner(key), group.rank(index)) << "key " << key << " held by the wrong rank";
    }
  });
}

}  // namespace warpdex::testing
