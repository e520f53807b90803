#!/usr/bin/env bash
# Platform scale benchmark (issue 18): loads a dgx-a100 preset of N nodes (built in the engine) and
# the same platform from the XML `platform generate` writes, and times one 8-byte AllReduce
# between two GPUs on it (so the GPU index and a route are made too). Prints wall time and peak
# RSS of each; the target is 12,500 nodes (100,000 GPUs) in under 30 s and 2 GB.
#
#   bench/platform.sh [NODES...]      (default: 1250 2500 12500)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(1250 2500 12500); fi

scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() {  # measure LABEL COMMAND...: wall time and the child's peak RSS
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
start = time.monotonic()
subprocess.run(sys.argv[2:], check=True, stdout=subprocess.DEVNULL)
wall = time.monotonic() - start
rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{sys.argv[1]:<34} {wall:7.1f} s  {rss_mb:6.0f} MB", flush=True)
PY
}

for nodes in "${sizes[@]}"; do
  measure "preset, $nodes nodes" build/echo-des nccl-tests --platform "preset:dgx-a100:$nodes" --op all_reduce --gpus 2 -b 8 -e 8
  build/echo-des platform generate --preset dgx-a100 --nodes "$nodes" -o "$work/p.xml"
  measure "XML ($(( $(stat -c %s "$work/p.xml") / 1000000 )) MB), $nodes nodes" \
    build/echo-des nccl-tests --platform "$work/p.xml" --op all_reduce --gpus 2 -b 8 -e 8
done
