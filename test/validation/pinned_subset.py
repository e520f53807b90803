#!/usr/bin/env python3
"""CI pin of the whole-iteration validation: a fixed subset of the published runs in
../shared/data/e2e/ (scripts/validate.py --rows 3 --max-gpus 32: ten rows of four datasets) must be
predicted as pinned in pinned_subset.json, to 0.1%. A change to the generator, the host thread or
the compute model that moves a prediction shows here; if it is meant, re-pin with
  scripts/validate.py --rows 3 --max-gpus 32 --json > test/validation/pinned_subset.json
and say in docs/validation.md what moved and why. Exits 77 (skipped) without ../shared.

  pinned_subset.py ECHO_BINARY SOURCE_DIR
"""
import json
import os
import subprocess
import sys

echo, source = sys.argv[1], sys.argv[2]
if not os.path.isdir(os.path.join(source, "..", "shared", "data", "e2e")):
    print("skipped: ../shared/data/e2e is not beside the checkout")
    sys.exit(77)
out = subprocess.run([sys.executable, os.path.join(source, "scripts", "validate.py"), "--rows", "3", "--max-gpus", "32", "--json",
                      "--echo", echo], capture_output=True, text=True, check=True)
got = {(r["dataset"], r["row"]): r for r in json.loads(out.stdout)}
pinned = {(r["dataset"], r["row"]): r for r in json.load(open(os.path.join(source, "test", "validation", "pinned_subset.json")))}
failures = []
if set(got) != set(pinned):
    failures.append(f"rows differ: run {sorted(set(got) ^ set(pinned))}")
errors = []
for key, p in sorted(pinned.items()):
    if key not in got:
        continue
    g = got[key]
    errors.append(abs(g["predicted_s"] - g["measured_s"]) / g["measured_s"])
    if abs(g["predicted_s"] - p["predicted_s"]) > 1e-3 * p["predicted_s"]:
        failures.append(f"{key[0]} {key[1]}: predicted {g['predicted_s']:.6f} s, pinned {p['predicted_s']:.6f} s "
                        f"(measured {g['measured_s']:.6f} s)")
errors.sort()
print(f"{len(errors)} rows, median |error| {100 * errors[len(errors) // 2]:.1f}%, max {100 * errors[-1]:.1f}%")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
