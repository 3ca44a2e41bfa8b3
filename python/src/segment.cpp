// Bindings of the dpp family's image segmentation: MRF segmentation over an oversegmentation, SLIC
// superpixels, the synthetic porous volume, and the gray image files (raw, PNG, TIFF). Images travel as
// flat host arrays of uint8 or uint16 with their dimensions (width, height, depth); the library's image type
// holds its values itself, so they are copied into it.

#include "arrays.hpp"

#include <warpdex/dpp/gray_volume.hpp>
#include <warpdex/dpp/mrf_segment.hpp>
#include <warpdex/dpp/porous_volume.hpp>
#include <warpdex/dpp/slic.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <optional>
#include <string>
#include <tuple>
#include <utility>

namespace warpdex::python {
namespace {

using dims_tuple = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;

dpp::volume_dims dims_of(const dims_tuple& dims)
{
  return {std::get<0>(dims), std::get<1>(dims), std::get<2>(dims)};
}

/// The library's image of a flat host array of uint8 (8-bit) or uint16 (16-bit) values of `dims`.
dpp::gray_volume image_of(const char* function, const input_array& values, const dims_tuple& dims)
{
  call_arrays arrays(function);
  const bool wide = call_arrays::holds<std::uint16_t>(values);
  const auto copy = [&](auto span) {
    dpp::gray_volume image(dims_of(dims), wide ? 16 : 8);
    if (arrays.where().cuda) {
      throw nb::value_error(
          (std::string(function) + ": the image is read on the host: pass a host (NumPy) array").c_str());
    }
    expect_same_size(function, image.values.size(), "the image's dimensions", span.size(), "image");
    image.values.assign(span.begin(), span.end());
    return image;
  };
  if (wide) { return copy(arrays.span<std::uint16_t>(values, "image")); }
  return copy(arrays.span<std::uint8_t>(values, "image"));
}

/// The region ids of a flat host uint32 array with one id a voxel.
std::span<const std::uint32_t> regions_of(const char* function, const input_array& regions)
{
  call_arrays arrays(function);
  const auto span = arrays.span<std::uint32_t>(regions, "regions");
  if (arrays.where().cuda) {
    throw nb::value_error(
        (std::string(function) + ": the regions are read on the host: pass a host (NumPy) array").c_str());
  }
  return span;
}

nb::dict stats_of(const dpp::mrf_stats& stats)
{
  nb::dict result;
  result["regions"] = stats.regions;
  result["region_edges"] = stats.region_edges;
  result["cliques"] = stats.cliques;
  result["clique_number"] = stats.clique_number;
  result["neighbourhood_elements"] = stats.neighbourhood_elements;
  result["em_iterations"] = stats.em_iterations;
  result["map_iterations"] = stats.map_iterations;
  result["converged"] = stats.converged;
  result["energy"] = stats.energy;
  return result;
}

nb::dict timings_of(const dpp::mrf_timings& timings)
{
  nb::dict result;
  result["regions"] = timings.regions;
  result["graph"] = timings.graph;
  result["cliques"] = timings.cliques;
  result["neighbourhoods"] = timings.neighbourhoods;
  result["em"] = timings.em;
  result["output"] = timings.output;
  result["total"] = timings.total();
  return result;
}

/// (labels, mu, sigma, statistics, timings) of the segmentation of `image` over `regions` (flat arrays).
nb::tuple mrf_segment_binding(const input_array& image, const dims_tuple& dims, const input_array& regions,
                              std::uint32_t label_count, std::uint32_t em_iterations, std::uint32_t map_iterations,
                              std::uint32_t convergence_window, double convergence_threshold, double smoothness,
                              std::uint64_t memory_limit_bytes, const std::string& device)
{
  const dpp::gray_volume volume = image_of("mrf_segment", image, dims);
  const auto region_span = regions_of("mrf_segment", regions);
  dpp::mrf_options options;
  options.label_count = label_count;
  options.em_iterations = em_iterations;
  options.map_iterations = map_iterations;
  options.convergence_window = convergence_window;
  options.convergence_threshold = convergence_threshold;
  options.smoothness = smoothness;
  options.cliques.memory_limit_bytes = memory_limit_bytes;
  auto result = run_on(placement_of(device), 0,
                       [&](const auto& backend) { return dpp::mrf_segment(backend, volume, region_span, options); });
  nb::list mu, sigma;
  for (const double value : result.mu) { mu.append(value); }
  for (const double value : result.sigma) { sigma.append(value); }
  return nb::make_tuple(host_array(std::move(result.labels)), mu, sigma, stats_of(result.stats),
                        timings_of(result.timings));
}

/// (labels, centres, superpixels): the SLIC superpixels of `image` (flat).
nb::tuple slic_binding(const input_array& image, const dims_tuple& dims, std::uint64_t region_size, double compactness,
                       std::uint32_t iterations, std::uint32_t smoothing, const std::string& device)
{
  const dpp::gray_volume volume = image_of("slic_superpixels", image, dims);
  const dpp::slic_options options{region_size, compactness, iterations, smoothing};
  auto result = run_on(placement_of(device), 0,
                       [&](const auto& backend) { return dpp::slic_superpixels(backend, volume, options); });
  return nb::make_tuple(host_array(std::move(result.labels)), result.centres, result.superpixels);
}

/// (values, (width, height, depth), bit_depth) of a gray image file.
nb::tuple read_gray_volume_binding(const std::string& path, const dims_tuple& dims, std::uint32_t bit_depth)
{
  dpp::gray_volume volume;
  {
    nb::gil_scoped_release released;
    volume = dpp::read_gray_volume(path, dims_of(dims), bit_depth);
  }
  const dims_tuple read_dims{volume.dims.width, volume.dims.height, volume.dims.depth};
  return nb::make_tuple(host_array(std::move(volume.values)), read_dims, volume.bit_depth);
}

void write_gray_volume_binding(const std::string& path, const input_array& image, const dims_tuple& dims)
{
  const dpp::gray_volume volume = image_of("write_gray_volume", image, dims);
  nb::gil_scoped_release released;
  dpp::write_gray_volume(path, volume);
}

/// (image, truth), flat: the synthetic porous volume.
nb::tuple porous_volume_binding(const dims_tuple& dims, std::uint64_t seed, double porosity)
{
  dpp::porous_volume_options options;
  options.seed = seed;
  options.porosity = porosity;
  dpp::porous_volume volume;
  {
    nb::gil_scoped_release released;
    volume = dpp::generate_porous_volume(dims_of(dims), options);
  }
  return nb::make_tuple(host_array(std::move(volume.image.values)), host_array(std::move(volume.truth)));
}

}  // namespace

void bind_segment(nb::module_& module)
{
  module.def("mrf_segment", &mrf_segment_binding, nb::arg("image"), nb::arg("dims"), nb::arg("regions"),
             nb::arg("label_count"), nb::arg("em_iterations"), nb::arg("map_iterations"), nb::arg("convergence_window"),
             nb::arg("convergence_threshold"), nb::arg("smoothness"), nb::arg("memory_limit_bytes"), nb::arg("device"),
             "(labels, mu, sigma, statistics, timings): MRF segmentation of a flat image over its regions.");
  module.def("slic_superpixels", &slic_binding, nb::arg("image"), nb::arg("dims"), nb::arg("region_size"),
             nb::arg("compactness"), nb::arg("iterations"), nb::arg("smoothing"), nb::arg("device"),
             "(labels, centres, superpixels): SLIC superpixels of a flat image.");
  module.def("read_gray_volume", &read_gray_volume_binding, nb::arg("path"), nb::arg("dims"), nb::arg("bit_depth"),
             "(values, (width, height, depth), bit_depth): a gray image or volume from a raw, PNG or TIFF file.");
  module.def("write_gray_volume", &write_gray_volume_binding, nb::arg("path"), nb::arg("image"), nb::arg("dims"),
             "Writes a flat gray image (uint8 or uint16) as a raw, PNG or TIFF file by the extension.");
  module.def("porous_volume", &porous_volume_binding, nb::arg("dims"), nb::arg("seed"), nb::arg("porosity"),
             "(image, truth), flat: the synthetic porous volume and its ground truth.");
  module.attr("mrf_max_labels") = dpp::mrf_max_labels;
}

}  // namespace warpdex::python
