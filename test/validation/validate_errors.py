#!/usr/bin/env python3
"""scripts/validate.py refuses a command-line mistake with a message that says what to do, and exit
code 2: an unknown dataset, a held-out dataset (vtrain-multi, foundry-h100) without its file, a file
that is not there, a README without llm-foundry's tables. And it reads the held-out files as published: vTrain's starts with a UTF-8
byte-order mark, llm-foundry's H100 tables are markdown in its benchmarking README.

  validate_errors.py SOURCE_DIR [ECHO_BINARY]
"""
import json
import os
import subprocess
import sys
import tempfile

source = sys.argv[1]
echo = sys.argv[2] if len(sys.argv) > 2 else os.path.join(source, "build", "echo-des")  # the binary under test
script = os.path.join(source, "scripts", "validate.py")
cases = [
    (["--datasets", "bogus"], "known: vtrain, dgxc"),
    (["--datasets", "vtrain-multi"], "give it with --vtrain-multi"),
    (["--datasets", "vtrain-multi", "--vtrain-multi", "/nonexistent/ground_truth_multi.csv"], "no such file"),
    (["--datasets", "foundry-h100"], "give it with --foundry-h100"),
    (["--datasets", "foundry-h100", "--foundry-h100", "/nonexistent/README.md"], "no such file"),
]
failures = []
for args, expected in cases:
    out = subprocess.run([sys.executable, script] + args, capture_output=True, text=True)
    if out.returncode != 2 or expected not in out.stderr:
        failures.append(f"{' '.join(args)}: exit {out.returncode}, stderr {out.stderr.strip()!r}")
# vTrain's data/ground_truth_multi.csv: its header, after a byte-order mark, and its first run.
with tempfile.NamedTemporaryFile("w", suffix=".csv", encoding="utf-8", delete=False) as table:
    table.write("\ufeffParameters (billion),# GPUs,global batch,micro batch,hidden size,attention heads,# layers,"
            "sequence length,tensor parallelism,data parallelism,pipeline parallelism,iteration time (ms)\n"
            "3.6,64,512,8,3072,32,30,2048,1,64,1,3566.5\n")
out = subprocess.run([sys.executable, script, "--datasets", "vtrain-multi", "--vtrain-multi", table.name, "--rows", "0", "--json",
                      "--echo", echo], capture_output=True, text=True)
os.unlink(table.name)
if out.returncode != 0 or [r["row"] for r in json.loads(out.stdout or "[]")] != ["3.6B tp1 pp1 dp64 mb8"]:
    failures.append(f"vtrain-multi with a byte-order mark: exit {out.returncode}, stderr {out.stderr.strip()[-300:]!r}")
# llm-foundry's README: a table under its heading, header and rule lines, then rows; prose after.
# MPT's dimensions come from ../shared/data's A100 table: without it, refused (exit 2), else parsed.
mpt_table = os.path.join(source, "..", "shared", "data", "e2e", "llm-foundry-a100.csv")
header = ("|  Model | SeqLen (T) | # GPUs | GPU | MFU | HFU | Model TFLOP | MicroBatchSize | GradAccum | GlobalBatchSize | "
          "Throughput (S/s) | Throughput (T/s) | Throughput (T/s/GPU) | GlobalBatchSize (T) | Precision | MP Mode | "
          "Sharding Strategy | Activation Checkpointing | Activation CPUOffload | NumParams |\n")
rule = "|" + "  --- |" * 20 + "\n"
with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as readme:
    readme.write("# Benchmarks\n\n## H100 80GB BF16 (Large Scale, >= 128 GPUs)\n" + header + rule +
                 "|  1b | 2048 | 8 | h100_80gb | 40.6 | 40.6 | 401 | 12 | 1 | 96 | 1 | 5647854 | 44123 | 196608 | amp_bf16 | DEFAULT | "
                 "SHARD_GRAD_OP | False | False | 1315950592 |\n\n## H100 80GB BF16\n" + header + rule +
                 "|  125m | 2048 | 8 | h100_80gb | 40 | 40 | 100 | 8 | 1 | 64 | 1 | 500000 | 62500 | 131072 | amp_bf16 | DEFAULT | "
                 "FULL_SHARD | False | False | 125000000 |\n\nMore prose.\n")
out = subprocess.run([sys.executable, script, "--datasets", "foundry-h100", "--foundry-h100", readme.name, "--rows", "0", "--json",
                      "--echo", echo], capture_output=True, text=True)
os.unlink(readme.name)
rows = [r["row"] for r in json.loads(out.stdout or "[]")] if out.returncode == 0 else []
if not os.path.isfile(mpt_table):
    if out.returncode != 2 or "put ../shared/data beside the checkout" not in out.stderr:
        failures.append(f"foundry-h100 without ../shared/data: exit {out.returncode}, stderr {out.stderr.strip()[-300:]!r}")
elif out.returncode != 0 or rows != ["MPT-1b 8xh100 seq2048 mb12 ckpt=False", "MPT-125m 8xh100 seq2048 mb8 ckpt=False"]:
    failures.append(f"foundry-h100 tables: exit {out.returncode}, rows {rows}, stderr {out.stderr.strip()[-300:]!r}")
# A file that is not that README (no table under its headings): refused, saying which file to give.
with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as other:
    other.write("# Some other README\n\nNo tables here.\n")
out = subprocess.run([sys.executable, script, "--datasets", "foundry-h100", "--foundry-h100", other.name, "--rows", "0",
                      "--echo", echo], capture_output=True, text=True)
os.unlink(other.name)
expected = "no table under" if os.path.isfile(mpt_table) else "put ../shared/data beside the checkout"
if out.returncode != 2 or expected not in out.stderr:
    failures.append(f"foundry-h100 with another README: exit {out.returncode}, stderr {out.stderr.strip()[-300:]!r}")
for f in failures:
    print(f)
sys.exit(1 if failures else 0)
