// The cuda backend's grouping of the line count (Thrust's CUDA system).
#include "line_dedup_impl.hpp"

namespace warpdex::dpp::detail {

std::unique_ptr<line_grouper> make_line_grouper(const cuda& backend)
{
  return std::make_unique<thrust_line_grouper<cuda>>(backend);
}

}  // namespace warpdex::dpp::detail
