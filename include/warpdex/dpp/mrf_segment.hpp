#pragma once
/// @file MRF image segmentation over an oversegmentation (DPP-PMRF, Lessley Ch. VIII): the regions of an
/// oversegmented image or volume are labelled by expectation-maximization with MAP inference over the
/// neighbourhoods of the maximal cliques of their adjacency graph, on either backend with the same result
/// (docs/dpp.md, "MRF image segmentation").
///
/// ```
/// const auto rock = warpdex::dpp::generate_porous_volume({.width = 256, .height = 256}, {.seed = 7});
/// const auto regions = warpdex::dpp::slic_superpixels(warpdex::host{}, rock.image, {});
/// const auto result = warpdex::dpp::mrf_segment(warpdex::host{}, rock.image, regions.labels);
/// const auto scores = warpdex::dpp::score_segmentation(result.labels, rock.truth);  // accuracy ~0.98
/// ```
///
/// **Model.** Vertex r of the region adjacency graph is region r (its voxels: those with one region id),
/// with y_r its mean intensity (kept to 1/16 of a gray level); an edge joins two regions with face-adjacent
/// voxels (4-neighbourhood in 2D, 6 in 3D). Each maximal clique of the graph (`maximal_cliques`) makes one
/// neighbourhood: its vertices and every vertex one edge away from one of them. The energy of vertex v
/// with label l inside neighbourhood h, given the labels of h's vertices, is
///
///     E(v, l) = (y_v - mu_l)^2 / (2 sigma_l^2) + ln sigma_l + smoothness * #{u in h adjacent to v : label(u) != l}
///
/// capped at 4096 and held in fixed point (1/65536), so that every sum below is exact and the same on
/// both backends.
///
/// **Method** (the thesis's DPP formulation). Initialization: mu_l at the quantile (l + 1/2) / labels of
/// the region means, sigma_l the means' standard deviation over the label count, each region the label
/// of least data energy (the thesis starts from random parameters; a start from the data needs no seed and
/// converges in fewer iterations). Then, each EM iteration:
///  1. *MAP* over all neighbourhoods at once, each vertex of each neighbourhood replicated once a label
///     (replica i * labels + l): the energy of every replica and the least-energy label of every
///     element, in one Map (a vertex's replicas are adjacent, so the thesis's SortByKey is the identity
///     and its ReduceByKey<Min> over segments of `labels` replicas is a loop in the Map); the energy sum
///     of every neighbourhood (ReduceByKey<Add>). The labels inside a neighbourhood are its own copies.
///     Moving every element to its least-energy label at once lets two neighbours swap labels back and
///     forth for ever, so an element moves only when no neighbour that also wants to move has a higher
///     priority (a hash of the region's first voxel and the iteration): each move lowers the energy and
///     the labels settle. A neighbourhood whose energy sums of the last `convergence_window` MAP
///     iterations differ by at most `convergence_threshold` of the latest is converged and keeps its
///     labels. MAP stops when all are converged or after `map_iterations`.
///  2. *Labels*: a vertex lies in several neighbourhoods; it takes the label whose energy, summed over
///     all its replicas, is least (sort by vertex once, then ReduceByKey<Add>) — the thesis's Scatter,
///     made deterministic.
///  3. *Parameters*: mu_l and sigma_l, the mean and standard deviation of y over the regions labelled l
///     (exact integer sums); sigma is at least 1 gray level. A label with no region keeps its parameters.
///  4. *Convergence*: EM stops when the total energy of the last `convergence_window` iterations differs
///     by at most `convergence_threshold` of the latest, or after `em_iterations`.
/// Finally the labels are renumbered by ascending mu (label 0 the darkest) and mapped to the voxels.
///
/// Work per EM iteration: O(map_iterations * replicas * neighbours within the neighbourhood); memory
/// O(voxels) for the image and region ids and O(neighbourhood elements * labels) for the replicas.
///
/// Errors (`warpdex::error`, before any work): a region id per voxel expected; label_count outside
/// [2, max_labels]; zero iterations or window; a negative smoothness or threshold.

#include <warpdex/core/backend.hpp>
#include <warpdex/dpp/gray_volume.hpp>
#include <warpdex/dpp/maximal_cliques.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace warpdex::dpp {

/// The most labels `mrf_segment` assigns.
inline constexpr std::uint32_t mrf_max_labels = 8;

/// The segmentation's parameters (the defaults are the thesis's where it gives them).
struct mrf_options {
  std::uint32_t label_count = 2;         ///< labels to assign, 2 .. mrf_max_labels
  std::uint32_t em_iterations = 20;      ///< the most EM iterations (the thesis: 20)
  std::uint32_t map_iterations = 10;     ///< the most MAP iterations within one EM iteration
  std::uint32_t convergence_window = 3;  ///< L: iterations whose energies must agree (the thesis: 3)
  double convergence_threshold = 1e-4;   ///< relative change accepted as converged (the thesis: 1e-4)
  double smoothness = 1.0;               ///< the weight of a disagreeing neighbour (in units of the data term)
  clique_options cliques{};              ///< for the maximal clique enumeration (memory limit)
};

/// How the segmentation went.
struct mrf_stats {
  std::uint64_t regions = 0;                 ///< vertices of the region adjacency graph
  std::uint64_t region_edges = 0;            ///< its edges
  std::uint64_t cliques = 0;                 ///< its maximal cliques = the neighbourhoods
  std::uint32_t clique_number = 0;           ///< its largest clique
  std::uint64_t neighbourhood_elements = 0;  ///< (neighbourhood, vertex) pairs
  std::uint32_t em_iterations = 0;           ///< EM iterations run
  std::uint64_t map_iterations = 0;          ///< MAP iterations run, over all EM iterations
  bool converged = false;                    ///< EM stopped on its convergence test
  double energy = 0;                         ///< the total neighbourhood energy after the last iteration
};

/// Seconds spent in each stage (the backend synchronized at each stage's end).
struct mrf_timings {
  double regions = 0;         ///< region ids made dense, region means
  double graph = 0;           ///< region adjacency graph (CSR)
  double cliques = 0;         ///< maximal cliques
  double neighbourhoods = 0;  ///< neighbourhoods and their adjacency
  double em = 0;              ///< EM with MAP inference
  double output = 0;          ///< labels mapped to voxels, copied to the host
  [[nodiscard]] double total() const { return regions + graph + cliques + neighbourhoods + em + output; }
};

/// A segmentation.
struct mrf_result {
  std::vector<std::uint8_t> labels;  ///< per voxel, 0 .. label_count - 1, by ascending mu
  std::vector<double> mu;            ///< per label: the mean region intensity
  std::vector<double> sigma;         ///< per label: the standard deviation of the region intensities
  mrf_stats stats;
  mrf_timings timings;
};

/// Segments `image` into `options.label_count` labels over the oversegmentation `regions` (a region id
/// per voxel, any 32-bit values; voxels with one id form one region, connected or not), in host memory.
/// The work runs on `backend`; the result is in host memory and equal on every backend.
template <class Backend>
[[nodiscard]] mrf_result mrf_segment(const Backend& backend, const gray_volume& image,
                                     std::span<const std::uint32_t> regions, const mrf_options& options = {});

}  // namespace warpdex::dpp
