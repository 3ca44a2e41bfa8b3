// Raw, PNG and TIFF gray images and volumes: round trips, and every malformed file rejected with a message.
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/gray_volume.hpp>

#include "support/expect_error.hpp"

#include <gtest/gtest.h>
#include <png.h>
#include <tiffio.h>

#include <filesystem>
#include <fstream>
#include <functional>
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

TEST_F(gray_volume_files, tiff_round_trip_8_and_16_bit)
{
  for (const std::uint32_t bits : {8u, 16u}) {
    const auto volume = random_volume({37, 11, 1}, bits, 200 + bits);
    for (const char* extension : {".tif", ".TIFF"}) {
      const auto path = file(std::to_string(bits) + "bit" + extension);
      warpdex::dpp::write_gray_volume(path, volume);
      const auto back = warpdex::dpp::read_gray_volume(path);
      EXPECT_EQ(back.dims, volume.dims) << path;
      EXPECT_EQ(back.bit_depth, bits) << path;
      EXPECT_EQ(back.values, volume.values) << path;
    }
  }
}

TEST_F(gray_volume_files, tiff_stack_round_trip)
{
  for (const std::uint32_t bits : {8u, 16u}) {
    const auto volume = random_volume({13, 7, 5}, bits, 300 + bits);
    const auto path = file("stack" + std::to_string(bits) + ".tif");
    warpdex::dpp::write_gray_volume(path, volume);
    const auto back = warpdex::dpp::read_tiff(path);
    EXPECT_EQ(back.dims, (volume_dims{13, 7, 5}));
    EXPECT_EQ(back.bit_depth, bits);
    EXPECT_EQ(back.values, volume.values);
  }
}

/// Writes a TIFF with libtiff itself: `pages` pages, each set up by `tags(tiff, page)` and filled with
/// `fill(tiff, page)` (which returns false on a libtiff failure).
void write_tiff_with(const std::filesystem::path& path, const char* mode, int pages,
                     const std::function<void(TIFF*, int)>& tags, const std::function<bool(TIFF*, int)>& fill)
{
  TIFF* tiff = TIFFOpen(path.c_str(), mode);
  ASSERT_NE(tiff, nullptr);
  for (int page = 0; page < pages; ++page) {
    tags(tiff, page);
    ASSERT_TRUE(fill(tiff, page));
    ASSERT_EQ(TIFFWriteDirectory(tiff), 1);
  }
  TIFFClose(tiff);
}

void set_basic_tags(TIFF* tiff, std::uint32_t width, std::uint32_t height, std::uint16_t bits, std::uint16_t samples,
                    std::uint16_t photometric, std::uint16_t sample_format = SAMPLEFORMAT_UINT)
{
  TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, width);
  TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, height);
  TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, samples);
  TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, photometric);
  TIFFSetField(tiff, TIFFTAG_SAMPLEFORMAT, sample_format);
  TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
}

/// Writes `bytes` (rows of the page, interleaved) as scanlines.
bool write_rows(TIFF* tiff, std::vector<std::uint8_t> bytes, std::uint32_t height)
{
  const std::size_t row_bytes = bytes.size() / height;
  for (std::uint32_t y = 0; y < height; ++y) {
    if (TIFFWriteScanline(tiff, bytes.data() + y * row_bytes, y, 0) != 1) { return false; }
  }
  return true;
}

TEST_F(gray_volume_files, tiff_tiled_lzw_big_endian_reads)
{
  // 40 x 20 in 16 x 16 tiles (the right and bottom tiles partly outside the image), LZW, big-endian.
  const auto volume = random_volume({40, 20, 2}, 16, 7);
  write_tiff_with(
      file("tiled.tif"), "wb", 2,
      [](TIFF* tiff, int) {
        set_basic_tags(tiff, 40, 20, 16, 1, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(tiff, TIFFTAG_TILEWIDTH, 16);
        TIFFSetField(tiff, TIFFTAG_TILELENGTH, 16);
        TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
      },
      [&](TIFF* tiff, int page) {
        std::vector<std::uint16_t> tile(16 * 16);
        for (std::uint32_t y0 = 0; y0 < 20; y0 += 16) {
          for (std::uint32_t x0 = 0; x0 < 40; x0 += 16) {
            for (std::uint32_t y = 0; y < 16; ++y) {
              for (std::uint32_t x = 0; x < 16; ++x) {
                tile[y * 16 + x] = x0 + x < 40 && y0 + y < 20 ? volume.at(x0 + x, y0 + y, page) : 0;
              }
            }
            if (TIFFWriteTile(tiff, tile.data(), x0, y0, 0, 0) < 0) { return false; }
          }
        }
        return true;
      });
  const auto back = warpdex::dpp::read_tiff(file("tiled.tif"));
  EXPECT_EQ(back.dims, volume.dims);
  EXPECT_EQ(back.bit_depth, 16u);
  EXPECT_EQ(back.values, volume.values);
}

TEST_F(gray_volume_files, color_and_min_is_white_tiff_read_as_gray)
{
  // RGBA: gray pixels keep their value, alpha is dropped, red and blue as read_png gives them.
  write_tiff_with(
      file("rgba.tif"), "w", 1,
      [](TIFF* tiff, int) {
        set_basic_tags(tiff, 3, 1, 8, 4, PHOTOMETRIC_RGB);
        const std::uint16_t extra[] = {EXTRASAMPLE_UNASSALPHA};
        TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, 1, extra);
      },
      [](TIFF* tiff, int) {
        return write_rows(tiff, {90, 90, 90, 7, 255, 0, 0, 255, 0, 0, 255, 128}, 1);
      });
  const auto gray = warpdex::dpp::read_tiff(file("rgba.tif"));
  ASSERT_EQ(gray.dims, (volume_dims{3, 1, 1}));
  EXPECT_EQ(gray.bit_depth, 8u);
  EXPECT_EQ(gray.values[0], 90);
  EXPECT_NEAR(gray.values[1], 126, 2);
  EXPECT_NEAR(gray.values[2], 76, 2);

  write_tiff_with(
      file("white.tif"), "w", 1, [](TIFF* tiff, int) { set_basic_tags(tiff, 2, 1, 8, 1, PHOTOMETRIC_MINISWHITE); },
      [](TIFF* tiff, int) {
        return write_rows(tiff, {0, 200}, 1);
      });
  EXPECT_EQ(warpdex::dpp::read_tiff(file("white.tif")).values, (std::vector<std::uint16_t>{255, 55}));
}

TEST_F(gray_volume_files, tiff_of_unsupported_samples_is_rejected)
{
  write_tiff_with(
      file("float.tif"), "w", 1,
      [](TIFF* tiff, int) { set_basic_tags(tiff, 2, 2, 32, 1, PHOTOMETRIC_MINISBLACK, SAMPLEFORMAT_IEEEFP); },
      [](TIFF* tiff, int) { return write_rows(tiff, std::vector<std::uint8_t>(16, 0), 2); });
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_tiff(file("float.tif")); },
                                          {"float.tif, page 0", "floating-point samples"});
  write_tiff_with(
      file("bits1.tif"), "w", 1, [](TIFF* tiff, int) { set_basic_tags(tiff, 8, 2, 1, 1, PHOTOMETRIC_MINISBLACK); },
      [](TIFF* tiff, int) {
        return write_rows(tiff, {0x55, 0xaa}, 2);
      });
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_tiff(file("bits1.tif")); },
                                          {"bits1.tif, page 0", "1-bit samples"});
  write_tiff_with(
      file("palette.tif"), "w", 1,
      [](TIFF* tiff, int) {
        set_basic_tags(tiff, 2, 1, 8, 1, PHOTOMETRIC_PALETTE);
        static std::vector<std::uint16_t> map(256, 0);
        TIFFSetField(tiff, TIFFTAG_COLORMAP, map.data(), map.data(), map.data());
      },
      [](TIFF* tiff, int) {
        return write_rows(tiff, {0, 1}, 1);
      });
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_tiff(file("palette.tif")); },
                                          {"palette.tif, page 0", "palette pixels"});
}

TEST_F(gray_volume_files, tiff_stack_of_differing_slices_is_rejected)
{
  write_tiff_with(
      file("sizes.tif"), "w", 3,
      [](TIFF* tiff, int page) { set_basic_tags(tiff, page == 2 ? 5 : 4, 3, 8, 1, PHOTOMETRIC_MINISBLACK); },
      [](TIFF* tiff, int page) { return write_rows(tiff, std::vector<std::uint8_t>(page == 2 ? 15 : 12, 9), 3); });
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_tiff(file("sizes.tif")); },
                                          {"sizes.tif, page 2 is 5x3, page 0 4x3", "one size"});
  write_tiff_with(
      file("depths.tif"), "w", 2,
      [](TIFF* tiff, int page) { set_basic_tags(tiff, 4, 3, page == 0 ? 8 : 16, 1, PHOTOMETRIC_MINISBLACK); },
      [](TIFF* tiff, int page) { return write_rows(tiff, std::vector<std::uint8_t>(page == 0 ? 12 : 24, 9), 3); });
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_tiff(file("depths.tif")); },
                                          {"depths.tif, page 1 has 16-bit samples, page 0 8", "one bit depth"});
}

TEST_F(gray_volume_files, malformed_tiff_files_are_rejected)
{
  write_bytes(file("text.tif"), "this is not an image\n");
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_gray_volume(file("text.tif")); },
                                          {"text.tif is not a TIFF file"});
  write_bytes(file("tiny.tif"), "II");
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_tiff(file("tiny.tif")); },
                                          {"not a TIFF file"});
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_tiff(file("missing.tif")); },
                                          {"cannot open TIFF file"});

  const auto volume = random_volume({64, 64, 3}, 16, 9);
  warpdex::dpp::write_tiff(file("good.tif"), volume);
  const std::string good = read_bytes(file("good.tif"));
  // Cut inside the header, the first page's data, the last page's data and the last directory.
  for (const std::size_t keep :
       {std::size_t{12}, std::size_t{200}, good.size() / 2, good.size() - 100, good.size() - 13}) {
    write_bytes(file("cut.tif"), good.substr(0, keep));
    expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_tiff(file("cut.tif")); },
                                            {"cut.tif", "corrupt or truncated"});
  }
  // Flipped bytes in the deflate stream of the first page.
  std::string flipped = good;
  for (std::size_t i = 100; i < 140; ++i) { flipped[i] = static_cast<char>(flipped[i] ^ 0x5a); }
  write_bytes(file("flipped.tif"), flipped);
  expect_error_mentioning<warpdex::error>([&] { (void)warpdex::dpp::read_tiff(file("flipped.tif")); },
                                          {"flipped.tif", "corrupt or truncated"});
  // A TIFF read with given dimensions must have them.
  expect_error_mentioning<warpdex::error>(
      [&] {
        (void)warpdex::dpp::read_gray_volume(file("good.tif"), {64, 64, 2}, 16);
      },
      {"TIFF file", "is 64x64x3, not the given 64x64x2"});
}

}  // namespace
