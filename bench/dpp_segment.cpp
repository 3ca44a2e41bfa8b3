// The segmentation rows: SLIC + dpp::mrf_segment of the synthetic porous-rock volume (the thesis's
// synthetic data, generated), end to end from host memory to labels in host memory, on the GPU and on the
// host backend in the same run, in voxels per second, with precision / recall / accuracy against the
// ground truth in the row's metrics. The GPU row's baseline is the host backend on the same input (the
// thesis compares with its OpenMP reference); both rows are verified by giving the same labels and an
// accuracy within half a point of what the tests hold on smaller inputs (98% in 3D, 96.5% for a 2D
// slice: 97.5% and 96%); the accuracy itself is in the row's metrics, against the target of 98%.
//
// Inputs (size_log2 >= 26; smaller runs scale them down): a 2048 x 2048 slice and a 160^3 volume (4M
// voxels each), and the thesis's 512^3 volume (GPU row only: the host backend would take minutes; the
// host rate of the 160^3 row stands for it). WARPDEX_BENCH_SEGMENT_THESIS=1 adds the thesis's
// experimental size, 1830 x 1813 x 500 (GPU only, SLIC cells of 8 voxels a side; it needs most of an
// H200's memory, and the row says so when it does not fit).
#include "benchmarks.hpp"

#include <warpdex/dpp/mrf_segment.hpp>
#include <warpdex/dpp/porous_volume.hpp>
#include <warpdex/dpp/slic.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace warpdex::bench {
namespace {

struct segment_input {
  std::string name;
  dpp::volume_dims dims;
  double accuracy;  ///< the least accuracy a verified row has
  bool host_row;    ///< also run on the host backend (and so a baseline)
  /// SLIC's grid interval. The default 4 makes about 3.4 neighbourhood elements a voxel in 3D (each region
  /// lies in some 200 neighbourhoods), which would take the experimental size's 1.66G voxels past the 2^32
  /// elements mrf_segment holds; 8 makes 0.85 a voxel (97.9% accurate on a 96^3 volume, about 90 bytes of
  /// device memory an element: 1.4G elements may still not fit an H200).
  std::uint64_t region_size = 4;
};

struct segment_run {
  std::vector<std::uint8_t> labels;
  dpp::segmentation_scores scores;
  double ms = 0;
};

template <class Backend>
segment_run segment(const Backend& backend, const dpp::porous_volume& rock, std::uint64_t region_size, int repetitions)
{
  segment_run run;
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) {
    const auto started = std::chrono::steady_clock::now();
    const auto superpixels = dpp::slic_superpixels(backend, rock.image, {.region_size = region_size});
    auto result = dpp::mrf_segment(backend, rock.image, superpixels.labels);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
    run.labels = std::move(result.labels);
  }
  std::sort(times.begin(), times.end());
  run.ms = times[times.size() / 2];
  std::vector<std::uint8_t> solid(run.labels.size());
  std::transform(run.labels.begin(), run.labels.end(), solid.begin(), [](std::uint8_t l) { return l == 1 ? 1 : 0; });
  run.scores = dpp::score_segmentation(solid, rock.truth);
  return run;
}

void run_input(context& ctx, const segment_input& input)
{
  const std::string suffix = "/" + input.name + "/voxels=" + std::to_string(input.dims.voxels());
  const std::string gpu_name = "segment" + suffix;
  const std::string host_name = "segment_host" + suffix;
  const bool want_host = input.host_row && ctx.selected(host_name);
  if (!ctx.selected(gpu_name) && !want_host) { return; }
  const auto generated = std::chrono::steady_clock::now();
  const dpp::porous_volume rock = dpp::generate_porous_volume(input.dims, {.seed = 0x5e9});
  std::printf("  %s: %s generated in %.1f s (porosity %.3f)\n", input.name.c_str(), input.dims.to_string().c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - generated).count(), rock.porosity);
  // The GPU: one warm-up, then the repetitions (at most 5: a run is seconds at the largest sizes).
  segment(cuda{}, rock, input.region_size, 1);
  const segment_run on_gpu = segment(cuda{}, rock, input.region_size, std::clamp(ctx.opts().repetitions, 1, 5));
  segment_run on_host;
  if (want_host || input.host_row) { on_host = segment(host{}, rock, input.region_size, 1); }
  const double voxels = static_cast<double>(input.dims.voxels());
  const auto rate = [&](double ms) { return voxels / (ms * 1e3); };  // Mvoxels/s
  const auto add_row = [&](const std::string& name, const segment_run& run, bool with_baseline) {
    row r;
    r.name = name;
    r.n = input.dims.voxels();
    r.median_ms = run.ms;
    r.value = rate(run.ms);
    r.unit = "Mvoxels/s";
    if (with_baseline) {
      r.baseline = "the host backend (OpenMP, all cores), same volume";
      r.baseline_value = rate(on_host.ms);
    }
    const bool same = !input.host_row || on_host.labels == on_gpu.labels;
    r.verified = same && run.scores.accuracy() >= input.accuracy;
    r.metrics = {
        {"precision", run.scores.precision()}, {"recall", run.scores.recall()}, {"accuracy", run.scores.accuracy()}};
    ctx.add(r);
    std::printf("  %s: precision %.4f recall %.4f accuracy %.4f%s\n", name.c_str(), run.scores.precision(),
                run.scores.recall(), run.scores.accuracy(), same ? "" : " (the backends' labels differ)");
  };
  if (ctx.selected(gpu_name)) { add_row(gpu_name, on_gpu, input.host_row); }
  if (want_host) { add_row(host_name, on_host, false); }
}

}  // namespace

void run_dpp_segment(context& ctx)
{
  // Full size (--size-log2 >= 26): 2^22 voxels in 2D and 3D; smaller runs shrink them with n.
  const std::uint32_t scale = std::min<std::uint32_t>(ctx.opts().size_log2, 26) - 4;
  const auto side_2d = static_cast<std::uint64_t>(1) << (scale / 2);
  const auto side_3d = static_cast<std::uint64_t>(std::cbrt(static_cast<double>(std::uint64_t{1} << scale)) / 8) * 8;
  std::vector<segment_input> inputs = {
      {"porous-2d", {side_2d, side_2d, 1}, 0.96, true},
      {"porous-3d", {side_3d, side_3d, side_3d}, 0.975, true},
  };
  if (ctx.opts().size_log2 >= 26) { inputs.push_back({"porous-thesis", {512, 512, 512}, 0.975, false}); }
  const char* thesis = std::getenv("WARPDEX_BENCH_SEGMENT_THESIS");
  if (thesis != nullptr && std::string(thesis) == "1") {
    inputs.push_back({"porous-experimental-size", {1830, 1813, 500}, 0.975, false, 8});
  }
  for (const auto& input : inputs) {
    try {
      run_input(ctx, input);
    } catch (const error& failure) {
      // Out of memory, or past the 2^32 neighbourhood elements: said, and the other rows still run.
      std::printf("  %s: %s\n", input.name.c_str(), failure.what());
    }
  }
}

}  // namespace warpdex::bench
