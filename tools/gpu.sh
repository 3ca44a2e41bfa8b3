#!/usr/bin/env bash
# The GPU loop, always done the same way (docs/gpu.md):
#
#   tools/gpu.sh build          on a machine with nvcc but no GPU: builds for sm_90 (H100 / H200) in
#                               build-gpu/ and stages the binaries and the commit in gpu-bundle/
#                               (and gpu-bundle.tar.gz, which `run` unpacks when the folder is absent)
#   tools/gpu.sh run OUT_DIR    on the GPU machine, with gpu-bundle/ present: runs the GPU test suites,
#                               compute-sanitizer (memcheck, racecheck, synccheck) over each suite, and
#                               the benchmarks; logs, JUnit XML and the JSON record go to OUT_DIR.
#   tools/gpu.sh python-build   beside `build`: builds the library alone for sm_90 in build-gpu-python/ and
#                               stages gpu-bundle-python/ (and its .tar.gz): the library installed (headers,
#                               archive, CMake package), the Python package's sources and tests, the runtime
#                               libraries; kept apart from gpu-bundle/ so that each stays small to carry.
#   tools/gpu.sh python OUT_DIR on the GPU machine, with gpu-bundle-python/ present: builds the Python
#                               extension there (its python3, nanobind and CMake, against the staged library:
#                               one C++ translation unit per family, no CUDA compilation) and runs python/tests
#                               with CuPy and PyTorch, then bench/python_overhead.py. WARPDEX_PYTHON names
#                               another interpreter than python3.
#
# `run` goes through every step even when one fails, prints a summary table last and exits non-zero
# if any step failed. Extra arguments after OUT_DIR go to warpdex-bench (e.g. --filter 'multisplit').
# WARPDEX_GPU_BUILD_DIR and WARPDEX_GPU_BUNDLE name other folders than build-gpu and gpu-bundle;
# WARPDEX_RACECHECK_SKIP lists suites racecheck leaves out and WARPDEX_SANITIZER_FILTER the cases every sanitizer
# leaves out (see below); WARPDEX_SANITIZERS names the
# compute-sanitizer tools to run (default: memcheck racecheck synccheck; empty: none).
set -uo pipefail
cd "$(dirname "$0")/.."
# racecheck finds shared-memory hazards only; suites whose kernels are all CUB/Thrust (no shared memory
# of warpdex's own) are left out of it, because it runs them for many minutes. Override to change.
# The graph suite's kernels are Thrust's plus warpdex's multisplit, which the split suite racechecks; its
# many small SSSP rounds would make racecheck run for a long time. The segmentation suite (mrf) is
# Thrust's kernels alone, like dpp's.
# The distributed suite's kernels are the multisplit's (racechecked by the split suite) and element-wise ones
# without shared memory.
racecheck_skip=${WARPDEX_RACECHECK_SKIP:-warpdex_tests_dpp warpdex_tests_graph warpdex_tests_mrf warpdex_tests_distributed}
# Cases left out under compute-sanitizer: the Huge ones (minutes under a sanitizer) and the NCCL communicator's
# (NCCL's own kernels, peer mappings and proxy threads are NCCL's to check; one of them starts a second process).
# The distributed map's whole protocol on the GPU is still checked there, over the in-process loopback group.
sanitizer_filter=${WARPDEX_SANITIZER_FILTER:--*Huge*:communicator_test.*}
# racecheck's cost grows with every shared-memory access, so it runs each suite with WARPDEX_TEST_SIZE=sanitizer
# (suites that honour it shrink their large inputs and drop their fresh seeds: tests/support/backend_fixture.hpp)
# and, for the suites named here, only the cases listed (gtest patterns, before sanitizer_filter's exclusions):
# the split suite's cuda cases, which reach every split kernel (partition, single pass, three passes, super
# buckets, the sort, privatized / block-shared / global histograms, 64-bit keys, pairs); its host cases run no
# kernel. WARPDEX_RACECHECK_SPLIT_CASES overrides the split suite's list.
# The LSM suite's cuda cases that reach its merges of levels staged in shared memory (every update, the
# cleanup's live-only merge) with repeated keys across tiles: about 70 s under racecheck on an H200, where
# all its cuda cases run past 200 s.
# The hash suite's cases that reach its kernels with shared memory (the batch check, size/statistics, the
# export) and its allocator, growth and combined batches: about 35 s under racecheck on an H200, where its
# whole cuda half runs past 150 s.
declare -A racecheck_cases=(
  [warpdex_tests_split]=${WARPDEX_RACECHECK_SPLIT_CASES:-'*/cuda.*:warp_multisplit_test.*'}
  [warpdex_tests_hash]=${WARPDEX_RACECHECK_HASH_CASES:-'slab_map_test/cuda.*:slab_growth_test/cuda.*:slab_alloc_test.*:slab_combine_test/cuda.Zipf*'}
  [warpdex_tests_lsm]=${WARPDEX_RACECHECK_LSM_CASES:-'*/cuda.large_batches*:*/cuda.cleanup*:*/cuda.large_sparse*:*/cuda.duplicates*'}
)
build_dir=${WARPDEX_GPU_BUILD_DIR:-build-gpu}
bundle=${WARPDEX_GPU_BUNDLE:-gpu-bundle}

build() {
  set -e
  source tools/env.sh
  local architectures=${CMAKE_CUDA_ARCHITECTURES:-90}
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$architectures" \
    -DWARPDEX_BUILD_TESTS=ON -DWARPDEX_BUILD_BENCH=ON -DWARPDEX_BUILD_CLI=ON
  cmake --build "$build_dir" -j "$build_jobs"
  rm -rf "$bundle"
  mkdir -p "$bundle/tests" "$bundle/lib"
  find "$build_dir/tests" -maxdepth 1 -type f -executable -name 'warpdex_tests_*' -exec cp {} "$bundle/tests/" \;
  cp "$build_dir/bench/warpdex-bench" "$build_dir/src/cli/warpdex" "$bundle/"
  # The GPU machine's image may lack the OpenMP runtime of this compiler: ship it beside the binaries.
  cp "$(g++ -print-file-name=libgomp.so.1)" "$bundle/lib/"
  # ripgrep, the baseline of the grep benchmark rows, found by warpdex-bench in bin/ beside it (the GPU
  # machine has none).
  if command -v rg > /dev/null; then
    mkdir -p "$bundle/bin"
    cp "$(command -v rg)" "$bundle/bin/rg"
  else
    echo "rg not found: the grep benchmark rows will compare with GNU grep only (tools/install-deps.sh installs ripgrep)"
  fi
  # Every shared library the binaries link beyond the base system, whichever the build found: TBB (the
  # host HashFight baseline), zlib (graph files), libpng and libtiff with the codecs libtiff pulls (images
  # of the segmentation), PCRE2 (ripgrep's).
  copy_shared_libraries "$bundle/lib" "$bundle"/tests/warpdex_tests_* "$bundle/warpdex-bench" "$bundle/warpdex" \
    "$bundle"/bin/*
  stamp_and_pack "$bundle"
}

# copy_shared_libraries DIR FILE...: copies into DIR every shared library the files (binaries or libraries)
# need, as ldd resolves them here, except the base system that every machine has (the C library and its
# loader, libm, libpthread, libdl, librt, libstdc++, libgcc_s), the NVIDIA driver's, and NCCL's (hundreds of
# megabytes; the GPU machine's Python has it: `run` finds it there, nccl_library_dir); libgomp is copied from the
# compiler (g++ -print-file-name) by the callers. Each library keeps the name it is loaded by.
# Fails when a library is not found.
copy_shared_libraries() {
  local folder=$1 file listing name library missing
  shift
  for file in "$@"; do
    # Not a file, or not dynamically linked (a static ripgrep): nothing to copy.
    [ -f "$file" ] && listing=$(ldd "$file" 2> /dev/null) || continue
    missing=$(awk '/=> not found/ {print $1}' <<< "$listing")
    [ -z "$missing" ] || { echo "$file: shared libraries not found: $missing" >&2; return 1; }
    awk '$2 == "=>" && $3 ~ /^\/(usr\/)?lib/ {print $1, $3}' <<< "$listing" |
      while read -r name library; do
        case "$name" in
          libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux* | libstdc++.so.* | \
            libgcc_s.so.* | libgomp.so.* | libcuda.so.* | libnvidia-* | libnccl.so.*) ;;
          *) [ -f "$folder/$name" ] || cp -L "$library" "$folder/$name" ;;
        esac
      done
  done
}

# stamp_and_pack DIR: writes the commit the files were built from into DIR/COMMIT ("-dirty" when the tree
# had changes) and packs DIR.tar.gz, the compressed copy that travels to the GPU machine (device code is large).
stamp_and_pack() {
  local folder=$1 commit
  commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD 2>/dev/null || commit="$commit-dirty"
  echo "$commit" > "$folder/COMMIT"
  tar czf "$folder.tar.gz" "$folder"
  du -sh "$folder" "$folder.tar.gz"
  echo "built $commit into $folder/ and $folder.tar.gz"
}

# nccl_library_dir: the folder of libnccl.so.2 on this machine, from the nvidia-nccl-cu13 wheel of a Python here
# (WARPDEX_PYTHON, python3, or the image's /opt/torch/.venv), else nothing. The binaries that use NCCL (the
# distributed suite, warpdex, warpdex-bench) load it from there; the bundle does not carry it.
nccl_library_dir() {
  local python folder
  for python in ${WARPDEX_PYTHON:-} python3 /opt/torch/.venv/bin/python3; do
    command -v "$python" > /dev/null 2>&1 || continue
    folder=$("$python" -c 'import nvidia.nccl as n, os; print(os.path.join(list(n.__path__)[0], "lib"))' 2> /dev/null) ||
      continue
    [ -f "$folder/libnccl.so.2" ] && { echo "$folder"; return 0; }
  done
  return 1
}

run() {
  local out=${1:?usage: tools/gpu.sh run OUT_DIR [warpdex-bench arguments]}
  shift
  mkdir -p "$out"
  if [ ! -f "$bundle/COMMIT" ] && [ -f "$bundle.tar.gz" ]; then tar xzf "$bundle.tar.gz"; fi
  [ -f "$bundle/COMMIT" ] || { echo "no $bundle/: run 'tools/gpu.sh build' first" >&2; exit 2; }
  export LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local nccl_lib
  if nccl_lib=$(nccl_library_dir); then
    export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$nccl_lib:/lib"
    echo "NCCL: $nccl_lib/libnccl.so.2"
  else
    echo "NCCL: no nvidia-nccl-cu13 in this machine's Python; binaries built with NCCL load the one their RUNPATH" \
      "or the system names, or fail to start (pip install nvidia-nccl-cu13, or set WARPDEX_PYTHON)" >&2
  fi
  # NVLink multicast stays off for every program that runs NCCL.
  export NCCL_NVLS_ENABLE=0
  local commit
  commit=$(cat "$bundle/COMMIT")
  local -a summary=()
  local failed=0
  step() {  # step NAME LOG COMMAND...: runs, logs, records the outcome
    local name=$1 log=$2
    shift 2
    local started=$SECONDS
    "$@" >"$log" 2>&1
    local status=$?
    local verdict=passed
    [ $status -eq 0 ] || { verdict="FAILED (exit $status)"; failed=1; }
    summary+=("$(printf '%-44s %-18s %4ss' "$name" "$verdict" $((SECONDS - started)))")
    tail -n 3 "$log"
  }

  nvidia-smi -L | tee "$out/gpu.txt"
  echo "commit: $commit" | tee -a "$out/gpu.txt"
  step "warpdex info" "$out/info.log" "$bundle/warpdex" info
  for suite in "$bundle"/tests/warpdex_tests_*; do
    [ -x "$suite" ] || continue
    local name
    name=$(basename "$suite")
    step "$name" "$out/$name.log" "$suite" --gtest_output="xml:$out/$name.xml"
    for tool in ${WARPDEX_SANITIZERS-memcheck racecheck synccheck}; do
      if [ "$tool" = racecheck ] && [[ " $racecheck_skip " == *" $name "* ]]; then
        summary+=("$(printf '%-44s %-18s' "$name under $tool" "not run (skip list)")")
        continue
      fi
      local filter=$sanitizer_filter
      local -a sized=()
      if [ "$tool" = racecheck ]; then
        sized=(env WARPDEX_TEST_SIZE=sanitizer)
        filter="${racecheck_cases[$name]:-}$sanitizer_filter"
      fi
      step "$name under $tool" "$out/$name.$tool.log" ${sized[@]+"${sized[@]}"} \
        compute-sanitizer --tool "$tool" --error-exitcode 1 "$suite" --gtest_brief=1 --gtest_filter="$filter"
    done
  done
  step "warpdex-bench" "$out/bench.log" "$bundle/warpdex-bench" --commit "$commit" --output "$out/bench.json" "$@"

  printf '\n%-44s %-18s %5s\n' "step (commit $commit)" "outcome" "time"
  printf '%s\n' "${summary[@]}"
  grep -h -E '^(copy|baseline|[a-z_]+/)' "$out/bench.log" 2>/dev/null | head -n 40
  return $failed
}

python_build() {
  set -e
  source tools/env.sh
  local architectures=${CMAKE_CUDA_ARCHITECTURES:-90}
  local python_build_dir=${build_dir}-python python_bundle=${bundle}-python
  cmake -S . -B "$python_build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$architectures" \
    -DWARPDEX_BUILD_TESTS=OFF -DWARPDEX_BUILD_BENCH=OFF -DWARPDEX_BUILD_CLI=OFF -DWARPDEX_HYPERSCAN_SHARED=ON
  cmake --build "$python_build_dir" -j "$build_jobs"
  rm -rf "$python_bundle"
  mkdir -p "$python_bundle/python" "$python_bundle/examples" "$python_bundle/bench" "$python_bundle/lib" \
    "$python_bundle/zlib/include"
  cmake --install "$python_build_dir" --prefix "$python_bundle/install" > /dev/null
  # The repository's layout (python/, examples/python/, bench/), which the tests rely on.
  cp -r python/CMakeLists.txt python/src python/warpdex python/tests "$python_bundle/python/"
  cp -r examples/python "$python_bundle/examples/"
  cp bench/python_overhead.py "$python_bundle/bench/"
  cp "$(g++ -print-file-name=libgomp.so.1)" "$python_bundle/lib/"
  # The installed package asks for zlib (graph files), libpng and libtiff (images of the segmentation); the
  # GPU machine may lack their headers and libraries: bring both, with the libraries libtiff pulls.
  mkdir -p "$python_bundle/png/include" "$python_bundle/tiff/include"
  cp -L "$(g++ -print-file-name=libz.so)" "$python_bundle/lib/libz.so.1"
  cp /usr/include/zlib.h /usr/include/zconf.h "$python_bundle/zlib/include/"
  cp -L "$(g++ -print-file-name=libpng16.so.16)" "$python_bundle/lib/libpng16.so.16"
  cp /usr/include/png.h /usr/include/pngconf.h /usr/include/pnglibconf.h "$python_bundle/png/include/"
  local tiff_library tiff_header
  tiff_library=$(g++ -print-file-name=libtiff.so.6)
  cp -L "$tiff_library" "$python_bundle/lib/libtiff.so.6"
  copy_shared_libraries "$python_bundle/lib" "$tiff_library"
  local tiff_include
  tiff_include=$(sed -n 's/^TIFF_INCLUDE_DIR:PATH=//p' "$python_build_dir/CMakeCache.txt")
  for tiff_header in tiff.h tiffconf.h tiffio.h tiffvers.h; do cp "$tiff_include/$tiff_header" "$python_bundle/tiff/include/"; done
  stamp_and_pack "$python_bundle"
}

python_suite() {
  local out=${1:?usage: tools/gpu.sh python OUT_DIR}
  local python_bundle=${bundle}-python
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  if [ ! -f "$python_bundle/COMMIT" ] && [ -f "$python_bundle.tar.gz" ]; then tar xzf "$python_bundle.tar.gz"; fi
  [ -f "$python_bundle/COMMIT" ] || { echo "no $python_bundle/: run 'tools/gpu.sh python-build' first" >&2; exit 2; }
  local root="$PWD/$python_bundle"
  export LD_LIBRARY_PATH="$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local python=${WARPDEX_PYTHON:-$(command -v python3)}  # the Python with CuPy / PyTorch and nanobind
  # NCCL for DistributedSlabMap: this machine's nvidia-nccl-cu13 wheel (the installed package names the building
  # machine's, which is not here); without it the extension builds without the class's NCCL half.
  local nccl_lib nccl_root=()
  if nccl_lib=$(nccl_library_dir); then
    nccl_root=(-DNCCL_ROOT="$(dirname "$nccl_lib")")
    export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$nccl_lib"
  fi
  export NCCL_NVLS_ENABLE=0
  { "$python" -c 'import sys, nanobind; print("python", sys.version.split()[0], "nanobind", nanobind.__version__)'
    echo "commit $(cat "$python_bundle/COMMIT")"; } | tee "$out/python-version.txt"
  cmake -S "$root/python" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$root/install" \
    -DPython_EXECUTABLE="$python" ${nccl_root[@]+"${nccl_root[@]}"} -DZLIB_INCLUDE_DIR="$root/zlib/include" -DZLIB_LIBRARY="$root/lib/libz.so.1" \
    -DPNG_PNG_INCLUDE_DIR="$root/png/include" -DPNG_LIBRARY="$root/lib/libpng16.so.16" \
    -DTIFF_INCLUDE_DIR="$root/tiff/include" -DTIFF_LIBRARY="$root/lib/libtiff.so.6" \
    > "$out/python-build.log" 2>&1 &&
    cmake --build "$root/build" -j "$(nproc)" >> "$out/python-build.log" 2>&1 ||
    { tail -n 30 "$out/python-build.log"; exit 1; }
  local status=0
  # The package is imported from the build folder: pytest runs from the bundle's root, which (unlike
  # python/) holds no folder named warpdex that `python -m` would put first on the path.
  (cd "$root" && PYTHONPATH="$root/build" "$python" -m pytest python/tests -rs -p no:cacheprovider \
    --junitxml="$out/python.xml" 2>&1) | tee "$out/python.log" | tail -n 40
  status=${PIPESTATUS[0]}
  # Per-call overhead at 2^10 keys on both backends, and the throughput at 2^26 on the GPU.
  { PYTHONPATH="$root/build" "$python" "$root/bench/python_overhead.py" --device cpu --size 1024
    PYTHONPATH="$root/build" "$python" "$root/bench/python_overhead.py" --device cuda --size 1024 --size 67108864
  } 2>&1 | tee "$out/python-overhead.log"
  return $status
}

case "${1:-}" in
  build) build ;;
  run) shift; run "$@" ;;
  python-build) python_build ;;
  python) shift; python_suite "$@" ;;
  *) echo "usage: tools/gpu.sh build | run OUT_DIR [warpdex-bench arguments] | python-build | python OUT_DIR" >&2
     exit 2 ;;
esac
