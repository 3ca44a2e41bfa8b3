// `warpdex segment IMAGE -o LABELS`: MRF segmentation of a PNG or TIFF image, a TIFF stack or a raw volume (or the
// generated synthetic porous volume), over SLIC superpixels or a given region file, with precision / recall / accuracy
// against a ground truth when there is one and the time of each stage (the shared workload,
// include/warpdex/dpp/segment_workload.hpp).
#include "commands.hpp"
#include "segment_workload.hpp"

#include <warpdex/dpp/gray_volume.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

namespace warpdex::cli {
namespace {

struct segment_cli_options {
  dpp::segment_workload_options workload;
  std::string dims;
  std::string generate;
  bool bits_given = false;
  bool no_verify = false;
};

/// A validator of an output file's extension: the formats the writer has (`raw`: .raw too), named when
/// another is given, instead of raw bytes under a name that promises a picture.
CLI::Validator image_extension(bool raw)
{
  return CLI::Validator(
      [raw](const std::string& path) {
        std::string extension = std::filesystem::path(path).extension().string();
        std::transform(extension.begin(), extension.end(), extension.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (dpp::gray_file_format_of(path) != dpp::gray_file_format::raw || (raw && extension == ".raw")) {
          return std::string();
        }
        return "unknown extension '" + std::filesystem::path(path).extension().string() + "' (expected " +
               (raw ? ".png, .tif, .tiff or .raw" : ".png, .tif or .tiff") + ")";
      },
      "FILE", "image file");
}

void run_segment_command(const global_options& globals, segment_cli_options opts)
{
  if (!opts.generate.empty() && !opts.workload.input.empty()) {
    usage_error("segment: give an image file or --generate, not both");
  }
  if (opts.generate.empty() && opts.workload.input.empty()) {
    usage_error("segment: give an image file or --generate");
  }
  if (!opts.dims.empty() && !opts.generate.empty()) { usage_error("segment: --dims is for raw input files"); }
  if ((!opts.dims.empty() || opts.bits_given) && !opts.workload.input.empty() &&
      dpp::gray_file_format_of(opts.workload.input) != dpp::gray_file_format::raw) {
    const bool png = dpp::gray_file_format_of(opts.workload.input) == dpp::gray_file_format::png;
    usage_error(std::string("segment ") + (opts.dims.empty() ? "--bits" : "--dims") + ": " + opts.workload.input +
                " carries its own dimensions and depth (" + (png ? "PNG" : "TIFF") +
                "): --dims and --bits are for raw input");
  }
  opts.workload.generate = !opts.generate.empty();
  if (!opts.generate.empty()) { opts.workload.dims = dpp::parse_volume_dims(opts.generate); }
  if (!opts.dims.empty()) { opts.workload.dims = dpp::parse_volume_dims(opts.dims); }
  opts.workload.verify = !opts.no_verify;
  const dpp::segment_workload_report report = dpp::run_segment_workload(selected_backend(globals), opts.workload);
  std::printf("warpdex segment: %s\n", report.summary().c_str());
  if (!opts.workload.output.empty()) { std::printf("labels written to %s\n", opts.workload.output.c_str()); }
}

}  // namespace

void add_segment_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<segment_cli_options>();
  auto& workload = opts->workload;
  CLI::App* segment = app.add_subcommand(
      "segment",
      "MRF segmentation (DPP-PMRF) of a gray PNG or TIFF image, a TIFF stack (a page per slice) or a raw volume "
      "over SLIC superpixels or given regions");
  segment->add_option(
      "image", workload.input,
      "A gray PNG or TIFF (8/16-bit; color is turned to gray), a multi-page TIFF stack (a volume), or a raw "
      "volume (--dims)");
  segment
      ->add_option("-o,--output", workload.output,
                   "Write the labels: .png (2D) or .tif / .tiff (2D, or a stack for a volume), labels spread over "
                   "0..255; or .raw (a byte a voxel, the label)")
      ->check(image_extension(true));
  segment->add_option("--dims", opts->dims, "A raw input's dimensions, WIDTHxHEIGHT[xDEPTH]");
  CLI::Option* bits = segment->add_option("--bits", workload.bit_depth, "A raw input's bits per voxel (little-endian)")
                          ->check(whole_number_in({8, 16}));
  segment->add_option("--generate", opts->generate,
                      "Segment the synthetic porous-rock volume of WIDTHxHEIGHT[xDEPTH] (with its ground truth)");
  segment->add_option("--seed", workload.generator.seed, "Seed of the generated volume");
  segment->add_option("--porosity", workload.generator.porosity, "Pore fraction of the generated volume")
      ->check(CLI::Range(0.01, 0.99));
  segment->add_option("--noise", workload.generator.noise_sigma, "Gaussian noise of the generated volume (sigma)")
      ->check(CLI::Range(0.0, 10000.0));
  segment->add_option("--regions", workload.regions,
                      "An oversegmentation: PNG or TIFF (values are region ids) or raw 32-bit ids; default: SLIC");
  segment->add_option("--truth", workload.truth,
                      "A ground truth (PNG, TIFF or raw 8-bit; nonzero = the brightest label)");
  segment->add_option("--labels", workload.mrf.label_count, "Labels to assign")
      ->check(CLI::Range(2U, dpp::mrf_max_labels));
  segment->add_option("--smoothness", workload.mrf.smoothness, "Weight of a disagreeing neighbour")
      ->check(CLI::Range(0.0, 1000.0));
  segment->add_option("--em-iterations", workload.mrf.em_iterations, "Most EM iterations")
      ->check(CLI::Range(1U, 10000U));
  segment->add_option("--map-iterations", workload.mrf.map_iterations, "Most MAP iterations per EM iteration")
      ->check(CLI::Range(1U, 10000U));
  segment->add_option("--region-size", workload.slic.region_size, "SLIC grid interval in voxels")
      ->check(CLI::Range(2U, 1U << 20));
  segment->add_option("--compactness", workload.slic.compactness, "SLIC compactness")->check(CLI::Range(0.001, 1e6));
  segment
      ->add_option("--write-image", workload.image_output,
                   "Write the input (the generated volume) here too (.png, .tif, .tiff or .raw)")
      ->check(image_extension(true));
  segment
      ->add_option("--panel", workload.panel_output,
                   "Write input | labels | truth side by side (2D; .png, .tif, .tiff)")
      ->check(image_extension(false));
  segment->add_option("--repetitions", workload.repetitions, "Timed runs (the median is reported)")
      ->check(CLI::Range(1, 1000));
  segment->add_flag("--no-verify", opts->no_verify, "Skip the checks (labels in range, equal to the host backend's)");
  segment->callback([opts, &globals, bits] {
    opts->bits_given = bits->count() > 0;
    run_segment_command(globals, *opts);
  });
}

}  // namespace warpdex::cli
