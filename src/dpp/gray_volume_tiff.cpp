// TIFF gray images and stacks with libtiff (include/warpdex/dpp/gray_volume.hpp).
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/gray_volume.hpp>

#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace warpdex::dpp {
namespace {

/// libtiff's messages for one open file: the first error is kept (later ones tend to follow from it);
/// warnings are dropped (libtiff would print them to stderr).
struct tiff_messages {
  std::string error;
};

int on_tiff_error(TIFF*, void* user_data, const char* module, const char* format, va_list arguments)
{
  auto* messages = static_cast<tiff_messages*>(user_data);
  if (messages->error.empty()) {
    char text[512] = {};
    std::vsnprintf(text, sizeof text, format, arguments);
    messages->error = (module != nullptr && *module != '\0' ? std::string(module) + ": " : std::string()) + text;
  }
  return 1;  // handled: libtiff's global handler (stderr) is not called
}

int on_tiff_warning(TIFF*, void*, const char*, const char*, va_list)
{
  return 1;
}

struct tiff_closer {
  void operator()(TIFF* tiff) const { TIFFClose(tiff); }
};
using tiff_handle = std::unique_ptr<TIFF, tiff_closer>;

/// Opens `path` with `mode` ("r" or "w"), errors and warnings going to `messages`.
tiff_handle open_tiff(const std::filesystem::path& path, const char* mode, tiff_messages* messages)
{
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  WARPDEX_EXPECTS(options != nullptr, "TIFF " + path.string() + ": libtiff could not start");
  TIFFOpenOptionsSetErrorHandlerExtR(options, on_tiff_error, messages);
  TIFFOpenOptionsSetWarningHandlerExtR(options, on_tiff_warning, messages);
  tiff_handle tiff(TIFFOpenExt(path.c_str(), mode, options));
  TIFFOpenOptionsFree(options);
  return tiff;
}

/// sRGB value (0 .. 1) to linear light and back (IEC 61966-2-1).
double srgb_to_linear(double value)
{
  return value <= 0.04045 ? value / 12.92 : std::pow((value + 0.055) / 1.055, 2.4);
}
double linear_to_srgb(double value)
{
  return value <= 0.0031308 ? value * 12.92 : 1.055 * std::pow(value, 1.0 / 2.4) - 0.055;
}

/// Gray of an RGB pixel: BT.709 weights on linear light; a gray pixel keeps its value.
std::uint16_t rgb_to_gray(std::uint32_t r, std::uint32_t g, std::uint32_t b, std::uint32_t max_value)
{
  if (r == g && g == b) { return static_cast<std::uint16_t>(r); }
  const double scale = max_value;
  const double linear =
      0.2126 * srgb_to_linear(r / scale) + 0.7152 * srgb_to_linear(g / scale) + 0.0722 * srgb_to_linear(b / scale);
  const double value = std::round(linear_to_srgb(std::clamp(linear, 0.0, 1.0)) * scale);
  return static_cast<std::uint16_t>(std::clamp(value, 0.0, scale));
}

/// What one page holds, as read from its tags.
struct tiff_page {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::uint16_t bits = 1;
  std::uint16_t samples = 1;
  bool rgb = false;  // else gray
  bool min_is_white = false;
  bool tiled = false;
};

/// The page's layout, or `warpdex::error` saying why it is not one read here.
tiff_page describe_page(TIFF* tiff, const std::string& where)
{
  tiff_page page;
  std::uint16_t sample_format = SAMPLEFORMAT_UINT;
  std::uint16_t photometric = PHOTOMETRIC_MINISBLACK;
  std::uint16_t planar = PLANARCONFIG_CONTIG;
  std::uint16_t compression = COMPRESSION_NONE;
  WARPDEX_EXPECTS(TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &page.width) == 1 &&
                      TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &page.height) == 1 && page.width > 0 && page.height > 0,
                  where + ": no image size");
  TIFFGetFieldDefaulted(tiff, TIFFTAG_BITSPERSAMPLE, &page.bits);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLESPERPIXEL, &page.samples);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLEFORMAT, &sample_format);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_COMPRESSION, &compression);
  WARPDEX_EXPECTS(TIFFGetField(tiff, TIFFTAG_PHOTOMETRIC, &photometric) == 1 || page.samples == 1,
                  where + ": no photometric interpretation for " + std::to_string(page.samples) + " samples a pixel");
  WARPDEX_EXPECTS(sample_format == SAMPLEFORMAT_UINT,
                  where + ": " +
                      (sample_format == SAMPLEFORMAT_IEEEFP ? std::string("floating-point")
                       : sample_format == SAMPLEFORMAT_INT  ? std::string("signed integer")
                                                            : "format " + std::to_string(sample_format)) +
                      " samples (unsigned 8- or 16-bit gray or RGB supported)");
  WARPDEX_EXPECTS(page.bits == 8 || page.bits == 16,
                  where + ": " + std::to_string(page.bits) + "-bit samples (8- or 16-bit gray or RGB supported)");
  if (photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) {
    // JPEG-compressed color: libtiff's JPEG codec converts it to RGB.
    TIFFSetField(tiff, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    photometric = PHOTOMETRIC_RGB;
  }
  if (photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE) {
    page.min_is_white = photometric == PHOTOMETRIC_MINISWHITE;
    WARPDEX_EXPECTS(page.samples >= 1, where + ": no samples");
  } else if (photometric == PHOTOMETRIC_RGB) {
    page.rgb = true;
    WARPDEX_EXPECTS(page.samples >= 3, where + ": RGB with " + std::to_string(page.samples) + " samples a pixel");
  } else {
    const char* name = photometric == PHOTOMETRIC_PALETTE     ? "palette"
                       : photometric == PHOTOMETRIC_YCBCR     ? "YCbCr"
                       : photometric == PHOTOMETRIC_SEPARATED ? "CMYK"
                                                              : nullptr;
    WARPDEX_FAIL(where + ": " + (name != nullptr ? std::string(name) : "photometric " + std::to_string(photometric)) +
                 " pixels (gray or RGB supported; convert the image to gray)");
  }
  WARPDEX_EXPECTS(planar == PLANARCONFIG_CONTIG || page.samples == 1,
                  where + ": planar-separate samples (interleaved gray or RGB supported)");
  page.tiled = TIFFIsTiled(tiff) != 0;
  return page;
}

/// Reads the page's samples, interleaved, row after row (width * samples * bytes a row).
std::vector<std::uint8_t> read_page_samples(TIFF* tiff, const tiff_page& page, const std::string& where,
                                            tiff_messages* messages)
{
  const std::uint64_t pixel_bytes = std::uint64_t{page.samples} * (page.bits / 8);
  const std::uint64_t row_bytes = std::uint64_t{page.width} * pixel_bytes;
  std::vector<std::uint8_t> samples;
  try {
    samples.resize(row_bytes * page.height);
  } catch (const std::exception&) {  // a corrupt size, or one larger than this machine holds
    WARPDEX_FAIL(where + ": " + std::to_string(page.width) + "x" + std::to_string(page.height) + " pixels of " +
                 std::to_string(pixel_bytes) + " bytes do not fit in memory");
  }
  const auto failed = [&](const std::string& what) {
    return where + " is corrupt or truncated: " + what +
           (messages->error.empty() ? std::string() : " (libtiff: " + messages->error + ")");
  };
  if (page.tiled) {
    std::uint32_t tile_width = 0;
    std::uint32_t tile_height = 0;
    TIFFGetField(tiff, TIFFTAG_TILEWIDTH, &tile_width);
    TIFFGetField(tiff, TIFFTAG_TILELENGTH, &tile_height);
    const tmsize_t tile_bytes = TIFFTileSize(tiff);
    WARPDEX_EXPECTS(tile_width > 0 && tile_height > 0 && tile_bytes > 0 &&
                        static_cast<std::uint64_t>(tile_bytes) >= std::uint64_t{tile_width} * tile_height * pixel_bytes,
                    failed("bad tile size"));
    std::vector<std::uint8_t> tile(static_cast<std::size_t>(tile_bytes));
    for (std::uint32_t y0 = 0; y0 < page.height; y0 += tile_height) {
      for (std::uint32_t x0 = 0; x0 < page.width; x0 += tile_width) {
        const tmsize_t got = TIFFReadTile(tiff, tile.data(), x0, y0, 0, 0);
        WARPDEX_EXPECTS(got == tile_bytes, failed("tile at (" + std::to_string(x0) + ", " + std::to_string(y0) + ")"));
        const std::uint32_t rows = std::min(tile_height, page.height - y0);
        const std::uint64_t copy = std::uint64_t{std::min(tile_width, page.width - x0)} * pixel_bytes;
        for (std::uint32_t r = 0; r < rows; ++r) {
          std::memcpy(samples.data() + (y0 + r) * row_bytes + x0 * pixel_bytes,
                      tile.data() + std::uint64_t{r} * tile_width * pixel_bytes, copy);
        }
      }
    }
  } else {
    std::uint32_t rows_per_strip = page.height;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
    rows_per_strip = std::clamp<std::uint32_t>(rows_per_strip, 1, page.height);
    const std::uint32_t strips = TIFFNumberOfStrips(tiff);
    const std::uint32_t needed = (page.height + rows_per_strip - 1) / rows_per_strip;
    WARPDEX_EXPECTS(strips >= needed,
                    failed(std::to_string(strips) + " strips, " + std::to_string(needed) + " needed"));
    for (std::uint32_t strip = 0; strip < needed; ++strip) {
      const std::uint32_t first_row = strip * rows_per_strip;
      const std::uint64_t bytes = std::uint64_t{std::min(rows_per_strip, page.height - first_row)} * row_bytes;
      const tmsize_t got =
          TIFFReadEncodedStrip(tiff, strip, samples.data() + first_row * row_bytes, static_cast<tmsize_t>(bytes));
      WARPDEX_EXPECTS(got == static_cast<tmsize_t>(bytes), failed("strip " + std::to_string(strip)));
    }
  }
  // libtiff may report a decoding problem and still return the data it had.
  WARPDEX_EXPECTS(messages->error.empty(), failed("decoding"));
  return samples;
}

}  // namespace

gray_volume read_tiff(const std::filesystem::path& path)
{
  tiff_messages messages;
  const std::string name = "TIFF file " + path.string();
  {
    std::FILE* probe = std::fopen(path.c_str(), "rb");
    WARPDEX_EXPECTS(probe != nullptr, "cannot open " + name + ": " + std::strerror(errno));
    unsigned char magic[4] = {};
    const std::size_t got = std::fread(magic, 1, sizeof magic, probe);
    std::fclose(probe);
    const bool little = magic[0] == 'I' && magic[1] == 'I' && (magic[2] == 42 || magic[2] == 43) && magic[3] == 0;
    const bool big = magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0 && (magic[3] == 42 || magic[3] == 43);
    WARPDEX_EXPECTS(got == sizeof magic && (little || big), path.string() + " is not a TIFF file (no TIFF header)");
  }
  const tiff_handle tiff = open_tiff(path, "r", &messages);
  WARPDEX_EXPECTS(tiff != nullptr,
                  name + " is corrupt or truncated: " +
                      (messages.error.empty() ? std::string("libtiff cannot open it") : messages.error));
  gray_volume volume;
  std::vector<std::uint16_t> values;
  tiff_page first;
  std::uint64_t slices = 0;
  for (std::uint64_t directory = 0;; ++directory) {
    const std::string where = name + ", page " + std::to_string(directory);
    std::uint32_t subfile = 0;
    if (TIFFGetField(tiff.get(), TIFFTAG_SUBFILETYPE, &subfile) == 1 && (subfile & FILETYPE_REDUCEDIMAGE) != 0) {
      // a thumbnail: skipped
    } else {
      const tiff_page page = describe_page(tiff.get(), where);
      if (slices == 0) {
        first = page;
      } else {
        WARPDEX_EXPECTS(page.width == first.width && page.height == first.height,
                        where + " is " + std::to_string(page.width) + "x" + std::to_string(page.height) + ", page 0 " +
                            std::to_string(first.width) + "x" + std::to_string(first.height) +
                            " (every slice of a stack must have one size)");
        WARPDEX_EXPECTS(page.bits == first.bits, where + " has " + std::to_string(page.bits) + "-bit samples, page 0 " +
                                                     std::to_string(first.bits) +
                                                     " (every slice of a stack must have one bit depth)");
      }
      const std::vector<std::uint8_t> samples = read_page_samples(tiff.get(), page, where, &messages);
      const std::uint64_t pixels = std::uint64_t{page.width} * page.height;
      const std::uint32_t max_value = page.bits == 16 ? 65535 : 255;
      const auto sample = [&](std::uint64_t index) -> std::uint32_t {
        if (page.bits == 8) { return samples[index]; }
        std::uint16_t value = 0;
        std::memcpy(&value, samples.data() + 2 * index, 2);  // libtiff gives native byte order
        return value;
      };
      values.reserve(values.size() + pixels);
      for (std::uint64_t i = 0; i < pixels; ++i) {
        const std::uint64_t base = i * page.samples;
        std::uint32_t value =
            page.rgb ? rgb_to_gray(sample(base), sample(base + 1), sample(base + 2), max_value) : sample(base);
        if (page.min_is_white) { value = max_value - value; }
        values.push_back(static_cast<std::uint16_t>(value));
      }
      ++slices;
    }
    const int next = TIFFReadDirectory(tiff.get());
    WARPDEX_EXPECTS(messages.error.empty(), name + " is corrupt or truncated after page " + std::to_string(directory) +
                                                " (libtiff: " + messages.error + ")");
    if (next != 1) { break; }
  }
  WARPDEX_EXPECTS(slices > 0, name + ": only reduced-resolution pages, no image");
  volume = gray_volume({first.width, first.height, slices}, first.bits);
  volume.values = std::move(values);
  return volume;
}

void write_tiff(const std::filesystem::path& path, const gray_volume& volume)
{
  WARPDEX_EXPECTS(volume.bit_depth == 8 || volume.bit_depth == 16,
                  "write_tiff: bit depth " + std::to_string(volume.bit_depth) + " (8 or 16 supported)");
  WARPDEX_EXPECTS(
      volume.values.size() == volume.dims.voxels() && !volume.values.empty(),
      "write_tiff: " + std::to_string(volume.values.size()) + " values for dimensions " + volume.dims.to_string());
  constexpr std::uint64_t side_limit = std::numeric_limits<std::uint32_t>::max();
  WARPDEX_EXPECTS(volume.dims.width <= side_limit && volume.dims.height <= side_limit && volume.dims.depth <= 65535,
                  "write_tiff: " + volume.dims.to_string() + " is larger than a TIFF stack holds here");
  tiff_messages messages;
  // BigTIFF ("w8") past 2 GiB, where classic TIFF's 32-bit offsets end.
  const std::uint64_t bytes = volume.dims.voxels() * (volume.bit_depth / 8);
  tiff_handle tiff = open_tiff(path, bytes >= (std::uint64_t{1} << 31) ? "w8" : "w", &messages);
  WARPDEX_EXPECTS(tiff != nullptr, "cannot write TIFF file " + path.string() + ": " + messages.error);
  const auto width = static_cast<std::uint32_t>(volume.dims.width);
  const auto height = static_cast<std::uint32_t>(volume.dims.height);
  const std::uint64_t row_bytes = volume.dims.width * (volume.bit_depth / 8);
  std::vector<std::uint8_t> row(row_bytes);
  bool written = true;
  for (std::uint64_t z = 0; z < volume.dims.depth && written; ++z) {
    TIFFSetField(tiff.get(), TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(tiff.get(), TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(tiff.get(), TIFFTAG_BITSPERSAMPLE, static_cast<std::uint16_t>(volume.bit_depth));
    TIFFSetField(tiff.get(), TIFFTAG_SAMPLESPERPIXEL, std::uint16_t{1});
    TIFFSetField(tiff.get(), TIFFTAG_SAMPLEFORMAT, std::uint16_t{SAMPLEFORMAT_UINT});
    TIFFSetField(tiff.get(), TIFFTAG_PHOTOMETRIC, std::uint16_t{PHOTOMETRIC_MINISBLACK});
    TIFFSetField(tiff.get(), TIFFTAG_PLANARCONFIG, std::uint16_t{PLANARCONFIG_CONTIG});
    TIFFSetField(tiff.get(), TIFFTAG_COMPRESSION, std::uint16_t{COMPRESSION_ADOBE_DEFLATE});
    TIFFSetField(tiff.get(), TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tiff.get(), 0));
    if (volume.dims.depth > 1) {
      TIFFSetField(tiff.get(), TIFFTAG_SUBFILETYPE, std::uint32_t{FILETYPE_PAGE});
      TIFFSetField(tiff.get(), TIFFTAG_PAGENUMBER, static_cast<std::uint16_t>(z),
                   static_cast<std::uint16_t>(volume.dims.depth));
    }
    for (std::uint32_t y = 0; y < height && written; ++y) {
      const std::uint16_t* source = volume.values.data() + (z * volume.dims.height + y) * volume.dims.width;
      if (volume.bit_depth == 8) {
        std::copy(source, source + width, row.begin());
      } else {
        std::memcpy(row.data(), source, row_bytes);
      }
      written = TIFFWriteScanline(tiff.get(), row.data(), y, 0) == 1;
    }
    written = written && TIFFWriteDirectory(tiff.get()) == 1;
  }
  if (written) { written = TIFFFlush(tiff.get()) == 1; }
  TIFFClose(tiff.release());
  WARPDEX_EXPECTS(written && messages.error.empty(), "writing TIFF file " + path.string() + " failed: " +
                                                         (messages.error.empty() ? "libtiff" : messages.error));
}

}  // namespace warpdex::dpp
