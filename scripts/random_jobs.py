#!/usr/bin/env python3
"""Random generated jobs through `echo-des run`: every one must either run (exit 0, a positive
iteration time) or be refused with a user error (exit 2 and a `how to fix`) — never crash, hang,
report an internal error, or deadlock (a generated job that deadlocks is echo-des's bug; this
sweep found two: ZeRO-3 over one rank, and synchronizing timers under the interleaved schedule;
see docs/reliability.md).

Each job draws a preset, a layout (TP, PP, CP, EP, DP), a model, a framework, a recipe
(dtype, recomputation, attention kernel, ZeRO, overlaps, bucket size, the host's synchronizations,
kernel merging), platform what-ifs (the node's GPUs and NICs, pods,
oversubscription, NIC speed, GPU speed spread), a fidelity, NCCL restrictions, a slowdown model
and a folding; about a third write their outputs. Many draws are refused (a schedule that needs
more stages, FP8 on an A100, ...): those must be refused clearly, which is half of the check.

  scripts/random_jobs.py [--seed N] [--count K] [--echo build/echo-des] [--keep DIR]

Exit 0 when every job passed, 1 otherwise (each failure printed with its job file), 2 on a bad
command line.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_sweep  # noqa: E402

PRESETS = {"dgx-a100": 8, "azure-ndv4-a100": 8, "dgx-h100": 8, "h800": 8, "aws-p5": 8, "gcp-a3-mega": 8, "polaris": 4}
AMPERE = ("dgx-a100", "azure-ndv4-a100", "polaris")


def draw_job(rng):
    pick = rng.choice
    preset = pick(sorted(PRESETS))
    per_node = PRESETS[preset]
    reshaped = rng.random() < 0.25  # a node of another shape: GPUs and NICs per node
    if reshaped:
        per_node = pick((1, 2, 4, 6, 16))
        nics = pick([n for n in (1, 2, 3, 4, 6, 8, 16, 32) if per_node % n == 0 or n % per_node == 0])
    tp, pp, cp, dp = pick((1, 2, 4, per_node)), pick((1, 1, 2, 4)), pick((1, 1, 2)), pick((1, 2, 4))
    moe = rng.random() < 0.3
    ep = pick((1, 2, 4)) if moe else 1
    if moe and dp % ep:
        dp = ep
    gpus = tp * pp * cp * dp
    if gpus > per_node and gpus % per_node:
        return None
    schedule = pick(("1f1b", "gpipe", "interleaved-1f1b")) if pp > 1 else "1f1b"
    virtual = pick((2, 3)) if schedule == "interleaved-1f1b" else 1
    heads = pick((8, 16, 32))
    hidden = heads * pick((64, 128))
    micro = pick((1, 2))
    model = {"layers": pp * virtual * pick((1, 2)), "hidden": hidden, "heads": heads,
             "kv_heads": pick((heads, max(1, heads // 4))), "ffn_hidden": hidden * pick((2, 4)),
             "activation": pick(("gelu", "swiglu", "squared_relu")), "vocab": pick((32000, 50257, 128256)),
             "seq_len": pick((256, 2048, 8192))}
    if moe:
        model["moe"] = {"experts": ep * pick((2, 4)), "top_k": pick((1, 2))}
    training = {"global_batch": micro * dp * pick((1, 2, 4)) * (pp if virtual > 1 else 1), "micro_batch": micro,
                "dtype": pick(("bf16", "fp16", "fp32", "tf32")) if preset in AMPERE else pick(("bf16", "fp16", "fp8")),
                "recompute": pick(("none", "selective", "full")),
                "framework": pick(("megatron-lm", "megatron-deepspeed", "nemo", "fsdp", "torchtitan", "none")),
                "attention": pick(("te", "cudnn", "flash", "flash1", "unfused")), "compile": pick((True, False))}
    if training["recompute"] == "selective":
        training["selective"] = pick(("attention", "op"))
    if rng.random() < 0.3:
        training["grad_dtype"] = pick(("bf16", "fp32"))
    if rng.random() < 0.3:
        training["host"] = {flag: pick((True, False)) for flag in
                            ("sync_after_p2p", "sync_before_step", "sync_moe_dispatch", "sync_timers")}
    if rng.random() < 0.2:
        training["fused_cross_entropy"] = pick((True, False))
    if rng.random() < 0.3:
        training["persistent_gemms"] = pick((True, False))
    if training["dtype"] == "fp8":
        training["fp8_params"] = pick((True, False))
    if rng.random() < 0.2:
        model.update(tied_embeddings=pick((True, False)), rotary=pick((True, False)),
                     norm=pick(("layernorm", "rmsnorm")), bias=pick((True, False)))
    sequence_parallel = tp > 1 and rng.random() < 0.6
    parallel = {"tp": tp, "pp": pp, "cp": cp, "ep": ep, "dp": dp, "schedule": schedule, "zero": pick((0, 1, 2, 3)),
                "sequence_parallel": sequence_parallel, "dp_overlap": pick((True, False)),
                "p2p_overlap": pick((True, False)), "tp_overlap": sequence_parallel and rng.random() < 0.4,
                "bucket_mb": pick((1, 25, 1000))}
    if parallel["zero"] == 3 and rng.random() < 0.5:
        parallel.update(backward_prefetch=pick(("pre", "post", "none")), flat_parameters=pick((True, False)))
    if virtual > 1:
        parallel["virtual_stages"] = virtual
    platform = {"preset": preset, "nodes": max(1, -(-gpus // per_node))}
    if reshaped:
        platform.update(gpus_per_node=per_node, nics_per_node=nics)
    if rng.random() < 0.3:
        platform.update(pod_nodes=pick((1, 2, 4)), oversubscription=pick((1, 2, 8)))
    if rng.random() < 0.2:
        platform["nic_bw"] = pick(("100Gbps", "25GBps", "1.6Tbps"))
    if rng.random() < 0.2:
        platform["gpu_speed_spread"] = pick((0, 0.05))
    communication = {"fidelity": pick(("steps", "steps", "analytic", "flow"))}
    if rng.random() < 0.2:
        communication["algo"] = pick(("ring", "tree", "nvls", "ring,tree", "^nvls"))
    if rng.random() < 0.15:
        communication["proto"] = pick(("simple", "ll", "ll128", "^ll"))
    job = {"platform": platform, "workload": {"model": model, "training": training, "parallel": parallel},
           "communication": communication}
    if rng.random() < 0.2:
        job["workload"]["merge_kernels"] = False
    if rng.random() < 0.3:
        job["slowdown"] = pick(({"model": "none"}, {"model": "constant", "factor": 1.3}, {"model": "category"}))
    return job


def main():
    args, rng, work = random_sweep.start(__doc__, 60, "jobs and outputs")
    ran = refused = failures = k = 0
    while ran + refused + failures < args.count:
        job = draw_job(rng)
        k += 1
        if job is None:
            continue
        path = os.path.join(work, f"job{k}.yaml")
        with open(path, "w") as f:
            json.dump(job, f)  # JSON is YAML
        command = [args.echo, "run", path, "-q", "--fold", rng.choice(("exact", "tp", "all", "none"))]
        if rng.random() < 0.3:
            command += ["--out", os.path.join(work, f"out{k}")]
        try:
            r = subprocess.run(command, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            failures += 1
            print(f"FAIL {' '.join(command[1:])}: no answer in 300 s", flush=True)
            continue
        err = r.stderr.strip()
        if r.returncode == 0 and "iteration time:" in r.stdout:
            ran += 1
        elif r.returncode == 2 and "how to fix" in err and "deadlock" not in err:
            refused += 1
        else:
            failures += 1
            print(f"FAIL {' '.join(command[1:])}: exit {r.returncode}: " + err.replace("\n", " | ")[:400], flush=True)
    print(f"{args.count} random generated jobs (seed {args.seed}): {ran} ran, {refused} refused with a user error, "
          f"{failures} failed")
    return random_sweep.finish(args, work, failures)


if __name__ == "__main__":
    sys.exit(main())
