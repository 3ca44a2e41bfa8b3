#pragma once
// How distributed_slab_map runs a batch (distributed_slab_map.hpp says what it does). Included by the
// translation units that instantiate it (src/distributed/distributed_slab_map_*.cpp), or by a user's for a rank
// group of their own.

#include <warpdex/core/buffer.hpp>
#include <warpdex/distributed/detail/batch_steps.hpp>
#include <warpdex/distributed/detail/phase_clock.hpp>
#include <warpdex/distributed/detail/rank_failures.hpp>
#include <warpdex/distributed/distributed_slab_map.hpp>
#include <warpdex/distributed/exchange_layout.hpp>

#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::distributed {

namespace detail {

/// One local rank's part of a batch: its buffers through the steps, and how it failed, if it did.
template <class Backend>
struct rank_work {
  buffer<std::uint32_t> split_keys;          // the batch's keys grouped by owner
  buffer<std::uint32_t> positions;           // positions[j]: where split_keys[j] was in the caller's batch
  buffer<std::uint32_t> split_values;        // insertions: the values in the order of split_keys
  buffer<hash::operation> split_operations;  // a mixed batch: the operations in that order
  std::vector<std::uint64_t> send_counts;
  exchange_layout layout;               // the keys' way out
  exchange_layout way_back;             // the results' way back
  buffer<std::uint32_t> received_keys;  // the keys this rank owns, senders in rank order
  buffer<std::uint32_t> received_values;
  buffer<hash::operation> received_operations;
  buffer<std::uint32_t> owner_values;  // find: the values the owner found
  buffer<hash::operation_status> owner_statuses;
  buffer<std::uint32_t> returned_values;  // in the order of split_keys
  buffer<hash::operation_status> returned_statuses;
  std::exception_ptr failure;
  rank_failure failure_kind = rank_failure::none;
};

/// Whether `group` can run the all-to-all in two halves (communicator::begin_all_to_all_from_others): then a rank
/// works on its own bucket while the others' travel.
template <class Group>
bool overlaps_exchange(const Group& group)
{
  if constexpr (requires(std::span<const all_to_all_buffers> buffers) {
                  group.begin_all_to_all_from_others(buffers, std::size_t{4});
                  group.end_all_to_all();
                  {
                    group.exchanges_by_copies()
                    } -> std::convertible_to<bool>;
                }) {
    return group.exchanges_by_copies();
  } else {
    return false;
  }
}

/// The two halves of that all-to-all, for groups that have them (nothing for the others, which never overlap).
template <class Group>
void begin_exchange_from_others(const Group& group, std::span<const all_to_all_buffers> buffers)
{
  if constexpr (requires { group.end_all_to_all(); }) {
    group.begin_all_to_all_from_others(buffers, sizeof(std::uint32_t));
  }
}
template <class Group>
void end_exchange(const Group& group)
{
  if constexpr (requires { group.end_all_to_all(); }) { group.end_all_to_all(); }
}

/// Elements [offset, offset + count) of `span`, or an empty span when `span` is empty (an output not asked for).
template <class T>
std::span<T> segment(std::span<T> span, std::uint64_t offset, std::uint64_t count)
{
  return span.empty() ? span : span.subspan(offset, count);
}

}  // namespace detail

template <class Group>
requires rank_group<Group>
struct distributed_slab_map<Group>::batch {
  hash::operation operation = hash::operation::find;
  const char* name = "";
  const per_rank<const std::uint32_t>& keys;
  const per_rank<const std::uint32_t>* values_in = nullptr;     // insertions
  const per_rank<std::uint32_t>* values_out = nullptr;          // find
  const per_rank<hash::operation_status>& statuses;             // empty: not returned (find, mixed: required)
  const per_rank<const hash::operation>* operations = nullptr;  // a mixed batch: values in and out, statuses
};

template <class Group>
requires rank_group<Group> distributed_slab_map<Group>::distributed_slab_map(Group& group,
                                                                             const hash::slab_capacity& capacity,
                                                                             std::uint32_t owner_seed,
                                                                             std::uint64_t table_seed)
    : group_(group), owner_seed_(owner_seed), tables_(group.local_count())
{
  std::vector<detail::rank_work<backend_type>> works(group.local_count());
  group.for_each_local([&](std::uint32_t local) {
    detail::guarded(works[local], [&] {
      tables_[local] = std::make_unique<local_map_type>(group.backend(local), capacity, table_seed);
    });
  });
  try {
    detail::agree_on_failures(group_, works, "distributed_slab_map");
  } catch (...) {
    group.for_each_local([&](std::uint32_t local) { tables_[local].reset(); });
    throw;
  }
}

template <class Group>
requires rank_group<Group> hash::slab_capacity distributed_slab_map<Group>::capacity_per_rank(
    std::uint64_t expected_keys, std::uint32_t ranks)
{
  WARPDEX_EXPECTS(ranks >= 1, "distributed_slab_map::capacity_per_rank: at least one rank");
  const double share = static_cast<double>(expected_keys) / ranks;
  return local_map_type::capacity_for(static_cast<std::uint64_t>(std::ceil(share + 4.0 * std::sqrt(share))));
}

template <class Group>
requires rank_group<Group> distributed_slab_map<Group>::~distributed_slab_map()
{
  try {
    group_.for_each_local([&](std::uint32_t local) { tables_[local].reset(); });  // each on its own GPU
  } catch (...) {  // a destructor must not throw; the tables' memory goes with the process
  }
}

template <class Group>
requires rank_group<Group>
void distributed_slab_map<Group>::run(const batch& request)
{
  const std::uint32_t ranks = group_.rank_count();
  const std::uint32_t locals = group_.local_count();
  const bool mixed = request.operations != nullptr;
  const bool insertion = request.values_in != nullptr;
  const bool finding = request.values_out != nullptr;
  const bool statuses_back = finding || !request.statuses.empty();
  const owner_buckets owners{ranks, owner_seed_};
  std::vector<detail::rank_work<backend_type>> works(locals);
  // Phase times: each ends with every local stream synchronized (only while measuring).
  detail::phase_clock<Group> clock(group_, measuring_ ? &phases_ : nullptr);

  // 1. Each rank splits its batch by owner.
  group_.for_each_local([&](std::uint32_t local) {
    auto& work = works[local];
    detail::guarded(work, [&] {
      detail::check_per_rank(request.keys, locals, false, request.name, "keys");
      detail::check_per_rank(request.statuses, locals, !finding, request.name, "statuses");
      if (mixed) { detail::check_per_rank(*request.operations, locals, false, request.name, "operations"); }
      if (insertion) { detail::check_per_rank(*request.values_in, locals, false, request.name, "values"); }
      if (finding) { detail::check_per_rank(*request.values_out, locals, false, request.name, "values"); }
      const auto keys = request.keys[local];
      const std::uint64_t n = keys.size();
      WARPDEX_EXPECTS(n <= std::numeric_limits<std::uint32_t>::max(),
                      std::string(request.name) + ": " + std::to_string(n) + " keys on one rank; at most 2^32 - 1");
      const auto check_size = [&](std::size_t size, const char* what) {
        WARPDEX_EXPECTS(size == n, std::string(request.name) + ": " + what + " holds " + std::to_string(size) +
                                       " elements for " + std::to_string(n) + " keys");
      };
      if (mixed) { check_size((*request.operations)[local].size(), "operations"); }
      if (insertion) { check_size((*request.values_in)[local].size(), mixed ? "values_in" : "values"); }
      if (finding) { check_size((*request.values_out)[local].size(), mixed ? "values_out" : "values"); }
      if (!request.statuses.empty()) { check_size(request.statuses[local].size(), "statuses"); }
      const backend_type backend = group_.backend(local);
      if (mixed) {
        const std::uint64_t invalid = detail::count_invalid_operations(backend, (*request.operations)[local]);
        WARPDEX_EXPECTS(invalid == 0, std::string(request.name) + ": " + std::to_string(invalid) + " of the " +
                                          std::to_string(n) + " operations are not operation codes (0-" +
                                          std::to_string(hash::operation_count - 1) + ")");
      }
      work.split_keys = make_buffer<std::uint32_t>(backend, n);
      // Positions only where results go back to the caller's order; an insertion without them moves its values
      // through the split itself.
      const bool values_in_split = insertion && !statuses_back && !mixed;
      std::vector<std::uint64_t> offsets;
      if (values_in_split) {
        work.split_values = make_buffer<std::uint32_t>(backend, n);
        offsets = detail::split_pairs_by_owner(backend, keys, (*request.values_in)[local], work.split_keys.span(),
                                               work.split_values.span(), owners);
      } else {
        work.positions = make_buffer<std::uint32_t>(backend, n);
        offsets = detail::split_by_owner(backend, keys, work.split_keys.span(), work.positions.span(), owners);
      }
      const std::uint64_t reserved = n - offsets[ranks];
      WARPDEX_EXPECTS(reserved == 0, std::string(request.name) + ": " + std::to_string(reserved) + " of the " +
                                         std::to_string(n) +
                                         " keys are reserved (0xffffffff empty, 0xfffffffe "
                                         "erased): keys must be <= hash::max_user_key");
      work.send_counts = bucket_counts(offsets, n, ranks);
      if (insertion && !values_in_split) {
        work.split_values = make_buffer<std::uint32_t>(backend, n);
        detail::gather(backend, (*request.values_in)[local], work.positions.span(), work.split_values.span());
      }
      if (mixed) {
        work.split_operations = make_buffer<hash::operation>(backend, n);
        detail::gather(backend, (*request.operations)[local], work.positions.span(), work.split_operations.span());
      }
    });
  });

  // 2. Every rank's bucket sizes, with its failure word after them; then where the buckets go.
  std::vector<std::vector<std::uint64_t>> counts(locals);
  for (std::uint32_t local = 0; local < locals; ++local) {
    counts[local] = works[local].failure ? std::vector<std::uint64_t>(ranks, 0) : works[local].send_counts;
    counts[local].push_back(static_cast<std::uint64_t>(works[local].failure_kind));
  }
  const std::vector<std::uint64_t> gathered = group_.all_gather(counts);
  std::vector<std::uint64_t> failure_words(ranks);
  for (std::uint32_t rank = 0; rank < ranks; ++rank) { failure_words[rank] = gathered[rank * (ranks + 1) + ranks]; }
  detail::raise_failures(failure_words, works, request.name);

  group_.for_each_local([&](std::uint32_t local) {
    auto& work = works[local];
    detail::guarded(work, [&] {
      work.layout = layout_of_rank(group_.rank(local), ranks, gathered, ranks + 1);
      work.way_back = work.layout.reversed();
      const backend_type backend = group_.backend(local);
      const std::uint64_t received = work.layout.total_received();
      const std::uint64_t sent = work.layout.total_sent();
      work.received_keys = make_buffer<std::uint32_t>(backend, received);
      if (insertion) { work.received_values = make_buffer<std::uint32_t>(backend, received); }
      if (mixed) { work.received_operations = make_buffer<hash::operation>(backend, received); }
      if (finding) {
        work.owner_values = make_buffer<std::uint32_t>(backend, received);
        work.returned_values = make_buffer<std::uint32_t>(backend, sent);
      }
      if (statuses_back) {
        work.owner_statuses = make_buffer<hash::operation_status>(backend, received);
        work.returned_statuses = make_buffer<hash::operation_status>(backend, sent);
      }
    });
  });
  detail::agree_on_failures(group_, works, request.name);
  clock.end(&call_phases::split_ms);

  // 3. The buckets go to their owners. Where the group can (one process, GPUs joined by peer access), the buckets
  // from other ranks travel on side streams while each owner runs its own bucket from its split buffers (step 4);
  // not while phases are measured, so that the phases stay apart.
  const bool overlapped = detail::overlaps_exchange(group_) && !measuring_;
  std::vector<all_to_all_buffers> exchange(locals);
  const auto exchange_words = [&](auto send_of, auto receive_of, bool back) {
    for (std::uint32_t local = 0; local < locals; ++local) {
      exchange[local] = {send_of(works[local]), receive_of(works[local]),
                         back ? &works[local].way_back : &works[local].layout};
    }
    if (overlapped && !back) {
      detail::begin_exchange_from_others(group_, exchange);
    } else {
      group_.all_to_all(exchange, sizeof(std::uint32_t));
    }
  };
  exchange_words([](auto& work) { return work.split_keys.data(); },
                 [](auto& work) { return work.received_keys.data(); }, false);
  if (insertion) {
    exchange_words([](auto& work) { return work.split_values.data(); },
                   [](auto& work) { return work.received_values.data(); }, false);
  }
  if (mixed) {
    exchange_words([](auto& work) { return work.split_operations.data(); },
                   [](auto& work) { return work.received_operations.data(); }, false);
  }
  const bool waited_for_exchange = !overlapped;
  clock.end(&call_phases::exchange_ms);

  // 4. Each owner runs the operation on its table: over `keys` with the matching spans of the other inputs and of
  // the outputs (empty where not used).
  const auto operate = [&](local_map_type& table, std::span<const std::uint32_t> keys,
                           std::span<const std::uint32_t> values_in, std::span<const hash::operation> operations,
                           std::span<std::uint32_t> values_out, std::span<hash::operation_status> statuses) {
    if (keys.empty()) { return; }
    if (mixed) {
      table.execute(operations, keys, values_in, values_out, statuses);
      return;
    }
    switch (request.operation) {
      case hash::operation::insert:
        if (statuses_back) {
          table.insert(keys, values_in, statuses);
        } else {
          table.insert(keys, values_in);
        }
        break;
      case hash::operation::insert_or_assign:
        if (statuses_back) {
          table.insert_or_assign(keys, values_in, statuses);
        } else {
          table.insert_or_assign(keys, values_in);
        }
        break;
      case hash::operation::erase:
        if (statuses_back) {
          table.erase(keys, statuses);
        } else {
          table.erase(keys);
        }
        break;
      case hash::operation::find:
        table.find(keys, values_out, statuses);
        break;
    }
  };
  // Elements [offset, offset + count) of what the owner received, through the operation.
  const auto operate_received = [&](detail::rank_work<backend_type>& work, local_map_type& table, std::uint64_t offset,
                                    std::uint64_t count) {
    operate(table, detail::segment(work.received_keys.span(), offset, count),
            detail::segment(work.received_values.span(), offset, count),
            detail::segment(work.received_operations.span(), offset, count),
            detail::segment(work.owner_values.span(), offset, count),
            detail::segment(work.owner_statuses.span(), offset, count));
  };
  if (!waited_for_exchange) {
    // The owner's own bucket, from its split buffers, while the others' arrive; its results where the received
    // bucket's would be.
    group_.for_each_local([&](std::uint32_t local) {
      auto& work = works[local];
      detail::guarded(work, [&] {
        const std::uint32_t me = group_.rank(local);
        const std::uint64_t from = work.layout.send_offsets[me];
        const std::uint64_t count = work.layout.send_counts[me];
        const std::uint64_t to = work.layout.receive_offsets[me];
        const auto inputs = [&](auto& buffer) {
          using element = typename std::remove_reference_t<decltype(buffer)>::value_type;
          return detail::segment(std::span<const element>(buffer.span()), from, count);
        };
        operate(*tables_[local], inputs(work.split_keys), inputs(work.split_values), inputs(work.split_operations),
                detail::segment(work.owner_values.span(), to, count),
                detail::segment(work.owner_statuses.span(), to, count));
      });
    });
    detail::end_exchange(group_);  // before any rank leaves on a failure: the side streams read the split buffers
    detail::agree_on_failures(group_, works, request.name);
  }
  group_.for_each_local([&](std::uint32_t local) {
    auto& work = works[local];
    detail::guarded(work, [&] {
      work.split_keys = {};  // sent: the stream orders the free after the exchange
      work.split_values = {};
      work.split_operations = {};
      local_map_type& table = *tables_[local];
      if (waited_for_exchange) {
        operate_received(work, table, 0, work.layout.total_received());
        return;
      }
      // The buckets from the other ranks: those of lower ranks before the owner's own, of higher ones after it.
      const std::uint32_t me = group_.rank(local);
      const std::uint64_t own_start = work.layout.receive_offsets[me];
      const std::uint64_t own_end = own_start + work.layout.receive_counts[me];
      operate_received(work, table, 0, own_start);
      operate_received(work, table, own_end, work.layout.total_received() - own_end);
    });
  });
  detail::agree_on_failures(group_, works, request.name);
  clock.end(&call_phases::local_ms);

  // 5. The results come back, and go to the caller's order.
  if (statuses_back) {
    exchange_words([](auto& work) { return work.owner_statuses.data(); },
                   [](auto& work) { return work.returned_statuses.data(); }, true);
  }
  if (finding) {
    exchange_words([](auto& work) { return work.owner_values.data(); },
                   [](auto& work) { return work.returned_values.data(); }, true);
  }
  clock.end(&call_phases::exchange_ms);
  group_.for_each_local([&](std::uint32_t local) {
    auto& work = works[local];
    const backend_type backend = group_.backend(local);
    if (finding) {  // the statuses in the same pass
      detail::scatter_found(backend, work.returned_values.span(), work.returned_statuses.span(), work.positions.span(),
                            (*request.values_out)[local],
                            request.statuses.empty() ? std::span<hash::operation_status>{} : request.statuses[local]);
    } else if (!request.statuses.empty()) {
      detail::scatter(backend, work.returned_statuses.span(), work.positions.span(), request.statuses[local]);
    }
    backend.synchronize();
    work = {};  // freed on this rank's GPU
  });
  clock.end(&call_phases::finish_ms);
}

template <class Group>
requires rank_group<Group>
void distributed_slab_map<Group>::insert(const per_rank<const std::uint32_t>& keys,
                                         const per_rank<const std::uint32_t>& values,
                                         const per_rank<hash::operation_status>& statuses)
{
  run(batch{hash::operation::insert, "distributed_slab_map::insert", keys, &values, nullptr, statuses});
}

template <class Group>
requires rank_group<Group>
void distributed_slab_map<Group>::insert_or_assign(const per_rank<const std::uint32_t>& keys,
                                                   const per_rank<const std::uint32_t>& values,
                                                   const per_rank<hash::operation_status>& statuses)
{
  run(batch{hash::operation::insert_or_assign, "distributed_slab_map::insert_or_assign", keys, &values, nullptr,
            statuses});
}

template <class Group>
requires rank_group<Group>
void distributed_slab_map<Group>::find(const per_rank<const std::uint32_t>& keys, const per_rank<std::uint32_t>& values,
                                       const per_rank<hash::operation_status>& statuses)
{
  run(batch{hash::operation::find, "distributed_slab_map::find", keys, nullptr, &values, statuses});
}

template <class Group>
requires rank_group<Group>
void distributed_slab_map<Group>::erase(const per_rank<const std::uint32_t>& keys,
                                        const per_rank<hash::operation_status>& statuses)
{
  run(batch{hash::operation::erase, "distributed_slab_map::erase", keys, nullptr, nullptr, statuses});
}

template <class Group>
requires rank_group<Group>
void distributed_slab_map<Group>::execute(const per_rank<const hash::operation>& operations,
                                          const per_rank<const std::uint32_t>& keys,
                                          const per_rank<const std::uint32_t>& values_in,
                                          const per_rank<std::uint32_t>& values_out,
                                          const per_rank<hash::operation_status>& statuses)
{
  run(batch{hash::operation::find, "distributed_slab_map::execute", keys, &values_in, &values_out, statuses,
            &operations});
}

namespace detail {
/// The one-rank overloads' check: this process holds exactly one rank.
inline void check_single_local_rank(std::uint32_t local_count, const char* name)
{
  WARPDEX_EXPECTS(local_count == 1, std::string(name) + ": this process holds " + std::to_string(local_count) +
                                        " ranks; pass one span per local rank");
}
template <class T>
per_rank<T> one_rank(std::span<T> span, bool optional = false)
{
  if (optional && span.empty()) { return {}; }
  return per_rank<T>{span};
}
}  // namespace detail

template <class Group>
requires rank_group<Group>
void distributed_slab_map<Group>::insert(std::span<const std::uint32_t> keys, std::span<const std::uint32_t> values,
                                         std::span<hash::operation_status> statuses)
{
  detail::check_single_local_rank(group_.local_count(), "distributed_slab_map::insert");
  insert(detail::one_rank(keys), detail::one_rank(values), detail::one_rank(statuses, true));
}

template <class Group>
requires rank_group<Group>
void distributed_slab_map<Group>::insert_or_assign(std::span<const std::uint32_t> keys,
                                                   std::span<const std::uint32_t> values,
                                                   std::span<hash::operation_status> statuses)
{
  detail::check_single_local_rank(group_.local_count(), "distributed_slab_map::insert_or_assign");
  insert_or_assign(detail::one_rank(keys), detail::one_rank(values), detail::one_rank(statuses, true));
}

template <class Group>
requires rank_group<Group>
void distributed_slab_map<Group>::find(std::span<const std::uint32_t> keys, std::span<std::uint32_t> values,
                                       std::span<hash::operation_status> statuses)
{
  detail::check_single_local_rank(group_.local_count(), "distributed_slab_map::find");
  find(detail::one_rank(keys), detail::one_rank(values), detail::one_rank(statuses));
}

template <class Group>
requires rank_group<Group>
void distributed_slab_map<Group>::erase(std::span<const std::uint32_t> keys, std::span<hash::operation_status> statuses)
{
  detail::check_single_local_rank(group_.local_count(), "distributed_slab_map::erase");
  erase(detail::one_rank(keys), detail::one_rank(statuses, true));
}

template <class Group>
requires rank_group<Group> std::uint64_t distributed_slab_map<Group>::size()
const
{
  std::vector<std::vector<std::uint64_t>> sizes(group_.local_count(), std::vector<std::uint64_t>(1, 0));
  group_.for_each_local([&](std::uint32_t local) { sizes[local][0] = tables_[local]->size(); });
  return group_.all_reduce_sum(sizes)[0];
}

}  // namespace warpdex::distributed
