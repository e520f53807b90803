#!/usr/bin/env python3
"""Fit the physical parameters of the collective model to real nccl-tests logs.

usage: scripts/calibrate_nccl.py PRESET LOG[:GPUS] ... [--hold-out LOG[:GPUS]] [--params KEY,...]
                                 [--min-bytes N] [--max-bytes N] [--echo build/echo-des]

--params fits only those parameters (the others stay the preset's own; default: the nine of the
Azure NDv4 fit in docs/validation.md, the base and hop latencies and the link and protocol
efficiencies — the rest are fitted only when named, each on the tables that show it); --min-bytes fits on
sizes from N bytes only (e.g. the bandwidth regime, for an efficiency), --max-bytes up to N (the
latency regime).

A LOG is an nccl-tests text log of one test (the op from its `Collective test starting` line, else
all_reduce; the type from its rows; GPUs from the log or :GPUS, 8 per node) or a
table of ../shared/data/collectives/multi-node/ (*.csv: its op, nodes, GPUs per node and NCCL
settings as scripts/collectives_validate.py reads them).

Only physical parameters are fitted (nccl.extra_base_us.{ll,ll128,simple}, nccl.extra_hop_us.{nvlink,net},
nccl.efficiency.{nvlink,net,ll,ll128,nvls,nvls_tree,all_to_all,all_to_all_nvlink}, nccl.p2p_channel_bw.{net,nvlink}, nccl.coll_channel_bw.net, nccl.p2p_peer_us.net, nccl.net_overhead_us, nccl.tail_copy_bw.ring); the algorithm and protocol choice, channel counts and protocol
limits stay NCCL's. The loss is the mean absolute log ratio of simulated to measured time over
every size of a log plus the same over its sizes from 1 MiB, averaged over the logs. A held-out log is only predicted, never fitted. Prints the fitted
values as `--set` arguments and as lines for the preset table.
"""
import argparse
import csv
import math
import os
import re
import statistics
import subprocess
import sys

from nccl_log import times
import collectives_validate as tables

PARAMS = [  # key, start, low, high, first step
    ('nccl.extra_base_us.ll', 0.0, -6.0, 100.0, 2.0),
    ('nccl.extra_base_us.ll128', 0.0, -13.0, 100.0, 5.0),
    ('nccl.extra_base_us.simple', 0.0, -8.0, 100.0, 10.0),
    ('nccl.extra_hop_us.nvlink', 0.0, -0.5, 10.0, 1.0),
    ('nccl.extra_hop_us.net', 0.0, -5.0, 60.0, 2.0),
    ('nccl.efficiency.nvlink', 1.0, 0.3, 1.0, -0.1),
    ('nccl.efficiency.net', 1.0, 0.2, 1.0, -0.2),
    ('nccl.efficiency.ll', 1.0, 0.2, 1.0, -0.2),
    ('nccl.efficiency.ll128', 1.0, 0.2, 1.0, -0.2),
    ('nccl.efficiency.nvls', 1.0, 0.2, 1.0, -0.2),
    ('nccl.efficiency.nvls_tree', 1.0, 0.2, 1.0, -0.2),
    ('nccl.efficiency.all_to_all', 1.0, 0.2, 1.0, -0.1),
    ('nccl.efficiency.all_to_all_nvlink', 1.0, 0.2, 1.0, -0.1),
    ('nccl.p2p_channel_bw.nvlink', 25.0, 1.0, 200.0, -5.0),
    ('nccl.p2p_channel_bw.net', 25.0, 1.0, 200.0, -5.0),
    ('nccl.coll_channel_bw.net', 25.0, 1.0, 200.0, -5.0),
    ('nccl.p2p_peer_us.net', 0.0, 0.0, 100.0, 2.0),
    ('nccl.net_overhead_us', 1.0, 0.0, 100.0, 1.0),
    ('nccl.tail_copy_bw.ring', 60.0, 5.0, 1000.0, -10.0),
]



# What a fit without --params fits (docs/validation.md's Azure fit): the others describe what only
# some tables show (NVLS, AllToAll, send/recv and collective channels) and are named when fitted.
DEFAULT_PARAMS = [k for k, *_ in PARAMS if not k.endswith(('.nvls', '.nvls_tree', '.all_to_all', '.all_to_all_nvlink', '_bw.net', '_bw.nvlink', '_bw.ring', 'net_overhead_us'))]

# The parameters being fitted: only these are set on the command line, the others stay the preset's.
FITTED = set()


def gpus_of(text):
    m = re.search(r'nGpus (\d+)', text)
    ranks = re.findall(r'#\s+Rank\s+\d+', text)
    return len(ranks) if ranks else int(m.group(1))


class Log:
    def __init__(self, spec):
        path, _, gpus = spec.partition(':')
        self.path, self.op, self.dtype, self.sets, self.env = path, 'all_reduce', 'float', [], {}
        if path.endswith('.csv'):
            name = os.path.basename(path)
            manifest = {r['file']: r for r in csv.DictReader(open(os.path.join(os.path.dirname(path), 'MANIFEST.csv')))}
            nodes, per_node = tables.layout(name, manifest[name])
            self.real, self.dtype = tables.measured(path)
            self.real = {s: t for s, t in self.real.items() if t > 0}
            self.op = tables.OPS[manifest[name]['op']]
            self.gpus, self.per_node, self.env = nodes * per_node, per_node, tables.table_env(name)
            # Fewer GPUs per node than the machine has: those GPUs' own NICs (as collectives_validate.py).
            machine = tables.PRESET_GPUS_PER_NODE[tables.describe_table(name)[0]]
            self.sets = [f'gpus_per_node={per_node}'] + ([f'nics_per_node={per_node}'] if per_node < machine else [])
        else:
            text = open(path).read()
            self.real = times(text)
            # A log of one test names it (`# Collective test starting: alltoall_perf`); its rows the type.
            test = re.search(r'Collective test starting: (\w+)_perf', text)
            if test:
                self.op = test.group(1)
            row = re.search(r'^\s*\d+\s+\d+\s+(\w+)\s', text, re.M)
            if row:
                self.dtype = row.group(1)
            self.gpus = int(gpus) if gpus else gpus_of(text)
            self.per_node = 8


def simulate(echo, preset, log, values):
    nodes = max(1, math.ceil(log.gpus / log.per_node))
    cmd = [echo, 'nccl-tests', '--platform', f'preset:{preset}:{nodes}', '--gpus', str(log.gpus), '--op', log.op,
           '-d', log.dtype, '-b', str(min(log.real)), '-e', str(max(log.real))]
    for s in log.sets:
        cmd += ['--set', s]
    for (key, *_), v in zip(PARAMS, values):
        if key in FITTED:
            cmd += ['--set', f'{key}={v:.6g}']
    run = subprocess.run(cmd, check=True, capture_output=True, text=True, env={**os.environ, **log.env})
    return times(run.stdout)


def errors(echo, preset, log, values):
    sim = simulate(echo, preset, log, values)
    # nccl-tests rounds sizes to whole counts per rank: pair each measured size with the nearest.
    out = {}
    for s in log.real:
        t = min(sim, key=lambda x: abs(x - s))
        if abs(t - s) <= 0.01 * s:
            out[s] = sim[t] / log.real[s] - 1
    return out


def loss(echo, preset, logs, values, min_bytes=0, max_bytes=float('inf')):
    # Mean absolute log error per log, over every size and again over sizes from 1 MiB (where the
    # targets are strictest), averaged over the logs.
    if any(not lo <= v <= hi for (_, _, lo, hi, _), v in zip(PARAMS, values)):
        return float('inf')
    total = 0.0
    for log in logs:
        e = {s: v for s, v in errors(echo, preset, log, values).items() if min_bytes <= s <= max_bytes}
        total += statistics.mean(abs(math.log1p(v)) for v in e.values())
        big = [abs(math.log1p(v)) for s, v in e.items() if s >= 1 << 20]
        total += statistics.mean(big) if big else 0.0
    return total / len(logs)


def nelder_mead(f, x0, steps, iters=400):
    pts = [list(x0)] + [[x + (s if i == j else 0) for j, x in enumerate(x0)] for i, s in enumerate(steps)]
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(len(pts)), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        centroid = [sum(p[k] for p in pts[:-1]) / (len(pts) - 1) for k in range(len(x0))]
        worst = pts[-1]
        refl = [c + (c - w) for c, w in zip(centroid, worst)]
        fr = f(refl)
        if fr < vals[0]:
            exp = [c + 2 * (c - w) for c, w in zip(centroid, worst)]
            fe = f(exp)
            pts[-1], vals[-1] = (exp, fe) if fe < fr else (refl, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = refl, fr
        else:
            con = [c + 0.5 * (w - c) for c, w in zip(centroid, worst)]
            fc = f(con)
            if fc < vals[-1]:
                pts[-1], vals[-1] = con, fc
            else:
                pts = [pts[0]] + [[b + 0.5 * (x - b) for x, b in zip(p, pts[0])] for p in pts[1:]]
                vals = [vals[0]] + [f(p) for p in pts[1:]]
        if max(vals) - min(vals) < 1e-5:
            break
    best = min(range(len(pts)), key=lambda i: vals[i])
    return pts[best], vals[best]


def report(echo, preset, log, values, tag):
    e = errors(echo, preset, log, values)
    big = [abs(v) for s, v in e.items() if s >= 1 << 20]
    print(f'{tag:9s} {log.path}: median |error| sizes >= 1 MiB {100 * statistics.median(big):5.1f}%  '
          f'all sizes {100 * statistics.median(abs(v) for v in e.values()):5.1f}%')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('preset')
    ap.add_argument('logs', nargs='+')
    ap.add_argument('--hold-out', action='append', default=[])
    ap.add_argument('--params', default='', help='comma-separated keys to fit (default: the nine latencies and efficiencies of the Azure fit)')
    ap.add_argument('--min-bytes', type=int, default=0, help='fit on sizes from this many bytes only')
    ap.add_argument('--max-bytes', type=int, default=1 << 62, help='fit on sizes up to this many bytes only')
    ap.add_argument('--echo', default='build/echo-des')
    a = ap.parse_args()
    fit, held = [Log(s) for s in a.logs], [Log(s) for s in a.hold_out]
    keys = [p[0] for p in PARAMS]
    chosen = a.params.split(',') if a.params else DEFAULT_PARAMS
    unknown = [k for k in chosen if k not in keys]
    if unknown:
        sys.exit(f'calibrate_nccl.py: unknown parameter {unknown[0]!r}; known: {", ".join(keys)}')
    x0 = [p[1] for p in PARAMS]
    free = [keys.index(k) for k in chosen]
    FITTED.update(chosen)

    def full(sub):  # the free parameters' values into the whole vector
        v = list(x0)
        for i, x in zip(free, sub):
            v[i] = x
        return v

    f = lambda sub: loss(a.echo, a.preset, fit, full(sub), a.min_bytes, a.max_bytes)
    steps = [PARAMS[i][4] for i in free]
    sub, val = nelder_mead(f, [x0[i] for i in free], steps)
    sub, val = nelder_mead(f, sub, [s / 4 for s in steps])  # restart around the optimum
    best = full(sub)
    print(f'loss {val:.4f}')
    for log in fit:
        report(a.echo, a.preset, log, best, 'fitted')
    for log in held:
        report(a.echo, a.preset, log, best, 'held out')
    print(' '.join(f'--set {k}={v:.3g}' for (k, *_), v in zip(PARAMS, best) if k in chosen))


if __name__ == '__main__':
    sys.exit(main())
