#pragma once
/// @file SLIC superpixels (2D) and supervoxels (3D) of a gray image or volume, on either backend with the
/// same result: the oversegmentation `mrf_segment` labels when none is given (docs/dpp.md, "MRF image
/// segmentation").
///
/// ```
/// const auto rock = warpdex::dpp::generate_porous_volume({.width = 256, .height = 256}, {.seed = 7});
/// const auto superpixels = warpdex::dpp::slic_superpixels(warpdex::host{}, rock.image, {.region_size = 6});
/// // superpixels.labels: a superpixel id per pixel; superpixels.superpixels <= 43 * 43 grid cells
/// ```
///
/// **Method** (Achanta et al.'s SLIC, on gray values). The image is first smoothed by a box mean of
/// radius `smoothing` (noise would otherwise decide the boundaries). Centres start at the middles of a grid
/// of cells `region_size` voxels a side. Each iteration:
///  1. *Assign* (a Map over voxels): a voxel takes the centre, among those of its own grid cell and the
///     cells next to it (3 x 3, or 3 x 3 x 3), of least distance
///     D^2 = (intensity difference / intensity_scale)^2 + (compactness * spatial distance / region_size)^2,
///     intensity_scale being the image's value range / 100 (the scale of the Lab colours SLIC was made
///     for); ties go to the lower centre.
///  2. *Update* (a Map over centres): a centre moves to the mean position and smoothed intensity of the
///     voxels assigned to it, gathered from the 3 x 3 (x 3) cells around its own; a centre that lost all
///     its voxels stays.
/// Intensities are kept in fixed point and the centres' sums are integers, so both backends assign alike.
/// Superpixels are not made connected afterwards (a superpixel may come in pieces; `mrf_segment` takes a
/// region as its voxels, connected or not).
///
/// Work O(iterations * 3^d * voxels); memory 12 bytes a voxel and 40 bytes a centre.

#include <warpdex/core/backend.hpp>
#include <warpdex/dpp/gray_volume.hpp>

#include <cstdint>
#include <vector>

namespace warpdex::dpp {

struct slic_options {
  std::uint64_t region_size = 4;  ///< S: the grid interval, in voxels (>= 2)
  /// m: weight of the spatial distance against the intensity's (> 0); SLIC's usual 10 gives slightly
  /// less accurate segmentations of the synthetic porous volume than 5.
  double compactness = 5;
  std::uint32_t iterations = 10;  ///< assign-update rounds (>= 1)
  std::uint32_t smoothing = 1;    ///< radius of the box mean applied first (0: none)
};

/// Superpixels of an image or volume.
struct slic_result {
  std::vector<std::uint32_t> labels;  ///< per voxel: its centre's index (grid cell order); some may be unused
  std::uint64_t centres = 0;          ///< grid cells (an upper bound of the superpixels)
  std::uint64_t superpixels = 0;      ///< centres holding at least one voxel
};

/// The SLIC superpixels of `image` (host memory) computed on `backend`; the result is in host memory.
/// `warpdex::error` on an empty image or options out of range.
template <class Backend>
[[nodiscard]] slic_result slic_superpixels(const Backend& backend, const gray_volume& image,
                                           const slic_options& options = {});

}  // namespace warpdex::dpp
