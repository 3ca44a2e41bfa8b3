#!/usr/bin/env bash
# Installs what warpdex needs to build and test on a Debian machine, skipping what is already there.
# The CUDA toolkit is not installed here: with nvcc on the PATH (or in /usr/local/cuda/bin) the CUDA
# backend is built too; without it, the host backend alone. NCCL (the distributed family's transport) comes with
# the toolkit or from PyPI into .venv/ (`tools/python-env.sh --nccl`, which tools/test.sh runs when the toolkit
# has none): it is not a Debian package here.
set -euo pipefail

packages=(cmake ninja-build g++ libgtest-dev libcli11-dev nlohmann-json3-dev ccache git python3 python3-venv doxygen
          libtbb-dev ripgrep zlib1g-dev libboost-graph-dev libigraph-dev pkg-config libpng-dev
          libtiff-dev)
# Hyperscan, the host backend's fixed-string matcher (grep, count_matches): optional, and Debian builds it for
# amd64 only; elsewhere the built-in matcher serves.
if [ "$(dpkg --print-architecture)" = amd64 ]; then packages+=(libhyperscan-dev); fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_prefix=()
  [ "$(id -u)" -eq 0 ] || sudo_prefix=(sudo)
  "${sudo_prefix[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_prefix[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
