#pragma once
/// @file Gray images and volumes (a 2D image is a volume of depth 1) in host memory, and the files they
/// come from and go to: raw volumes of given dimensions, 2D PNG files and TIFF files (2D images and 3D
/// stacks, a page per slice), 8- or 16-bit gray (docs/dpp.md, "MRF image segmentation").
///
/// ```
/// warpdex::dpp::gray_volume image({.width = 4, .height = 3}, 8);
/// image.at(1, 2) = 200;
/// warpdex::dpp::write_png("tiny.png", image);
/// const auto back = warpdex::dpp::read_png("tiny.png");  // 4 x 3 x 1, 8-bit, back.at(1, 2) == 200
/// ```
///
/// Every reader checks the file against what it must hold: a raw file whose size is not the dimensions'
/// voxels times their bytes, a file that is not a PNG or TIFF, a truncated or corrupt one, a TIFF of a
/// sample type or depth not held (float, 1-bit, 32-bit), a stack of slices of different sizes all throw
/// `warpdex::error` naming the file and what is wrong, never read past the data.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warpdex::dpp {

/// The size of an image or volume: voxel (x, y, z) is at x + width * (y + height * z).
struct volume_dims {
  std::uint64_t width = 0;
  std::uint64_t height = 0;
  std::uint64_t depth = 1;  ///< 1: a 2D image

  [[nodiscard]] std::uint64_t voxels() const { return width * height * depth; }
  [[nodiscard]] bool is_2d() const { return depth == 1; }
  /// "WxH" for an image, "WxHxD" for a volume.
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const volume_dims&, const volume_dims&) = default;
};

/// "WxH" or "WxHxD" (each at least 1) as volume_dims; `warpdex::error` otherwise.
[[nodiscard]] volume_dims parse_volume_dims(std::string_view text);

/// A gray image or volume in host memory. Values are held as 16-bit whatever the bit depth; an 8-bit
/// volume's values are below 256.
struct gray_volume {
  volume_dims dims;
  std::uint32_t bit_depth = 16;  ///< 8 or 16: how it was read and how it is written
  std::vector<std::uint16_t> values;

  gray_volume() = default;
  /// A zero volume of `dims` (bit_depth 8 or 16; `warpdex::error` otherwise, or on an empty or
  /// overflowing size).
  gray_volume(volume_dims dims, std::uint32_t bit_depth);

  [[nodiscard]] std::uint16_t& at(std::uint64_t x, std::uint64_t y, std::uint64_t z = 0)
  {
    return values[x + dims.width * (y + dims.height * z)];
  }
  [[nodiscard]] std::uint16_t at(std::uint64_t x, std::uint64_t y, std::uint64_t z = 0) const
  {
    return values[x + dims.width * (y + dims.height * z)];
  }
  /// The largest value the bit depth holds (255 or 65535).
  [[nodiscard]] std::uint32_t max_value() const { return (1u << bit_depth) - 1; }
};

/// A raw volume: dims.voxels() values of `bit_depth` bits (8: one byte; 16: two bytes, little-endian),
/// x fastest, then y, then z, nothing else. `warpdex::error` when the file cannot be read or its size is
/// not exactly that.
[[nodiscard]] gray_volume read_raw_volume(const std::filesystem::path& path, volume_dims dims, std::uint32_t bit_depth);

/// Writes `volume` in the layout `read_raw_volume` reads. `warpdex::error` when the file cannot be written.
void write_raw_volume(const std::filesystem::path& path, const gray_volume& volume);

/// A PNG file as a 2D gray volume of its bit depth (1, 2 and 4 bits are widened to 8). Color (RGB or
/// palette) is turned to gray with the ITU-R BT.709 weights applied to linear light (libpng's default for
/// sRGB images: a gray pixel keeps its value); an alpha channel is dropped. `warpdex::error` when the file is not a
/// PNG, is truncated or corrupt, or cannot be read.
[[nodiscard]] gray_volume read_png(const std::filesystem::path& path);

/// Writes a 2D `volume` as a gray PNG of its bit depth. `warpdex::error` when the volume is not 2D or
/// the file cannot be written.
void write_png(const std::filesystem::path& path, const gray_volume& volume);

/// A TIFF file as a gray volume: each page (image file directory) is a slice, all of one size and bit
/// depth; one page is a 2D image. Strips or tiles, any compression libtiff decodes. Samples must be
/// unsigned integers of 8 or 16 bits; gray (min-is-black; min-is-white is inverted) is read as it is, RGB
/// (interleaved, extra samples such as alpha dropped; JPEG's YCbCr decoded to RGB) is turned to gray with
/// the BT.709 weights on linear sRGB light, like `read_png`. Reduced-resolution pages (thumbnails) are
/// skipped. `warpdex::error` naming the file, the page and what is wrong when the file is not a TIFF, is
/// truncated or corrupt (libtiff's own message is quoted; libtiff's warnings are not printed), holds
/// float, signed, palette, planar-separate or other samples, or slices of different sizes or depths.
/// Complexity: O(voxels), plus the decompression.
[[nodiscard]] gray_volume read_tiff(const std::filesystem::path& path);

/// Writes `volume` as a gray TIFF of its bit depth, a page per slice (one page for a 2D image),
/// deflate-compressed strips. `warpdex::error` when the file cannot be written.
void write_tiff(const std::filesystem::path& path, const gray_volume& volume);

/// How a file holds an image, by its extension (any case): .png, .tif / .tiff, anything else raw.
enum class gray_file_format { raw, png, tiff };

/// The format `read_gray_volume` and `write_gray_volume` use for `path`.
[[nodiscard]] gray_file_format gray_file_format_of(const std::filesystem::path& path);

/// A gray volume by the file's extension: .png (2D), .tif / .tiff (2D or a stack), or raw (any other
/// extension), for which `dims` and `bit_depth` must be given. For PNG and TIFF, `dims` is either empty
/// (dims.voxels() == 0) or must equal the file's; `warpdex::error` otherwise.
[[nodiscard]] gray_volume read_gray_volume(const std::filesystem::path& path, volume_dims dims = {},
                                           std::uint32_t bit_depth = 16);

/// Writes by the extension: .png (2D only), .tif / .tiff (2D or a stack) or raw otherwise.
void write_gray_volume(const std::filesystem::path& path, const gray_volume& volume);

}  // namespace warpdex::dpp
