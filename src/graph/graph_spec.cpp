// Graphs named on a command line (generator specs or files) and the sequential Dijkstra: graph_spec.hpp.
#include <warpdex/core/error.hpp>
#include <warpdex/graph/generators.hpp>
#include <warpdex/graph/graph_spec.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::graph {

template <class Weight>
std::vector<distance_t<Weight>> sequential_dijkstra(std::span<const std::uint64_t> row_offsets,
                                                    std::span<const vertex_id> columns, std::span<const Weight> weights,
                                                    vertex_id source)
{
  using distance = distance_t<Weight>;
  const std::size_t n = row_offsets.size() - 1;
  std::vector<distance> distances(n, unreachable<Weight>);
  using entry = std::pair<distance, vertex_id>;
  std::priority_queue<entry, std::vector<entry>, std::greater<>> heap;
  distances[source] = 0;
  heap.emplace(0, source);
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d != distances[u]) { continue; }  // a stale entry
    for (std::uint64_t arc = row_offsets[u]; arc < row_offsets[u + 1]; ++arc) {
      const distance candidate = d + static_cast<distance>(weights.empty() ? Weight(1) : weights[arc]);
      const vertex_id v = columns[arc];
      if (candidate < distances[v]) {
        distances[v] = candidate;
        heap.emplace(candidate, v);
      }
    }
  }
  return distances;
}

template std::vector<std::uint64_t> sequential_dijkstra<std::int32_t>(std::span<const std::uint64_t>,
                                                                      std::span<const vertex_id>,
                                                                      std::span<const std::int32_t>, vertex_id);
template std::vector<float> sequential_dijkstra<float>(std::span<const std::uint64_t>, std::span<const vertex_id>,
                                                       std::span<const float>, vertex_id);

namespace {

std::vector<std::string> split_spec(const std::string& spec, char separator)
{
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = spec.find(separator, start);
    parts.push_back(spec.substr(start, end - start));
    if (end == std::string::npos) { return parts; }
    start = end + 1;
  }
}

std::uint64_t spec_number(const std::string& spec, const std::string& text)
{
  std::size_t used = 0;
  std::uint64_t value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  WARPDEX_EXPECTS(used == text.size() && !text.empty() && text[0] != '-',
                  "graph '" + spec + "': '" + text + "' is not a non-negative integer");
  return value;
}

/// A spec number that must fit 32 bits (the generators' sizes).
std::uint32_t spec_u32(const std::string& spec, const std::string& text)
{
  const std::uint64_t value = spec_number(spec, text);
  WARPDEX_EXPECTS(value <= std::numeric_limits<std::uint32_t>::max(),
                  "graph '" + spec + "': " + text + " does not fit 32 bits");
  return static_cast<std::uint32_t>(value);
}

double spec_real(const std::string& spec, const std::string& text, const std::string& what)
{
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  WARPDEX_EXPECTS(used == text.size() && !text.empty(),
                  "graph '" + spec + "': " + what + " '" + text + "' is not a number");
  return value;
}

/// The spec syntax of each generator, for the message when its fields do not fit.
std::string generator_syntax(const std::string& name)
{
  if (name == "rmat") { return "rmat:SCALE[:EDGE_FACTOR]"; }
  if (name == "grid") { return "grid:WIDTHxHEIGHT"; }
  if (name == "small-world") { return "small-world:N[:NEIGHBOURS[:REWIRE]]"; }
  if (name == "geometric") { return "geometric:N[:NEIGHBOURS]"; }
  if (name == "gnp") { return "gnp:N:P[:SEED]"; }
  if (name == "hamming") { return "hamming:BITS:DISTANCE"; }
  if (name == "johnson") { return "johnson:LENGTH:WEIGHT:DISTANCE"; }
  if (name == "keller") { return "keller:DIMENSION"; }
  if (name == "mann") { return "mann:POINTS (9, 27, 81 or 243)"; }
  return "cfat:N:C";
}

bool is_generator_name(const std::string& name)
{
  for (const char* known :
       {"rmat", "grid", "geometric", "small-world", "gnp", "hamming", "johnson", "keller", "mann", "cfat", "c-fat"}) {
    if (name == known) { return true; }
  }
  return false;
}

}  // namespace

template <class Weight>
graph_file<Weight> load_graph(const std::string& spec, const weight_distribution& weights,
                              const std::function<void(double)>& progress)
{
  const std::vector<std::string> parts = split_spec(spec, ':');
  graph_file<Weight> file;
  if (parts[0] == "rmat" && parts.size() >= 2 && parts.size() <= 3) {
    rmat_parameters parameters{.scale = static_cast<std::uint32_t>(spec_number(spec, parts[1])), .seed = weights.seed};
    if (parts.size() == 3) { parameters.edge_factor = static_cast<std::uint32_t>(spec_number(spec, parts[2])); }
    file.edges = generate_rmat<Weight>(parameters, weights);
    file.directed = true;
  } else if (parts[0] == "grid" && parts.size() == 2) {
    const auto sides = split_spec(parts[1], 'x');
    WARPDEX_EXPECTS(sides.size() == 2, "graph '" + spec + "': a grid is grid:WIDTHxHEIGHT");
    file.edges = generate_grid<Weight>({.width = static_cast<std::uint32_t>(spec_number(spec, sides[0])),
                                        .height = static_cast<std::uint32_t>(spec_number(spec, sides[1]))},
                                       weights);
    file.directed = false;
  } else if (parts[0] == "small-world" && parts.size() >= 2 && parts.size() <= 4) {
    small_world_parameters parameters{.vertices = spec_u32(spec, parts[1]), .seed = weights.seed};
    if (parts.size() >= 3) { parameters.neighbours = spec_u32(spec, parts[2]); }
    if (parts.size() == 4) {
      try {
        parameters.rewire = std::stod(parts[3]);
      } catch (const std::exception&) {
        WARPDEX_FAIL("graph '" + spec + "': the rewiring probability '" + parts[3] + "' is not a number");
      }
    }
    file.edges = generate_small_world<Weight>(parameters, weights);
    file.directed = false;
  } else if (parts[0] == "geometric" && parts.size() >= 2 && parts.size() <= 3) {
    file.edges = generate_geometric<Weight>(
        {.vertices = spec_u32(spec, parts[1]),
         .neighbours = parts.size() == 3 ? spec_u32(spec, parts[2]) : geometric_parameters{}.neighbours,
         .seed = weights.seed},
        weights);
    file.directed = false;
  } else if (parts[0] == "gnp" && parts.size() >= 3 && parts.size() <= 4) {
    file.edges = generate_gnp<Weight>({.vertices = spec_u32(spec, parts[1]),
                                       .probability = spec_real(spec, parts[2], "the edge probability"),
                                       .seed = parts.size() == 4 ? spec_number(spec, parts[3]) : weights.seed},
                                      weights);
    file.directed = false;
  } else if (parts[0] == "hamming" && parts.size() == 3) {
    file.edges = generate_hamming<Weight>(spec_u32(spec, parts[1]), spec_u32(spec, parts[2]), weights);
    file.directed = false;
  } else if (parts[0] == "johnson" && parts.size() == 4) {
    file.edges =
        generate_johnson<Weight>(spec_u32(spec, parts[1]), spec_u32(spec, parts[2]), spec_u32(spec, parts[3]), weights);
    file.directed = false;
  } else if (parts[0] == "keller" && parts.size() == 2) {
    file.edges = generate_keller<Weight>(spec_u32(spec, parts[1]), weights);
    file.directed = false;
  } else if (parts[0] == "mann" && parts.size() == 2) {
    file.edges = generate_mann<Weight>(spec_u32(spec, parts[1]), weights);
    file.directed = false;
  } else if ((parts[0] == "cfat" || parts[0] == "c-fat") && parts.size() == 3) {
    file.edges = generate_c_fat<Weight>(spec_u32(spec, parts[1]), spec_real(spec, parts[2], "c"), weights);
    file.directed = false;
  } else if (parts.size() > 1 && is_generator_name(parts[0])) {
    WARPDEX_FAIL("graph '" + spec + "': expected " + generator_syntax(parts[0]));
  } else {
    file = read_graph_file<Weight>(spec, {.generate_weights = true, .weights = weights, .progress = progress});
  }
  return file;
}

template graph_file<std::int32_t> load_graph<std::int32_t>(const std::string&, const weight_distribution&,
                                                           const std::function<void(double)>&);
template graph_file<float> load_graph<float>(const std::string&, const weight_distribution&,
                                             const std::function<void(double)>&);

}  // namespace warpdex::graph
