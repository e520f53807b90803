#!/usr/bin/env bash
# Kineto import benchmark (issue 8): the published DDP trace's events repeated into one large
# uncompressed JSON (about 400 MB), imported with `echo-des import kineto`. Prints the import's
# own throughput line and its wall time and peak RSS.
#
#   bench/kineto.sh [COPIES]      (default 40)
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-40}
source_trace=../shared/data/kineto/ddp-2rank-allreduce.json.gz
[ -f "$source_trace" ] || { echo "bench/kineto.sh: $source_trace is absent" >&2; exit 1; }

scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$source_trace" "$copies" "$work/big.json" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
events = d["traceEvents"]
span = max(e.get("ts", 0) + e.get("dur", 0) for e in events) - min(e.get("ts", 0) for e in events if "ts" in e)
out = []
for k in range(int(sys.argv[2])):
    for e in events:
        e2 = dict(e)
        if "ts" in e2:
            e2["ts"] = e2["ts"] + k * span
        # Correlation ids are unique in a real trace: shift each copy's.
        if isinstance(e2.get("args"), dict) and "correlation" in e2["args"]:
            e2["args"] = dict(e2["args"], correlation=e2["args"]["correlation"] + k * 10000000)
        if k and e2.get("name", "").startswith("ProfilerStep#"):
            e2["name"] = "ProfilerStep#%d" % (100 * k + int(e2["name"].split("#")[1]))
        out.append(e2)
d["traceEvents"] = out
json.dump(d, open(sys.argv[3], "w"))
PY
/usr/bin/time -f "wall %e s, peak RSS %M KB" build/echo-des import kineto "$work/big.json" -o "$work/t.pb"
