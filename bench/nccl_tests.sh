#!/usr/bin/env bash
# Collective-model benchmark (issue 3): `echo-des nccl-tests` over 8 B .. 8 GiB (31 sizes) for
# AllReduce on 128 and 1,024 GPUs of the azure-ndv4-a100 preset, at each fidelity. Prints the
# wall time of each sweep (the issue asks for under 2 s on 128 GPUs).
#
#   bench/nccl_tests.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
TIMEFORMAT=%R
for gpus in 128 1024; do
  nodes=$((gpus / 8))
  for fidelity in steps analytic; do
    s=$( { time build/echo-des nccl-tests --platform "preset:azure-ndv4-a100:$nodes" --gpus "$gpus" -b 8 -e 8G \
             --fidelity "$fidelity" >/dev/null; } 2>&1 )
    printf '%5d GPUs, %-8s 31 sizes: %s s\n' "$gpus" "$fidelity" "$s"
  done
done
