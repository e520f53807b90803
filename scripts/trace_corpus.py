#!/usr/bin/env python3
"""Runs every trace of a folder through echo-des and prints one table row per trace: whether it
loads, its ranks, the step replayed, the replay (with the traced collective times, `comm: measured`)
against the ProfilerStep's duration, the share of the step the GPU waited for its host, the wall
time and peak memory of the run, and the first line of the error or the import notes.

- PyTorch profiler (Kineto) files (*.json, *.json.gz): each file on its own, on DGX A100 nodes
  enough for the ranks its distributedInfo names.
- Chakra execution traces (*.et): each folder of them is one job.
A PyTorch Execution Trace (a JSON with `nodes`) is listed as what it is; it is read together with
its Kineto trace, not alone.

  scripts/trace_corpus.sh DIR [--echo build/echo-des] [--markdown]
"""
import argparse
import gzip
import json
import math
import os
import re
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def first_line(text):
    for line in text.splitlines():
        line = line.strip()
        if line:
            return re.sub(r"^echo-des: error: \S+: ", "", line)
    return ""


def is_execution_trace(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            head = f.read(4096)
    except OSError:
        return False
    return '"nodes"' in head and '"traceEvents"' not in head and '"schema"' in head


def job_file(tmp, nodes, workload):
    path = os.path.join(tmp, "job.yaml")
    with open(path, "w") as f:
        f.write("platform: {preset: dgx-a100, nodes: %d}\nworkload: %s\n" % (nodes, workload))
    return path


def replay(echo, tmp, workload, ranks):
    code, out, err = run([echo, "run", job_file(tmp, max(1, math.ceil(ranks / 8)), workload), "--json", "-q"])
    if code != 0:
        return None, first_line(err)
    return json.loads(out), ""


def kineto_row(echo, tmp, path, name):
    code, out, err = run([echo, "import", "kineto", path, "-o", os.path.join(tmp, "t.pb")])
    if code != 0:
        return {"file": name, "loads": "no", "note": first_line(err)}
    m = re.search(r"imported (.*?): (\d+) ranks, (\d+) kernels and (\d+) collectives", out)
    ranks = int(m.group(2))
    j, error = replay(echo, tmp, "{kineto: [%s], comm: measured}" % json.dumps(path), ranks)
    if j is None:
        return {"file": name, "loads": "no", "note": error}
    return row(name, m.group(1), ranks, j, "%s kernels, %s collectives" % (m.group(3), m.group(4)))


def chakra_row(echo, tmp, folder, name):
    files = sorted((f for f in os.listdir(folder) if f.endswith(".et")), key=lambda f: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", f)])
    paths = [os.path.abspath(os.path.join(folder, f)) for f in files]
    j, error = replay(echo, tmp, "{chakra: [%s]}" % ", ".join(json.dumps(p) for p in paths), len(paths))
    if j is None:
        return {"file": name + "/*.et", "loads": "no", "note": error}
    return row(name + "/*.et", "", len(paths), j, "%d Chakra files" % len(paths))


def row(name, step, ranks, j, what):
    measured = j.get("measured_iteration_time_s")
    iteration = j["iteration_time_s"]
    host_bound = sum(r.get("host_bound_s", 0) for r in j["ranks"]) / max(1, len(j["ranks"])) / iteration if iteration > 0 else 0
    return {
        "file": name,
        "loads": "yes",
        "ranks": ranks,
        "step": step,
        "replay_ms": iteration * 1e3,
        "step_ms": measured * 1e3 if measured else None,
        "error": (iteration - measured) / measured if measured else None,
        "host_bound": host_bound,
        "wall_s": j["simulation"]["wall_s"],
        "rss_mb": j["simulation"]["peak_rss_mb"],
        "note": what,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--echo", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "echo-des"))
    ap.add_argument("--markdown", action="store_true", help="a Markdown table (default: aligned text)")
    args = ap.parse_args()
    if not os.path.isdir(args.folder):
        sys.exit("trace_corpus: %s is not a folder" % args.folder)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for root, dirs, files in os.walk(args.folder):
            dirs.sort()
            rel = os.path.relpath(root, args.folder)
            if any(f.endswith(".et") for f in files):
                rows.append(chakra_row(args.echo, tmp, root, rel))
            for f in sorted(files):
                if not (f.endswith(".json") or f.endswith(".json.gz")):
                    continue
                path = os.path.abspath(os.path.join(root, f))
                name = os.path.normpath(os.path.join(rel, f))
                if is_execution_trace(path):
                    rows.append({"file": name, "loads": "-", "note": "a PyTorch Execution Trace: read with its Kineto trace"})
                    continue
                rows.append(kineto_row(args.echo, tmp, path, name))
    header = ["file", "loads", "ranks", "step", "replay ms", "ProfilerStep ms", "error", "host-bound", "wall s", "RSS MB", "note"]

    def cells(r):
        def f(key, fmt):
            v = r.get(key)
            return "" if v is None else fmt % v
        return [r["file"], r["loads"], f("ranks", "%d"), r.get("step", ""), f("replay_ms", "%.3f"), f("step_ms", "%.3f"),
                f("error", "%+.2f%%") if r.get("error") is None else "%+.2f%%" % (100 * r["error"]),
                "" if r.get("host_bound") is None else "%.0f%%" % (100 * r["host_bound"]), f("wall_s", "%.2f"), f("rss_mb", "%.0f"),
                r.get("note", "")]

    table = [cells(r) for r in rows]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        for c in table:
            print("| " + " | ".join(x.replace("|", "\\|") for x in c) + " |")
    else:
        widths = [max(len(h), *(len(c[i]) for c in table)) if table else len(h) for i, h in enumerate(header)]
        print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
        for c in table:
            print("  ".join(x.ljust(w) for x, w in zip(c, widths)))
    loaded = [r for r in rows if r["loads"] == "yes"]
    with_step = [r for r in loaded if r.get("error") is not None and r.get("step", "").startswith("ProfilerStep")]
    within = sum(1 for r in with_step if abs(r["error"]) <= 0.03)
    print("\n%d traces, %d load; %d of the %d with a ProfilerStep replay within 3%% of it" %
          (len(rows), len(loaded), within, len(with_step)), file=sys.stderr if not args.markdown else sys.stdout)


if __name__ == "__main__":
    main()
