#!/usr/bin/env bash
# Runs every trace of a folder through echo-des and prints a table (scripts/trace_corpus.py says
# what each column is):  scripts/trace_corpus.sh DIR [--markdown] [--echo build/echo-des]
exec python3 "$(dirname "$0")/trace_corpus.py" "$@"
