// Graph generators (generators.hpp) and weight draws (graph_io.hpp): counter-based, so every edge is
// computed independently on the host's cores with OpenMP.
#include <warpdex/core/error.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/graph/generators.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

namespace warpdex::graph {
namespace {

/// Random stream names, so the draws of one edge for different purposes are independent.
enum class stream : std::uint64_t { weight = 1, rmat = 2, rewire = 3, rewire_target = 4 };

/// 64 random bits for draw `index` of `purpose` under `seed`.
std::uint64_t random_bits(std::uint64_t seed, stream purpose, std::uint64_t index)
{
  constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ULL;
  return fmix64(fmix64(seed * golden + static_cast<std::uint64_t>(purpose)) ^ (index * golden + 1));
}

/// A double uniform in [0, 1) from 53 random bits.
double unit_interval(std::uint64_t bits)
{
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

void validate(const weight_distribution& weights)
{
  WARPDEX_EXPECTS(weights.min_weight >= 0 && weights.max_weight >= weights.min_weight,
                  "weights: need 0 <= min (" + std::to_string(weights.min_weight) + ") <= max (" +
                      std::to_string(weights.max_weight) + ")");
}

template <class Weight>
void draw_weights(edge_list<Weight>& edges, const std::optional<weight_distribution>& weights)
{
  if (!weights) { return; }
  validate(*weights);
  edges.weights.resize(edges.size());
  const auto count = static_cast<std::int64_t>(edges.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    edges.weights[static_cast<std::size_t>(i)] = weights->draw<Weight>(static_cast<std::uint64_t>(i));
  }
}

}  // namespace

template <class Weight>
Weight weight_distribution::draw(std::uint64_t edge_index) const
{
  const double u = unit_interval(random_bits(seed, stream::weight, edge_index));
  const double shaped = kind == shape::skewed ? u * u * u : u;
  if constexpr (std::is_integral_v<Weight>) {
    const double span = std::floor(max_weight) - std::ceil(min_weight) + 1;
    const double value = std::ceil(min_weight) + std::floor(shaped * span);
    return static_cast<Weight>(std::min(value, std::floor(max_weight)));
  } else {
    return static_cast<Weight>(min_weight + shaped * (max_weight - min_weight));
  }
}

template std::int32_t weight_distribution::draw<std::int32_t>(std::uint64_t) const;
template float weight_distribution::draw<float>(std::uint64_t) const;

weight_distribution::shape parse_weight_shape(const std::string& text)
{
  if (text == "uniform") { return weight_distribution::shape::uniform; }
  if (text == "skewed") { return weight_distribution::shape::skewed; }
  WARPDEX_FAIL("unknown weight distribution '" + text + "' (uniform or skewed)");
}

template <class Weight>
edge_list<Weight> generate_rmat(const rmat_parameters& parameters, const std::optional<weight_distribution>& weights)
{
  WARPDEX_EXPECTS(parameters.scale >= 1 && parameters.scale <= 31,
                  "rmat: scale " + std::to_string(parameters.scale) + " is outside [1, 31]");
  WARPDEX_EXPECTS(parameters.edge_factor >= 1, "rmat: the edge factor must be >= 1");
  const double d = 1 - parameters.a - parameters.b - parameters.c;
  WARPDEX_EXPECTS(parameters.a >= 0 && parameters.b >= 0 && parameters.c >= 0 && d >= -1e-12,
                  "rmat: the probabilities a, b, c and 1 - a - b - c must be >= 0");
  edge_list<Weight> edges;
  edges.vertex_count = std::uint64_t{1} << parameters.scale;
  const std::uint64_t count = edges.vertex_count * parameters.edge_factor;
  edges.sources.resize(count);
  edges.targets.resize(count);
  // Each level uses 21 bits of a draw (three levels per 64-bit draw): ample resolution for the quadrant
  // probabilities.
  constexpr int level_bits = 21;
  constexpr int levels_per_draw = 3;
  constexpr double level_scale = 1 << level_bits;
  const auto threshold_a = static_cast<std::uint64_t>(parameters.a * level_scale);
  const auto threshold_ab = static_cast<std::uint64_t>((parameters.a + parameters.b) * level_scale);
  const auto threshold_abc = static_cast<std::uint64_t>((parameters.a + parameters.b + parameters.c) * level_scale);
  const std::uint32_t scale = parameters.scale;
  const std::uint64_t draws_per_edge = (scale + levels_per_draw - 1) / levels_per_draw;
#pragma omp parallel for schedule(static)
  for (std::int64_t signed_edge = 0; signed_edge < static_cast<std::int64_t>(count); ++signed_edge) {
    const auto edge = static_cast<std::uint64_t>(signed_edge);
    std::uint32_t source = 0;
    std::uint32_t target = 0;
    std::uint64_t bits = 0;
    for (std::uint32_t level = 0; level < scale; ++level) {
      if (level % levels_per_draw == 0) {
        bits = random_bits(parameters.seed, stream::rmat, edge * draws_per_edge + level / levels_per_draw);
      }
      const std::uint64_t draw = bits & ((std::uint64_t{1} << level_bits) - 1);
      bits >>= level_bits;
      const std::uint32_t row_bit = draw >= threshold_ab ? 1 : 0;
      const std::uint32_t column_bit = (draw >= threshold_a && draw < threshold_ab) || draw >= threshold_abc ? 1 : 0;
      source = (source << 1) | row_bit;
      target = (target << 1) | column_bit;
    }
    edges.sources[edge] = source;
    edges.targets[edge] = target;
  }
  draw_weights(edges, weights);
  return edges;
}

template <class Weight>
edge_list<Weight> generate_grid(const grid_parameters& parameters, const std::optional<weight_distribution>& weights)
{
  const std::uint64_t width = parameters.width;
  const std::uint64_t height = parameters.height;
  WARPDEX_EXPECTS(
      width >= 1 && height >= 1 && width * height < no_vertex,
      "grid: " + std::to_string(width) + " x " + std::to_string(height) + " needs 1 <= vertices < 2^32 - 1");
  edge_list<Weight> edges;
  edges.vertex_count = width * height;
  const std::uint64_t horizontal = (width - 1) * height;
  const std::uint64_t count = horizontal + width * (height - 1);
  edges.sources.resize(count);
  edges.targets.resize(count);
#pragma omp parallel for schedule(static)
  for (std::int64_t signed_edge = 0; signed_edge < static_cast<std::int64_t>(count); ++signed_edge) {
    const auto edge = static_cast<std::uint64_t>(signed_edge);
    std::uint64_t source = 0;
    std::uint64_t target = 0;
    if (edge < horizontal) {  // (x, y) - (x + 1, y)
      const std::uint64_t y = edge / (width - 1);
      const std::uint64_t x = edge % (width - 1);
      source = x + y * width;
      target = source + 1;
    } else {  // (x, y) - (x, y + 1)
      source = edge - horizontal;
      target = source + width;
    }
    edges.sources[edge] = static_cast<vertex_id>(source);
    edges.targets[edge] = static_cast<vertex_id>(target);
  }
  draw_weights(edges, weights);
  return edges;
}

template <class Weight>
edge_list<Weight> generate_small_world(const small_world_parameters& parameters,
                                       const std::optional<weight_distribution>& weights)
{
  const std::uint64_t n = parameters.vertices;
  WARPDEX_EXPECTS(
      parameters.neighbours >= 2 && parameters.neighbours % 2 == 0 && parameters.neighbours < n && n < no_vertex,
      "small world: need an even neighbour count >= 2 and below the " + std::to_string(n) + " vertices");
  WARPDEX_EXPECTS(parameters.rewire >= 0 && parameters.rewire <= 1, "small world: rewire must lie in [0, 1]");
  edge_list<Weight> edges;
  edges.vertex_count = n;
  const std::uint64_t half = parameters.neighbours / 2;
  const std::uint64_t count = n * half;
  edges.sources.resize(count);
  edges.targets.resize(count);
#pragma omp parallel for schedule(static)
  for (std::int64_t signed_edge = 0; signed_edge < static_cast<std::int64_t>(count); ++signed_edge) {
    const auto edge = static_cast<std::uint64_t>(signed_edge);
    const std::uint64_t source = edge / half;
    std::uint64_t target = (source + edge % half + 1) % n;
    if (unit_interval(random_bits(parameters.seed, stream::rewire, edge)) < parameters.rewire) {
      target = random_bits(parameters.seed, stream::rewire_target, edge) % n;
    }
    edges.sources[edge] = static_cast<vertex_id>(source);
    edges.targets[edge] = static_cast<vertex_id>(target);
  }
  draw_weights(edges, weights);
  return edges;
}

#define WARPDEX_INSTANTIATE_GENERATORS(Weight)                                                                         \
  template edge_list<Weight> generate_rmat<Weight>(const rmat_parameters&, const std::optional<weight_distribution>&); \
  template edge_list<Weight> generate_grid<Weight>(const grid_parameters&, const std::optional<weight_distribution>&); \
  template edge_list<Weight> generate_small_world<Weight>(const small_world_parameters&,                               \
                                                          const std::optional<weight_distribution>&);
WARPDEX_INSTANTIATE_GENERATORS(std::int32_t)
WARPDEX_INSTANTIATE_GENERATORS(float)

}  // namespace warpdex::graph
