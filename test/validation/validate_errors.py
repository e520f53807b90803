#!/usr/bin/env python3
"""scripts/validate.py refuses a command-line mistake with a message that says what to do, and exit
code 2: an unknown dataset, the vtrain-multi dataset without its file, a file that is not there. And
it reads vTrain's file as published (it starts with a UTF-8 byte-order mark).

  validate_errors.py SOURCE_DIR [ECHO_BINARY]
"""
import json
import os
import subprocess
import sys
import tempfile

source = sys.argv[1]
echo = sys.argv[2] if len(sys.argv) > 2 else os.path.join(source, "build", "echo-des")  # the binary under test
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
# vTrain's data/ground_truth_multi.csv: its header, after a byte-order mark, and its first run.
with tempfile.NamedTemporaryFile("w", suffix=".csv", encoding="utf-8", delete=False) as table:
    table.write("\ufeffParameters (billion),# GPUs,global batch,micro batch,hidden size,attention heads,# layers,"
            "sequence length,tensor parallelism,data parallelism,pipeline parallelism,iteration time (ms)\n"
            "3.6,64,512,8,3072,32,30,2048,1,64,1,3566.5\n")
out = subprocess.run([sys.executable, script, "--datasets", "vtrain-multi", "--vtrain-multi", table.name, "--rows", "0", "--json",
                      "--echo", echo], capture_output=True, text=True)
os.unlink(table.name)
if out.returncode != 0 or [r["row"] for r in json.loads(out.stdout or "[]")] != ["3.6B tp1 pp1 dp64 mb8"]:
    failures.append(f"vtrain-multi with a byte-order mark: exit {out.returncode}, stderr {out.stderr.strip()[-300:]!r}")
for f in failures:
    print(f)
sys.exit(1 if failures else 0)
