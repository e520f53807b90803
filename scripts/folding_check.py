#!/usr/bin/env python3
"""Checks that the default rank folding (`exact`, or `--fold tp`) changes no figure: runs a grid of
generated jobs (six presets and DGX A100 with 4 NICs; TP 1-8, PP 1-4, DP 2-4, ZeRO 0/1, interleaved
pipelines, Mixtral with expert parallelism, context parallelism inside the node) folded and with
`--no-folding`, and compares the two summaries (every figure but how the run went; floats to 1e-9,
the collectives' table in one order). Prints a line per job — its events folded and unfolded, SAME
or what differs — and exits 1 if any differs. About 15 seconds; the test suite runs a smaller grid
(test/generator_test.cpp).

  scripts/folding_check.py [--echo build/echo-des] [-j 2] [--only SUBSTRING] [--fold exact|tp]
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def label(preset):
    """A preset with its overrides, as a word: `dgx-a100, nics_per_node: 4` -> `dgx-a100/4nic`."""
    return preset.replace(", nics_per_node: ", "/") + ("nic" if "nics_per_node" in preset else "")


def grid():
    """(name, job YAML) for every layout of the grid; the same list on every call."""
    presets = [("dgx-a100", 8), ("dgx-h100", 8), ("aws-p5", 8), ("gcp-a3-mega", 8), ("polaris", 4), ("azure-ndv4-a100", 8),
               ("dgx-a100, nics_per_node: 4", 8)]
    jobs = []
    for preset, per_node in presets:
        for tp in ([per_node, per_node // 2] if per_node == 8 else [4, 2]):
            for pp in (1, 2, 4):
                for dp in (2, 4):
                    gpus = tp * pp * dp
                    if gpus % per_node:
                        continue
                    n = len(jobs)
                    moe = n % 4 == 3  # every fourth layout a mixture of experts
                    layers = 4 if pp < 4 else 8
                    sp = "true" if tp > 1 else "false"
                    if moe:
                        model = "{name: mixtral-8x7b, layers: %d, seq_len: 1024}" % layers
                        parallel = "{tp: %d, pp: %d, dp: %d, ep: %d, zero: 1, sequence_parallel: %s}" % (tp, pp, dp, dp, sp)
                    else:
                        model = "{name: gpt3-1.3b, layers: %d}" % layers
                        interleaved = ", schedule: interleaved-1f1b, virtual_stages: 2" if pp > 1 and n % 3 == 0 else ""
                        parallel = "{tp: %d, pp: %d, dp: %d, zero: %d, dp_overlap: %s%s}" % (
                            tp, pp, dp, n % 2, "true" if n % 5 else "false", interleaved)
                    job = ("platform: {preset: %s, nodes: %d}\nworkload:\n  model: %s\n"
                           "  training: {global_batch: %d, micro_batch: 1}\n  parallel: %s\n") % (
                               preset, gpus // per_node, model, 4 * dp * pp, parallel)
                    jobs.append(("%s tp%d pp%d dp%d%s" % (label(preset), tp, pp, dp, " moe" if moe else ""), job))
        # Context parallelism inside the node: its pairs use the node's GPU links beside TP's rings
        # (TP + CP filling the node, then half of it).
        for tp, pp in ((per_node // 2, 1), (per_node // 2, 2), (max(1, per_node // 4), 1)):
            dp = 2
            gpus = tp * 2 * pp * dp
            job = ("platform: {preset: %s, nodes: %d}\nworkload:\n  model: {name: llama3-8b, layers: 4, seq_len: 4096}\n"
                   "  training: {global_batch: %d, micro_batch: 1}\n"
                   "  parallel: {tp: %d, cp: 2, pp: %d, dp: %d, zero: 1, dp_overlap: true, sequence_parallel: %s}\n") % (
                       preset, max(1, gpus // per_node), 4 * dp * pp, tp, pp, dp, "true" if tp > 1 else "false")
            jobs.append(("%s tp%d cp2 pp%d dp%d" % (label(preset), tp, pp, dp), job))
    return jobs


def run(echo, path, extra):
    out = subprocess.run([echo, "run", path, "--json", "-q"] + extra, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)


def comparable(summary):
    events = summary["simulation"]["events"]
    for key in ("simulation", "job"):
        summary.pop(key, None)
    summary["workload"].pop("source", None)
    summary["collectives"] = sorted(summary["collectives"], key=lambda c: (c["communicator"], c["op"], c["bytes"]))
    return events, summary


def differences(a, b, path=""):
    if type(a) is not type(b):
        return [path + ": of another type"]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += [path + "/" + k + ": only in one"] if k not in a or k not in b else differences(a[k], b[k], path + "/" + k)
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return ["%s: %d against %d entries" % (path, len(a), len(b))]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, "%s/%d" % (path, i))]
    if isinstance(a, float):
        return [] if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15) else ["%s: %r against %r" % (path, a, b)]
    return [] if a == b else ["%s: %r against %r" % (path, a, b)]


def check(echo, fold, name, job):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "job.yaml")
        with open(path, "w") as f:
            f.write(job)
        try:
            folded_events, folded = comparable(run(echo, path, ["--fold", fold]))
            every_events, every = comparable(run(echo, path, ["--no-folding"]))
        except RuntimeError as e:
            return name, False, "failed: " + str(e)
    diff = differences(folded, every)
    # The collectives' table keeps the first 100 rows: equal totals may tie differently there.
    if len(folded["collectives"]) >= 100:
        diff = [d for d in diff if not d.startswith("/collectives")]
    line = "%9d events folded, %9d unfolded  %s" % (folded_events, every_events,
                                                    "SAME" if not diff else "DIFF: " + "; ".join(diff[:3]))
    return name, not diff, line


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--echo", default=os.path.join(ROOT, "build", "echo-des"))
    ap.add_argument("-j", type=int, default=2, help="jobs compared at once")
    ap.add_argument("--only", default="", help="compare only the jobs whose name contains this")
    ap.add_argument("--fold", default="exact", choices=["exact", "tp"],
                    help="the folding compared with every rank simulated (both promise the same figures)")
    args = ap.parse_args()
    if args.j < 1:
        print("folding_check.py: -j must be at least 1", file=sys.stderr)
        return 2
    jobs = [(n, j) for n, j in grid() if args.only in n]
    if not jobs:
        print("folding_check.py: no job of the grid matches --only %r" % args.only, file=sys.stderr)
        return 2
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
        for name, ok, line in pool.map(lambda nj: check(args.echo, args.fold, *nj), jobs):
            print("%-36s %s" % (name, line), flush=True)
            failed += not ok
    print("\n%d jobs, %d differ" % (len(jobs), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
