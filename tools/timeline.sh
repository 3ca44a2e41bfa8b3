#!/usr/bin/env bash
# A GPU timeline of any program: kernels, copies and fills with their GPU start and end times (and, with
# WARPDEX_TIMELINE_API=1, every CUDA runtime call's host time), written as CSV and summarized.
#
#   tools/timeline.sh build                       builds tools/timeline/libwarpdex_timeline.so (needs CUPTI)
#   tools/timeline.sh OUT.csv PROGRAM [ARGS...]   runs PROGRAM with the tracer loaded; then
#   tools/timeline.py OUT.csv                     summarizes (see its --help)
#
# For latency-bound loops (an LSM insert batch, a small hash batch), where Nsight Compute's serialized
# kernel durations miss the gaps between kernels.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
library=${WARPDEX_TIMELINE_LIBRARY:-$here/timeline/libwarpdex_timeline.so}
if [[ ${1:-} == build ]]; then
  cuda=${CUDA_HOME:-/usr/local/cuda}
  include=$cuda/include
  [[ -f $include/cupti.h ]] || include=$cuda/extras/CUPTI/include
  libdir=$cuda/lib64
  [[ -e $libdir/libcupti.so ]] || libdir=$cuda/lib
  [[ -e $libdir/libcupti.so ]] || libdir=$cuda/extras/CUPTI/lib64
  g++ -std=c++20 -O2 -shared -fPIC -I"$include" "$here/timeline/cupti_timeline.cpp" -L"$libdir" -lcupti \
    -Wl,-rpath,"$libdir" -o "$library"
  echo "built $library"
  exit 0
fi
[[ $# -ge 2 ]] || { sed -n '2,10p' "$0"; exit 2; }
out=$1
shift
WARPDEX_TIMELINE=$out LD_PRELOAD=$library${LD_PRELOAD:+:$LD_PRELOAD} "$@"
