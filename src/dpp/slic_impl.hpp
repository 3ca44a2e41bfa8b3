#pragma once
// SLIC superpixels (include/warpdex/dpp/slic.hpp), written once against Thrust execution policies;
// slic_host.cpp and slic_cuda.cu instantiate it, both without floating-point contraction so that the
// distances, and so the assignments, are the same on both backends (src/dpp/CMakeLists.txt).

#include <warpdex/core/detail/thrust_backend.hpp>
#include "dpp_common.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/dpp/slic.hpp>

#include <thrust/count.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpdex::dpp::detail {

using warpdex::detail::policy;
using warpdex::detail::policy_nosync;

/// Smoothed intensities are kept in fixed point with this many fraction bits: the centres' sums of them
/// are integers, exact in any order.
inline constexpr std::uint32_t slic_fraction_bits = 4;

struct slic_grid {
  std::uint64_t width, height, depth;
  std::uint64_t interval;  // S
  std::uint64_t cells_x, cells_y, cells_z;
};

struct slic_centre {
  double x, y, z, intensity;
};

/// Voxel i's box mean of radius `radius`, in fixed point.
struct box_mean {
  const std::uint16_t* values;
  slic_grid grid;
  std::int64_t radius;
  WARPDEX_HOST_DEVICE std::uint32_t operator()(std::uint64_t i) const
  {
    const auto x = static_cast<std::int64_t>(i % grid.width);
    const auto y = static_cast<std::int64_t>((i / grid.width) % grid.height);
    const auto z = static_cast<std::int64_t>(i / (grid.width * grid.height));
    const auto clamp_low = [](std::int64_t v) { return v < 0 ? std::int64_t{0} : v; };
    const auto clamp_high = [](std::int64_t v, std::uint64_t extent) {
      return v >= static_cast<std::int64_t>(extent) ? static_cast<std::int64_t>(extent) - 1 : v;
    };
    const std::int64_t z_radius = grid.depth > 1 ? radius : 0;
    std::uint64_t sum = 0;
    std::uint64_t count = 0;
    for (std::int64_t zz = clamp_low(z - z_radius); zz <= clamp_high(z + z_radius, grid.depth); ++zz) {
      for (std::int64_t yy = clamp_low(y - radius); yy <= clamp_high(y + radius, grid.height); ++yy) {
        const std::uint64_t row =
            grid.width * (static_cast<std::uint64_t>(yy) + grid.height * static_cast<std::uint64_t>(zz));
        for (std::int64_t xx = clamp_low(x - radius); xx <= clamp_high(x + radius, grid.width); ++xx) {
          sum += values[row + static_cast<std::uint64_t>(xx)];
          ++count;
        }
      }
    }
    return static_cast<std::uint32_t>(((sum << slic_fraction_bits) + count / 2) / count);
  }
};

/// Centre k's start: the middle of its grid cell.
struct initial_centre {
  const std::uint32_t* smoothed;
  slic_grid grid;
  WARPDEX_HOST_DEVICE slic_centre operator()(std::uint64_t k) const
  {
    const std::uint64_t cx = k % grid.cells_x;
    const std::uint64_t cy = (k / grid.cells_x) % grid.cells_y;
    const std::uint64_t cz = k / (grid.cells_x * grid.cells_y);
    const auto middle = [&](std::uint64_t cell, std::uint64_t extent) {
      const std::uint64_t at = cell * grid.interval + grid.interval / 2;
      return at < extent ? at : extent - 1;
    };
    const std::uint64_t x = middle(cx, grid.width);
    const std::uint64_t y = middle(cy, grid.height);
    const std::uint64_t z = middle(cz, grid.depth);
    return {static_cast<double>(x), static_cast<double>(y), static_cast<double>(z),
            static_cast<double>(smoothed[x + grid.width * (y + grid.height * z)])};
  }
};

/// The range of cells next to `cell` (itself included) along an axis of `cells` cells.
WARPDEX_HOST_DEVICE inline void neighbour_cells(std::uint64_t cell, std::uint64_t cells, std::uint64_t& first,
                                                std::uint64_t& last)
{
  first = cell == 0 ? 0 : cell - 1;
  last = cell + 1 < cells ? cell + 1 : cells - 1;
}

/// Voxel i's nearest centre among those of its own and the neighbouring grid cells.
struct assign_voxel {
  const std::uint32_t* smoothed;
  const slic_centre* centres;
  slic_grid grid;
  double intensity_weight;  // 1 / intensity_scale^2 (fixed-point units)
  double spatial_weight;    // (compactness / S)^2
  WARPDEX_HOST_DEVICE std::uint32_t operator()(std::uint64_t i) const
  {
    const std::uint64_t x = i % grid.width;
    const std::uint64_t y = (i / grid.width) % grid.height;
    const std::uint64_t z = i / (grid.width * grid.height);
    const double intensity = static_cast<double>(smoothed[i]);
    std::uint64_t x0, x1, y0, y1, z0, z1;
    neighbour_cells(x / grid.interval, grid.cells_x, x0, x1);
    neighbour_cells(y / grid.interval, grid.cells_y, y0, y1);
    neighbour_cells(z / grid.interval, grid.cells_z, z0, z1);
    std::uint64_t best = 0;
    double best_distance = 0;
    bool found = false;
    for (std::uint64_t cz = z0; cz <= z1; ++cz) {
      for (std::uint64_t cy = y0; cy <= y1; ++cy) {
        for (std::uint64_t cx = x0; cx <= x1; ++cx) {
          const std::uint64_t k = cx + grid.cells_x * (cy + grid.cells_y * cz);
          const slic_centre c = centres[k];
          const double dx = static_cast<double>(x) - c.x;
          const double dy = static_cast<double>(y) - c.y;
          const double dz = static_cast<double>(z) - c.z;
          const double di = intensity - c.intensity;
          const double distance = di * di * intensity_weight + (dx * dx + dy * dy + dz * dz) * spatial_weight;
          if (!found || distance < best_distance) { best = k, best_distance = distance, found = true; }
        }
      }
    }
    return static_cast<std::uint32_t>(best);
  }
};

/// Centre k's new place: the mean of the voxels assigned to it (all within the cells around its own).
struct update_centre {
  const std::uint32_t* labels;
  const std::uint32_t* smoothed;
  const slic_centre* centres;
  slic_centre* next;
  std::uint64_t* counts;
  slic_grid grid;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t k) const
  {
    const std::uint64_t cx = k % grid.cells_x;
    const std::uint64_t cy = (k / grid.cells_x) % grid.cells_y;
    const std::uint64_t cz = k / (grid.cells_x * grid.cells_y);
    std::uint64_t x0, x1, y0, y1, z0, z1;
    neighbour_cells(cx, grid.cells_x, x0, x1);
    neighbour_cells(cy, grid.cells_y, y0, y1);
    neighbour_cells(cz, grid.cells_z, z0, z1);
    const auto end = [&](std::uint64_t last_cell, std::uint64_t extent) {
      const std::uint64_t at = (last_cell + 1) * grid.interval;
      return at < extent ? at : extent;
    };
    std::uint64_t sx = 0, sy = 0, sz = 0, si = 0, count = 0;
    for (std::uint64_t z = z0 * grid.interval; z < end(z1, grid.depth); ++z) {
      for (std::uint64_t y = y0 * grid.interval; y < end(y1, grid.height); ++y) {
        const std::uint64_t row = grid.width * (y + grid.height * z);
        for (std::uint64_t x = x0 * grid.interval; x < end(x1, grid.width); ++x) {
          if (labels[row + x] != k) { continue; }
          sx += x, sy += y, sz += z, si += smoothed[row + x];
          ++count;
        }
      }
    }
    counts[k] = count;
    if (count == 0) {
      next[k] = centres[k];
      return;
    }
    const double n = static_cast<double>(count);
    next[k] = {static_cast<double>(sx) / n, static_cast<double>(sy) / n, static_cast<double>(sz) / n,
               static_cast<double>(si) / n};
  }
};

struct is_positive {
  WARPDEX_HOST_DEVICE bool operator()(std::uint64_t count) const { return count != 0; }
};

template <class Backend>
slic_result slic(const Backend& backend, const gray_volume& image, const slic_options& options)
{
  const auto exec = policy(backend);
  const auto quiet = policy_nosync(backend);
  const thrust::counting_iterator<std::uint64_t> first(0);
  const std::uint64_t n = image.values.size();
  const std::uint64_t s = options.region_size;
  const auto cells = [&](std::uint64_t extent) { return (extent + s - 1) / s; };
  const slic_grid grid{image.dims.width,        image.dims.height,        image.dims.depth,       s,
                       cells(image.dims.width), cells(image.dims.height), cells(image.dims.depth)};
  slic_result result;
  result.centres = grid.cells_x * grid.cells_y * grid.cells_z;
  WARPDEX_EXPECTS(result.centres < (std::uint64_t{1} << 32),
                  "dpp::slic_superpixels: " + std::to_string(result.centres) +
                      " centres; at most 2^32 - 1 supported "
                      "(raise region_size)");

  auto values = make_buffer<std::uint16_t>(backend, n);
  values.copy_from(std::span<const std::uint16_t>(image.values));
  auto smoothed = make_buffer<std::uint32_t>(backend, n);
  thrust::transform(quiet, first, first + n, smoothed.data(),
                    box_mean{values.data(), grid, static_cast<std::int64_t>(options.smoothing)});
  values = buffer<std::uint16_t>();
  const std::uint32_t low =
      thrust::reduce(exec, smoothed.data(), smoothed.data() + n, ~std::uint32_t{0}, thrust::minimum<std::uint32_t>{});
  const std::uint32_t high =
      thrust::reduce(exec, smoothed.data(), smoothed.data() + n, std::uint32_t{0}, thrust::maximum<std::uint32_t>{});
  // SLIC's compactness is tuned for Lab colours, whose values span about 100.
  const double intensity_scale = high > low ? static_cast<double>(high - low) / 100.0 : 1.0;
  const double spatial_scale = options.compactness / static_cast<double>(s);

  auto centres = make_buffer<slic_centre>(backend, result.centres);
  auto next = make_buffer<slic_centre>(backend, result.centres);
  auto counts = make_buffer<std::uint64_t>(backend, result.centres);
  thrust::transform(quiet, first, first + result.centres, centres.data(), initial_centre{smoothed.data(), grid});
  auto labels = make_buffer<std::uint32_t>(backend, n);
  for (std::uint32_t round = 0;; ++round) {
    thrust::transform(quiet, first, first + n, labels.data(),
                      assign_voxel{smoothed.data(), centres.data(), grid, 1.0 / (intensity_scale * intensity_scale),
                                   spatial_scale * spatial_scale});
    thrust::for_each(quiet, first, first + result.centres,
                     update_centre{labels.data(), smoothed.data(), centres.data(), next.data(), counts.data(), grid});
    if (round + 1 == options.iterations) { break; }
    std::swap(centres, next);
  }
  result.superpixels =
      static_cast<std::uint64_t>(thrust::count_if(exec, counts.data(), counts.data() + result.centres, is_positive{}));
  result.labels = labels.to_vector();
  return result;
}

}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {

template <class Backend>
slic_result slic_superpixels(const Backend& backend, const gray_volume& image, const slic_options& options)
{
  WARPDEX_EXPECTS(image.values.size() == image.dims.voxels() && !image.values.empty(),
                  "dpp::slic_superpixels: the image holds " + std::to_string(image.values.size()) +
                      " values for dimensions " + image.dims.to_string());
  WARPDEX_EXPECTS(options.region_size >= 2,
                  "dpp::slic_superpixels: region_size " + std::to_string(options.region_size) + " (at least 2 voxels)");
  WARPDEX_EXPECTS(options.compactness > 0, "dpp::slic_superpixels: compactness must be positive");
  WARPDEX_EXPECTS(options.iterations >= 1, "dpp::slic_superpixels: iterations must be at least 1");
  return detail::reporting_allocation_failure("slic_superpixels",
                                              [&] { return detail::slic(backend, image, options); });
}

}  // namespace warpdex::dpp

#define WARPDEX_INSTANTIATE_SLIC(Backend) \
  template slic_result slic_superpixels<Backend>(const Backend&, const gray_volume&, const slic_options&);
