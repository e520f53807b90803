#!/usr/bin/env bash
# Configures and builds build-fuzz/: echo-des, its test suite and the libFuzzer targets of
# test/fuzz, all compiled by clang with AddressSanitizer and UndefinedBehaviorSanitizer (and the
# fuzzer's coverage counters). test/fuzz/run.sh fuzzes with it, scripts/sanitizer_suite.sh runs the
# suite with it. -O1 and line tables only: the build is for finding faults, not for speed.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh
for p in clang libclang-rt-14-dev; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
    break
  fi
done
flags="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link"
b=${ECHO_FUZZ_BUILD:-build-fuzz}
if [ ! -f "$b/CMakeCache.txt" ]; then
  cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="" -DCMAKE_CXX_COMPILER=clang++ \
        -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
        -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" -DECHO_FUZZ=ON >/dev/null
fi
if ! out=$(cmake --build "$b" --parallel 2 2>&1); then
  printf '%s\n' "$out" >&2
  exit 1
fi
