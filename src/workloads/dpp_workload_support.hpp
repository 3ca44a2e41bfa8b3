#pragma once
// What the dpp family's workloads (faces_workload.cpp, cliques_workload.cpp) share: stage timing and
// how a time is printed.

#include <chrono>
#include <cstdio>
#include <string>

namespace warpdex::dpp::detail {

inline double seconds_since(std::chrono::steady_clock::time_point started)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

inline std::string format_seconds(double seconds)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}

}  // namespace warpdex::dpp::detail
