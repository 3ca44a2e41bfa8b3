#pragma once
/// @file A synthetic two-phase porous-rock image or volume with its ground truth, modelled on the test data
/// of Lessley's Ch. VIII (a binary porous medium corrupted by salt-and-pepper and Gaussian noise of sigma
/// 100, with ringing artifacts), at any size, the same for the same seed on every machine.
///
/// ```
/// const auto rock = warpdex::dpp::generate_porous_volume({.width = 256, .height = 256}, {.seed = 7});
/// // rock.image: 256 x 256, 16-bit; rock.truth[i] == 1 where voxel i is solid, 0 in a pore
/// ```
///
/// **Model.** The pores are a union of balls (discs in 2D) whose centres and radii come from the seed,
/// placed until they cover `porosity` of the volume (the ground truth: 0 in a pore, 1 in the solid). The
/// image is the truth at two levels (`pore_level`, `solid_level`), low-pass filtered along each axis by a
/// windowed sinc (which both blurs the phase boundaries and rings beside them, as a band-limited
/// reconstruction does), plus Gaussian noise of `noise_sigma`, then with `impulse_fraction` of the
/// voxels replaced by impulses (salt: solid_level + 2 * contrast, pepper: pore_level - 2 * contrast),
/// clamped to the 16-bit range.
///
/// The thesis initializes its label means between 0 and 255, an 8-bit intensity scale on which a noise of
/// sigma 100 is heavy; the default levels are therefore 256 apart (the contrast of that scale) around
/// 1000, stored as 16-bit values so that neither noise nor impulses are clipped. A per-voxel threshold
/// labels about 90% of the voxels right at these defaults (the thesis's figure 11(d)). The pores' radii
/// (6 to 18 voxels by default) set how much of the volume lies at a phase boundary, where an
/// oversegmentation errs: the thesis's carbonate is very porous, with large pores; smaller pores lower
/// the accuracy a superpixel-based segmentation reaches (docs/dpp.md gives figures).
///
/// Work O(voxels * (filter taps + balls touching a voxel)): the balls are placed one after another, the
/// filter and the noise run in parallel (OpenMP). Every random number is a hash of (seed, voxel or ball
/// index), so the result depends on nothing but the dimensions and the options.

#include <warpdex/dpp/gray_volume.hpp>

#include <cstdint>
#include <vector>

namespace warpdex::dpp {

/// The generator's parameters (intensities in the 16-bit range).
struct porous_volume_options {
  std::uint64_t seed = 1;
  double porosity = 0.5;    ///< the fraction of pore voxels the balls are placed to reach, in (0, 1)
  double min_radius = 6.0;  ///< pore radii are uniform in [min_radius, max_radius] voxels
  double max_radius = 18.0;
  double pore_level = 872.0;       ///< the pores' intensity
  double solid_level = 1128.0;     ///< the solid's intensity
  double noise_sigma = 100.0;      ///< the Gaussian noise's standard deviation
  double impulse_fraction = 0.02;  ///< voxels replaced by salt or pepper, half each
  /// The ringing filter's period in voxels (its cut-off is 1 / ringing_period cycles a voxel); 0: no
  /// filter (sharp boundaries, no ringing). At least 2 otherwise.
  double ringing_period = 4.0;
};

/// A generated image or volume and its ground truth.
struct porous_volume {
  gray_volume image;                ///< 16-bit
  std::vector<std::uint8_t> truth;  ///< per voxel: 0 pore, 1 solid
  double porosity = 0;              ///< the truth's pore fraction
};

/// The synthetic porous volume of `dims` (depth 1: a 2D slice). `warpdex::error` on empty dimensions or
/// options out of range.
[[nodiscard]] porous_volume generate_porous_volume(volume_dims dims, const porous_volume_options& options = {});

/// How a segmentation compares with a ground truth, the solid (1) being the positive class.
struct segmentation_scores {
  std::uint64_t true_positive = 0, false_positive = 0, true_negative = 0, false_negative = 0;
  [[nodiscard]] double precision() const;  ///< TP / (TP + FP); 1 when nothing is labelled positive
  [[nodiscard]] double recall() const;     ///< TP / (TP + FN); 1 when nothing is positive in the truth
  [[nodiscard]] double accuracy() const;   ///< (TP + TN) / all
};

/// Scores `labels` against `truth` (each value 0 or nonzero, the same length; `warpdex::error` otherwise).
[[nodiscard]] segmentation_scores score_segmentation(const std::vector<std::uint8_t>& labels,
                                                     const std::vector<std::uint8_t>& truth);

}  // namespace warpdex::dpp
