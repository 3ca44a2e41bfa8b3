// The host backend's SSSP: the Thrust implementation on Thrust's OpenMP system, bucketing with the host
// multisplit.
#include <warpdex/split/multisplit_host.hpp>

#include "sssp_impl.hpp"

namespace warpdex::graph {

WARPDEX_INSTANTIATE_SSSP(host, std::int32_t)
WARPDEX_INSTANTIATE_SSSP(host, float)

sssp_algorithm parse_sssp_algorithm(const std::string& text)
{
  if (text == "auto") { return sssp_algorithm::automatic; }
  if (text == "delta-stepping") { return sssp_algorithm::delta_stepping; }
  if (text == "near-far") { return sssp_algorithm::near_far; }
  if (text == "bellman-ford") { return sssp_algorithm::bellman_ford; }
  if (text == "async-delta-stepping") { return sssp_algorithm::async_delta_stepping; }
  WARPDEX_FAIL("unknown SSSP algorithm '" + text +
               "' (auto, delta-stepping, near-far, bellman-ford or async-delta-stepping)");
}

std::string to_string(sssp_algorithm algorithm)
{
  switch (algorithm) {
    case sssp_algorithm::delta_stepping:
      return "delta-stepping";
    case sssp_algorithm::near_far:
      return "near-far";
    case sssp_algorithm::bellman_ford:
      return "bellman-ford";
    case sssp_algorithm::async_delta_stepping:
      return "async-delta-stepping";
    default:
      return "auto";
  }
}

}  // namespace warpdex::graph
