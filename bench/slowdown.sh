#!/usr/bin/env bash
# Slowdown-model training benchmark (issue 5): a synthetic kernel table of ROWS kernels (seven
# kernel sizes, three metric profiles, some slowed beside communication and some not), trained
# with `echo-des slowdown train` and 5-fold cross-validation. Prints wall time and peak RSS.
#
#   bench/slowdown.sh [ROWS]      (default 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-20000}

scripts/build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$rows" > "$work/kernels.csv" <<'PY'
import random, sys
random.seed(1)
print("kShortName,ground_truth,duration,overlap_ratio,Compute throughput,SM,Memory throughput,"
      "DRAM throughput,Achieved occupancy,Maximum occupancy,L1 hit rate,L2 hit rate")
for i in range(int(sys.argv[1])):
    t0 = random.choice([5e3, 4e4, 7e4, 1e5, 2.2e5, 1e6, 2.3e6]) * random.uniform(0.97, 1.03)
    s = random.choice([0, 0, 0, 0.3, 1.0])
    r = random.choice([1, 1, 0.5])
    metrics = [random.choice([10, 40, 80]), 108, random.choice([20, 60, 90]), 50, 60, 100, 10, 50]
    print(f"k,{t0:.0f},{t0 * (1 + r * s):.0f},{r}," + ",".join(str(m) for m in metrics))
PY
/usr/bin/time -f "wall %e s, peak RSS %M KB" build/echo-des slowdown train --csv "$work/kernels.csv" -o "$work/model.json" \
  | sed -n '1,3p'
