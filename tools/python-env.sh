#!/usr/bin/env bash
# Creates .venv/ (git-ignored) with the pinned packages of tools/plot-requirements.txt, for tools/plot.py:
#   tools/python-env.sh && .venv/bin/python tools/plot.py --docs
# Does nothing when .venv/ already holds exactly those versions. Needs python3 with its venv module
# (Debian: python3-venv, installed by tools/install-deps.sh) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
requirements=tools/plot-requirements.txt
stamp=.venv/.warpdex-requirements
if [ -x .venv/bin/python ] && cmp -s "$requirements" "$stamp"; then
  exit 0
fi
python3 -m venv --clear .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-input --only-binary=:all: -r "$requirements"
cp "$requirements" "$stamp"
