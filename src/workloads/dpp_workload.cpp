// The dpp family's generated workloads (dpp_workloads.hpp), shared by `warpdex dedup`, `warpdex hashfight` and
// the demo tour: duplicate search and the HashFight table on the selected backend, each timed warm next to
// its baseline and checked against a sorted oracle on the host.
#include "dpp_workload.hpp"
#include "hash_baseline.hpp"
#include "progress.hpp"
#include "workloads.hpp"

#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/dpp/duplicates.hpp>
#include <warpdex/dpp/hashfight_map.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <parallel/algorithm>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::workloads {
namespace {

/// The oracle of the generated workloads' checks: the distinct keys in ascending order, each with its
/// copies' values folded by `fold` (commutative and associative), from a parallel sort of the (key,
/// value) pairs on the host's threads; lookups are read-only, so the checks run on every thread too.
template <class Key, class Value>
class sorted_oracle {
 public:
  template <class Fold>
  sorted_oracle(std::span<const Key> keys, std::span<const Value> values, Fold fold)
  {
    std::vector<std::pair<Key, Value>> pairs(keys.size());
    const auto n = static_cast<std::int64_t>(keys.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) { pairs[static_cast<std::size_t>(i)] = {keys[i], values[i]}; }
    __gnu_parallel::sort(pairs.begin(), pairs.end());
    for (const auto& [key, value] : pairs) {
      if (!keys_.empty() && keys_.back() == key) {
        values_.back() = fold(values_.back(), value);
      } else {
        keys_.push_back(key);
        values_.push_back(value);
      }
    }
  }

  /// The folded value of `key`, or nullptr when it is not a key.
  [[nodiscard]] const Value* find(Key key) const
  {
    const auto at = std::lower_bound(keys_.begin(), keys_.end(), key);
    return at != keys_.end() && *at == key ? &values_[static_cast<std::size_t>(at - keys_.begin())] : nullptr;
  }
  [[nodiscard]] const std::vector<Key>& keys() const { return keys_; }
  [[nodiscard]] const std::vector<Value>& values() const { return values_; }
  [[nodiscard]] std::uint64_t size() const { return keys_.size(); }

 private:
  std::vector<Key> keys_;
  std::vector<Value> values_;
};

template <class Backend>
std::vector<dpp_step> dedup_workload(const Backend& backend, std::uint64_t n, double duplicate_fraction,
                                     std::uint64_t seed, const timing_options& timing)
{
  auto keys = make_buffer<std::uint32_t>(backend, n);
  generate_keys_with_duplicates(backend, keys.span(), duplicate_fraction, seed);
  const std::vector<std::uint32_t> host_keys = keys.to_vector();
  const sorted_oracle<std::uint32_t, std::uint64_t> oracle(std::span<const std::uint32_t>(host_keys),
                                                           std::vector<std::uint64_t>(n, 1), std::plus<>{});
  const std::span<const std::uint32_t> in(keys.data(), n);
  // The baseline: sorting the keys, the first half of sort + run-length encode (so a lower bound of it).
  auto sorted = make_buffer<std::uint32_t>(backend, n);
  baselines::scratch temp;
  const double sort_seconds =
      median_ms(backend, timing, [&] { baselines::sort_by_bits(backend, in, sorted.span(), {}, {}, 0, 32, temp); }) /
      1e3;
  const std::string sort_name =
      baselines::sort_by_bits_name(choice_of<Backend>(), false, 0, 32) + " alone (a lower bound of sort + unique)";

  std::vector<dpp_step> steps;
  {
    // The once-flags as a user asks for them: `automatic`, which picks the method for this type, backend
    // and size (docs/dpp.md); the row names what it ran.
    const auto method = dpp::resolve_once_method<std::uint32_t, Backend>(dpp::duplicate_method::automatic, n);
    progress shown("dedup: once-flags");
    dpp_step step{"dedup once (auto: " + std::string(dpp::duplicate_method_name(method)) + ")"};
    auto once = make_buffer<std::uint8_t>(backend, n);
    step.seconds = median_ms(backend, timing, [&] { dpp::find_once(backend, in, once.span()); }) / 1e3;
    step.baseline = sort_name;
    step.baseline_seconds = sort_seconds;
    step.elements = n;
    const std::vector<std::uint8_t> flags = once.to_vector();
    std::uint64_t wrong = 0;
    std::uint64_t singles = 0;
#pragma omp parallel for schedule(static) reduction(+ : wrong, singles)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
      const bool expected = *oracle.find(host_keys[static_cast<std::size_t>(i)]) == 1;
      wrong += (flags[static_cast<std::size_t>(i)] != 0) != expected ? 1 : 0;
      singles += expected ? 1 : 0;
    }
    step.check = std::to_string(singles) + " of " + std::to_string(n) + " once, " + std::to_string(wrong) + " wrong";
    step.passed = wrong == 0;
    steps.push_back(step);
  }
  {
    // count_elements' defaults (automatic, with first positions); the row names what it ran.
    const auto method = dpp::resolve_distinct_method<std::uint32_t, Backend>(dpp::duplicate_method::automatic, n, true,
                                                                             dpp::element_order::ascending,
                                                                             dpp::count_outputs::with_first_positions);
    progress shown("dedup: counts");
    dpp_step step{"dedup counts (auto: " + std::string(dpp::duplicate_method_name(method)) + ")"};
    dpp::element_counts<std::uint32_t> counted;
    step.seconds = median_ms(backend, timing, [&] { counted = dpp::count_elements(backend, in); }) / 1e3;
    step.baseline = sort_name;
    step.baseline_seconds = sort_seconds;
    const auto elements = counted.elements.to_vector();
    const auto counts = counted.counts.to_vector();
    const std::uint64_t distinct = elements.size();
    // Ascending distinct elements with their counts: the oracle's own arrays.
    std::uint64_t wrong = distinct > oracle.size() ? distinct - oracle.size() : oracle.size() - distinct;
    for (std::size_t i = 0; i < std::min<std::size_t>(distinct, oracle.size()); ++i) {
      wrong += elements[i] != oracle.keys()[i] || counts[i] != oracle.values()[i] ? 1 : 0;
    }
    step.elements = n;
    step.check = std::to_string(distinct) + " distinct, " + std::to_string(wrong) + " wrong";
    step.passed = wrong == 0;
    steps.push_back(step);
  }
  return steps;
}

/// A value for key k that is never the reserved miss value.
template <class Key>
Key value_of(Key key)
{
  return static_cast<Key>(fmix64(key) % static_cast<std::uint64_t>(dpp::hashfight_map<Key, Key, host>::miss_value));
}

template <class Key, class Backend>
std::vector<dpp_step> hashfight_workload(const Backend& backend, std::span<const Key> host_keys,
                                         const key_set<Key>* generated_from, dpp::hashfight_options options, bool check,
                                         std::uint64_t* memory_bytes, std::uint64_t* rounds,
                                         const timing_options& timing)
{
  using map_type = dpp::hashfight_map<Key, Key, Backend>;
  const std::uint64_t n = host_keys.size();
  std::vector<Key> host_values(n);
  for (std::uint64_t i = 0; i < n; ++i) { host_values[i] = value_of(host_keys[i]); }
  // A key given several times keeps its largest value (hashfight_map.hpp).
  const auto oracle = check ? sorted_oracle<Key, Key>(host_keys, std::span<const Key>(host_values),
                                                       [](Key a, Key b) { return std::max(a, b); })
                            : sorted_oracle<Key, Key>({}, {}, [](Key a, Key) { return a; });
  const auto keys = to_backend<Key>(backend, host_keys);
  const auto values = to_backend<Key>(backend, host_values);
  const std::uint64_t seed = options.seed;
  std::vector<dpp_step> steps;
  std::unique_ptr<map_type> map;
  {
    progress shown("hashfight: build");
    dpp_step step{"build"};
    step.seconds = median_ms(
                       backend, timing,
                       [&] {
                         map = std::make_unique<map_type>(backend, std::span<const Key>(keys.data(), n),
                                                          std::span<const Key>(values.data(), n), options);
                       },
                       [&] { map.reset(); }) /
                   1e3;
    step.elements = n;
    step.passed = !check || map->size() == oracle.size();
    step.check = check ? std::to_string(map->size()) + " keys stored, " + std::to_string(oracle.size()) + " distinct"
                       : "not checked";
    steps.push_back(step);
  }
  if (memory_bytes != nullptr) { *memory_bytes = map->memory_bytes(); }
  if (rounds != nullptr) { *rounds = map->rounds(); }
  // The baseline table of the hash family (32-bit keys and values only): build, then the same finds.
  std::optional<decltype(make_hash_baseline(backend, n))> baseline;
  auto baseline_statuses = make_buffer<hash::operation_status>(backend, std::is_same_v<Key, std::uint32_t> ? n : 0);
  auto baseline_values = make_buffer<std::uint32_t>(backend, std::is_same_v<Key, std::uint32_t> ? n : 0);
  if constexpr (std::is_same_v<Key, std::uint32_t>) {
    baseline.emplace(n);
    steps.back().baseline = std::remove_cvref_t<decltype(*baseline)>::name();
    steps.back().baseline_seconds =
        median_ms(
            backend, timing,
            [&] {
              baseline->apply(backend, {}, hash::operation::insert, std::span<const Key>(keys.data(), n),
                              std::span<const Key>(values.data(), n), {}, baseline_statuses.span());
            },
            [&] { baseline->clear(); }) /
        1e3;
  }
  // Queries: built keys drawn at random (present), and keys outside the built set (absent: guaranteed
  // for generated keys; for a file's keys, keys of another keyed permutation, mostly absent).
  for (const bool present : {true, false}) {
    const std::string what = present ? "find present" : "find absent";
    progress shown("hashfight: " + what);
    std::vector<Key> queries(n);
    if (present) {
      for (std::uint64_t i = 0; i < n; ++i) { queries[i] = host_keys[fmix64(i ^ seed) % n]; }
    } else if (generated_from != nullptr) {
      generate_queries(host{}, *generated_from, 1.0, seed + 1, std::span<Key>(queries));
    } else {
      generate_keys(host{}, key_set<Key>{n, seed ^ 0xab5e47ULL, key_order::shuffled, static_cast<Key>(~Key{0} - 1)},
                    std::span<Key>(queries));
    }
    const auto query_buffer = to_backend<Key>(backend, queries);
    auto found = make_buffer<Key>(backend, n);
    dpp_step step{what};
    step.seconds =
        median_ms(backend, timing, [&] { map->find(std::span<const Key>(query_buffer.data(), n), found.span()); }) /
        1e3;
    step.elements = n;
    if constexpr (std::is_same_v<Key, std::uint32_t>) {
      step.baseline = std::remove_cvref_t<decltype(*baseline)>::name();
      step.baseline_seconds =
          median_ms(backend, timing,
                    [&] {
                      baseline->apply(backend, {}, hash::operation::find, std::span<const Key>(query_buffer.data(), n),
                                      {}, baseline_values.span(), baseline_statuses.span());
                    }) /
          1e3;
    }
    if (check) {
      const std::vector<Key> answers = found.to_vector();
      std::uint64_t wrong = 0;
      std::uint64_t hits = 0;
#pragma omp parallel for schedule(static) reduction(+ : wrong, hits)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
        const Key* entry = oracle.find(queries[static_cast<std::size_t>(i)]);
        const Key expected = entry == nullptr ? map_type::miss_value : *entry;
        wrong += answers[static_cast<std::size_t>(i)] != expected ? 1 : 0;
        hits += entry != nullptr ? 1 : 0;
      }
      step.check = std::to_string(hits) + " of " + std::to_string(n) + " present, " + std::to_string(wrong) + " wrong";
      step.passed = wrong == 0;
    } else {
      step.check = "not checked";
      step.passed = true;
    }
    steps.push_back(step);
  }
  return steps;
}

/// The distinct keys the generated workloads build from (the reserved all-ones key excluded).
template <class Key>
key_set<Key> generated_key_set(std::uint64_t n, std::uint64_t seed)
{
  return key_set<Key>{n, seed, key_order::shuffled, static_cast<Key>(~Key{0} - 1)};
}

template <class Key>
std::vector<Key> generated_keys(const key_set<Key>& set)
{
  std::vector<Key> keys(set.size);
  generate_keys(host{}, set, std::span<Key>(keys));
  return keys;
}

/// The request's keys: its file's, or `generated` distinct ones; then the workload on `backend`.
template <class Key, class Backend>
std::vector<dpp_step> hashfight_of(const Backend& backend, const hashfight_request& request,
                                   const timing_options& timing, hashfight_totals* totals)
{
  const bool from_file = !request.file_keys.empty();
  const auto set = generated_key_set<Key>(request.generated, request.options.seed);
  std::vector<Key> keys;
  if (from_file) {
    WARPDEX_EXPECTS(request.file_keys.size() % sizeof(Key) == 0, "hashfight: the keys' bytes are not a whole number of keys");
    keys.resize(request.file_keys.size() / sizeof(Key));
    std::memcpy(keys.data(), request.file_keys.data(), request.file_keys.size());
  } else {
    keys = generated_keys(set);
  }
  hashfight_totals found;
  found.keys = keys.size();
  auto steps = hashfight_workload<Key>(backend, std::span<const Key>(keys), from_file ? nullptr : &set, request.options,
                                       request.check, &found.memory_bytes, &found.rounds, timing);
  if (totals != nullptr) { *totals = found; }
  return steps;
}

}  // namespace

std::vector<dpp_step> run_dedup_workload(backend_choice resolved, std::uint64_t n, double duplicate_fraction,
                                         std::uint64_t seed, const timing_options& timing)
{
  return visit_backend(
      resolved, [&](const auto& backend) { return dedup_workload(backend, n, duplicate_fraction, seed, timing); });
}

std::vector<measurement> as_measurements(const std::vector<dpp_step>& steps, const std::string& prefix,
                                         backend_choice resolved)
{
  std::vector<measurement> rows;
  for (const dpp_step& step : steps) {
    measurement m = make_measurement("dpp", prefix + step.what, resolved == backend_choice::cuda ? "cuda" : "host",
                                     step.elements, "Gelements/s");
    m.median_ms = step.seconds * 1e3;
    m.baseline = step.baseline;
    m.baseline_ms = step.baseline_seconds * 1e3;
    m.checked = step.check != "not checked";
    m.passed = step.passed;
    m.check = step.check;
    rows.push_back(std::move(m));
  }
  return rows;
}

std::vector<dpp_step> run_hashfight_workload(backend_choice resolved, const hashfight_request& request,
                                             const timing_options& timing, hashfight_totals* totals)
{
  WARPDEX_EXPECTS(request.key_bytes == 4 || request.key_bytes == 8, "hashfight: keys of 4 or 8 bytes");
  return visit_backend(resolved, [&](const auto& backend) {
    return request.key_bytes == 8 ? hashfight_of<std::uint64_t>(backend, request, timing, totals)
                                  : hashfight_of<std::uint32_t>(backend, request, timing, totals);
  });
}

std::vector<dpp_step> run_hashfight_workload(backend_choice resolved, std::uint64_t n, unsigned key_bytes,
                                             double load_factor, std::uint64_t seed, std::uint64_t* memory_bytes,
                                             const timing_options& timing)
{
  hashfight_request request;
  request.key_bytes = key_bytes;
  request.generated = n;
  request.options.load_factor = load_factor;
  request.options.seed = seed;
  hashfight_totals totals;
  auto steps = run_hashfight_workload(resolved, request, timing, &totals);
  if (memory_bytes != nullptr) { *memory_bytes = totals.memory_bytes; }
  return steps;
}

}  // namespace warpdex::workloads
