#include "commands.hpp"

#if WARPDEX_HAS_CUDA
#include "harness.hpp"
#endif

#include <warpdex/core/error.hpp>

#include <memory>

namespace warpdex::cli {

void add_bench_command(CLI::App& app, const global_options& globals)
{
  CLI::App* bench = app.add_subcommand("bench", "Run the benchmarks next to their baselines and write the record");
#if WARPDEX_HAS_CUDA
  auto opts = std::make_shared<bench::options>();
  bench::add_options(*bench, *opts);
  bench->callback([opts, &globals] {
    WARPDEX_EXPECTS(selected_backend(globals) == backend_choice::cuda,
                    "warpdex bench measures the cuda backend: it needs a GPU (--backend auto or cuda)");
    WARPDEX_EXPECTS(bench::run(*opts) == 0, "a benchmark's output failed its check (rows marked NOT VERIFIED)");
  });
#else
  bench->callback([] { WARPDEX_FAIL("warpdex bench measures the cuda backend, and this build has none"); });
  (void)globals;
#endif
}

}  // namespace warpdex::cli
