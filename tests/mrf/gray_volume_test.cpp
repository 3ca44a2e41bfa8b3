// Raw and PNG gray images and volumes: round trips, and every malformed file rejected with a message.
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/gray_volume.hpp>

#include "support/expect_error.hpp"

#include <gtest/gtest.h>
#include <png.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace {

using warpdex::dpp::gray_volume;
using warpdex::dpp::volume_dims;
using warpdex::testing::expect_error_mentioning;

class gray_volume_files : public ::testing::Test {
 protected:
  void SetUp() override
  {
    directory_ = std::filesystem::temp_directory_path() /
                 ("warpdex_gray_volume_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  [[nodiscard]] std::filesystem::path file(const std::string& name) const { return directory_ / name; }

  std::filesystem::path directory_;
};

gray_volume random_volume(volume_dims dims, std::uint32_t bit_depth, std::uint32_t seed)
{
  gray_volume volume(dims, bit_depth);
  std::mt19937 random(seed);
  for (auto& value : volume.values) { value = static_cast<std::uint16_t>(random() & volume.max_value()); }
  return volume;
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes)
{
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string read_bytes(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(volume_dims_parse, accepts_images_and_volumes)
{
  EXPECT_EQ(warpdex::dpp::parse_volume_dims("4x3"), (volume_dims{4, 3, 1}));
  EXPECT_EQ(warpdex::dpp::parse_volume_dims("512x256x7"), (volume_dims{512, 256, 7}));
  EXPECT_EQ((volume_dims{4, 3, 1}).to_string(), "4x3");
  EXPECT_EQ((volume_dims{4, 3, 2}).to_string(), "4x3x2");
}

TEST(volume_dims_parse, rejects_malformed_text)
{
  for (const char* text : {"", "4", "4x", "x3", "0x3", "4x3x0", "4x3x2x1", "ax3", "4x-3", "4 x 3"}) {
    expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::parse_volume_dims(text); },
                                            {"dimensions '", "WIDTHxHEIGHT"});
  }
}

TEST(gray_volume_make, rejects_bad_depth_and_empty_dims)
{
  expect_error_mentioning<warpdex::error>([] { gray_volume({2, 2, 1}, 12); }, {"bit depth 12"});
  expect_error_mentioning<warpdex::error>([] { gray_volume({0, 2, 1}, 8); }, {"empty dimensions"});
  expect_error_mentioning<warpdex::error>([] { gray_volume({1ULL << 40, 1ULL << 30, 1}, 8); }, {"overflow"});
}

TEST_F(gray_volume_files, raw_round_trip_8_and_16_bit)
{
  for (const std::uint32_t bits : {8u, 16u}) {
    const auto volume = random_volume({5, 4, 3}, bits, bits);
    const auto path = file(std::to_string(bits) + "bit.raw");
    warpdex::dpp::write_raw_volume(path, volume);
    EXPECT_EQ(std::filesystem::file_size(path), 60u * bits / 8);
    const auto back = warpdex::dpp::read_raw_volume(path, {5, 4, 3}, bits);
    EXPECT_EQ(back.dims, volume.dims);
    EXPECT_EQ(back.bit_depth, bits);
    EXPECT_EQ(back.values, volume.values);
  }
}

TEST_F(gray_volume_files, raw_16_bit_is_little_endian)
{
  write_bytes(file("le.raw"), std::string("\x01\x02\x03\x04", 4));
  const auto volume = warpdex::dpp::read_raw_volume(file("le.raw"), {2, 1, 1}, 16);
  EXPECT_EQ(volume.values, (std::vector<std::uint16_t>{0x0201, 0x0403}));
}

TEST_F(gray_volume_files, raw_of_the_wrong_size_is_rejected)
{
  write_bytes(file("short.raw"), std::string(59, 'a'));
  expect_error_mentioning<warpdex::error>(
      [&] {
        (void)warpdex::dpp::read_raw_volume(file("short.raw"), {5, 4, 3}, 8);
      },
      {"short.raw holds 59 bytes", "5x4x3 voxels of 8 bits need 60"});
  expect_error_mentioning<warpdex::error>(
      [&] {
        (void)warpdex::dpp::read_raw_volume(file("short.raw"), {5, 4, 3}, 16);
      },
      {"need 120"});
  expect_error_mentioning<warpdex::error>(
      [&] {
        (void)warpdex::dpp::read_raw_volume(file("missing.raw"), {5, 4, 3}, 8);
      },
      {"cannot read raw volume"});
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_gray_volume(file("short.raw")); },
                                          {"give its dimensions"});
}

TEST_F(gray_volume_files, png_round_trip_8_and_16_bit)
{
  for (const std::uint32_t bits : {8u, 16u}) {
    const auto volume = random_volume({37, 11, 1}, bits, 100 + bits);
    const auto path = file(std::to_string(bits) + "bit.png");
    warpdex::dpp::write_gray_volume(path, volume);
    const auto back = warpdex::dpp::read_gray_volume(path);
    EXPECT_EQ(back.dims, volume.dims);
    EXPECT_EQ(back.bit_depth, bits);
    EXPECT_EQ(back.values, volume.values);
  }
}

TEST_F(gray_volume_files, png_of_a_volume_is_rejected)
{
  const auto volume = random_volume({3, 3, 2}, 8, 1);
  expect_error_mentioning<warpdex::error>([&] { warpdex::dpp::write_png(file("v.png"), volume); },
                                          {"a PNG holds a 2D image", "3x3x2"});
}

TEST_F(gray_volume_files, color_png_reads_as_gray)
{
  // An RGB PNG (libpng's simplified writer): gray pixels keep their value.
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = 3;
  image.height = 1;
  image.format = PNG_FORMAT_RGB;
  const png_byte pixels[9] = {90, 90, 90, 255, 0, 0, 0, 0, 255};
  ASSERT_NE(png_image_write_to_file(&image, file("rgb.png").c_str(), 0, pixels, 0, nullptr), 0);
  const auto gray = warpdex::dpp::read_png(file("rgb.png"));
  ASSERT_EQ(gray.dims, (volume_dims{3, 1, 1}));
  EXPECT_EQ(gray.bit_depth, 8u);
  EXPECT_NEAR(gray.values[0], 90, 1);
  // The weights apply to linear light (sRGB decoded, then encoded again): pure red is 0.2126 of white in
  // linear light, 126 once encoded; pure blue 0.0722, 76.
  EXPECT_NEAR(gray.values[1], 126, 2);
  EXPECT_NEAR(gray.values[2], 76, 2);
}

TEST_F(gray_volume_files, malformed_png_files_are_rejected)
{
  write_bytes(file("text.png"), "this is not an image\n");
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_png(file("text.png")); },
                                          {"text.png is not a PNG file"});
  write_bytes(file("tiny.png"), "\x89PN");
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_png(file("tiny.png")); }, {"not a PNG file"});
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_png(file("missing.png")); },
                                          {"cannot open PNG file"});

  const auto volume = random_volume({64, 64, 1}, 16, 5);
  warpdex::dpp::write_png(file("good.png"), volume);
  const std::string good = read_bytes(file("good.png"));
  // Cut at several places: inside the header, inside the image data, before the end chunk.
  for (const std::size_t keep : {std::size_t{12}, std::size_t{40}, good.size() / 2, good.size() - 13}) {
    write_bytes(file("cut.png"), good.substr(0, keep));
    expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_png(file("cut.png")); },
                                            {"cut.png is corrupt or truncated"});
  }
  // A flipped byte in the image data fails its chunk's CRC.
  std::string flipped = good;
  flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x5a);
  write_bytes(file("flipped.png"), flipped);
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_png(file("flipped.png")); },
                                          {"flipped.png is corrupt or truncated"});
  // A PNG read with given dimensions must have them.
  expect_error_mentioning<warpdex::error>(
      [&] {
        (void)warpdex::dpp::read_gray_volume(file("good.png"), {32, 64, 1}, 16);
      },
      {"is 64x64, not the given 32x64"});
}

}  // namespace
