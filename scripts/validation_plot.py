#!/usr/bin/env python3
"""Predicted against measured iteration time for every published dataset in ../shared/data/e2e/:
runs scripts/validate.py and writes OUTDIR/validation-e2e.dat (one block per dataset: measured_s
predicted_s) and OUTDIR/validation-e2e.png (gnuplot, from Debian's gnuplot-nox): log-log, the
diagonal and a +-10% band. Prints the per-dataset summary as a markdown table.

  scripts/validation_plot.py OUTDIR [--rows N] [--max-gpus G] [--echo build/echo-des]
  scripts/validation_plot.py OUTDIR --replot     # only redraw the PNG from OUTDIR's .dat
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = {"vtrain": "vTrain (Megatron-DeepSpeed, A100)", "dgxc": "dgxc-benchmarking (NeMo, H100)",
         "foundry": "llm-foundry (FSDP, A100)", "megatron": "Megatron-LM README tables"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--rows", type=int, default=40)
    ap.add_argument("--max-gpus", type=int, default=256)
    ap.add_argument("--echo", default=os.path.join(os.path.dirname(HERE), "build", "echo-des"))
    ap.add_argument("--replot", action="store_true", help="redraw the PNG from the existing .dat, run nothing")
    a = ap.parse_args()
    if a.replot:
        draw(a.outdir, [d for d in NAMES if f"# {d}:" in open(os.path.join(a.outdir, "validation-e2e.dat")).read()])
        return
    out = subprocess.run([sys.executable, os.path.join(HERE, "validate.py"), "--rows", str(a.rows), "--max-gpus", str(a.max_gpus),
                          "--json", "--echo", a.echo], capture_output=True, text=True, check=True)
    rows = json.loads(out.stdout)
    datasets = [d for d in NAMES if any(r["dataset"] == d for r in rows)]
    dat_path = os.path.join(a.outdir, "validation-e2e.dat")
    print("| dataset | rows | median abs error | signed median | within 10% |")
    print("|---|---:|---:|---:|---:|")
    with open(dat_path, "w") as dat:
        for index, d in enumerate(datasets):
            mine = [r for r in rows if r["dataset"] == d]
            dat.write(f"# {d}: measured_s predicted_s\n")
            for r in mine:
                dat.write(f"{r['measured_s']:.6g} {r['predicted_s']:.6g}\n")
            dat.write("\n\n")
            errs = [r["predicted_s"] / r["measured_s"] - 1 for r in mine]
            print(f"| {NAMES[d]} | {len(mine)} | {100 * statistics.median(abs(e) for e in errs):.1f}% | "
                  f"{100 * statistics.median(errs):+.1f}% | {100 * sum(abs(e) <= 0.1 for e in errs) / len(errs):.0f}% |")
    draw(a.outdir, datasets)


def draw(outdir, datasets):
    dat_path = os.path.join(outdir, "validation-e2e.dat")
    plots = [f"'{dat_path}' index {index} using 1:2 with points pt {5 + 2 * index} ps 0.8 lc {index + 1} title '{NAMES[d]}'"
             for index, d in enumerate(datasets)]
    script = f"""set terminal pngcairo size 900,750 font ',11'
set output '{os.path.join(outdir, 'validation-e2e.png')}'
set logscale xy
set xlabel 'measured iteration time (s)'
set ylabel 'echo-des prediction (s)'
set title 'Generated jobs against published runs (vTrain: host cost fitted on hidden 1024)'
set key top left
set grid
set size square
plot [0.03:400] [0.03:400] x with lines lc 'black' title 'exact', 1.1*x with lines dt 2 lc 'gray' title '+-10%', 0.9*x with lines dt 2 lc 'gray' notitle, {', '.join(plots)}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


if __name__ == "__main__":
    main()
