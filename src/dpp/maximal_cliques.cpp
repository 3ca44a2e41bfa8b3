// clique_set's accessors (include/warpdex/dpp/maximal_cliques.hpp) and the clique counts estimated before
// an enumeration (maximal_cliques_estimate.hpp): plain host code.
#include <warpdex/core/hash.hpp>
#include <warpdex/dpp/maximal_cliques.hpp>

#include "maximal_cliques_estimate.hpp"

#include <algorithm>
#include <iterator>
#include <numeric>

namespace warpdex::dpp {

std::uint64_t clique_set::count() const
{
  return std::accumulate(size_histogram.begin(), size_histogram.end(), std::uint64_t{0});
}

std::uint64_t clique_set::returned_count() const
{
  std::uint64_t returned = 0;
  for (std::size_t s = min_size; s < size_histogram.size(); ++s) { returned += size_histogram[s]; }
  return returned;
}

std::uint64_t clique_set::offset_of_size(std::uint32_t s) const
{
  WARPDEX_EXPECTS(s >= min_size && s <= clique_number() + 1, "clique_set::offset_of_size: size " + std::to_string(s) +
                                                                 " is outside " + std::to_string(min_size) + " .. " +
                                                                 std::to_string(clique_number() + 1));
  std::uint64_t offset = 0;
  for (std::size_t size = min_size; size < s; ++size) { offset += size_histogram[size] * size; }
  return offset;
}

std::vector<std::vector<graph::vertex_id>> clique_set::to_host() const
{
  const std::vector<graph::vertex_id> all = vertices.to_vector();
  std::vector<std::vector<graph::vertex_id>> cliques;
  if (all.empty()) { return cliques; }
  cliques.reserve(returned_count());
  std::uint64_t at = 0;
  for (std::size_t s = min_size; s < size_histogram.size(); ++s) {
    for (std::uint64_t c = 0; c < size_histogram[s]; ++c, at += s) {
      cliques.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at),
                           all.begin() + static_cast<std::ptrdiff_t>(at + s));
    }
  }
  return cliques;
}

namespace detail {

std::vector<double> estimate_clique_counts(std::span<const std::uint64_t> out_offsets,
                                           std::span<const graph::vertex_id> out_columns, std::uint64_t seed)
{
  const std::uint64_t n = out_offsets.empty() ? 0 : out_offsets.size() - 1;
  std::vector<double> cliques(2, 0.0);
  if (n == 0) { return cliques; }
  const std::uint64_t paths_per_root = std::max<std::uint64_t>(1, clique_estimate_paths / n);
  const std::uint64_t roots = std::min(n, clique_estimate_paths);
  // Each path stands for n / (roots * paths_per_root) of the paths that start at every root.
  const double weight = static_cast<double>(n) / static_cast<double>(roots * paths_per_root);
  std::uint64_t state = seed;
  const auto next_random = [&state] {
    state += 0x9e3779b97f4a7c15ULL;
    return fmix64(state);
  };
  std::vector<graph::vertex_id> candidates;
  std::vector<graph::vertex_id> common;
  for (std::uint64_t r = 0; r < roots; ++r) {
    const std::uint64_t root = roots == n ? r : next_random() % n;
    for (std::uint64_t p = 0; p < paths_per_root; ++p) {
      candidates.assign(out_columns.begin() + static_cast<std::ptrdiff_t>(out_offsets[root]),
                        out_columns.begin() + static_cast<std::ptrdiff_t>(out_offsets[root + 1]));
      double product = weight;
      for (std::size_t size = 1;; ++size) {
        if (cliques.size() <= size) { cliques.push_back(0.0); }
        cliques[size] += product;
        if (candidates.empty()) { break; }
        product *= static_cast<double>(candidates.size());
        const graph::vertex_id chosen = candidates[next_random() % candidates.size()];
        // The extensions of the clique with `chosen`: the candidates among its out-neighbours (all ranked
        // above it).
        common.clear();
        std::set_intersection(candidates.begin(), candidates.end(),
                              out_columns.begin() + static_cast<std::ptrdiff_t>(out_offsets[chosen]),
                              out_columns.begin() + static_cast<std::ptrdiff_t>(out_offsets[chosen + 1]),
                              std::back_inserter(common));
        candidates.swap(common);
      }
    }
  }
  return cliques;
}

}  // namespace detail

}  // namespace warpdex::dpp
