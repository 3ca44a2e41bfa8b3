#pragma once
// How the distributed multisplit and sort run (distributed_split.hpp says what they do). Included by the
// translation units that instantiate them (src/distributed/distributed_split_*.cpp), or by a user's for a rank
// group or identifier of their own (the identifier must be one the single-device multisplit is compiled for).

#include <warpdex/core/buffer.hpp>
#include <warpdex/distributed/detail/batch_steps.hpp>
#include <warpdex/distributed/detail/phase_clock.hpp>
#include <warpdex/distributed/detail/rank_failures.hpp>
#include <warpdex/distributed/distributed_split.hpp>
#include <warpdex/distributed/exchange_layout.hpp>
#include <warpdex/split/multisplit.hpp>
#include <warpdex/split/radix_sort.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::distributed {

namespace detail {

/// One local rank's state through a distributed multisplit or sort.
struct split_work {
  buffer<std::uint32_t> splitters;    // sort: the splitters, in the rank's memory
  buffer<std::uint32_t> split_keys;   // the rank's keys grouped by bucket
  std::vector<std::uint64_t> counts;  // the keys of each bucket on this rank
  exchange_layout layout;
  buffer<std::uint32_t> received;  // the rank's range, sender after sender
  std::exception_ptr failure;
  rank_failure failure_kind = rank_failure::none;
};

/// A word that differs, almost surely, between two different range arguments (the ranks must pass the same).
inline std::uint64_t fingerprint(const bucket_ranges& ranges)
{
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a over the boundaries
  for (const std::uint32_t boundary : ranges.first_bucket) { hash = (hash ^ boundary) * 0x100000001b3ULL; }
  return hash;
}

/// Throws warpdex::error unless `ranges` gives ranks + 1 non-decreasing boundaries from 0 to `buckets`.
inline void check_ranges(const bucket_ranges& ranges, std::uint32_t buckets, std::uint32_t ranks, const char* name)
{
  const auto& first = ranges.first_bucket;
  WARPDEX_EXPECTS(first.size() == std::size_t{ranks} + 1, std::string(name) + ": bucket ranges with " +
                                                              std::to_string(first.size()) + " boundaries for " +
                                                              std::to_string(ranks) + " ranks (need ranks + 1)");
  WARPDEX_EXPECTS(
      first.front() == 0 && first.back() == buckets && std::is_sorted(first.begin(), first.end()),
      std::string(name) + ": bucket ranges must rise from 0 to the bucket count " + std::to_string(buckets));
}

/// What every rank knows after the counts' collective: where every bucket of every rank goes.
struct split_plan {
  std::uint32_t buckets = 0;
  std::vector<std::uint64_t> counts;        // rank-major: counts[s * buckets + b], rank s's keys of bucket b
  std::vector<std::uint32_t> first_bucket;  // the ranks' ranges (ranks + 1 boundaries)

  [[nodiscard]] std::uint64_t count(std::uint32_t rank, std::uint32_t bucket) const
  {
    return counts[std::size_t{rank} * buckets + bucket];
  }
};

/// Steps 1-3 of the file comment of distributed_split.hpp: each rank splits its keys with
/// identifier_of(local), the ranks agree on failures and on the bucket count, gather the counts, choose the
/// ranges (`ranges`, or balanced when empty) and exchange; afterwards works[l].received holds local rank l's
/// range, sender after sender. Throws on every rank when any failed.
template <class Group, class IdentifierOf>
split_plan split_and_exchange(Group& group, const per_rank<const std::uint32_t>& keys, IdentifierOf identifier_of,
                              const bucket_ranges& ranges, std::vector<split_work>& works, phase_clock<Group>& clock,
                              const char* name)
{
  const std::uint32_t ranks = group.rank_count();
  const std::uint32_t locals = group.local_count();
  // 1. Each rank splits its keys by bucket; its status, bucket count and ranges' fingerprint go to every rank.
  std::vector<std::vector<std::uint64_t>> words(locals, std::vector<std::uint64_t>(3, 0));
  group.for_each_local([&](std::uint32_t local) {
    auto& work = works[local];
    guarded(work, [&] {
      check_per_rank(keys, locals, false, name, "keys");
      const auto backend = group.backend(local);
      const auto identifier = identifier_of(local);
      const std::uint32_t buckets = identifier.bucket_count();
      words[local][1] = buckets;
      words[local][2] = fingerprint(ranges);
      if (!ranges.first_bucket.empty()) { check_ranges(ranges, buckets, ranks, name); }
      const std::span<const std::uint32_t> rank_keys = keys[local];
      work.split_keys = make_buffer<std::uint32_t>(backend, rank_keys.size());
      const auto offsets = warpdex::multisplit(backend, rank_keys, work.split_keys.span(), identifier);
      work.counts = bucket_counts(offsets, rank_keys.size(), buckets);
    });
    words[local][0] = static_cast<std::uint64_t>(work.failure_kind);
  });
  const std::vector<std::uint64_t> gathered_words = group.all_gather(words);
  std::vector<std::uint64_t> failure_words(ranks);
  for (std::uint32_t rank = 0; rank < ranks; ++rank) { failure_words[rank] = gathered_words[rank * 3]; }
  raise_failures(failure_words, works, name);
  split_plan plan;
  plan.buckets = static_cast<std::uint32_t>(gathered_words[1]);
  for (std::uint32_t rank = 1; rank < ranks; ++rank) {
    WARPDEX_EXPECTS(gathered_words[rank * 3 + 1] == plan.buckets,
                    std::string(name) + ": rank " + std::to_string(rank) + " splits into " +
                        std::to_string(gathered_words[rank * 3 + 1]) + " buckets, rank 0 into " +
                        std::to_string(plan.buckets) + "; every rank must pass the same identifier");
    WARPDEX_EXPECTS(gathered_words[rank * 3 + 2] == gathered_words[2],
                    std::string(name) + ": rank " + std::to_string(rank) +
                        " passed other bucket ranges than rank 0; every rank must pass the same");
  }

  // 2. Every rank's bucket counts; the ranges; the layout of the exchange.
  std::vector<std::vector<std::uint64_t>> counts(locals);
  for (std::uint32_t local = 0; local < locals; ++local) { counts[local] = works[local].counts; }
  plan.counts = group.all_gather(counts);
  if (ranges.first_bucket.empty()) {
    std::vector<std::uint64_t> totals(plan.buckets, 0);
    for (std::uint32_t rank = 0; rank < ranks; ++rank) {
      for (std::uint32_t bucket = 0; bucket < plan.buckets; ++bucket) { totals[bucket] += plan.count(rank, bucket); }
    }
    plan.first_bucket = bucket_ranges::balanced(totals, ranks).first_bucket;
  } else {
    plan.first_bucket = ranges.first_bucket;
  }
  std::vector<std::uint64_t> sends(std::size_t{ranks} * ranks, 0);  // sends[s * ranks + p]: from rank s to rank p
  for (std::uint32_t sender = 0; sender < ranks; ++sender) {
    for (std::uint32_t peer = 0; peer < ranks; ++peer) {
      for (std::uint32_t bucket = plan.first_bucket[peer]; bucket < plan.first_bucket[peer + 1]; ++bucket) {
        sends[std::size_t{sender} * ranks + peer] += plan.count(sender, bucket);
      }
    }
  }
  group.for_each_local([&](std::uint32_t local) {
    auto& work = works[local];
    guarded(work, [&] {
      work.layout = layout_of_rank(group.rank(local), ranks, sends, ranks);
      work.received = make_buffer<std::uint32_t>(group.backend(local), work.layout.total_received());
    });
  });
  agree_on_failures(group, works, name);
  clock.end(&call_phases::split_ms);

  // 3. The buckets go to the ranks that hold their ranges.
  std::vector<all_to_all_buffers> exchange(locals);
  for (std::uint32_t local = 0; local < locals; ++local) {
    exchange[local] = {works[local].split_keys.data(), works[local].received.data(), &works[local].layout};
  }
  group.all_to_all(exchange, sizeof(std::uint32_t));
  clock.end(&call_phases::exchange_ms);
  return plan;
}

/// Local rank `local`'s part before its keys are placed: its range, the offsets of its buckets and where it
/// starts in the global order.
inline rank_part part_of_rank(const split_plan& plan, std::uint32_t rank, std::uint32_t ranks)
{
  rank_part part;
  part.first_bucket = plan.first_bucket[rank];
  for (std::uint32_t bucket = 0; bucket < plan.first_bucket[rank]; ++bucket) {
    for (std::uint32_t sender = 0; sender < ranks; ++sender) { part.global_offset += plan.count(sender, bucket); }
  }
  for (std::uint32_t bucket = plan.first_bucket[rank]; bucket < plan.first_bucket[rank + 1]; ++bucket) {
    std::uint64_t total = 0;
    for (std::uint32_t sender = 0; sender < ranks; ++sender) { total += plan.count(sender, bucket); }
    part.bucket_offsets.push_back(part.bucket_offsets.back() + total);
  }
  return part;
}

/// Runs `place(local, part)` for every local rank (guarded), agrees on failures, and returns the parts.
template <class Group, class Place>
std::vector<rank_part> place_parts(Group& group, const split_plan& plan, std::vector<split_work>& works,
                                   const char* name, Place&& place)
{
  std::vector<rank_part> parts(group.local_count());
  group.for_each_local([&](std::uint32_t local) {
    auto& work = works[local];
    work.split_keys = {};  // sent: the stream orders the free after the exchange
    guarded(work, [&] {
      parts[local] = part_of_rank(plan, group.rank(local), group.rank_count());
      place(local, parts[local]);
      group.backend(local).synchronize();
    });
    work.received = {};
    work.splitters = {};
  });
  try {
    agree_on_failures(group, works, name);
  } catch (...) {
    group.for_each_local([&](std::uint32_t local) { parts[local] = {}; });  // each freed on its own GPU
    throw;
  }
  return parts;
}

/// The splitters of the sort from every rank's row [status, keys, samples taken, samples...] (rows of
/// 3 + samples_per_rank words): the weighted quantiles 1/ranks, ..., (ranks - 1)/ranks of the samples, a sample of
/// rank s standing for keys_s / taken_s keys; equal splitters merged. The same on every rank.
inline std::vector<std::uint32_t> choose_splitters(const std::vector<std::uint64_t>& rows, std::uint32_t ranks,
                                                   std::uint32_t samples_per_rank)
{
  const std::size_t width = std::size_t{3} + samples_per_rank;
  std::vector<std::pair<std::uint32_t, double>> samples;  // (key, keys it stands for)
  double total = 0;
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    const std::uint64_t keys = rows[rank * width + 1];
    const std::uint64_t taken = rows[rank * width + 2];
    for (std::uint64_t i = 0; i < taken; ++i) {
      samples.emplace_back(static_cast<std::uint32_t>(rows[rank * width + 3 + i]),
                           static_cast<double>(keys) / static_cast<double>(taken));
    }
    total += static_cast<double>(keys);
  }
  std::sort(samples.begin(), samples.end());
  std::vector<std::uint32_t> splitters;
  double below = 0;  // the keys the samples before samples[i] stand for
  std::size_t i = 0;
  for (std::uint32_t boundary = 1; boundary < ranks; ++boundary) {
    const double target = total * boundary / ranks;
    while (i < samples.size() && below + samples[i].second <= target) { below += samples[i++].second; }
    if (i == samples.size()) { break; }
    if (splitters.empty() || splitters.back() < samples[i].first) { splitters.push_back(samples[i].first); }
  }
  return splitters;
}

}  // namespace detail

template <class Group, class Identifier>
requires rank_group<Group> std::vector<rank_part> multisplit(Group& group, const per_rank<const std::uint32_t>& keys,
                                                             const std::vector<Identifier>& identifiers,
                                                             const bucket_ranges& ranges, call_phases* phases)
{
  constexpr const char* name = "distributed::multisplit";
  const std::uint32_t ranks = group.rank_count();
  detail::phase_clock<Group> clock(group, phases);
  std::vector<detail::split_work> works(group.local_count());
  const detail::split_plan plan = detail::split_and_exchange(
      group, keys,
      [&](std::uint32_t local) {
        detail::check_per_rank(identifiers, group.local_count(), false, name, "identifiers");
        return identifiers[local];
      },
      ranges, works, clock, name);
  // 4. Sender-major to bucket-major: segment (bucket b, sender s) of the output comes from sender s's part.
  auto parts = detail::place_parts(group, plan, works, name, [&](std::uint32_t local, rank_part& part) {
    auto& work = works[local];
    const std::uint32_t rank = group.rank(local);
    std::vector<std::uint64_t> source_cursor(work.layout.receive_offsets.begin(),
                                             work.layout.receive_offsets.end() - 1);
    std::vector<std::uint64_t> out_starts, source_starts;
    std::uint64_t out_cursor = 0;
    bool in_order = true;
    for (std::uint32_t bucket = plan.first_bucket[rank]; bucket < plan.first_bucket[rank + 1]; ++bucket) {
      for (std::uint32_t sender = 0; sender < ranks; ++sender) {
        const std::uint64_t count = plan.count(sender, bucket);
        if (count == 0) { continue; }
        in_order = in_order && source_cursor[sender] == out_cursor;
        out_starts.push_back(out_cursor);
        source_starts.push_back(source_cursor[sender]);
        out_cursor += count;
        source_cursor[sender] += count;
      }
    }
    if (in_order) {
      part.keys = std::move(work.received);
      return;
    }
    const auto backend = group.backend(local);
    part.keys = make_buffer<std::uint32_t>(backend, work.received.size());
    detail::copy_segments(backend, work.received.span(), part.keys.span(), out_starts, source_starts);
  });
  clock.end(&call_phases::local_ms);
  return parts;
}

template <class Group>
requires rank_group<Group> std::vector<rank_part> sort(Group& group, const per_rank<const std::uint32_t>& keys,
                                                       const sort_options& options, call_phases* phases)
{
  constexpr const char* name = "distributed::sort";
  const std::uint32_t ranks = group.rank_count();
  const std::uint32_t locals = group.local_count();
  const std::uint32_t samples = options.samples_per_rank;
  detail::phase_clock<Group> clock(group, phases);
  std::vector<detail::split_work> works(locals);
  // The sample: each rank's row [status, keys, samples taken, samples...], gathered by every rank.
  std::vector<std::vector<std::uint64_t>> rows(locals, std::vector<std::uint64_t>(std::size_t{3} + samples, 0));
  group.for_each_local([&](std::uint32_t local) {
    auto& work = works[local];
    detail::guarded(work, [&] {
      detail::check_per_rank(keys, locals, false, name, "keys");
      const std::span<const std::uint32_t> rank_keys = keys[local];
      const std::uint64_t n = rank_keys.size();
      std::vector<std::uint32_t> positions(std::min<std::uint64_t>(n, samples));
      std::mt19937_64 draw(options.seed + group.rank(local));
      const std::uint64_t drawn_from = std::min<std::uint64_t>(n, std::uint64_t{1} << 32);  // 32-bit positions
      for (std::size_t i = 0; i < positions.size(); ++i) {
        positions[i] = static_cast<std::uint32_t>(positions.size() == n ? i : draw() % drawn_from);
      }
      const auto backend = group.backend(local);
      auto device_positions = make_buffer<std::uint32_t>(backend, positions.size());
      auto sample = make_buffer<std::uint32_t>(backend, positions.size());
      device_positions.copy_from(positions);
      detail::gather(backend, rank_keys, device_positions.span(), sample.span());
      const std::vector<std::uint32_t> sampled = sample.to_vector();
      rows[local][1] = n;
      rows[local][2] = sampled.size();
      std::copy(sampled.begin(), sampled.end(), rows[local].begin() + 3);
    });
    rows[local][0] = static_cast<std::uint64_t>(work.failure_kind);
  });
  const std::vector<std::uint64_t> gathered = group.all_gather(rows);
  std::vector<std::uint64_t> failure_words(ranks);
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    failure_words[rank] = gathered[rank * (std::size_t{3} + samples)];
  }
  detail::raise_failures(failure_words, works, name);
  const std::vector<std::uint32_t> splitters = detail::choose_splitters(gathered, ranks, samples);
  // Range r (the keys in [splitters[r - 1], splitters[r])) goes to rank r; ranks past the last range hold none.
  bucket_ranges ranges;
  for (std::uint32_t rank = 0; rank <= ranks; ++rank) {
    ranges.first_bucket.push_back(std::min<std::uint32_t>(rank, static_cast<std::uint32_t>(splitters.size()) + 1));
  }
  group.for_each_local([&](std::uint32_t local) {
    detail::guarded(works[local], [&] {
      works[local].splitters = make_buffer<std::uint32_t>(group.backend(local), splitters.size());
      works[local].splitters.copy_from(splitters);
    });
  });
  const auto splitters_of = [&](std::uint32_t local) {
    return splitter_buckets<std::uint32_t>{works[local].splitters.data(), static_cast<std::uint32_t>(splitters.size())};
  };
  const detail::split_plan plan = detail::split_and_exchange(group, keys, splitters_of, ranges, works, clock, name);
  // 4. Each rank sorts the one range it received.
  auto parts = detail::place_parts(group, plan, works, name, [&](std::uint32_t local, rank_part& part) {
    auto& work = works[local];
    part.keys = make_buffer<std::uint32_t>(group.backend(local), work.received.size());
    radix_sort(group.backend(local), work.received.span(), part.keys.span());
  });
  clock.end(&call_phases::local_ms);
  return parts;
}

}  // namespace warpdex::distributed
