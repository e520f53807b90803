#!/usr/bin/env bash
# SimGrid's own cost per event against the number of actors sleeping at once (issue 20): the same
# two million sleeps spread over 640 to 10,240 actors on one host (bench/simgrid_sleep.cpp).
#
#   bench/simgrid_sleep.sh [ACTORS...]      (default: 640 1280 2560 5120 10240)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then counts=("$@"); else counts=(640 1280 2560 5120 10240); fi
scripts/build.sh > /dev/null
for n in "${counts[@]}"; do
  build/bench/echo-bench-simgrid-sleep "$n" 2000000
done
