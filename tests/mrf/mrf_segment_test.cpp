// dpp::mrf_segment on every backend: known answers on block images, order independence, the cuda result
// equal to the host's, and bad inputs.
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/mrf_segment.hpp>
#include <warpdex/dpp/porous_volume.hpp>

#include "support/backend_fixture.hpp"
#include "support/expect_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace {

using warpdex::dpp::gray_volume;
using warpdex::dpp::mrf_options;
using warpdex::dpp::volume_dims;
using warpdex::testing::all_backends;
using warpdex::testing::backend_names;
using warpdex::testing::backend_test;
using warpdex::testing::expect_error_mentioning;

/// An image of blocks of `block` voxels a side, each at one of `levels` (chosen at random: the truth),
/// plus Gaussian noise; the regions are blocks of `region_block` voxels a side (dividing `block`).
struct block_image {
  gray_volume image;
  std::vector<std::uint8_t> truth;
  std::vector<std::uint32_t> regions;
};

block_image make_block_image(volume_dims dims, std::uint64_t block, std::uint64_t region_block,
                             const std::vector<double>& levels, double sigma, std::uint32_t seed)
{
  block_image result;
  result.image = gray_volume(dims, 16);
  result.truth.resize(dims.voxels());
  result.regions.resize(dims.voxels());
  std::mt19937 random(seed);
  std::normal_distribution<double> noise(0, sigma);
  const std::uint64_t blocks_x = (dims.width + block - 1) / block;
  const std::uint64_t blocks_y = (dims.height + block - 1) / block;
  const std::uint64_t blocks_z = (dims.depth + block - 1) / block;
  std::vector<std::uint8_t> block_label(blocks_x * blocks_y * blocks_z);
  for (auto& label : block_label) { label = static_cast<std::uint8_t>(random() % levels.size()); }
  const std::uint64_t regions_x = (dims.width + region_block - 1) / region_block;
  const std::uint64_t regions_y = (dims.height + region_block - 1) / region_block;
  for (std::uint64_t z = 0; z < dims.depth; ++z) {
    for (std::uint64_t y = 0; y < dims.height; ++y) {
      for (std::uint64_t x = 0; x < dims.width; ++x) {
        const std::uint64_t i = x + dims.width * (y + dims.height * z);
        const std::uint8_t label = block_label[x / block + blocks_x * (y / block + blocks_y * (z / block))];
        result.truth[i] = label;
        result.image.values[i] =
            static_cast<std::uint16_t>(std::clamp(std::lround(levels[label] + noise(random)), 0L, 65535L));
        result.regions[i] = static_cast<std::uint32_t>(x / region_block +
                                                       regions_x * (y / region_block + regions_y * (z / region_block)));
      }
    }
  }
  return result;
}

double agreement(const std::vector<std::uint8_t>& labels, const std::vector<std::uint8_t>& truth)
{
  std::uint64_t same = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) { same += labels[i] == truth[i]; }
  return static_cast<double>(same) / static_cast<double>(labels.size());
}

template <class Backend>
class mrf_segment_test : public backend_test<Backend> {
};
TYPED_TEST_SUITE(mrf_segment_test, all_backends, backend_names);

TYPED_TEST(mrf_segment_test, block_regions_are_labelled_exactly_in_2d_and_3d)
{
  for (const volume_dims dims : {volume_dims{96, 64, 1}, volume_dims{24, 20, 16}}) {
    const auto blocks = make_block_image(dims, 4, 4, {872, 1128}, 100, 7);
    const auto result = warpdex::dpp::mrf_segment(this->backend(), blocks.image, blocks.regions);
    ASSERT_EQ(result.labels.size(), dims.voxels());
    EXPECT_EQ(result.labels, blocks.truth) << dims.to_string();
    ASSERT_EQ(result.mu.size(), 2u);
    // Region means of 16 (2D) or 64 voxels: sigma 100 / 4 or / 8.
    EXPECT_NEAR(result.mu[0], 872, 15);
    EXPECT_NEAR(result.mu[1], 1128, 15);
    EXPECT_GT(result.sigma[0], 5);
    EXPECT_LT(result.sigma[0], 45);
    EXPECT_EQ(result.stats.regions, dims.is_2d() ? 24u * 16 : 6u * 5 * 4);
    EXPECT_GE(result.stats.cliques, 1u);
    EXPECT_GE(result.stats.em_iterations, 1u);
  }
}

TYPED_TEST(mrf_segment_test, smoothness_outvotes_noisy_small_regions)
{
  // Regions of 2 x 2 in truth blocks of 8 x 8 under noise 250: a region mean (sigma 125) often lands on
  // the wrong side; its neighbours, mostly of its block, pull it back.
  const auto blocks = make_block_image({128, 128, 1}, 8, 2, {872, 1128}, 250, 3);
  const auto smooth = warpdex::dpp::mrf_segment(this->backend(), blocks.image, blocks.regions, {.smoothness = 1.0});
  const auto data_only = warpdex::dpp::mrf_segment(this->backend(), blocks.image, blocks.regions, {.smoothness = 0});
  const double smooth_accuracy = agreement(smooth.labels, blocks.truth);
  const double data_accuracy = agreement(data_only.labels, blocks.truth);
  EXPECT_LT(data_accuracy, 0.9);
  EXPECT_GT(smooth_accuracy, data_accuracy + 0.05);
}

TYPED_TEST(mrf_segment_test, three_labels_by_ascending_mean)
{
  const auto blocks = make_block_image({64, 64, 1}, 8, 4, {3000, 500, 1800}, 100, 5);
  const auto result = warpdex::dpp::mrf_segment(this->backend(), blocks.image, blocks.regions, {.label_count = 3});
  // Labels are numbered by ascending mu: truth 1 (500) -> 0, 2 (1800) -> 1, 0 (3000) -> 2.
  const std::uint8_t rank[3] = {2, 0, 1};
  std::vector<std::uint8_t> expected(blocks.truth.size());
  std::transform(blocks.truth.begin(), blocks.truth.end(), expected.begin(), [&](std::uint8_t t) { return rank[t]; });
  EXPECT_EQ(result.labels, expected);
  ASSERT_EQ(result.mu.size(), 3u);
  EXPECT_NEAR(result.mu[0], 500, 20);
  EXPECT_NEAR(result.mu[1], 1800, 20);
  EXPECT_NEAR(result.mu[2], 3000, 20);
}

TYPED_TEST(mrf_segment_test, region_ids_are_only_names)
{
  // The same regions under scrambled 32-bit ids give the same labels.
  const auto blocks = make_block_image({64, 48, 1}, 4, 2, {872, 1128}, 200, 11);
  std::vector<std::uint32_t> names(blocks.regions.size());
  std::mt19937 random(4);
  std::vector<std::uint32_t> rename(*std::max_element(blocks.regions.begin(), blocks.regions.end()) + 1);
  for (auto& name : rename) { name = static_cast<std::uint32_t>(random()); }
  std::sort(rename.begin(), rename.end());
  rename.erase(std::unique(rename.begin(), rename.end()), rename.end());
  ASSERT_EQ(rename.size(), 32u * 24);  // distinct
  std::shuffle(rename.begin(), rename.end(), random);
  std::transform(blocks.regions.begin(), blocks.regions.end(), names.begin(),
                 [&](std::uint32_t r) { return rename[r]; });
  const auto plain = warpdex::dpp::mrf_segment(this->backend(), blocks.image, blocks.regions);
  const auto renamed = warpdex::dpp::mrf_segment(this->backend(), blocks.image, names);
  EXPECT_EQ(plain.labels, renamed.labels);
  EXPECT_EQ(plain.mu, renamed.mu);
  EXPECT_EQ(plain.stats.map_iterations, renamed.stats.map_iterations);
}

TYPED_TEST(mrf_segment_test, degenerate_images)
{
  // One region: one vertex, one clique of one vertex.
  gray_volume flat({5, 4, 1}, 8);
  std::fill(flat.values.begin(), flat.values.end(), 9);
  const std::vector<std::uint32_t> one(20, 3);
  const auto single = warpdex::dpp::mrf_segment(this->backend(), flat, one);
  EXPECT_EQ(single.labels, std::vector<std::uint8_t>(20, 0));
  EXPECT_EQ(single.stats.regions, 1u);
  EXPECT_EQ(single.stats.cliques, 1u);
  // One voxel per region, a 1 x n line: a path graph.
  gray_volume line({8, 1, 1}, 8);
  for (std::uint16_t x = 0; x < 8; ++x) { line.values[x] = x < 4 ? 10 : 200; }
  std::vector<std::uint32_t> own(8);
  std::iota(own.begin(), own.end(), 0u);
  const auto path = warpdex::dpp::mrf_segment(this->backend(), line, own);
  EXPECT_EQ(path.labels, (std::vector<std::uint8_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(path.stats.region_edges, 7u);
  EXPECT_EQ(path.stats.cliques, 7u);
}

TYPED_TEST(mrf_segment_test, rejects_bad_inputs)
{
  gray_volume image({4, 4, 1}, 8);
  const std::vector<std::uint32_t> regions(16, 0);
  const auto& backend = this->backend();
  expect_error_mentioning<warpdex::error>(
      [&] { (void)warpdex::dpp::mrf_segment(backend, image, std::span(regions).first(15)); },
      {"15 region ids for 16 voxels"});
  expect_error_mentioning<warpdex::error>(
      [&] { (void)warpdex::dpp::mrf_segment(backend, image, regions, {.label_count = 1}); }, {"label_count 1"});
  expect_error_mentioning<warpdex::error>(
      [&] { (void)warpdex::dpp::mrf_segment(backend, image, regions, {.label_count = 9}); }, {"label_count 9"});
  expect_error_mentioning<warpdex::error>(
      [&] { (void)warpdex::dpp::mrf_segment(backend, image, regions, {.em_iterations = 0}); }, {"at least 1"});
  expect_error_mentioning<warpdex::error>(
      [&] { (void)warpdex::dpp::mrf_segment(backend, image, regions, {.smoothness = -1}); }, {"must not be negative"});
  gray_volume broken = image;
  broken.values.pop_back();
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::mrf_segment(backend, broken, regions); },
                                          {"the image holds 15 values for dimensions 4x4"});
}

TYPED_TEST(mrf_segment_test, equals_the_host_backend)
{
  // Fixed seeds plus a fresh one (printed), 2D and 3D, noisy enough that MAP and EM take several rounds.
  const std::uint32_t fresh = std::random_device{}();
  for (const std::uint32_t seed : {1u, 2u, fresh}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    for (const volume_dims dims : {volume_dims{80, 72, 1}, volume_dims{20, 18, 12}}) {
      const auto blocks = make_block_image(dims, 6, 2, {872, 1128}, 220, seed);
      const mrf_options options{.label_count = 2 + seed % 2};
      const auto here = warpdex::dpp::mrf_segment(this->backend(), blocks.image, blocks.regions, options);
      const auto host = warpdex::dpp::mrf_segment(warpdex::host{}, blocks.image, blocks.regions, options);
      EXPECT_EQ(here.labels, host.labels);
      EXPECT_EQ(here.mu, host.mu);
      EXPECT_EQ(here.sigma, host.sigma);
      EXPECT_EQ(here.stats.map_iterations, host.stats.map_iterations);
      EXPECT_EQ(here.stats.energy, host.stats.energy);
    }
  }
}

}  // namespace
