"""What scripts/random_traces.py and scripts/random_jobs.py share: their command line (a seed, a
count, the echo-des binary, a folder to keep), the folder they work in, and how they end."""
import argparse
import os
import random
import shutil
import tempfile


def start(doc, default_count, what):
    """Parses the command line; returns (args, random generator, work folder)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=default_count)
    ap.add_argument("--echo", default="build/echo-des")
    ap.add_argument("--keep", help=f"write the {what} here (default: a temporary folder, removed)")
    args = ap.parse_args()
    if args.count < 1:
        ap.error("--count must be at least 1")
    work = args.keep or tempfile.mkdtemp(prefix="echo-random-")
    os.makedirs(work, exist_ok=True)
    return args, random.Random(args.seed), work


def finish(args, work, failures):
    """The exit code; the temporary folder goes unless asked to keep it or something failed."""
    if not args.keep and not failures:
        shutil.rmtree(work)
    return 1 if failures else 0
