#!/usr/bin/env python3
"""Predicts the published Megatron-LM throughput runs (../shared/data/e2e/megatron-published.csv)
with `echo-des run` and prints measured against predicted iteration times.

A measured iteration time is model FLOPs of one iteration / (tflops_per_gpu x 1e12 x gpus), with
the FLOP count each table used: for the A100 (2021) table Narayanan et al.'s formula, which counts
the recomputed forward pass, 96 B s l h^2 (1 + s/6h + V/16lh); for the H100 (2024) table the one
without recomputation, 72 B s l h^2 (1 + s/6h + V/12lh).

  scripts/megatron_check.py [--csv FILE] [--max-gpus N] [--echo build/echo-des] [--markdown]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def measured_seconds(row):
    B, s, l, h, V = (float(row[k]) for k in ("global_batch", "seq_len", "layers", "hidden", "vocab"))
    if row["table"].startswith("megatron-a100"):
        flops = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
    else:
        flops = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h))
    return flops / (float(row["tflops_per_gpu"]) * 1e12 * int(row["gpus"]))


def job_yaml(row):
    a100 = row["table"].startswith("megatron-a100")
    preset = "dgx-a100" if a100 else "dgx-h100"
    gpus = int(row["gpus"])
    nodes = (gpus + 7) // 8
    # A100 (2021) runs: full recomputation (the table's note), Megatron-LM of 2021: fp16, attention
    # without FlashAttention, gradients all-reduced after the backward pass (no overlap, no
    # distributed optimizer). H100 (2024) runs: Megatron-Core with Transformer Engine's attention
    # (cuDNN's on Hopper), sequence parallelism, selective recomputation, the distributed optimizer
    # and overlapped reduction, and
    # (the README's "fine-grained overlapping": --overlap-grad-reduce --overlap-param-gather
    # --tp-comm-overlap) TP communication overlap.
    recompute = "full" if a100 else "selective"
    sp = "false" if a100 or int(row["tp"]) == 1 else "true"
    attention = "unfused" if a100 else "te"
    dtype = "fp16" if a100 else "bf16"
    zero, overlap = ("0", "false") if a100 else ("1", "true")
    tp_overlap = "true" if sp == "true" else "false"
    # H100 (2024): the sizes the table names count untied input and output embeddings (1.7B is
    # 24 x 12 h^2 + 2 V h; tied it would be 1.5B, 7.1B 6.6B, 177B 176B), so --untie-embeddings-and-
    # output-weights: no embedding AllReduce between the first and last stage. Its pipelined runs
    # are interleaved: the README counts pipeline communication among the overlaps "enabled by
    # default", which Megatron-Core 0.8 (the plots' version) runs only in the interleaved schedule
    # (it turns --overlap-p2p-communication off otherwise), and with 23 layers a stage at 119B and
    # 7 at 462B the only virtual stage size that divides every row's stage is one layer.
    tied = "true" if a100 else "false"
    layers, pp = int(row["layers"]), int(row["pp"])
    pipeline = ""
    if not a100 and pp > 1:
        pipeline = f", schedule: interleaved-1f1b, virtual_stages: {layers // pp}, p2p_overlap: true"
    return f"""platform: {{preset: {preset}, nodes: {nodes}}}
workload:
  model: {{layers: {layers}, hidden: {row['hidden']}, heads: {row['heads']}, vocab: {row['vocab']}, seq_len: {row['seq_len']}, tied_embeddings: {tied}}}
  training: {{global_batch: {row['global_batch']}, micro_batch: 1, dtype: {dtype}, recompute: {recompute}, attention: {attention}}}
  parallel: {{tp: {row['tp']}, pp: {pp}, dp: {row['dp']}, sequence_parallel: {sp}, zero: {zero}, dp_overlap: {overlap}, tp_overlap: {tp_overlap}{pipeline}}}
"""


def predict(echo, row):
    """`echo-des run` on the row's job: the summary as a dict, or raises RuntimeError with its stderr."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(job_yaml(row))
    out = subprocess.run([echo, "run", f.name, "--json", "-q"], capture_output=True, text=True)
    os.unlink(f.name)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", default=os.path.join(ROOT, "..", "shared", "data", "e2e", "megatron-published.csv"))
    ap.add_argument("--echo", default=os.path.join(ROOT, "build", "echo-des"))
    ap.add_argument("--max-gpus", type=int, default=1 << 30)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    rows = [r for r in csv.DictReader(open(args.csv)) if int(r["gpus"]) <= args.max_gpus]
    errors = []
    if args.markdown:
        print("| table | model | GPUs | TP/PP/DP | measured s | predicted s | error | predicted MFU |")
        print("|---|---|---:|---|---:|---:|---:|---:|")
    for row in rows:
        try:
            j = predict(args.echo, row)
        except RuntimeError as e:
            print(f"{row['table']} {row['model']}: {e}", file=sys.stderr)
            continue
        predicted = j["iteration_time_s"]
        measured = measured_seconds(row)
        err = (predicted - measured) / measured
        errors.append(abs(err))
        layout = f"{row['tp']}/{row['pp']}/{row['dp']}"
        mfu = j["training"]["mfu"]
        if args.markdown:
            print(f"| {row['table']} | {row['model']} | {row['gpus']} | {layout} | {measured:.2f} | {predicted:.2f} | {100*err:+.1f}% | {100*mfu:.1f}% |")
        else:
            print(f"{row['table']:20s} {row['model']:6s} {row['gpus']:>5s} GPUs {layout:>9s}  measured {measured:8.3f} s  "
                  f"predicted {predicted:8.3f} s  {100*err:+6.1f}%", flush=True)
    if errors:
        print(f"\nmedian |error| over {len(errors)} runs: {100*statistics.median(errors):.1f}%")


if __name__ == "__main__":
    main()
