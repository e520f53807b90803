#!/usr/bin/env python3
"""scripts/collectives_validate.py --alcf-repo: runs of a clone of argonne-lcf/alcf-nccl-tests that
../shared/data does not hold join the table, named and laid out as the shared ones (nodes from the
directory, NCCL release from its parent, setup 5 only); a directory without such runs is refused.
A fake clone with one 16-node AllGather (and a run that never started, left out) stands in for the real one. Exits 77 (skipped) without
../shared, which the script reads its manifest from.

  alcf_repo_option.py ECHO_BINARY SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

echo, source = sys.argv[1], sys.argv[2]
if not os.path.isdir(os.path.join(source, "..", "shared", "data", "collectives", "multi-node")):
    print("skipped: ../shared/data/collectives is not beside the checkout")
    sys.exit(77)
script = os.path.join(source, "scripts", "collectives_validate.py")
failures = []
with tempfile.TemporaryDirectory() as repo:
    run = os.path.join(repo, "results_polaris", "nccl_2_21", "n16.g4.2024-01-01-00-00-00")
    os.makedirs(run)
    rows = [(1048576, 4100.0), (4194304, 4900.0), (16777216, 7000.0)]
    with open(os.path.join(run, "all_gather_output.dat.5"), "w") as f:
        f.write("# nThread 1 nGpus 1 minBytes 1048576 maxBytes 16777216 step: 4(factor) warmup iters: 5 iters: 20\n")
        for size, us in rows:
            count = size // 4 // 64
            f.write(f"{size:>12} {count:>12}  float  none  -1  {us:8.1f}  0.00  0.00  0  {us:8.1f}  0.00  0.00  0\n")
    with open(os.path.join(run, "all_gather_output.dat.4"), "w") as f:
        f.write("not setup 5: ignored\n")
    failed = os.path.join(repo, "results_polaris", "nccl_2_21", "n32.g4.2024-01-01-00-00-00")
    os.makedirs(failed)
    with open(os.path.join(failed, "all_reduce_output.dat.5"), "w") as f:  # a run that never started
        f.write("# nThread 1 nGpus 1 minBytes 4 maxBytes 1073741824 step: 2(factor)\nCXI alloc failed on cxi0\n")
    out = subprocess.run([sys.executable, script, "--echo", echo, "--alcf-repo", repo, "--only", ".dat", "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        failures.append(f"exit {out.returncode}: {out.stderr.strip()}")
    else:
        tables = json.loads(out.stdout)
        names = [t["table"] for t in tables]
        want = "alcf_results_polaris_nccl_2_21_n16.g4.2024-01-01-00-00-00_all_gather_setup5.dat"
        if names != [want]:
            failures.append(f"tables {names}, wanted [{want}]")
        elif tables[0]["nodes"] != 16 or tables[0]["gpus_per_node"] != 4 or tables[0]["op"] != "all_gather":
            failures.append(f"layout {tables[0]}")
    detail = subprocess.run([sys.executable, script, "--echo", echo, "--alcf-repo", repo, "--only", ".dat", "--detail"],
                            capture_output=True, text=True).stdout.splitlines()
    compared = [f[0] for f in (line.split() for line in detail) if len(f) == 4 and f[0].isdigit() and f[3].endswith("%")]
    if compared != [str(size) for size, _ in rows]:  # the sweep starts where the run's did: every size pairs up
        failures.append(f"sizes compared {compared}")
    empty = subprocess.run([sys.executable, script, "--echo", echo, "--alcf-repo", os.path.join(repo, "results_polaris")],
                           capture_output=True, text=True)
    if empty.returncode != 2 or "give a clone of argonne-lcf/alcf-nccl-tests" not in empty.stderr:
        failures.append(f"a directory without runs: exit {empty.returncode}, {empty.stderr.strip()}")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
