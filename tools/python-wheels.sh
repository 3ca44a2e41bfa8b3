#!/usr/bin/env bash
# Builds wheels of the Python package into dist/ for every CPython 3.10+ interpreter on the PATH
# (python3.10, python3.11, python3.12, python3.13, python3.14), or for the interpreters named:
#   tools/python-wheels.sh                       # every one found
#   tools/python-wheels.sh /opt/py/bin/python3   # these
# Each wheel holds the extension built with the CUDA backend when nvcc is found (tools/env.sh puts the
# toolkit on the PATH; WARPDEX_ENABLE_CUDA=OFF in the environment builds host-only wheels). Wheels for 3.12
# and later use nanobind's stable ABI: one cp312-abi3 wheel serves them all. Needs pip and PyPI (the
# build requirements of pyproject.toml: scikit-build-core, nanobind).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/env.sh
interpreters=("$@")
if [ ${#interpreters[@]} -eq 0 ]; then
  for version in 3.10 3.11 3.12 3.13 3.14; do
    if command -v "python$version" > /dev/null; then interpreters+=("$(command -v "python$version")"); fi
  done
fi
[ ${#interpreters[@]} -gt 0 ] || { echo "no CPython 3.10+ interpreter found" >&2; exit 1; }
mkdir -p dist
for python in "${interpreters[@]}"; do
  echo "== wheel for $("$python" --version 2>&1) ($python)"
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$build_jobs} "$python" -m pip wheel --no-deps -w dist \
    -C cmake.define.WARPDEX_ENABLE_CUDA="${WARPDEX_ENABLE_CUDA:-ON}" .
done
ls -l dist/*.whl
