// The synthetic porous-rock volume (include/warpdex/dpp/porous_volume.hpp).
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/porous_volume.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

namespace warpdex::dpp {
namespace {

std::uint64_t mix(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The random number of (seed, stream, index): a uniform double in [0, 1).
double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index)
{
  const std::uint64_t bits = mix(mix(seed ^ mix(stream)) ^ index);
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// The streams of random numbers: ball placement and the per-voxel noise.
constexpr std::uint64_t ball_stream = 1;
constexpr std::uint64_t gauss_stream = 2;
constexpr std::uint64_t impulse_stream = 3;

/// Marks the pores: balls placed one at a time until the pore fraction reaches the target. Returns the
/// pore voxels.
std::uint64_t carve_pores(volume_dims dims, const porous_volume_options& options, std::vector<std::uint8_t>& truth)
{
  const std::uint64_t voxels = dims.voxels();
  const auto target = static_cast<std::uint64_t>(std::llround(options.porosity * static_cast<double>(voxels)));
  const bool flat = dims.is_2d();
  std::uint64_t pores = 0;
  for (std::uint64_t ball = 0; pores < target; ++ball) {
    const double r =
        options.min_radius + (options.max_radius - options.min_radius) * uniform(options.seed, ball_stream, 4 * ball);
    const double centre[3] = {
        uniform(options.seed, ball_stream, 4 * ball + 1) * static_cast<double>(dims.width),
        uniform(options.seed, ball_stream, 4 * ball + 2) * static_cast<double>(dims.height),
        flat ? 0.0 : uniform(options.seed, ball_stream, 4 * ball + 3) * static_cast<double>(dims.depth)};
    const auto low = [&](int axis, std::uint64_t extent) {
      return static_cast<std::uint64_t>(std::clamp(std::floor(centre[axis] - r), 0.0, static_cast<double>(extent - 1)));
    };
    const auto high = [&](int axis, std::uint64_t extent) {
      return static_cast<std::uint64_t>(std::clamp(std::ceil(centre[axis] + r), 0.0, static_cast<double>(extent - 1)));
    };
    const std::uint64_t z_end = flat ? 0 : high(2, dims.depth);
    for (std::uint64_t z = flat ? 0 : low(2, dims.depth); z <= z_end; ++z) {
      const double dz = flat ? 0.0 : static_cast<double>(z) + 0.5 - centre[2];
      for (std::uint64_t y = low(1, dims.height); y <= high(1, dims.height); ++y) {
        const double dy = static_cast<double>(y) + 0.5 - centre[1];
        for (std::uint64_t x = low(0, dims.width); x <= high(0, dims.width); ++x) {
          const double dx = static_cast<double>(x) + 0.5 - centre[0];
          if (dx * dx + dy * dy + dz * dz > r * r) { continue; }
          std::uint8_t& voxel = truth[x + dims.width * (y + dims.height * z)];
          pores += voxel;  // solid (1) until carved
          voxel = 0;
          if (pores >= target) { return pores; }
        }
      }
    }
  }
  return pores;
}

/// The windowed-sinc low-pass taps (Hann window), summing to 1; cut-off 1 / period cycles a voxel.
std::vector<double> ringing_taps(double period)
{
  const auto radius = static_cast<int>(std::ceil(2 * period));
  std::vector<double> taps(2 * radius + 1);
  const double cutoff = 1.0 / period;
  double sum = 0;
  for (int t = -radius; t <= radius; ++t) {
    const double x = 2 * cutoff * t;
    const double sinc = t == 0 ? 1.0 : std::sin(std::numbers::pi * x) / (std::numbers::pi * x);
    const double window = 0.5 + 0.5 * std::cos(std::numbers::pi * t / (radius + 1));
    taps[t + radius] = sinc * window;
    sum += taps[t + radius];
  }
  for (auto& tap : taps) { tap /= sum; }
  return taps;
}

/// Filters `field` along one axis (stride between neighbours, extent along it), clamping at the borders.
void filter_axis(std::vector<float>& field, volume_dims dims, int axis, const std::vector<double>& taps)
{
  const std::uint64_t extent[3] = {dims.width, dims.height, dims.depth};
  const std::uint64_t stride[3] = {1, dims.width, dims.width * dims.height};
  const std::uint64_t length = extent[axis];
  const std::uint64_t lines = dims.voxels() / length;
  const auto radius = static_cast<std::int64_t>(taps.size() / 2);
#pragma omp parallel
  {
    std::vector<float> line(length);
#pragma omp for schedule(static)
    for (std::int64_t l = 0; l < static_cast<std::int64_t>(lines); ++l) {
      // Line l: the voxels whose coordinates other than `axis` enumerate to l.
      const auto u = static_cast<std::uint64_t>(l);
      const std::uint64_t inner = axis == 0 ? 1 : stride[axis];
      const std::uint64_t start = (u % inner) + (u / inner) * inner * length;
      for (std::uint64_t i = 0; i < length; ++i) { line[i] = field[start + i * stride[axis]]; }
      for (std::uint64_t i = 0; i < length; ++i) {
        double value = 0;
        for (std::int64_t t = -radius; t <= radius; ++t) {
          const std::int64_t j =
              std::clamp<std::int64_t>(static_cast<std::int64_t>(i) + t, 0, static_cast<std::int64_t>(length) - 1);
          value += taps[t + radius] * line[j];
        }
        field[start + i * stride[axis]] = static_cast<float>(value);
      }
    }
  }
}

}  // namespace

porous_volume generate_porous_volume(volume_dims dims, const porous_volume_options& options)
{
  WARPDEX_EXPECTS(options.porosity > 0 && options.porosity < 1,
                  "generate_porous_volume: porosity " + std::to_string(options.porosity) + " is not in (0, 1)");
  WARPDEX_EXPECTS(options.min_radius > 0 && options.max_radius >= options.min_radius,
                  "generate_porous_volume: pore radii need 0 < min_radius <= max_radius");
  WARPDEX_EXPECTS(options.noise_sigma >= 0 && options.impulse_fraction >= 0 && options.impulse_fraction <= 1,
                  "generate_porous_volume: noise_sigma >= 0 and impulse_fraction in [0, 1] expected");
  WARPDEX_EXPECTS(options.ringing_period == 0 || options.ringing_period >= 2,
                  "generate_porous_volume: ringing_period is 0 (off) or at least 2 voxels");
  porous_volume result;
  result.image = gray_volume(dims, 16);
  const std::uint64_t voxels = dims.voxels();
  result.truth.assign(voxels, 1);
  const std::uint64_t pores = carve_pores(dims, options, result.truth);
  result.porosity = static_cast<double>(pores) / static_cast<double>(voxels);

  std::vector<float> field(voxels);
  const auto level = [&](std::uint8_t solid) {
    return static_cast<float>(solid != 0 ? options.solid_level : options.pore_level);
  };
  std::transform(result.truth.begin(), result.truth.end(), field.begin(), level);
  if (options.ringing_period != 0) {
    const auto taps = ringing_taps(options.ringing_period);
    for (int axis = 0; axis < (dims.is_2d() ? 2 : 3); ++axis) {
      if ((axis == 0 ? dims.width : axis == 1 ? dims.height : dims.depth) > 1) { filter_axis(field, dims, axis, taps); }
    }
  }
  const double contrast = options.solid_level - options.pore_level;
  const double salt = options.solid_level + 2 * contrast;
  const double pepper = options.pore_level - 2 * contrast;
#pragma omp parallel for schedule(static)
  for (std::int64_t signed_i = 0; signed_i < static_cast<std::int64_t>(voxels); ++signed_i) {
    const auto i = static_cast<std::uint64_t>(signed_i);
    double value = field[i];
    const double impulse = uniform(options.seed, impulse_stream, i);
    if (impulse < options.impulse_fraction) {
      value = impulse < options.impulse_fraction / 2 ? salt : pepper;
    } else if (options.noise_sigma > 0) {
      // Box-Muller on two of the voxel's numbers.
      const double u1 = 1.0 - uniform(options.seed, gauss_stream, 2 * i);
      const double u2 = uniform(options.seed, gauss_stream, 2 * i + 1);
      value += options.noise_sigma * std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
    }
    result.image.values[i] = static_cast<std::uint16_t>(std::clamp(std::lround(value), 0L, 65535L));
  }
  return result;
}

double segmentation_scores::precision() const
{
  const std::uint64_t labelled = true_positive + false_positive;
  return labelled == 0 ? 1.0 : static_cast<double>(true_positive) / static_cast<double>(labelled);
}

double segmentation_scores::recall() const
{
  const std::uint64_t positive = true_positive + false_negative;
  return positive == 0 ? 1.0 : static_cast<double>(true_positive) / static_cast<double>(positive);
}

double segmentation_scores::accuracy() const
{
  const std::uint64_t all = true_positive + false_positive + true_negative + false_negative;
  return all == 0 ? 1.0 : static_cast<double>(true_positive + true_negative) / static_cast<double>(all);
}

segmentation_scores score_segmentation(const std::vector<std::uint8_t>& labels, const std::vector<std::uint8_t>& truth)
{
  WARPDEX_EXPECTS(labels.size() == truth.size(), "score_segmentation: " + std::to_string(labels.size()) +
                                                     " labels for a ground truth of " + std::to_string(truth.size()));
  segmentation_scores scores;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const bool labelled = labels[i] != 0;
    const bool positive = truth[i] != 0;
    if (labelled && positive) { ++scores.true_positive; }
    if (labelled && !positive) { ++scores.false_positive; }
    if (!labelled && positive) { ++scores.false_negative; }
    if (!labelled && !positive) { ++scores.true_negative; }
  }
  return scores;
}

}  // namespace warpdex::dpp
