// clique_set's accessors (include/warpdex/dpp/maximal_cliques.hpp): plain host code over the histogram.
#include <warpdex/dpp/maximal_cliques.hpp>

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
  WARPDEX_EXPECTS(s >= min_size && s <= clique_number() + 1,
                  "clique_set::offset_of_size: size " + std::to_string(s) + " is outside " + std::to_string(min_size) +
                      " .. " + std::to_string(clique_number() + 1));
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
      cliques.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + s));
    }
  }
  return cliques;
}

}  // namespace warpdex::dpp
