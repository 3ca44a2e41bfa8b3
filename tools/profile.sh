#!/usr/bin/env bash
# Hardware counters of the benchmark kernels (docs/gpu.md), on the GPU machine with gpu-bundle/ present:
#
#   tools/profile.sh OUT_DIR NAME FILTER KERNELS [more NAME FILTER KERNELS triples...]
#
# For each triple it runs Nsight Compute over `warpdex-bench --filter FILTER` at a reduced size
# (WARPDEX_PROFILE_SIZE_LOG2, default 24), profiling the first WARPDEX_PROFILE_LAUNCHES (default 8)
# launches of kernels whose names match the regular expression KERNELS (ours and the baseline's), and
# writes OUT_DIR/NAME.txt: per kernel, the speed-of-light
# throughputs (DRAM, SM, L1/shared, L2), achieved occupancy and its limiters, issue-slot use, executed
# instructions and the busiest pipes, and the warp stall reasons, which say whether a kernel is bound
# by bytes, instructions or latency.
# KERNELS matches the kernel's function name (ncu's --kernel-name-base function), which for Thrust's and
# CUB's generic kernels is theirs, not the functor's: WARPDEX_PROFILE_NAME_BASE=demangled matches the whole
# demangled name with its template arguments instead (e.g. a functor in src/graph).
# Clocks are left as the machine has them (--clock-control none).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: tools/profile.sh OUT_DIR NAME FILTER KERNELS [NAME FILTER KERNELS ...]}
shift
bundle=${WARPDEX_GPU_BUNDLE:-gpu-bundle}
size_log2=${WARPDEX_PROFILE_SIZE_LOG2:-24}
launches=${WARPDEX_PROFILE_LAUNCHES:-8}
name_base=${WARPDEX_PROFILE_NAME_BASE:-function}
export LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$out"
failed=0
while [ $# -ge 3 ]; do
  name=$1 filter=$2 kernels=$3
  shift 3
  ncu --clock-control none --kernel-name-base "$name_base" --kernel-name "regex:$kernels" --launch-count "$launches" \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section InstructionStats --section ComputeWorkloadAnalysis \
    "$bundle/warpdex-bench" --filter "$filter" --size-log2 "$size_log2" --repetitions 10 --warmup 1 \
    --no-record >"$out/$name.txt" 2>&1 || failed=1
  echo "$name: $(grep -c 'Section: GPU Speed Of Light Throughput' "$out/$name.txt") kernel launches profiled"
done
exit $failed
