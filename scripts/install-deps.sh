#!/usr/bin/env bash
# Installs the Debian packages echo-des builds with. Idempotent: does nothing, silently, when all
# are present; otherwise installs only the missing ones (needs root or sudo).
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache pkg-config
  libsimgrid-dev libboost-graph-dev
  libprotobuf-dev protobuf-compiler
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev doctest-dev
  libxgboost-dev libsimdjson-dev zlib1g-dev libexpat1-dev libjemalloc-dev
)
# CI also opens report.html in a headless browser (the test skips where chromium is absent), runs
# a sweep across MPI ranks (echo-des builds the MPI sweep wherever OpenMPI is installed), and the
# pinned validation subset with python3 (scripts/validate.py).
[ "${CI:-}" = "true" ] && packages+=(chromium libopenmpi-dev openmpi-bin python3)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
