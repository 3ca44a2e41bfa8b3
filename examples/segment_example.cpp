// MRF image segmentation: a generated 192 x 192 slice of synthetic porous rock (two phases under heavy
// noise, with its ground truth), oversegmented by SLIC superpixels and labelled by EM with MAP inference
// over the maximal cliques of their adjacency graph; scored against the truth and written as a PNG.
// Runs on the GPU when one is present, else on the CPU; same labels.
#include <warpdex/core/backend.hpp>
#include <warpdex/dpp/gray_volume.hpp>
#include <warpdex/dpp/mrf_segment.hpp>
#include <warpdex/dpp/porous_volume.hpp>
#include <warpdex/dpp/slic.hpp>

#include <cstdio>

int main()
{
  namespace dpp = warpdex::dpp;
  // Or: const dpp::gray_volume image = dpp::read_png("slice.png");
  const dpp::porous_volume rock = dpp::generate_porous_volume({.width = 192, .height = 192}, {.seed = 7});
  const auto choice = warpdex::resolve_backend(warpdex::backend_choice::automatic);
  return warpdex::visit_backend(choice, [&](const auto& backend) {
    // Superpixels of about 4 x 4 pixels, then two labels: 0 the darker phase (pores), 1 the brighter.
    const dpp::slic_result superpixels = dpp::slic_superpixels(backend, rock.image, {.region_size = 4});
    const dpp::mrf_result result = dpp::mrf_segment(backend, rock.image, superpixels.labels, {.label_count = 2});
    const dpp::segmentation_scores scores = dpp::score_segmentation(result.labels, rock.truth);
    std::printf("%llu superpixels, %llu maximal cliques, %u EM iterations\n",
                static_cast<unsigned long long>(superpixels.superpixels),
                static_cast<unsigned long long>(result.stats.cliques), result.stats.em_iterations);
    std::printf("pores: mu %.0f sigma %.0f; solid: mu %.0f sigma %.0f\n", result.mu[0], result.sigma[0], result.mu[1],
                result.sigma[1]);
    std::printf("precision %.3f, recall %.3f, accuracy %.3f\n", scores.precision(), scores.recall(), scores.accuracy());

    dpp::gray_volume labels(rock.image.dims, 8);
    for (std::size_t i = 0; i < labels.values.size(); ++i) { labels.values[i] = result.labels[i] * 255; }
    dpp::write_png("segment_example_labels.png", labels);
    return scores.accuracy() >= 0.95 ? 0 : 1;
  });
}
