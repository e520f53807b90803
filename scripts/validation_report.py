#!/usr/bin/env python3
"""Simulated vs measured nccl-tests times: the table and plot of docs/validation.md.

usage: scripts/validation_report.py PRESET OUTDIR LOG:GPUS[:held-out] ... [--echo build/echo-des]

For each log, runs `echo-des nccl-tests` on the preset with as many nodes as the GPUs need,
compares size by size the way ../shared/tools/nccl-compare.py does, writes OUTDIR/validation.dat
(one block per log) and OUTDIR/validation.png (gnuplot, from Debian's gnuplot-nox), and prints
the Markdown table of docs/validation.md.
"""
import argparse
import math
import os
import statistics
import subprocess

from nccl_log import times



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('preset')
    ap.add_argument('outdir')
    ap.add_argument('logs', nargs='+')
    ap.add_argument('--echo', default='build/echo-des')
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    dat = open(os.path.join(a.outdir, 'validation.dat'), 'w')
    plots, rows = [], []
    for index, spec in enumerate(a.logs):
        path, gpus, *rest = spec.split(':')
        held = bool(rest)
        gpus = int(gpus)
        real = times(open(path).read())
        nodes = max(1, math.ceil(gpus / 8))
        out = subprocess.run([a.echo, 'nccl-tests', '--platform', f'preset:{a.preset}:{nodes}', '--gpus', str(gpus),
                              '-b', str(min(real)), '-e', str(max(real))], check=True, capture_output=True, text=True).stdout
        sim = times(out)
        sizes = sorted(s for s in real if s in sim)
        err = {s: sim[s] / real[s] - 1 for s in sizes}
        dat.write(f'# {os.path.basename(path)}: size real_us sim_us\n')
        for s in sizes:
            dat.write(f'{s} {real[s]} {sim[s]}\n')
        dat.write('\n\n')
        big = [abs(err[s]) for s in sizes if s >= 1 << 20]
        small = [abs(e) for e in err.values()]
        rows.append((os.path.basename(path), gpus, held, statistics.median(big), max(big), statistics.median(small),
                     max(small)))
        label = f'{gpus} GPUs' + (' (held out)' if held else '')
        plots.append(f"'{dat.name}' index {index} using 1:2 with points pt 7 ps 0.6 lc {index + 1} title '{label}, measured'")
        plots.append(f"'{dat.name}' index {index} using 1:3 with lines lw 2 lc {index + 1} title '{label}, echo-des'")
    dat.close()
    script = f"""set terminal pngcairo size 1000,650 font ',11'
set output '{os.path.join(a.outdir, 'validation.png')}'
set logscale xy
set format x '%.0s%cB'
set xlabel 'AllReduce size (bytes)'
set ylabel 'time (us)'
set title 'echo-des vs nccl-tests all\\_reduce\\_perf on {a.preset}'
set key top left
set grid
plot {', '.join(plots)}
"""
    subprocess.run(['gnuplot'], input=script, text=True, check=True)
    print('| log | GPUs | fit | median \\|err\\| >= 1 MiB | max \\|err\\| >= 1 MiB | median \\|err\\| all sizes | max \\|err\\| all sizes |')
    print('|---|---|---|---|---|---|---|')
    for name, gpus, held, mb, xb, ma, xa in rows:
        print(f"| {name} | {gpus} | {'held out' if held else 'fitted'} | {100 * mb:.1f}% | {100 * xb:.1f}% | "
              f'{100 * ma:.1f}% | {100 * xa:.1f}% |')


if __name__ == '__main__':
    main()
