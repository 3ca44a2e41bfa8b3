// The segmentation workload (include/warpdex/dpp/segment_workload.hpp). Host code: the backends' SLIC
// and segmentation are instantiated in slic_*.cpp/.cu and mrf_segment_*.cpp/.cu.
#include "segment_workload.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/core/host_memory.hpp>

#include "dpp_workload_support.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

namespace warpdex::dpp {
namespace {

using detail::format_seconds;
using detail::seconds_since;

/// A PNG or TIFF file, which carries its own dimensions (else raw).
bool is_image_file(const std::string& path)
{
  return gray_file_format_of(path) != gray_file_format::raw;
}

/// A region file: a PNG's or TIFF's values, or raw 32-bit little-endian ids, of `dims`.
std::vector<std::uint32_t> read_regions(const std::string& path, volume_dims dims)
{
  if (is_image_file(path)) {
    const gray_volume regions = read_gray_volume(path);
    WARPDEX_EXPECTS(regions.dims == dims,
                    "region file " + path + " is " + regions.dims.to_string() + ", the image " + dims.to_string());
    return {regions.values.begin(), regions.values.end()};
  }
  std::error_code failure;
  const std::uint64_t size = std::filesystem::file_size(path, failure);
  WARPDEX_EXPECTS(!failure, "cannot read region file " + path + ": " + failure.message());
  WARPDEX_EXPECTS(size == dims.voxels() * 4, "region file " + path + " holds " + std::to_string(size) +
                                                 " bytes; 32-bit ids of " + dims.to_string() + " voxels need " +
                                                 std::to_string(dims.voxels() * 4));
  std::vector<std::uint32_t> regions(dims.voxels());
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(regions.data()), static_cast<std::streamsize>(size));
  WARPDEX_EXPECTS(static_cast<std::uint64_t>(in.gcount()) == size, "region file " + path + ": short read");
  if constexpr (std::endian::native == std::endian::big) {
    for (auto& id : regions) { id = __builtin_bswap32(id); }
  }
  return regions;
}

/// A ground truth: nonzero is positive.
std::vector<std::uint8_t> read_truth(const std::string& path, volume_dims dims)
{
  const gray_volume truth = read_gray_volume(path, is_image_file(path) ? volume_dims{0, 0, 1} : dims, 8);
  WARPDEX_EXPECTS(truth.dims == dims,
                  "ground truth " + path + " is " + truth.dims.to_string() + ", the image " + dims.to_string());
  std::vector<std::uint8_t> positive(truth.values.size());
  std::transform(truth.values.begin(), truth.values.end(), positive.begin(),
                 [](std::uint16_t value) { return value != 0 ? 1 : 0; });
  return positive;
}

/// Labels as an 8-bit volume: spread over 0 .. 255 for a PNG or TIFF, the labels themselves for raw.
gray_volume label_volume(const std::vector<std::uint8_t>& labels, volume_dims dims, std::uint32_t label_count,
                         bool spread)
{
  gray_volume volume(dims, 8);
  const std::uint32_t step = spread ? 255 / (label_count - 1) : 1;
  std::transform(labels.begin(), labels.end(), volume.values.begin(),
                 [step](std::uint8_t label) { return static_cast<std::uint16_t>(label * step); });
  return volume;
}

/// input (rescaled to its 1st .. 99th percentile) | labels | truth, side by side with 4-pixel gaps.
void write_panel(const std::string& path, const gray_volume& image, const std::vector<std::uint8_t>& labels,
                 const std::vector<std::uint8_t>& truth, std::uint32_t label_count)
{
  WARPDEX_EXPECTS(image.dims.is_2d(),
                  "segment --panel: a picture of a 2D image (this is " + image.dims.to_string() + ")");
  const std::uint64_t w = image.dims.width;
  const std::uint64_t h = image.dims.height;
  constexpr std::uint64_t gap = 4;
  const std::uint64_t panels = truth.empty() ? 2 : 3;
  gray_volume panel({panels * w + (panels - 1) * gap, h, 1}, 8);
  std::fill(panel.values.begin(), panel.values.end(), 255);
  std::vector<std::uint16_t> sorted = image.values;
  std::sort(sorted.begin(), sorted.end());
  const double low = sorted[sorted.size() / 100];
  const double high = std::max(low + 1, static_cast<double>(sorted[sorted.size() - 1 - sorted.size() / 100]));
  for (std::uint64_t y = 0; y < h; ++y) {
    for (std::uint64_t x = 0; x < w; ++x) {
      const std::uint64_t i = x + w * y;
      const double scaled = (image.values[i] - low) / (high - low) * 255;
      panel.at(x, y) = static_cast<std::uint16_t>(std::clamp(scaled, 0.0, 255.0));
      panel.at(w + gap + x, y) = static_cast<std::uint16_t>(labels[i] * (255 / (label_count - 1)));
      if (!truth.empty()) { panel.at(2 * (w + gap) + x, y) = truth[i] != 0 ? 255 : 0; }
    }
  }
  write_gray_volume(path, panel);
}

/// Host bytes a run holds per voxel, roughly: the image and its backend copy, SLIC's and the MRF's arrays,
/// the labels and the truth. It only has to stop sizes far beyond the machine before they are allocated.
constexpr std::uint64_t bytes_per_voxel = 16;

void expect_volume_fits(volume_dims dims, const std::string& what)
{
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / bytes_per_voxel;
  WARPDEX_EXPECTS(dims.width > 0 && dims.height > 0 && dims.depth > 0 && dims.width <= limit / dims.height &&
                      dims.width * dims.height <= limit / dims.depth,
                  what + ": dimensions " + dims.to_string() + " overflow");
  expect_host_memory(dims.voxels() * bytes_per_voxel, what + " (" + std::to_string(dims.voxels()) + " voxels)");
}

}  // namespace

std::string segment_workload_report::summary() const
{
  char text[1024];
  std::snprintf(text, sizeof text,
                "%s, %s voxels on %s: %llu regions, %llu region edges, %llu maximal cliques (largest %u), %llu "
                "neighbourhood elements; %u EM iterations%s, %llu MAP iterations",
                input.c_str(), dims.to_string().c_str(), backend.c_str(),
                static_cast<unsigned long long>(stats.regions), static_cast<unsigned long long>(stats.region_edges),
                static_cast<unsigned long long>(stats.cliques), stats.clique_number,
                static_cast<unsigned long long>(stats.neighbourhood_elements), stats.em_iterations,
                stats.converged ? " (converged)" : "", static_cast<unsigned long long>(stats.map_iterations));
  std::string result = text;
  result += "\n  labels (mu, sigma):";
  for (std::size_t l = 0; l < mu.size(); ++l) {
    std::snprintf(text, sizeof text, " %zu (%.1f, %.1f)", l, mu[l], sigma[l]);
    result += text;
  }
  if (has_truth) {
    std::snprintf(text, sizeof text, "\n  against the ground truth: precision %.2f%%, recall %.2f%%, accuracy %.2f%%",
                  100 * scores.precision(), 100 * scores.recall(), 100 * scores.accuracy());
    result += text;
  }
  result += "\n  times: read " + format_seconds(read_seconds) + ", slic " + format_seconds(slic_seconds) +
            ", regions " + format_seconds(timings.regions) + ", graph " + format_seconds(timings.graph) + ", cliques " +
            format_seconds(timings.cliques) + ", neighbourhoods " + format_seconds(timings.neighbourhoods) + ", em " +
            format_seconds(timings.em) + ", output " + format_seconds(timings.output) + "; segmentation " +
            format_seconds(seconds());
  char rate[64];
  std::snprintf(rate, sizeof rate, " (%.3g Mvoxels/s)", seconds() > 0 ? voxels() / seconds() / 1e6 : 0.0);
  result += rate;
  if (write_seconds > 0) { result += ", write " + format_seconds(write_seconds); }
  result += "\n  check: " + check;
  return result;
}

segment_workload_report run_segment_workload(backend_choice resolved, const segment_workload_options& options)
{
  WARPDEX_EXPECTS(options.repetitions >= 1, "segment: at least one timed run");
  WARPDEX_EXPECTS(options.panel_output.empty() || gray_file_format_of(options.panel_output) != gray_file_format::raw,
                  "segment --panel: " + options.panel_output + ": a picture is a .png, .tif or .tiff file");
  segment_workload_report report;
  auto started = std::chrono::steady_clock::now();
  gray_volume image;
  std::vector<std::uint8_t> truth;
  if (options.generate) {
    WARPDEX_EXPECTS(options.dims.voxels() != 0, "segment --generate: give the volume's dimensions (WxH or WxHxD)");
    expect_volume_fits(options.dims, "segment --generate " + options.dims.to_string());
    porous_volume rock = generate_porous_volume(options.dims, options.generator);
    image = std::move(rock.image);
    truth = std::move(rock.truth);
    report.input = "porous:" + options.dims.to_string() + " (seed " + std::to_string(options.generator.seed) + ")";
  } else {
    WARPDEX_EXPECTS(!options.input.empty(), "segment: give an image file, or --generate");
    image = read_gray_volume(options.input, options.dims, options.bit_depth);
    report.input = options.input;
    expect_volume_fits(image.dims, "segment on " + options.input);
  }
  if (!options.truth.empty()) { truth = read_truth(options.truth, image.dims); }
  std::vector<std::uint32_t> regions;
  if (!options.regions.empty()) { regions = read_regions(options.regions, image.dims); }
  report.dims = image.dims;
  report.read_seconds = seconds_since(started);

  // Every run's stages; the median run (by total time) is reported.
  struct run_times {
    double slic = 0;
    mrf_timings stages;
    [[nodiscard]] double total() const { return slic + stages.total(); }
  };
  mrf_result result;
  std::vector<run_times> runs;
  visit_backend(resolved, [&](const auto& backend) {
    report.backend = std::string(backend.name);
    for (int run = 0; run < options.repetitions; ++run) {
      started = std::chrono::steady_clock::now();
      run_times times;
      if (options.regions.empty()) {
        slic_result superpixels = slic_superpixels(backend, image, options.slic);
        times.slic = seconds_since(started);
        report.superpixels = superpixels.superpixels;
        regions = std::move(superpixels.labels);
      }
      result = mrf_segment(backend, image, regions, options.mrf);
      times.stages = result.timings;
      runs.push_back(times);
    }
  });
  std::sort(runs.begin(), runs.end(), [](const run_times& a, const run_times& b) { return a.total() < b.total(); });
  report.slic_seconds = runs[runs.size() / 2].slic;
  report.timings = runs[runs.size() / 2].stages;
  report.stats = result.stats;
  if (!options.regions.empty()) { report.superpixels = result.stats.regions; }
  report.mu = result.mu;
  report.sigma = result.sigma;
  if (!truth.empty()) {
    report.has_truth = true;
    std::vector<std::uint8_t> positive(result.labels.size());
    // The brightest label is the positive class (the solid of the porous volume).
    const auto top = static_cast<std::uint8_t>(options.mrf.label_count - 1);
    std::transform(result.labels.begin(), result.labels.end(), positive.begin(),
                   [top](std::uint8_t label) { return label == top ? 1 : 0; });
    report.scores = score_segmentation(positive, truth);
  }

  if (options.verify) {
    std::string problem;
    std::string checked = "labels in range, mu ascending";
    for (std::size_t i = 0; i < result.labels.size() && problem.empty(); ++i) {
      if (result.labels[i] >= options.mrf.label_count) {
        problem = "voxel " + std::to_string(i) + " has label " + std::to_string(result.labels[i]);
      }
    }
    if (problem.empty() && !std::is_sorted(result.mu.begin(), result.mu.end())) { problem = "mu not ascending"; }
    if (problem.empty() && resolved != backend_choice::host && image.values.size() <= segment_cross_check_max_voxels) {
      std::vector<std::uint32_t> host_regions = regions;
      if (options.regions.empty()) {
        const slic_result on_host = slic_superpixels(host{}, image, options.slic);
        if (on_host.labels != regions) { problem = "the host backend's superpixels differ"; }
        host_regions = on_host.labels;
      }
      if (problem.empty()) {
        const mrf_result on_host = mrf_segment(host{}, image, host_regions, options.mrf);
        if (on_host.labels != result.labels || on_host.mu != result.mu) {
          problem = "the host backend's labels differ";
        }
      }
      checked += ", equal to the host backend's";
    }
    report.check = problem.empty() ? checked : "FAILED: " + problem;
    report.verified = problem.empty();
    WARPDEX_EXPECTS(report.verified, "segment " + report.input + ": " + report.check);
  } else {
    report.check = "not run";
  }

  started = std::chrono::steady_clock::now();
  if (!options.output.empty()) {
    write_gray_volume(options.output,
                      label_volume(result.labels, image.dims, options.mrf.label_count, is_image_file(options.output)));
  }
  if (!options.image_output.empty()) { write_gray_volume(options.image_output, image); }
  if (!options.panel_output.empty()) {
    write_panel(options.panel_output, image, result.labels, truth, options.mrf.label_count);
  }
  if (!options.output.empty() || !options.image_output.empty() || !options.panel_output.empty()) {
    report.write_seconds = seconds_since(started);
  }
  return report;
}

}  // namespace warpdex::dpp
