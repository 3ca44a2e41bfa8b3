#pragma once
/// @file `distributed_slab_map<Group>`: a slab hash map of 32-bit keys and values sharded over the ranks of a
/// rank group (rank_group.hpp): the GPUs of a `communicator` (NCCL), or the in-process ranks of a
/// `loopback_group`. Each rank holds a hash::slab_map of the keys it owns: owner_of(key, ranks) (owner.hpp).
///
/// A bulk operation runs on every rank at once, each with its own batch (possibly empty), all entering the
/// call together (it is a collective):
/// 1. split: each rank sorts its batch by owner with the stable multisplit (owner_buckets), keeping each
///    element's position; reserved keys are counted on the way;
/// 2. the ranks gather every rank's bucket sizes (with a status word each: a rank whose batch or memory failed
///    says so here), then exchange the buckets (all-to-all of variable-size buckets: keys, and values for
///    insertions);
/// 3. each owner runs the operation on its table, as one batch of hash::slab_map (slab_table.hpp says what a
///    batch with several operations on one key may show: the same holds here for the union of the ranks' batches
///    of one call);
/// 4. the results (statuses, found values) travel back by the reversed exchange and are scattered to the
///    caller's order through the positions of step 1.
///
/// Failures: every step that can fail on one rank (bad input, exhausted memory, an error of the local table)
/// is caught and reported to every rank through a collective before any rank goes on, so every rank throws
/// and none waits forever in a collective that another has left. The rank that failed rethrows its own
/// exception (warpdex::out_of_memory when memory ran out); the others throw the same type with a message naming
/// the failed ranks. A failure before step 3 changes no table; one in step 3 (an insertion that exhausts memory
/// on some rank, reported after the batch as hash::slab_map does) leaves the other ranks' part of the batch done.
///
/// Reserved keys (hash::empty_key, hash::erased_key: keys must be <= hash::max_user_key) make the whole call
/// throw warpdex::error on every rank before anything is sent. Values are unrestricted.
///
/// Costs per element of a batch (n keys on a rank, about n received): the split (multisplit of (key, position)
/// pairs), 4 bytes per key (8 for insertions) sent and received, the local operation, 4 bytes per status (8 with
/// a found value) sent back, and a scatter. Three small collectives (counts and status words) per call. Batches
/// are limited to 2^32 - 1 keys per rank. Every call returns with its results written (it synchronizes the
/// ranks' streams).
///
/// Example (one process, every GPU; see docs/distributed.md for one process per GPU):
/// @code
///   warpdex::distributed::communicator gpus(warpdex::distributed::communicator::visible_devices());
///   warpdex::distributed::distributed_slab_map map(gpus, total_keys);
///   map.insert(keys_per_gpu, values_per_gpu);  // std::vector of device spans, one per GPU
///   map.find(keys_per_gpu, found_values_per_gpu, statuses_per_gpu);
/// @endcode

#include <warpdex/core/backend.hpp>
#include <warpdex/distributed/owner.hpp>
#include <warpdex/distributed/rank_group.hpp>
#include <warpdex/hash/slab_map.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace warpdex::distributed {

template <class Group>
requires rank_group<Group>
class distributed_slab_map {
 public:
  using backend_type = typename Group::backend_type;
  /// The table each rank holds.
  using local_map_type = hash::slab_map<std::uint32_t, std::uint32_t, backend_type>;

  /// An empty map over the ranks of `group` (kept by reference: it must outlive the map), sized for
  /// `expected_keys` keys in all (each rank's table for its share, growing past it as hash::slab_map does).
  /// `owner_seed` chooses the owner hash, `table_seed` the tables' bucket hash; all ranks must pass the same.
  /// Collective. Throws warpdex::out_of_memory on every rank when a table does not fit on one.
  distributed_slab_map(Group& group, std::uint64_t expected_keys, std::uint32_t owner_seed = default_owner_seed,
                       std::uint64_t table_seed = local_map_type::default_seed)
      : distributed_slab_map(group, capacity_per_rank(expected_keys, group.rank_count()), owner_seed, table_seed)
  {
  }
  /// An empty map whose every rank's table has `capacity` (buckets, pool, growth: hash::slab_capacity).
  distributed_slab_map(Group& group, const hash::slab_capacity& capacity, std::uint32_t owner_seed = default_owner_seed,
                       std::uint64_t table_seed = local_map_type::default_seed);
  /// A rank's table capacity for `expected_keys` keys over `ranks` ranks: its expected share plus four standard
  /// deviations (the share is binomial), at hash::slab_map's default fill.
  [[nodiscard]] static hash::slab_capacity capacity_per_rank(std::uint64_t expected_keys, std::uint32_t ranks);
  ~distributed_slab_map();
  distributed_slab_map(const distributed_slab_map&) = delete;
  distributed_slab_map& operator=(const distributed_slab_map&) = delete;

  /// Inserts each (keys[l][i], values[l][i]) of every local rank l whose key is absent (a present key keeps its
  /// value; among repeated keys of one call, one is inserted). With `statuses` (one span per local rank, or
  /// empty for none) statuses[l][i] receives inserted, already_present or out_of_memory, and nothing throws for
  /// exhaustion; without, an exhausted pool on any rank throws warpdex::out_of_memory on every rank after the
  /// call. Collective.
  void insert(const per_rank<const std::uint32_t>& keys, const per_rank<const std::uint32_t>& values,
              const per_rank<hash::operation_status>& statuses = {});
  /// As insert, replacing the value of a present key (statuses inserted, assigned or out_of_memory).
  void insert_or_assign(const per_rank<const std::uint32_t>& keys, const per_rank<const std::uint32_t>& values,
                        const per_rank<hash::operation_status>& statuses = {});
  /// statuses[l][i] = found or not_found; values[l][i] = the value when found, left unwritten when not.
  /// Collective.
  void find(const per_rank<const std::uint32_t>& keys, const per_rank<std::uint32_t>& values,
            const per_rank<hash::operation_status>& statuses);
  /// Removes each key that is present; `statuses` (optional) receives erased or not_found. Collective.
  void erase(const per_rank<const std::uint32_t>& keys, const per_rank<hash::operation_status>& statuses = {});
  /// A mixed batch: element i of local rank l does operations[l][i] on (keys[l][i], values_in[l][i]), all
  /// elements of all ranks as one concurrent batch (slab_table.hpp); statuses[l][i] says what it did, and
  /// values_out[l][i] receives the value of a find that found its key (other elements' values_out stay unwritten).
  /// An operation code outside hash::operation fails the call on every rank before anything is sent. Collective.
  void execute(const per_rank<const hash::operation>& operations, const per_rank<const std::uint32_t>& keys,
               const per_rank<const std::uint32_t>& values_in, const per_rank<std::uint32_t>& values_out,
               const per_rank<hash::operation_status>& statuses);

  /// The same operations for a process holding one rank (a communicator of one process per GPU): spans in
  /// this rank's memory. Throws warpdex::error when the process holds several ranks.
  void insert(std::span<const std::uint32_t> keys, std::span<const std::uint32_t> values,
              std::span<hash::operation_status> statuses = {});
  void insert_or_assign(std::span<const std::uint32_t> keys, std::span<const std::uint32_t> values,
                        std::span<hash::operation_status> statuses = {});
  void find(std::span<const std::uint32_t> keys, std::span<std::uint32_t> values,
            std::span<hash::operation_status> statuses);
  void erase(std::span<const std::uint32_t> keys, std::span<hash::operation_status> statuses = {});

  /// The number of keys over all ranks (an all-reduce of the tables' sizes). Collective.
  [[nodiscard]] std::uint64_t size() const;
  /// The rank that owns `key`.
  [[nodiscard]] std::uint32_t owner(std::uint32_t key) const { return owner_of(key, group_.rank_count(), owner_seed_); }
  /// The table of local rank `local` (its GPU must be current to use it).
  [[nodiscard]] const local_map_type& local_table(std::uint32_t local) const { return *tables_.at(local); }
  [[nodiscard]] Group& group() const { return group_; }

  /// Whether calls time their phases (off by default: it adds a synchronization after each exchange).
  void measure_phases(bool enabled) { measuring_ = enabled; }
  /// The phases of the last call made while measuring.
  [[nodiscard]] const call_phases& last_phases() const { return phases_; }

 private:
  struct batch;
  void run(const batch& request);

  Group& group_;
  std::uint32_t owner_seed_;
  std::vector<std::unique_ptr<local_map_type>> tables_;
  bool measuring_ = false;
  call_phases phases_;
};

}  // namespace warpdex::distributed
