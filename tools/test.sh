#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test:
#  1. the full build (CUDA backend when nvcc is found): all suites; GPU tests skip, saying why, without a GPU;
#  2. the host-only build (no CUDA at all), which must build and pass on its own, with the Python package's
#     extension module, whose pytest suite (python/tests) runs on the host backend;
#  3. the examples/consumer project, built against the installed package through find_package(warpdex);
#  4. the guides' examples (examples/*_example.cpp, the same code as in docs/), built that way and run;
#  5. tools/plot.py on a committed benchmark record; 6. the API reference (doxygen, warnings are errors);
#  7. `warpdex faces` against VTK's surface filters on generated and Gmsh meshes (VTK and Gmsh from PyPI);
#  8. `warpdex segment` on scikit-image's bundled sample photographs, PNG and TIFF (scikit-image from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
source tools/env.sh
# NVLink multicast stays off in every program that runs NCCL (the distributed suite, on a GPU machine).
export NCCL_NVLS_ENABLE=0
# ctest runs two suites at once on CI's two cores; OpenMP's default of spinning at a barrier then waits on
# threads that are not scheduled (a 0.25 s host test ran for 47-100 s that way). Sleeping waits instead.
export OMP_WAIT_POLICY=passive

echo "== full build"
# NCCL for the distributed family: the CUDA toolkit's when it has one, else the nvidia-nccl-cu13 wheel in .venv/.
if command -v nvcc > /dev/null && [ ! -f "$(dirname "$(command -v nvcc)")/../include/nccl.h" ]; then
  tools/python-env.sh --nccl
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$build_jobs"
ctest --test-dir build --output-on-failure -j "$build_jobs"

echo "== host-only build"
# The Python extension is built in this tree (one more target over the same library, not a second build).
tools/python-env.sh --python
cmake -S . -B build-host -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPDEX_ENABLE_CUDA=OFF \
  -DWARPDEX_BUILD_PYTHON=ON -DPython_EXECUTABLE="$PWD/.venv/bin/python"
cmake --build build-host -j "$build_jobs"
ctest --test-dir build-host --output-on-failure -j "$build_jobs"

echo "== python package (host backend)"
# GPU tests (CuPy, PyTorch) skip here, saying why; tools/gpu.sh python runs them on the GPU machine.
# The suites, and the docstrings' examples (--doctest-modules over the built package).
PYTHONPATH="$PWD/build-host/python" .venv/bin/python -m pytest python/tests build-host/python/warpdex \
  --doctest-modules -q -rs -p no:cacheprovider

echo "== consumer of the installed package"
rm -rf build-host/install build-consumer
cmake --install build-host --prefix build-host/install
cmake -S examples/consumer -B build-consumer -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build-host/install"
cmake --build build-consumer -j "$build_jobs"
build-consumer/warpdex_consumer
build-consumer/warpdex_consumer_hasher

echo "== examples"
# The family guides' examples (docs/<family>.md shows each verbatim: checked first), built against the
# installed package and run on the host backend; each checks its own result.
python3 tools/check-docs.py
rm -rf build-examples
cmake -S examples -B build-examples -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build-host/install"
cmake --build build-examples -j "$build_jobs"
ctest --test-dir build-examples --output-on-failure

echo "== plots"
# tools/plot.py on a committed record: every chart written and non-empty; a malformed record is refused.
tools/python-env.sh
plots=$(mktemp -d)
.venv/bin/python tools/plot.py -o "$plots" bench/results/2026-11-21-nvidia-h200-round4-final.json
for chart in slab_map-ratio slab_map-sol slab_map-sweep copy-sol; do
  [ -s "$plots/$chart.png" ] || { echo "tools/plot.py wrote no $chart.png"; exit 1; }
done
.venv/bin/python tools/plot.py -o "$plots/newest" --family slab_map  # the newest record of a family
[ -s "$plots/newest/slab_map-ratio.png" ] || { echo "tools/plot.py: no chart from the newest record"; exit 1; }
refused() {  # refused FILE_CONTENT EXPECTED_MESSAGE: tools/plot.py exits non-zero, saying what is wrong
  printf '%s' "$1" > "$plots/bad.json"
  if .venv/bin/python tools/plot.py -o "$plots" "$plots/bad.json" 2> "$plots/bad.log"; then
    echo "tools/plot.py accepted a malformed record: $1"; exit 1
  fi
  grep -qF "$2" "$plots/bad.log" || { echo "expected: $2"; cat "$plots/bad.log"; exit 1; }
}
refused '{"rows": [{"name": "x/y", "value": "fast", "verified": true}]}' 'bad.json: row 0 (x/y): "value" must be a finite number'
refused '{"rows": [' 'bad.json: not JSON'
refused '{"commit": "abc"}' 'bad.json: no "rows" list'
rm -rf "$plots"

echo "== api reference"
# Doxygen over the public headers (Doxyfile); any warning is an error.
rm -rf build-docs
doxygen Doxyfile
[ -s build-docs/html/index.html ] || { echo "doxygen wrote no build-docs/html/index.html"; exit 1; }

echo "== external faces against VTK"
# Every method's surface equals vtkDataSetSurfaceFilter's and vtkGeometryFilter's, face for face and
# orientation included, on generated grids and Gmsh meshes with holes, in every file encoding.
tools/python-env.sh --vtk
.venv/bin/python tools/faces_vtk_compare.py build-host/src/cli/warpdex

echo "== segmentation of real photographs"
# scikit-image's sample images (bundled in its wheel) as PNG and TIFF, 2 and 3 labels on the host backend:
# every run succeeds, every label is used and the labels' mean intensities increase with the label.
tools/python-env.sh --photos
.venv/bin/python tools/segment_photos.py build-host/src/cli/warpdex
