#pragma once
// The dpp family's benchmarks, listed in registry() (harness.cpp). Declared apart from benchmarks.hpp
// so that adding them leaves the other benchmarks' translation units untouched.

#include "harness.hpp"

namespace warpdex::bench {

/// Duplicate search (hash fighting, sort; once / unique / counts) next to CUB sort + unique / run-length
/// encode (dpp_dedup.cu).
void run_dpp_dedup(context& ctx);

/// hashfight_map build and finds at three load factors next to the open-addressing baseline
/// (dpp_hashfight.cu).
void run_dpp_hashfight(context& ctx);

/// hashfight_map on the host backend next to tbb::concurrent_unordered_map with as many threads
/// (dpp_hashfight_host.cpp; built when TBB is found).
void run_dpp_hashfight_host(context& ctx);

/// External faces of 10M- and 40M-cell tetrahedralized grids, the same cubes as hexahedra and a mixed
/// grid, every method next to the tuple sort (dpp_faces.cpp): rows faces/<method>/<mesh>/cells=<n>.
void run_dpp_faces(context& ctx);

/// The same on the host backend on 126^3 cubes, tetrahedra and hexahedra (dpp_faces.cpp): rows
/// faces_host/<method>/<mesh>/cells=<n>.
void run_dpp_faces_host(context& ctx);

}  // namespace warpdex::bench
