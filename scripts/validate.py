#!/usr/bin/env python3
"""Predicts every published run in ../shared/data/e2e/ with `echo-des run` and prints, per dataset,
the median |error|, the signed median, the share within 10% and the worst rows, each with what the
prediction spent its time on (compute / exposed communication / idle, and the host-bound share).

Datasets and how a row becomes a job (each dataset's framework recipe, as its source describes it):
- megatron: the Megatron-LM README tables (scripts/megatron_check.py's jobs).
- vtrain: vTrain's single-node A100 runs of Megatron-DeepSpeed (2022): fp16, full recomputation,
  attention without FlashAttention, gradients all-reduced after the backward pass, GPT-2 vocabulary.
- dgxc: NVIDIA's DGX-Cloud H100 benchmarks (NeMo / Megatron-Core): bf16 or fp8, sequence
  parallelism with TP, the distributed optimizer, overlapped gradient reduction, the recipe's
  recompute, context / expert / virtual-pipeline parallelism as listed, TP communication overlap
  (userbuffers) where the recipe turns it on.
- foundry: llm-foundry's MPT runs on A100: pure FSDP (FULL_SHARD: ZeRO-3), bf16, activation
  checkpointing as listed, MPT's 50,368-token vocabulary, and MPT's Triton FlashAttention (the
  benchmark script's default `--attn_impl triton`: attention `flash1`).

- vtrain-multi (held out, not in ../shared/data; only with --vtrain-multi CSV): vTrain's multi-node
  runs, 64-512 A100s, Megatron-DeepSpeed as above, 4 x 200 Gb/s NICs a node.
- foundry-h100 (held out, not in ../shared/data; only with --foundry-h100 README): llm-foundry's H100
  tables (its scripts/train/benchmarking/README.md), MPT with FSDP as each row says, gradients
  reduced in fp32 (Composer's DEFAULT mixed precision), 8-512 H100s.

  scripts/validate.py [--datasets vtrain,dgxc,...] [--rows N] [--echo build/echo-des] [--markdown]
                      [--vtrain-multi ground_truth_multi.csv]
                      [--foundry-h100 llm-foundry/scripts/train/benchmarking/README.md]

--rows N takes N rows per dataset, evenly spread over the file (deterministic); 0 takes all.
"""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "..", "shared", "data", "e2e")
sys.path.insert(0, HERE)
import megatron_check  # noqa: E402


def refuse(message):
    """A mistake in the command line or a missing input: exit 2, as echo-des does."""
    print(f"validate.py: {message}", file=sys.stderr)
    sys.exit(2)


def job(platform, model, training, parallel, communication=None):
    def inline(d):
        return "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"
    text = (f"platform: {inline(platform)}\nworkload:\n  model: {inline(model)}\n  training: {inline(training)}\n"
            f"  parallel: {inline(parallel)}\n")
    return text + (f"communication: {inline(communication)}\n" if communication else "")


def megatron_rows():
    for r in csv.DictReader(open(os.path.join(DATA, "megatron-published.csv"))):
        yield f"{r['table']} {r['model']} {r['gpus']} GPUs", megatron_check.job_yaml(r), megatron_check.measured_seconds(r)


def vtrain_rows():
    for r in csv.DictReader(open(os.path.join(DATA, "vtrain-single-node-a100.csv"))):
        name = f"h{r['hidden']} l{r['layers']} tp{r['tp']} pp{r['pp']} dp{r['dp']} mb{r['micro_batch']} gb{r['global_batch']}"
        yield name, job({"preset": "dgx-a100", "nodes": 1},
                        {"layers": r["layers"], "hidden": r["hidden"], "heads": r["heads"], "vocab": 50257, "seq_len": r["seq_len"]},
                        {"global_batch": r["global_batch"], "micro_batch": r["micro_batch"], "dtype": "fp16", "recompute": "full",
                         "framework": "megatron-deepspeed"},
                        {"tp": r["tp"], "pp": r["pp"], "dp": r["dp"]}), float(r["iteration_ms"]) / 1e3


def number(text, default=1):
    text = (text or "").strip()
    return int(text) if text.isdigit() else default


def dgxc_rows():
    for r in csv.DictReader(open(os.path.join(DATA, "dgxc-benchmarking-h100.csv"))):
        gpus, tp, pp = int(r["gpus"]), number(r["tp"]), number(r["pp"])
        cp, ep, vp = number(r["cp"]), number(r["ep"]), number(r["vp"])
        vocab = 256000 if "256k" in r["vocab"] else 128256
        moe = r["arch"].startswith("MoE")
        grok = r["model"].startswith("Grok")
        model = {"layers": r["layers"], "hidden": r["hidden"], "heads": r["heads"], "kv_heads": r["kv_groups"], "ffn_hidden": r["ffn"], "vocab": vocab, "seq_len": r["seq_len"],
                 # nemotron4-*-synth.yaml: squared ReLU (eager: bias_activation_fusion false), rotary
                 # embeddings, no biases, untied: the generator's defaults for squared_relu. Grok-1's
                 # fast-geglu is a gated GELU, fused: costed as SwiGLU.
                 "activation": "squared_relu" if r["model"].startswith("Nemotron") else "swiglu"}
        training = {"global_batch": r["gbs"], "micro_batch": r["mbs"], "dtype": r["precision"].lower(), "recompute": None,
                    "framework": "nemo"}
        if moe:
            model["moe"] = "{experts: 8, top_k: 2}"
            # grok1_314b.yaml: moe_expert_capacity_factor 1.0 with moe_pad_expert_input_to_capacity,
            # so Megatron-Core's dispatcher knows every split size without asking the GPU (core 0.9,
            # token_dispatcher.py: drop_and_pad sets no cuda_sync_point): no host wait per layer.
            training["host"] = "{sync_moe_dispatch: false}"
        # What each recipe's configure.sh (dgxc-benchmarking @35a9aec) sets beside its yaml:
        # NVTE_FUSED_ATTN=0 for Grok-1 and Nemotron-4 340B (Transformer Engine then runs
        # FlashAttention-2; Llama 3.1 and Nemotron-4 15B set 1: cuDNN's).
        if grok or r["model"] == "Nemotron4-340B":
            training["attention"] = "te_flash"
        # grok1_314b.yaml, alone of the recipes, does not set cross_entropy_loss_fusion: NeMo 24.09's
        # megatron_gpt_pretraining.py keeps Megatron-Core's default (false), the eager fp32 loss.
        if grok:
            training["fused_cross_entropy"] = "false"
        # Every recipe sets optim.grad_sync_dtype: bf16: the gradient buffer the fused weight-gradient
        # GEMMs add into (Apex's distributed_fused_adam's contiguous buffer, Megatron-Core's
        # grad_reduce_in_fp32 off) and the data-parallel reduction are bf16.
        training["grad_dtype"] = "bf16"
        # Every configure.sh passes model.fp8_params=$FP8_ENABLED: FP8 weights, gathered in FP8.
        if r["precision"] == "FP8":
            training["fp8_params"] = "true"
        if r["model"] == "Nemotron4-340B":
            # nemotron4-340b-synth.yaml: Apex's distributed_fused_adam with optim.dtype bf16 (NeMo
            # then keeps no master copy: store_params off).
            training["optimizer_dtype"] = "bf16"
        recompute = "selective" if r["recompute"].startswith("selective") else "full" if r["recompute"].startswith("full") else "none"
        parallel = {"tp": tp, "pp": pp, "cp": cp, "ep": ep, "dp": gpus // (tp * pp * cp), "sequence_parallel": "true" if tp > 1 else "false",
                    "zero": 1, "dp_overlap": "true"}
        if vp > 1:
            parallel.update({"schedule": "interleaved-1f1b", "virtual_stages": vp, "p2p_overlap": "true"})
        # ub_tp_comm_overlap as each run had it: true in llama3.1_70b.yaml, llama3.1_405b.yaml and
        # nemotron4-15b-synth.yaml; grok1_314b.yaml and nemotron4-340b-synth.yaml say false, but their
        # configure.sh passes model.ub_tp_comm_overlap=true on the command line (8B: tp 1). Megatron-Core
        # builds MoE experts without userbuffers: in Grok-1 only the attention's linears overlap.
        if tp > 1:
            parallel["tp_overlap"] = "true"
            # The SMs the pipelined ReduceScatters hold (ub_tp_comm_overlap_cfg's num_sm, with
            # set_sm_margin): the Llama recipes give them; the Nemotron-4 and Grok-1 recipes give no
            # cfg, so Transformer Engine's defaults (16).
            if r["model"] == "Llama3.1-70B":
                parallel["tp_overlap_sms"] = "{proj_fprop: 24, fc2_fprop: 16}"
            elif r["model"].startswith("Llama3.1-405B"):
                parallel["tp_overlap_sms"] = "{proj_fprop: 24, fc2_fprop: 8}"
                # Its configure.sh: ub_tp_comm_overlap_cfg.{proj,fc2}_fprop.fp8_buf=$FP8_ENABLED.
                if r["precision"] == "FP8":
                    parallel["tp_overlap_fp8_buf"] = "true"
        step = float(r["step_time_s"].split()[0])
        name = f"{r['model']} {r['precision']} {gpus} GPUs"
        training["recompute"] = recompute
        # Every configure.sh exports NCCL_NVLS_ENABLE=0: no NVLS / NVLSTree.
        yield name, job({"preset": "dgx-h100", "nodes": max(1, gpus // 8)}, model, training, parallel,
                        {"algo": '"^nvls,nvlstree"'}), step


def foundry_rows():
    for r in csv.DictReader(open(os.path.join(DATA, "llm-foundry-a100.csv"))):
        gpus = int(r["# GPUs"])
        seconds = float(r["GlobalBatchSize (T)"]) / float(r["Throughput (T/s)"])
        gpu = "a100-40gb" if "40" in r["GPU"] else "a100-80gb"
        name = f"MPT-{r['Model']} {gpus}x{gpu} mb{r['MicroBatchSize']} ckpt={r['Activation Checkpointing']}"
        yield name, job({"preset": "dgx-a100", "nodes": max(1, math.ceil(gpus / 8)), "gpu": gpu},
                        {"layers": r["n_layers"], "hidden": r["d_model"], "heads": r["n_heads"], "vocab": 50368, "seq_len": r["SeqLen (T)"]},
                        {"global_batch": r["GlobalBatchSize"], "micro_batch": r["MicroBatchSize"], "dtype": "bf16",
                         "recompute": "full" if r["Activation Checkpointing"] == "True" else "none", "framework": "fsdp",
                         "attention": "flash1", "grad_dtype": "bf16" if r["MP Mode"] == "PURE" else "fp32"},
                        {"tp": 1, "pp": 1, "dp": gpus}), seconds


VTRAIN_MULTI_CSV = None  # --vtrain-multi


def vtrain_multi_rows():
    """vTrain's multi-node runs (data/ground_truth_multi.csv of github.com/VIA-Research/vTrain, not in
    ../shared/data: give the file with --vtrain-multi). Megatron-DeepSpeed as in the single-node runs,
    GPT models of 3.6B to 175B on 64-512 A100s. vTrain's configs (config/validation/multi) give 8 GPUs
    a node, 800 Gb/s between nodes and 1F1B: 4 x 200 Gb/s HDR NICs a node here (two GPUs a NIC)."""
    if not VTRAIN_MULTI_CSV:
        return
    for r in csv.DictReader(open(VTRAIN_MULTI_CSV, encoding="utf-8-sig")):  # the published file starts with a BOM
        gpus, tp, pp, dp = (int(r[k]) for k in ("# GPUs", "tensor parallelism", "pipeline parallelism", "data parallelism"))
        name = f"{r['Parameters (billion)']}B tp{tp} pp{pp} dp{dp} mb{r['micro batch']}"
        yield name, job({"preset": "dgx-a100", "nodes": gpus // 8, "nics_per_node": 4},
                        {"layers": r["# layers"], "hidden": r["hidden size"], "heads": r["attention heads"], "vocab": 50257,
                         "seq_len": r["sequence length"]},
                        {"global_batch": r["global batch"], "micro_batch": r["micro batch"], "dtype": "fp16", "recompute": "full",
                         "framework": "megatron-deepspeed"},
                        {"tp": tp, "pp": pp, "dp": dp}), float(r["iteration time (ms)"]) / 1e3


FOUNDRY_H100_README = None  # --foundry-h100


def mpt_dims():
    """MPT's layers, width and heads by model name, as ../shared/data's llm-foundry table gives them."""
    table = os.path.join(DATA, "llm-foundry-a100.csv")
    if not os.path.isfile(table):
        refuse(f"the foundry-h100 dataset takes MPT's dimensions from {table}, which is not there: "
               "put ../shared/data beside the checkout")
    dims = {}
    for r in csv.DictReader(open(table)):
        dims[r["Model"]] = (r["n_layers"], r["d_model"], r["n_heads"])
    return dims


def markdown_rows(text, heading):
    """The rows of the markdown table under `heading` (a line starting with it), as dicts."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == heading), None)
    if start is None:
        refuse(f"--foundry-h100 {FOUNDRY_H100_README}: no table under '{heading}'; give llm-foundry's "
               "scripts/train/benchmarking/README.md")
    header = [c.strip() for c in lines[start + 1].strip().strip("|").split("|")]
    for line in lines[start + 3:]:
        if not line.strip().startswith("|"):
            break
        yield dict(zip(header, (c.strip() for c in line.strip().strip("|").split("|"))))


def foundry_h100_rows():
    """llm-foundry's H100 tables (scripts/train/benchmarking/README.md of mosaicml/llm-foundry, not in
    ../shared/data: give the file with --foundry-h100). MPT on DGX-class H100 nodes, FSDP as each row
    says (FULL_SHARD: ZeRO-3, SHARD_GRAD_OP: ZeRO-2), amp_bf16 with Composer's DEFAULT mixed precision
    (gradients reduced in fp32). Attention: the Triton FlashAttention of the submit script's default
    (`flash1`), except where the large-scale sweep (scripts/train/benchmarking/sweep.py, Jan 2024) asked
    for `--attn_impl flash` (FlashAttention-2: 1b, 3b, 7b, 70b)."""
    if not FOUNDRY_H100_README:
        return
    text = open(FOUNDRY_H100_README).read()
    dims = mpt_dims()
    for heading, large in (("## H100 80GB BF16 (Large Scale, >= 128 GPUs)", True), ("## H100 80GB BF16", False)):
        for r in markdown_rows(text, heading):
            gpus = int(r["# GPUs"])
            layers, hidden, heads = dims[r["Model"]]
            attention = "flash" if large and r["Model"] in ("1b", "3b", "7b", "70b") else "flash1"
            zero = 2 if r["Sharding Strategy"] == "SHARD_GRAD_OP" else 3
            ckpt = r["Activation Checkpointing"] == "True"
            name = f"MPT-{r['Model']} {gpus}xh100 seq{r['SeqLen (T)']} mb{r['MicroBatchSize']} ckpt={ckpt}"
            seconds = float(r["GlobalBatchSize (T)"]) / float(r["Throughput (T/s)"])
            yield name, job({"preset": "dgx-h100", "nodes": max(1, math.ceil(gpus / 8))},
                            {"layers": layers, "hidden": hidden, "heads": heads, "vocab": 50368, "seq_len": r["SeqLen (T)"]},
                            {"global_batch": r["GlobalBatchSize"], "micro_batch": r["MicroBatchSize"], "dtype": "bf16",
                             "recompute": "full" if ckpt else "none", "framework": "fsdp", "attention": attention,
                             "grad_dtype": "fp32"},
                            {"tp": 1, "pp": 1, "dp": gpus, "zero": zero}), seconds


DATASETS = {"vtrain": vtrain_rows, "dgxc": dgxc_rows, "foundry": foundry_rows, "megatron": megatron_rows,
            "vtrain-multi": vtrain_multi_rows, "foundry-h100": foundry_h100_rows}
DEFAULT_DATASETS = ["vtrain", "dgxc", "foundry", "megatron"]  # vtrain-multi needs --vtrain-multi


def predict(echo, yaml_text, timeout_s):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(yaml_text)
    try:
        out = subprocess.run([echo, "run", f.name, "--json", "-q"], capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return None, "took more than %d s" % timeout_s
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[0] if out.stderr.strip() else "exit %d" % out.returncode
    return json.loads(out.stdout), ""


def reason(j):
    it = j["iteration_time_s"]
    n = max(1, len(j["ranks"]))
    mean = lambda k: sum(r.get(k, 0) for r in j["ranks"]) / n / it if it > 0 else 0  # noqa: E731
    return "compute %.0f%%, exposed comm %.0f%%, idle %.0f%% (host-bound %.0f%%)" % (
        100 * mean("compute_s"), 100 * mean("exposed_comm_s"), 100 * mean("idle_s"), 100 * mean("host_bound_s"))


def gpus_of(yaml_text):
    """GPUs a job asks for: tp x pp x cp x dp from its parallel section (nodes x 8 where it has none)."""
    import re
    par = dict(re.findall(r"(tp|pp|cp|dp): (\d+)", yaml_text.split("parallel:")[-1]))
    if "dp" in par:
        return math.prod(int(par.get(k, 1)) for k in ("tp", "pp", "cp", "dp"))
    nodes = re.search(r"nodes: (\d+)", yaml_text)
    return 8 * int(nodes.group(1)) if nodes else 8


def spread(rows, n):
    if n <= 0 or n >= len(rows):
        return rows
    return [rows[round(i * (len(rows) - 1) / (n - 1))] for i in range(n)] if n > 1 else rows[:1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(DEFAULT_DATASETS), help="of " + ", ".join(DATASETS))
    ap.add_argument("--vtrain-multi", metavar="CSV", help="vTrain's data/ground_truth_multi.csv, for the vtrain-multi dataset")
    ap.add_argument("--foundry-h100", metavar="README",
                    help="llm-foundry's scripts/train/benchmarking/README.md, for the foundry-h100 dataset")
    ap.add_argument("--rows", type=int, default=12, help="rows per dataset, evenly spread (0: all)")
    ap.add_argument("--echo", default=os.path.join(ROOT, "build", "echo-des"))
    ap.add_argument("--worst", type=int, default=3)
    ap.add_argument("--max-gpus", type=int, default=512, help="leave out larger runs (their simulation takes minutes)")
    ap.add_argument("--timeout", type=int, default=180, help="seconds one run may take")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", action="store_true", help="print every row's measured and predicted time as JSON (for tests)")
    args = ap.parse_args()
    global VTRAIN_MULTI_CSV, FOUNDRY_H100_README
    VTRAIN_MULTI_CSV = args.vtrain_multi
    FOUNDRY_H100_README = args.foundry_h100
    for name in args.datasets.split(","):
        if name not in DATASETS:
            refuse(f"unknown dataset `{name}`; known: {', '.join(DATASETS)}")
    if "vtrain-multi" in args.datasets.split(",") and not args.vtrain_multi:
        refuse("the vtrain-multi dataset is not in ../shared/data: download "
               "https://github.com/VIA-Research/vTrain/blob/main/data/ground_truth_multi.csv and give it with --vtrain-multi")
    if args.vtrain_multi and not os.path.isfile(args.vtrain_multi):
        refuse(f"--vtrain-multi {args.vtrain_multi}: no such file")
    if "foundry-h100" in args.datasets.split(",") and not args.foundry_h100:
        refuse("the foundry-h100 dataset is not in ../shared/data: download "
               "https://github.com/mosaicml/llm-foundry/blob/main/scripts/train/benchmarking/README.md and give it with --foundry-h100")
    if args.foundry_h100 and not os.path.isfile(args.foundry_h100):
        refuse(f"--foundry-h100 {args.foundry_h100}: no such file")
    summary = []
    every_row = []
    for name in args.datasets.split(","):
        rows = spread([r for r in DATASETS[name]() if gpus_of(r[1]) <= args.max_gpus], args.rows)
        results = []
        for label, yaml_text, measured in rows:
            j, error = predict(args.echo, yaml_text, args.timeout)
            if j is None:
                print(f"{name}: {label}: not run: {error}", file=sys.stderr)
                continue
            err = (j["iteration_time_s"] - measured) / measured
            results.append((label, measured, j["iteration_time_s"], err, reason(j)))
            every_row.append({"dataset": name, "row": label, "measured_s": measured, "predicted_s": j["iteration_time_s"]})
        if not results:
            continue
        errs = [r[3] for r in results]
        summary.append((name, len(results), len(rows), statistics.median(abs(e) for e in errs), statistics.median(errs),
                        sum(abs(e) <= 0.10 for e in errs) / len(errs)))
        if args.json:
            continue
        for label, measured, predicted, err, why in sorted(results, key=lambda r: -abs(r[3]))[: args.worst]:
            print(f"  {name} worst: {label}: measured {measured:.3f} s, predicted {predicted:.3f} s ({100 * err:+.1f}%): {why}")
    if args.json:
        print(json.dumps(every_row, indent=1))
    elif args.markdown:
        print("| dataset | rows run | median abs error | signed median | within 10% |")
        print("|---|---:|---:|---:|---:|")
        for name, ran, tried, med, signed, within in summary:
            print(f"| {name} | {ran} of {tried} | {100 * med:.1f}% | {100 * signed:+.1f}% | {100 * within:.0f}% |")
    else:
        for name, ran, tried, med, signed, within in summary:
            print(f"{name:10s} {ran:4d}/{tried:<4d} median |error| {100 * med:5.1f}%  signed {100 * signed:+6.1f}%  "
                  f"within 10% {100 * within:3.0f}%")


if __name__ == "__main__":
    main()
