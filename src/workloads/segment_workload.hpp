#pragma once
/// @file The segmentation workload shared by `warpdex segment`, the demo tour and the benchmarks: an image
/// or volume from a file or the synthetic porous generator, its oversegmentation (a region file, or SLIC
/// superpixels / supervoxels), `mrf_segment`, each stage timed, the result checked and scored against a
/// ground truth when there is one, and written.
///
/// ```
/// warpdex::dpp::segment_workload_options options;
/// options.generate = true;
/// options.dims = {.width = 256, .height = 256};
/// const auto report = warpdex::dpp::run_segment_workload(warpdex::backend_choice::host, options);
/// std::printf("%s\n", report.summary().c_str());  // regions, iterations, precision / recall / accuracy, times
/// ```
///
/// Files: images and volumes as `read_gray_volume` reads them (.png, .tif / .tiff (2D or a stack of
/// pages), else raw with `dims` and `bit_depth`). A region file: a PNG or TIFF (its values are the region
/// ids) or raw 32-bit little-endian ids of the image's dimensions. A ground truth: a PNG, TIFF or raw 8-bit
/// file of the image's dimensions, nonzero for the positive (brightest) label. The labels are written as a
/// PNG (2D only) or TIFF (2D, or a stack for a volume), labels spread over 0 .. 255 so they can be seen,
/// or raw (one byte a voxel, the label itself).

#include <warpdex/core/backend.hpp>
#include <warpdex/dpp/gray_volume.hpp>
#include <warpdex/dpp/mrf_segment.hpp>
#include <warpdex/dpp/porous_volume.hpp>
#include <warpdex/dpp/slic.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpdex::dpp {

struct segment_workload_options {
  std::string input;             ///< the image or volume file (ignored with `generate`)
  volume_dims dims{0, 0, 1};     ///< a raw input's dimensions, or the generated volume's
  std::uint32_t bit_depth = 16;  ///< a raw input's bits per voxel (8 or 16)
  bool generate = false;         ///< segment the synthetic porous volume of `dims` (its truth scores it)
  porous_volume_options generator{};
  std::string regions;  ///< an oversegmentation file; empty: SLIC
  std::string truth;    ///< a ground-truth file; empty: none (the generated volume brings its own)
  slic_options slic{};
  mrf_options mrf{};
  std::string output;        ///< where the labels go; empty: not written
  std::string image_output;  ///< where the (generated) input goes; empty: not written
  /// A 2D picture of input | labels | ground truth side by side, 8-bit PNG or TIFF by the extension (.png,
  /// .tif, .tiff; any other is refused before the run); empty: none.
  std::string panel_output;
  int repetitions = 1;  ///< timed runs of SLIC + mrf_segment; the median run is reported
  /// Check the labels (in range, mu ascending) and, on cuda, that inputs of at most
  /// `segment_cross_check_max_voxels` voxels give the same labels on the host backend.
  bool verify = true;
};

/// Inputs up to this many voxels are segmented on the host backend too when run on cuda, to compare.
inline constexpr std::uint64_t segment_cross_check_max_voxels = std::uint64_t{1} << 22;

struct segment_workload_report {
  std::string input;  ///< the file, or "porous:WxH[xD]" (seed)
  std::string backend;
  volume_dims dims;
  std::uint64_t superpixels = 0;  ///< regions of the oversegmentation (SLIC's non-empty superpixels)
  mrf_stats stats;
  std::vector<double> mu, sigma;
  double read_seconds = 0;  ///< reading or generating the input (host)
  double slic_seconds = 0;  ///< SLIC (0 with a region file)
  mrf_timings timings;      ///< the stages of mrf_segment
  double write_seconds = 0;
  bool has_truth = false;
  segmentation_scores scores;  ///< against the ground truth, label 1 .. being positive
  std::string check;           ///< what was checked, in words, or "not run"
  bool verified = false;

  /// SLIC and mrf_segment, the median run (the segmentation's time, without reading or writing).
  [[nodiscard]] double seconds() const { return slic_seconds + timings.total(); }
  [[nodiscard]] std::uint64_t voxels() const { return dims.voxels(); }
  /// A paragraph: sizes, regions and cliques, iterations, parameters, scores, per-stage times, the check.
  [[nodiscard]] std::string summary() const;
};

/// The workload on `backend` (a resolved choice). Throws `warpdex::error` on a bad file or option, and
/// when a check fails (a bug).
[[nodiscard]] segment_workload_report run_segment_workload(backend_choice backend,
                                                           const segment_workload_options& options);

}  // namespace warpdex::dpp
