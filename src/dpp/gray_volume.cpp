// Gray images and volumes: raw files and PNG (include/warpdex/dpp/gray_volume.hpp).
#include <warpdex/core/error.hpp>
#include <warpdex/dpp/gray_volume.hpp>

#include <png.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>

namespace warpdex::dpp {

std::string volume_dims::to_string() const
{
  std::string text = std::to_string(width) + "x" + std::to_string(height);
  if (depth != 1) { text += "x" + std::to_string(depth); }
  return text;
}

volume_dims parse_volume_dims(std::string_view text)
{
  std::uint64_t parts[3] = {0, 0, 1};
  std::size_t count = 0;
  std::string_view rest = text;
  while (true) {
    const std::size_t cut = rest.find('x');
    const std::string_view part = rest.substr(0, cut);
    std::uint64_t value = 0;
    const auto [end, status] = std::from_chars(part.data(), part.data() + part.size(), value);
    WARPDEX_EXPECTS(
        count < 3 && !part.empty() && status == std::errc() && end == part.data() + part.size() && value > 0,
        "dimensions '" + std::string(text) + "': expected WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH, each at least 1");
    parts[count++] = value;
    if (cut == std::string_view::npos) { break; }
    rest = rest.substr(cut + 1);
  }
  WARPDEX_EXPECTS(count >= 2, "dimensions '" + std::string(text) + "': expected WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH");
  return {parts[0], parts[1], parts[2]};
}

gray_volume::gray_volume(volume_dims dims_in, std::uint32_t bit_depth_in) : dims(dims_in), bit_depth(bit_depth_in)
{
  WARPDEX_EXPECTS(bit_depth == 8 || bit_depth == 16,
                  "gray_volume: bit depth " + std::to_string(bit_depth) + " (8 or 16 supported)");
  WARPDEX_EXPECTS(dims.width > 0 && dims.height > 0 && dims.depth > 0,
                  "gray_volume: empty dimensions " + dims.to_string());
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 4;
  WARPDEX_EXPECTS(dims.width < limit / dims.height && dims.width * dims.height < limit / dims.depth,
                  "gray_volume: dimensions " + dims.to_string() + " overflow");
  values.assign(dims.voxels(), 0);
}

gray_volume read_raw_volume(const std::filesystem::path& path, volume_dims dims, std::uint32_t bit_depth)
{
  // The file's size is checked before the volume is allocated: wrong dimensions can name gigabytes.
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 4;
  const bool sized = (bit_depth == 8 || bit_depth == 16) && dims.width > 0 && dims.height > 0 && dims.depth > 0 &&
                     dims.width < limit / dims.height && dims.width * dims.height < limit / dims.depth;
  const std::uint64_t bytes_per_voxel = bit_depth / 8;
  const std::uint64_t expected = sized ? dims.voxels() * bytes_per_voxel : 0;
  std::error_code failure;
  const std::uint64_t size = std::filesystem::file_size(path, failure);
  WARPDEX_EXPECTS(!failure, "cannot read raw volume " + path.string() + ": " + failure.message());
  WARPDEX_EXPECTS(!sized || size == expected, "raw volume " + path.string() + " holds " + std::to_string(size) +
                                                  " bytes; " + dims.to_string() + " voxels of " +
                                                  std::to_string(bit_depth) + " bits need " + std::to_string(expected));
  gray_volume volume(dims, bit_depth);  // names what is wrong with dimensions that are not `sized`
  std::ifstream in(path, std::ios::binary);
  WARPDEX_EXPECTS(in.good(), "cannot open raw volume " + path.string());
  if (bit_depth == 16) {
    in.read(reinterpret_cast<char*>(volume.values.data()), static_cast<std::streamsize>(expected));
    if constexpr (std::endian::native == std::endian::big) {
      for (auto& value : volume.values) { value = static_cast<std::uint16_t>((value >> 8) | (value << 8)); }
    }
  } else {
    std::vector<std::uint8_t> bytes(expected);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(expected));
    std::copy(bytes.begin(), bytes.end(), volume.values.begin());
  }
  WARPDEX_EXPECTS(static_cast<std::uint64_t>(in.gcount()) == expected, "raw volume " + path.string() + ": read " +
                                                                           std::to_string(in.gcount()) + " of " +
                                                                           std::to_string(expected) + " bytes");
  return volume;
}

namespace {

/// The voxels in the file's byte layout (8-bit: one byte; 16-bit: little-endian or, for PNG, big-endian).
std::vector<std::uint8_t> volume_bytes(const gray_volume& volume, bool big_endian)
{
  const std::size_t bytes_per_voxel = volume.bit_depth / 8;
  std::vector<std::uint8_t> bytes(volume.values.size() * bytes_per_voxel);
  for (std::size_t i = 0; i < volume.values.size(); ++i) {
    const std::uint16_t value = volume.values[i];
    if (bytes_per_voxel == 1) {
      bytes[i] = static_cast<std::uint8_t>(value);
    } else {
      bytes[2 * i + (big_endian ? 1 : 0)] = static_cast<std::uint8_t>(value);
      bytes[2 * i + (big_endian ? 0 : 1)] = static_cast<std::uint8_t>(value >> 8);
    }
  }
  return bytes;
}

void check_volume(const gray_volume& volume, const char* operation)
{
  WARPDEX_EXPECTS(volume.bit_depth == 8 || volume.bit_depth == 16,
                  std::string(operation) + ": bit depth " + std::to_string(volume.bit_depth) + " (8 or 16 supported)");
  WARPDEX_EXPECTS(volume.values.size() == volume.dims.voxels() && !volume.values.empty(),
                  std::string(operation) + ": " + std::to_string(volume.values.size()) + " values for dimensions " +
                      volume.dims.to_string());
}

// libpng reports errors by longjmp: its message is kept here, and the functions that set the jump hold
// no object with a destructor between setjmp and the libpng calls (a longjmp would skip it).
struct png_failure {
  char message[256] = {};
};

[[noreturn]] void on_png_error(png_structp png, png_const_charp message)
{
  auto* failure = static_cast<png_failure*>(png_get_error_ptr(png));
  std::snprintf(failure->message, sizeof failure->message, "%s", message);
  png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}

struct png_header {
  png_uint_32 width = 0;
  png_uint_32 height = 0;
  int bit_depth = 0;  // after the transformations: 8 or 16
};

/// Reads the header and sets up the gray transformations; false (message in failure) on an error.
bool png_read_header(png_structp png, png_infop info, std::FILE* file, png_header* header)
{
  if (setjmp(png_jmpbuf(png))) { return false; }
  png_init_io(png, file);
  png_set_sig_bytes(png, 8);
  png_read_info(png, info);
  int bit_depth = 0;
  int color_type = 0;
  png_get_IHDR(png, info, &header->width, &header->height, &bit_depth, &color_type, nullptr, nullptr, nullptr);
  if (color_type == PNG_COLOR_TYPE_PALETTE) { png_set_palette_to_rgb(png); }
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) { png_set_expand_gray_1_2_4_to_8(png); }
  if ((color_type & PNG_COLOR_MASK_ALPHA) != 0) { png_set_strip_alpha(png); }
  if (color_type == PNG_COLOR_TYPE_PALETTE || (color_type & PNG_COLOR_MASK_COLOR) != 0) {
    png_set_rgb_to_gray_fixed(png, 1, -1, -1);
  }
  if (bit_depth == 16 && std::endian::native == std::endian::little) { png_set_swap(png); }
  png_read_update_info(png, info);
  header->bit_depth = png_get_bit_depth(png, info);
  return true;
}

bool png_read_rows(png_structp png, png_infop info, png_bytepp rows)
{
  if (setjmp(png_jmpbuf(png))) { return false; }
  png_read_image(png, rows);
  png_read_end(png, info);
  return true;
}

bool png_write_rows(png_structp png, png_infop info, std::FILE* file, const png_header* header, png_bytepp rows)
{
  if (setjmp(png_jmpbuf(png))) { return false; }
  png_init_io(png, file);
  png_set_IHDR(png, info, header->width, header->height, header->bit_depth, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, info);
  return true;
}

struct file_closer {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

}  // namespace

void write_raw_volume(const std::filesystem::path& path, const gray_volume& volume)
{
  check_volume(volume, "write_raw_volume");
  const auto bytes = volume_bytes(volume, false);
  std::ofstream out(path, std::ios::binary);
  WARPDEX_EXPECTS(out.good(), "cannot write " + path.string());
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  WARPDEX_EXPECTS(out.good(), "writing " + path.string() + " failed");
}

gray_volume read_png(const std::filesystem::path& path)
{
  const std::unique_ptr<std::FILE, file_closer> file(std::fopen(path.c_str(), "rb"));
  WARPDEX_EXPECTS(file != nullptr, "cannot open PNG file " + path.string() + ": " + std::strerror(errno));
  png_byte signature[8] = {};
  const std::size_t got = std::fread(signature, 1, sizeof signature, file.get());
  WARPDEX_EXPECTS(got == sizeof signature && png_sig_cmp(signature, 0, sizeof signature) == 0,
                  path.string() + " is not a PNG file (no PNG signature)");
  png_failure failure;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &failure, on_png_error, on_png_warning);
  WARPDEX_EXPECTS(png != nullptr, "read_png: libpng could not start");
  png_infop info = png_create_info_struct(png);
  const auto destroy = [&] { png_destroy_read_struct(&png, &info, nullptr); };
  png_header header;
  if (info == nullptr || !png_read_header(png, info, file.get(), &header)) {
    destroy();
    WARPDEX_FAIL("PNG file " + path.string() + " is corrupt or truncated: " + failure.message);
  }
  gray_volume volume;
  try {
    volume = gray_volume({header.width, header.height, 1}, header.bit_depth == 16 ? 16 : 8);
  } catch (...) {
    destroy();
    throw;
  }
  const std::size_t row_bytes = png_get_rowbytes(png, info);
  const std::size_t bytes_per_voxel = header.bit_depth == 16 ? 2 : 1;
  if (header.bit_depth != 8 && header.bit_depth != 16) {
    destroy();
    WARPDEX_FAIL("PNG file " + path.string() + ": unexpected bit depth " + std::to_string(header.bit_depth));
  }
  if (row_bytes != header.width * bytes_per_voxel) {
    destroy();
    WARPDEX_FAIL("PNG file " + path.string() + ": rows of " + std::to_string(row_bytes) + " bytes after the gray " +
                 "conversion, expected " + std::to_string(header.width * bytes_per_voxel));
  }
  std::vector<std::uint8_t> pixels(row_bytes * header.height);
  std::vector<png_bytep> rows(header.height);
  for (std::size_t y = 0; y < rows.size(); ++y) { rows[y] = pixels.data() + y * row_bytes; }
  const bool read = png_read_rows(png, info, rows.data());
  destroy();
  WARPDEX_EXPECTS(read, "PNG file " + path.string() + " is corrupt or truncated: " + failure.message);
  for (std::size_t i = 0; i < volume.values.size(); ++i) {
    volume.values[i] =
        bytes_per_voxel == 1 ? pixels[i] : static_cast<std::uint16_t>(pixels[2 * i] | (pixels[2 * i + 1] << 8));
  }
  return volume;
}

void write_png(const std::filesystem::path& path, const gray_volume& volume)
{
  check_volume(volume, "write_png");
  WARPDEX_EXPECTS(volume.dims.is_2d(), "write_png: " + path.string() + ": a PNG holds a 2D image, not a volume of " +
                                           volume.dims.to_string() + " (write a raw volume instead)");
  WARPDEX_EXPECTS(volume.dims.width <= PNG_USER_WIDTH_MAX && volume.dims.height <= PNG_USER_HEIGHT_MAX,
                  "write_png: " + volume.dims.to_string() + " is larger than a PNG holds");
  auto bytes = volume_bytes(volume, true);
  const std::size_t row_bytes = volume.dims.width * (volume.bit_depth / 8);
  std::vector<png_bytep> rows(volume.dims.height);
  for (std::size_t y = 0; y < rows.size(); ++y) { rows[y] = bytes.data() + y * row_bytes; }
  const std::unique_ptr<std::FILE, file_closer> file(std::fopen(path.c_str(), "wb"));
  WARPDEX_EXPECTS(file != nullptr, "cannot write " + path.string() + ": " + std::strerror(errno));
  png_failure failure;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &failure, on_png_error, on_png_warning);
  WARPDEX_EXPECTS(png != nullptr, "write_png: libpng could not start");
  png_infop info = png_create_info_struct(png);
  const png_header header{static_cast<png_uint_32>(volume.dims.width), static_cast<png_uint_32>(volume.dims.height),
                          static_cast<int>(volume.bit_depth)};
  const bool written = info != nullptr && png_write_rows(png, info, file.get(), &header, rows.data());
  png_destroy_write_struct(&png, &info);
  WARPDEX_EXPECTS(written, "writing PNG file " + path.string() + " failed: " + failure.message);
  WARPDEX_EXPECTS(std::fflush(file.get()) == 0, "writing " + path.string() + " failed: " + std::strerror(errno));
}

gray_file_format gray_file_format_of(const std::filesystem::path& path)
{
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (extension == ".png") { return gray_file_format::png; }
  if (extension == ".tif" || extension == ".tiff") { return gray_file_format::tiff; }
  return gray_file_format::raw;
}

gray_volume read_gray_volume(const std::filesystem::path& path, volume_dims dims, std::uint32_t bit_depth)
{
  const gray_file_format format = gray_file_format_of(path);
  if (format != gray_file_format::raw) {
    gray_volume volume = format == gray_file_format::png ? read_png(path) : read_tiff(path);
    WARPDEX_EXPECTS(dims.voxels() == 0 || dims == volume.dims,
                    std::string(format == gray_file_format::png ? "PNG" : "TIFF") + " file " + path.string() + " is " +
                        volume.dims.to_string() + ", not the given " + dims.to_string());
    return volume;
  }
  WARPDEX_EXPECTS(dims.voxels() != 0, "raw volume " + path.string() +
                                          ": give its dimensions (WIDTHxHEIGHTxDEPTH) and bit depth; only .png and "
                                          ".tif files carry their own");
  return read_raw_volume(path, dims, bit_depth);
}

void write_gray_volume(const std::filesystem::path& path, const gray_volume& volume)
{
  switch (gray_file_format_of(path)) {
    case gray_file_format::png:
      write_png(path, volume);
      break;
    case gray_file_format::tiff:
      write_tiff(path, volume);
      break;
    case gray_file_format::raw:
      write_raw_volume(path, volume);
      break;
  }
}

}  // namespace warpdex::dpp
