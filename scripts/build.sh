#!/usr/bin/env bash
# Installs what is missing (Debian packages), configures and builds echo-des into build/.
# Quiet when everything is already there. CI=true (or ECHO_WERROR=ON) turns warnings into errors.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

werror=${ECHO_WERROR:-OFF}
[ "${CI:-}" = "true" ] && werror=ON
if [ ! -f build/CMakeCache.txt ] || ! grep -q "ECHO_WERROR:BOOL=$werror" build/CMakeCache.txt; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DECHO_WERROR="$werror" >/dev/null
fi
# Two cores: build in parallel, print only what goes wrong.
if ! out=$(cmake --build build --parallel 2 2>&1); then
  printf '%s\n' "$out" >&2
  exit 1
fi
