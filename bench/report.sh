#!/usr/bin/env bash
# Report benchmark (issue 6): gpt3-175b on 8,192 A100s (TP8 PP8 DP128) with every output —
# summary.json, timeline.json (one data-parallel replica), report.html — then report.html opened
# headless in chromium. Prints the run's wall time and peak RSS, the files' sizes and how long
# the browser takes to render the page (its start included).
#
#   bench/report.sh [GPUS]      (default: 8192; a multiple of 64)
set -euo pipefail
cd "$(dirname "$0")/.."
gpus=${1:-8192}
dp=$(( gpus / 64 ))

scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/job.yaml" <<YAML
platform: {preset: dgx-a100, nodes: $(( gpus / 8 ))}
workload:
  model: {name: gpt3-175b}
  training: {global_batch: $(( 96 * dp )), micro_batch: 1, recompute: full}
  parallel: {tp: 8, pp: 8, dp: $dp}
YAML
/usr/bin/time -f "run: %e s wall, %M KB peak RSS" build/echo-des run "$work/job.yaml" -q --out "$work/out" > /dev/null
ls -l "$work/out" | awk 'NR > 1 {printf "%-14s %6.1f MB\n", $9, $5 / 1e6}'
if command -v chromium > /dev/null; then
  start=$(date +%s.%N)
  rendered=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/browser" \
    --dump-dom "$work/out/report.html" 2>/dev/null | grep -c 'data-rendered="ok"' || true)
  end=$(date +%s.%N)
  printf 'report.html rendered: %s, in %.1f s (chromium headless, start included)\n' \
    "$([ "$rendered" -gt 0 ] && echo yes || echo NO)" "$(echo "$end - $start" | bc)"
fi
