#!/usr/bin/env python3
"""Every nccl-tests table of ../shared/data/collectives/multi-node/, and the one-node A100 AllReduce
tables of ../shared/data/collectives/a100-intranode-allreduce/, against `echo-des nccl-tests` on a
platform built from what the cluster is published to be: per table, the median and max |error| of
the out-of-place time for sizes >= 1 MiB and over all sizes (the way ../shared/tools/nccl-compare.py
reads errors). Nothing is fitted here: this is the baseline of issue 17.

  scripts/collectives_validate.py [--echo build/echo-des] [--markdown | --json] [--only SUBSTRING] [--detail] [--plot OUTDIR]
                                  [--alcf-repo CLONE_OF_argonne-lcf/alcf-nccl-tests]

Clusters and the presets they run on (`echo-des platform list` gives each preset's figures and
sources; the `approximation` column says what the model cannot express yet):
- AWS p5.48xlarge: `aws-p5` (8x H100, 32x 100 Gb/s EFA).
- GCP A3 Mega: `gcp-a3-mega` (8x H100, 8x 200 Gb/s).
- Dell XE9680 / H100 IB clusters (nccl-tests issue 309, xxrjun): `dgx-h100` (8x 400 Gb/s InfiniBand).
- ALCF Polaris and Sirius: `polaris` (4x A100-40GB, NVLink without NVSwitch, 2x 200 Gb/s Slingshot-11).
- ALCF Sophia: `dgx-a100` (DGX A100 class; its NICs are not stated: 8x HDR assumed).
- vTrain's A100 node (2 to 8 GPUs of one node, NVSwitch): `dgx-a100`; the doubling sizes of its
  1 MiB-step tables are compared.
A table run with fewer GPUs per node than the machine has uses those GPUs' own NICs.
"""
import argparse
import csv
import glob
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "..", "shared", "data", "collectives", "multi-node")
INTRANODE = os.path.join(ROOT, "..", "shared", "data", "collectives", "a100-intranode-allreduce")

# (filename pattern, preset, GPUs per node, extra --set figures, approximation, plot panel), in
# the plot's order
CLUSTERS = [
    (r"^nccltests309_|^h100_10n", "dgx-h100", 8, [], "", "H100, 400 Gb/s InfiniBand"),
    (r"^aws_p5", "aws-p5", 8, [], "", "AWS p5 (EFA)"),
    (r"^gcp_a3mega", "gcp-a3-mega", 8, [], "", "GCP A3 Mega"),
    (r"polaris|sirius", "polaris", 4, [], "", "ALCF Polaris / Sirius (Slingshot-11)"),
    (r"sophia", "dgx-a100", 8, [], "NICs not stated: 8x HDR", "ALCF Sophia (DGX A100)"),
    (r"^vtrain_a100_intranode", "dgx-a100", 8, [], "", "A100 node (vTrain), one node"),
]


PRESET_GPUS_PER_NODE = {"aws-p5": 8, "gcp-a3-mega": 8, "dgx-h100": 8, "dgx-a100": 8, "polaris": 4}


def describe_table(name):
    """(preset, GPUs per node, extra --set figures, approximation, plot panel) of a table, or None."""
    for pattern, *described in CLUSTERS:
        if re.search(pattern, name):
            return tuple(described)
    return None


def layout(name, manifest_row):
    """Nodes and GPUs per node of a table, from its name where the manifest gives a range."""
    m = re.search(r"_n(\d+)\.g(\d+)", name)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.search(r"_(\d+)n_g(\d+)_", name)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.search(r"_(\d+)n_", name)
    nodes = int(m.group(1)) if m else int(re.match(r"\d+", manifest_row["nodes"]).group(0))
    return nodes, int(re.match(r"\d+", manifest_row["gpus_per_node"]).group(0))


OPS = {"all_reduce_perf": "all_reduce", "all_gather_perf": "all_gather", "reduce_scatter_perf": "reduce_scatter",
       "alltoall_perf": "alltoall", "sendrecv_perf": "sendrecv"}


def measured(path):
    rows = {}
    dtype = "float"
    for r in csv.DictReader(open(path)):
        try:
            if int(r["size_bytes"]) > 0:
                rows[int(r["size_bytes"])] = float(r["oop_time_us"])
            dtype = r["type"]
        except (ValueError, KeyError):
            continue
    return rows, dtype


def measured_log(path):
    """An nccl-tests output file as *_perf prints it: out-of-place time by size (sizes > 0)."""
    rows = {}
    for line in open(path, errors="replace"):
        m = re.search(r"minBytes (\d+)", line)
        if m:  # the sweep's start: nccl-tests rounds each size from it, so the model starts there too
            rows[0] = int(m.group(1))
        f = line.split()
        if len(f) >= 6 and f[0].isdigit() and int(f[0]) > 0:
            try:
                rows[int(f[0])] = float(f[5])
            except ValueError:
                continue
    return rows, "float"


def measured_intranode(path):
    """vTrain's LUT of one node (size, count, type, then out-of-place time in ns and busbw, in-place):
    its doubling sizes, as every other table has them, so that no region of sizes outweighs the rest."""
    rows = {}
    with open(path) as f:
        for r in list(csv.reader(f))[1:]:
            if len(r) >= 4 and r[0].isdigit() and int(r[0]) > 0 and int(r[0]) & (int(r[0]) - 1) == 0:
                rows[int(r[0])] = float(r[3]) / 1e3
    return rows, "float"


def intranode_tables():
    """The one-node A100 AllReduce tables, named and described as the manifest's rows are."""
    found = {}
    for path in sorted(glob.glob(os.path.join(INTRANODE, "allreduce-*gpu.csv"))):
        gpus = re.search(r"allreduce-(\d+)gpu", path).group(1)
        found[f"vtrain_a100_intranode_allreduce-{gpus}gpu.csv"] = {
            "op": "all_reduce_perf", "nodes": "1", "gpus_per_node": gpus, "nccl": "", "measured": measured_intranode(path)}
    return found


def alcf_tables(repo, manifest):
    """The Polaris / Sirius runs of a clone of argonne-lcf/alcf-nccl-tests that ../shared/data does not
    hold (128, 256 and 540 nodes): setup 5 (the shared tables' environment), named as the shared
    tables are, each with a manifest row of its own."""
    found = {}
    for path in sorted(glob.glob(os.path.join(repo, "results_*", "nccl_*", "n*.g*", "*_output.dat.5"))):
        parts = os.path.relpath(path, repo).split(os.sep)
        op = os.path.basename(path)[:-len("_output.dat.5")]
        name = f"alcf_{parts[0]}_{parts[1]}_{parts[2]}_{op}_setup5.dat"
        if name[:-len(".dat")] + ".csv" in manifest or op + "_perf" not in OPS:
            continue
        rows = measured_log(path)
        if any(rows[0]):  # a run that printed sizes (one that never started has a header at most)
            found[name] = {"op": op + "_perf", "nccl": parts[1].replace("nccl_", "").replace("_", "."), "measured": rows}
    return found


# Tables run with NCCL settings that change what the model must pick (MANIFEST.csv's env column).
TABLE_ENV = [(r"_ring_minctas", {"NCCL_ALGO": "Ring", "NCCL_MIN_CTAS": "24"})]


def table_env(name):
    env = {}
    for pattern, values in TABLE_ENV:
        if re.search(pattern, name):
            env.update(values)
    return env


def nccl_version(name, manifest_row):
    """The NCCL release a table ran: from its file name where it has one, else MANIFEST.csv's."""
    m = re.search(r"v?(2)[._](\d+)(?:[._](\d+))?", name) or re.search(r"(2)\.(\d+)(?:\.(\d+))?", manifest_row["nccl"])
    return f"{m.group(1)}.{m.group(2)}" if m else ""


def simulated(echo, preset, nodes, per_node, sets, op, dtype, lo, hi, env=None, version=""):
    platform = f"preset:{preset}:{nodes}"
    cmd = [echo, "nccl-tests", "--platform", platform, "-g", str(nodes * per_node), "--op", op, "-d", dtype, "-b", str(lo),
           "-e", str(hi)]
    for s in sets + [f"gpus_per_node={per_node}"]:
        cmd += ["--set", s]
    if version:
        cmd += ["--nccl-version", version]
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[0] if out.stderr.strip() else f"exit {out.returncode}"
    times = {}
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) >= 6 and f[0].isdigit():
            times[int(f[0])] = float(f[5])
    return times, ""


OP_COLOURS = {"all_reduce": "#1f77b4", "all_gather": "#2ca02c", "reduce_scatter": "#9467bd", "alltoall": "#d62728",
              "sendrecv": "#ff7f0e"}


def plot(outdir, curves):
    """One panel per cluster: every table's signed error against its message size, coloured by op."""
    dat = os.path.join(outdir, "collectives-validation.dat")
    clusters = [c[-1] for c in CLUSTERS if any(k == c[-1] for k, *_ in curves)]
    with open(dat, "w") as f:
        for cluster, name, op, err in curves:
            f.write(f"# {cluster} | {name} | {op}\n")
            for size in sorted(err):
                f.write(f"{size} {100 * err[size]:.3f}\n")
            f.write("\n\n")
    script = [f"set terminal pngcairo noenhanced size 1400,{300 * ((len(clusters) + 1) // 2)} font ',10'",
              f"set output '{os.path.join(outdir, 'collectives-validation.png')}'",
              f"set multiplot layout {(len(clusters) + 1) // 2},2 title 'echo-des nccl-tests against measured tables "
              "(signed error of the out-of-place time; shaded: +-10%)'",
              "set logscale x 2",
              "set xtics ('8 B' 8, '256 B' 256, '8 KiB' 2**13, '256 KiB' 2**18, '8 MiB' 2**23, '256 MiB' 2**28, '8 GiB' 2**33)",
              "set xlabel 'message size'",
              "set ylabel 'error (%)'", "set yrange [-100:100]", "set grid", "set key outside right top",
              "set style fill transparent solid 0.15 noborder"]
    index = 0
    blocks = {}
    for cluster, name, op, err in curves:
        blocks.setdefault(cluster, []).append((index, op))
        index += 1
    for cluster in clusters:
        seen = set()
        parts = ["[8:2**35] '+' using 1:(-10):(10) with filledcurves lc rgb '#888888' notitle"]
        for i, op in blocks[cluster]:
            title = f"title '{op}'" if op not in seen else "notitle"
            seen.add(op)
            parts.append(f"'{dat}' index {i} using 1:2 with linespoints pt 7 ps 0.4 lc rgb '{OP_COLOURS.get(op, '#000000')}' {title}")
        script.append(f"set title '{cluster}'")
        script.append("plot " + ", ".join(parts))
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--echo", default=os.path.join(ROOT, "build", "echo-des"))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", action="store_true", help="print the per-table figures as JSON")
    ap.add_argument("--only", default="", help="run only the tables whose name contains this")
    ap.add_argument("--detail", action="store_true", help="print every size: measured, simulated, error")
    ap.add_argument("--plot", metavar="OUTDIR", help="also write OUTDIR/collectives-validation.{dat,png}: the signed "
                    "error by size, one panel per cluster (gnuplot, Debian's gnuplot-nox)")
    ap.add_argument("--alcf-repo", metavar="DIR", help="also check the runs of a clone of argonne-lcf/alcf-nccl-tests "
                    "that ../shared/data does not hold (Polaris at 128, 256 and 540 nodes: held out)")
    ap.add_argument("--set", action="append", default=[], metavar="PRESET:KEY=VALUE",
                    help="change a preset's figure for this run only (repeatable), e.g. dgx-h100:nccl.efficiency.net=0.9")
    a = ap.parse_args()
    extra_sets = {}
    for item in a.set:
        preset_name, _, figure = item.partition(":")
        if not figure or "=" not in figure:
            ap.error(f"--set {item}: write PRESET:KEY=VALUE")
        extra_sets.setdefault(preset_name, []).append(figure)
    manifest = {r["file"]: r for r in csv.DictReader(open(os.path.join(DATA, "MANIFEST.csv")))}
    manifest.update(intranode_tables())
    if a.alcf_repo:
        extra = alcf_tables(a.alcf_repo, manifest)
        if not extra:
            print(f"collectives_validate.py: no nccl-tests runs under {a.alcf_repo}/results_*/nccl_*/n*.g*/ that "
                  "../shared/data does not hold: give a clone of argonne-lcf/alcf-nccl-tests", file=sys.stderr)
            sys.exit(2)
        manifest.update(extra)
    listed = subprocess.run([a.echo, "platform", "list", "--json"], capture_output=True, text=True, check=True)
    approximations = {p["preset"]: p["approximation"] for p in json.loads(listed.stdout)}
    results = []
    curves = []  # (cluster, table, op, {size: signed error})
    for name in sorted(manifest):
        if a.only not in name:
            continue
        cluster = describe_table(name)
        row = manifest[name]
        if cluster is None or row["op"] not in OPS:
            print(f"{name}: skipped (cluster or op not described)", file=sys.stderr)
            continue
        preset, per_node, sets, approx, panel = cluster
        sets = sets + extra_sets.get(preset, [])
        approx = "; ".join(x for x in (approx, approximations.get(preset, "")) if x)
        nodes, per_node = layout(name, row)
        real, dtype = row["measured"] if "measured" in row else measured(os.path.join(DATA, name))
        if not real:
            continue
        # A run with fewer GPUs per node than the machine has uses the GPUs' own NICs (NCCL picks
        # the closest), the rest idle.
        if per_node < PRESET_GPUS_PER_NODE[preset]:
            sets = sets + [f"nics_per_node={per_node}"]
        start = real.pop(0, None)
        sizes_run = [s for s in real if s > 0]
        sim, why = simulated(a.echo, preset, nodes, per_node, sets, OPS[row["op"]], dtype, start or min(sizes_run), max(sizes_run),
                             table_env(name), nccl_version(name, row))
        if sim is None:
            print(f"{name}: not run: {why}", file=sys.stderr)
            continue
        # nccl-tests rounds each size down to a whole count per rank, so a run started at another
        # size lands a few elements off the table's sizes: pair each with the nearest simulated one.
        nearest = {s: min(sim, key=lambda t: abs(t - s)) for s in real if real[s] > 0 and sim}
        sizes = [s for s in sorted(nearest) if abs(nearest[s] - s) <= 0.01 * s]
        err = {s: sim[nearest[s]] / real[s] - 1 for s in sizes}
        if a.detail:
            print(f"# {name}: size_bytes measured_us simulated_us error")
            for s in sizes:
                print(f"{s:14d} {real[s]:12.2f} {sim[nearest[s]]:12.2f} {100 * err[s]:+7.1f}%")
        big = [abs(err[s]) for s in sizes if s >= 1 << 20] or [float("nan")]
        every = [abs(e) for e in err.values()]
        signed_big = statistics.median([err[s] for s in sizes if s >= 1 << 20] or [float("nan")])
        results.append((name, OPS[row["op"]], nodes, per_node, statistics.median(big), max(big), signed_big,
                        statistics.median(every), max(every), approx))
        curves.append((panel, name, OPS[row["op"]], err))
    if a.plot:
        plot(a.plot, curves)
    if a.json:
        print(json.dumps([{"table": n, "op": op, "nodes": nodes, "gpus_per_node": g, "median_1mib": round(mb, 6),
                           "max_1mib": round(xb, 6), "signed_1mib": round(sb, 6), "median_all": round(ma, 6),
                           "max_all": round(xa, 6)} for n, op, nodes, g, mb, xb, sb, ma, xa, _ in results], indent=1))
        return
    if a.markdown:
        print("| table | op | nodes x GPUs | median \\|err\\| >= 1 MiB | max >= 1 MiB | signed median >= 1 MiB | median \\|err\\| all | max all | approximation |")
        print("|---|---|---|---:|---:|---:|---:|---:|---|")
        for n, op, nodes, g, mb, xb, sb, ma, xa, ap_ in results:
            print(f"| {n} | {op} | {nodes} x {g} | {100 * mb:.1f}% | {100 * xb:.1f}% | {100 * sb:+.1f}% | {100 * ma:.1f}% | "
                  f"{100 * xa:.1f}% | {ap_} |")
    else:
        for n, op, nodes, g, mb, xb, sb, ma, xa, ap_ in results:
            print(f"{n[:60]:60s} {op:15s} {nodes:3d}x{g}  >=1MiB med {100 * mb:5.1f}% ({100 * sb:+6.1f}%) max {100 * xb:6.1f}%   "
                  f"all med {100 * ma:5.1f}% max {100 * xa:6.1f}%")
    if results:
        meds = [r[4] for r in results if r[4] == r[4]]
        print(f"{len(results)} tables: median over tables of the median |error| >= 1 MiB {100 * statistics.median(meds):.1f}%, "
              f"over all sizes {100 * statistics.median(r[7] for r in results):.1f}%")


if __name__ == "__main__":
    main()
