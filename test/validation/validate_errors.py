#!/usr/bin/env python3
"""scripts/validate.py refuses a command-line mistake with a message that says what to do, and exit
code 2: an unknown dataset, the vtrain-multi dataset without its file, a file that is not there.

  validate_errors.py SOURCE_DIR
"""
import os
import subprocess
import sys

source = sys.argv[1]
script = os.path.join(source, "scripts", "validate.py")
cases = [
    (["--datasets", "bogus"], "known: vtrain, dgxc"),
    (["--datasets", "vtrain-multi"], "give it with --vtrain-multi"),
    (["--datasets", "vtrain-multi", "--vtrain-multi", "/nonexistent/ground_truth_multi.csv"], "no such file"),
]
failures = []
for args, expected in cases:
    out = subprocess.run([sys.executable, script] + args, capture_output=True, text=True)
    if out.returncode != 2 or expected not in out.stderr:
        failures.append(f"{' '.join(args)}: exit {out.returncode}, stderr {out.stderr.strip()!r}")
for f in failures:
    print(f)
sys.exit(1 if failures else 0)
