// Graph generators (generators.hpp) and weight draws (graph_io.hpp): counter-based, so every edge is
// computed independently on the host's cores with OpenMP.
#include <warpdex/core/error.hpp>
#include <warpdex/core/host_memory.hpp>
#include <warpdex/core/hash.hpp>
#include <warpdex/graph/generators.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpdex::graph {
namespace {

/// Random stream names, so the draws of one edge for different purposes are independent.
enum class stream : std::uint64_t { weight = 1, rmat = 2, rewire = 3, rewire_target = 4, gnp = 5, geometric = 6 };

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

/// Rejects an edge list larger than `max_generated_edges`, or than the host memory left, before it is
/// built (each edge two ids and a weight of at most 4 bytes).
void check_edge_budget(const char* generator, std::uint64_t edges)
{
  WARPDEX_EXPECTS(edges <= max_generated_edges, std::string(generator) + ": the graph would have " +
                                                    std::to_string(edges) + " edges, more than the " +
                                                    std::to_string(max_generated_edges) + " a generator makes");
  expect_host_memory(edges * (2 * sizeof(vertex_id) + 4),
                     std::string(generator) + ": the edge list of " + std::to_string(edges) + " edges");
}

/// The edges of the graph on `vertices` vertices with the edges (u, v), u < v, for which `adjacent(u, v)`:
/// every pair tested, rows in parallel and concatenated in order (deterministic).
template <class Weight, class Adjacent>
edge_list<Weight> edges_of_pairs(const char* generator, std::uint64_t vertices, const Adjacent& adjacent)
{
  constexpr std::uint64_t max_vertices = std::uint64_t{1} << 17;
  WARPDEX_EXPECTS(vertices <= max_vertices, std::string(generator) + ": " + std::to_string(vertices) +
                                                " vertices are more than the " + std::to_string(max_vertices) +
                                                " whose pairs this generator tests one by one");
  const auto rows = static_cast<std::int64_t>(vertices);
  std::vector<std::vector<vertex_id>> neighbours(vertices);  // of row u: the v > u adjacent to it
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t row = 0; row < rows; ++row) {
    const auto u = static_cast<std::uint64_t>(row);
    for (std::uint64_t v = u + 1; v < vertices; ++v) {
      if (adjacent(u, v)) { neighbours[u].push_back(static_cast<vertex_id>(v)); }
    }
  }
  std::uint64_t count = 0;
  for (const auto& row : neighbours) { count += row.size(); }
  check_edge_budget(generator, count);
  edge_list<Weight> edges;
  edges.vertex_count = vertices;
  edges.sources.reserve(count);
  edges.targets.reserve(count);
  for (std::uint64_t u = 0; u < vertices; ++u) {
    for (const vertex_id v : neighbours[u]) { edges.add(static_cast<vertex_id>(u), v); }
    std::vector<vertex_id>().swap(neighbours[u]);
  }
  return edges;
}

std::uint64_t binomial(std::uint64_t n, std::uint64_t k)
{
  if (k > n) { return 0; }
  k = std::min(k, n - k);
  std::uint64_t result = 1;
  for (std::uint64_t i = 1; i <= k; ++i) {
    // result * (n - k + i) / i is exact at each step; the guard keeps the product below 2^64.
    if (result > (std::uint64_t{1} << 63) / (n - k + i)) { return std::uint64_t{1} << 63; }
    result = result * (n - k + i) / i;
  }
  return result;
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
  const std::uint64_t half = parameters.neighbours / 2;
  const std::uint64_t count = n * half;  // n < 2^32 and half < 2^31: no overflow
  check_edge_budget("small world", count);
  edge_list<Weight> edges;
  edges.vertex_count = n;
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

std::pair<double, double> geometric_point(std::uint64_t seed, vertex_id v)
{
  return {unit_interval(random_bits(seed, stream::geometric, 2 * std::uint64_t{v})),
          unit_interval(random_bits(seed, stream::geometric, 2 * std::uint64_t{v} + 1))};
}

template <class Weight>
edge_list<Weight> generate_geometric(const geometric_parameters& parameters,
                                     const std::optional<weight_distribution>& weights)
{
  const std::uint64_t n = parameters.vertices;
  const std::uint32_t k = parameters.neighbours;
  WARPDEX_EXPECTS(n >= 1 && n < no_vertex,
                  "geometric: " + std::to_string(n) + " vertices; need 1 <= vertices < 2^32 - 1");
  WARPDEX_EXPECTS(k >= 1 && k <= 32 && (k < n || n == 1), "geometric: " + std::to_string(k) +
                                                              " neighbours; need 1 <= neighbours <= 32 and below the " +
                                                              std::to_string(n) + " vertices");
  if (weights) { validate(*weights); }
  check_edge_budget("geometric", n * k);
  if (n == 1) {
    edge_list<Weight> single;
    single.vertex_count = 1;
    return single;
  }
  const auto count = static_cast<std::int64_t>(n);
  std::vector<double> xs(n);
  std::vector<double> ys(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto v = static_cast<std::uint64_t>(i);
    std::tie(xs[v], ys[v]) = geometric_point(parameters.seed, static_cast<vertex_id>(v));
  }
  // A side x side grid of cells, about two points a cell; the points sorted by cell (a counting sort,
  // ids ascending within a cell).
  const auto side = static_cast<std::uint64_t>(std::max(1.0, std::ceil(std::sqrt(static_cast<double>(n) / 2))));
  const double cell_width = 1.0 / static_cast<double>(side);
  const auto cell_coordinate = [&](double t) {
    return std::min(side - 1, static_cast<std::uint64_t>(t * static_cast<double>(side)));
  };
  std::vector<std::uint64_t> cell_starts(side * side + 1, 0);
  for (std::uint64_t v = 0; v < n; ++v) { ++cell_starts[cell_coordinate(xs[v]) + side * cell_coordinate(ys[v]) + 1]; }
  for (std::uint64_t c = 0; c < side * side; ++c) { cell_starts[c + 1] += cell_starts[c]; }
  std::vector<vertex_id> by_cell(n);
  {
    std::vector<std::uint64_t> fill(cell_starts.begin(), cell_starts.end() - 1);
    for (std::uint64_t v = 0; v < n; ++v) {
      by_cell[fill[cell_coordinate(xs[v]) + side * cell_coordinate(ys[v])]++] = static_cast<vertex_id>(v);
    }
  }
  // The k nearest of each point, nearest first (ties: smaller id): rings of cells around its own until the
  // k-th found is no farther than any point outside the rings searched.
  const std::uint32_t chosen = k;
  std::vector<vertex_id> nearest(n * chosen);
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto u = static_cast<std::uint64_t>(i);
    const auto cx = static_cast<std::int64_t>(cell_coordinate(xs[u]));
    const auto cy = static_cast<std::int64_t>(cell_coordinate(ys[u]));
    std::pair<double, vertex_id> best[33];
    std::uint32_t found = 0;
    const auto consider = [&](std::int64_t x, std::int64_t y) {
      if (x < 0 || y < 0 || x >= static_cast<std::int64_t>(side) || y >= static_cast<std::int64_t>(side)) { return; }
      const auto c = static_cast<std::uint64_t>(x) + side * static_cast<std::uint64_t>(y);
      for (std::uint64_t at = cell_starts[c]; at < cell_starts[c + 1]; ++at) {
        const vertex_id v = by_cell[at];
        if (v == u) { continue; }
        const double dx = xs[v] - xs[u];
        const double dy = ys[v] - ys[u];
        const std::pair<double, vertex_id> candidate{dx * dx + dy * dy, v};
        if (found == chosen && !(candidate < best[found - 1])) { continue; }
        std::uint32_t slot = found < chosen ? found++ : found - 1;
        while (slot > 0 && candidate < best[slot - 1]) {
          best[slot] = best[slot - 1];
          --slot;
        }
        best[slot] = candidate;
      }
    };
    for (std::int64_t ring = 0;; ++ring) {
      if (ring == 0) {
        consider(cx, cy);
      } else {
        for (std::int64_t d = -ring; d <= ring; ++d) {
          consider(cx + d, cy - ring);
          consider(cx + d, cy + ring);
        }
        for (std::int64_t d = -ring + 1; d <= ring - 1; ++d) {
          consider(cx - ring, cy + d);
          consider(cx + ring, cy + d);
        }
      }
      // Every point outside rings 0 .. ring is at least ring cells' widths away.
      const double reach = static_cast<double>(ring) * cell_width;
      if (found == chosen && best[found - 1].first <= reach * reach) { break; }
      if (ring >= static_cast<std::int64_t>(side)) { break; }  // every cell searched
    }
    for (std::uint32_t j = 0; j < chosen; ++j) { nearest[u * chosen + j] = best[j].second; }
  }
  // Edge {u, v} once, from its smaller end u: v chose u or u chose v. Rows in parallel, counted first.
  const auto chose = [&](std::uint64_t a, vertex_id b) {
    const vertex_id* row = nearest.data() + a * chosen;
    return std::find(row, row + chosen, b) != row + chosen;
  };
  // Row u's edges: the v > u it chose, then the v > u that chose u when u did not choose v (each such
  // choice is handed to the row of its smaller end below).
  std::vector<std::uint64_t> row_counts(n + 1, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto a = static_cast<std::uint64_t>(i);
    std::uint64_t own = 0;
    for (std::uint32_t j = 0; j < chosen; ++j) {
      if (nearest[a * chosen + j] > a) { ++own; }
    }
    row_counts[a + 1] = own;
  }
  // Downward choices not returned: collected sequentially per target row (deterministic order).
  std::vector<std::uint64_t> extra_starts(n + 1, 0);
  for (std::uint64_t a = 0; a < n; ++a) {
    for (std::uint32_t j = 0; j < chosen; ++j) {
      const vertex_id b = nearest[a * chosen + j];
      if (b < a && !chose(b, static_cast<vertex_id>(a))) { ++extra_starts[b + 1]; }
    }
  }
  for (std::uint64_t v = 0; v < n; ++v) { extra_starts[v + 1] += extra_starts[v]; }
  std::vector<vertex_id> extra(extra_starts[n]);
  {
    std::vector<std::uint64_t> fill(extra_starts.begin(), extra_starts.end() - 1);
    for (std::uint64_t a = 0; a < n; ++a) {  // ascending a: each row's extra targets come out ascending
      for (std::uint32_t j = 0; j < chosen; ++j) {
        const vertex_id b = nearest[a * chosen + j];
        if (b < a && !chose(b, static_cast<vertex_id>(a))) { extra[fill[b]++] = static_cast<vertex_id>(a); }
      }
    }
  }
  for (std::uint64_t v = 0; v < n; ++v) {
    row_counts[v + 1] += row_counts[v] + (extra_starts[v + 1] - extra_starts[v]);
  }
  edge_list<Weight> edges;
  edges.vertex_count = n;
  edges.sources.resize(row_counts[n]);
  edges.targets.resize(row_counts[n]);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto u = static_cast<std::uint64_t>(i);
    std::uint64_t at = row_counts[u];
    const std::uint64_t row_begin = at;
    for (std::uint32_t j = 0; j < chosen; ++j) {
      const vertex_id v = nearest[u * chosen + j];
      if (v > u) { edges.targets[at++] = v; }
    }
    for (std::uint64_t e = extra_starts[u]; e < extra_starts[u + 1]; ++e) { edges.targets[at++] = extra[e]; }
    std::sort(edges.targets.begin() + static_cast<std::ptrdiff_t>(row_begin),
              edges.targets.begin() + static_cast<std::ptrdiff_t>(at));
    for (std::uint64_t e = row_begin; e < at; ++e) { edges.sources[e] = static_cast<vertex_id>(u); }
  }
  if (weights && !edges.sources.empty()) {
    const auto edge_count = static_cast<std::int64_t>(edges.size());
    const auto length = [&](std::uint64_t e) {
      return std::hypot(xs[edges.sources[e]] - xs[edges.targets[e]], ys[edges.sources[e]] - ys[edges.targets[e]]);
    };
    double longest = 0;
#pragma omp parallel for schedule(static) reduction(max : longest)
    for (std::int64_t e = 0; e < edge_count; ++e) {
      longest = std::max(longest, length(static_cast<std::uint64_t>(e)));
    }
    edges.weights.resize(edges.size());
    const double low = weights->min_weight;
    const double high = weights->max_weight;
    const bool skewed = weights->kind == weight_distribution::shape::skewed;
#pragma omp parallel for schedule(static)
    for (std::int64_t e = 0; e < edge_count; ++e) {
      const double t = longest > 0 ? std::min(1.0, length(static_cast<std::uint64_t>(e)) / longest) : 0.0;
      const double shaped = skewed ? t * t * t : t;
      Weight w{};
      if constexpr (std::is_integral_v<Weight>) {
        const double span = std::floor(high) - std::ceil(low) + 1;
        w = static_cast<Weight>(std::min(std::ceil(low) + std::floor(shaped * span), std::floor(high)));
      } else {
        w = static_cast<Weight>(low + shaped * (high - low));
      }
      edges.weights[static_cast<std::uint64_t>(e)] = w;
    }
  }
  return edges;
}

template <class Weight>
edge_list<Weight> generate_gnp(const gnp_parameters& parameters, const std::optional<weight_distribution>& weights)
{
  const std::uint64_t n = parameters.vertices;
  const double p = parameters.probability;
  WARPDEX_EXPECTS(n < no_vertex, "gnp: " + std::to_string(n) + " vertices exceed the 32-bit vertex ids");
  WARPDEX_EXPECTS(p >= 0 && p <= 1, "gnp: the edge probability " + std::to_string(p) + " is outside [0, 1]");
  const double pairs = static_cast<double>(n) * static_cast<double>(n > 0 ? n - 1 : 0) / 2;
  WARPDEX_EXPECTS(p * pairs < static_cast<double>(max_generated_edges),
                  "gnp: about " + std::to_string(static_cast<std::uint64_t>(p * pairs)) +
                      " edges expected, more than the " + std::to_string(max_generated_edges) + " a generator makes");
  // Rows in blocks, each block's edges in its own list, concatenated in block order: the result does not
  // depend on the thread count. Row u draws from the counter stream (u, 0), (u, 1), ...
  constexpr std::uint64_t rows_per_block = 1024;
  const std::uint64_t blocks = (n + rows_per_block - 1) / rows_per_block;
  std::vector<edge_list<Weight>> parts(blocks);
  const double log_q = std::log1p(-p);  // log(1 - p): -inf when p = 1, 0 when p = 0
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t signed_block = 0; signed_block < static_cast<std::int64_t>(blocks); ++signed_block) {
    const auto block = static_cast<std::uint64_t>(signed_block);
    auto& part = parts[block];
    if (p == 0) { continue; }
    for (std::uint64_t u = block * rows_per_block; u < std::min(n, (block + 1) * rows_per_block); ++u) {
      if (p == 1) {
        for (std::uint64_t v = 0; v < u; ++v) { part.add(static_cast<vertex_id>(u), static_cast<vertex_id>(v)); }
        continue;
      }
      std::uint64_t next = 0;  // the first candidate not yet skipped
      for (std::uint64_t draw = 0;; ++draw) {
        const double r = unit_interval(random_bits(parameters.seed, stream::gnp, u << 32 | draw));
        const double skip = std::floor(std::log1p(-r) / log_q);  // non-edges before the next edge
        if (skip >= static_cast<double>(u - next)) { break; }
        next += static_cast<std::uint64_t>(skip);
        part.add(static_cast<vertex_id>(u), static_cast<vertex_id>(next));
        ++next;
      }
    }
  }
  edge_list<Weight> edges;
  edges.vertex_count = n;
  std::uint64_t count = 0;
  for (const auto& part : parts) { count += part.size(); }
  check_edge_budget("gnp", count);
  edges.sources.reserve(count);
  edges.targets.reserve(count);
  for (auto& part : parts) {
    edges.sources.insert(edges.sources.end(), part.sources.begin(), part.sources.end());
    edges.targets.insert(edges.targets.end(), part.targets.begin(), part.targets.end());
    part = {};
  }
  draw_weights(edges, weights);
  return edges;
}

template <class Weight>
edge_list<Weight> generate_hamming(std::uint32_t bits, std::uint32_t min_distance,
                                   const std::optional<weight_distribution>& weights)
{
  WARPDEX_EXPECTS(bits >= 1 && bits <= 31, "hamming: " + std::to_string(bits) + " bits are outside [1, 31]");
  WARPDEX_EXPECTS(min_distance >= 1 && min_distance <= bits, "hamming: the distance " + std::to_string(min_distance) +
                                                                 " is outside [1, " + std::to_string(bits) + "]");
  const std::uint64_t n = std::uint64_t{1} << bits;
  std::uint64_t far_words = 0;  // words at distance >= min_distance from a given one
  for (std::uint32_t k = min_distance; k <= bits; ++k) { far_words += binomial(bits, k); }
  check_edge_budget("hamming", n / 2 * far_words);
  // The masks of popcount >= min_distance: v = u ^ mask for each, kept when v > u.
  std::vector<std::uint32_t> masks;
  masks.reserve(far_words);
  for (std::uint64_t mask = 1; mask < n; ++mask) {
    if (static_cast<std::uint32_t>(std::popcount(mask)) >= min_distance) {
      masks.push_back(static_cast<std::uint32_t>(mask));
    }
  }
  edge_list<Weight> edges;
  edges.vertex_count = n;
  edges.sources.reserve(n / 2 * far_words);
  edges.targets.reserve(n / 2 * far_words);
  for (std::uint64_t u = 0; u < n; ++u) {
    for (const std::uint32_t mask : masks) {
      const std::uint64_t v = u ^ mask;
      if (v > u) { edges.add(static_cast<vertex_id>(u), static_cast<vertex_id>(v)); }
    }
  }
  draw_weights(edges, weights);
  return edges;
}

template <class Weight>
edge_list<Weight> generate_johnson(std::uint32_t length, std::uint32_t weight, std::uint32_t min_distance,
                                   const std::optional<weight_distribution>& weights)
{
  WARPDEX_EXPECTS(
      length >= 1 && length <= 63 && weight >= 1 && weight <= length,
      "johnson: need 1 <= weight (" + std::to_string(weight) + ") <= length (" + std::to_string(length) + ") <= 63");
  WARPDEX_EXPECTS(min_distance >= 1, "johnson: the distance must be >= 1");
  const std::uint64_t count = binomial(length, weight);
  WARPDEX_EXPECTS(count <= (std::uint64_t{1} << 17),
                  "johnson: " + std::to_string(count) + " words are more than the 2^17 whose pairs are tested");
  std::vector<std::uint64_t> words;
  words.reserve(count);
  // Gosper's next combination: the words of `weight` ones in ascending order.
  std::uint64_t word = (std::uint64_t{1} << weight) - 1;
  const std::uint64_t end = std::uint64_t{1} << length;
  while (word < end) {
    words.push_back(word);
    const std::uint64_t lowest = word & (~word + 1);
    const std::uint64_t ripple = word + lowest;
    word = ripple | (((word ^ ripple) >> 2) / lowest);
  }
  auto edges = edges_of_pairs<Weight>("johnson", words.size(), [&](std::uint64_t u, std::uint64_t v) {
    return static_cast<std::uint32_t>(std::popcount(words[u] ^ words[v])) >= min_distance;
  });
  draw_weights(edges, weights);
  return edges;
}

template <class Weight>
edge_list<Weight> generate_keller(std::uint32_t dimension, const std::optional<weight_distribution>& weights)
{
  WARPDEX_EXPECTS(dimension >= 2 && dimension <= 8,
                  "keller: the dimension " + std::to_string(dimension) + " is outside [2, 8]");
  // Words of 2-bit digits. Digits a and b differ by 2 (mod 4) exactly when a ^ b = 0b10.
  constexpr std::uint64_t low_bits = 0x5555555555555555ULL;
  const auto adjacent = [](std::uint64_t a, std::uint64_t b) {
    const std::uint64_t x = a ^ b;
    const std::uint64_t low = x & low_bits;
    const std::uint64_t high = (x >> 1) & low_bits;
    return std::popcount(low | high) >= 2 && (high & ~low) != 0;
  };
  std::vector<std::uint64_t> words;  // the neighbours of the word 0, ascending
  for (std::uint64_t word = 1; word < (std::uint64_t{1} << (2 * dimension)); ++word) {
    if (adjacent(0, word)) { words.push_back(word); }
  }
  auto edges = edges_of_pairs<Weight>("keller", words.size(),
                                      [&](std::uint64_t u, std::uint64_t v) { return adjacent(words[u], words[v]); });
  draw_weights(edges, weights);
  return edges;
}

template <class Weight>
edge_list<Weight> generate_mann(std::uint32_t points, const std::optional<weight_distribution>& weights)
{
  std::uint32_t digits = 0;  // points = 3^digits
  std::uint64_t power = 1;
  while (power < points) {
    power *= 3;
    ++digits;
  }
  WARPDEX_EXPECTS(power == points && digits >= 1 && digits <= 5,
                  "mann: " + std::to_string(points) +
                      " points: only the affine Steiner triple systems AG(k, 3), 3^k points with 1 <= k <= 5 (9, "
                      "27, 81, 243), are built (MANN_a45's system is not affine)");
  // Points are base-3 words; the third point of the line through x and y is -(x + y), digit by digit.
  const auto third = [digits](std::uint64_t x, std::uint64_t y) {
    std::uint64_t z = 0;
    std::uint64_t place = 1;
    for (std::uint32_t d = 0; d < digits; ++d, x /= 3, y /= 3, place *= 3) { z += ((6 - x % 3 - y % 3) % 3) * place; }
    return z;
  };
  std::vector<std::uint32_t> point_of;  // of triple vertex points + i: the point it stands for
  for (std::uint64_t x = 0; x < points; ++x) {
    for (std::uint64_t y = x + 1; y < points; ++y) {
      const std::uint64_t z = third(x, y);
      if (z > y) {  // each line once, as x < y < z
        point_of.push_back(static_cast<std::uint32_t>(x));
        point_of.push_back(static_cast<std::uint32_t>(y));
        point_of.push_back(static_cast<std::uint32_t>(z));
      }
    }
  }
  const std::uint64_t vertices = points + point_of.size();
  // Not adjacent: two vertices of one triple, and a point with a triple vertex standing for it.
  auto edges = edges_of_pairs<Weight>("mann", vertices, [&](std::uint64_t u, std::uint64_t v) {
    if (v < points) { return true; }  // two points
    if (u < points) { return point_of[v - points] != u; }
    return (u - points) / 3 != (v - points) / 3;
  });
  draw_weights(edges, weights);
  return edges;
}

template <class Weight>
edge_list<Weight> generate_c_fat(std::uint32_t vertices, double c, const std::optional<weight_distribution>& weights)
{
  WARPDEX_EXPECTS(vertices >= 2 && vertices < no_vertex, "c-fat: need at least 2 vertices");
  WARPDEX_EXPECTS(c > 0 && std::isfinite(c), "c-fat: c must be > 0");
  const std::uint64_t n = vertices;
  const double parts_real = std::floor(static_cast<double>(n) / (c * std::log(static_cast<double>(n))));
  WARPDEX_EXPECTS(parts_real >= 1, "c-fat: " + std::to_string(n) + " vertices with c = " + std::to_string(c) +
                                       " make no part: need c ln n <= n");
  const auto k = static_cast<std::uint64_t>(parts_real);
  const std::uint64_t small = n / k;  // part sizes: the first n mod k parts hold one more
  const std::uint64_t large_parts = n % k;
  const auto start = [&](std::uint64_t part) { return part * small + std::min(part, large_parts); };
  // Within each part, and between part i and part i + 1 (mod k) for each ring link (k >= 3: k links; 2:
  // one; 1: none).
  const std::uint64_t links = k >= 3 ? k : k - 1;
  std::uint64_t count = 0;
  for (std::uint64_t part = 0; part < k; ++part) {
    const std::uint64_t size = start(part + 1) - start(part);
    count += size * (size - 1) / 2;
    if (part < links) { count += size * (start((part + 1) % k + 1) - start((part + 1) % k)); }
  }
  check_edge_budget("c-fat", count);
  edge_list<Weight> edges;
  edges.vertex_count = n;
  edges.sources.reserve(count);
  edges.targets.reserve(count);
  for (std::uint64_t part = 0; part < k; ++part) {
    for (std::uint64_t u = start(part); u < start(part + 1); ++u) {
      for (std::uint64_t v = u + 1; v < start(part + 1); ++v) {
        edges.add(static_cast<vertex_id>(u), static_cast<vertex_id>(v));
      }
      if (part < links) {
        const std::uint64_t next = (part + 1) % k;
        for (std::uint64_t v = start(next); v < start(next + 1); ++v) {
          edges.add(static_cast<vertex_id>(u), static_cast<vertex_id>(v));
        }
      }
    }
  }
  draw_weights(edges, weights);
  return edges;
}

#define WARPDEX_INSTANTIATE_GENERATORS(Weight)                                                                         \
  template edge_list<Weight> generate_rmat<Weight>(const rmat_parameters&, const std::optional<weight_distribution>&); \
  template edge_list<Weight> generate_grid<Weight>(const grid_parameters&, const std::optional<weight_distribution>&); \
  template edge_list<Weight> generate_geometric<Weight>(const geometric_parameters&,                                   \
                                                        const std::optional<weight_distribution>&);                    \
  template edge_list<Weight> generate_small_world<Weight>(const small_world_parameters&,                               \
                                                          const std::optional<weight_distribution>&);                  \
  template edge_list<Weight> generate_gnp<Weight>(const gnp_parameters&, const std::optional<weight_distribution>&);   \
  template edge_list<Weight> generate_hamming<Weight>(std::uint32_t, std::uint32_t,                                    \
                                                      const std::optional<weight_distribution>&);                      \
  template edge_list<Weight> generate_johnson<Weight>(std::uint32_t, std::uint32_t, std::uint32_t,                     \
                                                      const std::optional<weight_distribution>&);                      \
  template edge_list<Weight> generate_keller<Weight>(std::uint32_t, const std::optional<weight_distribution>&);        \
  template edge_list<Weight> generate_mann<Weight>(std::uint32_t, const std::optional<weight_distribution>&);          \
  template edge_list<Weight> generate_c_fat<Weight>(std::uint32_t, double, const std::optional<weight_distribution>&);
WARPDEX_INSTANTIATE_GENERATORS(std::int32_t)
WARPDEX_INSTANTIATE_GENERATORS(float)

}  // namespace warpdex::graph
