#!/usr/bin/env bash
# Generator benchmark (issue 4): gpt3-175b (TP8, PP8, 1F1B, global batch 1536 scaled with DP,
# micro-batch 1, full recomputation) on DGX A100 clusters of 64, 1,024 and 8,192 GPUs, one
# iteration in the default (`steps`) fidelity. Prints events, wall time and peak RSS per size and
# per rank folding: `all`, `exact` (the default), `tp` up to ECHO_BENCH_TP_MAX GPUs and `none` up
# to ECHO_BENCH_UNFOLDED_MAX GPUs.
#
#   bench/generator.sh [GPUS...]      (default: 64 1024 8192 16384)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(64 1024 8192 16384); fi

scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for gpus in "${sizes[@]}"; do
  dp=$(( gpus / 64 ))
  cat > "$work/job.yaml" <<YAML
platform: {preset: dgx-a100, nodes: $(( gpus / 8 ))}
workload:
  model: {name: gpt3-175b}
  training: {global_batch: $(( 96 * dp )), micro_batch: 1, recompute: full}
  parallel: {tp: 8, pp: 8, dp: $dp}
YAML
  # Each folding: all (one data-parallel replica, the other replicas' traffic left out: the
  # sweep's default), exact (the default: TP siblings and, where that changes nothing, replicas
  # simulated once: here both), tp (TP siblings only: every replica simulated, the engine's cost at
  # scale) up to ECHO_BENCH_TP_MAX GPUs (default 8192: 16,384 takes minutes), and none (every
  # rank) up to ECHO_BENCH_UNFOLDED_MAX GPUs (default 1024: beyond, minutes).
  modes=(all exact)
  [ "$gpus" -le "${ECHO_BENCH_TP_MAX:-8192}" ] && modes+=(tp)
  [ "$gpus" -le "${ECHO_BENCH_UNFOLDED_MAX:-1024}" ] && modes+=(none)
  for mode in "${modes[@]}"; do
    build/echo-des run "$work/job.yaml" --json -q --fold "$mode" > "$work/summary.json"
    python3 - "$work/summary.json" "$gpus" "$mode" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
sim = s["simulation"]
print(f"{sys.argv[2]:>5} GPUs --fold {sys.argv[3]:>5}: iteration {s['iteration_time_s']:.3f} s, {s['workload']['tasks']} tasks, "
      f"{sim['events']} events, simulate {sim['run_wall_s']:.1f} s ({sim['events_per_s']:,.0f} events/s), "
      f"total {sim['wall_s']:.1f} s, peak RSS {sim['peak_rss_mb']:.0f} MB", flush=True)
PY
  done
done
