#!/usr/bin/env bash
# Engine benchmark (issue 2): a synthetic trace of 8,192 ranks x 2,000 tasks — compute kernels
# and an AllReduce of 16 MiB every 20th task within groups of 8 ranks — on a generated 1,024-node
# DGX H100 cluster. Prints wall time, events per second and peak memory.
#
#   bench/run.sh [RANKS] [TASKS]      (defaults: 8192 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-8192}
tasks=${2:-2000}
nodes=$(( (ranks + 7) / 8 ))

scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build/bench/echo-bench-trace "$ranks" "$tasks" 8 20 "$work/trace.pb"
cat > "$work/job.yaml" <<YAML
platform: {preset: dgx-h100, nodes: $nodes}
workload: {trace: trace.pb}
YAML

TIMEFORMAT=%R
generate_s=$( { time build/echo-des platform generate --preset dgx-h100 --nodes "$nodes" -o "$work/platform.xml"; } 2>&1 )

platform_load_s=$( { time build/echo-des platform info "$work/platform.xml" >/dev/null 2>&1; } 2>&1 )

build/echo-des run "$work/job.yaml" --json -q > "$work/summary.json"
python3 - "$work/summary.json" "$ranks" "$tasks" "$generate_s" "$(du -h "$work/platform.xml" | cut -f1)" "$platform_load_s" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
sim = s["simulation"]
print(f"workload:        {sys.argv[2]} ranks x {sys.argv[3]} tasks ({s['workload']['tasks']} tasks in all)")
print(f"platform:        {s['platform']['description']} ({s['platform']['gpus']} GPUs)")
print(f"generate XML:    {float(sys.argv[4]):.2f} s ({sys.argv[5]})")
print(f"load XML alone:  {float(sys.argv[6]):.2f} s (echo-des platform info)")
print(f"load platform + trace in run: {sim['wall_s'] - sim['run_wall_s']:.2f} s")
print(f"simulate:        {sim['run_wall_s']:.2f} s, {sim['events']} events, {sim['events_per_s']:,.0f} events/s")
print(f"total wall:      {sim['wall_s']:.2f} s")
print(f"peak RSS:        {sim['peak_rss_mb']:.0f} MB")
print(f"iteration time:  {s['iteration_time_s'] * 1e3:.6f} ms (simulated)")
PY
