#!/usr/bin/env python3
"""Random valid traces through `echo-des run`: each must run, and give the same iteration with
every rank simulated (`--fold none`), with the default folding and with TP siblings folded.

A trace here is SPMD: every rank issues the same list of tasks (compute, collectives on
communicators of several shapes, a send to the next member — sometimes eager — paired with a recv
from the previous one on another stream), each task on a random stream with random dependencies
on earlier tasks; some jobs keep the traced collective durations (`comm: measured`) or scale the
kernels.
Such a program cannot deadlock under NCCL's rules — every member issues the same calls in the
same order, and running the tasks in issue order satisfies every dependency — so a deadlock, a
mismatch or a crash is echo-des's bug (this sweep found two: calls of one communicator on two
streams matched in the order the streams reached them; see docs/reliability.md).

  scripts/random_traces.py [--seed N] [--count K] [--echo build/echo-des] [--keep DIR]

Exit 0 when every trace passed, 1 otherwise (each failure printed with its folder), 2 on a bad
command line.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_sweep  # noqa: E402

OPS = ("ALL_REDUCE", "ALL_GATHER", "REDUCE_SCATTER", "ALL_TO_ALL", "BROADCAST", "REDUCE")
PRESETS = (("dgx-a100", 8), ("dgx-h100", 8), ("polaris", 4), ("aws-p5", 8))


def communicator_slots(ranks):
    """Slot name -> member lists: the world, consecutive groups and strided groups."""
    slots = {"world": [list(range(ranks))]}
    for size in (2, 4, 8):
        if ranks % size == 0 and size < ranks:
            slots[f"block{size}"] = [list(range(k, k + size)) for k in range(0, ranks, size)]
            slots[f"stride{size}"] = [list(range(k, ranks, ranks // size)) for k in range(ranks // size)]
    return slots


def issue_list(rng, slots, streams):
    """The tasks every rank issues, as dicts; peers of transfers are left as 'next' / 'prev'."""
    tasks = []
    for _ in range(rng.choice((5, 20, 60))):
        task_id = len(tasks) + 1
        earlier = list(range(1, task_id))
        task = {"id": task_id, "stream": rng.randrange(streams),
                "deps": sorted(rng.sample(earlier, min(len(earlier), rng.choice((0, 0, 1, 2)))))}
        kind = rng.random()
        if kind < 0.45:
            task.update(kind="compute", ns=rng.randint(0, 2_000_000))
        elif kind < 0.85 or streams < 2:
            slot = rng.choice(sorted(slots))
            task.update(kind="collective", slot=slot, op=rng.choice(OPS),
                        bytes=rng.choice((0, 8, 1000, 1 << 20, 37 << 20, 1 << 28)),
                        root=rng.randrange(len(slots[slot][0])), measured_ns=rng.randint(1, 500_000))
        else:
            slot = rng.choice(sorted(slots))
            size = rng.choice((8, 1 << 20, 64 << 20))
            task.update(kind="send", slot=slot, peer="next", bytes=size, eager=rng.random() < 0.3)
            tasks.append(task)
            task = {"id": task_id + 1, "stream": (task["stream"] + 1) % streams, "deps": [],
                    "kind": "recv", "slot": slot, "peer": "prev", "bytes": size}
        tasks.append(task)
    return tasks


def task_text(task, member, group_size):
    head = f'tasks {{ id: {task["id"]} stream: {task["stream"]}'
    if task["deps"]:
        head += " deps: [" + ", ".join(map(str, task["deps"])) + "]"
    if task["kind"] == "compute":
        return head + f' name: "k{task["id"]}" category: GEMM compute {{ duration_ns: {task["ns"]} }} }}'
    if task["kind"] == "collective":
        root = f' root: {task["root"]}' if task["op"] in ("BROADCAST", "REDUCE") else ""
        return (head + f' name: "c{task["id"]}" collective {{ op: {task["op"]} comm: "{task["slot"]}" '
                f'bytes: {task["bytes"]}{root} measured_duration_ns: {task["measured_ns"]} }} }}')
    peer = (member + (1 if task["peer"] == "next" else -1)) % group_size
    eager = " eager: true" if task.get("eager") else ""
    return (head + f' name: "{task["kind"]}{task["id"]}" {task["kind"]} {{ comm: "{task["slot"]}" '
            f'peer: {peer} bytes: {task["bytes"]}{eager} }} }}')


def trace_text(rng, ranks):
    slots = communicator_slots(ranks)
    streams = rng.choice((1, 2, 3, 4))
    tasks = issue_list(rng, slots, streams)  # every communicator has two members or more
    lines = []
    for rank in range(ranks):
        body = []
        for task in tasks:
            member, size = 0, 1
            if "slot" in task:
                group = next(g for g in slots[task["slot"]] if rank in g)
                member, size = group.index(rank), len(group)
            body.append(task_text(task, member, size))
        stream_names = " ".join(f'streams: "s{s}"' for s in range(streams))
        lines.append(f'templates {{ name: "r{rank}" {stream_names}\n' + "\n".join(body) + "\n}")
    for slot, groups in slots.items():
        for k, group in enumerate(groups):
            lines.append(f'communicators {{ name: "{slot}.{k}" slot: "{slot}" ranks: [{", ".join(map(str, group))}] }}')
    lines += [f'ranks {{ first: {r} template_name: "r{r}" }}' for r in range(ranks)]
    return "\n".join(lines) + "\n"


def main():
    args, rng, work = random_sweep.start(__doc__, 40, "traces and jobs")
    failures = 0
    for k in range(args.count):
        preset, per_node = rng.choice(PRESETS)
        nodes = rng.choice((1, 1, 2, 3, 4))
        ranks = per_node * nodes if rng.random() < 0.7 else min(per_node * nodes, rng.choice((2, 3, 5)))
        folder = os.path.join(work, f"trace{k}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "t.pbtxt"), "w") as f:
            f.write(trace_text(rng, ranks))
        fidelity = rng.choice(("steps", "flow", "analytic"))
        workload = "trace: t.pbtxt"
        if rng.random() < 0.2:
            workload += ", comm: measured"  # the traced collective durations, no rendezvous timing
        if rng.random() < 0.2:
            workload += ", kernel_time_scale: 0.5"
        with open(os.path.join(folder, "job.yaml"), "w") as f:
            f.write(f"platform: {{preset: {preset}, nodes: {nodes}}}\nworkload: {{{workload}}}\n"
                    f"communication: {{fidelity: {fidelity}}}\n")
        times, problem = {}, None
        for fold in ("none", "exact", "tp"):
            try:
                r = subprocess.run([args.echo, "run", os.path.join(folder, "job.yaml"), "--json", "-q", "--fold", fold],
                                   capture_output=True, text=True, timeout=300)
            except subprocess.TimeoutExpired:
                problem = f"--fold {fold}: no answer in 300 s"
                break
            if r.returncode != 0:
                problem = f"--fold {fold}: exit {r.returncode}: " + r.stderr.strip().replace("\n", " | ")[:400]
                break
            times[fold] = json.loads(r.stdout)["iteration_time_ns"]
        if problem is None and len(set(times.values())) > 1:
            problem = f"the foldings differ: {times}"
        if problem:
            failures += 1
            print(f"FAIL {folder} ({ranks} ranks, {preset}, {fidelity}): {problem}", flush=True)
    print(f"{args.count} random traces (seed {args.seed}): {args.count - failures} passed, {failures} failed")
    return random_sweep.finish(args, work, failures)


if __name__ == "__main__":
    sys.exit(main())
