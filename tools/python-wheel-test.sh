#!/usr/bin/env bash
# Installs a built wheel of the Python package into a fresh virtual environment and runs the package's
# tests against it, from outside any build tree: what a user who installs the wheel on another machine
# gets (tools/python-wheels.sh runs it on every wheel it makes).
#   tools/python-wheel-test.sh PYTHON WHEEL
# PYTHON: the interpreter the wheel is for (its venv module makes the environment). NumPy and pytest
# (pinned in tools/python-requirements.txt and tools/plot-requirements.txt) come from PyPI; the wheel's own
# libraries (warpdex.libs/) must be all it needs beside the system's C and C++ runtimes. Checks that the
# extension resolves no library from this tree or from the build machine's libpng / libtiff / libgomp, then
# runs python/tests (CuPy / PyTorch tests skip without a GPU) and the installed package's doctests.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: tools/python-wheel-test.sh PYTHON WHEEL" >&2; exit 2; }
python=$1
wheel=$(realpath "$2")
environment=$(mktemp -d)
trap 'rm -rf "$environment"' EXIT
"$python" -m venv "$environment"
pins() { grep -E "^($1)==" tools/plot-requirements.txt tools/python-requirements.txt | cut -d: -f2; }
# shellcheck disable=SC2046
"$environment/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --only-binary=:all: \
  "$wheel" $(pins 'numpy|pytest|iniconfig|pluggy|pygments|packaging')
echo "== installed $(basename "$wheel") into a fresh environment"
cd "$environment"  # nothing of the repository on sys.path
package=$("$environment/bin/python" -c 'import os, warpdex; print(os.path.dirname(warpdex.__file__))')
case "$package" in "$environment"/*) ;; *) echo "warpdex imported from $package, not the wheel" >&2; exit 1 ;; esac
extension=$(ls "$package"/_warpdex*.so)
echo "== libraries of $(basename "$extension")"
ldd "$extension" | tee "$environment/ldd.txt"
if grep -E 'not found|lib(png|tiff|gomp)[^ ]* => /(usr/)?lib' "$environment/ldd.txt"; then
  echo "the extension needs a library the wheel does not carry (above)" >&2
  exit 1
fi
"$environment/bin/python" -c '
import numpy as np, warpdex
print("warpdex", warpdex.__version__, "cuda:", warpdex.cuda_available())
table = warpdex.SlabMap(100)
table.insert(np.arange(10, dtype=np.uint32), np.arange(10, dtype=np.uint32) * 2)
assert table.find(np.array([3, 50], np.uint32))[0].tolist() == [6, 0]
'
cd - > /dev/null
echo "== python/tests against the installed wheel"
"$environment/bin/python" -m pytest python/tests "$package" --doctest-modules -q -p no:cacheprovider \
  --rootdir "$PWD" -o "testpaths=python/tests"
