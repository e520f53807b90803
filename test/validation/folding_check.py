#!/usr/bin/env python3
"""scripts/folding_check.py finds a job of its grid whose data-parallel replicas fold equal folded
and unfolded (and one whose TP siblings share NICs, under `--fold tp`), and refuses a command-line
mistake with exit code 2.

  folding_check.py SOURCE_DIR ECHO_BINARY
"""
import subprocess
import sys

source, echo = sys.argv[1], sys.argv[2]
script = source + "/scripts/folding_check.py"
failures = []
out = subprocess.run([sys.executable, script, "--echo", echo, "--only", "dgx-h100 tp8 pp2 dp2", "-j", "1"],
                     capture_output=True, text=True)
if out.returncode != 0 or "1 jobs, 0 differ" not in out.stdout or "SAME" not in out.stdout:
    failures.append(f"dgx-h100 tp8 pp2 dp2: exit {out.returncode}, {out.stdout.strip()[-300:]!r} {out.stderr.strip()[-300:]!r}")
# TP siblings sharing NICs, under `--fold tp`: their NIC-mates' calls booked as copies.
out = subprocess.run([sys.executable, script, "--echo", echo, "--only", "dgx-a100/4nic tp8 pp1 dp2", "--fold", "tp", "-j", "1"],
                     capture_output=True, text=True)
if out.returncode != 0 or "1 jobs, 0 differ" not in out.stdout or "SAME" not in out.stdout:
    failures.append(f"--fold tp dgx-a100/4nic tp8 pp1 dp2: exit {out.returncode}, {out.stdout.strip()[-300:]!r}")
for args, expected in ((["--only", "no such job"], "no job of the grid matches"), (["-j", "0"], "-j must be at least 1"),
                       (["--fold", "all"], "invalid choice")):
    out = subprocess.run([sys.executable, script, "--echo", echo] + args, capture_output=True, text=True)
    if out.returncode != 2 or expected not in out.stderr:
        failures.append(f"{' '.join(args)}: exit {out.returncode}, stderr {out.stderr.strip()!r}")
for f in failures:
    print(f, file=sys.stderr)
sys.exit(1 if failures else 0)
