// The synthetic porous volume: deterministic, the asked porosity, noisy enough that a threshold errs.
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/porous_volume.hpp>

#include "support/expect_error.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace {

using warpdex::dpp::generate_porous_volume;
using warpdex::dpp::porous_volume_options;
using warpdex::dpp::volume_dims;
using warpdex::testing::expect_error_mentioning;

TEST(porous_volume, same_seed_same_volume_other_seed_other)
{
  const auto a = generate_porous_volume({48, 40, 6}, {.seed = 3});
  const auto b = generate_porous_volume({48, 40, 6}, {.seed = 3});
  const auto c = generate_porous_volume({48, 40, 6}, {.seed = 4});
  EXPECT_EQ(a.image.values, b.image.values);
  EXPECT_EQ(a.truth, b.truth);
  EXPECT_NE(a.truth, c.truth);
  EXPECT_NE(a.image.values, c.image.values);
}

TEST(porous_volume, reaches_the_porosity_in_2d_and_3d)
{
  for (const volume_dims dims : {volume_dims{200, 150, 1}, volume_dims{40, 30, 20}}) {
    for (const double porosity : {0.3, 0.5, 0.7}) {
      const auto rock = generate_porous_volume(dims, {.seed = 11, .porosity = porosity});
      ASSERT_EQ(rock.truth.size(), dims.voxels());
      ASSERT_EQ(rock.image.dims, dims);
      const auto solid = std::accumulate(rock.truth.begin(), rock.truth.end(), std::uint64_t{0});
      const double pores = 1.0 - static_cast<double>(solid) / static_cast<double>(dims.voxels());
      EXPECT_NEAR(pores, porosity, 1.0 / static_cast<double>(dims.voxels()) + 1e-12);
      EXPECT_DOUBLE_EQ(rock.porosity, pores);
    }
  }
}

TEST(porous_volume, noise_has_the_asked_levels_and_a_threshold_errs)
{
  const porous_volume_options options{.seed = 5};
  const auto rock = generate_porous_volume({256, 256, 1}, options);
  double sums[2] = {0, 0};
  double counts[2] = {0, 0};
  std::uint64_t threshold_right = 0;
  const double middle = (options.pore_level + options.solid_level) / 2;
  for (std::size_t i = 0; i < rock.truth.size(); ++i) {
    sums[rock.truth[i]] += rock.image.values[i];
    counts[rock.truth[i]] += 1;
    threshold_right += (rock.image.values[i] > middle) == (rock.truth[i] == 1);
  }
  // Blur, ringing and symmetric impulses move each phase's mean a little towards the other.
  EXPECT_NEAR(sums[0] / counts[0], options.pore_level, 40);
  EXPECT_NEAR(sums[1] / counts[1], options.solid_level, 40);
  const double accuracy = static_cast<double>(threshold_right) / static_cast<double>(rock.truth.size());
  EXPECT_GT(accuracy, 0.8);
  EXPECT_LT(accuracy, 0.93);
}

TEST(porous_volume, clean_volume_is_the_truth_at_two_levels)
{
  const auto rock =
      generate_porous_volume({30, 20, 4}, {.seed = 2, .noise_sigma = 0, .impulse_fraction = 0, .ringing_period = 0});
  for (std::size_t i = 0; i < rock.truth.size(); ++i) {
    ASSERT_EQ(rock.image.values[i], rock.truth[i] != 0 ? 1128 : 872) << i;
  }
}

TEST(porous_volume, rejects_options_out_of_range)
{
  expect_error_mentioning<warpdex::error>(
      [] {
        (void)generate_porous_volume({8, 8, 1}, {.porosity = 1.0});
      },
      {"porosity"});
  expect_error_mentioning<warpdex::error>(
      [] {
        (void)generate_porous_volume({8, 8, 1}, {.min_radius = 4, .max_radius = 2});
      },
      {"pore radii"});
  expect_error_mentioning<warpdex::error>(
      [] {
        (void)generate_porous_volume({8, 8, 1}, {.ringing_period = 1});
      },
      {"ringing_period"});
  expect_error_mentioning<warpdex::error>([] { (void)generate_porous_volume({0, 8, 1}); }, {"empty dimensions"});
}

TEST(segmentation_scores, counts_the_four_cases)
{
  const auto scores = warpdex::dpp::score_segmentation({1, 1, 0, 0, 1, 0}, {1, 0, 0, 1, 1, 0});
  EXPECT_EQ(scores.true_positive, 2u);
  EXPECT_EQ(scores.false_positive, 1u);
  EXPECT_EQ(scores.true_negative, 2u);
  EXPECT_EQ(scores.false_negative, 1u);
  EXPECT_DOUBLE_EQ(scores.precision(), 2.0 / 3);
  EXPECT_DOUBLE_EQ(scores.recall(), 2.0 / 3);
  EXPECT_DOUBLE_EQ(scores.accuracy(), 4.0 / 6);
  expect_error_mentioning<warpdex::error>(
      [] {
        (void)warpdex::dpp::score_segmentation({1}, {1, 0});
      },
      {"1 labels for a ground truth of 2"});
}

}  // namespace
