#!/usr/bin/env bash
# Sweep benchmark (issue 7): 200 layouts of llama3-70b on 1,024 H100s (128 DGX H100 nodes):
# tp 1..8 x pp 1..16 x micro-batch 1..16 x selective / full recomputation, global batch 1024.
# Points that break a rule or do not fit are rejected without simulating. Prints the ranked table
# and the wall time; `-j` defaults to the machine's cores.
#
#   bench/sweep.sh [WORKERS]
set -euo pipefail
cd "$(dirname "$0")/.."
workers=${1:-$(nproc)}

scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/job.yaml" <<YAML
platform: {preset: dgx-h100, nodes: 128}
workload:
  model: {name: llama3-70b}
  training: {global_batch: 1024, micro_batch: 1, recompute: selective}
  parallel: {tp: 8, pp: 4, sequence_parallel: true, zero: 1}
YAML
cat > "$work/space.yaml" <<YAML
parallel.tp: [1, 2, 4, 8]
parallel.pp: [1, 2, 4, 8, 16]
training.micro_batch: [1, 2, 4, 8, 16]
training.recompute: [selective, full]
YAML
TIMEFORMAT='wall %R s'
time build/echo-des sweep "$work/job.yaml" --space "$work/space.yaml" -j "$workers" --out "$work/out" -q
