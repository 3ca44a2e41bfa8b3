#!/usr/bin/env bash
# Installs what is missing, builds warpdex and runs its main job on generated data
# (on the GPU when one is present, else on the CPU). Extra arguments go to `warpdex demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
source tools/env.sh

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target warpdex_cli -j "$build_jobs"
build/src/cli/warpdex info
build/src/cli/warpdex demo "$@"
