#!/usr/bin/env python3
"""CI pin of the collective model against the published nccl-tests tables of other clusters
(../shared/data/collectives/multi-node/, scripts/collectives_validate.py) and the one-node A100
AllReduce tables (a100-intranode-allreduce/, compared at their doubling sizes 1 MiB..1 GiB only):
every table's median and max |error| must be as pinned in collectives_pinned.json, to 0.1 percentage point. A change to
the collective model, the presets or the network models that moves a figure shows here; if it is
meant, re-pin with
  scripts/collectives_validate.py --json > test/validation/collectives_pinned.json
and say in docs/validation.md what moved and why. Exits 77 (skipped) without ../shared.

  collectives_pinned.py ECHO_BINARY SOURCE_DIR
"""
import json
import os
import subprocess
import sys

echo, source = sys.argv[1], sys.argv[2]
if not os.path.isdir(os.path.join(source, "..", "shared", "data", "collectives", "multi-node")):
    print("skipped: ../shared/data/collectives is not beside the checkout")
    sys.exit(77)
out = subprocess.run([sys.executable, os.path.join(source, "scripts", "collectives_validate.py"), "--json", "--echo", echo],
                     capture_output=True, text=True, check=True)
got = {r["table"]: r for r in json.loads(out.stdout)}
pinned = {r["table"]: r for r in json.load(open(os.path.join(source, "test", "validation", "collectives_pinned.json")))}
failures = []
if set(got) != set(pinned):
    failures.append(f"tables differ: {sorted(set(got) ^ set(pinned))}")
for name, p in sorted(pinned.items()):
    g = got.get(name)
    if g is None:
        continue
    for key in ("median_1mib", "max_1mib", "median_all", "max_all"):
        if not abs(g[key] - p[key]) <= 1e-3:  # also fails on NaN
            failures.append(f"{name}: {key} {100 * g[key]:.2f}%, pinned {100 * p[key]:.2f}%")
# The one-node tables step by 1 MiB: only the sizes a doubling sweep runs are compared, each exactly.
detail = subprocess.run([sys.executable, os.path.join(source, "scripts", "collectives_validate.py"), "--echo", echo,
                         "--only", "vtrain_a100_intranode_allreduce-8gpu", "--detail"], capture_output=True, text=True, check=True)
compared = [int(f[0]) for f in (line.split() for line in detail.stdout.splitlines()) if len(f) == 4 and f[0].isdigit()]
if compared != [(1 << 20) << k for k in range(11)]:
    failures.append(f"one-node 8-GPU table: sizes compared {compared}, wanted 1 MiB..1 GiB doubling")
medians = sorted(r["median_1mib"] for r in got.values())
print(f"{len(got)} tables, median of the median |error| >= 1 MiB {100 * medians[len(medians) // 2]:.1f}%")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
